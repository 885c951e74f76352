// bench_sync — clock synchronisation (comet/timing/sync.hpp, global_clock.hpp) beside its
// targets and SPEC 11 ("clock sync O(log P) vs linear speed-up as in
// the paper"), every clock skewed by comet::skewed_clock (offsets up to ±1 s, drifts up to
// ±100 ppm) so that there is something to synchronise and the true error is known:
//
//   1. a sync of 8 threads ranks, each scheme: host time (target < 50 ms), the sync's own
//      time, and the largest TRUE error of any rank's global time right after it (the
//      threads transport's steady clock is the truth); medians and extremes over 21 syncs;
//   2. a log-P sync of 4096 simulated iPSC/860 nodes: host time of the whole run and of a run
//      that only starts the ranks (target < 10 s for the sync);
//   3. virtual sync time, linear vs log-P, on 2 .. 1024 simulated nodes (the seed's figure 8:
//      "a factor of more than 16 for 128 processes").
//
// Threads results depend on the machine (the round trips between two threads, and how lopsided
// they are when the 8 ranks outnumber the cores); virtual times do not.
#include <comet/timing/global_clock.hpp>
#include <comet/transport/decorators/skewed_clock.hpp>
#include <comet/transport/nx2.hpp>
#include <comet/transport/threads.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;
using comet::sync_scheme;

double seconds_since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

const char* verdict(bool ok) { return ok ? "ok" : "MISSED"; }

struct threads_sync {
    double host = 0;       ///< host seconds rank 0 spent constructing the global clock
    double sync_time = 0;  ///< what the sync measured
    double error = 0;      ///< largest |true error| over the ranks
    double exchanges = 0;
};

/// One sync of `p` threads ranks with skews from `seed`.
threads_sync sync_threads(int p, sync_scheme s, std::uint64_t seed) {
    std::vector<double> errors(static_cast<std::size_t>(p));
    threads_sync out;
    comet::threads::run(p, [&](comet::threads::transport& inner) {
        comet::skewed_clock t(inner, comet::seeded_skew(seed, inner.rank()));
        comet::skew_mapping zero = t.mapping();
        comet::ops::broadcast(inner, 0, std::as_writable_bytes(std::span(&zero, 1)));
        comet::ops::barrier(inner);
        const auto t0 = clock_type::now();
        comet::global_clock g(t, {.scheme = s});
        const double host = seconds_since(t0);
        const double local = t.now();
        errors[static_cast<std::size_t>(t.rank())] = std::fabs(g.global_time(local) - zero.local_time(t.true_time(local)));
        if (t.rank() == 0) out = {host, g.sync_time(), 0.0, static_cast<double>(g.exchanges())};
    });
    out.error = *std::max_element(errors.begin(), errors.end());
    return out;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// Virtual seconds a sync of `nodes` simulated nodes takes.
double virtual_sync(int nodes, sync_scheme s) {
    const int dimension = static_cast<int>(std::ceil(std::log2(nodes)));
    const auto r = comet::nx2::run(
        comet::nx2::ipsc860(dimension),
        [&](comet::nx2::transport& inner) {
            comet::skewed_clock t(inner, comet::seeded_skew(3, inner.rank()));
            return comet::global_clock(t, {.scheme = s}).sync_time();
        },
        {.ranks = nodes, .stack_size = 64 * 1024});
    return r[0];
}

}  // namespace

int main() {
    std::printf("clock synchronisation, clocks skewed by up to 1 s and 100 ppm\n\n");

    std::printf("1. 8 threads ranks (%u hardware threads), 21 syncs per scheme\n", std::thread::hardware_concurrency());
    std::printf("   %-7s %22s %22s %28s %10s\n", "scheme", "host ms (med/max)", "sync ms (med/max)", "true error us (med/min/max)",
                "exchanges");
    for (sync_scheme s : {sync_scheme::linear, sync_scheme::log_p}) {
        std::vector<double> host, sync, error, exchanges;
        for (std::uint64_t seed = 1; seed <= 21; ++seed) {
            const threads_sync x = sync_threads(8, s, seed);
            host.push_back(x.host * 1e3);
            sync.push_back(x.sync_time * 1e3);
            error.push_back(x.error * 1e6);
            exchanges.push_back(x.exchanges);
        }
        const double worst_host = *std::max_element(host.begin(), host.end());
        std::printf("   %-7s %11.2f / %7.2f %11.2f / %7.2f %10.3f / %6.3f / %6.3f %10.0f   target < 50 ms: %s\n",
                    comet::to_string(s).data(), median(host), worst_host, median(sync), *std::max_element(sync.begin(), sync.end()),
                    median(error), *std::min_element(error.begin(), error.end()), *std::max_element(error.begin(), error.end()),
                    median(exchanges), verdict(median(host) < 50.0));
    }

    std::printf("\n2. log-P sync of 4096 simulated nodes (host time, one core)\n");
    {
        auto t0 = clock_type::now();
        comet::nx2::run(
            comet::nx2::ipsc860(12), [](comet::nx2::transport& inner) { comet::skewed_clock t(inner, comet::seeded_skew(3, inner.rank())); },
            {.stack_size = 64 * 1024});
        const double start_only = seconds_since(t0);
        t0 = clock_type::now();
        const double v = virtual_sync(4096, sync_scheme::log_p);
        const double with_sync = seconds_since(t0);
        std::printf("   run with the sync %.3f s, run without it %.3f s: the sync %.3f s of host time   target < 10 s: %s\n"
                    "   (virtual sync time %.3f ms)\n",
                    with_sync, start_only, with_sync - start_only, verdict(with_sync - start_only < 10.0), v * 1e3);
    }

    std::printf("\n3. virtual sync time on the simulated iPSC/860 (the seed's figure 8)\n");
    std::printf("   %6s %14s %14s %9s\n", "nodes", "linear ms", "log_p ms", "speed-up");
    for (int nodes = 2; nodes <= 1024; nodes *= 2) {
        const double linear = virtual_sync(nodes, sync_scheme::linear);
        const double log_p = virtual_sync(nodes, sync_scheme::log_p);
        std::printf("   %6d %14.3f %14.3f %9.2f\n", nodes, linear * 1e3, log_p * 1e3, linear / log_p);
    }
    return 0;
}
