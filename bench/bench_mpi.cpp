// bench_mpi — comet's MPI transport next to raw MPI in the same job, printed as ratios (the rule:
// a number comet reports on MPI must be MPI's). Run it under `mpirun -np 2 bench/bench_mpi` on
// an otherwise idle machine, built with optimisation.
//
//   echo / ping-pong       comet's echo kernel against a raw MPI_Send/MPI_Recv ping-pong in
//                          which the echoing rank sends back the very buffer it received into,
//                          as echo does (OSU's latency test keeps its send buffer clean in cache
//                          and so reads fast at large sizes). Target [0.95, 1.05].
//   pairwise / Sendrecv    comet's pairwise exchange kernel (on MPI it runs as MPI_Sendrecv)
//                          against MPI_Sendrecv of the same sizes. Target [0.95, 1.10].
//   collectives            comet::ops::barrier, ops::broadcast and ops::allreduce_sum against
//                          MPI_Barrier, MPI_Bcast and MPI_Allreduce. Target within 1.10x either
//                          way ([0.91, 1.10]).
//   threads (information)  comet's threads transport's echo on rank 0 while rank 1 sleeps,
//                          against the raw MPI figure (SPEC 11: the threads transport should beat
//                          the MPI library's shared-memory path).
// Both sides of every comparison are timed the same way: comet's repeat loop on MPI_Wtime (loop
// overhead subtracted), after one untimed run of the same length (what the kernels' fixed
// sampling does), on buffers allocated afresh for the run.
//
// The host may move the two processes between cores that are "near" and "far", so baseline and
// comet are measured alternately within each trial (raw, comet, comet, raw, the mirror image
// in the next trial), and each ratio is the median of the per-trial ratios; only ratios from
// one run mean anything.
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/ops/ops.hpp>
#include <comet/timing/measure.hpp>
#include <comet/timing/repeat.hpp>
// With COMET_COMPILED, echo and pairwise as the library holds them (bench_mpi_compiled).
#include <comet/compiled/mpi.hpp>
#include <comet/compiled/threads.hpp>

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

