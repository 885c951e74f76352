// comet/timing/window.hpp — window-based single-shot measurement of an operation every rank runs
// together, and the pipelined measurement beside it (seed 002, sections 1.2–1.3 and 4; SKaMPI's
// time windows, Worsch et al.).
//
//   comet::global_clock g(t);                              // timing/global_clock.hpp
//   comet::windowed_point w = comet::measure_windowed(t, g, {}, comet::window_measure::window,
//                                                     [&] { comet::ops::allreduce_sum(t, v); });
//   // on rank 0: w.samples[r] for each reduction r (stats/rank_reduction.hpp), w.late, ...
//
// Why windows. Timing N back-to-back operations and dividing by N (what most benchmarks do)
// measures a pipeline, not an operation: a linear broadcast's root sends the next operation's
// messages while the last leaves still receive the previous one's, so the average per
// operation falls below what one broadcast takes (the seed's LogP example: L + 2g alone against
// (8g + L)/3 for three in a row on four ranks). A barrier before each operation does not fix it:
// a barrier lets ranks leave at different times, and its messages share the network. Here every
// operation starts on every rank at one announced moment of the global clock and runs once:
//
//   1. warm-up: `warmup` operations, each after a barrier, untimed;
//   2. calibration, unless the window is given: three runs after a barrier, each rank timing
//      its own part; the window is four times the longest part of any rank plus four times
//      the clock's estimated error (two ranks' windows may be that far apart in true time), and
//      at least 5 µs. Three runs see little of an operation's spread, and every time one
//      measurement outlasts its window the next one is lost: with twice the longest part and no
//      floor, 38% of the measurements of the default operations overran on two threads ranks
//      of a 2-core machine (0.5 µs operations in 2 µs windows).
//      The announcement's broadcast is timed the same way;
//   3. a batch: rank 0 announces a start S on the global clock, four announcement times ahead
//      (plus one window), by a broadcast. Measurement i belongs to the window beginning at
//      S + i·w: each rank waits for it (`compute(work::busy)`: a simulated machine charges the
//      wait in virtual time), reads the global clock, runs the operation, reads it again;
//   4. rank 0 gathers every rank's starts and ends. A measurement is valid only if every rank
//      started it within the tolerance of its window's start: the largest error bound of any
//      rank's global clock (two ranks' views of one global moment are at most that far apart)
//      plus a small fixed slack (`late_slack`, 1 µs: reading a clock after the wait). The
//      tolerance does not grow with the window: a rank that was still busy with the last
//      operation, or was descheduled, started late and the ranks did not start together, however
//      wide the window has become. Late measurements are dropped and counted (as ReproMPI counts
//      valid against total repetitions), never used; so are those during which a rank was
//      disturbed (its transport's count of disturbances moved: core/concepts.hpp);
//   5. batches run until at least `measurements` valid ones are kept (every valid one of the
//      last batch is), or `max_attempts` × measurements were made. A batch in which more than `max_overrun_fraction` started late widens the
//      window for the next (doubling, at most `max_widenings` times: operations longer than the
//      calibration saw). A point that ends with fewer than half the valid measurements it
//      wanted is flagged as a whole: its windows kept failing (`describe_window`).
//
// Before a point the global clock is synchronised again when any rank's error bound has grown
// past `resync_error` (drift makes it grow with the time since the last sync), so that the
// tolerance stays what the clock can do, not what an old sync allows.
//
// Interrupts: rank 0 asks `window_config::stop` before every batch and sends the answer with
// the announcement, so a stop request ends the point within one batch on every rank, with the
// valid measurements made so far.
//
// The pipelined measurement is the same machinery with `pipeline` operations back to back in
// each window: every rank's time is divided by N, so both read on one scale and their
// difference is the pipelining effect alone.
//
// Every rank's start and end are kept in global time, so each measurement yields every
// per-rank reduction (stats/rank_reduction.hpp): designated, max, min, mean, median and first
// start to last finish. The engine sends its own messages only between batches (the
// announcement, the gather of the times, the decision), outside every window. They use the
// group's collectives (`ops::broadcast`, `ops::gather`, `ops::allreduce_max`).
//
// Deliberately not here: choosing how many measurements a point needs from their spread (the
// sampling engine, timing/measure.hpp, does that for repeat loops; a window-based point has a
// fixed count, `measurements`, as the seed's `numbench`).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/rank_reduction.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>
#include <comet/timing/global_clock.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace comet {

