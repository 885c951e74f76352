// Whole MPI programs for the MPI transport's reliability tests (test/mpi/tests.cmake runs each
// under mpiexec and checks how the job ends, and what it printed):
//   reliability_programs <program> [watchdog_s=S] [guard=1] [check=1]
// Programs that deadlock by MPI's rules, which the watchdog must turn into one line per blocked
// rank naming the operation and its peer, and a non-zero exit instead of a hang:
//   ssend_both       both ranks ssend first
//   mixed            rank 0 receives from any rank, rank 1 is in a barrier, rank 2 in an
//                    allreduce, rank 3 has finished (4 ranks, as the threads transport's report)
//   finished_peer    rank 0 receives from rank 1, which has finished
//   isend_finished   rank 0 waits for a 1 MiB isend to rank 1, which has finished
//   send_first       rank 1 sends (blocking) 11,360 bytes with tag 4, 1 MiB with tag 5, 8 bytes
//                    with tag 4; rank 0 receives tag 4, tag 4, tag 5. The 1 MiB MPI_Send waits
//                    for a receive rank 0 posts only after the second tag-4 message, which
//                    rank 1 sends only after it: unsafe by MPI-3.1 §3.5, and it hangs
// Programs whose ranks disagree on a collective's size, which must end the job naming both
// sizes (with check=1 for MPI's own collectives; always for comet's portable ones):
//   broadcast_sizes, allreduce_sizes, gather_sizes, alltoall_sizes, portable_broadcast_sizes
// A program that must succeed:
//   send_to_self     blocking sends to oneself of 0 .. 1 MiB (969 .. 1024 bytes among them),
//                    each then received; exits 0
#include <comet/algorithms/collectives.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/transport/decorators/faulty.hpp>
#include <comet/transport/mpi.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

using comet::mpi::transport;
constexpr std::size_t mib = std::size_t{1} << 20;

std::vector<std::byte> bytes(std::size_t n, int seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((static_cast<std::size_t>(seed) * 131 + i * 7) & 0xff);
    return v;
}

void ssend_both(transport& t) {
    const auto out = bytes(8, t.rank());
    std::vector<std::byte> in(8);
    t.ssend(1 - t.rank(), 7, out);
    t.recv(1 - t.rank(), 7, in);
}

void mixed(transport& t) {
    std::vector<std::byte> in(16);
    if (t.rank() == 0) t.recv(comet::any_source, 3, in);
    if (t.rank() == 1) t.barrier();
    if (t.rank() == 2) {
        std::vector<double> v(5);
        t.allreduce_sum(v);
    }
}

void finished_peer(transport& t) {
    std::vector<std::byte> in(4);
    if (t.rank() == 0) t.recv(1, 1, in);
}

void isend_finished(transport& t) {
    if (t.rank() != 0) return;
    const auto out = bytes(mib, 1);
    auto r = t.isend(1, 4, out);
    t.wait(r);
}

void send_first(transport& t) {
    constexpr int T = 4, U = 5;
    std::vector<std::byte> in(mib);
    for (int round = 0; round < 20; ++round) {
        if (t.rank() == 1) {
            t.send(0, T, bytes(11360, round));
            t.send(0, U, bytes(mib, round));
            t.send(0, T, bytes(8, round));
        } else if (t.rank() == 0) {
            t.recv(1, T, in);
            t.recv(1, T, in);
            t.recv(1, U, in);
        }
    }
}

// Rank 0 passes 2000 bytes (or doubles, blocks), every other rank 1000.
std::size_t disagreeing(const transport& t) { return t.rank() == 0 ? 2000 : 1000; }

void broadcast_sizes(transport& t) {
    std::vector<std::byte> data(disagreeing(t));
    t.broadcast(0, data);
}

void allreduce_sizes(transport& t) {
    std::vector<double> v(disagreeing(t), 1.0);
    t.allreduce_sum(v);
}

void gather_sizes(transport& t) {
    const auto mine = bytes(disagreeing(t), t.rank());
    std::vector<std::byte> all(t.rank() == 0 ? mine.size() * static_cast<std::size_t>(t.size()) : 0);
    t.gather(0, mine, all);
}

void alltoall_sizes(transport& t) {
    const std::size_t n = disagreeing(t) * static_cast<std::size_t>(t.size());
    const auto out = bytes(n, t.rank());
    std::vector<std::byte> in(n);
    t.alltoall(out, in);
}

