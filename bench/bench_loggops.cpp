// bench_loggops — the LogGOPS machine's scale and speed in host time (docs/loggops.md), beside
// its targets (one core, an optimised build, an otherwise idle machine):
//
//   1. a machine fitted in this run: Netgauge's round trips on the simulated iPSC/860's two
//      nodes (deterministic, so the machine is the same on every host), fitted by fit_machine;
//   2. an allreduce of one double and a barrier on 1,048,576 ranks of it, each in a child
//      process: host seconds and peak memory against the targets, 10 minutes and 16 GiB; and
//      the allreduce again on a 3-D torus and on a 16-ary fat tree of those ranks
//      (loggops/topology.hpp: every message's route through the links);
//   3. small messages per second of host time: two ranks bouncing 8-byte messages on the
//      LogGOPS machine, beside the same on the simulated iPSC/860 in this run (the ratio), and
//      beside the target of 10 million.
//
// Virtual times do not depend on any of this; only how long the host takes to compute them.
// `bench_loggops RANKS` runs the scale figures on RANKS ranks instead (a quick look).
#include <comet/analysis/fit_machine.hpp>
#include <comet/kernels/loggp.hpp>
#include <comet/ops/ops.hpp>
#include <comet/transport/loggops.hpp>
#include <comet/transport/nx2.hpp>

#include "child.hpp"
#include "ping_pong.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

/// Messages per second of host time: `round_trips` 8-byte ping-pongs between two ranks.
template <class Run>
double small_messages_per_second(std::size_t round_trips, Run run) {
    const auto t0 = clock_type::now();
    const std::uint64_t messages = run([&](auto& t) { bench::ping_pong(t, round_trips); });
    return static_cast<double>(messages) / std::chrono::duration<double>(clock_type::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
    if (ranks < 2 || ranks > comet::loggops::max_nodes) {
        std::fprintf(stderr, "bench_loggops: %s ranks: give 2..%d\n", argv[1], comet::loggops::max_nodes);
        return 2;
    }
    comet::kernels::loggp_config c;
    c.transfer.sizes = {0, 16, 32, 64, 96, 100, 128, 256, 1024};
    c.transfer.sampling = comet::fixed_sampling(3, 10);
    const auto measured = comet::nx2::run(comet::nx2::ipsc860(1), [&](comet::nx2::transport& t) { return comet::kernels::loggp(t, c); });
    comet::loggops::machine m = comet::fit_machine(measured[0].records).machine;
    m.nodes = ranks;
    std::printf("machine fitted to the simulated iPSC/860's two nodes: %s\n\n", comet::loggops::describe(m).c_str());

    const auto collective = [&](bool barrier, const char* topology) {
        comet::loggops::machine on = m;
        on.network = comet::loggops::parse_shape(topology);
        return bench::in_child([&] {
            comet::loggops::run_statistics st;
            comet::loggops::run(
                on,
                [&](comet::loggops::transport& t) {
                    if (barrier) {
                        comet::ops::barrier(t);
                    } else {
                        std::vector<double> v{1.0};
                        comet::ops::allreduce_sum(t, v);
                    }
                },
                {.stack_size = 32 * 1024, .statistics = &st});
            return comet::nx2::to_seconds(st.end_time);
        });
    };
    std::printf("on %d ranks (targets: 600 s of host time and 16384 MiB each)\n", ranks);
    struct run_of {
        bool barrier;
        const char* topology;
        const char* what;
    };
    for (const run_of& one : {run_of{false, "full", "allreduce of one double"}, run_of{true, "full", "barrier (dissemination)"},
                            run_of{false, "torus 3", "allreduce, 3-D torus"}, run_of{false, "fat_tree 16", "allreduce, 16-ary fat tree"}}) {
        const bench::child_result r = collective(one.barrier, one.topology);
        std::printf("  %-28s host %8.1f s (%5.1f%% of the target)  peak %8.0f MiB (%5.1f%%)  virtual %.3f us\n", one.what, r.seconds,
                    100 * r.seconds / 600, r.max_rss_mib, 100 * r.max_rss_mib / 16384, r.value * 1e6);
    }
    for (const char* topology : {"torus 3", "fat_tree 16"})
        std::printf("  (%s: %s)\n", topology, comet::loggops::links(comet::loggops::parse_shape(topology), ranks).describe().c_str());

    const std::size_t trips = 500'000;
    const double lg = small_messages_per_second(trips, [&](auto body) {
        comet::loggops::run_statistics st;
        comet::loggops::machine two = m;
        two.nodes = 2;
        comet::loggops::run(two, [&](comet::loggops::transport& t) { body(t); }, {.statistics = &st});
        return st.total().messages_sent;
    });
    const double nx = small_messages_per_second(trips, [&](auto body) {
        comet::nx2::run_statistics st;
        comet::nx2::run(comet::nx2::ipsc860(1), [&](comet::nx2::transport& t) { body(t); }, {.statistics = &st});
        return st.total().messages_sent;
    });
    std::printf("\nsmall messages per second of host time (ping-pong, 8 bytes, %zu round trips)\n", trips);
    std::printf("  LogGOPS machine      %6.2f M/s (%.2f of the 10 M/s target)\n", lg / 1e6, lg / 1e7);
    std::printf("  simulated iPSC/860   %6.2f M/s (LogGOPS / iPSC/860: %.2f)\n", nx / 1e6, lg / nx);
}
