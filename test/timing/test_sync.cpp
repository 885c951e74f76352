// Tests of comet/timing/sync.hpp and comet/timing/global_clock.hpp on the threads transport, real
// threads and real time, every rank's clock skewed by comet::skewed_clock (offsets up to ±1 s,
// drifts up to ±100 ppm): the truth is known, so each rank states its global clock's TRUE
// error right after the sync.
//
// What no machine load can break is asserted every time: every rank's true error is within the
// clock's own error bound, all ranks agree on what the sync did, the schedules take the steps
// they should for any P, the stopping rule and the cap hold, a global clock costs nothing, bad
// input is refused on every rank. How close the sync gets is a property of the machine (the
// round trips between two threads, and how lopsided they are when there are more threads than
// cores), so the 2 µs target at P = 8 asks for one sync in a few that gets there, judged on
// the syncs the machine left alone (each rank's own bound under 20 µs: no rank kept waiting
// milliseconds for a core by another program), and is left to the optimised build: under the
// sanitisers every message takes far longer.
#include <comet/timing/global_clock.hpp>
#include <comet/timing/sync.hpp>
#include <comet/transport/adaptor.hpp>
#include <comet/transport/decorators/skewed_clock.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace test_sync_detail {

using threads_t = comet::threads::transport;
using skewed = comet::skewed_clock<threads_t>;
using comet::sync_scheme;

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif

/// What one rank saw right after a sync.
struct rank_view {
    double error = 0.0;      ///< its global time minus rank 0's true clock, at one instant
    double bound = 0.0;      ///< the clock's own error bound at that instant
    double estimated = 0.0;  ///< estimated_error()
    double offset = 0.0;
    // What every rank must agree on:
    sync_scheme scheme = sync_scheme::none;
    double sync_time = 0.0, max_error = 0.0;
    std::size_t exchanges = 0;
    int steps = -1;
};

/// Rank 0's skew mapping, on every rank (sent over the inner transport, before any sync).
inline comet::skew_mapping rank_0_mapping(threads_t& inner, const skewed& t) {
    comet::skew_mapping m = t.mapping();
    comet::ops::broadcast(inner, 0, std::as_writable_bytes(std::span(&m, 1)));
    return m;
}

/// This rank's global time minus rank 0's true clock at the instant this rank's clock read `local`.
template <class Clock>
double true_error(const Clock& g, const skewed& t, const comet::skew_mapping& zero, double local) {
    return g.global_time(local) - zero.local_time(t.true_time(local));
}

template <class Clock>
rank_view view_of(Clock& g, const skewed& t, const comet::skew_mapping& zero, double local) {
    return {.error = true_error(g, t, zero, local),
            .bound = g.error_bound_at(local),
            .estimated = g.estimated_error(),
            .offset = g.offset(),
            .scheme = g.scheme(),
            .sync_time = g.sync_time(),
            .max_error = g.max_estimated_error(),
            .exchanges = g.exchanges(),
            .steps = g.steps()};
}

/// A sync of `p` threads ranks, each skewed by `seed` (±1 s, ±100 ppm); what each saw.
inline std::vector<rank_view> sync_skewed(int p, const comet::sync_config& cfg, std::uint64_t seed) {
    return comet::threads::run(p, [&](threads_t& inner) {
        skewed t(inner, comet::seeded_skew(seed, inner.rank()));
        const comet::skew_mapping zero = rank_0_mapping(inner, t);
        comet::global_clock g(t, cfg);
        return view_of(g, t, zero, t.now());
    });
}

inline double largest_error(const std::vector<rank_view>& v) {
    double m = 0.0;
    for (const rank_view& r : v) m = std::max(m, std::fabs(r.error));
    return m;
}

/// ⌈log2 p⌉
inline int ceil_log2(int p) {
    int k = 0;
    while ((1 << k) < p) ++k;
    return k;
}

