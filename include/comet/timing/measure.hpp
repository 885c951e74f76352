// comet/timing/measure.hpp — the one place a point is measured: the sampling engine every kernel
// uses (SPEC 5, "sampling").
//
// A kernel describes its points and how one sample of a point runs on each rank (a repeat loop
// of `iterations` on the ranks that time, its mirror on their partners); the engine decides how
// many iterations a sample needs, warms up, takes the samples in interleaved rounds and stops
// each point by the confidence interval of its median, a sample cap or a time budget:
//
//   1. calibrate: for each point in turn, samples of 1, 2, 4, ... iterations (or the fixed count
//      asked for) are run and thrown away until one lasts `min_sample_seconds` and the point has
//      been warm for `warmup_seconds`;
//   2. rounds: every point still open gets one sample per round, in point order or in a seeded
//      shuffle per round, so a change of the machine's state (the VM moving the two cores from
//      "near" to "far") lands on every point alike instead of on the sizes swept last;
//   3. stop: a point closes once it has `min_samples` and the 95% interval of its median is
//      within `target_ci` of the median, or it has `max_samples`, or its samples have used up
//      `budget_seconds`. The reason is recorded.
//
// Every decision is made on one rank (the decider: the kernel's test node) and sent to every
// other rank taking part, so the ranks never disagree about how many iterations or samples come
// next — per-rank adaptive loops diverge under MPI and deadlock. Only the ranks taking part call
// the engine (a contention kernel's traffic nodes are busy elsewhere), so decisions travel as
// point-to-point messages in comet's reserved tags, between samples, outside the timed loops.
//
// What a sample is: the time per iteration of the decider's repeat loop (its loop overhead
// subtracted, `timing/repeat.hpp`), or the largest of every rank's (`reduction::max_over_ranks`,
// for kernels whose operation ends on different ranks at different times). The subtracted
// overhead of each sample is kept beside it.
//
// Every sample starts from the same state (SPEC 5, "validity"):
// - the ranks taking part start it together: the decider's "go" reaches them right before it
//   (the group's allreduce, or a message and its answer), so the skew one point leaves (a
//   collective of 0 bytes lets its ranks drift apart) never lands on the next one;
// - the caches are as `sampling::cache` says: warm (one untimed iteration of the same point just
//   before, so that the point sampled before it in the round leaves nothing cold) or cold
//   (every rank taking part overwrites `cold_bytes` of memory first, and a sample is one
//   iteration: one operation from cold caches);
// - a sample below zero once its loop overhead is subtracted (the empty loop caught a
//   preemption the body loop did not) counts for no stop rule: the record keeps it, marked
//   invalid (stats/validity.hpp), and the point samples on.
//
// Interrupts: the decider asks `sampling::stop` before every sample and sends the answer with
// the "go", so a stop request (a signal the program turned into one) ends every point of the
// kernel within one sample on every rank, each point keeping the samples it had ("interrupted").
//
// Here: the engine (calibration, rounds, stop rules) and the state it starts each sample from.
// The policy it follows is timing/sampling.hpp, what it measured at a point (and how that
// becomes a record, or moves to another rank) timing/sampled_point.hpp, the ranks taking part
// and how its decisions travel among them timing/rank_set.hpp.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/function_ref.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/summary.hpp>
#include <comet/timing/rank_set.hpp>
#include <comet/timing/repeat.hpp>
#include <comet/timing/sampled_point.hpp>
#include <comet/timing/sampling.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace comet {

namespace detail {

/// The smallest step of `t`'s clock seen in a few hundred readings (0 when it did not move, as a
/// virtual clock does between events).
template <transport T>
double clock_step(T& t) {
    double step = 0.0, last = t.now();
    for (int reads = 0, changes = 0; reads < 100000 && changes < 20; ++reads) {
        const double x = t.now();
        if (x != last) {
            if (step == 0.0 || x - last < step) step = x - last;
            last = x;
            ++changes;
        }
    }
    return step;
}

/// Overwrites `bytes` of memory (kept per thread), so that what a sample then reads comes from
/// memory, not from a cache an earlier sample filled (sampling::cache, cold).
inline void overwrite_caches(std::size_t bytes) {
    thread_local std::vector<unsigned char> junk;
    thread_local unsigned char fill = 0;
    if (junk.size() < bytes) junk.resize(bytes);
    std::memset(junk.data(), ++fill, bytes);
#if defined(__GNUC__) || defined(__clang__)
    asm volatile("" : : "r"(junk.data()) : "memory");  // the stores may not be elided
#endif
}

}  // namespace detail

