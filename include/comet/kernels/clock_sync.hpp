// comet/kernels/clock_sync.hpp — the kernel `sync`: how long a group clock synchronisation
// takes, by scheme (Hoefler, Schneider, Lumsdaine, seed 002, section 3.2, figure 8: the linear
// scheme's P − 1 steps against the tree's ⌈log2 P⌉; "a factor of more than 16 for 128
// processes"). The synchronisation itself is comet/timing/sync.hpp's; this kernel times it, the
// way the seed's benchmark did, and says how well it synchronised.
//
//   comet::result_set r = comet::kernels::clock_sync(t, {.repetitions = 9});
//   // on the test node: one record per scheme, samples = the sync's time in seconds
//
// A sample is one whole sync: `sync_result::duration`, the longest any rank spent in it from
// leaving the opening barrier to knowing its offset and having served its clients: the sync is
// over when its last rank is done, whichever that is (comet's tree keeps rank 0 a client in
// every round, but the ranks beyond the largest power of two finish later). Beside it, rank 0's
// own time, which is what the seed's benchmark timed and figure 8 shows.
// Each repetition is a fresh, first sync (a `global_clock` made anew), as an application's
// start-up sync would be. The schemes are visited round-robin, repetition after
// repetition (linear, log_p, linear, log_p, ...), so that a change of the machine's state lands
// on every scheme alike (timing/measure.hpp's rounds, for the same reason).
//
// Why a decorator. On a transport whose clock is global (`ops::clock_is_global`: the threads
// transport's steady clock, the simulated iPSC/860's virtual time, MPI with MPI_WTIME_IS_GLOBAL)
// there is nothing to synchronise, and `sync_clocks` returns at once without a message. The
// kernel then wraps the transport in `comet::skewed_clock`, every rank's clock given its own
// offset and drift by `seeded_skew(seed, rank, skew)` (±1 s, ±100 ppm by default), and times the
// sync of THOSE clocks: the full protocol runs, over the transport's own messages, and since
// the skews are known, so is the sync's true error (below). This is how the simulated iPSC/860
// — whose nodes share one virtual time — draws the seed's figure. On a transport whose clocks
// are not global (MPI as usual: each process's MPI_Wtime), the transport's own clocks are
// synchronised, as they are; their true error is unknown.
//
// Each record (one per scheme, on the test node) has the params
//   scheme           "linear" or "log_p"
//   nodes            the group's size P (the x of the seed's figure)
//   skew             "decorator": the clocks were skewed by the kernel; "none": the
//                    transport's own clocks were synchronised
//   steps            the schedule's pair steps: P − 1 (linear), ⌈log2 P⌉ (log_p); 0 for P = 1
//   patience         the sync's N: a pair stops after N exchanges in a row bring no smaller
//                    round trip (sync_config::patience)
//   exchanges        timestamp exchanges of all pairs together in one sync (the lower median
//                    over the repetitions: always one sync's actual count)
//   estimated_error  the largest error bound any rank's offset had (`sync_result::max_error`),
//                    the largest over the repetitions, in seconds
//   true_error       (skew "decorator" only) the largest true error of any rank's offset, over
//                    the repetitions, in seconds: |global time − rank 0's skewed clock at the
//                    same true instant|, taken at each rank's reference point (when its offset
//                    was measured) — the instant `estimated_error` bounds, so the two compare.
//                    Later the error grows by the drift since (global_clock's `error_bound`);
//                    that growth is the clocks', not the sync's.
//   reduction        "max_over_ranks": a sample is the slowest rank's time; "rank_0": rank 0's
//                    own time, the one the seed reports (each scheme has one record of each)
//   order            "round_robin": how the schemes' syncs were interleaved
// and samples = the sync's time in seconds, one per repetition (iterations 1, stop "fixed", no
// overheads: a sync is one operation, timed by the sync itself). Other ranks return an empty
// set. Every param but `scheme` and `nodes` says how the point came out rather than which point
// it is.
//
// Messages. The sync's own (sync.hpp: its tag `sync_config::tag`, one barrier and two
// allreduces per sync); with the decorator also one broadcast of rank 0's skew mapping before
// the first sync and one allreduce of the true errors after the last (both outside any sync's
// time). Deliberately not here: the drift estimate and resync policy of `global_clock` (two syncs
// over a long baseline; a benchmark of hours, not of a suite run).
#pragma once

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_CLOCK_SYNC

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/kernels/rtt.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>
#include <comet/timing/global_clock.hpp>
#include <comet/timing/measure.hpp>
#include <comet/timing/sync.hpp>
#include <comet/transport/decorators/skewed_clock.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet::kernels {