namespace {

struct mpi_clock {
    double now() const noexcept { return MPI_Wtime(); }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// Times `reps` runs of `body` on this rank after one untimed run of as many, both ranks
/// starting together; the time per run (on every rank; rank 0's is the one reported).
template <class Body>
double timed(MPI_Comm comm, std::size_t reps, Body&& body) {
    MPI_Barrier(comm);
    for (std::size_t i = 0; i < reps; ++i) body();
    mpi_clock clock;
    const double t = comet::repeat(clock, reps, body).per_iteration;
    MPI_Barrier(comm);
    return t;
}

/// One-way time of a raw MPI ping-pong of `n` bytes (rank 0 times; rank 1 echoes what it got).
double raw_echo(MPI_Comm comm, int rank, std::size_t n, std::size_t reps) {
    std::vector<std::byte> buffer(n);
    const int count = static_cast<int>(n);
    return timed(comm, reps, [&] {
               if (rank == 0) {
                   MPI_Send(buffer.data(), count, MPI_BYTE, 1, 1, comm);
                   MPI_Recv(buffer.data(), count, MPI_BYTE, 1, 1, comm, MPI_STATUS_IGNORE);
               } else {
                   MPI_Recv(buffer.data(), count, MPI_BYTE, 0, 1, comm, MPI_STATUS_IGNORE);
                   MPI_Send(buffer.data(), count, MPI_BYTE, 0, 1, comm);
               }
           }) /
           2;
}

/// The time of one MPI_Sendrecv exchange of `n` bytes each way. The two buffers are allocated
/// in the order the pairwise kernel allocates its own (the receive buffer first), so that both
/// sides get alike addresses from malloc: the single-copy path's cost depends on how a buffer
/// straddles pages (a few per cent at 64 KiB).
double raw_exchange(MPI_Comm comm, int rank, std::size_t n, std::size_t reps) {
    std::vector<std::byte> in(n);
    std::vector<std::byte> out(n);
    const int count = static_cast<int>(n), peer = 1 - rank;
    return timed(comm, reps, [&] {
        MPI_Sendrecv(out.data(), count, MPI_BYTE, peer, 2, in.data(), count, MPI_BYTE, peer, 2, comm, MPI_STATUS_IGNORE);
    });
}

/// comet's kernel on the transport: one sample of `reps` iterations after one untimed run (the
/// kernels' fixed sampling), on rank 0.
template <class Kernel>
double comet_kernel(comet::mpi::transport& t, Kernel&& kernel, std::size_t n, std::size_t reps) {
    const comet::result_set r = kernel(t, comet::kernels::transfer_config{.sizes = {n}, .hops = {1},
                                                                          .sampling = comet::fixed_sampling(1, reps)});
    return t.rank() == 0 ? r.records.at(0).samples.at(0) : 0.0;
}

struct row {
    double raw, comet, ratio;
};

/// Runs `trials` trials, each raw, comet, comet, raw (or comet, raw, raw, comet: the order
/// alternates from trial to trial); a trial's ratio is comet's two times over raw's two. The
/// mirrored order cancels what running first or second does to a run, and a drift of the
/// machine that is linear over the trial, which a plain alternation leaves in each trial's
/// ratio (with a strong order effect, the per-trial ratios split into two groups and their
/// median lands anywhere between them). Returns the medians of the runs and of the trials'
/// ratios (on rank 0).
row compare(int rank, int trials, const std::function<double()>& raw, const std::function<double()>& comet) {
    std::vector<double> a, b, q;
    for (int i = 0; i < trials; ++i) {
        double x = 0, y = 0;
        if (i % 2) {
            y += comet();
            x += raw();
            x += raw();
            y += comet();
        } else {
            x += raw();
            y += comet();
            y += comet();
            x += raw();
        }
        a.push_back(x / 2);
        b.push_back(y / 2);
        q.push_back(x > 0 ? y / x : 0.0);
    }
    if (rank != 0) return {};
    return {median(a), median(b), median(q)};
}

struct target {
    double low, high;
};

int missed = 0;

void print(int rank, const char* name, const row& r, target want) {
    if (rank != 0) return;
    const bool ok = r.ratio >= want.low && r.ratio <= want.high;
    if (!ok) ++missed;
    std::printf("  %-30s %12.1f %12.1f %8.3f   [%.2f, %.2f]  %s\n", name, r.raw * 1e9, r.comet * 1e9, r.ratio, want.low, want.high,
                ok ? "ok" : "MISSED");
}

/// comet's threads transport's echo of `n` bytes, one way (two threads of this process).
double threads_echo(std::size_t n, std::size_t reps) {
    const auto r = comet::threads::run(2, [&](comet::threads::transport& t) {
        return comet::kernels::echo(t, {.sizes = {n}, .hops = {1}, .sampling = comet::fixed_sampling(1, reps)});
    });
    return r[0].records.at(0).samples.at(0);
}

}  // namespace

int main() {
    comet::mpi::initialize();
    const boost::mpi::communicator world;
    if (world.size() != 2) {
        if (world.rank() == 0) std::fprintf(stderr, "bench_mpi: run it with 2 processes (mpirun -np 2), not %d\n", world.size());
        return 2;
    }
    comet::mpi::transport t(world);
    MPI_Comm raw;  // the baseline's own communicator, so its messages never meet comet's
    MPI_Comm_dup(world, &raw);
    const int rank = world.rank();
#ifndef NDEBUG
    if (rank == 0) std::printf("warning: built without NDEBUG; build with -DCMAKE_BUILD_TYPE=Release for meaningful figures\n");
#endif
    if (rank == 0) {
        const char* single_copy = std::getenv("OMPI_MCA_btl_vader_single_copy_mechanism");
        std::printf("comet's MPI transport against raw MPI in the same job (%s; 2 processes, %u hardware threads; "
                    "vader single copy: %s)\n",
                    comet::mpi::library_version().c_str(), std::thread::hardware_concurrency(), single_copy ? single_copy : "default");
        std::printf("ratio: comet / raw, the median of per-trial ratios (each trial raw, comet, comet, raw or its mirror)\n\n");
    }

    struct size_case {
        const char* echo_name;
        const char* pair_name;
        std::size_t n, reps;
        int trials;
    };
    // Runs of about a millisecond (trials of four runs): short enough that the host rarely moves
    // the cores in the middle of a trial, long enough that MPI_Wtime's reading costs nothing.
    const size_case cases[] = {
        {"8 B echo / ping-pong", "8 B pairwise / Sendrecv", 8, 2000, 101},
        {"4 KiB echo / ping-pong", "4 KiB pairwise / Sendrecv", 4096, 250, 101},
        {"64 KiB echo / ping-pong", "64 KiB pairwise / Sendrecv", 65536, 50, 101},
        {"1 MiB echo / ping-pong", "1 MiB pairwise / Sendrecv", std::size_t{1} << 20, 5, 101},
    };
    const auto echo = [](auto& tr, const comet::kernels::transfer_config& c) { return comet::kernels::echo(tr, c); };
    const auto pairwise = [](auto& tr, const comet::kernels::transfer_config& c) { return comet::kernels::pairwise(tr, c); };

    if (rank == 0) std::printf("  %-30s %12s %12s %8s   %s\n", "one-way time", "raw[ns]", "comet[ns]", "ratio", "target");
    std::vector<row> echo_rows;
    for (const auto& c : cases) {
        echo_rows.push_back(compare(rank, c.trials, [&] { return raw_echo(raw, rank, c.n, c.reps); },
                                    [&] { return comet_kernel(t, echo, c.n, c.reps); }));
        print(rank, c.echo_name, echo_rows.back(), {0.95, 1.05});
    }

    if (rank == 0) std::printf("\n  %-30s %12s %12s %8s   %s\n", "exchange time", "raw[ns]", "comet[ns]", "ratio", "target");
    for (const auto& c : cases)
        print(rank, c.pair_name,
              compare(rank, c.trials, [&] { return raw_exchange(raw, rank, c.n, c.reps); },
                      [&] { return comet_kernel(t, pairwise, c.n, c.reps); }),
              {0.95, 1.10});

    // The operations a kernel calls, against the MPI calls they are.
    if (rank == 0) std::printf("\n  %-30s %12s %12s %8s   %s\n", "collective time", "raw[ns]", "comet[ns]", "ratio", "target");
    const target collective{1 / 1.10, 1.10};
    print(rank, "barrier / MPI_Barrier",
          compare(rank, 61, [&] { return timed(raw, 2000, [&] { MPI_Barrier(raw); }); },
                  [&] { return timed(raw, 2000, [&] { comet::ops::barrier(t); }); }),
          collective);
    for (std::size_t n : {std::size_t{8}, std::size_t{1} << 20}) {
        const std::size_t reps = n > 4096 ? 10 : 2000;
        print(rank, n > 4096 ? "1 MiB broadcast / MPI_Bcast" : "8 B broadcast / MPI_Bcast",
              compare(rank, 61,
                      [&] {
                          std::vector<std::byte> data(n);
                          return timed(raw, reps, [&] { MPI_Bcast(data.data(), static_cast<int>(n), MPI_BYTE, 0, raw); });
                      },
                      [&] {
                          std::vector<std::byte> data(n);
                          return timed(raw, reps, [&] { comet::ops::broadcast(t, 0, data); });
                      }),
              collective);
    }
    print(rank, "allreduce 8 doubles / Allreduce",
          compare(rank, 61,
                  [&] {
                      std::vector<double> v(8, 1.0);
                      return timed(raw, 2000, [&] { MPI_Allreduce(MPI_IN_PLACE, v.data(), 8, MPI_DOUBLE, MPI_SUM, raw); });
                  },
                  [&] {
                      std::vector<double> v(8, 1.0);
                      return timed(raw, 2000, [&] { comet::ops::allreduce_sum(t, std::span<double>(v)); });
                  }),
          collective);

    // The threads transport on rank 0 while rank 1 sleeps (a spinning rank 1 would take a core).
    // mpirun binds each process to one core; the two threads need two, as the two processes had.
    std::vector<double> th8, th1m;
    if (rank == 0) {
        cpu_set_t bound, every;
        sched_getaffinity(0, sizeof bound, &bound);
        CPU_ZERO(&every);
        for (unsigned c = 0; c < std::thread::hardware_concurrency() && c < CPU_SETSIZE; ++c) CPU_SET(c, &every);
        sched_setaffinity(0, sizeof every, &every);  // threads started from here inherit it
        for (int i = 0; i < 15; ++i) {
            th8.push_back(threads_echo(8, 20000));
            th1m.push_back(threads_echo(std::size_t{1} << 20, 100));
        }
        sched_setaffinity(0, sizeof bound, &bound);
    }
    MPI_Request done;
    MPI_Ibarrier(raw, &done);
    for (int finished = 0; !finished;) {
        MPI_Test(&done, &finished, MPI_STATUS_IGNORE);
        if (!finished) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (rank == 0) {
        std::printf("\nthreads transport against the MPI library's shared memory (one way; information, SPEC 11: threads faster)\n");
        const double a = median(th8), b = median(th1m);
        std::printf("  8 B echo:   threads %10.1f ns, raw MPI %10.1f ns: %5.1fx\n", a * 1e9, echo_rows.front().raw * 1e9,
                    echo_rows.front().raw / a);
        std::printf("  1 MiB echo: threads %10.1f ns, raw MPI %10.1f ns: %5.1fx\n", b * 1e9, echo_rows.back().raw * 1e9,
                    echo_rows.back().raw / b);
        std::printf("\n%s\n", missed ? "some ratios MISSED their target" : "every ratio is inside its target");
    }
    t.barrier();
    MPI_Comm_free(&raw);
    return 0;
}