/// Checks what holds whatever the machine: every rank within its own bound, rank 0 exact,
/// all ranks agreeing, the schedule's step count, the exchange count within the stopping rule.
inline void check_sync(const std::vector<rank_view>& v, const comet::sync_config& cfg) {
    const int p = static_cast<int>(v.size());
    const std::size_t pairs = static_cast<std::size_t>(p - 1);
    BOOST_TEST_CONTEXT("P = " << p << ", " << comet::to_string(cfg.scheme)) {
        double largest_estimate = 0.0;
        for (int r = 0; r < p; ++r) {
            const rank_view& x = v[static_cast<std::size_t>(r)];
            BOOST_TEST_CONTEXT("rank " << r << ": true error " << x.error * 1e6 << " us, bound " << x.bound * 1e6 << " us") {
                BOOST_TEST(std::fabs(x.error) <= x.bound + 1e-9);  // 1 ns: the rounding of the readings
                BOOST_TEST(x.scheme == cfg.scheme);
                BOOST_TEST(x.steps == v[0].steps);
                BOOST_TEST(x.exchanges == v[0].exchanges);
                BOOST_TEST(x.sync_time == v[0].sync_time);
                BOOST_TEST(x.max_error == v[0].max_error);
            }
            largest_estimate = std::max(largest_estimate, x.estimated);
        }
        BOOST_TEST(std::fabs(v[0].error) < 1e-9);  // rank 0's clock is the time base
        BOOST_TEST(v[0].estimated == 0.0);
        BOOST_TEST(v[0].offset == 0.0);
        BOOST_TEST(v[0].max_error == largest_estimate);
        BOOST_TEST(v[0].steps == (cfg.scheme == sync_scheme::linear ? p - 1 : ceil_log2(p)));
        // Every pair: the warm-up, the first kept exchange, then at least N without a new minimum.
        BOOST_TEST(v[0].exchanges >= pairs * (cfg.warmup + 1 + cfg.patience));
        BOOST_TEST(v[0].exchanges <= pairs * cfg.max_exchanges);
        BOOST_TEST(v[0].sync_time >= 0.0);
        if (p > 1) BOOST_TEST(v[0].sync_time > 0.0);
    }
}

/// Counts every message and collective a transport is asked for (the threads transport's
/// native ones, and the point-to-point core the portable ones are built on).
template <comet::transport Inner>
struct counting : comet::transport_adaptor<Inner> {
    using base = comet::transport_adaptor<Inner>;
    using base::base;
    using request = typename base::request;
    std::size_t calls = 0;
    request isend(int d, int tag, comet::const_bytes b) {
        ++calls;
        return base::isend(d, tag, b);
    }
    request irecv(int s, int tag, comet::mutable_bytes b) {
        ++calls;
        return base::irecv(s, tag, b);
    }
    std::optional<comet::status> iprobe(int s, int tag) {
        ++calls;
        return base::iprobe(s, tag);
    }
    void send(int d, int tag, comet::const_bytes b) {
        ++calls;
        base::send(d, tag, b);
    }
    comet::status recv(int s, int tag, comet::mutable_bytes b) {
        ++calls;
        return base::recv(s, tag, b);
    }
    void barrier() {
        ++calls;
        base::barrier();
    }
    void broadcast(int root, comet::mutable_bytes b) {
        ++calls;
        base::broadcast(root, b);
    }
    void allreduce_sum(std::span<double> v) {
        ++calls;
        base::allreduce_sum(v);
    }
    comet::status sendrecv(int d, int st, comet::const_bytes out, int src, int rt, comet::mutable_bytes in) {
        ++calls;
        return base::sendrecv(d, st, out, src, rt, in);
    }
};

}  // namespace test_sync_detail

BOOST_TEST_DONT_PRINT_LOG_VALUE(comet::sync_scheme)

BOOST_AUTO_TEST_SUITE(clock_sync)

using namespace test_sync_detail;
using comet_test::mentions;

BOOST_AUTO_TEST_CASE(p8_every_rank_is_within_its_own_error_bound) {
    for (sync_scheme s : {sync_scheme::linear, sync_scheme::log_p})
        for (std::uint64_t seed : {1u, 2u, 3u}) {
            const comet::sync_config cfg{.scheme = s};
            const auto v = sync_skewed(8, cfg, seed);
            check_sync(v, cfg);
            BOOST_TEST_MESSAGE("P = 8, " << comet::to_string(s) << ", seed " << seed << ": largest true error "
                                         << largest_error(v) * 1e6 << " us, sync " << v[0].sync_time * 1e3 << " ms, "
                                         << v[0].exchanges << " exchanges");
        }
}