/// Configuration of `clock_sync`. All ranks pass the same values (@pre).
struct clock_sync_config {
    /// The schemes timed, one record each, in this order.
    std::vector<comet::sync_scheme> schemes = {sync_scheme::linear, sync_scheme::log_p};
    /// Syncs per scheme; each one is a sample. Five: a sync of 128 nodes by the linear scheme
    /// takes seconds, and on the simulator every repetition is the same anyway.
    std::size_t repetitions = 5;
    /// How each sync runs (patience, warm-up, ...); its `scheme` is overwritten by each of
    /// `schemes` in turn.
    comet::sync_config sync = {};
    /// The `seeded_skew` seed of the clocks, when the kernel skews them.
    std::uint64_t seed = 42;
    /// The bounds of those skews: offsets within ±1 s, drifts within ±100 ppm by default.
    comet::skew_bounds skew = {};
    /// The rank that returns the records.
    int test_node = 0;
    /// The round-trip study run after the syncs (kernels/rtt.hpp: listing 4, figures 4-6); its
    /// `test_node` and `stop` are this config's.
    rtt_config rtt = {};
    /// Whether to run it (on groups of 2 ranks or more; the comet program does by default).
    bool round_trips = false;
    /// Called on the test node after each record is made (for progress displays).
    std::function<void(const record&)> on_point = {};
    /// Read on the test node before each repetition: once a stop is requested the kernel ends
    /// there, each scheme keeping the syncs it timed.
    std::stop_token stop = {};
};

