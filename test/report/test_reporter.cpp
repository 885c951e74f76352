// Tests of comet/report/reporter.hpp: comet extended from outside include/ with no edit of it —
// a kernel of its own that records a measured value beside its samples, an analysis of its own
// that derives a table, and a reporter of its own — run through run_suite and analyse on the
// threads transport: the value and the table reach the console tables, the CSV files and
// results.json, and the reporter gets the context, every record, every table and the report,
// in that order; comet's own outputs are reporters too.
#include <comet/ops/ops.hpp>
#include <comet/report/context.hpp>
#include <comet/report/csv.hpp>
#include <comet/report/gbench.hpp>
#include <comet/report/json.hpp>
#include <comet/report/reporter.hpp>
#include <comet/report/table.hpp>
#include <comet/stats/compare.hpp>
#include <comet/suite/suite.hpp>
#include <comet/timing/measure.hpp>
#include <comet/timing/repeat.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace reporter_test {

/// The kernel's configuration, as every kernel's: with `sampling` and `on_point`.
struct ping_config {
    std::vector<std::size_t> sizes = {8, 4096};
    comet::sampling sampling = comet::fixed_sampling(3, 20);
    std::function<void(const comet::record&)> on_point = {};
};

/// Rank 0 sends `size` bytes to rank 1 and waits for them back, sampled by comet's engine; before
/// the samples it times one round trip on its own (a cold one) and records it as a value.
template <comet::transport T>
comet::result_set ping(T& t, const ping_config& cfg) {
    constexpr int tag = comet::first_reserved_tag + 41;
    const std::array<int, 2> ranks{0, 1};
    comet::result_set out;
    if (t.rank() > 1) return out;
    std::vector<std::byte> buffer(4096);
    const auto round_trip = [&](std::span<std::byte> message) {
        if (t.rank() == 0) {
            comet::ops::send(t, 1, tag, message);
            comet::ops::recv(t, 1, tag, message);
        } else {
            comet::ops::recv(t, 0, tag, message);
            comet::ops::send(t, 0, tag, message);
        }
    };
    std::vector<double> cold;
    for (std::size_t size : cfg.sizes) {
        const double start = t.now();
        round_trip(std::span(buffer.data(), size));
        cold.push_back(t.now() - start);
    }
    auto measured = comet::sample_points(t, cfg.sizes.size(), cfg.sampling, 0, ranks, comet::sample_reduction::decider,
                                         [&](std::size_t p, std::size_t iterations) -> std::optional<comet::repeat_result> {
                                             const std::span<std::byte> message(buffer.data(), cfg.sizes[p]);
                                             if (t.rank() == 0)
                                                 return comet::repeat(t, iterations, [&] { round_trip(message); });
                                             for (std::size_t i = 0; i < iterations; ++i) round_trip(message);
                                             return std::nullopt;
                                         });
    if (t.rank() != 0) return out;
    for (std::size_t p = 0; p < measured.size(); ++p) {
        comet::record r{.kernel = "ping", .params = {}, .samples = {}};
        r.params.set("size", cfg.sizes[p]).set("nodes", t.size());
        r.values.set("cold_round_trip", cold[p]);
        comet::fill_record(r, std::move(measured[p]), cfg.sampling, comet::sample_reduction::decider);
        if (cfg.on_point) cfg.on_point(r);
        out.records.push_back(std::move(r));
    }
    return out;
}

/// Its analysis: the cost of a byte between the smallest and each larger size, from the medians;
/// a row that reads a flagged record is flagged.
inline void cost_per_byte(comet::report& r, const comet::kernel_descriptor& d, const comet::analysis_options&) {
    const auto recs = r.results.of(d.name);
    if (recs.empty()) return;
    comet::derived_table t{.name = "ping_cost", .title = "ping: cost per byte", .kernel = d.name,
                           .columns = {"size", "median[µs]", "per byte[ns]"}};
    const comet::record& first = *recs.front();
    const double base = comet::summarize(first).median;
    for (const comet::record* rec : recs) {
        const double m = comet::summarize(*rec).median;
        const std::int64_t size = *rec->params.integer("size");
        const std::int64_t extra = size - *first.params.integer("size");
        std::vector<comet::flag> flags;
        if (!comet::usable(*rec) || !comet::usable(first)) flags.push_back({"per byte[ns]", "read from a flagged record"});
        std::vector<comet::derived_table::cell> cells{size, m * 1e6, comet::derived_table::cell{}};
        if (extra > 0) cells[2] = (m - base) / static_cast<double>(extra) * 1e9;
        t.add(std::move(cells), std::move(flags));
    }
    t.notes.push_back("from the medians of the round trips");
    r.tables.push_back(std::move(t));
}

inline auto ping_kernel() {
    return comet::kernel{comet::kernel_descriptor{.name = "ping",
                                                  .min_ranks = 2,
                                                  .points = [](const comet::suite_config&, int) { return std::size_t{2}; },
                                                  .analyses = {cost_per_byte}},
                         [](auto& t, const comet::suite_run& r) { return ping(t, r.config.configured(ping_config{})); }};
}

/// A reporter of its own: a Markdown list of what it was given, in the order it was given.
struct markdown : comet::reporter {
    std::ostringstream os;
    void begin(const comet::context& c) override { os << "# comet on " << c.transport << '\n'; }
    void add(const comet::record& r) override { os << "- " << comet::point_name(r) << '\n'; }
    void add(const comet::derived_table& t) override { os << "## " << t.title << " (" << t.rows.size() << " rows)\n"; }
    void finish(const comet::report& r) override { os << "notes: " << r.notes.size() << '\n'; }
};

