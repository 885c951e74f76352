// Tests of comet/kernels/windowed_collectives.hpp (the kernel `collectives`) on the threads
// transport: a record per operation, size, measure and reduction, on rank 0 only, with the
// params that name it and the values that say how its window measured it (valid of total
// measurements, the late ones dropped, a point whose windows kept failing flagged); every
// operation runs at a group size that is not a power of two; the reductions of each point
// agree with each other; on the simulated iPSC/860 no window starts late, so no point drops or
// flags anything (built where the simulator is: COMET_TEST_HAS_NX2, Boost.Context found); bad
// input is refused on every rank with the value. The figures themselves, exact in virtual time,
// are checked on the simulated iPSC/860 (test/nx2/test_window.cpp).
#include <comet/kernels/windowed_collectives.hpp>
#include <comet/stats/compare.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>
#include <comet/transport/threads.hpp>
#if COMET_TEST_HAS_NX2
#include <comet/transport/nx2.hpp>
#endif

#include <boost/test/unit_test.hpp>

#include <algorithm>

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
    .measures = {comet::all_window_measures.begin(), comet::all_window_measures.end()},
    .window = {.measurements = 4, .pipeline = 2}};

}  // namespace windowed_test

BOOST_AUTO_TEST_SUITE(windowed_collectives)

using namespace windowed_test;