namespace detail::clock_sync {

/// The round-trip study's configuration as the sync kernel runs it.
inline rtt_config round_trip_config(const clock_sync_config& cfg) {
    rtt_config c = cfg.rtt;
    c.test_node = cfg.test_node;
    c.stop = cfg.stop;
    return c;
}

/// Every check, before any message; the message names the value and the rank.
template <transport T>
void check(const T& t, const clock_sync_config& cfg) {
    const int me = t.rank(), p = t.size();
    if (cfg.schemes.empty()) raise<invalid_argument>(me, "sync: no scheme to time (schemes is empty)");
    for (sync_scheme s : cfg.schemes)
        if (s != sync_scheme::linear && s != sync_scheme::log_p)
            raise<invalid_argument>(me, "sync: scheme ", to_string(s), " is not a synchronisation scheme; ask for linear or log_p");
    if (cfg.repetitions == 0) raise<invalid_argument>(me, "sync: repetitions must be at least 1, got 0");
    if (cfg.test_node < 0 || cfg.test_node >= p)
        raise<invalid_argument>(me, "sync: test node ", cfg.test_node, " is outside 0..", p - 1);
    sync_config c = cfg.sync;
    c.scheme = cfg.schemes.front();
    comet::detail::check_sync_config(me, c);
    // The skew bounds too, on every transport: the same configuration fails alike whether or
    // not this transport's clock needs the decorator.
    (void)seeded_skew(cfg.seed, me, cfg.skew);
    if (cfg.round_trips && p >= 2) comet::kernels::detail::rtt::check(me, p, round_trip_config(cfg));
}

/// What one scheme's syncs gave on this rank.
struct measured {
    std::vector<double> durations;         ///< one per repetition (the same on every rank)
    std::vector<double> rank_0;            ///< rank 0's own time, one per repetition (the same on every rank)
    std::vector<std::size_t> disturbed;    ///< the repetitions during which a rank was disturbed
    std::vector<std::size_t> exchanges;    ///< one per repetition
    int steps = 0;
    double estimated_error = 0.0;          ///< largest max_error over the repetitions
    double true_error = 0.0;               ///< this rank's largest true error (decorator only)
};

/// Runs every scheme's syncs on `s` (the clocks synchronised), round-robin over the schemes.
/// `truth(g)` gives this rank's true error after the sync `g` made, or is not called at all.
template <transport S, class Truth>
std::vector<measured> run(S& s, const clock_sync_config& cfg, Truth&& truth) {
    std::vector<measured> out(cfg.schemes.size());
    for (auto& m : out) {
        m.durations.reserve(cfg.repetitions);
        m.exchanges.reserve(cfg.repetitions);
    }
    for (std::size_t rep = 0; rep < cfg.repetitions; ++rep) {
        // The test node's answer to a stop request reaches every rank before the repetition.
        std::array<unsigned char, 1> stop{static_cast<unsigned char>(s.rank() == cfg.test_node && cfg.stop.stop_requested())};
        ops::broadcast(s, cfg.test_node, std::as_writable_bytes(std::span(stop)));
        if (stop[0]) break;
        for (std::size_t i = 0; i < cfg.schemes.size(); ++i) {
            sync_config c = cfg.sync;
            c.scheme = cfg.schemes[i];
            // A fresh clock: a first sync each time (opens with a barrier, closes with the
            // reductions that make `duration` and `max_error` every rank's).
            const std::uint64_t before = ops::disturbances(s);
            const global_clock<S> g(s, c);
            // Whether any rank lost its CPU during the sync (core/concepts.hpp, counts_disturbances).
            std::array<double, 1> hit{ops::disturbances(s) != before ? 1.0 : 0.0};
            if constexpr (counts_disturbances<S>) ops::allreduce_max(s, std::span<double>(hit));
            const sync_result& r = g.last_sync();
            // Rank 0's own time, the one the seed's benchmark reported, on every rank.
            std::array<double, 1> zero{r.own_duration};
            ops::broadcast(s, 0, std::as_writable_bytes(std::span(zero)));
            measured& m = out[i];
            if (hit[0] != 0.0) m.disturbed.push_back(m.durations.size());
            m.durations.push_back(r.duration);
            m.rank_0.push_back(zero[0]);
            m.exchanges.push_back(r.exchanges);
            m.steps = r.steps;
            m.estimated_error = std::max(m.estimated_error, r.max_error);
            m.true_error = std::max(m.true_error, truth(g));
        }
    }
    return out;
}

/// The lower median: always one of the values (an actual sync's count, an integer); 0 for none.
COMET_DECL std::size_t lower_median(std::vector<std::size_t> v);

}  // namespace detail::clock_sync