/// How an operation is timed.
enum class window_measure : unsigned char {
    window,     ///< once per window, every rank starting at the same global time
    pipelined,  ///< `pipeline` operations back to back per window, time / N
};

constexpr std::string_view to_string(window_measure m) noexcept { return m == window_measure::window ? "window" : "pipelined"; }

/// How a windowed point is measured. All ranks pass the same values (@pre), but for `stop`,
/// which only rank 0 reads.
struct window_config {
    /// Valid measurements a point keeps (the seed's `numbench`); each gives one sample of
    /// every reduction.
    std::size_t measurements = 20;
    /// Operations back to back in one pipelined measurement (N).
    std::size_t pipeline = 8;
    /// The first window's length in seconds; 0 calibrates it (see the top of this header). A
    /// given window still widens when measurements start late.
    double window_seconds = 0.0;
    /// Untimed operations before the calibration.
    std::size_t warmup = 2;
    /// A batch in which more than this fraction of the measurements started late widens the
    /// window for the next.
    double max_overrun_fraction = 0.1;
    /// How often a point's window may be doubled.
    int max_widenings = 4;
    /// Measurements a point may make, as a multiple of `measurements`, before it gives up.
    std::size_t max_attempts = 10;
    /// The fixed part of the tolerance of a start (seconds; the other part is the clock's error).
    double late_slack = 1e-6;
    /// The global clock is synchronised again before a point when any rank's error bound has
    /// passed this (seconds).
    double resync_error = 10e-6;
    /// The rank whose own time `rank_reduction::designated` reports (a rooted operation's root).
    int designated = 0;
    /// Read on rank 0 before every batch: once a stop is requested the point ends there.
    std::stop_token stop = {};
};

/// What a windowed point measured. `samples`, `late`, `tolerance` and `kept` are complete on
/// rank 0 only; the rest is the same on every rank.
struct windowed_point {
    /// Seconds per operation, one per valid measurement, for each reduction in the order of
    /// `all_rank_reductions`.
    std::array<std::vector<double>, all_rank_reductions.size()> samples;
    double window = 0.0;           ///< the last window (s)
    double lead = 0.0;             ///< how far ahead the last start was announced (s)
    double tolerance = 0.0;        ///< the largest tolerance a start had (clock error + slack, s)
    int widenings = 0;             ///< how often the window was doubled
    std::size_t attempts = 0;      ///< measurements made, valid or not
    std::size_t late = 0;          ///< of those, the ones some rank started late (never used)
    std::size_t preempted = 0;     ///< of the others, the ones during which some rank was disturbed (never used)
    bool gave_up = false;          ///< fewer valid measurements than wanted after `max_attempts`
    bool interrupted = false;      ///< a stop request ended the point
    double clock_error = 0.0;      ///< the largest estimated error of any rank's global clock at its sync (s)
    /// For each valid measurement, in order, the index among every call of the body that
    /// `measure_windowed` made (warm-up and calibration included; on rank 0), so that a body
    /// that logs figures of its own on each call can pick those of the valid measurements.
    std::vector<std::size_t> kept;

    const std::vector<double>& of(rank_reduction r) const { return samples[static_cast<std::size_t>(r)]; }
    std::size_t valid() const { return samples[0].size(); }
};