// comet's portable binomial broadcast on the MPI transport; the root passes fewer bytes than
// the others expect (a larger root is a truncation: see docs/transports.md).
void portable_broadcast_sizes(transport& t) {
    std::vector<std::byte> data(t.rank() == 0 ? 1000 : 2000);
    comet::algorithms::broadcast(t, 0, data);
}

void send_to_self(transport& t) {
    std::vector<std::size_t> sizes{0, 1, 968, 1025, 4096, 65536, mib};
    for (std::size_t n = 969; n <= 1024; ++n) sizes.push_back(n);
    std::vector<std::byte> in(mib);
    for (std::size_t n : sizes) {
        const auto out = bytes(n, static_cast<int>(n));
        t.send(t.rank(), 5, out);
        const comet::status s = t.recv(t.rank(), 5, in);
        if (s.size != n || s.source != t.rank() || std::memcmp(in.data(), out.data(), n) != 0)
            comet::raise<comet::error>(t.rank(), "send_to_self: ", n, " bytes sent, ", s.size, " received, or they differ");
    }
    std::printf("rank %d: %zu sizes sent to itself and received\n", t.rank(), sizes.size());
}

// Faults injected by comet::faulty into echo and pairwise with verification: a fault the
// kernel catches ends the job with a one-line error naming the rank (comet::mpi::run aborts it);
// a harmless one lets it finish and print how many faults were injected.
template <int Kernel>
void with_faults(transport& inner, const comet::fault_rates& rates) {
    comet::faulty t(inner, rates);
    const comet::kernels::transfer_config cfg{.sizes = {0, 8, 100, 5000}, .sampling = comet::fixed_sampling(3, 10), .verify = true};
    if constexpr (Kernel == 0) comet::kernels::echo(t, cfg);
    else comet::kernels::pairwise(t, cfg);
    std::printf("rank %d: completed, faults injected: %zu\n", t.rank(), t.counts().injected());
}
template <int Kernel> void drop(transport& t) { with_faults<Kernel>(t, {.drop = 0.02, .wait_timeout = 2.0}); }
template <int Kernel> void duplicate(transport& t) { with_faults<Kernel>(t, {.duplicate = 0.02, .wait_timeout = 2.0}); }
template <int Kernel> void corrupt(transport& t) { with_faults<Kernel>(t, {.corrupt = 0.02, .wait_timeout = 2.0}); }
template <int Kernel> void reorder(transport& t) { with_faults<Kernel>(t, {.reorder = 0.05, .wait_timeout = 2.0}); }
template <int Kernel> void delay(transport& t) { with_faults<Kernel>(t, {.delay = 0.05, .delay_seconds = 20e-6, .wait_timeout = 2.0}); }

struct program {
    std::string_view name;
    void (*body)(transport&);
};
constexpr program programs[] = {
    {"ssend_both", ssend_both},           {"mixed", mixed},
    {"finished_peer", finished_peer},     {"isend_finished", isend_finished},
    {"send_first", send_first},           {"broadcast_sizes", broadcast_sizes},
    {"allreduce_sizes", allreduce_sizes}, {"gather_sizes", gather_sizes},
    {"alltoall_sizes", alltoall_sizes},   {"portable_broadcast_sizes", portable_broadcast_sizes},
    {"send_to_self", send_to_self},
    {"drop_echo", drop<0>},               {"drop_pairwise", drop<1>},
    {"duplicate_echo", duplicate<0>},     {"duplicate_pairwise", duplicate<1>},
    {"corrupt_echo", corrupt<0>},         {"corrupt_pairwise", corrupt<1>},
    {"reorder_echo", reorder<0>},         {"reorder_pairwise", reorder<1>},
    {"delay_echo", delay<0>},             {"delay_pairwise", delay<1>},
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: reliability_programs <program> [watchdog_s=S] [guard=1] [check=1]\n");
        return 2;
    }
    comet::mpi::options o;
    for (int i = 2; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a.starts_with("watchdog_s=")) o.watchdog_s = std::atof(argv[i] + 11);
        else if (a == "guard=1") o.guard_truncation = true;
        else if (a == "check=1") o.check_collectives = true;
        else {
            std::fprintf(stderr, "reliability_programs: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    for (const program& p : programs)
        if (p.name == argv[1]) {
            comet::mpi::initialize();
            comet::mpi::run(boost::mpi::communicator{}, o, p.body);
            return 0;
        }
    std::fprintf(stderr, "reliability_programs: no program %s\n", argv[1]);
    return 2;
}
