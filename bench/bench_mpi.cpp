// bench_mpi — the MPI transport next to raw MPI in the same job, printed as ratios. Run it
// under `mpirun -np 2 bench/bench_mpi` on an otherwise idle machine, built with optimisation.
//
//   echo (the target: SPEC 11, within 5%): comet's echo kernel, one way, against a raw
//     MPI_Send/MPI_Recv ping-pong in which the echoing rank sends back the very buffer it
//     received into, as echo does (OSU's latency test keeps its send buffer clean in cache
//     and so reads fast at large sizes); both timed by the same repeat loop on MPI_Wtime.
//   pairwise (information): comet's pairwise exchange against MPI_Sendrecv. Both ranks send
//     first, so above MPI's eager size comet's buffered sends take each message into storage
//     and copy it again, which MPI_Sendrecv need not do.
//   threads (SPEC 11: the threads transport should beat the MPI library's shared-memory path):
//     comet's threads transport's echo on rank 0, while rank 1 sleeps, against the raw figure.
//
// The host may move the two processes between cores that are "near" and "far", so baseline
// and comet are measured alternately, trial by trial (in alternating order), and each ratio is
// the median of the per-trial ratios.
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/timing/repeat.hpp>
#include <comet/transport/mpi.hpp>
#include <comet/transport/threads.hpp>

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
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

constexpr std::size_t warmup = 20;

/// One-way time of a raw MPI ping-pong of `n` bytes between ranks 0 and 1 of `comm` (on rank 0;
/// 0 elsewhere): the same repeat loop, warm-up and buffer use as comet's echo kernel.
double raw_echo(MPI_Comm comm, int rank, std::size_t n, std::size_t reps) {
    std::vector<std::byte> buffer(n);
    const int count = static_cast<int>(n);
    double one_way = 0;
    MPI_Barrier(comm);
    if (rank == 0) {
        const auto step = [&] {
            MPI_Send(buffer.data(), count, MPI_BYTE, 1, 1, comm);
            MPI_Recv(buffer.data(), count, MPI_BYTE, 1, 1, comm, MPI_STATUS_IGNORE);
        };
        for (std::size_t i = 0; i < warmup; ++i) step();
        mpi_clock clock;
        one_way = comet::repeat(clock, reps, step).per_iteration / 2;
    } else {
        for (std::size_t i = 0; i < warmup + reps; ++i) {
            MPI_Recv(buffer.data(), count, MPI_BYTE, 0, 1, comm, MPI_STATUS_IGNORE);
            MPI_Send(buffer.data(), count, MPI_BYTE, 0, 1, comm);
        }
    }
    MPI_Barrier(comm);
    return one_way;
}

/// The time of one MPI_Sendrecv exchange of `n` bytes each way (on rank 0).
double raw_exchange(MPI_Comm comm, int rank, std::size_t n, std::size_t reps) {
    std::vector<std::byte> out(n), in(n);
    const int count = static_cast<int>(n), peer = 1 - rank;
    const auto step = [&] {
        MPI_Sendrecv(out.data(), count, MPI_BYTE, peer, 2, in.data(), count, MPI_BYTE, peer, 2, comm, MPI_STATUS_IGNORE);
    };
    MPI_Barrier(comm);
    for (std::size_t i = 0; i < warmup; ++i) step();
    mpi_clock clock;
    const double t = comet::repeat(clock, reps, step).per_iteration;
    MPI_Barrier(comm);
    return rank == 0 ? t : 0.0;
}

/// comet's kernel on the transport, one sample of `reps` iterations (on rank 0).
template <class Kernel>
double comet_kernel(comet::mpi::transport& t, Kernel&& kernel, std::size_t n, std::size_t reps) {
    const comet::result_set r = kernel(t, comet::transfer_config{.sizes = {n}, .hops = {1}, .max_times = reps, .samples = 1,
                                                                 .warmup = warmup});
    return t.rank() == 0 ? r.records.at(0).samples.at(0) : 0.0;
}

struct row {
    double raw, comet, ratio;
};

