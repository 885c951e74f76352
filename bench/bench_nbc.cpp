// bench_nbc — the schedule engine (nbc/engine.hpp) on the threads transport next to the
// transport's own blocking collective, measured in the same run and printed as ratios:
//
//   iallreduce of 8 doubles on 2 ranks, started and waited for at once (a persistent schedule:
//   recursive doubling, one exchange), against the threads transport's allreduce_sum of the same
//   8 doubles (its shared-memory collective). Target: at most 1.5 times.
//   The same iallreduce started by the one-shot call (a schedule built per call), for
//   information: what building costs.
//   ibroadcast of 1 MiB on 2 ranks (one message) against the transport's broadcast, for
//   information.
//
// Each trial times `reps` operations back to back on rank 0 (between barriers), the engine and
// the baseline alternating trial by trial, so that the machine's states (which core each rank
// has, whether a rank must be woken) land on both alike; the ratio is the median of the
// per-trial ratios. Run it on an otherwise idle machine, built with optimisation.
#include <comet/nbc/engine.hpp>
#include <comet/ops/ops.hpp>
#include <comet/transport/threads.hpp>

#include "same_run.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace {

using transport = comet::threads::transport;

struct row {
    const char* name;
    double baseline, engine, ratio, target;  // target 0: for information
};

/// Alternates baseline and engine `trials` times on 2 ranks; medians and the median ratio.
row compare(const char* name, int trials, int reps, double target,
            const std::function<std::function<void()>(transport&)>& baseline,
            const std::function<std::function<void()>(transport&)>& engine) {
    const auto per_rank = comet::threads::run(2, [&](transport& t) {
        const std::function<void()> b = baseline(t), e = engine(t);
        b();  // warm both paths (first-touch of buffers, the transport's channels)
        e();
        std::vector<double> bs, es, rs;
        for (int i = 0; i < trials; ++i) {
            bs.push_back(bench::per_operation(t, reps, b));
            es.push_back(bench::per_operation(t, reps, e));
            rs.push_back(es.back() / bs.back());
        }
        return row{name, bench::median(bs), bench::median(es), bench::median(rs), target};
    });
    return per_rank[0];
}

void print(const row& r) {
    std::printf("  %-44s %12.3f %12.3f %8.2f   ", r.name, r.baseline * 1e6, r.engine * 1e6, r.ratio);
    if (r.target > 0)
        std::printf("<= %.1f  %s\n", r.target, r.ratio <= r.target ? "ok" : "MISSED");
    else
        std::printf("(information)\n");
}

}  // namespace

int main() {
    constexpr int trials = 31, reps = 2000;
    std::printf("bench_nbc: the schedule engine against the threads transport's own collectives, 2 ranks, %d trials of %d operations\n",
                trials, reps);
    std::printf("  %-44s %12s %12s %8s   %s\n", "operation", "baseline[us]", "engine[us]", "ratio", "target");

    // One vector per rank: the benchmark's closures keep it alive for the whole run.
    const auto values = [](transport&) { return std::make_shared<std::vector<double>>(8, 1.0); };
    const auto allreduce_sum = [&](transport& t) -> std::function<void()> {
        auto v = values(t);
        return [&t, v] { comet::ops::allreduce_sum(t, std::span<double>(*v)); };
    };
    print(compare(
        "iallreduce 8 doubles (persistent) / allreduce_sum", trials, reps, 1.5, allreduce_sum,
        [&](transport& t) -> std::function<void()> {
            auto v = values(t);
            auto e = std::make_shared<comet::nbc::engine<transport>>(t);
            auto plan = std::make_shared<comet::nbc::schedule>(comet::nbc::allreduce_schedule(t.rank(), t.size(), *v, comet::nbc::reduce_op::sum));
            return [v, e, plan] {
                auto r = e->start(*plan);
                e->wait(r);
            };
        }));
    print(compare(
        "iallreduce 8 doubles (one-shot) / allreduce_sum", trials, reps, 0, allreduce_sum,
        [&](transport& t) -> std::function<void()> {
            auto v = values(t);
            auto e = std::make_shared<comet::nbc::engine<transport>>(t);
            return [v, e] {
                auto r = e->iallreduce(*v);
                e->wait(r);
            };
        }));
    const auto mebibyte = [](transport&) { return std::make_shared<std::vector<std::byte>>(std::size_t{1} << 20); };
    print(compare(
        "ibroadcast 1 MiB (persistent) / broadcast", 11, 50, 0,
        [&](transport& t) -> std::function<void()> {
            auto d = mebibyte(t);
            return [&t, d] { comet::ops::broadcast(t, 0, *d); };
        },
        [&](transport& t) -> std::function<void()> {
            auto d = mebibyte(t);
            auto e = std::make_shared<comet::nbc::engine<transport>>(t);
            auto plan = std::make_shared<comet::nbc::schedule>(comet::nbc::broadcast_schedule(t.rank(), t.size(), 0, *d));
            return [d, e, plan] {
                auto r = e->start(*plan);
                e->wait(r);
            };
        }));
    return 0;
}