/// Samples `points` points on the ranks `ranks` of `t`'s group (which include `decider`).
/// `sample(point, iterations)` runs one sample of `point` on the calling rank and returns its
/// repeat_result if this rank timed (the decider must; with `max_over_ranks` every rank of
/// `ranks` must), std::nullopt if it only took part. Returns the points' measurements: complete
/// on `decider`; on another rank that timed, its own samples and overheads under the decider's
/// iterations and rounds (its `stop` is not decided there: take the decider's). Several ranks
/// timing at once, each for its own records, is how concurrent links are measured.
/// @pre every rank of `ranks` calls it with the same arguments, and `sample` makes matching
///      calls on every rank for the same (point, iterations); no other rank calls it.
///
/// `sample` is called through a function_ref, once per sample (its repeat loop inside it is
/// the kernel's own code, compiled with the kernel's body inlined): so one copy of the engine
/// serves every kernel of a program on a transport, instead of a copy per kernel and mode.
template <transport T>
std::vector<sampled_point> sample_points(T& t, std::size_t points, const sampling& cfg, int decider, const rank_set& ranks,
                                         sample_reduction red,
                                         function_ref<std::optional<repeat_result>(std::size_t, std::size_t)> sample) {
    const bool deciding = t.rank() == decider;
    std::vector<sampled_point> out(points);
    if (points == 0) return out;

    // One sample everywhere, reduced to the decider's view: seconds per iteration and overhead,
    // and whether a rank was disturbed during it (a transport that counts disturbances).
    struct taken {
        double per_iteration = 0, overhead = 0, loop = 0;
        bool timed = false;      // this rank timed the sample itself
        bool disturbed = false;  // on the decider: some rank of `ranks` was; elsewhere: this rank was
    };
    const bool whole = ranks.whole_of(t.size());
    // `since`: this rank's count of disturbances when the sample began (its "go", in rounds);
    // none for a calibration run, which is not kept (no message is then spent on disturbances).
    const auto take = [&](std::size_t p, std::size_t iterations, std::optional<std::uint64_t> since) {
        const std::optional<repeat_result> r = sample(p, iterations);
        taken x;
        if (r) x = {r->per_iteration, r->empty_seconds / static_cast<double>(r->iterations), r->loop_seconds, true};
        if ((deciding || red == sample_reduction::max_over_ranks) && !r)
            raise<invalid_argument>(t.rank(), "sample_points: a timing rank did not time its sample");
        double disturbed = since && ops::disturbances(t) - *since > 0 ? 1.0 : 0.0;
        if (red == sample_reduction::max_over_ranks && whole) {
            // Every rank's (time, overhead, loop) with the slowest rank's time first: the
            // maximum of the times, and that rank's other two, by one allreduce over pairs
            // (time, value) encoded so the max picks them together; the disturbances ride along.
            double v[3] = {x.per_iteration, x.overhead, x.loop};
            double top = v[0];
            ops::allreduce_max(t, std::span<double>(&top, 1));
            // The slowest rank (the lowest-numbered of equals) contributes its overhead and loop.
            double mine[3] = {-1.0, -1.0, disturbed};
            double who = v[0] == top ? static_cast<double>(t.size() - t.rank()) : 0.0;
            ops::allreduce_max(t, std::span<double>(&who, 1));
            if (v[0] == top && static_cast<double>(t.size() - t.rank()) == who) mine[0] = v[1], mine[1] = v[2];
            ops::allreduce_max(t, std::span<double>(mine, 3));
            x = {top, mine[0], mine[1], x.timed, mine[2] != 0.0};
        } else if (red == sample_reduction::max_over_ranks) {
            // Each partner sends its sample, and whether it was disturbed, to the decider.
            double v[4] = {x.per_iteration, x.overhead, x.loop, disturbed};
            if (!deciding) {
                ops::send(t, decider, detail::measure_tag, std::as_bytes(std::span<double>(v, 4)));
                x.disturbed = disturbed != 0.0;
            } else {
                x.disturbed = disturbed != 0.0;
                ranks.for_each([&](int q) {
                    if (q == decider) return;
                    double w[4];
                    ops::recv(t, q, detail::measure_tag, std::as_writable_bytes(std::span<double>(w, 4)));
                    // The slowest rank's time, with that same rank's overhead.
                    if (w[0] > x.per_iteration) x = {w[0], w[1], w[2], true, x.disturbed};
                    x.disturbed = x.disturbed || w[3] != 0.0;
                });
            }
        } else if (since) {
            // The decider asks and the others answer, whole group or not: a partner that spoke
            // first, right after its part of the loop (an allreduce's first message), would
            // land on the decider before it read its clock at the loop's end, and its handling
            // would be timed (on the simulated iPSC/860, one interrupt, 23.6 us, in every
            // sample of the 2-node echo: 142.236 us at 100 B against 142.000 on 4 nodes).
            x.disturbed = detail::disturbed_at_partners(t, decider, ranks, disturbed != 0.0 ? 1 : 0);
        }
        return x;
    };

    double min_seconds = cfg.min_sample_seconds;
    double step = -1.0;  // the clock's step on the decider; -1 until measured (0: it does not move by itself)
    if (min_seconds == 0.0) {
        step = deciding ? detail::clock_step(t) : 0.0;
        detail::share(t, decider, ranks, step);
        min_seconds = std::max(1000.0 * step, 200e-6);
    }
    const bool cold = cfg.cache == cache_state::cold;
    bool stopped = false;  // a stop request ended the measurement (alike on every rank)
    const auto stop_requested = [&] { return deciding && cfg.stop.stop_requested(); };
    // Where the ranks share one clock (the threads transport, a simulated machine), a sample
    // starts at one moment the decider names, `lead` ahead: four times the shortest time a
    // decision took to reach every rank and come back, as the decider saw its answered
    // decisions, and at least 1 µs. The shortest, not the longest: one decision held up by a
    // preemption would otherwise make every later sample wait as long, and a rank that gets a
    // "go" late only starts its untimed iteration late.
    const bool global = ops::clock_is_global(t);
    double lead = 0.0;
    const auto decide = [&](auto& decision) {
        const double before = deciding ? t.now() : 0.0;
        detail::share(t, decider, ranks, decision);
        if (deciding) {
            const double took = 4 * (t.now() - before);
            lead = lead == 0.0 ? took : std::min(lead, took);
        }
    };

    // 1. Calibration and warm-up, point by point. A cold sample is one operation: no
    //    calibration, but a first untimed run all the same (page faults, first wake-ups).
    std::vector<double> sample_seconds(points, 0.0);
    for (std::size_t p = 0; p < points && !stopped; ++p) {
        std::uint64_t it = cold ? 1 : cfg.iterations ? cfg.iterations : 1;
        const double start = deciding ? t.now() : 0.0;
        for (;;) {
            const taken x = take(p, static_cast<std::size_t>(it), std::nullopt);
            // decision[0]: iterations for the next run; decision[1]: 1 = calibrated and warm,
            // 2 = stop (a stop request).
            std::uint64_t decision[2] = {it, 0};
            if (deciding) {
                const bool long_enough = cold || x.loop >= min_seconds;
                // A run the clock did not see at all, on a clock that does not move by itself (a
                // virtual clock, which only the body advances): the body costs nothing on it, so
                // no number of iterations makes a sample longer and no warm-up time ever passes.
                // Without this a calibration (or a warm-up) on such a clock never ends.
                bool unseen = false;
                if (!long_enough && x.loop <= 0) {
                    if (step < 0) step = detail::clock_step(t);
                    unseen = step == 0;
                }
                const bool warm = unseen || t.now() - start >= cfg.warmup_seconds;
                if (stop_requested()) {
                    decision[1] = 2;
                } else if (!cfg.iterations && !long_enough && !unseen && it < 1'000'000'000) {
                    // Grow towards the target from what this run took, at most ×16 per step so a
                    // first run slowed by a cold start cannot overshoot by much.
                    const double want = x.loop > 0 ? std::ceil(static_cast<double>(it) * 1.2 * min_seconds / x.loop)
                                                   : static_cast<double>(it) * 16;
                    decision[0] = static_cast<std::uint64_t>(
                        std::clamp(want, static_cast<double>(it) + 1, static_cast<double>(it) * 16));
                    decision[0] = std::min<std::uint64_t>(decision[0], 1'000'000'000);
                } else if (warm) {
                    decision[1] = 1;
                    // Fixed iterations too few, or the 10^9 cap reached; not a body the clock
                    // cannot see (its samples are exact zeros), nor a cold sample (one operation).
                    out[p].short_samples = !long_enough && !unseen;
                    sample_seconds[p] = x.loop;
                }
            }
            decide(decision);
            it = decision[0];
            stopped = decision[1] == 2;
            if (decision[1]) break;
        }
        out[p].iterations = static_cast<std::size_t>(it);
    }

    // 2. Rounds over the open points, 3. each stopping by its own rule.
    std::vector<unsigned char> open(points, 1);
    std::vector<double> spent(points, 0.0);
    std::vector<std::size_t> order(points);
    std::mt19937_64 rng(cfg.seed);
    const auto budget_of = [&](std::size_t p) {
        return cfg.budget_seconds > 0 ? cfg.budget_seconds : 3.0 * static_cast<double>(cfg.min_samples) * sample_seconds[p];
    };
    // A sample below zero, or one during which a rank was disturbed, counts for no rule but the
    // cap on samples taken (it is kept, marked).
    std::vector<double> valid;
    const auto close = [&](std::size_t p) -> std::optional<stop_reason> {
        const auto& s = out[p].samples;
        if (s.size() >= cfg.max_samples) return cfg.max_samples == cfg.min_samples ? stop_reason::fixed : stop_reason::max_samples;
        valid.clear();
        for (std::size_t i = 0; i < s.size(); ++i)
            if (s[i] >= 0 && !out[p].disturbed[i]) valid.push_back(s[i]);
        if (valid.size() < cfg.min_samples) return std::nullopt;
        if (cfg.target_ci > 0) {
            const summary m = summarize(std::span<const double>(valid));
            if (m.median_ci_low && m.median_ci_high && m.median > 0 &&
                (*m.median_ci_high - *m.median_ci_low) / 2 <= cfg.target_ci * m.median)
                return stop_reason::interval;
        }
        if (spent[p] >= budget_of(p)) return stop_reason::budget;
        return std::nullopt;
    };
    // One sample of point p: the ranks meet on the decider's "go" (or all learn that a stop was
    // requested, and none samples again) and, on a shared clock, wait for the moment it names,
    // so that the stagger the point before left (a collective's ranks leave it at different
    // times, a disturbed rank runs late) is gone and every sample starts from ranks in step;
    // the caches are made as asked around that meeting and the sample runs. Warm: one untimed iteration of the
    // point itself right before it, after the start, so that whatever the meeting's messages and
    // the point sampled before left (in the caches, in a transport's buffers and credits) is what
    // this point's own operation leaves.
    const auto run_point = [&](std::size_t p) {
        if (stopped) return;
        // Cold: every rank overwrites its caches before the meeting, not after it. The
        // overwrite takes each rank its own time (milliseconds, and more on a rank descheduled
        // meanwhile); done after the "go", its spread would be in the sample: the decider would
        // time its first operation while a partner still overwrites.
        if (cold) detail::overwrite_caches(cfg.cold_bytes);
        // A rank disturbed from here on has disturbed the sample: held up in the untimed run
        // before it, a rank starts its part late, and the others' first iterations wait for it.
        const std::uint64_t since = ops::disturbances(t);
        std::array<double, 2> go{stop_requested() ? 0.0 : 1.0, deciding && global ? t.now() + std::max(lead, 1e-6) : 0.0};  // {go, start}
        // Answered: every rank has the go before the decider waits for the start. Unanswered, a
        // partner still taking in the previous sample's last messages could get it after the
        // start and begin late, which one untimed iteration does not always absorb (on the
        // simulated iPSC/860, a 1-iteration pairwise sample read 92 us after other pairs' points
        // against 74 us alone).
        detail::share(t, decider, ranks, go);
        if (go[0] == 0.0) {
            stopped = true;
            return;
        }
        if (global && go[1] > 0)
            if (const double left = go[1] - t.now(); left > 0) ops::compute(t, work::busy(left));
        if (!cold) (void)sample(p, 1);
        const taken x = take(p, out[p].iterations, since);
        const bool disturbed = x.disturbed;
        if (deciding || x.timed) {
            out[p].samples.push_back(x.per_iteration);
            out[p].overheads.push_back(x.overhead);
            out[p].disturbed.push_back(disturbed ? 1 : 0);
            spent[p] += x.loop;
        }
    };
    const auto interrupt_open = [&] {
        for (std::size_t p = 0; p < points; ++p)
            if (open[p]) out[p].stop = stop_reason::interrupted;
    };
    if (stopped) {
        interrupt_open();
        return out;
    }
    if (cfg.order == interleave::none) {
        for (std::size_t p = 0; p < points && !stopped; ++p)
            for (;;) {
                run_point(p);
                if (stopped) break;
                unsigned char done = 0;
                if (deciding)
                    if (const auto why = close(p)) done = 1, out[p].stop = *why;
                decide(done);
                if (done) {
                    open[p] = 0;
                    break;
                }
            }
        if (stopped) interrupt_open();
        return out;
    }
    for (;;) {
        order.clear();
        for (std::size_t p = 0; p < points; ++p)
            if (open[p]) order.push_back(p);
        if (order.empty()) break;
        if (cfg.order == interleave::shuffle) std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t p : order) run_point(p);
        if (stopped) {
            interrupt_open();
            break;
        }
        if (deciding)
            for (std::size_t p : order)
                if (const auto why = close(p)) open[p] = 0, out[p].stop = *why;
        decide(open);
    }
    return out;
}

}  // namespace comet
