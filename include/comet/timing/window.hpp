// comet/timing/window.hpp — window-based single-shot measurement of an operation every rank runs
// together, and the pipelined measurement beside it (seed 002, sections 1.2–1.3 and 4; SKaMPI's
// time windows, Worsch et al.).
//
//   comet::global_clock g(t);                              // timing/global_clock.hpp
//   comet::windowed_point w = comet::measure_windowed(t, g, {}, comet::window_measure::window,
//                                                     [&] { comet::ops::allreduce_sum(t, v); });
//   // on rank 0: w.samples[r] for each reduction r (stats/rank_reduction.hpp), w.overruns, ...
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
//      of a 2-core machine (0.5 µs operations in 2 µs windows); with four times, at least
//      5 µs, and "late" a tenth of a window (step 4), 5%.
//      The announcement's broadcast is timed the same way;
//   3. a batch: rank 0 announces a start S on the global clock, four announcement times ahead
//      (plus one window), by a broadcast. Measurement i belongs to the window beginning at
//      S + i·w: each rank waits for it (`compute(work::busy)`: a simulated machine charges the
//      wait in virtual time), reads the global clock, runs the operation, reads it again;
//   4. rank 0 gathers every rank's starts and ends. A measurement is an overrun when any rank
//      started it later than a tenth of a window after its window began — it was still busy
//      with the last one (or was descheduled), so the ranks did not start together. Overruns are
//      counted and never used. A batch in which more than `max_overrun_fraction` of the
//      measurements overran is thrown away and run again with the window doubled (at most
//      `max_widenings` times; then the last batch's valid measurements are kept and the point
//      says it gave up).
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

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/rank_reduction.hpp>
#include <comet/timing/global_clock.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace comet {

/// How an operation is timed.
enum class window_measure : unsigned char {
    window,     ///< once per window, every rank starting at the same global time
    pipelined,  ///< `pipeline` operations back to back per window, time / N
};

constexpr std::string_view to_string(window_measure m) noexcept { return m == window_measure::window ? "window" : "pipelined"; }

/// How a windowed point is measured. All ranks pass the same values (@pre).
struct window_config {
    /// Measurements per point that are kept (the seed's `numbench`); each gives one sample of
    /// every reduction.
    std::size_t measurements = 20;
    /// Operations back to back in one pipelined measurement (N).
    std::size_t pipeline = 8;
    /// The first window's length in seconds; 0 calibrates it (see the top of this header). A
    /// given window still widens when measurements overrun it.
    double window_seconds = 0.0;
    /// Untimed operations before the calibration.
    std::size_t warmup = 2;
    /// A batch in which more than this fraction of the measurements overran is run again with
    /// the window doubled.
    double max_overrun_fraction = 0.1;
    /// How often a point's window may be doubled.
    int max_widenings = 10;
    /// The rank whose own time `rank_reduction::designated` reports (a rooted operation's root).
    int designated = 0;
};

/// What a windowed point measured. `samples` are complete on rank 0 only (empty elsewhere);
/// the rest is the same on every rank.
struct windowed_point {
    /// Seconds per operation, one per kept measurement, for each reduction in the order of
    /// `all_rank_reductions`.
    std::array<std::vector<double>, all_rank_reductions.size()> samples;
    double window = 0.0;           ///< the window the kept measurements ran in (s)
    double lead = 0.0;             ///< how far ahead the start was announced (s)
    int widenings = 0;             ///< how often the window was doubled
    std::size_t measurements = 0;  ///< measurements made, every batch included
    std::size_t overruns = 0;      ///< of those, the overruns (never used)
    bool gave_up = false;          ///< still overrunning after `max_widenings` doublings
    double clock_error = 0.0;      ///< the largest estimated error of any rank's global clock (s)
    /// Which measurements of the last batch were kept (indices 0..measurements−1 of that batch,
    /// rising; on rank 0): the body's last `window_config::measurements` calls on every rank are
    /// that batch, so a body that logs figures of its own can pick the kept ones.
    std::vector<std::size_t> kept;

    const std::vector<double>& of(rank_reduction r) const { return samples[static_cast<std::size_t>(r)]; }
};

