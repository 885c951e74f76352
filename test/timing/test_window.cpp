// Tests of comet/timing/window.hpp on the threads transport, real threads and real time: the
// reductions of every kept measurement are consistent with each other (min ≤ median ≤ max ≤
// first start to last finish, ...), an operation of known length reads at least that long,
// a window set far too short drops its late starts and widens a bounded number of times, a
// global clock costs nothing, a skewed
// clock is synchronised first and its error is recorded, bad configurations are refused on
// every rank. How often a loaded machine makes a default window overrun is the machine's: it
// is reported, never asserted (test/nx2/test_window.cpp pins the exact figures in virtual time).
#include <comet/timing/window.hpp>
#include <comet/transport/decorators/skewed_clock.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace window_test {

using comet::rank_reduction;

/// Every kept measurement's reductions agree with each other.
inline void check_consistent(const comet::windowed_point& w) {
    const std::size_t n = w.of(rank_reduction::max).size();
    for (auto r : comet::all_rank_reductions) BOOST_TEST_REQUIRE(w.of(r).size() == n);
    for (std::size_t i = 0; i < n; ++i) {
        BOOST_TEST_CONTEXT("measurement " << i) {
            const double lo = w.of(rank_reduction::min)[i], hi = w.of(rank_reduction::max)[i];
            BOOST_TEST(lo >= 0.0);
            BOOST_TEST(lo <= w.of(rank_reduction::median)[i]);
            BOOST_TEST(w.of(rank_reduction::median)[i] <= hi);
            BOOST_TEST(lo <= w.of(rank_reduction::mean)[i] * (1 + 1e-12));
            BOOST_TEST(w.of(rank_reduction::mean)[i] <= hi * (1 + 1e-12));
            BOOST_TEST(lo <= w.of(rank_reduction::designated)[i]);
            BOOST_TEST(w.of(rank_reduction::designated)[i] <= hi);
            BOOST_TEST(hi <= w.of(rank_reduction::span)[i] * (1 + 1e-12));
        }
    }
}

}  // namespace window_test

BOOST_AUTO_TEST_SUITE(window_measurement)

using namespace window_test;

BOOST_AUTO_TEST_CASE(a_busy_operation_reads_at_least_its_length_both_ways) {
    for (auto how : {comet::window_measure::window, comet::window_measure::pipelined}) {
        const auto out = comet::threads::run(2, [how](comet::threads::transport& t) {
            comet::global_clock g(t);
            return comet::measure_windowed(t, g, {.measurements = 8, .pipeline = 3}, how,
                                           [&] { comet::ops::compute(t, comet::work::busy(200e-6)); });
        });
        BOOST_TEST_CONTEXT(comet::to_string(how)) {
            const comet::windowed_point& w = out[0];
            BOOST_TEST(w.attempts >= 8u);
            BOOST_TEST(w.attempts % 8u == 0u);  // whole batches
            BOOST_TEST(w.valid() + w.late <= w.attempts);
            // Batches run while fewer than 8 are kept, and every valid one of the last batch is
            // kept (timing/window.hpp, 5.): 7 + 8 at most, when a loaded machine starts some late.
            BOOST_TEST(w.valid() < 2 * 8u);
            BOOST_TEST(w.gave_up == (w.valid() < 8u));
            BOOST_TEST(w.clock_error == 0.0);  // the threads transport's clock is global
            BOOST_TEST(w.window >= 4 * 200e-6 * (how == comet::window_measure::pipelined ? 3 : 1));
            check_consistent(w);
            for (double x : w.of(rank_reduction::min)) BOOST_TEST(x >= 200e-6);
            // Only rank 0 holds samples; every rank knows how the point went.
            for (auto r : comet::all_rank_reductions) BOOST_TEST(out[1].of(r).empty());
            BOOST_TEST(out[1].window == w.window);
            BOOST_TEST(out[1].attempts == w.attempts);
            BOOST_TEST(out[1].gave_up == w.gave_up);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_window_far_too_short_drops_late_starts_and_widens_a_bounded_number_of_times) {
    // 0.1 µs windows for a 50 µs operation: every window of a batch after its first starts
    // while the ranks are still busy (late: dropped), and 4 doublings (to 1.6 µs) do not help.
    const auto out = comet::threads::run(2, [](comet::threads::transport& t) {
        comet::global_clock g(t);
        return comet::measure_windowed(t, g, {.measurements = 6, .window_seconds = 1e-7, .max_attempts = 4},
                                       comet::window_measure::window, [&] { comet::ops::compute(t, comet::work::busy(50e-6)); });
    });
    const comet::windowed_point& w = out[0];
    BOOST_TEST(w.late >= 4u * 5u);  // at least the five after each batch's first
    BOOST_TEST(w.widenings == 4);
    BOOST_TEST(w.window == 1e-7 * 16);
    BOOST_TEST(w.attempts == 24u);
    BOOST_TEST(w.valid() <= 4u);
    BOOST_TEST(w.gave_up);
    check_consistent(w);
}

BOOST_AUTO_TEST_CASE(a_skewed_clock_is_synchronised_and_its_error_recorded) {
    const auto out = comet::threads::run(3, [](comet::threads::transport& inner) {
        comet::skewed_clock t(inner, comet::seeded_skew(5, inner.rank()));
        comet::global_clock g(t, {.scheme = comet::sync_scheme::linear});
        return comet::measure_windowed(t, g, {.measurements = 5}, comet::window_measure::window,
                                       [&] { comet::ops::barrier(t); });
    });
    BOOST_TEST(out[0].clock_error > 0.0);
    BOOST_TEST(out[2].clock_error == out[0].clock_error);
    check_consistent(out[0]);
}

BOOST_AUTO_TEST_CASE(bad_configurations_are_refused_on_every_rank) {
    const auto refused = [](const comet::window_config& c, const char* says) {
        const auto said = comet::threads::run(3, [&](comet::threads::transport& t) -> std::string {
            comet::global_clock g(t);
            try {
                (void)comet::measure_windowed(t, g, c, comet::window_measure::window, [&] { comet::ops::barrier(t); });
            } catch (const comet::invalid_argument& e) {
                return e.what();
            }
            return "nothing raised";
        });
        for (std::size_t rank = 0; rank < said.size(); ++rank) {
            const std::string with_rank = "rank " + std::to_string(rank) + ": ";
            BOOST_TEST(comet_test::mentions(std::runtime_error(said[rank]), {with_rank.c_str(), says}));
        }
    };
    refused({.measurements = 0}, "window.measurements must be at least 1");
    refused({.pipeline = 0}, "window.pipeline must be at least 1");
    refused({.window_seconds = -1.0}, "window.window_seconds = -1");
    refused({.max_overrun_fraction = 2.0}, "window.max_overrun_fraction = 2");
    refused({.max_widenings = -1}, "window.max_widenings = -1");
    refused({.designated = 3}, "window.designated rank 3 is outside 0..2");
}

BOOST_AUTO_TEST_SUITE_END()
