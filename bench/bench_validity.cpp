// bench_validity — on a quiet machine, what the sampling engine's validity rules cost the
// figures it reports: comet's kernels (every sample started together from warm caches,
// invalid samples kept out, the mean over every iteration; window measurements whose late
// starts are dropped) against the same operations timed by a plain loop in the same run,
// trial by trial, printed as the median of the per-trial ratios (1.00: the rules change
// nothing a plain measurement would see). Also what a point made: valid / total.
//
//   echo 8 B and 64 KiB, one way      comet::kernels::echo (buffer same and clean) against a
//                                     ping-pong of the same buffers between two barriers
//   global sum of 1 double            comet::kernels::global_sum against allreduce in a loop
//   barrier (least)                   comet::kernels::barrier's minimum against the least of
//                                     several loops of barriers
//   64 KiB allreduce, window          the collectives kernel's window-based median (slowest
//                                     rank) against one allreduce right after a barrier
//
// The host may move the two cores between "near" and "far" while this runs; alternating the two
// measurements trial by trial puts both in the same states. Run it on an idle machine, built
// with optimisation.
#include "same_run.hpp"

#include <comet/kernels/collectives.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/kernels/windowed_collectives.hpp>
#include <comet/stats/validity.hpp>
#include <comet/transport/threads.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace {

using comet::threads::transport;

/// The median of comet's record `i` of what `kernel` returns on rank 0, and its valid / total.
struct figure {
    double seconds;
    std::size_t valid, total;
};

template <class Kernel>
std::vector<figure> comet_figures(Kernel&& kernel, comet::statistic s = comet::statistic::median) {
    const auto r = comet::threads::run(2, [&](transport& t) { return kernel(t); });
    std::vector<figure> out;
    for (const auto& rec : r[0].records) {
        const comet::assessment a = comet::assess(rec);
        out.push_back({comet::statistic_of(rec, s), a.valid, a.total});
    }
    return out;
}

/// One-way time of `n`-byte round trips, plain: the median of 15 loops of `reps`, each between
/// two barriers, sending the received buffer back (same) or from a buffer of its own (clean).
double plain_echo(std::size_t n, bool clean, int reps) {
    const auto r = comet::threads::run(2, [&](transport& t) {
        std::vector<std::byte> out(n), in(n);
        const comet::mutable_bytes send_from(out.data(), n), receive_into(clean ? in.data() : out.data(), n);
        std::vector<double> loops;
        for (int k = 0; k < 15; ++k)
            loops.push_back(bench::per_operation(t, reps, [&] {
                if (t.rank() == 0) {
                    comet::ops::send(t, 1, 1, send_from);
                    comet::ops::recv(t, 1, 1, receive_into);
                } else {
                    comet::ops::recv(t, 0, 1, receive_into);
                    comet::ops::send(t, 0, 1, clean ? send_from : receive_into);
                }
            }) / 2);
        return bench::median(loops);
    });
    return r[0];
}

/// `op` in loops of `reps` between two barriers: the median (or least) of 15 loops, rank 0's.
double plain_loop(int reps, bool least, const std::function<void(transport&)>& op) {
    const auto r = comet::threads::run(2, [&](transport& t) {
        std::vector<double> loops;
        for (int k = 0; k < 15; ++k) loops.push_back(bench::per_operation(t, reps, [&] { op(t); }));
        return least ? *std::min_element(loops.begin(), loops.end()) : bench::median(loops);
    });
    return r[0];
}

/// One `op` right after a barrier, the slower rank's time: the median of 21.
double plain_after_barrier(const std::function<void(transport&)>& op) {
    const auto r = comet::threads::run(2, [&](transport& t) {
        std::vector<double> times;
        for (int k = 0; k < 21; ++k) {
            comet::ops::barrier(t);
            const double s = t.now();
            op(t);
            double took = t.now() - s;
            comet::ops::allreduce_max(t, std::span<double>(&took, 1));
            times.push_back(took);
        }
        return bench::median(times);
    });
    return r[0];
}

struct row {
    std::string name;
    std::vector<double> comet, plain, ratio;
    std::size_t valid = 0, total = 0;
};

void add(row& r, const figure& c, double plain) {
    r.valid += c.valid;
    r.total += c.total;
    if (!(c.seconds > 0)) return;  // no valid sample this trial: no figure to compare (valid/total says so)
    r.comet.push_back(c.seconds);
    r.plain.push_back(plain);
    r.ratio.push_back(c.seconds / plain);
}

}  // namespace

int main() {
    constexpr int trials = 7;
    row echo8{"echo 8 B, same buffer"}, echo64{"echo 64 KiB, same buffer"}, clean64{"echo 64 KiB, clean buffer"},
        sum{"global sum, 1 double"}, barrier{"barrier (least)"}, window{"allreduce 64 KiB, window"};
    std::vector<double> v(8192, 0.0);
    for (int trial = 0; trial < trials; ++trial) {
        for (auto buffer : {comet::kernels::echo_buffer::same, comet::kernels::echo_buffer::clean}) {
            const auto e = comet_figures([&](transport& t) { return comet::kernels::echo(t, {.sizes = {8, 65536}, .hops = {1}, .buffer = buffer}); });
            if (buffer == comet::kernels::echo_buffer::same) {
                add(echo8, e.at(0), plain_echo(8, false, 2000));
                add(echo64, e.at(1), plain_echo(65536, false, 200));
            } else {
                add(clean64, e.at(1), plain_echo(65536, true, 200));
            }
        }
        add(sum, comet_figures([](transport& t) { return comet::kernels::global_sum(t, {.vector_lengths = {1}}); }).at(0),
            plain_loop(2000, false, [](transport& t) {
                double x = 0;
                comet::ops::allreduce_sum(t, std::span<double>(&x, 1));
            }));
        add(barrier, comet_figures([](transport& t) { return comet::kernels::barrier(t); }, comet::statistic::min).at(0),
            plain_loop(2000, true, [](transport& t) { comet::ops::barrier(t); }));
        const auto w = comet_figures([](transport& t) {
            return comet::kernels::windowed_collectives(t, {.operations = {comet::kernels::collective_operation::allreduce},
                                                            .sizes = {65536},
                                                            .measures = {comet::window_measure::window}});
        });
        // The records come one per reduction in all_rank_reductions' order: the slowest rank's.
        const auto max_at = static_cast<std::size_t>(comet::rank_reduction::max);
        add(window, w.at(max_at), plain_after_barrier([&](transport& t) { comet::ops::allreduce_sum(t, std::span<double>(v)); }));
    }
    std::printf("comet's figures against a plain loop in the same run, %d trials alternated (median of the per-trial ratios)\n",
                trials);
    std::printf("  %-28s %14s %14s %8s   %s\n", "point", "comet [ns]", "plain [ns]", "ratio", "valid/total");
    for (const row* r : {&echo8, &echo64, &clean64, &sum, &barrier, &window}) {
        if (r->ratio.empty()) {
            std::printf("  %-28s %14s %14s %8s   %zu/%zu\n", r->name.c_str(), "-", "-", "-", r->valid, r->total);
            continue;
        }
        std::printf("  %-28s %14.1f %14.1f %8.3f   %zu/%zu\n", r->name.c_str(), bench::median(r->comet) * 1e9,
                    bench::median(r->plain) * 1e9, bench::median(r->ratio), r->valid, r->total);
    }
    std::printf("(allreduce, plain: one operation right after a barrier, the slower rank's time: the ranks leave a barrier "
                "nearly together on shared memory)\n");
}