namespace detail::window {

/// Checks `c` for a group of `p` ranks; the message names the caller, the field and its value.
inline void check(int rank, int p, std::string_view who, const window_config& c) {
    if (c.measurements < 1) raise<invalid_argument>(rank, who, ": window.measurements must be at least 1, got 0");
    if (c.measurements > 1'000'000)
        raise<invalid_argument>(rank, who, ": window.measurements = ", c.measurements, " is over 10^6");
    if (c.pipeline < 1) raise<invalid_argument>(rank, who, ": window.pipeline must be at least 1, got 0");
    if (!std::isfinite(c.window_seconds) || c.window_seconds < 0.0)
        raise<invalid_argument>(rank, who, ": window.window_seconds = ", c.window_seconds, " is not >= 0 seconds");
    if (!(c.max_overrun_fraction >= 0.0 && c.max_overrun_fraction <= 1.0))
        raise<invalid_argument>(rank, who, ": window.max_overrun_fraction = ", c.max_overrun_fraction, " is not in [0, 1]");
    if (c.max_widenings < 0 || c.max_widenings > 60)
        raise<invalid_argument>(rank, who, ": window.max_widenings = ", c.max_widenings, " is not in 0..60");
    if (c.designated < 0 || c.designated >= p)
        raise<invalid_argument>(rank, who, ": window.designated rank ", c.designated, " is outside 0..", p - 1);
}

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
/// announcement (a double from rank 0), each after a barrier; the same on every rank.
template <transport T, class Body>
std::array<double, 2> longest_parts(T& t, std::size_t runs, Body&& body) {
    std::array<double, 2> longest{0.0, 0.0};
    std::array<double, 1> announcement{0.0};
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
    const auto operations = [&] {
        for (std::size_t k = 0; k < per; ++k) body();
    };

    windowed_point out;
    out.clock_error = g.max_estimated_error();
    for (std::size_t i = 0; i < c.warmup; ++i) {
        ops::barrier(t);
        body();
    }
    const auto [part, announce] = detail::window::longest_parts(t, 3, operations);
    out.window = c.window_seconds > 0.0 ? c.window_seconds : std::max(4 * part + 4 * out.clock_error, 5e-6);

    const std::size_t m = c.measurements;
    std::vector<double> mine(2 * m);  // starts, then ends
    std::vector<double> all(me == 0 ? 2 * m * static_cast<std::size_t>(p) : 0);
    for (;;) {
        out.lead = 4 * announce + out.window;
        std::array<double, 1> announcement{me == 0 ? g.now() + out.lead : 0.0};
        ops::broadcast(t, 0, std::as_writable_bytes(std::span(announcement)));
        const auto window_start = [&, first = announcement[0]](std::size_t i) { return first + static_cast<double>(i) * out.window; };
        for (std::size_t i = 0; i < m; ++i) {
            detail::window::wait_until(t, g, window_start(i));
            mine[i] = g.now();
            operations();
            mine[m + i] = g.now();
        }
        ops::gather(t, 0, std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)));

        // Rank 0 finds the overruns and decides; the decision reaches every rank.
        std::array<double, 3> decision{0.0, 0.0, 0.0};  // {widen, overruns in this batch, gave up}
        std::vector<char> valid;
        if (me == 0) {
            valid.assign(m, 1);
            const double late = 0.1 * out.window;
            for (int r = 0; r < p; ++r) {
                const double* starts = all.data() + 2 * m * static_cast<std::size_t>(r);
                for (std::size_t i = 0; i < m; ++i)
                    if (starts[i] > window_start(i) + late) valid[i] = 0;
            }
            const auto overran = static_cast<std::size_t>(std::count(valid.begin(), valid.end(), 0));
            const bool widen = static_cast<double>(overran) > c.max_overrun_fraction * static_cast<double>(m);
            const bool may_widen = out.widenings < c.max_widenings;
            decision = {widen && may_widen ? 1.0 : 0.0, static_cast<double>(overran), widen && !may_widen ? 1.0 : 0.0};
        }
        ops::broadcast(t, 0, std::as_writable_bytes(std::span(decision)));
        out.measurements += m;
        out.overruns += static_cast<std::size_t>(decision[1]);
        if (decision[0] != 0.0) {
            out.window *= 2;
            ++out.widenings;
            continue;
        }
        out.gave_up = decision[2] != 0.0;
        if (me == 0) {
            std::vector<double> starts(static_cast<std::size_t>(p)), ends(static_cast<std::size_t>(p));
            for (std::size_t i = 0; i < m; ++i) {
                if (!valid[i]) continue;
                out.kept.push_back(i);
                for (int r = 0; r < p; ++r) {
                    starts[static_cast<std::size_t>(r)] = all[2 * m * static_cast<std::size_t>(r) + i];
                    ends[static_cast<std::size_t>(r)] = all[2 * m * static_cast<std::size_t>(r) + m + i];
                }
                for (std::size_t k = 0; k < all_rank_reductions.size(); ++k)
                    out.samples[k].push_back(reduce_ranks({starts, ends}, all_rank_reductions[k],
                                                          static_cast<std::size_t>(c.designated)) /
                                             static_cast<double>(per));
            }
        }
        return out;
    }
}

}  // namespace comet
