// bench_mpi_nbc — comet's schedule engine (nbc/engine.hpp) over the MPI transport's isend/irecv
// next to the MPI library's own nonblocking collectives in the same job, printed as ratios. Run
// it under `mpirun -np 2 bench/bench_mpi_nbc` (or more processes) on an otherwise idle machine,
// built with optimisation.
//
//   ibcast 1 MiB      a persistent schedule (built once; from 128 KiB on the segmented pipeline)
//                     started and waited for, against MPI_Ibcast + MPI_Wait (the engine with
//                     prefer_native). Target: at most 1.3 times.
//   ibcast 8 B, iallreduce 8 doubles and 1 MiB, ibarrier: the same comparison, for information.
//
// Each trial times `reps` operations back to back on rank 0 between barriers, native and
// schedule alternating (native, schedule, schedule, native, the mirror image in the next trial),
// and the ratio is the median of the per-trial ratios.
#include <comet/nbc/engine.hpp>
#include <comet/ops/ops.hpp>
#include <comet/transport/mpi.hpp>

#include "same_run.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <span>
#include <vector>

namespace {

using transport = comet::mpi::transport;

/// Native and schedule of one operation, `trials` trials of `reps`; prints a row on rank 0.
void compare(transport& t, const char* name, int trials, int reps, double target, const std::function<void()>& native,
             const std::function<void()>& schedule) {
    native();
    schedule();
    std::vector<double> ns, ss, rs;
    for (int i = 0; i < trials; ++i) {
        // native, schedule, schedule, native; the next trial schedule, native, native, schedule.
        const std::function<void()>& first = i % 2 ? schedule : native;
        const std::function<void()>& second = i % 2 ? native : schedule;
        const double a = bench::per_operation(t, reps, first), b = bench::per_operation(t, reps, second);
        const double c = bench::per_operation(t, reps, second), d = bench::per_operation(t, reps, first);
        const double n = i % 2 ? b + c : a + d, s = i % 2 ? a + d : b + c;
        ns.push_back(n / 2);
        ss.push_back(s / 2);
        rs.push_back(s / n);
    }
    if (t.rank() != 0) return;
    std::printf("  %-30s %12.2f %12.2f %8.2f   ", name, bench::median(ns) * 1e6, bench::median(ss) * 1e6, bench::median(rs));
    if (target > 0)
        std::printf("<= %.1f  %s\n", target, bench::median(rs) <= target ? "ok" : "MISSED");
    else
        std::printf("(information)\n");
}

}  // namespace

int main() {
    comet::mpi::initialize();
    const boost::mpi::communicator world;
    transport t(world);
    const int me = t.rank(), p = t.size();
#ifndef NDEBUG
    if (me == 0) std::printf("warning: built without NDEBUG; build with -DCMAKE_BUILD_TYPE=Release for meaningful figures\n");
#endif
    if (me == 0) {
        std::printf("comet's schedule engine against the MPI library's nonblocking collectives (%s; %d processes)\n",
                    comet::mpi::library_version().c_str(), p);
        std::printf("  %-30s %12s %12s %8s   %s\n", "operation", "native[us]", "schedule[us]", "ratio", "target");
    }
    comet::nbc::engine<transport> native(t, {.prefer_native = true});
    comet::nbc::engine<transport> scheduled(t, {.prefer_native = false});

    const auto bcast = [&](const char* name, std::size_t n, int trials, int reps, double target) {
        std::vector<std::byte> a(n), b(n);
        const comet::nbc::schedule plan = comet::nbc::broadcast_schedule(me, p, 0, b);
        compare(
            t, name, trials, reps, target,
            [&] {
                auto r = native.ibroadcast(0, a);
                native.wait(r);
            },
            [&] {
                auto r = scheduled.start(plan);
                scheduled.wait(r);
            });
    };
    const auto allreduce = [&](const char* name, std::size_t n, int trials, int reps) {
        std::vector<double> a(n, 0.0), b(n, 0.0);
        const comet::nbc::schedule plan = comet::nbc::allreduce_schedule(me, p, b, comet::nbc::reduce_op::sum);
        compare(
            t, name, trials, reps, 0,
            [&] {
                auto r = native.iallreduce(a);
                native.wait(r);
            },
            [&] {
                auto r = scheduled.start(plan);
                scheduled.wait(r);
            });
    };
    bcast("ibcast 1 MiB", std::size_t{1} << 20, 41, 10, 1.3);
    bcast("ibcast 8 B", 8, 41, 2000, 0);
    allreduce("iallreduce 8 doubles", 8, 41, 2000);
    allreduce("iallreduce 1 MiB", (std::size_t{1} << 20) / sizeof(double), 21, 10);
    const comet::nbc::schedule barrier = comet::nbc::barrier_schedule(me, p);
    compare(
        t, "ibarrier", 41, 2000, 0,
        [&] {
            auto r = native.ibarrier();
            native.wait(r);
        },
        [&] {
            auto r = scheduled.start(barrier);
            scheduled.wait(r);
        });
    return 0;
}
