// Tests of comet/timing/window.hpp and the kernel `collectives`
// (comet/kernels/windowed_collectives.hpp) on the simulated iPSC/860, in virtual time, where
// every figure is exact and the same on every run: an operation of known length reads exactly
// that length under every reduction, both ways; the default window never sees a late start; in
// a window set too short the late starts are dropped and counted, and it doubles until it holds
// (or, not allowed to, its point is flagged); a skewed clock is synchronised
// and the first-start-to-last-finish reduction stays within the clock's error; and the seed's
// LogP example — a linear broadcast, measured pipelined, reads lower than one broadcast alone.
#include <comet/kernels/windowed_collectives.hpp>
#include <comet/stats/compare.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>
#include <comet/timing/window.hpp>
#include <comet/transport/decorators/skewed_clock.hpp>
#include <comet/transport/nx2.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace nx2_window_test {

using comet::rank_reduction;
using comet::window_measure;
namespace k = comet::kernels;

/// `how` of a 100 µs busy operation on every rank of `nodes` simulated nodes.
inline comet::windowed_point busy_on(int nodes, window_measure how, comet::window_config c = {}) {
    const int dimension = static_cast<int>(std::ceil(std::log2(nodes)));
    return comet::nx2::run(
        comet::nx2::ipsc860(dimension),
        [&](comet::nx2::transport& t) {
            comet::global_clock g(t);
            return comet::measure_windowed(t, g, c, how, [&] { comet::ops::compute(t, comet::work::busy(100e-6)); });
        },
        {.ranks = nodes})[0];
}

/// The median of the records of `operation` measured `how`, reduced by `reduction`.
inline double median_of(const comet::result_set& r, const std::string& operation, const std::string& how,
                        const std::string& reduction, std::size_t size) {
    for (const auto& rec : r.records)
        if (rec.params.text("operation") == operation && rec.params.text("measure") == how &&
            rec.params.text("reduction") == reduction && rec.params.number("size") == static_cast<double>(size))
            return comet::summarize(rec).median;
    BOOST_FAIL("no record " << operation << " " << how << " " << reduction << " " << size);
    return 0.0;
}

}  // namespace nx2_window_test

BOOST_AUTO_TEST_SUITE(nx2_window_measurement)

using namespace nx2_window_test;