/// Clock synchronisation as a benchmark (seed 002, section 3.2, figure 8; see the top of this
/// header): for each repetition and scheme, one group sync (`comet::sync_clocks`, through a
/// fresh `global_clock`), timed by the sync itself. When the transport's clock is global, the
/// clocks synchronised are the transport's skewed by `comet::skewed_clock` (seeded by `seed`,
/// within `skew`), and the true error is known; otherwise the transport's own.
///
/// Returns, on the test node, two records per scheme with params {scheme, nodes, skew, steps,
/// reduction} and values {exchanges, estimated_error[, true_error], order}, samples = the time
/// of one sync in seconds, one per repetition: the slowest rank's (reduction max_over_ranks)
/// and rank 0's (rank_0). Other ranks return an empty set.
/// One rank is a valid group (no step: its syncs take no time).
/// @pre every rank calls clock_sync with the same config.
/// @throws invalid_argument (on every rank, before any message, naming the rank and the value)
///         for no scheme or the scheme `none`, 0 repetitions, a test node outside the group, a
///         sync configuration `sync_clocks` refuses, or skew bounds `seeded_skew` refuses.
/// @code
///   auto r = comet::kernels::clock_sync(t, {.schemes = {comet::sync_scheme::log_p}, .repetitions = 3});
///   double took = comet::summarize(r.records.at(0).samples).median;   // on the test node
/// @endcode
template <transport T>
result_set clock_sync(T& t, const clock_sync_config& cfg = {}) {
    detail::clock_sync::check(t, cfg);
    const int me = t.rank();
    const bool skewed = ops::clock_is_global(t);
    std::vector<detail::clock_sync::measured> m;
    if (skewed) {
        skewed_clock<T> s(t, seeded_skew(cfg.seed, me, cfg.skew));
        // Rank 0's mapping on every rank: rank 0's skewed clock is the global time base, so its
        // reading at the true instant of a rank's reference is what that rank's global time
        // should have read (the decorator's header, "the true error").
        skew_mapping zero = s.mapping();
        ops::broadcast(t, 0, std::as_writable_bytes(std::span(&zero, 1)));
        m = detail::clock_sync::run(s, cfg, [&](const global_clock<skewed_clock<T>>& g) {
            // At the reference, where the sync's error bound holds (see the top of this header).
            const double local = g.reference();
            return std::fabs(g.global_time(local) - zero.local_time(s.true_time(local)));
        });
        // The largest over the ranks, once for every scheme (outside every sync's time).
        std::vector<double> worst(m.size());
        for (std::size_t i = 0; i < m.size(); ++i) worst[i] = m[i].true_error;
        ops::allreduce_max(t, std::span<double>(worst));
        for (std::size_t i = 0; i < m.size(); ++i) m[i].true_error = worst[i];
    } else {
        m = detail::clock_sync::run(t, cfg, [](const global_clock<T>&) { return 0.0; });
    }

    result_set out;
    for (std::size_t i = 0; i < m.size() && me == cfg.test_node; ++i)
        for (const bool slowest : {true, false}) {
            record rec{"sync", params{}, {}};
            rec.params.set("scheme", std::string(to_string(cfg.schemes[i]))).set("nodes", t.size());
            rec.params.set("skew", skewed ? "decorator" : "none").set("steps", m[i].steps).set("patience", cfg.sync.patience);
            rec.params.set("reduction", slowest ? std::string(to_string(sample_reduction::max_over_ranks)) : std::string("rank_0"));
            rec.values.set("exchanges", detail::clock_sync::lower_median(m[i].exchanges));
            rec.values.set("estimated_error", m[i].estimated_error);
            if (skewed) rec.values.set("true_error", m[i].true_error);
            rec.values.set("order", std::string(to_string(interleave::round_robin)));
            rec.samples = slowest ? m[i].durations : m[i].rank_0;
            for (std::size_t k : m[i].disturbed) mark_invalid(rec, k, "preempted");
            rec.iterations = 1;
            // Fewer syncs than asked for: a stop request ended the kernel (run, above).
            rec.stop = std::string(to_string(rec.samples.size() < cfg.repetitions ? stop_reason::interrupted : stop_reason::fixed));
            if (cfg.on_point) cfg.on_point(rec);
            out.records.push_back(std::move(rec));
        }
    if (cfg.round_trips && t.size() >= 2) {
        result_set trips = rtt_study(t, detail::clock_sync::round_trip_config(cfg));
        for (const record& rec : trips.records)
            if (cfg.on_point) cfg.on_point(rec);
        out.append(trips);
    }
    return out;
}

}  // namespace comet::kernels

#if !defined(COMET_COMPILED)
#include <comet/kernels/clock_sync.ipp>
#endif
