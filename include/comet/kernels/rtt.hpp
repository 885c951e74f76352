// comet/kernels/rtt.hpp — the round-trip study behind the clock synchronisation (Hoefler,
// Schneider, Lumsdaine, seed 002, section 2.2, listing 4, figures 4-6): how round-trip times
// spread, how two nodes' clocks drift apart, and how many measurements the "minimum not
// improved for N in a row" rule needs for what quality. The `sync` kernel runs it after
// timing the syncs (kernels/clock_sync.hpp); it can be called alone.
//
//   comet::result_set r = comet::kernels::rtt_study(t, {.partners = {1, 3}, .measurements = 2000});
//
// The measurement is listing 4's: the test node reads its clock (t1), sends it in an 8-byte
// message to the partner, which reads its own clock on receipt (t2) and sends that back; the
// test node reads its clock again (t3). The round trip is t3 − t1, the one-way latency half of
// it (what figure 4 draws), and t2 − (t1 + t3) / 2 is the partner's clock minus the test node's
// at the middle of the round trip (the clock difference of figure 5, signed). Between two
// measurements the test node waits `interval` seconds (the seed: one a second for 14 hours);
// `warmup` round trips before them are not timed;
// the partner waits in its receive. Partners are measured one after the other, the other ranks
// waiting in a barrier.
//
// Clocks. On a transport whose clock is global (threads, the simulators, MPI with
// MPI_WTIME_IS_GLOBAL) two nodes' clocks never drift; as `clock_sync` does, the study then
// skews every rank's clock with `seeded_skew(seed, rank, skew)` (comet::skewed_clock), so the
// drift it measures has a known true value (`true_drift`). Elsewhere the transport's own clocks
// are measured.
//
// Records (kernel "rtt", on the test node; params `study`, `nodes`, `partner`, and `skew`:
// "decorator" or "none"):
//   study "latency"        samples: the one-way latencies (s), one per valid measurement.
//                          values: `interval`, `duration` (s from the first measurement to the
//                          last), `min_rtt` (s); the clock difference at the first measurement
//                          (`offset`, s) and the drift of the partner's clock against the
//                          test node's fitted by least squares over the clock differences of
//                          the measurements whose round trip was among the smallest quarter
//                          (the seed's choice for section 2: `drift`, `drift_error`, both
//                          s/s, and `scatter_quarter`, the RMS of their residuals, s), and over
//                          all of them (`drift_all`, `scatter_all`); `true_drift` with the
//                          decorator. A measurement during which the test node, or the partner
//                          between its previous reply and this one, was disturbed
//                          (core/concepts.hpp) is dropped, counted as "preempted".
//   study "histogram"      one record per non-empty bin of `bins` uniform bins between the
//                          smallest latency and the 99th percentile or the median plus ten
//                          interquartile ranges, the lower (figure 4): param `bin` (its
//                          index), values `latency_us` (the bin's middle) and `count`, samples
//                          the bin's latencies; a note on the first bin says how many lay beyond.
//   study "drift"          one record per `segments`-th of the measurements, in time order:
//                          param `part` (its index), value `at_s` (the part's middle, s since
//                          the first measurement), samples the clock differences of its
//                          smallest-quarter round trips less `offset` (figure 5: a line per
//                          pair). Signed: the one kind of sample of comet's that may be below 0.
//   study "quality"        one record per N of `patience` (figure 6): the seed's simulation, run
//                          `trials` times on the measured round trips (drawn at random, with
//                          replacement, seeded): draw until the smallest so far has not
//                          improved for N draws in a row. Samples: each trial's minimum (s);
//                          values `quality` (%: how far the trials' minimum lies above the
//                          smallest round trip measured, averaged) and `cost` (draws, averaged).
//
// Messages: 8 bytes each way per measurement, tag `tag`; after a partner's last measurement
// a request for its verdicts (0 bytes) and the verdicts (a byte per measurement); one barrier per partner; with the
// decorator one broadcast of the test node's clock mapping. Nothing is sent while a partner's
// measurements run but the measurement's own two messages.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>
#include <comet/transport/decorators/skewed_clock.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace comet::kernels {

/// The tag of the round-trip study's messages, in comet's reserved range.
inline constexpr int rtt_tag = first_reserved_tag + 640;

