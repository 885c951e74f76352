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
// The schemes the seed criticises are here too, to be measured beside the window on the same
// operation (its listings 1-3: `barrier_then_loop`, `loop`, `barriers_then_loop`): a loop of
// N operations timed as one on every rank, after one barrier (and one after it, untimed), after
// none, or after `loop_barriers`. They run in batches as the windows do, gathered and decided
// between batches; nothing makes their ranks start together, so no start is late, but a
// measurement during which a rank was disturbed is dropped as in the window scheme. What they
// read is the pipeline and the skew the barrier leaves, not one operation: the difference from
// the window scheme's figure is their error.
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

/// How an operation is timed. The last three are the barrier-and-loop schemes seed 002
/// criticises (its listings 1-3), measured here so that their error can be shown beside the
/// window's on the same operation: each times `pipeline` operations back to back as one
/// stretch on every rank and divides by N, so they read the pipeline, and the barrier before
/// lets ranks leave it at different times (the process skew of the seed's figures 2-3).
enum class window_measure : unsigned char {
    window,              ///< once per window, every rank starting at the same global time
    pipelined,           ///< `pipeline` operations back to back per window, time / N
    barrier_then_loop,   ///< listing 1: a barrier, the loop timed, a barrier after (untimed)
    loop,                ///< listing 2: the loop timed, no synchronisation at all
    barriers_then_loop,  ///< listing 3: `loop_barriers` barriers, then the loop timed
};

constexpr std::string_view to_string(window_measure m) noexcept {
    switch (m) {
    case window_measure::window: return "window";
    case window_measure::pipelined: return "pipelined";
    case window_measure::barrier_then_loop: return "barrier_then_loop";
    case window_measure::loop: return "loop";
    case window_measure::barriers_then_loop: return "barriers_then_loop";
    }
    return "?";
}

/// Every measure, in the order records list them.
inline constexpr std::array<window_measure, 5> all_window_measures{window_measure::window, window_measure::pipelined,
                                                                  window_measure::barrier_then_loop, window_measure::loop,
                                                                  window_measure::barriers_then_loop};

/// Whether `m` is one of the barrier-and-loop schemes (no window: every start is taken as it
/// comes, none is late).
constexpr bool is_loop_scheme(window_measure m) noexcept {
    return m == window_measure::barrier_then_loop || m == window_measure::loop || m == window_measure::barriers_then_loop;
}

