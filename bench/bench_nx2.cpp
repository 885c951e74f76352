// bench_nx2 — the simulated iPSC/860's speed in host time, beside its speed targets (SPEC 11)
// (one core, an optimised build, an otherwise idle machine):
//
//   1. simulated small messages per second of host time: two ranks bouncing 8-byte messages
//      (every message is a system call, a copy, a trip through the network and an interrupt);
//   2. the time of echo + pairwise exchange over every hop distance (1..7) and the default
//      sizes (0..8192 bytes), max_times 1000, on 128 nodes — the thesis' suite on the largest
//      real iPSC/860;
//   3. a global sum (gdsum of one double) on 4096 simulated ranks: time and peak memory,
//      measured in a child process so the other runs do not count;
//   4. ten barriers on 65,536 simulated ranks (the scale the simulator is meant for), likewise, and from its memory
//      per rank the largest cube that would fit in 16 GiB.
//
// Virtual times do not depend on any of this; only how long the host takes to compute them.
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/transport/nx2.hpp>

#include "child.hpp"
#include "ping_pong.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

/// Messages per second of host time: `round_trips` 8-byte ping-pongs between two neighbours.
double small_messages_per_second(std::size_t round_trips, double& virtual_seconds) {
    const auto t0 = clock_type::now();
    comet::nx2::run_statistics stats;
    comet::nx2::run(
        comet::nx2::ipsc860(1),
        [&](comet::nx2::transport& t) { bench::ping_pong(t, round_trips); }, {.statistics = &stats});
    const double host = seconds_since(t0);
    virtual_seconds = comet::nx2::to_seconds(stats.end_time);
    return static_cast<double>(stats.total().messages_sent) / host;
}

/// Host seconds for echo + pairwise on 128 nodes, every hop and the default sizes.
double suite_on_128(std::uint64_t& messages) {
    const auto t0 = clock_type::now();
    comet::nx2::run_statistics stats;
    comet::nx2::run(
        comet::nx2::ipsc860(7),
        [](comet::nx2::transport& t) {
            comet::result_set r = comet::kernels::echo(t, {.sampling = comet::fixed_sampling(3, 1000)});
            r.append(comet::kernels::pairwise(t, {.sampling = comet::fixed_sampling(3, 1000)}));
            return r;
        },
        {.statistics = &stats});
    messages = stats.total().messages_sent;
    return seconds_since(t0);
}

/// gdsum of one double on 4096 ranks: the sum every rank gets.
double global_sum_4096() {
    const auto sums = comet::nx2::run(
        comet::nx2::ipsc860(12),
        [](comet::nx2::transport& t) {
            std::vector<double> v{1.0};
            t.allreduce_sum(v);
            return v[0];
        },
        {.stack_size = 64 * 1024});
    return sums.back();
}

/// Ten barriers on 2^16 ranks, with the default stack: the virtual seconds they took.
double barriers_on_65536() {
    const auto ends = comet::nx2::run(comet::nx2::ipsc860(16), [](comet::nx2::transport& t) {
        for (int i = 0; i < 10; ++i) t.barrier();
        return t.now();
    });
    return ends.back();
}

const char* verdict(bool ok) { return ok ? "ok" : "MISSED"; }

}  // namespace

int main() {
    std::printf("simulated iPSC/860 (comet::nx2), host time on one core\n\n");

    double vsec = 0;
    small_messages_per_second(20000, vsec);  // warm up
    const double rate = small_messages_per_second(1'000'000, vsec);
    std::printf("  %-58s %14.0f   target >= 1000000  %s\n", "small messages per second (8-byte ping-pong)", rate,
                verdict(rate >= 1e6));
    std::printf("  %-58s %14.3f\n", "  (virtual seconds those 2000000 messages took)", vsec);

    const bench::child_result g = bench::in_child(global_sum_4096);
    std::printf("  %-58s %14.3f   target <= 10 s     %s\n", "gdsum on 4096 ranks: seconds", g.seconds, verdict(g.seconds <= 10));
    std::printf("  %-58s %14.1f   target < 1024 MiB  %s\n", "gdsum on 4096 ranks: peak memory [MiB]", g.max_rss_mib,
                verdict(g.max_rss_mib < 1024));
    if (g.value != 4096.0) std::printf("  gdsum gave %g, not 4096\n", g.value);

    const bench::child_result b = bench::in_child(barriers_on_65536);
    std::printf("  %-58s %14.3f   target <= 60 s     %s\n", "10 barriers on 65536 ranks: seconds", b.seconds, verdict(b.seconds <= 60));
    std::printf("  %-58s %14.1f   target <= 4096 MiB %s\n", "10 barriers on 65536 ranks: peak memory [MiB]", b.max_rss_mib,
                verdict(b.max_rss_mib <= 4096));
    std::printf("  %-58s %14.3f\n", "  (virtual seconds they took)", b.value);
    if (b.max_rss_mib > 0) {
        // The same run on a larger cube holds about as much per rank; its time grows with the
        // ranks and the barrier's log2 P steps.
        const double per_rank = b.max_rss_mib / 65536.0;
        int d = 16;
        while (d < 20 && per_rank * static_cast<double>(1ull << (d + 1)) <= 16 * 1024.0) ++d;
        const double scale = static_cast<double>(1ull << d) / 65536.0 * d / 16.0;
        std::printf("  %-58s %14d   (estimated from %.1f KiB per rank)\n", "largest cube in 16 GiB (machine limit 20): dimension", d, per_rank * 1024);
        std::printf("  %-58s %14.1f   (estimated: %.1f x the 65536-rank time)\n", "  its 10 barriers: seconds", b.seconds * scale, scale);
    }

    std::uint64_t messages = 0;
    const double suite = suite_on_128(messages);
    std::printf("  %-58s %14.3f   target <= 10 s     %s\n", "echo + pairwise, hops 1..7, 30 sizes, 128 nodes: seconds", suite,
                verdict(suite <= 10));
    std::printf("  %-58s %14llu\n", "  (messages simulated)", static_cast<unsigned long long>(messages));
    return 0;
}
