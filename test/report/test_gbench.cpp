// Tests of comet/report/gbench.hpp: the output is strict JSON in Google Benchmark 1.7.1's shape
// (context keys, per-sample "iteration" entries in ns, then mean/median/stddev/cv aggregates),
// benchmarks are named by point_name (the params) with the record's values as the label, family and
// instance indices count kernels and their points, records without samples or with a single
// one are written as the format allows, and only valid samples are repetitions (each with its
// round's iterations), a point flagged as a whole none. That Google's own compare.py reads the file is
// the cli test cli_gbench_compare_py (examples/CMakeLists.txt).
#include <comet/report/gbench.hpp>
#include <comet/report/json_read.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gbench_test {

using value = comet::detail::json_read::value;

/// `write_gbench` of `results` and `ctx`, parsed by comet's strict JSON parser.
inline value written(const comet::result_set& results, const comet::context& ctx = {}) {
    std::ostringstream os;
    comet::write_gbench(os, results, ctx);
    const std::string text = os.str();
    BOOST_TEST(text.back() == '\n');
    return comet::detail::json_read::parser(text, "gbench.json").document();
}

inline const value& at(const value& v, const char* key) {
    const value* m = v.find(key);
    BOOST_REQUIRE_MESSAGE(m != nullptr, "no member " << key);
    return *m;
}

}  // namespace gbench_test

BOOST_AUTO_TEST_SUITE(gbench)

BOOST_AUTO_TEST_CASE(context_in_google_benchmark_keys) {
    comet::context c;
    c.transport = "threads";
    c.nodes = 4;
    c.comet_version = "0.1.0";
    c.host = "vm";
    c.date = "2024-05-01T12:34:56Z";
    c.compiler = "gcc 12.2.0";
    c.command_line = "'/opt/my dir/comet' --out 'r 1'";
    c.extra = {{"clock", "steady_clock"}, {"cores", "2"}, {"clock", "tsc"}};
    c.build.type = "release";
    c.machine.logical_cores = 8;
    c.machine.governor = "powersave";
    c.machine.caches = {{.level = 1, .type = "Data", .size = 49152}, {.level = 3, .type = "Unified", .size = 503316480}};
    c.machine.load_start = comet::load_average{0.5, 0.25, 0.125};
    const gbench_test::value doc = gbench_test::written({}, c);
    BOOST_TEST((doc.keys == std::vector<std::string>{"context", "benchmarks"}));
    const auto& ctx = gbench_test::at(doc, "context");
    BOOST_TEST((ctx.keys == std::vector<std::string>{"date", "host_name", "executable", "num_cpus", "cpu_scaling_enabled", "caches", "load_avg",
                                                     "library_build_type", "comet_version", "comet_transport", "comet_nodes", "comet_compiler",
                                                     "comet_command_line", "comet_cpu_time", "comet_notes", "comet_extra"}));
    BOOST_TEST(gbench_test::at(ctx, "date").text == "2024-05-01T12:34:56+00:00");  // Google's offset form
    BOOST_TEST(gbench_test::at(ctx, "host_name").text == "vm");
    BOOST_TEST(gbench_test::at(ctx, "executable").text == "/opt/my dir/comet");
    BOOST_TEST(gbench_test::at(ctx, "num_cpus").integer == 8);
    BOOST_TEST(gbench_test::at(ctx, "cpu_scaling_enabled").boolean);  // not "performance"
    const auto& caches = gbench_test::at(ctx, "caches");
    BOOST_TEST_REQUIRE(caches.items.size() == 2u);
    BOOST_TEST(gbench_test::at(caches.items[1], "type").text == "Unified");
    BOOST_TEST(gbench_test::at(caches.items[1], "level").integer == 3);
    BOOST_TEST(gbench_test::at(caches.items[1], "size").integer == 503316480);
    const auto& load = gbench_test::at(ctx, "load_avg");
    BOOST_TEST_REQUIRE(load.items.size() == 3u);
    BOOST_TEST(load.items[2].number == 0.125);
    BOOST_TEST(gbench_test::at(ctx, "library_build_type").text == "release");
    BOOST_TEST(gbench_test::at(ctx, "comet_nodes").integer == 4);
    const auto& notes = gbench_test::at(ctx, "comet_notes");  // context_notes: the governor, and the load of 0.5 is none
    BOOST_TEST_REQUIRE(notes.items.size() == 1u);
    BOOST_TEST(notes.items[0].text.find("powersave") != std::string::npos);
    const auto& extra = gbench_test::at(ctx, "comet_extra");  // unique names, the last value
    BOOST_TEST((extra.keys == std::vector<std::string>{"clock", "cores"}));
    BOOST_TEST(gbench_test::at(extra, "clock").text == "tsc");
    BOOST_TEST(gbench_test::at(doc, "benchmarks").items.empty());
}