inline std::string read(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace reporter_test

BOOST_AUTO_TEST_SUITE(reporter)

using namespace reporter_test;

BOOST_AUTO_TEST_CASE(a_kernel_an_analysis_and_a_reporter_from_outside_reach_every_output) {
    const auto k = ping_kernel();
    comet::report rep;
    rep.ctx = comet::make_context("threads", 2);
    comet::suite_config cfg;
    cfg.kernels = {"ping"};
    cfg.sampling = comet::fixed_sampling(3, 20);
    // What reaches the outputs is tested here, not validity: a rank's preemptions are not its
    // disturbances, so that a busy machine does not flag every sample.
    comet::threads::options uncounted;
    uncounted.count_preemptions = false;
    rep.results = comet::threads::run(2, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg, k); }, uncounted)[0];
    comet::analyse(rep, comet::suite_descriptors(k));
    BOOST_TEST_REQUIRE(rep.results.records.size() == 2u);
    BOOST_TEST(*rep.results.records[0].values.number("cold_round_trip") > 0.0);
    BOOST_TEST_REQUIRE(rep.tables.size() == 1u);
    BOOST_TEST(rep.tables[0].rows.size() == 2u);

    std::ostringstream console, json, gbench;
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("comet-reporter-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    comet::console_reporter to_console(console);
    comet::csv_reporter to_csv(dir);
    comet::json_reporter to_json(json);
    comet::gbench_reporter to_gbench(gbench);
    markdown md;
    comet::deliver(rep, {&to_console, &to_csv, &to_json, &to_gbench, &md});

    // The console: the value as a column of the kernel's table, the derived table under its title.
    const std::string c = console.str();
    BOOST_TEST(c.find("cold_round_trip") != std::string::npos, c);
    BOOST_TEST(c.find("\nping: cost per byte\n  size  median[µs]  per byte[ns]") != std::string::npos, c);
    BOOST_TEST(c.find("from the medians of the round trips") != std::string::npos);
    // CSV: the value as a column of results.csv, the table as a file of its own.
    const std::string results_csv = read(dir / "results.csv");
    const std::string header = results_csv.substr(0, results_csv.find('\n'));
    BOOST_TEST(header.starts_with("kernel,size,nodes,"), header);
    BOOST_TEST(header.find(",cold_round_trip,") != std::string::npos, header);
    const std::string table_csv = read(dir / "tables" / "ping_cost.csv");
    BOOST_TEST(table_csv.starts_with("size,median[µs],per byte[ns],flags\n8,"), table_csv);
    BOOST_TEST(std::count(table_csv.begin(), table_csv.end(), '\n') == 3);
    BOOST_TEST(to_csv.files().size() == 4u);  // the table, results, fits, bandwidth
    // results.json: the value among the record's values, the table under "tables".
    const std::string j = json.str();
    BOOST_TEST(j.find("\"cold_round_trip\": ") != std::string::npos);
    BOOST_TEST_REQUIRE(j.find("\"tables\": [") != std::string::npos);
    BOOST_TEST(j.find("\"name\": \"ping_cost\"", j.find("\"tables\": [")) != std::string::npos, j.substr(j.find("\"tables\"")));
    // Google Benchmark's JSON names the points.
    const std::string first = comet::point_name(rep.results.records[0]), second = comet::point_name(rep.results.records[1]);
    BOOST_TEST(first.starts_with("ping/size:8/nodes:2"), first);
    BOOST_TEST(gbench.str().find("\"name\": \"" + first + "\"") != std::string::npos, gbench.str());
    // The reporter of its own got everything, in order.
    BOOST_TEST(md.os.str() == "# comet on threads\n- " + first + "\n- " + second + "\n## ping: cost per byte (2 rows)\nnotes: " +
                                  std::to_string(rep.notes.size()) + "\n");
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(a_malformed_table_is_refused_naming_it) {
    comet::derived_table t{.name = "bad name", .columns = {"a"}};
    BOOST_CHECK_EXCEPTION(t.add({1.0, 2.0}), comet::invalid_argument, [](const comet::invalid_argument& e) {
        return std::string(e.what()).find("derived table 'bad name': a row of 2 cells for 1 columns") != std::string::npos;
    });
    BOOST_CHECK_EXCEPTION(t.add({1.0}, {{"b", "why"}}), comet::invalid_argument, [](const comet::invalid_argument& e) {
        return std::string(e.what()).find("a flag names column 'b'") != std::string::npos;
    });
    t.add({1.0});
    BOOST_CHECK_EXCEPTION(comet::check_table(t), comet::invalid_argument, [](const comet::invalid_argument& e) {
        return std::string(e.what()).find("its name may hold only letters, digits") != std::string::npos;
    });
    // Two tables of one name would write one file: the CSV reporter refuses the second.
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("comet-reporter-twice-" + std::to_string(::getpid()));
    comet::report rep;
    t.name = "twice";
    rep.tables = {t, t};
    comet::csv_reporter to_csv(dir);
    BOOST_CHECK_EXCEPTION(comet::deliver(rep, to_csv), comet::invalid_argument, [](const comet::invalid_argument& e) {
        return std::string(e.what()).find("derived table 'twice': another table has that name") != std::string::npos;
    });
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
