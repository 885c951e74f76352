// Tests of comet/suite/descriptor.hpp: a kernel added from outside the suite by one descriptor
// — a toy ping-pong measured through the sampling engine, with its own analysis, plot and
// shape — runs through the comet program's launch and report (examples/comet/), on the
// threads transport and on a core-only one, and reaches the JSON, the summary and the plots.
#include <comet/ops/ops.hpp>
#include <comet/suite/descriptor.hpp>
#include <comet/suite/output.hpp>
#include <comet/suite/suite.hpp>
#include <comet/timing/measure.hpp>
#include <comet/timing/repeat.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "../../examples/comet/launch_threads.hpp"
#include "../../examples/comet/report.hpp"
#include "../support/messages.hpp"
#include "../support/minimal_transport.hpp"

namespace descriptor_test {

/// The toy kernel's configuration: like every kernel's, with `sampling` and `on_point`.
struct toy_config {
    std::vector<std::size_t> sizes = {0, 512, 1024, 2048};
    comet::sampling sampling = comet::fixed_sampling(3, 20);
    std::function<void(const comet::record&)> on_point = {};
};

/// A toy kernel written as a third party would: rank 0 sends `size` bytes to rank 1 and waits
/// for them back; the sampling engine decides iterations and samples; other ranks idle.
template <comet::transport T>
comet::result_set toy(T& t, const toy_config& cfg) {
    constexpr int tag = comet::first_reserved_tag + 40;
    const std::array<int, 2> ranks{0, 1};
    comet::result_set out;
    if (t.rank() > 1) return out;
    std::vector<std::byte> buffer(cfg.sizes.empty() ? 0 : *std::max_element(cfg.sizes.begin(), cfg.sizes.end()));
    auto measured = comet::sample_points(
        t, cfg.sizes.size(), cfg.sampling, 0, ranks, comet::sample_reduction::decider,
        [&](std::size_t p, std::size_t iterations) -> std::optional<comet::repeat_result> {
            const std::span<std::byte> message(buffer.data(), cfg.sizes[p]);
            if (t.rank() == 0)
                return comet::repeat(t, iterations, [&] {
                    comet::ops::send(t, 1, tag, message);
                    comet::ops::recv(t, 1, tag, message);
                });
            for (std::size_t i = 0; i < iterations; ++i) {
                comet::ops::recv(t, 0, tag, message);
                comet::ops::send(t, 0, tag, message);
            }
            return std::nullopt;
        });
    if (t.rank() != 0) return out;
    for (std::size_t p = 0; p < measured.size(); ++p) {
        comet::record r{.kernel = "toy", .params = {}, .samples = {}};
        r.params.set("size", cfg.sizes[p]).set("nodes", t.size());
        comet::fill_record(r, std::move(measured[p]), cfg.sampling, comet::sample_reduction::decider);
        if (cfg.on_point) cfg.on_point(r);
        out.records.push_back(std::move(r));
    }
    return out;
}

/// The toy kernel's one descriptor: everything the suite, the program and the report need.
inline auto toy_kernel(toy_config cfg = {}) {
    comet::thesis_shape grows{.key = "toy.linear",
                              .kernel = "toy",
                              .claim = "toy round trip grows linearly with the size",
                              .where = "this test",
                              .judge = [](const comet::thesis_shape& s, const comet::thesis_evidence& e) {
                                  for (const auto& g : e.growth)
                                      if (g.kernel == s.kernel) return comet::shape_verdict{&s, true, "measured"};
                                  return comet::shape_verdict{&s, std::nullopt, "not measured"};
                              }};
    return comet::kernel{
        comet::kernel_descriptor{.name = "toy",
                                 .min_ranks = 2,
                                 .points = [cfg](const comet::suite_config&, int) { return cfg.sizes.size(); },
                                 .figure = comet::statistic::median,
                                 .analyses = {comet::analyses::growth_in("size")},
                                 .plots = {{.name = "toy_time",
                                            .kernels = {"toy"},
                                            .x = "size",
                                            .y = comet::plot_value::time_us(comet::statistic::median, "round trip [µs]"),
                                            .title = "toy: round trip vs size",
                                            .x_label = "bytes"}},
                                 .shapes = {grows}},
        [cfg](auto& t, const comet::suite_run& r) { return toy(t, r.config.configured(cfg)); }};
}

struct scratch_dir {
    std::filesystem::path path;
    scratch_dir() {
        path = std::filesystem::temp_directory_path() / ("comet-descriptor-" + std::to_string(::getpid()));
        std::filesystem::remove_all(path);
    }
    ~scratch_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

inline std::string read(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace descriptor_test

BOOST_AUTO_TEST_SUITE(descriptor)

using namespace descriptor_test;

BOOST_AUTO_TEST_CASE(the_suite_knows_a_kernel_by_its_descriptor) {
    const auto k = toy_kernel();
    const auto all = comet::suite_descriptors(k);
    BOOST_TEST(all.size() == comet::suite_kernels().size() + 1);
    BOOST_TEST(all.back().name == "toy");
    comet::suite_config cfg{.kernels = {"echo", "toy"}};
    cfg.transfer.sizes = {8};
    cfg.transfer.hops = {1};
    BOOST_CHECK_NO_THROW(comet::check_suite(cfg, all));
    BOOST_CHECK_EXCEPTION(comet::check_suite(cfg), comet::invalid_argument,
                          [](const auto& e) { return comet_test::mentions(e, {"unknown kernel 'toy'"}); });
    BOOST_TEST(*comet::suite_skip_reason("toy", 1, all) == "needs at least 2 ranks");
    BOOST_TEST(comet::suite_points(cfg, 2, all) == 1u + 4u);
    // A second descriptor of a name is a mistake, said so.
    auto twice = all;
    twice.push_back(all.front());
    BOOST_CHECK_EXCEPTION(comet::check_suite(cfg, twice), comet::invalid_argument,
                          [](const auto& e) { return comet_test::mentions(e, {"kernel 'echo' is described twice"}); });
}

// The "done when" of the measurement-core issue: a kernel added in a test by one descriptor
// runs through the program (its threads launch and its report), the JSON and the plots.
BOOST_AUTO_TEST_CASE(a_kernel_added_by_one_descriptor_runs_through_the_program) {
    const auto k = toy_kernel();
    scratch_dir dir;
    comet_program::settings s;
    s.nodes = {2, 3};
    s.suite.kernels = {"echo", "toy"};
    s.suite.transfer.sizes = {0, 64, 1024};
    s.suite.sampling = comet::fixed_sampling(3, 10);
    s.out = dir.path.string();
    const comet_program::outcome o = comet_program::run_threads(s, k);
    BOOST_TEST(o.results.of("toy").size() == 2u * 4u);  // two group sizes, four sizes each
    // The suite's sampling reached the toy's config, in every one of the program's rounds.
    const std::size_t rounds = comet_program::rounds_default;
    for (const auto* r : o.results.of("toy")) {
        BOOST_TEST(r->samples.size() == 3u * rounds);
        BOOST_TEST((r->rounds == std::vector<comet::round_count>(rounds, {3u, 10u})));
        BOOST_TEST(r->iterations == 10u);
        BOOST_TEST(r->overheads.size() == 3u * rounds);
    }
    std::ostringstream out;
    comet_program::write_report(s, o, comet::suite_descriptors(k), out);

    const std::string summary = out.str();
    BOOST_TEST(summary.find("\ntoy\n") != std::string::npos);
    const std::string json = read(dir.path / "results.json");
    BOOST_TEST(json.find("\"kernel\": \"toy\"") != std::string::npos);
    // Its analysis ran: growth in the size, on the largest group, read with its figure.
    const auto growth = json.find("\"growth\"");
    BOOST_REQUIRE(growth != std::string::npos);
    BOOST_TEST(json.find("\"kernel\": \"toy\"", growth) != std::string::npos);
    BOOST_TEST(std::filesystem::exists(dir.path / "results.csv"));
    BOOST_TEST(std::filesystem::exists(dir.path / "summary.txt"));
    // Its plot is written beside the suite's, and rendered where gnuplot is installed.
    const std::string data = read(dir.path / "plots" / "toy_time.dat");
    BOOST_TEST(data.find("# comet plot toy_time") == 0u);
    BOOST_TEST(std::filesystem::exists(dir.path / "plots" / "echo_time.gp"));
    if (comet::gnuplot_available())
        BOOST_TEST(read(dir.path / "plots" / "toy_time.png").substr(0, 4) == std::string("\x89PNG"));
}

// A kernel whose records describe one run (a NIST run's service states beside its E_D) is
// measured in the program's first round only; the others in every round. The context says so.
BOOST_AUTO_TEST_CASE(a_kernel_describing_one_run_is_measured_in_the_first_round_only) {
    auto k = toy_kernel();
    k.descriptor.one_run = true;
    scratch_dir dir;
    comet_program::settings s;
    s.nodes = {2};
    s.suite.kernels = {"echo", "toy"};
    s.suite.transfer.sizes = {8};
    s.suite.transfer.hops = {1};
    s.suite.sampling = comet::fixed_sampling(3, 10);
    s.rounds = 3;
    s.out = dir.path.string();
    const comet_program::outcome o = comet_program::run_threads(s, k);
    BOOST_TEST(o.results.of("toy").size() == 4u);
    for (const auto* r : o.results.of("toy")) {
        BOOST_TEST(r->samples.size() == 3u);
        BOOST_TEST((r->rounds == std::vector<comet::round_count>{{3u, 10u}}));
    }
    BOOST_REQUIRE(!o.results.of("echo").empty());
    for (const auto* r : o.results.of("echo")) BOOST_TEST((r->rounds == std::vector<comet::round_count>(3, {3u, 10u})));
    const auto said = std::find_if(o.ctx.extra.begin(), o.ctx.extra.end(), [](const auto& kv) { return kv.first == "rounds"; });
    BOOST_REQUIRE(said != o.ctx.extra.end());
    BOOST_TEST(said->second.find("3 passes") != std::string::npos);
    BOOST_TEST(said->second.find("toy in the first only") != std::string::npos);
    // With only such kernels there is one pass, and the context says why.
    s.suite.kernels = {"toy"};
    const comet_program::outcome alone = comet_program::run_threads(s, k);
    for (const auto* r : alone.results.of("toy")) BOOST_TEST((r->rounds == std::vector<comet::round_count>{{3u, 10u}}));
    const auto one = std::find_if(alone.ctx.extra.begin(), alone.ctx.extra.end(), [](const auto& kv) { return kv.first == "rounds"; });
    BOOST_REQUIRE(one != alone.ctx.extra.end());
    BOOST_TEST(one->second.find("1 pass of the suite") != std::string::npos);
}

// The suite's NIST applications, clock sync, windowed and nonblocking collectives and Netgauge's
// round trips describe one run each; the CoMet kernels do not.
BOOST_AUTO_TEST_CASE(the_kernels_that_describe_one_run) {
    std::vector<std::string> one_run;
    for (const auto& d : comet::suite_kernels())
        if (d.one_run) one_run.push_back(d.name);
    BOOST_TEST((one_run == std::vector<std::string>{"sync", "collectives", "nbc", "ring", "rc", "mesh", "loggp"}), boost::test_tools::per_element());
}

// Its shape is judged beside the thesis' where a run compares with the thesis.
BOOST_AUTO_TEST_CASE(a_kernel_brings_its_own_shapes) {
    const auto k = toy_kernel();
    const auto all = comet::suite_descriptors(k);
    // The line of a shape: its claim, padded to the widest claim, then yes / NO / -.
    const auto verdict_of = [&](const comet::report& r) {
        const std::string summary = comet::suite_summary(r, all, true);
        const auto at = summary.find("toy round trip grows linearly with the size");
        BOOST_REQUIRE(at != std::string::npos);
        const auto word = summary.find_first_not_of(' ', summary.find("size", at) + 4);
        return summary.substr(word, summary.find(' ', word) - word);
    };
    comet::report r;
    BOOST_TEST(verdict_of(r) == "-");
    comet::growth_comparison g;
    g.kernel = "toy";
    r.growth.push_back(g);
    BOOST_TEST(verdict_of(r) == "yes");
}

// The run is generic: the same descriptor runs on a transport with only the core members.
BOOST_AUTO_TEST_CASE(a_kernel_added_runs_on_any_transport) {
    const auto k = toy_kernel({.sizes = {0, 8}});
    comet::result_set got;
    comet_test::minimal_runner{}(2, [&](comet_test::minimal_transport& t) {
        auto r = comet::run_suite(t, {.kernels = {"toy", "barrier"}, .sampling = comet::fixed_sampling(2, 5)}, k);
        if (t.rank() == 0) got = std::move(r);
    });
    BOOST_TEST(got.of("toy").size() == 2u);
    BOOST_TEST(got.of("barrier").size() == 1u);
    BOOST_TEST(got.records.front().kernel == "toy");  // in the order asked
}

BOOST_AUTO_TEST_SUITE_END()