/// Configuration of `rtt_study`. All ranks pass the same values (@pre).
struct rtt_config {
    /// The ranks the test node measures against, in this order; empty: the first three ranks
    /// that are not the test node (the seed's figure 5 shows six pairs; three keep a suite
    /// run's records few).
    std::vector<int> partners = {};
    /// Round trips per partner (the seed: 50,000).
    std::size_t measurements = 1000;
    /// Untimed round trips before them: the first one after the barrier that starts a partner
    /// finds the partner still leaving it (on the simulated iPSC/860 two hops away, 104.2
    /// against 92.4 us).
    std::size_t warmup = 2;
    /// Seconds the test node waits between two round trips (the seed: 1).
    double interval = 0.0;
    /// Uniform bins of the latency histogram (the seed: 200 for 50,000 round trips; 50 keep
    /// about as many round trips a bin for the default 1,000).
    std::size_t bins = 50;
    /// Drift records per partner: the measurements in this many parts, in time order.
    std::size_t segments = 20;
    /// The N of the "minimum not improved for N in a row" rule, one quality record each.
    std::vector<std::size_t> patience = {1, 2, 5, 10, 20, 50, 100, 200};
    /// Simulated runs of that rule per N.
    std::size_t trials = 1000;
    /// Seeds the rule's draws and, where the kernel skews a global clock, the skews.
    std::uint64_t seed = 42;
    /// The bounds of those skews (as clock_sync's).
    comet::skew_bounds skew = {};
    int tag = rtt_tag;
    /// The rank that measures and returns the records.
    int test_node = 0;
    /// Read on the test node before each partner: once a stop is requested the study ends.
    std::stop_token stop = {};
};

/// What the study derives from one partner's measurements (`analyse_round_trips`).
struct rtt_analysis {
    double min_rtt = 0.0;
    double offset = 0.0;  ///< the fitted clock difference at time 0 (over the smallest quarter)
    double drift = 0.0, drift_error = 0.0, scatter_quarter = 0.0;  ///< over the smallest quarter
    double drift_all = 0.0, scatter_all = 0.0;                     ///< over every measurement
};

/// One simulated run of the seed's stopping rule, summed over trials (`simulate_patience`).
struct patience_quality {
    std::vector<double> minima;  ///< each trial's minimum
    double quality = 0.0;        ///< mean of (minimum − smallest) / smallest, in %
    double cost = 0.0;           ///< mean draws a trial made
};

/// Drift and scatter of the clock differences `diff` (s) taken at `at` (s), fitted over the
/// measurements whose round trip `rtt` was among the smallest quarter and over all.
/// @throws invalid_argument for fewer than 8 measurements or sizes that differ.
COMET_DECL rtt_analysis analyse_round_trips(std::span<const double> at, std::span<const double> rtt, std::span<const double> diff);

/// The seed's simulation for figure 6: `trials` runs, each drawing from `rtt` at random (with
/// replacement, seeded by `seed`) until the smallest drawn has not improved for `patience`
/// draws in a row.
/// @throws invalid_argument for an empty `rtt`, a patience of 0 or no trial.
COMET_DECL patience_quality simulate_patience(std::span<const double> rtt, std::size_t patience, std::size_t trials, std::uint64_t seed);

namespace detail::rtt {

/// The partners `cfg` names on a group of `p` ranks (the default filled in).
COMET_DECL std::vector<int> partners(const rtt_config& cfg, int p);

/// Every check, before any message; the message names the value and the rank.
COMET_DECL void check(int rank, int p, const rtt_config& cfg);

/// The records of one partner's measurements (see the top of this header).
COMET_DECL void describe(result_set& out, const rtt_config& cfg, int nodes, int partner, bool skewed, double true_drift,
                         std::span<const double> at, std::span<const double> rtt, std::span<const double> diff, std::size_t preempted);

/// Listing 4 between the test node and `partner` on `s`, `cfg.measurements` times. On the test
/// node fills `at` (t1), `rtt` and `diff` for the undisturbed measurements and returns how many
/// were disturbed.
///
/// Between its receive and its reply the partner does nothing but read its clock. Two readings
/// of its disturbance counter there (getrusage calls on threads) put comet inside every round
/// trip the test node times: on two threads the one-way latency read 436-450 ns (median) where
/// a plain ping-pong with the same stamps read 80, and reads 80 without them. The partner reads
/// the counter once after each reply instead, and sends every verdict in one message after the
/// last measurement, when the test node asks for them. A measurement counts as disturbed on the
/// partner when the counter moved between its previous reply and this one: the window also
/// covers the partner's wait for the message, where a preemption costs the measurement nothing,
/// so it drops more than it must and keeps nothing it should not. The reading after a reply is
/// over before the next message can be there: the test node reads its own counter twice between
/// receiving a reply and sending the next message.
template <transport S>
std::size_t measure_pair(S& s, const rtt_config& cfg, int partner, std::vector<double>& at, std::vector<double>& rtt,
                         std::vector<double>& diff) {
    const int me = s.rank();
    const std::size_t total = cfg.warmup + cfg.measurements;
    std::array<double, 1> stamp{0.0};
    const auto bytes = std::as_writable_bytes(std::span(stamp));
    // Per measurement: 1 if this rank was disturbed during it.
    std::vector<unsigned char> disturbed(total, 0);
    if (me == cfg.test_node) {
        std::vector<double> t1s(total), t3s(total), t2s(total);
        for (std::size_t i = 0; i < total; ++i) {
            if (i > 0 && cfg.interval > 0.0) ops::compute(s, work::busy(cfg.interval));
            const std::uint64_t before = ops::disturbances(s);
            const double t1 = s.now();
            stamp[0] = t1;
            ops::send(s, partner, cfg.tag, bytes);
            ops::recv(s, partner, cfg.tag, bytes);
            t3s[i] = s.now();
            t1s[i] = t1;
            t2s[i] = stamp[0];
            disturbed[i] = ops::disturbances(s) != before;
        }
        // Asked for only now: sent on its own after the last reply, the verdicts would reach the
        // test node while it still received that reply (on the simulated iPSC/860 an arrival's
        // interrupt lengthened the last round trip by 11.8 µs).
        std::vector<unsigned char> theirs(total, 0);
        ops::send(s, partner, cfg.tag, const_bytes{});
        ops::recv(s, partner, cfg.tag, std::as_writable_bytes(std::span(theirs)));
        std::size_t preempted = 0;
        for (std::size_t i = cfg.warmup; i < total; ++i) {
            if (disturbed[i] || theirs[i]) {
                ++preempted;
                continue;
            }
            at.push_back(t1s[i]);
            rtt.push_back(t3s[i] - t1s[i]);
            diff.push_back(t2s[i] - 0.5 * (t1s[i] + t3s[i]));
        }
        return preempted;
    }
    std::uint64_t last = ops::disturbances(s);
    for (std::size_t i = 0; i < total; ++i) {
        ops::recv(s, cfg.test_node, cfg.tag, bytes);
        stamp[0] = s.now();
        ops::send(s, cfg.test_node, cfg.tag, bytes);
        const std::uint64_t now = ops::disturbances(s);
        disturbed[i] = now != last;
        last = now;
    }
    ops::recv(s, cfg.test_node, cfg.tag, mutable_bytes{});
    ops::send(s, cfg.test_node, cfg.tag, std::as_bytes(std::span(disturbed)));
    return 0;
}

}  // namespace detail::rtt