BOOST_AUTO_TEST_CASE(a_known_operation_reads_exactly_its_length_and_the_default_window_holds) {
    for (auto how : {window_measure::window, window_measure::pipelined}) {
        BOOST_TEST_CONTEXT(comet::to_string(how)) {
            const comet::windowed_point w = busy_on(6, how, {.measurements = 10, .pipeline = 4});
            BOOST_TEST(w.late == 0u);
            BOOST_TEST(w.widenings == 0);
            BOOST_TEST(w.attempts == 10u);
            BOOST_TEST(w.valid() == 10u);
            BOOST_TEST(w.clock_error == 0.0);
            BOOST_TEST(w.tolerance == 1e-6);  // a global clock: the slack alone
            // Four times the longest part of any rank: 100 µs once, or four times back to back,
            // and what interrupt handlers took from it meanwhile (the messages of the calibration's
            // barriers and broadcasts land on some node while it computes: 23.6 µs each).
            const double op = 100e-6 * (how == window_measure::pipelined ? 4 : 1);
            BOOST_TEST(w.window >= 4 * op);
            BOOST_TEST(w.window <= 4 * (op + 2 * 23.6067e-6));
            for (auto r : comet::all_rank_reductions) {
                BOOST_TEST_REQUIRE(w.of(r).size() == 10u);
                for (double x : w.of(r)) BOOST_TEST(x == 100e-6, boost::test_tools::tolerance(1e-9));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(a_window_too_short_drops_late_starts_and_doubles) {
    const comet::windowed_point w = busy_on(4, window_measure::window, {.measurements = 10, .window_seconds = 10e-6});
    // 10, 20, 40, 80 µs: every window after a batch's first starts while the ranks are still in
    // the 100 µs operation (late, dropped); 160 µs holds. The first of each batch is valid.
    BOOST_TEST(w.widenings == 4);
    BOOST_TEST(w.window == 160e-6, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(w.attempts == 50u);
    BOOST_TEST(w.late == 4u * 9u);
    BOOST_TEST(w.valid() == 14u);  // four from the short batches, and the whole last batch (every valid one is kept)
    BOOST_TEST(!w.gave_up);
    BOOST_TEST_REQUIRE(w.kept.size() == 14u);
    for (double x : w.of(rank_reduction::max)) BOOST_TEST(x == 100e-6, boost::test_tools::tolerance(1e-9));

    // Not allowed to widen enough, nor to try long: it gives up with what started together.
    const comet::windowed_point short_ = busy_on(4, window_measure::window,
                                                 {.measurements = 10, .window_seconds = 10e-6, .max_widenings = 1, .max_attempts = 3});
    BOOST_TEST(short_.gave_up);
    BOOST_TEST(short_.widenings == 1);
    BOOST_TEST(short_.attempts == 30u);
    BOOST_TEST(short_.late == 27u);
    BOOST_TEST(short_.of(rank_reduction::max).size() == 3u);  // the first window of each batch
    comet::record rec{"collectives", {}, short_.of(rank_reduction::max)};
    comet::describe_window(rec, short_, {.measurements = 10});
    BOOST_TEST(comet::total_measurements(rec) == 30u);
    BOOST_TEST_REQUIRE(comet::find_flag(rec.flags, "point") != nullptr);
    BOOST_TEST(comet::find_flag(rec.flags, "point")->why.starts_with("its windows kept failing: 3 of 30 measurements valid (started on time, undisturbed)"));
    BOOST_TEST(!comet::usable(rec));
}

BOOST_AUTO_TEST_CASE(a_skewed_clock_bounds_first_start_to_last_finish) {
    const auto out = comet::nx2::run(
        comet::nx2::ipsc860(3),
        [](comet::nx2::transport& inner) {
            comet::skewed_clock t(inner, comet::seeded_skew(3, inner.rank()), 0.0);
            comet::global_clock g(t);
            return comet::measure_windowed(t, g, {.measurements = 6}, window_measure::window,
                                           [&] { comet::ops::compute(t, comet::work::busy(100e-6)); });
        });
    const comet::windowed_point& w = out[0];
    BOOST_TEST(w.clock_error > 0.0);
    BOOST_TEST(w.late == 0u);
    BOOST_TEST(w.tolerance > 1e-6);  // the clock's error bound and the slack
    BOOST_TEST_REQUIRE(w.of(rank_reduction::span).size() == 6u);
    for (double x : w.of(rank_reduction::span)) {
        BOOST_TEST(x >= 100e-6 * (1 - 2e-4));
        BOOST_TEST(x <= 100e-6 * (1 + 2e-4) + 2 * w.clock_error);
    }
}

BOOST_AUTO_TEST_CASE(pipelined_reads_a_linear_broadcast_lower_than_one_broadcast_alone) {
    // The seed's LogP example (figure 1): the root's sends of the next broadcasts overlap the
    // last ranks' receives of the previous one, so N back-to-back broadcasts / N undercut one.
    const auto out = comet::nx2::run(comet::nx2::ipsc860(4), [](comet::nx2::transport& t) {
        return k::windowed_collectives(t, {.operations = {k::collective_operation::linear_broadcast}, .sizes = {8, 64}});
    });
    const comet::result_set& r = out[0];
    BOOST_TEST_REQUIRE(r.size() == k::windowed_collectives_points({.operations = {k::collective_operation::linear_broadcast},
                                                                   .sizes = {8, 64}}));
    for (std::size_t size : {8u, 64u}) {
        BOOST_TEST_CONTEXT(size << " bytes") {
            const double window = median_of(r, "linear_broadcast", "window", "max", size);
            const double pipelined = median_of(r, "linear_broadcast", "pipelined", "max", size);
            BOOST_TEST(pipelined < window, "pipelined " << pipelined << " s, window " << window << " s");
            BOOST_TEST(median_of(r, "linear_broadcast", "window", "first_start_to_last_finish", size) == window);
        }
    }
    for (const auto& rec : r.records) {
        BOOST_TEST(rec.dropped.empty());  // no late start
        BOOST_TEST(comet::total_measurements(rec) == 20u);
        BOOST_TEST((rec.values.text("implementation") == "linear"));
        BOOST_TEST((rec.params.text("scheme") == "none"));  // virtual time is global: no sync
        BOOST_TEST((rec.params.number("nodes") == 16.0));
    }
}

BOOST_AUTO_TEST_CASE(the_loop_schemes_time_every_rank_s_own_loop_and_have_no_window) {
    // Seed 002's listings 1-3 on a 100 µs operation of every rank: no window, nothing late;
    // each rank's own time is its loop / N. With no synchronisation (loop) nothing lands on a
    // rank during its loop; after a barrier, a handler of the barrier's last messages may
    // (23.6067 µs each, at most two a measurement here).
    for (auto how : {window_measure::barrier_then_loop, window_measure::loop, window_measure::barriers_then_loop}) {
        BOOST_TEST_CONTEXT(comet::to_string(how)) {
            const comet::windowed_point w = busy_on(6, how, {.measurements = 10, .pipeline = 4});
            BOOST_TEST(!w.windowed);
            BOOST_TEST(w.late == 0u);
            BOOST_TEST(w.window == 0.0);
            BOOST_TEST(w.attempts == 10u);
            BOOST_TEST_REQUIRE(w.valid() == 10u);
            BOOST_TEST_REQUIRE(w.rank_seconds.size() == 6u);
            for (const auto& own : w.rank_seconds) {
                BOOST_TEST_REQUIRE(own.size() == 10u);
                for (double x : own) {
                    BOOST_TEST(x >= 100e-6 - 1e-12);
                    BOOST_TEST(x <= 100e-6 + (how == window_measure::loop ? 1e-12 : 2 * 23.6067e-6 / 4));
                }
            }
            BOOST_TEST(w.of(rank_reduction::designated) == w.rank_seconds[0]);  // rank 0 designated
            comet::record rec{"collectives", {}, w.of(rank_reduction::max)};
            comet::describe_window(rec, w, {.measurements = 10, .pipeline = 4}, 4);
            BOOST_TEST(!rec.values.contains("window"));
            BOOST_TEST(!rec.values.contains("widenings"));
            BOOST_TEST(rec.values.contains("clock_error"));
            BOOST_TEST(rec.dropped.empty());
            BOOST_TEST(rec.iterations == 4u);
        }
    }
}

BOOST_AUTO_TEST_CASE(the_loop_schemes_show_their_error_beside_the_window_scheme) {
    // A broadcast on 16 nodes, measured five ways. Timing N broadcasts as one lets the root
    // start the next while the last leaves still receive: every loop reads the slowest rank
    // below one broadcast alone (the seed's figure 1). Without synchronisation (listing 2)
    // the ranks also start apart, so first start to last finish reads above it (figure 2).
    const auto out = comet::nx2::run(comet::nx2::ipsc860(4), [](comet::nx2::transport& t) {
        return k::windowed_collectives(t, {.operations = {k::collective_operation::broadcast},
                                           .sizes = {8},
                                           .measures = {comet::all_window_measures.begin(), comet::all_window_measures.end()},
                                           .rank_times = true});
    });
    const comet::result_set& r = out[0];
    const k::windowed_collectives_config asked{.operations = {k::collective_operation::broadcast},
                                               .sizes = {8},
                                               .measures = {comet::all_window_measures.begin(), comet::all_window_measures.end()},
                                               .rank_times = true};
    BOOST_TEST_REQUIRE(r.size() == k::windowed_collectives_points(asked, 16));
    BOOST_TEST(r.size() == 5u * (6u + 16u));
    const auto find = [&](const std::string& how, const std::string& reduction) -> const comet::record& {
        for (const auto& rec : r.records)
            if (rec.params.text("measure") == how && rec.params.text("reduction") == reduction) return rec;
        BOOST_FAIL("no record " << how << " " << reduction);
        return r.records.front();
    };
    for (const auto& rec : r.records) {
        BOOST_TEST_CONTEXT(comet::point_name(rec)) {
            BOOST_TEST(comet::usable(rec));
            const std::string how = *rec.params.text("measure");
            BOOST_TEST(rec.values.contains("versus_window") == (how != "window"));
            BOOST_TEST(rec.params.contains("barriers") == (how == "barriers_then_loop"));
            if (how == "window") continue;
            const double base = comet::summarize(find("window", *rec.params.text("reduction"))).median;
            BOOST_TEST(*rec.values.number("versus_window") == comet::summarize(rec).median / base, boost::test_tools::tolerance(1e-12));
        }
    }
    for (const std::string how : {"pipelined", "barrier_then_loop", "loop", "barriers_then_loop"}) {
        BOOST_TEST_CONTEXT(how) {
            BOOST_TEST(*find(how, "max").values.number("versus_window") < 0.6);
            BOOST_TEST(find(how, "rank_0").samples == find(how, "designated").samples);
        }
    }
    BOOST_TEST(*find("loop", "first_start_to_last_finish").values.number("versus_window") > 1.2);
}

BOOST_AUTO_TEST_SUITE_END()