/// A sync the machine left alone: every rank's own bound, mostly half round trips, under
/// 20 µs. A sync whose ranks waited milliseconds for the cores (another program compiling,
/// another test running beside this one) is no evidence about the scheme either way, beyond
/// the bounds that check_sync holds it to.
constexpr double undisturbed = 20e-6;

BOOST_AUTO_TEST_CASE(p8_every_rank_near_the_truth) {
    if (sanitized) {
        BOOST_TEST_MESSAGE("skipped under a sanitiser: the target is the optimised build's");
        return;
    }
    for (sync_scheme s : {sync_scheme::linear, sync_scheme::log_p}) {
        // One of a few undisturbed syncs must get every rank there. With fewer cores than
        // ranks, log_p's pairs run side by side on too few cores: a rank that sleeps while it
        // waits is woken some 10 µs later than one that spins, the same way in every exchange
        // of a pair (on a 2-core VM the even ranks' way, whichever side pings), which no
        // ping-pong can see; half of it lands in the offset, within the bound. There the
        // target is 5 µs (bench/bench_sync.cpp prints what a machine gives).
        const bool crowded = s == sync_scheme::log_p && std::thread::hardware_concurrency() < 8;
        const double target = crowded ? 5e-6 : 2e-6;
        double best = std::numeric_limits<double>::infinity();
        int tries = 0, counted = 0;
        for (std::uint64_t seed = 1; seed <= 50 && best > target; ++seed, ++tries) {
            const comet::sync_config cfg{.scheme = s};
            const auto v = sync_skewed(8, cfg, seed);
            check_sync(v, cfg);
            if (v[0].max_error > undisturbed) continue;
            ++counted;
            best = std::min(best, largest_error(v));
        }
        BOOST_TEST_MESSAGE(comet::to_string(s) << ": every rank within " << best * 1e6 << " us, the best of " << counted
                                               << " undisturbed syncs of " << tries);
        if (counted == 0) {
            BOOST_TEST_MESSAGE(comet::to_string(s) << ": no undisturbed sync in " << tries << ": the machine is too busy to judge");
            continue;
        }
        BOOST_TEST(best <= target, comet::to_string(s) << ": the best of " << counted << " undisturbed syncs left a rank "
                                                        << best * 1e6 << " us off (target " << target * 1e6 << " us)");
    }
}

BOOST_AUTO_TEST_CASE(any_group_size_including_non_powers_of_two_and_one) {
    for (sync_scheme s : {sync_scheme::linear, sync_scheme::log_p})
        for (int p : {1, 2, 3, 5, 6, 7}) {
            const comet::sync_config cfg{.scheme = s, .patience = 30};
            const auto v = sync_skewed(p, cfg, static_cast<std::uint64_t>(p) * 10);
            check_sync(v, cfg);
        }
    // P = 1: nothing to do, nothing done.
    const auto one = sync_skewed(1, {}, 4);
    BOOST_TEST(one[0].exchanges == 0u);
    BOOST_TEST(one[0].steps == 0);
    BOOST_TEST(one[0].estimated == 0.0);
    BOOST_TEST(one[0].scheme == sync_scheme::log_p);
}

BOOST_AUTO_TEST_CASE(the_cap_and_the_patience_bound_each_pair) {
    // Patience beyond the cap: every pair makes exactly max_exchanges.
    const comet::sync_config capped{.scheme = sync_scheme::log_p, .patience = 1000, .max_exchanges = 12};
    const auto v = sync_skewed(5, capped, 9);
    BOOST_TEST(v[0].exchanges == 4u * 12u);
    for (const rank_view& x : v) BOOST_TEST(std::fabs(x.error) <= x.bound + 1e-9);
    // No warm-up, patience 1: at least two exchanges a pair.
    const comet::sync_config quick{.scheme = sync_scheme::linear, .patience = 1, .warmup = 0};
    const auto q = sync_skewed(3, quick, 9);
    BOOST_TEST(q[0].exchanges >= 4u);
    check_sync(q, quick);
}