/// Alternates baseline and comet `trials` times (swapping which goes first each trial).
template <class Raw, class Comet>
row compare(int trials, Raw&& raw, Comet&& comet) {
    std::vector<double> a, b, q;
    for (int i = 0; i < trials; ++i) {
        double x, y;
        if (i % 2) {
            y = comet();
            x = raw();
        } else {
            x = raw();
            y = comet();
        }
        a.push_back(x);
        b.push_back(y);
        q.push_back(x > 0 ? y / x : 0.0);
    }
    return {median(a), median(b), median(q)};
}

void print(int rank, const char* name, const row& r, double target) {
    if (rank != 0) return;
    std::printf("  %-28s %12.1f %12.1f %8.3f", name, r.raw * 1e9, r.comet * 1e9, r.ratio);
    if (target > 0) std::printf("   <= %.2f  %s", target, r.ratio <= target ? "ok" : "MISSED");
    std::printf("\n");
}

/// comet's threads transport's echo of `n` bytes, one way (two threads of this process).
double threads_echo(std::size_t n, std::size_t reps) {
    const auto r = comet::threads::run(2, [&](comet::threads::transport& t) {
        return comet::echo(t, {.sizes = {n}, .hops = {1}, .max_times = reps, .samples = 1, .warmup = warmup});
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
    if (rank == 0)
        std::printf("comet's MPI transport against raw MPI in the same job (%s; 2 processes, %u hardware threads)\n\n",
                    comet::mpi::library_version().c_str(), std::thread::hardware_concurrency());

    struct size_case {
        const char* echo_name;
        const char* pair_name;
        std::size_t n, reps;
        int trials;
        double target;
    };
    const size_case cases[] = {
        {"8 B echo / ping-pong", "8 B pairwise / Sendrecv", 8, 2000, 201, 1.05},
        {"4 KiB echo / ping-pong", "4 KiB pairwise / Sendrecv", 4096, 1000, 101, 0},
        {"64 KiB echo / ping-pong", "64 KiB pairwise / Sendrecv", 65536, 200, 61, 0},
        {"1 MiB echo / ping-pong", "1 MiB pairwise / Sendrecv", std::size_t{1} << 20, 20, 61, 1.05},
    };
    const auto echo = [](auto& tr, const comet::transfer_config& c) { return comet::echo(tr, c); };
    const auto pairwise = [](auto& tr, const comet::transfer_config& c) { return comet::pairwise(tr, c); };

    if (rank == 0) std::printf("  %-28s %12s %12s %8s   %s\n", "one-way time", "raw[ns]", "comet[ns]", "ratio", "target");
    std::vector<row> echo_rows;
    for (const auto& c : cases) {
        echo_rows.push_back(compare(c.trials, [&] { return raw_echo(raw, rank, c.n, c.reps); },
                                    [&] { return comet_kernel(t, echo, c.n, c.reps); }));
        print(rank, c.echo_name, echo_rows.back(), c.target);
    }
    if (rank == 0) std::printf("\n  %-28s %12s %12s %8s   (information)\n", "exchange time", "raw[ns]", "comet[ns]", "ratio");
    for (const auto& c : cases)
        print(rank, c.pair_name,
              compare(c.trials / 2 + 1, [&] { return raw_exchange(raw, rank, c.n, c.reps); },
                      [&] { return comet_kernel(t, pairwise, c.n, c.reps); }),
              0);

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
        std::printf("\nthreads transport against the MPI library's shared memory (one way; SPEC 11: threads faster)\n");
        const double a = median(th8), b = median(th1m);
        std::printf("  8 B echo:   threads %10.1f ns, raw MPI %10.1f ns: %5.1fx  %s\n", a * 1e9, echo_rows.front().raw * 1e9,
                    echo_rows.front().raw / a, a < echo_rows.front().raw ? "ok" : "MISSED");
        std::printf("  1 MiB echo: threads %10.1f ns, raw MPI %10.1f ns: %5.1fx  %s\n", b * 1e9, echo_rows.back().raw * 1e9,
                    echo_rows.back().raw / b, b < echo_rows.back().raw ? "ok" : "MISSED");
    }
    t.barrier();
    MPI_Comm_free(&raw);
    return 0;
}