/// How a windowed point is measured. All ranks pass the same values (@pre), but for `stop`,
/// which only rank 0 reads.
struct window_config {
    /// Valid measurements a point keeps (the seed's `numbench`); each gives one sample of
    /// every reduction.
    std::size_t measurements = 20;
    /// Operations back to back in one pipelined measurement, and in one loop of the
    /// barrier-and-loop schemes (N).
    std::size_t pipeline = 8;
    /// Barriers before each loop of `barriers_then_loop` (listing 3's `numbarr`; IMB issues two).
    std::size_t loop_barriers = 2;
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
    /// Each rank's own time per operation (its end minus its start, / N), one per valid
    /// measurement: the seed's "times for all processes" (rank 0 only).
    std::vector<std::vector<double>> rank_seconds;
    /// False for the barrier-and-loop schemes, which have no window (`window`, `lead`,
    /// `widenings` and `late` stay 0).
    bool windowed = true;
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

/// Keeps the measurements of one batch (rank 0): every rank's start and end of measurement i
/// in global time at `all[r * stride + i]` and `all[r * stride + m + i]`, whether it was
/// disturbed at `all[r * stride + 2m + i]`. One that some rank started late (`late(i, start)`)
/// or during which some rank was disturbed is counted and dropped; the others give a sample of
/// every reduction and every rank's own time, each divided by `per`. Returns the late ones.
template <class Late>
std::size_t keep_batch(windowed_point& out, std::span<const double> all, std::size_t stride, std::size_t m, int p, std::size_t per,
                       int designated, std::size_t first_call, Late&& late) {
    const auto np = static_cast<std::size_t>(p);
    std::vector<double> starts(np), ends(np);
    out.rank_seconds.resize(np);
    std::size_t lates = 0;
    for (std::size_t i = 0; i < m; ++i) {
        bool on_time = true, disturbed = false;
        for (std::size_t r = 0; r < np; ++r) {
            starts[r] = all[stride * r + i];
            ends[r] = all[stride * r + m + i];
            on_time = on_time && !late(i, starts[r]);
            disturbed = disturbed || all[stride * r + 2 * m + i] != 0.0;
        }
        if (!on_time) {
            ++lates;
            continue;
        }
        if (disturbed) {
            ++out.preempted;
            continue;
        }
        out.kept.push_back(first_call + i * per);
        for (std::size_t k = 0; k < all_rank_reductions.size(); ++k)
            out.samples[k].push_back(reduce_ranks({starts, ends}, all_rank_reductions[k], static_cast<std::size_t>(designated)) /
                                     static_cast<double>(per));
        for (std::size_t r = 0; r < np; ++r) out.rank_seconds[r].push_back((ends[r] - starts[r]) / static_cast<double>(per));
    }
    return lates;
}

/// The barrier-and-loop schemes (`is_loop_scheme`), as seed 002's listings 1-3 run them: a
/// warm-up of `warmup` operations, then batches of `measurements`, each measurement a loop of
/// `pipeline` operations that every rank times on the global clock (so that every reduction
/// can be formed), preceded by the scheme's barriers and, for listing 1, followed by one. No
/// start is late (the schemes have no window); a measurement during which a rank was disturbed
/// is dropped, as in the window scheme. Between batches, outside every timed loop, rank 0
/// gathers the times and decides.
template <transport T, class Body>
windowed_point measure_loop(T& t, global_clock<T>& g, const window_config& c, window_measure how, Body&& body) {
    const int me = t.rank(), p = t.size();
    windowed_point out;
    out.windowed = false;
    if (g.needs_resync(c.resync_error)) g.resync();
    out.clock_error = g.max_estimated_error();
    std::size_t calls = 0;
    for (std::size_t i = 0; i < c.warmup; ++i, ++calls) {
        ops::barrier(t);
        body();
    }
    const std::size_t m = c.measurements, n = c.pipeline;
    const std::size_t stride = 3 * m;
    std::vector<double> mine(stride);
    std::vector<double> all(me == 0 ? stride * static_cast<std::size_t>(p) : 0);
    for (;;) {
        std::array<double, 1> stop{me == 0 && c.stop.stop_requested() ? 1.0 : 0.0};
        ops::broadcast(t, 0, std::as_writable_bytes(std::span(stop)));
        if (stop[0] != 0.0) {
            out.interrupted = true;
            return out;
        }
        const std::size_t first_call = calls;
        for (std::size_t i = 0; i < m; ++i) {
            if (how == window_measure::barrier_then_loop) ops::barrier(t);
            if (how == window_measure::barriers_then_loop)
                for (std::size_t b = 0; b < c.loop_barriers; ++b) ops::barrier(t);
            const std::uint64_t before = ops::disturbances(t);
            mine[i] = g.now();
            for (std::size_t k = 0; k < n; ++k, ++calls) body();
            mine[m + i] = g.now();
            mine[2 * m + i] = ops::disturbances(t) != before ? 1.0 : 0.0;
            if (how == window_measure::barrier_then_loop) ops::barrier(t);
        }
        ops::gather(t, 0, std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)));
        std::array<double, 1> done{0.0};
        if (me == 0) {
            keep_batch(out, all, stride, m, p, n, c.designated, first_call, [](std::size_t, double) { return false; });
            done[0] = out.valid() >= m || out.attempts + m >= c.max_attempts * m ? 1.0 : 0.0;
        }
        ops::broadcast(t, 0, std::as_writable_bytes(std::span(done)));
        out.attempts += m;
        if (done[0] != 0.0) break;
    }
    std::array<double, 1> gave_up{me == 0 && out.valid() < m ? 1.0 : 0.0};
    ops::broadcast(t, 0, std::as_writable_bytes(std::span(gave_up)));
    out.gave_up = gave_up[0] != 0.0;
    return out;
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
    if (is_loop_scheme(how)) return detail::window::measure_loop(t, g, c, how, body);
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
            const auto late_start = [&](std::size_t i, double start) { return start > window_start(i) + tolerance; };
            const std::size_t late = detail::window::keep_batch(out, all, stride, m, p, per, c.designated, first_call, late_start);
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