BOOST_AUTO_TEST_CASE(a_global_clock_is_exact_and_sends_nothing) {
    struct seen {
        std::size_t calls = 1;
        double difference = 1.0, error = 1.0, sync_time = 1.0;
        sync_scheme scheme = sync_scheme::linear;
        bool resync = true;
        int syncs = -1;
        std::size_t exchanges = 1;
    };
    for (sync_scheme s : {sync_scheme::linear, sync_scheme::log_p}) {
        const auto r = comet::threads::run(4, [&](threads_t& inner) {
            counting<threads_t> t(inner);
            comet::global_clock g(t, {.scheme = s});
            seen x;
            const double before = t.now();
            const double global = g.now();
            const double after = t.now();
            x.difference = global < before || global > after ? 1.0 : 0.0;  // the transport's clock itself
            x.error = g.estimated_error() + g.error_bound() + g.max_estimated_error();
            x.resync = g.needs_resync(0.0);
            g.resync();
            x.sync_time = g.sync_time();
            x.scheme = g.scheme();
            x.syncs = g.syncs();
            x.exchanges = g.exchanges();
            x.calls = t.calls;
            return x;
        });
        for (const seen& x : r) {
            BOOST_TEST(x.calls == 0u);  // no message, no barrier, no reduction
            BOOST_TEST(x.difference == 0.0);
            BOOST_TEST(x.error == 0.0);
            BOOST_TEST(!x.resync);
            BOOST_TEST(x.sync_time == 0.0);
            BOOST_TEST(x.scheme == sync_scheme::none);
            BOOST_TEST(x.syncs == 0);
            BOOST_TEST(x.exchanges == 0u);
        }
    }
    // The same decorator on a skewed clock does send: the counter counts.
    const auto skewed_calls = comet::threads::run(2, [](threads_t& inner) {
        skewed st(inner, {.offset = 0.1});
        counting<skewed> t(st);
        comet::global_clock g(t);
        return t.calls;
    });
    BOOST_TEST(skewed_calls[0] > 100u);
}

BOOST_AUTO_TEST_CASE(two_syncs_estimate_the_drift) {
    // Two syncs 0.5 s apart: each rank's fitted drift against the decorators' true rates. The
    // true drifts are tens of ppm; the fit's own uncertainty is the two syncs' error bounds
    // over the baseline, and the fit must be within it. How much closer it comes depends on
    // how far the two syncs' offsets are off by different amounts: after undisturbed linear
    // syncs (two ranks awake at a time, round trips alike) typically within 10 ppm (reported).
    struct seen {
        double fitted = 0, truth = 0, uncertainty = 0, error_later = 0, bound_later = 0, max_error = 0;
        bool estimated = false;
        int syncs = 0;
    };
    for (sync_scheme s : {sync_scheme::linear, sync_scheme::log_p}) {
        const comet::sync_config cfg{.scheme = s};
        const auto r = comet::threads::run(4, [&](threads_t& inner) {
            skewed t(inner, comet::seeded_skew(21, inner.rank()));
            const comet::skew_mapping zero = rank_0_mapping(inner, t);
            comet::global_clock g(t, cfg);
            seen x;
            x.max_error = g.max_estimated_error();
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            g.resync();
            x.max_error = std::max(x.max_error, g.max_estimated_error());
            x.fitted = g.drift();
            x.truth = (1 + zero.skew.drift_ppm * 1e-6) / (1 + t.drift_ppm() * 1e-6) - 1;  // d(rank 0's clock)/d(mine) − 1
            x.uncertainty = g.drift_uncertainty();
            x.estimated = g.drift_estimated();
            x.syncs = g.syncs();
            // 0.2 s on, the fitted line (or, without one, the offset) still holds rank 0's time
            // within the clock's bound.
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            const double local = t.now();
            x.error_later = true_error(g, t, zero, local);
            x.bound_later = g.error_bound_at(local);
            return x;
        });
        for (std::size_t rank = 0; rank < r.size(); ++rank) {
            const seen& x = r[rank];
            BOOST_TEST_CONTEXT(comet::to_string(s) << ", rank " << rank << ": fitted " << x.fitted * 1e6 << " ppm, true "
                                                   << x.truth * 1e6 << " ppm, uncertainty " << x.uncertainty * 1e6
                                                   << " ppm, syncs off by up to " << x.max_error * 1e6 << " us") {
                BOOST_TEST(x.syncs == 2);
                BOOST_TEST(std::fabs(x.error_later) <= x.bound_later + 1e-9);
                if (x.estimated) {
                    BOOST_TEST(std::fabs(x.fitted - x.truth) <= x.uncertainty + 1e-12);
                    BOOST_TEST(x.uncertainty < cfg.assumed_drift);
                } else {  // two syncs too far off to say more than the prior bound
                    BOOST_TEST(x.fitted == 0.0);
                    BOOST_TEST(x.uncertainty == cfg.assumed_drift);
                }
                if (s == sync_scheme::linear && !sanitized && x.max_error <= undisturbed) {
                    BOOST_TEST(x.estimated);
                    // How close it comes is a quality, not a bound: two syncs off by up to 20 µs
                    // over 0.5 s allow 80 ppm; quiet ones come within 10 ppm, loaded ones (seen at
                    // 11-12 ppm beside two compilations) not always. Reported, not asserted.
                    if (std::fabs(x.fitted - x.truth) > 10e-6)
                        BOOST_TEST_MESSAGE("linear, rank " << rank << ": drift off by " << std::fabs(x.fitted - x.truth) * 1e6
                                                           << " ppm (10 on a quiet machine)");
                }
            }
        }
        BOOST_TEST(r[0].fitted == 0.0);
        BOOST_TEST(r[0].uncertainty == 0.0);
        BOOST_TEST(r[0].estimated);
        // The true drifts are tens of ppm: the test would notice a fit that ignored them.
        BOOST_TEST(std::fabs(r[1].truth) > 20e-6);
    }
}

