// bench_tracing — what the tracing decorator (transport/decorators/tracing.hpp) adds to each
// event it records, on the threads transport, against the same loop on the bare transport in
// the same run:
//
//   messages to oneself on 1 rank: isend + irecv + wait + wait of 8 bytes, two traced events
//   (a send, a receive) per iteration — the cost without a second rank's noise. Target: the
//   difference per traced event under 100 ns.
//   8-byte ping-pong on 2 ranks (send + recv on each side: two traced events per rank per
//   round trip), for information: the cost as an application sees it.
//   compute calls of no work on 1 rank (one traced event each), for information.
//
// Trials of the bare and the traced loop alternate, so that the machine's state lands on both
// alike; each figure is the median over trials. Every trace is reserved for all its events up
// front (growing it would be a cost of the benchmark, not of tracing). Run it built with
// optimisation on an otherwise idle machine.
#include <comet/ops/ops.hpp>
#include <comet/transport/decorators/tracing.hpp>
#include <comet/transport/threads.hpp>

#include "same_run.hpp"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <vector>

namespace {

using transport = comet::threads::transport;
using traced = comet::tracing<transport>;

constexpr int trials = 31;

struct row {
    const char* name;
    double bare, traced, per_event_ns, target_ns;  // target 0: for information
};

/// Median seconds per iteration of `loop(t)` on the bare and the traced transport, and the
/// difference per traced event.
template <class Loop>
row compare(const char* name, int ranks, int reps, int events_per_iteration, double target_ns, Loop loop) {
    const auto per_rank = comet::threads::run(ranks, [&](transport& t) {
        traced tr(t, static_cast<std::size_t>(reps) * (trials + 1) * 2);
        loop(t, 100);  // warm both
        loop(tr, 100);
        std::vector<double> bs, ts, ds;
        for (int i = 0; i < trials; ++i) {
            bs.push_back(bench::per_operation(t, 1, [&] { loop(t, reps); }) / reps);
            ts.push_back(bench::per_operation(t, 1, [&] { loop(tr, reps); }) / reps);
            ds.push_back((ts.back() - bs.back()) / events_per_iteration);
        }
        return row{name, bench::median(bs), bench::median(ts), bench::median(ds) * 1e9, target_ns};
    });
    return per_rank[0];
}

void print(const row& r) {
    std::printf("  %-40s %10.1f %10.1f %10.1f   ", r.name, r.bare * 1e9, r.traced * 1e9, r.per_event_ns);
    if (r.target_ns > 0)
        std::printf("< %.0f  %s\n", r.target_ns, r.per_event_ns < r.target_ns ? "ok" : "MISSED");
    else
        std::printf("(information)\n");
}

}  // namespace

int main() {
    std::printf("bench_tracing: the tracing decorator against the bare threads transport, %d trials (medians)\n", trials);
    std::printf("  %-40s %10s %10s %10s   %s\n", "loop", "bare[ns]", "traced[ns]", "ns/event", "target");
    print(compare("8 B to oneself (isend+irecv+2 waits)", 1, 20000, 2, 100.0, [](auto& t, int reps) {
        std::uint64_t out = 7, in = 0;
        for (int i = 0; i < reps; ++i) {
            auto r = t.irecv(0, 3, std::as_writable_bytes(std::span(&in, 1)));
            auto s = t.isend(0, 3, std::as_bytes(std::span(&out, 1)));
            comet::ops::wait(t, s);
            comet::ops::wait(t, r);
        }
    }));
    print(compare("8 B ping-pong, 2 ranks (per round trip)", 2, 5000, 2, 0.0, [](auto& t, int reps) {
        std::uint64_t x = 7;
        const int peer = 1 - t.rank();
        for (int i = 0; i < reps; ++i) {
            if (t.rank() == 0) {
                comet::ops::send(t, peer, 3, std::as_bytes(std::span(&x, 1)));
                comet::ops::recv(t, peer, 3, std::as_writable_bytes(std::span(&x, 1)));
            } else {
                comet::ops::recv(t, peer, 3, std::as_writable_bytes(std::span(&x, 1)));
                comet::ops::send(t, peer, 3, std::as_bytes(std::span(&x, 1)));
            }
        }
    }));
    print(compare("compute of no work", 1, 20000, 1, 0.0, [](auto& t, int reps) {
        for (int i = 0; i < reps; ++i) comet::ops::compute(t, comet::work::flops(0));
    }));
    return 0;
}