/// The round-trip study (see the top of this header): for each partner, `measurements` round
/// trips from the test node, their latency distribution and histogram, the drift of the two
/// clocks, and the quality of the seed's stopping rule against N.
/// @pre collective: every rank calls it with the same config.
/// @throws invalid_argument (on every rank, before any message, naming the value and the rank)
///         for fewer than 2 ranks, a test node or partner outside the group or equal to the test
///         node, fewer than 8 measurements, a negative or non-finite interval, no bin, no segment,
///         more segments than measurements, a patience of 0, no trial, skew bounds `seeded_skew`
///         refuses, or a tag outside 0..max_tag.
/// @code
///   auto r = comet::kernels::rtt_study(t, {.partners = {1}, .measurements = 5000, .interval = 1e-3});
/// @endcode
template <transport T>
result_set rtt_study(T& t, const rtt_config& cfg = {}) {
    const int me = t.rank(), p = t.size();
    detail::rtt::check(me, p, cfg);
    const std::vector<int> partners = detail::rtt::partners(cfg, p);
    const bool skewed = ops::clock_is_global(t);
    result_set out;
    const auto run = [&](auto& s, auto&& true_drift) {
        for (int partner : partners) {
            std::array<unsigned char, 1> stop{static_cast<unsigned char>(me == cfg.test_node && cfg.stop.stop_requested())};
            ops::broadcast(t, cfg.test_node, std::as_writable_bytes(std::span(stop)));
            if (stop[0]) break;
            ops::barrier(t);
            std::vector<double> at, rtt, diff;
            std::size_t preempted = 0;
            if (me == cfg.test_node || me == partner) preempted = detail::rtt::measure_pair(s, cfg, partner, at, rtt, diff);
            if (me == cfg.test_node)
                detail::rtt::describe(out, cfg, p, partner, skewed, true_drift(partner), at, rtt, diff, preempted);
        }
    };
    if (skewed) {
        // Every rank's mapping on the test node: the true drift of a partner's clock against
        // the test node's is the ratio of their rates.
        skewed_clock<T> s(t, seeded_skew(cfg.seed, me, cfg.skew));
        std::vector<double> rates(static_cast<std::size_t>(p), 0.0);
        rates[static_cast<std::size_t>(me)] = 1.0 + s.mapping().skew.drift_ppm * 1e-6;
        ops::allreduce_sum(t, std::span<double>(rates));
        run(s, [&](int partner) {
            return rates[static_cast<std::size_t>(partner)] / rates[static_cast<std::size_t>(cfg.test_node)] - 1.0;
        });
    } else {
        run(t, [](int) { return 0.0; });
    }
    ops::barrier(t);
    return out;
}

}  // namespace comet::kernels

#if !defined(COMET_COMPILED)
#include <comet/kernels/rtt.ipp>
#endif