BOOST_AUTO_TEST_CASE(needs_resync_follows_the_bound_and_every_rank_gets_the_same_answer) {
    // A question of the bounds now: each rank's bound is read just before and just after the
    // collective call, so the answer must be yes when some rank's bound had passed the limit
    // before it and no when every rank's was still within it after it. Between those the
    // answer depends on when each rank read its clock, and only its agreement is checked.
    struct asked {
        double limit = 0.0, before = 0.0, after = 0.0;
        bool answer = false;
    };
    struct seen {
        bool loose = true, tight = false;
        asked fresh, aged;
    };
    const auto r = comet::threads::run(4, [](threads_t& inner) {
        skewed t(inner, comet::seeded_skew(31, inner.rank()));
        comet::global_clock g(t, {.scheme = sync_scheme::log_p});
        const auto ask = [&g](double limit) {
            asked a{.limit = limit, .before = g.error_bound()};
            a.answer = g.needs_resync(limit);
            a.after = g.error_bound();
            return a;
        };
        seen x;
        x.loose = g.needs_resync(1.0);  // a second: not for hours at 200 ppm
        x.tight = g.needs_resync(0.0);  // every rank but 0 has an error
        // Just after the sync the worst bound is the worst estimate plus 200 ppm of the few ms
        // since the offsets were measured: within 50 µs unless the ranks waited 250 ms for a
        // core (a loaded machine), which the bounds read around the call show.
        x.fresh = ask(g.max_estimated_error() + 50e-6);
        // 300 ms later, 200 ppm of it has added 60 µs to every bound but rank 0's.
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        x.aged = ask(g.max_estimated_error() + 50e-6);
        return x;
    });
    const auto check = [&r](asked seen::*which, const char* name) {
        double before = 0.0, after = 0.0;
        for (const seen& x : r) {
            before = std::max(before, (x.*which).before);
            after = std::max(after, (x.*which).after);
            BOOST_TEST((x.*which).answer == (r[0].*which).answer, name << ": every rank gets rank 0's answer");
        }
        const asked& a = r[0].*which;
        BOOST_TEST_MESSAGE(name << ": limit " << a.limit * 1e6 << " us, worst bound " << before * 1e6 << " us before the call, "
                                << after * 1e6 << " after; answer " << a.answer);
        if (before > a.limit) BOOST_TEST(a.answer, name << ": a bound of " << before * 1e6 << " us had passed the limit");
        if (after <= a.limit) BOOST_TEST(!a.answer, name << ": every bound was within the limit after the call");
        return after <= a.limit;
    };
    for (const seen& x : r) {
        BOOST_TEST(!x.loose);
        BOOST_TEST(x.tight);
    }
    const bool fresh_within = check(&seen::fresh, "fresh");
    check(&seen::aged, "aged");
    // The aged question is decided by the bounds: 60 µs of growth against a 50 µs margin over
    // the largest estimate, on every rank whose estimate is the largest.
    BOOST_TEST(r[0].aged.answer);
    if (!fresh_within) BOOST_TEST_MESSAGE("fresh: the ranks waited long enough for a core that the question had no fixed answer");
}