namespace detail::window {

/// Checks `c` for a group of `p` ranks; the message names the caller, the field and its value.
COMET_DECL void check(int rank, int p, std::string_view who, const window_config& c);

/// Waits until rank 0's clock reads `global`. A nanosecond short counts as there: a simulated
/// clock charges waits to the picosecond, and a rounding remainder must not loop forever.
template <transport T>
void wait_until(T& t, global_clock<T>& g, double global) {
    for (int i = 0; i < 4; ++i) {
        const double left = g.local_time(global) - t.now();
        if (left <= 1e-9) return;
        ops::compute(t, work::busy(left));
    }
}

/// The longest time any rank spent in one of `runs` runs of `body`, and in one broadcast of an
/// announcement (two doubles from rank 0), each after a barrier; the same on every rank.
template <transport T, class Body>
std::array<double, 2> longest_parts(T& t, std::size_t runs, Body&& body) {
    std::array<double, 2> longest{0.0, 0.0};
    std::array<double, 2> announcement{0.0, 0.0};  // as measure_windowed's: a start and a stop
    for (std::size_t i = 0; i < runs; ++i) {
        ops::barrier(t);
        double s = t.now();
        body();
        longest[0] = std::max(longest[0], t.now() - s);
        ops::barrier(t);
        s = t.now();
        ops::broadcast(t, 0, std::as_writable_bytes(std::span(announcement)));
        longest[1] = std::max(longest[1], t.now() - s);
    }
    ops::allreduce_max(t, std::span<double>(longest));
    return longest;
}

}  // namespace detail::window