BOOST_AUTO_TEST_CASE(every_operation_size_measure_and_reduction_has_its_record_on_rank_0) {
    const auto out = comet::threads::run(3, [](comet::threads::transport& t) { return k::windowed_collectives(t, quick); });
    BOOST_TEST(out[1].empty());
    BOOST_TEST(out[2].empty());
    const comet::result_set& r = out[0];
    // Seven operations, barrier at one size: (6 × 2 + 1) points × 5 measures (window,
    // pipelined and the three loop schemes of the seed's listings 1-3) × 6 reductions.
    BOOST_TEST_REQUIRE(r.size() == k::windowed_collectives_points(quick));
    BOOST_TEST(r.size() == 13u * 5u * 6u);
    std::set<std::string> seen;
    for (const auto& rec : r.records) {
        BOOST_TEST(rec.kernel == "collectives");
        // The point's name; then how the window measured it: values.
        for (const char* name : {"operation", "size", "nodes", "measure", "reduction", "designated", "scheme"})
            BOOST_TEST(rec.params.contains(name), name);
        const std::string how = *rec.params.text("measure");
        const bool windowed = how == "window" || how == "pipelined";
        for (const char* name : {"implementation", "clock_error"}) BOOST_TEST(rec.values.contains(name), name);
        for (const char* name : {"window", "widenings", "tolerance"}) BOOST_TEST(rec.values.contains(name) == windowed, name);
        // Beside the window scheme's figure, how far from it each other measure reads (or why not).
        const bool compared = rec.values.contains("versus_window");
        BOOST_TEST(!(how == "window" && compared));
        if (how != "window")
            BOOST_TEST((compared || std::ranges::any_of(rec.notes, [](const std::string& n) { return n.starts_with("versus_window: none"); })));
        for (const char* name : {"implementation", "window", "overruns", "measurements", "clock_error"})
            BOOST_TEST(!rec.params.contains(name), name);
        BOOST_TEST((rec.params.number("nodes") == 3.0));
        BOOST_TEST((rec.params.text("scheme") == "none"));  // the threads transport's clock is global
        BOOST_TEST((rec.values.number("clock_error") == 0.0));
        if (windowed) {
            BOOST_TEST(*rec.values.number("tolerance") >= comet::window_config{}.late_slack);  // the clock's error, and the slack
            BOOST_TEST(*rec.values.integer("widenings") <= comet::window_config{}.max_widenings);
        }
        BOOST_TEST(rec.stop == "fixed");
        const bool looped = how != "window";  // pipelined and the loop schemes: N operations as one
        BOOST_TEST(rec.iterations == (looped ? 2u : 1u));
        BOOST_TEST(rec.params.contains("pipeline") == looped);
        BOOST_TEST(rec.params.contains("barriers") == (how == "barriers_then_loop"));
        // A sample per valid measurement, 4 wanted; the measurements some rank started late, or
        // during which one lost its CPU, are dropped, counted. Fewer than 4 valid is said in a
        // note; fewer than 2 (on a machine so busy that the windows kept failing) flags the
        // whole point instead.
        BOOST_TEST(rec.samples.size() <= 4u);
        BOOST_TEST(rec.invalid.empty());
        for (const auto& [why, n] : rec.dropped) BOOST_TEST(((why == "late_start" && windowed) || why == "preempted"), why);
        BOOST_TEST(comet::total_measurements(rec) >= 4u);
        BOOST_TEST(comet::total_measurements(rec) <= 4u * comet::window_config{}.max_attempts);
        const bool flagged = comet::find_flag(rec.flags, "point") != nullptr;
        BOOST_TEST(flagged == (rec.samples.size() < 2u));
        if (flagged)
            BOOST_TEST(comet::find_flag(rec.flags, "point")->why.starts_with(windowed ? "its windows kept failing" : "its ranks kept being disturbed"));
        std::vector<std::string> notes;
        for (const auto& note : rec.notes)
            if (!note.starts_with("versus_window")) notes.push_back(note);
        BOOST_TEST(notes.empty() == (rec.samples.size() == 4u || flagged));
        for (const auto& note : notes) BOOST_TEST(comet_test::mentions(std::runtime_error(note), {"measurements valid", "4 wanted"}));
        for (double x : rec.samples) BOOST_TEST(x >= 0.0);
        seen.insert(*rec.params.text("operation") + "/" + *rec.params.text("reduction"));
    }
    BOOST_TEST(seen.size() == 7u * 6u);
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(on_the_ipsc860_every_window_starts_on_time_and_no_point_is_flagged) {
    // Virtual time: every rank starts every window on time, so each point keeps the 5
    // measurements it wanted, drops none, and has nothing to flag or say.
    const auto out = comet::nx2::run(comet::nx2::ipsc860(2), [](comet::nx2::transport& t) {
        return k::windowed_collectives(t, {.operations = {k::collective_operation::allreduce, k::collective_operation::barrier},
                                           .sizes = {64},
                                           .measures = {comet::all_window_measures.begin(), comet::all_window_measures.end()},
                                           .window = {.measurements = 5, .pipeline = 2}});
    });
    const comet::result_set& r = out[0];
    BOOST_TEST_REQUIRE(r.size() == 2u * 5u * 6u);
    for (const auto& rec : r.records) {
        BOOST_TEST_CONTEXT(comet::point_name(rec)) {
            BOOST_TEST(rec.samples.size() == 5u);
            BOOST_TEST(rec.dropped.empty());
            BOOST_TEST(comet::total_measurements(rec) == 5u);
            BOOST_TEST(rec.flags.empty(), (rec.flags.empty() ? std::string() : rec.flags[0].what + ": " + rec.flags[0].why));
            BOOST_TEST(rec.notes.empty());
            BOOST_TEST(comet::usable(rec));
            const std::string how = *rec.params.text("measure");
            if (how == "window" || how == "pipelined") BOOST_TEST(*rec.values.integer("widenings") == 0);
            BOOST_TEST(rec.values.contains("versus_window") == (how != "window"));
        }
    }
}
#endif

BOOST_AUTO_TEST_CASE(the_reductions_of_a_point_agree) {
    // Two ranks: a third would oversubscribe a 2-core machine, where a rank descheduled at the
    // start of a window starts it late (beyond the 1 µs tolerance of a global clock) and the
    // measurement is dropped.
    // On a busy machine (other tests beside this one) every window of a run can start late on
    // some rank: its records are then flagged, each saying so, and the run is taken again.
    const auto measure = [] {
        return comet::threads::run(2, [](comet::threads::transport& t) {
            return k::windowed_collectives(t, {.operations = {k::collective_operation::allreduce}, .sizes = {64},
                                               .measures = {comet::window_measure::window}, .window = {.measurements = 6}});
        })[0];
    };
    comet::result_set r = measure();
    for (int attempt = 1; attempt < 5 && !std::ranges::all_of(r.records, comet::usable); ++attempt) {
        for (const auto& rec : r.records)
            if (!comet::usable(rec)) BOOST_TEST(comet::find_flag(rec.flags, "point") != nullptr);
        r = measure();
    }
    BOOST_TEST_REQUIRE(r.size() == 6u);
    if (!std::ranges::all_of(r.records, comet::usable)) {
        // Flagged five times over, each record saying why (checked above): the numbers knew
        // they were wrong, and there are none left here to compare.
        for (const auto& rec : r.records)
            if (!comet::usable(rec)) BOOST_TEST(comet::find_flag(rec.flags, "point") != nullptr);
        BOOST_TEST_MESSAGE("every run of five had a flagged point: the machine is too busy to compare the reductions");
        return;
    }
    const auto least = [&](const char* reduction) {
        for (const auto& rec : r.records)
            if (rec.params.text("reduction") == reduction) return comet::summarize(rec).min;
        return -1.0;
    };
    const auto most = [&](const char* reduction) {
        for (const auto& rec : r.records)
            if (rec.params.text("reduction") == reduction) return comet::summarize(rec).max;
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
    refused({.window = {.loop_barriers = 1001}}, {"window.loop_barriers = 1001 is over 1000"});
    BOOST_TEST((k::parse_collective_operation("gather") == k::collective_operation::gather));
    BOOST_TEST(!k::parse_collective_operation("scatter"));
}

BOOST_AUTO_TEST_SUITE_END()