BOOST_AUTO_TEST_CASE(unrecorded_machine_facts_are_absent) {
    // A hand-made or simulated context: no cores, governor or build recorded, so no num_cpus,
    // cpu_scaling_enabled or library_build_type (and never mhz_per_cpu: comet does not read it).
    const gbench_test::value doc = gbench_test::written({}, comet::context{.transport = "ipsc860", .nodes = 16});
    const auto& ctx = gbench_test::at(doc, "context");
    for (const char* key : {"num_cpus", "cpu_scaling_enabled", "library_build_type", "mhz_per_cpu"}) BOOST_CHECK_MESSAGE(!ctx.find(key), key);
    BOOST_TEST(gbench_test::at(ctx, "caches").items.empty());
    BOOST_TEST(gbench_test::at(ctx, "load_avg").items.empty());
    BOOST_TEST(gbench_test::at(ctx, "executable").text.empty());
}

BOOST_AUTO_TEST_CASE(a_record_is_a_benchmark_with_a_repetition_per_sample) {
    const comet::result_set rs{{{.kernel = "echo",
                                 .params = {{"size", 8}, {"hops", 1}, {"nodes", 2}, {"reduction", "test_node"}},
                                 .samples = {1e-6, 3e-6, 2e-6},
                                 .values = {{"order", "round_robin"}},
                                 .iterations = 32}}};
    const gbench_test::value doc = gbench_test::written(rs);
    const auto& b = gbench_test::at(doc, "benchmarks").items;
    BOOST_TEST_REQUIRE(b.size() == 3u + 4u);
    const std::string name = "echo/size:8/hops:1/nodes:2/reduction:test_node";
    const double ns[] = {1000, 3000, 2000};
    for (std::size_t i = 0; i < 3; ++i) {
        BOOST_TEST((b[i].keys == std::vector<std::string>{"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
                                                          "label", "repetition_index", "iterations", "real_time", "cpu_time", "time_unit"}));
        BOOST_TEST(gbench_test::at(b[i], "name").text == name);
        BOOST_TEST(gbench_test::at(b[i], "run_name").text == name);
        BOOST_TEST(gbench_test::at(b[i], "run_type").text == "iteration");
        BOOST_TEST(gbench_test::at(b[i], "label").text == "order:round_robin");
        BOOST_TEST(gbench_test::at(b[i], "repetitions").integer == 3);
        BOOST_TEST(gbench_test::at(b[i], "repetition_index").integer == static_cast<std::int64_t>(i));
        BOOST_TEST(gbench_test::at(b[i], "iterations").integer == 32);
        BOOST_TEST(gbench_test::at(b[i], "real_time").number == ns[i], boost::test_tools::tolerance(1e-12));
        BOOST_TEST(gbench_test::at(b[i], "cpu_time").number == gbench_test::at(b[i], "real_time").number);
        BOOST_TEST(gbench_test::at(b[i], "time_unit").text == "ns");
    }
    // Aggregates as --benchmark_repetitions=3 writes them: mean 2000, median 2000,
    // stddev sqrt(((−1000)² + 1000² + 0²)/2) = 1000 ns, cv 1000/2000 = 0.5.
    const char* names[] = {"mean", "median", "stddev", "cv"};
    const double values[] = {2000, 2000, 1000, 0.5};
    for (std::size_t k = 0; k < 4; ++k) {
        const auto& a = b[3 + k];
        BOOST_TEST((a.keys == std::vector<std::string>{"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
                                                       "label", "aggregate_name", "aggregate_unit", "iterations", "real_time", "cpu_time",
                                                       "time_unit"}));
        BOOST_TEST(gbench_test::at(a, "name").text == name + "_" + names[k]);
        BOOST_TEST(gbench_test::at(a, "run_name").text == name);
        BOOST_TEST(gbench_test::at(a, "run_type").text == "aggregate");
        BOOST_TEST(gbench_test::at(a, "aggregate_name").text == names[k]);
        BOOST_TEST(gbench_test::at(a, "aggregate_unit").text == (k == 3 ? "percentage" : "time"));
        BOOST_TEST(gbench_test::at(a, "iterations").integer == 3);
        BOOST_TEST(gbench_test::at(a, "real_time").number == values[k], boost::test_tools::tolerance(1e-12));
    }
}