/// Measures `body` — one operation that every rank of the group runs together — by windows
/// (`how == window`) or pipelined (`pipeline` operations back to back per window), as the top
/// of this header describes. Returns on rank 0 the samples of every per-rank reduction (seconds
/// per operation), and everywhere the window, the overruns and how the point went.
/// @pre collective: every rank calls it with the same `c` and `how`, and `body` makes matching
///      calls on every rank; `g` is this group's global clock.
/// @throws invalid_argument (on every rank, before any message) for a bad configuration.
/// @code
///   auto w = comet::measure_windowed(t, g, {.measurements = 30}, comet::window_measure::pipelined,
///                                    [&] { comet::ops::barrier(t); });
///   double slowest = comet::summarize(w.of(comet::rank_reduction::max)).median;   // on rank 0
/// @endcode
template <transport T, class Body>
windowed_point measure_windowed(T& t, global_clock<T>& g, const window_config& c, window_measure how, Body&& body) {
    const int me = t.rank(), p = t.size();
    detail::window::check(me, p, "measure_windowed", c);
    const std::size_t per = how == window_measure::pipelined ? c.pipeline : 1;
    std::size_t calls = 0;  // of the body, on this rank
    const auto operations = [&] {
        for (std::size_t k = 0; k < per; ++k, ++calls) body();
    };

    windowed_point out;
    if (g.needs_resync(c.resync_error)) g.resync();
    out.clock_error = g.max_estimated_error();
    for (std::size_t i = 0; i < c.warmup; ++i, ++calls) {
        ops::barrier(t);
        body();
    }
    const auto [part, announce] = detail::window::longest_parts(t, 3, operations);
    out.window = c.window_seconds > 0.0 ? c.window_seconds : std::max(4 * part + 4 * out.clock_error, 5e-6);

    const std::size_t m = c.measurements;
    // Per rank and measurement: start and end in global time, whether the rank was disturbed
    // during it (core/concepts.hpp, counts_disturbances); then the rank's clock error bound.
    const std::size_t stride = 3 * m + 1;
    std::vector<double> mine(stride);
    std::vector<double> all(me == 0 ? stride * static_cast<std::size_t>(p) : 0);
    std::vector<double> starts(static_cast<std::size_t>(p)), ends(static_cast<std::size_t>(p));
    for (;;) {
        out.lead = 4 * announce + out.window;
        // {first window's start on the global clock, stop (a stop request on rank 0)}
        std::array<double, 2> announcement{me == 0 ? g.now() + out.lead : 0.0, me == 0 && c.stop.stop_requested() ? 1.0 : 0.0};
        ops::broadcast(t, 0, std::as_writable_bytes(std::span(announcement)));
        if (announcement[1] != 0.0) {
            out.interrupted = true;
            return out;
        }
        const auto window_start = [&, first = announcement[0]](std::size_t i) { return first + static_cast<double>(i) * out.window; };
        const std::size_t first_call = calls;
        for (std::size_t i = 0; i < m; ++i) {
            detail::window::wait_until(t, g, window_start(i));
            const std::uint64_t before = ops::disturbances(t);
            mine[i] = g.now();
            operations();
            mine[m + i] = g.now();
            mine[2 * m + i] = ops::disturbances(t) != before ? 1.0 : 0.0;
        }
        mine[3 * m] = g.error_bound();
        ops::gather(t, 0, std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)));

        // Rank 0 keeps the measurements every rank started on time and decides; the decision
        // reaches every rank.
        std::array<double, 2> decision{0.0, 0.0};  // {widen, done}
        if (me == 0) {
            double worst = 0.0;
            for (int r = 0; r < p; ++r) worst = std::max(worst, all[stride * static_cast<std::size_t>(r) + 3 * m]);
            const double tolerance = worst + c.late_slack;
            out.tolerance = std::max(out.tolerance, tolerance);
            std::size_t late = 0;
            for (std::size_t i = 0; i < m; ++i) {
                bool on_time = true, disturbed = false;
                for (int r = 0; r < p; ++r) {
                    const auto at = stride * static_cast<std::size_t>(r);
                    starts[static_cast<std::size_t>(r)] = all[at + i];
                    ends[static_cast<std::size_t>(r)] = all[at + m + i];
                    on_time = on_time && all[at + i] <= window_start(i) + tolerance;
                    disturbed = disturbed || all[at + 2 * m + i] != 0.0;
                }
                if (!on_time) {
                    ++late;
                    continue;
                }
                if (disturbed) {
                    ++out.preempted;
                    continue;
                }
                out.kept.push_back(first_call + i * per);
                for (std::size_t k = 0; k < all_rank_reductions.size(); ++k)
                    out.samples[k].push_back(reduce_ranks({starts, ends}, all_rank_reductions[k], static_cast<std::size_t>(c.designated)) /
                                             static_cast<double>(per));
            }
            out.late += late;
            const bool widen = static_cast<double>(late) > c.max_overrun_fraction * static_cast<double>(m) && out.widenings < c.max_widenings;
            const bool done = out.valid() >= m || out.attempts + m >= c.max_attempts * m;
            decision = {widen ? 1.0 : 0.0, done ? 1.0 : 0.0};
        }
        ops::broadcast(t, 0, std::as_writable_bytes(std::span(decision)));
        out.attempts += m;
        if (decision[0] != 0.0) {
            out.window *= 2;
            ++out.widenings;
        }
        if (decision[1] != 0.0) break;
    }
    std::array<double, 1> gave_up{me == 0 && out.valid() < m ? 1.0 : 0.0};
    ops::broadcast(t, 0, std::as_writable_bytes(std::span(gave_up)));
    out.gave_up = gave_up[0] != 0.0;
    return out;
}

/// Writes into `rec` how windowed point `m` was measured (on rank 0; its samples are the
/// caller's, one per valid measurement): the measurements dropped for a late start, the values
/// `window`, `widenings`, `tolerance` and `clock_error`, one iteration per sample (N when
/// pipelined), the stop reason ("fixed", or "interrupted"), and, when fewer than
/// `c.measurements` were valid, a note — or a flag on the whole point when fewer than half
/// were: its windows kept failing, and it is not reported.
COMET_DECL void describe_window(record& rec, const windowed_point& m, const window_config& c, std::size_t per = 1);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/timing/window.ipp>
#endif