BOOST_AUTO_TEST_CASE(clock_offset_between_two_ranks) {
    struct seen {
        comet::clock_offset_estimate e;
        double truth = 0;
    };
    const auto r = comet::threads::run(3, [](threads_t& inner) {
        skewed t(inner, comet::seeded_skew(41, inner.rank()));
        // Rank 2's mapping to rank 0, which measures.
        comet::skew_mapping two = t.mapping();
        comet::ops::broadcast(inner, 2, std::as_writable_bytes(std::span(&two, 1)));
        seen x;
        x.e = comet::clock_offset(t, 0, 2);
        // Rank 2's clock minus rank 0's at the middle of the exchange kept (on rank 0).
        x.truth = two.local_time(t.true_time(x.e.client_time)) - x.e.client_time;
        return x;
    });
    const auto& e = r[0].e;
    BOOST_TEST(r[2].e.client_time == e.client_time);  // both ends know the same estimate
    BOOST_TEST(r[2].e.server_time == e.server_time);
    BOOST_TEST(r[2].e.round_trip == e.round_trip);
    BOOST_TEST(r[2].e.exchanges == e.exchanges);
    BOOST_TEST(r[1].e.exchanges == 0u);  // not taking part
    BOOST_TEST(e.exchanges >= 103u);     // warm-up 2, then 1 + N = 100
    BOOST_TEST(e.round_trip > 0.0);
    BOOST_TEST(std::fabs(e.offset() - r[0].truth) <= e.error() + 1e-9, "offset " << e.offset() << ", truth " << r[0].truth
                                                                                    << ", error " << e.error());
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused_on_every_rank_naming_rank_and_value) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto refused_everywhere = [](auto&& body, std::initializer_list<const char*> words) {
        const auto said = comet::threads::run(3, [&](threads_t& inner) -> std::string {
            skewed t(inner, comet::seeded_skew(1, inner.rank()));
            try {
                body(t);
            } catch (const comet::invalid_argument& e) {
                return e.what();
            }
            return "nothing raised";
        });
        bool all = true;
        for (std::size_t rank = 0; rank < said.size(); ++rank) {
            const std::string with_rank = "rank " + std::to_string(rank) + ": ";
            all = all && mentions(std::runtime_error(said[rank]), {with_rank.c_str()}) &&
                  mentions(std::runtime_error(said[rank]), words);
        }
        return all;
    };
    const auto sync_with = [](comet::sync_config c) { return [c](skewed& t) { comet::global_clock g(t, c); }; };
    BOOST_TEST(refused_everywhere(sync_with({.patience = 0}), {"patience (N) must be at least 1, got 0"}));
    BOOST_TEST(refused_everywhere(sync_with({.max_exchanges = 2}), {"max_exchanges 2", "2 of warm-up"}));
    BOOST_TEST(refused_everywhere(sync_with({.scheme = sync_scheme::none}), {"scheme none", "linear or log_p"}));
    BOOST_TEST(refused_everywhere(sync_with({.assumed_drift = -1e-6}), {"assumed_drift -1e-06"}));
    BOOST_TEST(refused_everywhere(sync_with({.assumed_drift = nan}), {"assumed_drift nan"}));
    BOOST_TEST(refused_everywhere(sync_with({.tag = -1}), {"tag -1"}));
    BOOST_TEST(refused_everywhere(sync_with({.tag = 40000}), {"tag 40000"}));
    BOOST_TEST(refused_everywhere([](skewed& t) { comet::clock_offset(t, 1, 1); }, {"client 1 and server 1"}));
    BOOST_TEST(refused_everywhere([](skewed& t) { comet::clock_offset(t, 0, 3); }, {"server 3", "0..2"}));
    BOOST_TEST(refused_everywhere(
        [](skewed& t) {
            comet::global_clock g(t, {.patience = 5});
            g.needs_resync(-1e-6);
        },
        {"max_error -1e-06"}));
}

BOOST_AUTO_TEST_SUITE_END()
