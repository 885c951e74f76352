// Tests of comet/kernels/windowed_collectives.hpp (the kernel `collectives`) on the threads
// transport: a record per operation, size, measure and reduction, on rank 0 only, with the
// params a reader needs; every operation runs at a group size that is not a power of two;
// the reductions of each point agree with each other; bad input is refused on every rank with
// the value. The figures themselves, exact in virtual time, are checked on the simulated
// iPSC/860 (test/nx2/test_window.cpp).
#include <comet/kernels/windowed_collectives.hpp>
#include <comet/stats/summary.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <cstddef>
#include <set>
#include <stdexcept>
#include <string>

namespace windowed_test {

namespace k = comet::kernels;

inline const k::windowed_collectives_config quick{
    .operations = {k::collective_operation::broadcast, k::collective_operation::linear_broadcast, k::collective_operation::reduce,
                   k::collective_operation::allreduce, k::collective_operation::barrier, k::collective_operation::alltoall,
                   k::collective_operation::gather},
    .sizes = {8, 4096},
    .window = {.measurements = 4, .pipeline = 2}};

}  // namespace windowed_test

BOOST_AUTO_TEST_SUITE(windowed_collectives)

using namespace windowed_test;

BOOST_AUTO_TEST_CASE(every_operation_size_measure_and_reduction_has_its_record_on_rank_0) {
    const auto out = comet::threads::run(3, [](comet::threads::transport& t) { return k::windowed_collectives(t, quick); });
    BOOST_TEST(out[1].empty());
    BOOST_TEST(out[2].empty());
    const comet::result_set& r = out[0];
    // Seven operations, barrier at one size: (6 × 2 + 1) points × 2 measures × 6 reductions.
    BOOST_TEST_REQUIRE(r.size() == k::windowed_collectives_points(quick));
    BOOST_TEST(r.size() == 13u * 2u * 6u);
    std::set<std::string> seen;
    for (const auto& rec : r.records) {
        BOOST_TEST(rec.kernel == "collectives");
        for (const char* name : {"operation", "size", "nodes", "measure", "reduction", "implementation", "designated", "scheme",
                                 "window", "widenings", "overruns", "measurements", "clock_error"})
            BOOST_TEST(rec.params.contains(name), name);
        BOOST_TEST((rec.params.number("nodes") == 3.0));
        BOOST_TEST((rec.params.text("scheme") == "none"));  // the threads transport's clock is global
        BOOST_TEST((rec.params.number("clock_error") == 0.0));
        BOOST_TEST(rec.stop == "fixed");
        const bool pipelined = rec.params.text("measure") == "pipelined";
        BOOST_TEST(rec.iterations == (pipelined ? 2u : 1u));
        BOOST_TEST(rec.params.contains("pipeline") == pipelined);
        // Samples, or a note saying why there are none: on a machine busy enough that every
        // measurement overran its window through all the doublings, none started together.
        const bool gave_up = !rec.notes.empty() && rec.notes.front().starts_with("the window kept overrunning");
        BOOST_TEST((!rec.samples.empty() || gave_up));
        for (double x : rec.samples) BOOST_TEST(x >= 0.0);
        seen.insert(*rec.params.text("operation") + "/" + *rec.params.text("reduction"));
    }
    BOOST_TEST(seen.size() == 7u * 6u);
}

BOOST_AUTO_TEST_CASE(the_reductions_of_a_point_agree) {
    const auto out = comet::threads::run(4, [](comet::threads::transport& t) {
        return k::windowed_collectives(t, {.operations = {k::collective_operation::allreduce}, .sizes = {64},
                                           .measures = {comet::window_measure::window}, .window = {.measurements = 6}});
    });
    const comet::result_set& r = out[0];
    BOOST_TEST_REQUIRE(r.size() == 6u);
    const auto least = [&](const char* reduction) {
        for (const auto& rec : r.records)
            if (rec.params.text("reduction") == reduction) return comet::summarize(rec.samples).min;
        return -1.0;
    };
    const auto most = [&](const char* reduction) {
        for (const auto& rec : r.records)
            if (rec.params.text("reduction") == reduction) return comet::summarize(rec.samples).max;
        return -1.0;
    };
    // Sample by sample min ≤ max ≤ span (timing/test_window.cpp); across samples at least this:
    BOOST_TEST(least("min") <= least("max"));
    BOOST_TEST(most("min") <= most("max"));
    BOOST_TEST(least("max") <= least("first_start_to_last_finish"));
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused_on_every_rank_with_the_value) {
    const auto refused = [](const k::windowed_collectives_config& c, std::initializer_list<const char*> words) {
        const auto said = comet::threads::run(3, [&](comet::threads::transport& t) -> std::string {
            try {
                (void)k::windowed_collectives(t, c);
            } catch (const comet::invalid_argument& e) {
                return e.what();
            }
            return "nothing raised";
        });
        comet_test::said_by_every_rank(said, words);
    };
    refused({.operations = {}}, {"no operation"});
    refused({.measures = {}}, {"no measure"});
    refused({.root = 3}, {"root 3 is outside 0..2"});
    refused({.operations = {k::collective_operation::reduce}, .sizes = {12}}, {"reduce size 12", "doubles"});
    refused({.operations = {k::collective_operation::alltoall}, .sizes = {std::size_t{1} << 30}}, {"alltoall size 1073741824", "3 ranks"});
    refused({.window = {.measurements = 0}}, {"window.measurements must be at least 1"});
    refused({.tag = -2}, {"tag -2"});
    BOOST_TEST((k::parse_collective_operation("gather") == k::collective_operation::gather));
    BOOST_TEST(!k::parse_collective_operation("scatter"));
}

BOOST_AUTO_TEST_SUITE_END()