BOOST_AUTO_TEST_CASE(indices_count_kernels_and_their_points) {
    const comet::result_set rs{{
        {.kernel = "echo", .params = {{"size", 8}}, .samples = {1e-6, 1e-6}},
        {.kernel = "barrier", .params = {{"nodes", 2}}, .samples = {2e-6}},  // one sample: no stddev or cv
        {.kernel = "echo", .params = {{"size", 64}}, .samples = {}},         // no samples: left out
        {.kernel = "echo", .params = {{"size", 128}}, .samples = {1e-6, 1e-6}},
    }};
    std::vector<std::string> names;
    std::vector<std::pair<std::int64_t, std::int64_t>> indices;
    const gbench_test::value doc = gbench_test::written(rs);
    for (const auto& e : gbench_test::at(doc, "benchmarks").items) {
        names.push_back(gbench_test::at(e, "name").text);
        indices.emplace_back(gbench_test::at(e, "family_index").integer, gbench_test::at(e, "per_family_instance_index").integer);
        BOOST_TEST(!e.find("label"));  // no values
    }
    BOOST_TEST((names == std::vector<std::string>{"echo/size:8", "echo/size:8", "echo/size:8_mean", "echo/size:8_median", "echo/size:8_stddev",
                                                  "echo/size:8_cv", "barrier/nodes:2", "barrier/nodes:2_mean", "barrier/nodes:2_median",
                                                  "echo/size:128", "echo/size:128", "echo/size:128_mean", "echo/size:128_median",
                                                  "echo/size:128_stddev", "echo/size:128_cv"}));
    using index = std::pair<std::int64_t, std::int64_t>;  // (family_index, per_family_instance_index)
    BOOST_TEST((indices[0] == index{0, 0}));
    BOOST_TEST((indices[6] == index{1, 0}));   // barrier: the second kernel
    BOOST_TEST((indices[9] == index{0, 1}));   // echo's second point written
    BOOST_TEST((indices[14] == index{0, 1}));
}

BOOST_AUTO_TEST_CASE(only_valid_samples_are_repetitions_each_with_its_rounds_iterations) {
    // Two rounds, of 100 and 10 iterations; the second sample is invalid (negative): the three
    // valid ones are repetitions 0..2, and the aggregates are theirs. A point flagged as a
    // whole is left out like one without samples.
    comet::record r{.kernel = "echo",
                    .params = {{"size", 8}},
                    .samples = {1e-6, -1e-6, 2e-6, 3e-6},
                    .values = {{"implementation", "native"}, {"closing_barrier", 0.5}},
                    .iterations = 100,
                    .rounds = {{2, 100}, {2, 10}}};
    comet::mark_negative(r);
    comet::record flagged{.kernel = "echo", .params = {{"size", 16}}, .samples = {1e-6, 1e-6}};
    comet::add_flag(flagged, "point", "its windows kept failing");
    const gbench_test::value doc = gbench_test::written(comet::result_set{{r, flagged}});
    const auto& b = gbench_test::at(doc, "benchmarks").items;
    BOOST_TEST_REQUIRE(b.size() == 3u + 4u);  // nothing of size 16
    const double ns[] = {1000, 2000, 3000};
    const std::int64_t iterations[] = {100, 10, 10};
    for (std::size_t i = 0; i < 3; ++i) {
        BOOST_TEST(gbench_test::at(b[i], "name").text == "echo/size:8");
        BOOST_TEST(gbench_test::at(b[i], "label").text == "implementation:native/closing_barrier:0.5");
        BOOST_TEST(gbench_test::at(b[i], "repetitions").integer == 3);
        BOOST_TEST(gbench_test::at(b[i], "repetition_index").integer == static_cast<std::int64_t>(i));
        BOOST_TEST(gbench_test::at(b[i], "iterations").integer == iterations[i]);
        BOOST_TEST(gbench_test::at(b[i], "real_time").number == ns[i], boost::test_tools::tolerance(1e-12));
    }
    // The mean over every iteration timed: (100·1 + 10·2 + 10·3) µs / 120.
    BOOST_TEST(gbench_test::at(b[3], "aggregate_name").text == "mean");
    BOOST_TEST(gbench_test::at(b[3], "iterations").integer == 3);
    BOOST_TEST(gbench_test::at(b[3], "real_time").number == 1250, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(gbench_test::at(b[4], "aggregate_name").text == "median");
    BOOST_TEST(gbench_test::at(b[4], "real_time").number == 2000, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(a_nan_sample_is_rejected) {
    const comet::result_set rs{{{.kernel = "echo", .params = {{"size", 8}}, .samples = {1e-6, std::nan("")}}}};
    std::ostringstream os;
    BOOST_CHECK_THROW(comet::write_gbench(os, rs, {}), comet::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
