// Tests of comet/transport/mpi.hpp and comet/transport/decorators/buffered.hpp, run by ctest
// under mpiexec with 1 to 5 processes (test/mpi/tests.cmake):
//   - the conformance suite on the thin transport, on the transport with the truncation guard,
//     on comet::buffered over it and on the thin transport with the watchdog and the collective
//     checks on, each check on a group of the size it asks for (the first
//     processes of the job; a check wanting more processes than the job has is skipped);
//   - what is particular to MPI, on the whole job: the real MPI calls behind each member
//     (rsend into a posted receive, sendrecv both ways, gather, alltoall and the reductions'
//     values, the natives checked against comet's portable algorithms on the same job),
//     truncation errors on every receive path, the truncation guard keeping bytes past the
//     buffer untouched, requests dropped while pending, the buffered decorator, the MPI
//     hang examples a randomized stress test found as regression tests, the reliability cases (blocking sends into posted
//     receives, blocking sends to oneself, collectives whose ranks disagree on a size, with
//     options::check_collectives and in comet's portable algorithms, the watchdog's options;
//     the programs that must end the job are in reliability_programs.cpp), the kernels and
//     run_suite on the job, clock
//     synchronisation under comet::skewed_clock (2 and 4 processes), and the nonblocking
//     collectives' engine (comet/nbc/engine.hpp), schedules and MPI's own, against the blocking
//     collectives.
// Every process runs every test; rank 0 logs progress, the others only failures. A check that
// throws inside comet::mpi::run ends the job (MPI_Abort) naming the rank and the message, so a
// broken rule fails the test instead of hanging it. The `failure` suite is disabled: ctest runs
// its cases on their own and checks that the job ends non-zero, naming the rank.
#include <comet/algorithms/collectives.hpp>
#include <comet/kernels/clock_sync.hpp>
#include <comet/kernels/commtest/commtest.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/kernels/matrix/matrix.hpp>
#include <comet/kernels/nbc.hpp>
#include <comet/kernels/windowed_collectives.hpp>
#include <comet/nbc/engine.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/compare.hpp>
#include <comet/suite/suite.hpp>
#include <comet/testing/conformance.hpp>
#include <comet/timing/global_clock.hpp>
#include <comet/transport/decorators/buffered.hpp>
#include <comet/transport/decorators/skewed_clock.hpp>
#include <comet/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/test/results_reporter.hpp>
#include <boost/test/unit_test.hpp>
#include <boost/test/unit_test_log.hpp>

#include "../kernels/support.hpp"
#include "../support/messages.hpp"
#include "../support/suite_config.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace mpi_test {

/// Starts MPI before the first test; MPI is finalized when the program exits.
struct mpi_setup {
    mpi_setup() {
        comet::mpi::initialize();
        if (boost::mpi::communicator{}.rank() != 0) {
            boost::unit_test::unit_test_log.set_threshold_level(boost::unit_test::log_all_errors);
            boost::unit_test::results_reporter::set_level(boost::unit_test::NO_REPORT);
        }
    }
};

using comet::mpi::transport;
using comet_test::mentions;

/// Runs `fn(transport&)` on the first `wanted` processes of the job, on a communicator of
/// their own; the others wait. Skipped everywhere if the job is smaller.
template <class F>
void on_first(int wanted, comet::mpi::options o, F&& fn) {
    const boost::mpi::communicator world;
    if (wanted > world.size()) {
        BOOST_TEST_MESSAGE("skipped on " << world.size() << " processes: needs " << wanted);
        return;
    }
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Comm_split(world, world.rank() < wanted ? 0 : MPI_UNDEFINED, world.rank(), &sub);
    if (sub != MPI_COMM_NULL) {
        const boost::mpi::communicator group(sub, boost::mpi::comm_take_ownership);
        comet::mpi::run(group, o, fn);
    }
    comet::mpi::detail::wait_quietly(world);
}

/// The conformance runners: the thin transport, the guarded one, and comet::buffered over the
/// guarded one. A failing rank ends the job (MPI_Abort); MPI reports no deadlock (ctest's
/// TIMEOUT does).
struct thin_runner {
    template <class F>
    void operator()(int ranks, F&& body) const {
        on_first(ranks, {}, body);
    }
};
struct guarded_runner {
    template <class F>
    void operator()(int ranks, F&& body) const {
        on_first(ranks, {.guard_truncation = true}, body);
    }
};
/// The thin transport with the watchdog on (every blocking operation polled; a hang in a check
/// ends the job naming the blocked operation long before ctest's TIMEOUT) and the collectives'
/// arguments compared first.
struct watched_runner {
    template <class F>
    void operator()(int ranks, F&& body) const {
        on_first(ranks, {.watchdog_s = 600, .check_collectives = true}, body);
    }
};
struct buffered_runner {
    template <class F>
    void operator()(int ranks, F&& body) const {
        on_first(ranks, {.guard_truncation = true}, [&](transport& t) {
            comet::buffered b(t);
            body(b);
        });
    }
};

std::vector<std::byte> pattern(std::size_t n, int seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((static_cast<std::size_t>(seed) * 131 + i * 7) & 0xff);
    return v;
}

/// Throws (ending the job, naming the rank) unless `ok`.
template <class T, class... Parts>
void require(const T& t, bool ok, const Parts&... parts) {
    if (!ok) comet::raise<std::logic_error>(t.rank(), parts...);
}

template <class T>
void require_pattern(const T& t, const std::vector<std::byte>& got, std::size_t n, int seed, const char* what) {
    const auto want = pattern(n, seed);
    require(t, got.size() >= n && std::memcmp(got.data(), want.data(), n) == 0, what, ": the ", n, " bytes differ from what was sent");
}

template <class T>
void require_status(const T& t, const comet::status& s, int source, int tag, std::size_t size, const char* what) {
    require(t, s.source == source && s.tag == tag && s.size == size, what, ": status {", s.source, ", ", s.tag, ", ", s.size,
            "}, expected {", source, ", ", tag, ", ", size, "}");
}

/// Runs `body` expecting truncation_error mentioning every word; throws otherwise.
template <class T, class Body>
void require_truncation(const T& t, Body&& body, std::initializer_list<const char*> words) {
    try {
        body();
    } catch (const comet::truncation_error& e) {
        require(t, mentions(e, words), "the truncation message \"", e.what(), "\" misses a detail");
        return;
    }
    require(t, false, "no truncation_error was raised");
}

constexpr std::size_t mib = std::size_t{1} << 20;

}  // namespace mpi_test

using mpi_test::mpi_setup;
BOOST_TEST_GLOBAL_FIXTURE(mpi_setup);

// The thin transport's receive_buffer_sizes check receives 100,000 bytes into 10: on a
// single-copy path Open MPI writes the message past the buffer (see docs/transports.md),
// so tests.cmake runs that case of the plain and the watched suites in a job of its own with
// single copy off.
COMET_TRANSPORT_CONFORMANCE(mpi_conformance, mpi_test::thin_runner{})
COMET_TRANSPORT_CONFORMANCE(mpi_guarded_conformance, mpi_test::guarded_runner{})
COMET_TRANSPORT_CONFORMANCE(mpi_buffered_conformance, mpi_test::buffered_runner{})
COMET_TRANSPORT_CONFORMANCE(mpi_watched_conformance, mpi_test::watched_runner{})

BOOST_AUTO_TEST_SUITE(mpi)

using namespace mpi_test;
using comet::mpi::run;

BOOST_AUTO_TEST_CASE(the_transport_types) {
    static_assert(comet::transport<transport>);
    // MPI_Bsend is there, but as a mode of its own: kernels whose ranks both send first swap by
    // MPI_Sendrecv; the decorator buffers every send, and they use its bsend.
    static_assert(comet::buffered_send_transport<transport> && !comet::buffering_transport<transport>);
    static_assert(comet::kernels::swap_form_of<transport>() == comet::kernels::swap_form::sendrecv);
    using buffered = comet::buffered<transport>;
    static_assert(comet::buffering_transport<buffered>);
    static_assert(comet::kernels::swap_form_of<buffered>() == comet::kernels::swap_form::send_recv);
    static_assert(comet::buffered_send_transport<buffered> && comet::sendrecv_transport<buffered> &&
                  comet::synchronous_send_transport<buffered> && comet::ready_send_transport<buffered> &&
                  comet::nonblocking_collective_transport<buffered> && comet::progress_transport<buffered>);
    static_assert(comet::ops::barrier.implementation_for<transport>() == comet::ops::implementation::native);
    static_assert(comet::ops::recv.implementation_for<transport>() == comet::ops::implementation::native);
    static_assert(comet::ops::gather.implementation_for<transport>() == comet::ops::implementation::native);
    static_assert(comet::ops::allreduce_min.implementation_for<transport>() == comet::ops::implementation::native);
    static_assert(comet::ops::reduce_sum.implementation_for<transport>() == comet::ops::implementation::native);
    static_assert(comet::ops::reduce_max.implementation_for<transport>() == comet::ops::implementation::native);
    static_assert(comet::ops::reduce_min.implementation_for<transport>() == comet::ops::implementation::native);
    static_assert(comet::ops::alltoall.implementation_for<transport>() == comet::ops::implementation::native);
    // The decorator forwards them (transport/adaptor.hpp).
    static_assert(comet::ops::reduce_sum.implementation_for<buffered>() == comet::ops::implementation::native);
    static_assert(comet::ops::alltoall.implementation_for<buffered>() == comet::ops::implementation::native);
    BOOST_TEST(true);
}

BOOST_AUTO_TEST_CASE(run_returns_this_ranks_result) {
    const boost::mpi::communicator world;
    const int r = run([](transport& t) { return t.rank() * 10 + t.size(); });
    BOOST_TEST(r == world.rank() * 10 + world.size());
}

BOOST_AUTO_TEST_CASE(identity_and_clock) {
    run([](transport& t) {
        const boost::mpi::communicator world;
        require(t, t.rank() == world.rank() && t.size() == world.size(), "rank/size differ from the communicator's");
        int* global = nullptr;
        int found = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &found);
        require(t, t.clock_is_global() == (found && *global != 0), "clock_is_global() disagrees with MPI_WTIME_IS_GLOBAL");
        const double a = t.now(), b = MPI_Wtime(), c = t.now();
        require(t, a <= b && b <= c, "now() is not MPI_Wtime");
        int same = 0;
        MPI_Comm_compare(t.native(), world, &same);
        require(t, same == MPI_CONGRUENT, "the transport's communicator is not a duplicate of the one given");
    });
}

// comet's messages travel on a duplicate: a receive the caller posted on the original
// communicator (any source, any tag) sees none of them, and comet sees none of the caller's.
BOOST_AUTO_TEST_CASE(traffic_stays_off_the_callers_communicator) {
    run([](transport& t) {
        const boost::mpi::communicator world;
        if (t.size() < 2) return;
        std::vector<std::byte> theirs(16);
        MPI_Request user = MPI_REQUEST_NULL;
        MPI_Irecv(theirs.data(), 16, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, world, &user);
        const int next = (t.rank() + 1) % t.size(), prev = (t.rank() + t.size() - 1) % t.size();
        for (std::size_t n : {std::size_t{8}, mib}) {
            std::vector<std::byte> in(n);
            t.sendrecv(next, 5, pattern(n, t.rank()), prev, 5, in);
            require_pattern(t, in, n, prev, "ring message");
        }
        int done = 0;
        MPI_Test(&user, &done, MPI_STATUS_IGNORE);
        require(t, !done, "the caller's receive on the original communicator got a comet message");
        MPI_Cancel(&user);
        MPI_Wait(&user, MPI_STATUS_IGNORE);
        t.barrier();  // every rank has looked before rank 0 sends on the original communicator
        if (t.rank() == 0) MPI_Send(theirs.data(), 4, MPI_BYTE, 1, 5, world);
        t.barrier();
        require(t, !t.iprobe(comet::any_source, comet::any_tag).has_value(), "comet saw the caller's message");
        if (t.rank() == 1) MPI_Recv(theirs.data(), 16, MPI_BYTE, 0, 5, world, MPI_STATUS_IGNORE);
    });
}

// MPI_Rsend and MPI_Irsend into a receive posted before (the ready-send contract), at eager
// and rendezvous sizes; MPI_Ssend completing once received.
BOOST_AUTO_TEST_CASE(ready_and_synchronous_sends) {
    run([](transport& t) {
        if (t.rank() > 1 || t.size() < 2) return;
        const int peer = 1 - t.rank();
        std::vector<std::byte> in(mib), go(1);
        for (std::size_t n : {std::size_t{0}, std::size_t{8}, std::size_t{5000}, mib}) {
            if (t.rank() == 1) {
                auto a = t.irecv(peer, 1, in);
                std::vector<std::byte> second(n);
                auto b = t.irecv(peer, 2, second);
                t.send(peer, 9, go);  // both receives are posted
                require_status(t, t.wait(a), peer, 1, n, "rsend");
                require_pattern(t, in, n, 1, "rsend");
                require_status(t, t.wait(b), peer, 2, n, "irsend");
                require_pattern(t, second, n, 2, "irsend");
                t.recv(peer, 3, in);
                require_pattern(t, in, n, 3, "ssend");
            } else {
                t.recv(peer, 9, go);
                t.rsend(peer, 1, pattern(n, 1));
                const auto out = pattern(n, 2);
                auto r = t.irsend(peer, 2, out);
                require_status(t, t.wait(r), peer, 2, n, "irsend's own status");
                t.ssend(peer, 3, pattern(n, 3));
            }
        }
    });
}

// MPI_Sendrecv around the ring in both directions, any_source and any_tag on the receive, and
// between pairs (each the other's source and destination) with different sizes each way.
BOOST_AUTO_TEST_CASE(sendrecv_both_ways) {
    run([](transport& t) {
        const int p = t.size(), me = t.rank(), next = (me + 1) % p, prev = (me + p - 1) % p;
        std::vector<std::byte> in(mib);
        for (std::size_t n : {std::size_t{0}, std::size_t{8}, std::size_t{4096}, std::size_t{70000}, mib}) {
            require_status(t, t.sendrecv(next, 3, pattern(n, me), prev, 3, in), prev, 3, n, "sendrecv forward");
            require_pattern(t, in, n, prev, "sendrecv forward");
            require_status(t, t.sendrecv(prev, 4, pattern(n, 100 + me), comet::any_source, 4, in), next, 4, n,
                           "sendrecv backward (any source)");
            require_pattern(t, in, n, 100 + next, "sendrecv backward");
        }
        // Pairs 0-1, 2-3, ...: a message of one size out, another size back (every ring message
        // has been received, so any tag can only match the partner's).
        const int partner = me ^ 1;
        if (partner < p) {
            const std::size_t mine = 1000 + 10 * static_cast<std::size_t>(me), theirs = 1000 + 10 * static_cast<std::size_t>(partner);
            require_status(t, t.sendrecv(partner, 5, pattern(mine, me), partner, comet::any_tag, in), partner, 5, theirs, "sendrecv pair");
            require_pattern(t, in, theirs, partner, "sendrecv pair");
        }
    });
}

// The collectives' values: gather in rank order on every root, broadcast from every root, the
// reductions' sum, maximum and minimum (each extreme on a different rank for each element).
BOOST_AUTO_TEST_CASE(collectives_values) {
    run([](transport& t) {
        const int p = t.size(), me = t.rank();
        for (int root = 0; root < p; ++root) {
            const auto mine = pattern(24, me);
            std::vector<std::byte> all(root == me ? 24 * static_cast<std::size_t>(p) : 0);
            t.gather(root, mine, all);
            if (me == root)
                for (int r = 0; r < p; ++r) {
                    const auto want = pattern(24, r);
                    require(t, std::memcmp(all.data() + 24 * r, want.data(), 24) == 0, "gather: rank ", r, "'s block is wrong");
                }
            auto data = me == root ? pattern(100000, root) : std::vector<std::byte>(100000);
            t.broadcast(root, data);
            require_pattern(t, data, 100000, root, "broadcast");
        }
        std::vector<double> sum(5), hi(5), lo(5);
        for (int i = 0; i < 5; ++i) {
            sum[i] = me + 0.25 * i;
            hi[i] = lo[i] = (me + i) % p - 0.5;
        }
        t.allreduce_sum(sum);
        t.allreduce_max(hi);
        t.allreduce_min(lo);
        for (int i = 0; i < 5; ++i) {
            require(t, sum[i] == p * (p - 1) / 2.0 + 0.25 * i * p, "allreduce_sum[", i, "] = ", sum[i]);
            require(t, hi[i] == (p - 1) - 0.5, "allreduce_max[", i, "] = ", hi[i]);
            require(t, lo[i] == -0.5, "allreduce_min[", i, "] = ", lo[i]);
        }
        // The root's buffer is checked before MPI sees it (on one process only: elsewhere the
        // other ranks would be left in an MPI_Gather the root never joined).
        if (p == 1) {
            std::vector<std::byte> small(4);
            try {
                t.gather(0, pattern(8, me), small);
                require(t, false, "gather into too small a buffer did not fail");
            } catch (const comet::invalid_argument& e) {
                require(t, mentions(e, {"rank 0:", "holds 4 bytes", "blocks of 8"}), "unexpected gather error: ", e.what());
            }
        }
    });
}

// MPI_Reduce and MPI_Alltoall behind reduce_sum/_max/_min and alltoall, at every root, checked
// against exact values and against comet's portable algorithms run on the same job: the same
// results (sums of values whose sum is exact, so any order of additions gives the same bits),
// the same bytes. A non-root's values are left as they were (MPI_IN_PLACE at the root only).
BOOST_AUTO_TEST_CASE(reductions_to_a_root_and_alltoall) {
    run([](transport& t) {
        const int p = t.size(), me = t.rank();
        for (int root = 0; root < p; ++root) {
            std::vector<double> sum(7), hi(7), lo(7);
            for (std::size_t i = 0; i < sum.size(); ++i) {
                sum[i] = me * 8.0 + 0.125 * static_cast<double>(i);
                hi[i] = lo[i] = (me + root + static_cast<int>(i)) % p + 0.5;
            }
            auto portable_sum = sum, portable_hi = hi, portable_lo = lo;
            const auto sum0 = sum;
            t.reduce_sum(root, sum);
            t.reduce_max(root, hi);
            t.reduce_min(root, lo);
            comet::algorithms::reduce(t, root, portable_sum, [](double a, double b) { return a + b; });
            comet::algorithms::reduce(t, root, portable_hi, [](double a, double b) { return std::max(a, b); });
            comet::algorithms::reduce(t, root, portable_lo, [](double a, double b) { return std::min(a, b); });
            if (me != root) {
                require(t, sum == sum0 && portable_sum == sum0, "reduce_sum to rank ", root, " changed a non-root's values");
                continue;
            }
            for (std::size_t i = 0; i < sum.size(); ++i) {
                require(t, sum[i] == 4.0 * p * (p - 1) + 0.125 * static_cast<double>(i) * p, "reduce_sum[", i, "] = ", sum[i]);
                require(t, hi[i] == p - 0.5, "reduce_max[", i, "] = ", hi[i]);
                require(t, lo[i] == 0.5, "reduce_min[", i, "] = ", lo[i]);
            }
            require(t, sum == portable_sum && hi == portable_hi && lo == portable_lo,
                    "MPI_Reduce and the portable tree differ at root ", root);
        }
        // Blocks empty, small (eager) and large (rendezvous), one call after another.
        for (std::size_t block : {std::size_t{0}, std::size_t{24}, std::size_t{70000}}) {
            std::vector<std::byte> out(block * static_cast<std::size_t>(p));
            for (int to = 0; to < p; ++to) {
                const auto part = pattern(block, me * 64 + to);
                std::copy(part.begin(), part.end(), out.begin() + static_cast<std::ptrdiff_t>(block) * to);
            }
            std::vector<std::byte> native(out.size()), portable(out.size());
            t.alltoall(out, native);
            comet::algorithms::alltoall(t, out, portable);
            for (int from = 0; from < p; ++from) {
                const auto want = pattern(block, from * 64 + me);
                require(t, std::equal(want.begin(), want.end(), native.begin() + static_cast<std::ptrdiff_t>(block) * from),
                        "alltoall of ", block, "-byte blocks: rank ", from, "'s block is wrong");
            }
            require(t, native == portable, "MPI_Alltoall and the portable exchange differ for ", block, "-byte blocks");
        }
        // Through ops: the natives run, and say so.
        std::vector<double> v{1.0};
        require(t, comet::ops::reduce_sum(t, p - 1, v) == comet::ops::implementation::native, "ops::reduce_sum was not native");
        require(t, me != p - 1 || v[0] == p, "ops::reduce_sum gave ", v[0]);
        std::vector<std::byte> out(static_cast<std::size_t>(p), std::byte{9}), in(out.size());
        require(t, comet::ops::alltoall(t, out, in) == comet::ops::implementation::native, "ops::alltoall was not native");
        require(t, in == out, "ops::alltoall: wrong bytes");
    });
    // With the truncation guard and a guarded receive waiting, both run as their nonblocking
    // twins (MPI_Ireduce, MPI_Ialltoall), polled while the guard matches.
    comet::mpi::run(boost::mpi::communicator{}, {.guard_truncation = true}, [](transport& t) {
        const int p = t.size(), me = t.rank();
        std::vector<std::byte> note(8);
        transport::request waiting = t.irecv(comet::any_source, 5, note);
        std::vector<double> v{me + 0.5, -me * 2.0};
        t.reduce_sum(0, v);
        require(t, me != 0 || (v[0] == p * p / 2.0 && v[1] == -1.0 * p * (p - 1)), "guarded reduce_sum gave ", v[0], ", ", v[1]);
        std::vector<std::byte> out(3 * static_cast<std::size_t>(p)), in(out.size());
        for (int to = 0; to < p; ++to)
            for (int j = 0; j < 3; ++j) out[static_cast<std::size_t>(3 * to + j)] = static_cast<std::byte>(me * 16 + to * 3 + j);
        t.alltoall(out, in);
        for (int from = 0; from < p; ++from)
            for (int j = 0; j < 3; ++j)
                require(t, in[static_cast<std::size_t>(3 * from + j)] == static_cast<std::byte>(from * 16 + me * 3 + j),
                        "guarded alltoall: byte ", j, " from rank ", from, " is wrong");
        t.send((me + 1) % p, 5, pattern(8, me));
        const comet::status got = t.wait(waiting);
        require_status(t, got, (me + p - 1) % p, 5, 8, "the guarded receive");
        require_pattern(t, note, 8, (me + p - 1) % p, "the guarded receive");
    });
}

// Truncation on every receive path of the thin transport: MPI_ERR_TRUNCATE becomes
// truncation_error naming this rank, the message's size and the buffer's; the message is
// consumed and the next one arrives. The buffers are prefixes of larger vectors, because on a
// single-copy path Open MPI writes the whole message before it reports the truncation.
BOOST_AUTO_TEST_CASE(truncation_on_every_receive_path) {
    run([](transport& t) {
        if (t.rank() > 1 || t.size() < 2) return;
        std::vector<std::byte> room(2 * mib);
        const std::span<std::byte> ten(room.data(), 10);
        if (t.rank() == 1) {
            for (std::size_t n : {std::size_t{100}, std::size_t{5000}, mib}) {
                const std::string size = std::to_string(n) + "-byte";
                require_truncation(t, [&] { t.recv(0, 1, ten); }, {"rank 1:", "recv from rank 0 (tag 1)", size.c_str(), "10-byte"});
                auto r = t.irecv(0, 2, ten);
                require_truncation(t, [&] { t.wait(r); }, {"rank 1:", size.c_str(), "10-byte"});
                require(t, !r.pending() && t.wait(r) == comet::status{}, "a failed request is not over");
                auto q = t.irecv(0, 3, ten);
                require_truncation(t, [&] { while (!t.test(q)) {} }, {"rank 1:", size.c_str(), "10-byte"});
                require_truncation(t, [&] { t.sendrecv(0, 4, {}, 0, 4, ten); }, {"rank 1:", "sendrecv", size.c_str(), "10-byte"});
                std::vector<transport::request> rs;
                rs.push_back(t.irecv(0, 5, ten));
                require_truncation(t, [&] { t.wait_all(rs); }, {"rank 1:", size.c_str(), "10-byte"});
                std::vector<std::byte> in(64);
                require_status(t, t.recv(0, 6, in), 0, 6, 64, "the message after the truncations");
                require_pattern(t, in, 64, 6, "the message after the truncations");
            }
        } else {
            for (std::size_t n : {std::size_t{100}, std::size_t{5000}, mib}) {
                const auto big = pattern(n, 1);
                std::vector<transport::request> out;
                for (int tag : {1, 2, 3}) out.push_back(t.isend(1, tag, big));
                std::vector<std::byte> none(0);
                t.sendrecv(1, 4, big, 1, 4, none);
                out.push_back(t.isend(1, 5, big));
                t.wait_all(out);
                t.send(1, 6, pattern(64, 6));
            }
        }
    });
}

// With options::guard_truncation a message longer than the buffer is never written into it:
// the bytes past the buffer stay as they were, on every receive path and at every size
// (rendezvous ones included, where Open MPI's single copy would write past the end), and
// guarded irecvs still match in the order they were posted.
BOOST_AUTO_TEST_CASE(the_truncation_guard_keeps_the_bytes_past_the_buffer) {
    run(boost::mpi::communicator{}, {.guard_truncation = true}, [](transport& t) {
        require(t, t.guards_truncation(), "the option did not take");
        if (t.rank() > 1 || t.size() < 2) return;
        if (t.rank() == 1) {
            std::vector<std::byte> room(mib + 64, std::byte{0xEE});
            const std::span<std::byte> ten(room.data(), 10);
            const auto untouched = [&](const char* what) {
                for (std::size_t i = 10; i < room.size(); ++i)
                    require(t, room[i] == std::byte{0xEE}, what, ": byte ", i, " past the 10-byte buffer was written");
            };
            for (std::size_t n : {std::size_t{100}, std::size_t{5000}, mib}) {
                const std::string size = std::to_string(n) + "-byte";
                require_truncation(t, [&] { t.recv(0, 1, ten); }, {"rank 1:", size.c_str(), "10-byte"});
                untouched("recv");
                auto r = t.irecv(0, 2, ten);
                require_truncation(t, [&] { t.wait(r); }, {"rank 1:", size.c_str(), "10-byte"});
                untouched("irecv");
                require_truncation(t, [&] { t.sendrecv(0, 4, {}, 0, 4, ten); }, {"rank 1:", "sendrecv", size.c_str()});
                untouched("sendrecv");
                // Post order: three receives for the same source and tag, the first too small.
                std::vector<std::byte> b(n), c(n);
                auto first = t.irecv(0, 5, ten);
                auto second = t.irecv(0, 5, b);
                auto third = t.irecv(comet::any_source, 5, c);
                std::vector<std::byte> go(1);
                t.send(0, 9, go);
                require_status(t, t.wait(third), 0, 5, n, "third guarded irecv");
                require_pattern(t, c, n, 53, "third guarded irecv");
                require_status(t, t.wait(second), 0, 5, n, "second guarded irecv");
                require_pattern(t, b, n, 52, "second guarded irecv");
                require_truncation(t, [&] { t.wait(first); }, {"rank 1:", size.c_str(), "10-byte"});
                untouched("the first of three irecvs");
            }
        } else {
            std::vector<std::byte> none(0), go(1);
            for (std::size_t n : {std::size_t{100}, std::size_t{5000}, mib}) {
                const auto big = pattern(n, 1);
                std::vector<transport::request> out;
                for (int tag : {1, 2}) out.push_back(t.isend(1, tag, big));
                t.sendrecv(1, 4, big, 1, 4, none);
                t.wait_all(out);
                t.recv(1, 9, go);  // rank 1's three receives are posted
                const auto m1 = pattern(n, 51), m2 = pattern(n, 52), m3 = pattern(n, 53);
                out.push_back(t.isend(1, 5, m1));
                out.push_back(t.isend(1, 5, m2));
                out.push_back(t.isend(1, 5, m3));
                t.wait_all(out);
            }
        }
    });
}

// test/wait on a default or completed request return a default status at once; a request
// dropped while pending: a receive is cancelled (its message goes to the next receive), a send
// completes (its message arrives).
BOOST_AUTO_TEST_CASE(request_lifetimes) {
    run([](transport& t) {
        transport::request none;
        require(t, !none.pending() && t.test(none) == comet::status{} && t.wait(none) == comet::status{}, "a default request");
        if (t.rank() > 1 || t.size() < 2) return;
        std::vector<std::byte> in(mib), one(1);
        if (t.rank() == 1) {
            { auto dropped = t.irecv(0, 3, in); }
            { auto dropped = t.irecv(comet::any_source, comet::any_tag, in); }
            t.send(0, 1, one);
            require_status(t, t.recv(0, 3, in), 0, 3, 300, "message after a cancelled receive");
            require_pattern(t, in, 300, 3, "message after a cancelled receive");
            require_status(t, t.recv(0, 4, in), 0, 4, mib, "message of a dropped isend");
            require_pattern(t, in, mib, 4, "message of a dropped isend");
        } else {
            t.recv(1, 1, one);
            const auto small = pattern(300, 3);
            auto r = t.isend(1, 3, small);
            require_status(t, t.wait(r), 1, 3, 300, "a completed send's status");
            require(t, !r.pending() && t.wait(r) == comet::status{} && t.test(r) == comet::status{},
                    "a completed request again: not a default status");
            transport::request moved = std::move(r);
            require(t, !moved.pending(), "a moved completed request is pending");
            const auto out = pattern(mib, 4);
            { auto dropped = t.isend(1, 4, out); }  // waits until rank 1 receives it
        }
    });
}

// The deprecated name still works for one release.
BOOST_AUTO_TEST_CASE(probe_is_a_deprecated_iprobe) {
    run([](transport& t) {
        const int me = t.rank();
        auto r = t.isend(me, 7, pattern(40, 7));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        std::optional<comet::status> seen;
        while (!(seen = t.probe(me, 7))) {
        }
#pragma GCC diagnostic pop
        require_status(t, *seen, me, 7, 40, "probe");
        std::vector<std::byte> in(40);
        t.recv(me, 7, in);
        t.wait(r);
        require(t, !t.iprobe(me, 7), "iprobe after the message was received");
    });
}

// Bad arguments name the value and the rank, and the transport stays usable.
BOOST_AUTO_TEST_CASE(bad_arguments_name_the_rank) {
    run([](transport& t) {
        const std::string me = "rank " + std::to_string(t.rank()) + ":";
        std::vector<std::byte> b(8);
        const auto expect = [&](auto&& call, const std::string& value) {
            try {
                call();
            } catch (const comet::invalid_argument& e) {
                require(t, mentions(e, {me.c_str(), value.c_str()}), "unexpected message ", e.what());
                return;
            }
            require(t, false, "no invalid_argument for ", value);
        };
        expect([&] { t.send(t.size(), 1, b); }, std::to_string(t.size()));
        expect([&] { t.ssend(0, 40000, b); }, "40000");
        expect([&] { t.bsend(t.size() + 2, 1, b); }, std::to_string(t.size() + 2));
        expect([&] { (void)t.irsend(-2, 1, b); }, "-2");
        expect([&] { (void)t.iprobe(0, -4); }, "-4");
        expect([&] { (void)t.ibroadcast(t.size() + 1, b); }, std::to_string(t.size() + 1));
        expect([&] { t.sendrecv(0, 1, b, t.size() + 3, 1, b); }, std::to_string(t.size() + 3));
        expect([&] { t.gather(-1, b, b); }, "-1");
        std::vector<double> v(2);
        expect([&] { t.reduce_sum(t.size(), v); }, "root: rank " + std::to_string(t.size()));
        expect([&] { t.reduce_min(-3, v); }, "-3");
        const std::vector<std::byte> blocks(2 * static_cast<std::size_t>(t.size()));
        std::vector<std::byte> longer(blocks.size() + 1);
        expect([&] { t.alltoall(blocks, longer); }, "holds " + std::to_string(longer.size()) + " bytes");
        if (t.size() > 1) {
            std::vector<std::byte> odd(static_cast<std::size_t>(t.size()) + 1);
            expect([&] { t.alltoall(odd, odd); }, std::to_string(odd.size()) + " bytes are not");
        }
        t.barrier();
    });
}

// MPI_Bsend: two ranks that both bsend and then receive complete, at sizes that make the
// transport attach its buffer (8 bytes), fill it (1 MiB messages, so the fourth waits for the
// first three to be sent) and grow it (6 MiB), and the messages arrive whole. Then rank 0 bsends
// 40 messages of 300,000 bytes before rank 1 receives any — the buffer is detached and attached
// again on the way — and 1,000 of 100 bytes after reserving room for them.
BOOST_AUTO_TEST_CASE(mpi_bsend_attaches_and_grows_its_buffer) {
    run([](transport& t) {
        if (t.rank() > 1 || t.size() < 2) return;
        const int peer = 1 - t.rank();
        int k = 0;
        for (std::size_t n : {std::size_t{8}, std::size_t{100000}, mib, std::size_t{8}, 6 * mib, mib}) {
            std::vector<std::byte> in(n);
            for (int round = 0; round < 5; ++round, ++k) {
                t.bsend(peer, 6, pattern(n, k * 2 + t.rank()));  // a temporary: MPI_Bsend copied it
                require_status(t, t.recv(peer, 6, in), peer, 6, n, "MPI_Bsend exchange");
                require_pattern(t, in, n, k * 2 + peer, "MPI_Bsend exchange");
            }
        }
        const std::size_t big = 300000;
        if (t.rank() == 0) {
            for (int m = 0; m < 40; ++m) t.bsend(1, 7, pattern(big, m));
            t.reserve_bsend(1000, 1000 * 100);
            for (int m = 0; m < 1000; ++m) t.bsend(1, 8, pattern(100, m));
        } else {
            std::vector<std::byte> in(big);
            for (int m = 0; m < 40; ++m) {
                require_status(t, t.recv(0, 7, in), 0, 7, big, "one of 40 bsends");
                require_pattern(t, in, big, m, "one of 40 bsends");
            }
            for (int m = 0; m < 1000; ++m) {
                require_status(t, t.recv(0, 8, std::span(in).first(100)), 0, 8, 100, "one of 1000 reserved bsends");
                require_pattern(t, in, 100, m, "one of 1000 reserved bsends");
            }
        }
    });
}

// COMMTEST: all 21 protocols run on MPI (MPI_Bsend, MPI_Rsend with its handshake, MPI_Sendrecv,
// MPI_Ssend, ...) between 0 and 1, and on 4 processes 0-2 alone and with 1-3 at once; the
// kernel checks every byte it receives.
BOOST_AUTO_TEST_CASE(commtest_every_protocol) {
    namespace ct = comet::kernels::commtest;
    run([](transport& t) {
        if (t.size() < 2) return;
        ct::commtest_config cfg;
        cfg.volumes = {131072};
        cfg.messages = {1, 16, 256};
        cfg.sampling = comet::fixed_sampling(2, 1);
        cfg.prepost = true;
        if (t.size() >= 4) cfg.pairs = {{{0, 2}}, {{0, 2}, {1, 3}}};
        const comet::result_set r = ct::commtest(t, cfg);
        if (t.rank() != 0) {
            require(t, r.empty(), "records on a rank that is not the test node");
            return;
        }
        require(t, r.size() == cfg.pairs.size() * 21 * 3, "commtest returned ", r.size(), " records");
        for (const auto& rec : r.records)
            require(t, rec.samples.size() == 2 && rec.samples[0] > 0 && rec.samples[1] > 0, "protocol ",
                    *rec.params.text("protocol"), " has no time");
    });
}

// comet::buffered: two ranks that both bsend 1 MiB and then receive complete (MPI_Send would
// wait for a receive neither has posted); many bsends before any receive are held in the
// decorator's storage, and collected once complete.
BOOST_AUTO_TEST_CASE(buffered_sends_never_wait) {
    run([](transport& t) {
        if (t.rank() > 1 || t.size() < 2) return;
        comet::buffered b(t);
        const int peer = 1 - b.rank();
        std::vector<std::byte> in(mib);
        for (int round = 0; round < 3; ++round) {
            b.bsend(peer, 1, pattern(mib, round * 2 + b.rank()));  // a temporary: the decorator copied it
            require_status(b, comet::ops::recv(b, peer, 1, in), peer, 1, mib, "bsend exchange");
            require_pattern(b, in, mib, round * 2 + peer, "bsend exchange");
        }
        b.flush();  // the exchanges' sends, received by now or soon
        require(b, b.pending_sends() == 0 && b.pending_bytes() == 0, "flush left sends pending");
        for (int k = 0; k < 8; ++k) b.bsend(peer, 2, pattern(100000, k));
        require(b, b.pending_sends() <= 8 && b.pending_bytes() <= 800000, "pending storage grows past what was sent");
        for (int k = 0; k < 8; ++k) {
            comet::ops::recv(b, peer, 2, in);
            require_pattern(b, in, 100000, k, "queued bsend");
        }
        b.flush();
        require(b, b.pending_sends() == 0 && b.pending_bytes() == 0, "flush left sends pending");
        b.bsend(peer, 3, pattern(mib, 3));  // completed by the destructor, once the peer receives it
        std::vector<std::byte> last(mib);
        t.recv(peer, 3, last);
    });
}

// A program the receive path once deadlocked: rank 1 sends 11,360 bytes with tag T, 1 MiB with tag U, 8 bytes with
// tag T; rank 0 receives T, T, U; 20 rounds. With blocking sends this program waits forever by
// MPI's own rules (the 1 MiB MPI_Send needs the receive rank 0 posts last), so it runs in the
// two forms that are valid: nonblocking sends on the thin transport, and the send-first form on
// comet::buffered. Either way the second T receive must get the 8-byte message.
BOOST_AUTO_TEST_CASE(a_large_message_between_two_of_another_tag) {
    constexpr int T = 4, U = 5;
    const auto program = [](auto& t, auto&& send3) {
        if (t.rank() > 1 || t.size() < 2) return;
        std::vector<std::byte> in(mib);
        for (int round = 0; round < 20; ++round) {
            if (t.rank() == 1) {
                send3(t, round);
            } else {
                require_status(t, comet::ops::recv(t, 1, T, in), 1, T, 11360, "first T");
                require_pattern(t, in, 11360, round * 3, "first T");
                require_status(t, comet::ops::recv(t, 1, T, in), 1, T, 8, "second T");
                require_pattern(t, in, 8, round * 3 + 2, "second T");
                require_status(t, comet::ops::recv(t, 1, U, in), 1, U, mib, "U");
                require_pattern(t, in, mib, round * 3 + 1, "U");
            }
        }
    };
    run([&](transport& t) {
        program(t, [](transport& tr, int round) {
            const auto a = pattern(11360, round * 3), b = pattern(mib, round * 3 + 1), c = pattern(8, round * 3 + 2);
            transport::request rs[] = {tr.isend(0, T, a), tr.isend(0, U, b), tr.isend(0, T, c)};
            tr.wait_all(rs);
        });
    });
    run([&](transport& t) {
        comet::buffered b(t);
        program(b, [](comet::buffered<transport>& tr, int round) {
            tr.bsend(0, T, pattern(11360, round * 3));
            tr.bsend(0, U, pattern(mib, round * 3 + 1));
            tr.bsend(0, T, pattern(8, round * 3 + 2));
        });
    });
}

// A message to oneself (the transport once hung on it), then its receive, for the sizes that hung
// (969 to 1024 bytes) and around. A blocking MPI_Send to oneself may wait for the receive
// forever (MPI-3.1 §3.5: an unsafe program), so the send is nonblocking on the thin transport
// and buffered on comet::buffered.
BOOST_AUTO_TEST_CASE(a_message_to_oneself) {
    std::vector<std::size_t> sizes{0, 1, 968, 1025, 4096, 65536, mib};
    for (std::size_t n = 969; n <= 1024; ++n) sizes.push_back(n);
    run([&](transport& t) {
        const int me = t.rank();
        std::vector<std::byte> in(mib);
        for (std::size_t n : sizes) {
            const auto out = pattern(n, static_cast<int>(n));
            auto r = t.isend(me, 5, out);
            require_status(t, t.recv(me, 5, in), me, 5, n, "message to oneself");
            require_pattern(t, in, n, static_cast<int>(n), "message to oneself");
            require_status(t, t.wait(r), me, 5, n, "its send");
        }
        comet::buffered b(t);
        for (std::size_t n : sizes) {
            b.bsend(me, 6, pattern(n, static_cast<int>(n) + 1));
            require_status(b, comet::ops::recv(b, me, 6, in), me, 6, n, "buffered message to oneself");
            require_pattern(b, in, n, static_cast<int>(n) + 1, "buffered message to oneself");
        }
    });
}

// Three (or more) ranks exchanging 5,000-byte messages with every other rank, in the
// send-first form on comet::buffered and by sendrecv on the thin transport.
BOOST_AUTO_TEST_CASE(everyone_exchanges_5000_bytes) {
    run([](transport& t) {
        const int p = t.size(), me = t.rank();
        std::vector<std::byte> in(5000);
        for (int round = 0; round < 20; ++round)
            for (int k = 1; k < p; ++k) {
                const int to = (me + k) % p, from = (me - k + p) % p;
                require_status(t, t.sendrecv(to, 6, pattern(5000, me * 7 + round), from, 6, in), from, 6, 5000, "sendrecv");
                require_pattern(t, in, 5000, from * 7 + round, "sendrecv");
            }
        comet::buffered b(t);
        for (int round = 0; round < 20; ++round) {
            for (int k = 1; k < p; ++k) b.bsend((me + k) % p, 7, pattern(5000, me * 7 + round));
            for (int k = 1; k < p; ++k) {
                const int from = (me - k + p) % p;
                require_status(b, comet::ops::recv(b, from, 7, in), from, 7, 5000, "bsend then recv");
                require_pattern(b, in, 5000, from * 7 + round, "bsend then recv");
            }
        }
    });
}

// ---- reliability: the deadlocks, sends to oneself and disagreeing collectives of a stress
// test of the transport (the programs that must end the job are reliability_programs.cpp's) ----

/// The option sets the reliability cases run under: thin, guarded, watched (watchdog and
/// collective checks on).
const comet::mpi::options reliability_options[] = {
    {}, {.guard_truncation = true}, {.watchdog_s = 600, .check_collectives = true}};

// Blocking sends into receives posted beforehand: rank 1 sends 11,360 bytes with tag T, 1 MiB
// with tag U and 8 bytes with tag T, each a blocking send; rank 0 has posted receives for T, T
// and U, in that order, and waits for all three. MPI matches them in post order, so the second T
// receive takes the 8 bytes whatever arrives first; 20 rounds. (A receive path that took any
// arrival with a pending receive's tag as its match, or a message's tail as a new message,
// hung here.) Rank 0 receiving T, T, U with blocking receives instead is unsafe under MPI: the
// 1 MiB send waits for a receive posted after the next T (reliability_programs send_first).
BOOST_AUTO_TEST_CASE(blocking_sends_into_posted_receives) {
    constexpr int T = 4, U = 5;
    for (const comet::mpi::options& o : reliability_options)
        on_first(2, o, [](transport& t) {
            std::vector<std::byte> first(mib), second(mib), third(mib);
            for (int round = 0; round < 20; ++round) {
                if (t.rank() == 1) {
                    t.send(0, T, pattern(11360, round * 3));
                    t.send(0, U, pattern(mib, round * 3 + 1));
                    t.send(0, T, pattern(8, round * 3 + 2));
                    continue;
                }
                transport::request rs[] = {t.irecv(1, T, first), t.irecv(1, T, second), t.irecv(1, U, third)};
                require_status(t, t.wait(rs[0]), 1, T, 11360, "first T");
                require_status(t, t.wait(rs[1]), 1, T, 8, "second T");
                require_status(t, t.wait(rs[2]), 1, U, mib, "U");
                require_pattern(t, first, 11360, round * 3, "first T");
                require_pattern(t, second, 8, round * 3 + 2, "second T");
                require_pattern(t, third, mib, round * 3 + 1, "U");
            }
        });
}

// Every rank exchanges 5,000-byte messages (above Open MPI's 4 KiB shared-memory eager limit)
// with every other: receives from all posted first, then a blocking send to each, then wait_all;
// 20 rounds, on the whole job (3, 4 and 5 ranks too).
BOOST_AUTO_TEST_CASE(everyone_sends_5000_bytes_into_posted_receives) {
    for (const comet::mpi::options& o : reliability_options)
        run(boost::mpi::communicator{}, o, [](transport& t) {
            const int p = t.size(), me = t.rank();
            std::vector<std::vector<std::byte>> in(static_cast<std::size_t>(p), std::vector<std::byte>(5000));
            for (int round = 0; round < 20; ++round) {
                std::vector<transport::request> rs;
                for (int k = 1; k < p; ++k) rs.push_back(t.irecv((me - k + p) % p, 8, in[static_cast<std::size_t>(k)]));
                for (int k = 1; k < p; ++k) t.send((me + k) % p, 8, pattern(5000, me * 7 + round));
                t.wait_all(rs);
                for (int k = 1; k < p; ++k) require_pattern(t, in[static_cast<std::size_t>(k)], 5000, ((me - k + p) % p) * 7 + round, "5000 bytes");
            }
        });
}

// A blocking send to oneself, then its receive, at every size from 969 to 1024 bytes (where
// Open MPI's self path stops sending eagerly and MPI_Send to oneself waited forever) and around,
// up to 1 MiB; then several sends before their receives (received in the order sent, one by
// any_source), and a send into a receive posted before it.
BOOST_AUTO_TEST_CASE(a_blocking_send_to_oneself) {
    std::vector<std::size_t> sizes{0, 1, 968, 1025, 4096, 65536, mib};
    for (std::size_t n = 969; n <= 1024; ++n) sizes.push_back(n);
    for (const comet::mpi::options& o : reliability_options)
        run(boost::mpi::communicator{}, o, [&](transport& t) {
            const int me = t.rank();
            std::vector<std::byte> in(mib);
            for (std::size_t n : sizes) {
                t.send(me, 5, pattern(n, static_cast<int>(n)));  // a temporary: the transport keeps its own copy
                require_status(t, t.recv(me, 5, in), me, 5, n, "send to oneself");
                require_pattern(t, in, n, static_cast<int>(n), "send to oneself");
            }
            for (std::size_t n : {std::size_t{1000}, mib, std::size_t{8}}) t.send(me, 6, pattern(n, static_cast<int>(n) + 1));
            require_status(t, t.recv(me, 6, in), me, 6, 1000, "first of three");
            require_pattern(t, in, 1000, 1001, "first of three");
            require_status(t, t.recv(comet::any_source, 6, in), me, 6, mib, "second of three");
            require_pattern(t, in, mib, static_cast<int>(mib) + 1, "second of three");
            require_status(t, t.recv(me, comet::any_tag, in), me, 6, 8, "third of three");
            auto r = t.irecv(me, 7, in);
            t.send(me, 7, pattern(mib, 7));
            require_status(t, t.wait(r), me, 7, mib, "send into a posted receive");
            require_pattern(t, in, mib, 7, "send into a posted receive");
        });
}

/// Runs `call`, which must raise invalid_argument on this rank naming the rank and every word.
template <class Call>
void require_refusal(const transport& t, Call&& call, std::initializer_list<const char*> words, const char* what) {
    try {
        call();
    } catch (const comet::invalid_argument& e) {
        const std::string me = "rank " + std::to_string(t.rank()) + ": ";
        require(t, mentions(e, {me.c_str()}) && mentions(e, words), what, ": the message \"", e.what(), "\" misses a detail");
        return;
    }
    require(t, false, what, ": no invalid_argument was raised");
}

// options::check_collectives: ranks that disagree on a collective's size or root all raise
// invalid_argument naming both sizes (or roots) and their ranks, before MPI runs the erroneous
// collective; the transport stays usable. Rank 0 passes the larger size, then the smaller.
BOOST_AUTO_TEST_CASE(collectives_whose_ranks_disagree) {
    run(boost::mpi::communicator{}, {.check_collectives = true}, [](transport& t) {
        const int p = t.size(), me = t.rank();
        require(t, t.checks_collectives() && t.watchdog_s() == 0, "the options did not take");
        if (p < 2) return;
        for (const std::size_t root_size : {std::size_t{2 * mib}, std::size_t{100}}) {
            const std::size_t other = root_size == 100 ? 2 * mib : 1000;
            const std::size_t n = me == 0 ? root_size : other;
            const std::string big = std::to_string(std::max(root_size, other)), small = std::to_string(std::min(root_size, other));
            const std::string larger = "rank " + std::string(root_size > other ? "0" : "1") + " passed " + big;
            const std::string smaller = "rank " + std::string(root_size > other ? "1" : "0") + " passed " + small;
            std::vector<std::byte> data(n + 64, std::byte{0x5a});  // bytes past the n must stay as they are
            require_refusal(t, [&] { t.broadcast(0, std::span(data).first(n)); }, {"broadcast", larger.c_str(), smaller.c_str()},
                            "broadcast");
            require_refusal(t, [&] { comet::ops::broadcast(t, 0, std::span(data).first(n)); }, {"broadcast", larger.c_str(), smaller.c_str()},
                            "ops::broadcast");
            require(t, std::all_of(data.begin(), data.end(), [](std::byte b) { return b == std::byte{0x5a}; }),
                    "a refused broadcast wrote into the buffer");
            std::vector<double> v(n / 8 + 1, 1.0);
            const std::string root_doubles = std::to_string(root_size / 8 + 1) + " doubles", other_doubles = std::to_string(other / 8 + 1) + " doubles";
            require_refusal(t, [&] { t.allreduce_sum(v); }, {"allreduce_sum", root_doubles.c_str(), other_doubles.c_str()}, "allreduce_sum");
            require_refusal(t, [&] { t.reduce_max(0, v); }, {"reduce_max", root_doubles.c_str(), other_doubles.c_str()}, "reduce_max");
            const std::size_t block = std::min<std::size_t>(n, 4096);
            std::vector<std::byte> mine(block), all(me == 0 ? block * static_cast<std::size_t>(p) : 0);
            require_refusal(t, [&] { t.gather(0, mine, all); }, {"gather", "bytes each"}, "gather");
            std::vector<std::byte> out(block * static_cast<std::size_t>(p)), in(out.size());
            require_refusal(t, [&] { t.alltoall(out, in); }, {"alltoall", "bytes to each rank"}, "alltoall");
        }
        std::vector<std::byte> b(16);
        require_refusal(t, [&] { t.broadcast(me == p - 1 ? 1 : 0, b); }, {"broadcast", "disagree on the root", "root 0", "root 1"},
                        "roots");
        // Agreeing calls still work, and give MPI's results.
        std::vector<std::byte> ok(1000, std::byte{static_cast<unsigned char>(me)});
        t.broadcast(p - 1, ok);
        require(t, ok[999] == std::byte{static_cast<unsigned char>(p - 1)}, "the broadcast after the refusals");
        std::vector<double> one{1.0};
        t.allreduce_sum(one);
        require(t, one[0] == p, "the allreduce after the refusals gave ", one[0]);
    });
}

// comet's portable collectives on the MPI transport, with ranks that disagree on a size: a rank
// given fewer bytes than it expects raises invalid_argument naming both sizes, one given more
// raises truncation_error naming both (on the guarded transport, which never writes past a
// buffer). Two processes: every rank of these collectives then has a partner that failed.
BOOST_AUTO_TEST_CASE(portable_collectives_whose_ranks_disagree) {
    on_first(2, {.guard_truncation = true}, [](transport& t) {
        const int me = t.rank();
        const auto expect = [&](auto&& call, const char* what) {
            try {
                call();
            } catch (const comet::truncation_error& e) {
                require(t, mentions(e, {"2000", "1000"}), what, ": ", e.what());
                return;
            } catch (const comet::invalid_argument& e) {
                require(t, mentions(e, {"2000", "1000"}), what, ": ", e.what());
                return;
            }
            require(t, false, what, ": the ranks' disagreement went unnoticed");
        };
        const std::size_t n = me == 0 ? 1000 : 2000;
        std::vector<std::byte> data(n);
        if (me == 1) expect([&] { comet::algorithms::broadcast(t, 0, data); }, "portable broadcast, the root smaller");
        else comet::algorithms::broadcast(t, 0, data);
        std::vector<std::byte> data2(3000 - n);
        if (me == 1) expect([&] { comet::algorithms::broadcast(t, 0, data2); }, "portable broadcast, the root larger");
        else comet::algorithms::broadcast(t, 0, data2);
        std::vector<std::byte> out(2 * n), in(2 * n);
        expect([&] { comet::algorithms::alltoall(t, out, in); }, "portable alltoall");
        t.barrier();
    });
}

// Collectives on the guarded transport while guarded receives wait on one rank only: that rank
// must not run a collective's nonblocking twin against the others' blocking one (MPI never
// matches the two; the job hung in MPI_Allreduce). Two processes.
BOOST_AUTO_TEST_CASE(guarded_collectives_while_one_rank_has_receives_waiting) {
    on_first(2, {.guard_truncation = true}, [](transport& t) {
        const int me = t.rank();
        std::vector<std::byte> in(64);
        transport::request r;
        if (me == 1) r = t.irecv(0, 7, in);  // waits in the guard until rank 0 sends
        std::vector<double> v{1.0 + me};
        t.allreduce_sum(v);
        require(t, v[0] == 3.0, "allreduce_sum gave ", v[0]);
        t.barrier();
        std::vector<std::byte> b(100, std::byte{static_cast<unsigned char>(me == 0 ? 9 : 0)});
        t.broadcast(0, b);
        require(t, b[99] == std::byte{9}, "broadcast gave ", static_cast<int>(b[99]));
        if (me == 0) t.send(1, 7, pattern(64, 3));
        if (me == 1) {
            require_status(t, t.wait(r), 0, 7, 64, "the guarded receive");
            require_pattern(t, in, 64, 3, "the guarded receive");
        }
    });
}

// The watchdog's limit: a number of seconds, 0 for off; anything else is refused on every rank.
BOOST_AUTO_TEST_CASE(watchdog_limits) {
    run([](transport& t) {
        require(t, t.watchdog_s() == 0 && !t.checks_collectives(), "the watchdog or the check is on by default");
        const boost::mpi::communicator world;
        for (double bad : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
            require_refusal(t, [&] { transport watched(world, {.watchdog_s = bad}); }, {"watchdog_s"}, "a bad watchdog_s");
        transport watched(world, {.watchdog_s = 0.5});
        require(t, watched.watchdog_s() == 0.5, "watchdog_s reads ", watched.watchdog_s());
        watched.barrier();
    });
}

// The kernels measure on the test node, whatever the number of processes; pairwise runs as
// MPI_Sendrecv and its records say so.
BOOST_AUTO_TEST_CASE(kernels_record_on_the_test_node) {
    const boost::mpi::communicator world;
    if (world.size() < 2) return;
    const std::vector<std::size_t> sizes{0, 8, 5000, mib};
    for (int test_node : {0, 1}) {
        const auto r = run([&](transport& t) {
            const comet::kernels::transfer_config cfg{.sizes = sizes, .test_node = test_node, .sampling = comet::fixed_sampling(2, 5)};
            comet::result_set all = comet::kernels::echo(t, cfg);
            all.append(comet::kernels::pairwise(t, cfg));
            return all;
        });
        const std::size_t hops = comet::kernels::default_hops(test_node, world.size()).size();
        if (world.rank() != test_node) {
            BOOST_TEST(r.records.empty());
            continue;
        }
        BOOST_TEST(r.of("echo").size() == hops * sizes.size());
        BOOST_TEST(r.of("pairwise").size() == hops * sizes.size());
        for (const auto& rec : r.records) {
            BOOST_TEST(rec.samples.size() == 2u);
            BOOST_TEST(rec.params.integer("nodes").value_or(-1) == world.size());
            for (double s : rec.samples) BOOST_TEST(s > 0.0);
        }
        for (const comet::record* rec : r.of("pairwise")) {
            // How the exchange ran is a value of the record, not part of its point.
            BOOST_TEST(rec->values.text("form").value_or("") == "sendrecv");
            BOOST_TEST(!rec->params.contains("form"));
        }
    }
}

BOOST_AUTO_TEST_CASE(run_suite_records_on_rank_0) {
    const boost::mpi::communicator world;
    if (world.size() < 2) return;
    const auto r = run([](transport& t) {
        return comet::run_suite(
            t, {.kernels = {"echo", "pairwise"}, .transfer = {.sizes = {8, 4096, 65536}, .sampling = comet::fixed_sampling(1, 10)}});
    });
    if (world.rank() == 0) {
        BOOST_TEST(r.of("echo").size() == 3 * comet::kernels::default_hops(0, world.size()).size());
        BOOST_TEST(r.of("pairwise").size() == 3 * comet::kernels::default_hops(0, world.size()).size());
    } else {
        BOOST_TEST(r.records.empty());
    }
}

// The whole CoMet suite, small, on the job: every kernel that fits the job's size records on
// rank 0, and the matrix kernels verify their results exactly (a wrong element would raise
// verification_error on every rank and end the job naming it).
BOOST_AUTO_TEST_CASE(the_whole_suite_runs_and_verifies) {
    const boost::mpi::communicator world;
    if (world.size() < 2) return;
    const auto r = run([](transport& t) { return comet::run_suite(t, comet_test::whole_suite_small()); });
    if (world.rank() == 0)
        comet_test::check_every_kernel_recorded(r, world.size());
    else
        BOOST_TEST(r.records.empty());
}

// A single flipped bit in one block a rank receives is caught by the verification, on every
// rank (verify_all is collective), naming the element, the rank and both values.
BOOST_AUTO_TEST_CASE(a_corrupted_block_is_caught) {
    const boost::mpi::communicator world;
    if (world.size() != 2 && world.size() != 4) return;  // the thesis' mesh: 2 and 4 processes
    const std::string said = run([](transport& t) {
        matrix_test::corrupting_transport<transport> ct(t, {.rank = 1, .source = 0, .byte = 40});
        comet::kernels::distributed_matrix m(t, 2);
        comet::kernels::shift_matrix(ct, m, comet::kernels::shift_direction::east);
        try {
            comet::kernels::verify_all(ct, m, comet::kernels::matrix_expectation::shift(comet::kernels::shift_direction::east));
        } catch (const comet::kernels::verification_error& e) {
            return std::string(e.what());
        }
        return std::string("no verification_error");
    });
    BOOST_TEST(mentions(std::runtime_error(said),
                        {"rank 1: shift_matrix(east) x 1: verification failed at global element", "found 1.0000000000000002"}),
               said);
}

// Clock synchronisation (comet/timing/sync.hpp) on the job, every process's clock skewed by
// comet::skewed_clock (up to ±1 s and ±100 ppm): after a sync, each process's global time is
// within its own error bound of rank 0's true clock, and within 5 µs (the best of up to five
// syncs: with more processes than cores a sync may meet only round trips stretched by the
// scheduler). The truth is the steady clock, one clock for every process on this machine, under
// the decorator: Open MPI's MPI_Wtime counts from each process's MPI_Init, so the transport's own
// clocks already disagree by however far apart the processes started.
BOOST_AUTO_TEST_CASE(clock_sync_under_skewed_clocks) {
    const boost::mpi::communicator world;
    if (world.size() != 2 && world.size() != 4) return;
    struct steady_time : comet::transport_adaptor<transport> {
        using comet::transport_adaptor<transport>::transport_adaptor;
        double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
    };
    for (comet::sync_scheme scheme : {comet::sync_scheme::linear, comet::sync_scheme::log_p}) {
        const double best = run([&](transport& t) {
            steady_time steady(t);
            comet::skewed_clock skewed(steady, comet::seeded_skew(17, t.rank()));
            comet::skew_mapping zero = skewed.mapping();
            comet::ops::broadcast(t, 0, std::as_writable_bytes(std::span(&zero, 1)));
            // Judged on the syncs the clock itself calls undisturbed (every process's error bound
            // within 20 us): with more processes than cores, or beside other work, a process
            // descheduled in the middle of a ping-pong widens that sync's bound (and its true
            // error stays within it: checked on every attempt). None undisturbed in ten
            // attempts: infinity, said below.
            double least = std::numeric_limits<double>::infinity();
            for (int attempt = 0; attempt < 10 && least > 5e-6; ++attempt) {
                comet::global_clock g(skewed, {.scheme = scheme});
                const double local = skewed.now();
                const double error = std::fabs(g.global_time(local) - zero.local_time(skewed.true_time(local)));
                require(t, error <= g.error_bound_at(local) + 1e-9, comet::to_string(scheme), ": true error ", error,
                        " s is beyond the clock's own bound ", g.error_bound_at(local), " s");
                require(t, g.scheme() == scheme && g.steps() == (scheme == comet::sync_scheme::linear ? t.size() - 1 : (t.size() == 2 ? 1 : 2)),
                        "the sync reports scheme ", comet::to_string(g.scheme()), " in ", g.steps(), " steps");
                // Whether to try again is decided on the largest error of any process, the same everywhere.
                std::array<double, 2> worst{error, g.error_bound_at(local)};
                comet::ops::allreduce_max(t, std::span<double>(worst));
                if (worst[1] <= 20e-6) least = std::min(least, worst[0]);
            }
            return least;
        });
        if (!std::isfinite(best)) {
            BOOST_TEST_MESSAGE(world.size() << " processes, " << comet::to_string(scheme)
                                            << ": no undisturbed sync in ten: the machine is too busy to judge its accuracy");
            continue;
        }
        BOOST_TEST_MESSAGE(world.size() << " processes, " << comet::to_string(scheme) << ": every process within " << best * 1e6
                                        << " us of rank 0's true clock");
        BOOST_TEST(best <= 5e-6);
    }
}

// The windowed collectives (seed 002) on the job: every operation, both measures, a record per
// reduction on rank 0; the global clock synchronised first where MPI_Wtime is not global (its
// error recorded), every reduction consistent with the others; and the sync kernel, which on a
// clock that is not global synchronises the processes' own clocks (skew "none").
BOOST_AUTO_TEST_CASE(windowed_collectives_and_sync_on_the_job) {
    const boost::mpi::communicator world;
    namespace k = comet::kernels;
    const k::windowed_collectives_config cfg{
        .operations = {k::collective_operation::broadcast, k::collective_operation::linear_broadcast, k::collective_operation::reduce,
                       k::collective_operation::allreduce, k::collective_operation::barrier, k::collective_operation::alltoall,
                       k::collective_operation::gather},
        .sizes = {8, 4096},
        .window = {.measurements = 4, .pipeline = 2},
        .sync = {.patience = 20}};
    bool global = false;
    const auto r = run([&](transport& t) {
        global = comet::ops::clock_is_global(t);
        comet::result_set all = k::windowed_collectives(t, cfg);
        all.append(k::clock_sync(t, {.repetitions = 2, .sync = {.patience = 20}, .rtt = {.measurements = 100}, .round_trips = true}));
        return all;
    });
    if (world.rank() != 0) {
        BOOST_TEST(r.records.empty());
        return;
    }
    BOOST_TEST(r.of("collectives").size() == k::windowed_collectives_points(cfg));
    const auto median = [&](const std::string& op, const std::string& how, const std::string& reduction, double size) {
        for (const comet::record* rec : r.of("collectives"))
            if (rec->params.text("operation") == op && rec->params.text("measure") == how &&
                rec->params.text("reduction") == reduction && rec->params.number("size") == size)
                return comet::summarize(*rec).median;
        return -1.0;
    };
    for (const comet::record* rec : r.of("collectives")) {
        // Measured, or (on a job too busy for its windows) flagged as a whole, saying why.
        const comet::flag* whole = comet::find_flag(rec->flags, "point");
        BOOST_TEST((comet::valid_count(*rec) >= 2u || whole != nullptr));
        if (whole) BOOST_TEST_MESSAGE("flagged: " << comet::point_name(*rec) << ": " << whole->why);
        BOOST_TEST(rec->params.integer("nodes").value_or(-1) == world.size());
        BOOST_TEST(rec->params.text("scheme").value_or("") == (global ? "none" : "log_p"));
        if (!global && world.size() > 1) BOOST_TEST(rec->values.number("clock_error").value_or(-1) > 0.0);
        const std::string op = *rec->params.text("operation"), how = *rec->params.text("measure");
        // The windows' tolerance; the loop schemes (seed 002's listings 1-3) have no window.
        if (how == "window" || how == "pipelined")
            BOOST_TEST(rec->values.number("tolerance").value_or(-1) >= comet::window_config{}.late_slack);
        else
            BOOST_TEST(!rec->values.contains("tolerance"));
        if (how != "window" && !whole) BOOST_TEST((rec->values.contains("versus_window") || !rec->notes.empty()));
        const double size = *rec->params.number("size");
        if (!whole) BOOST_TEST(median(op, how, "min", size) <= median(op, how, "max", size), op << " " << how << " " << size);
    }
    // Each scheme twice: the slowest rank's time and rank 0's.
    BOOST_TEST_REQUIRE(r.of("sync").size() == 4u);
    for (const comet::record* rec : r.of("sync")) {
        BOOST_TEST(rec->params.text("skew").value_or("") == (global ? "decorator" : "none"));
        BOOST_TEST(rec->samples.size() == 2u);
    }
    // The round-trip study (listing 4) against up to three partners, where there is one.
    const auto latency = [&] {
        std::size_t n = 0;
        for (const comet::record* rec : r.of("rtt")) n += rec->params.text("study") == "latency" ? 1 : 0;
        return n;
    }();
    BOOST_TEST(latency == static_cast<std::size_t>(std::min(world.size() - 1, 3)));
    for (const comet::record* rec : r.of("rtt"))
        if (rec->params.text("study") == "latency" && comet::usable(*rec)) {
            BOOST_TEST(rec->params.text("skew").value_or("") == (global ? "decorator" : "none"));
            BOOST_TEST(rec->values.contains("drift"));
        }
}

// A progress thread on the job: only where MPI provided MPI_THREAD_SERIALIZED, which
// comet::mpi::initialize asks for only when told (this program starts MPI with its default,
// MPI_THREAD_SINGLE). The nonblocking collectives' thread progression is then a record that
// says why it is not measured; the job with the thread running is test mpi_cli_nbc_thread_2.
BOOST_AUTO_TEST_CASE(a_progress_thread_needs_the_thread_level_mpi_provided) {
    const boost::mpi::communicator world;
    namespace k = comet::kernels;
    bool allowed = true;
    int level = -1;
    const auto r = run([&](transport& t) {
        allowed = comet::allows_second_thread(t);
        MPI_Query_thread(&level);
        return k::nbc(t, {.operations = {k::nbc_operation::iallreduce},
                          .sizes = {8},
                          .progressions = {k::progression::none, k::progression::thread},
                          .methods = {k::overhead_method::time},
                          .window = {.measurements = 4}});
    });
    BOOST_TEST(allowed == (level >= MPI_THREAD_SERIALIZED));
    if (world.rank() != 0) return;
    std::size_t threaded = 0;
    for (const comet::record* rec : r.of("nbc")) {
        if (rec->params.text("progression") != "thread") continue;
        ++threaded;
        if (allowed) {
            BOOST_TEST((comet::valid_count(*rec) > 0 || comet::find_flag(rec->flags, "point") != nullptr));
        } else {
            BOOST_TEST(rec->samples.empty());
            BOOST_TEST_REQUIRE(!rec->notes.empty());
            BOOST_TEST(rec->notes[0] == "not supported: MPI provided a thread level below MPI_THREAD_SERIALIZED");
        }
    }
    BOOST_TEST(threaded >= 1u);  // one per implementation: the schedule, and MPI's own where it has the operation
}

// The nonblocking collectives' engine (comet/nbc/engine.hpp) on the job, once with its schedules
// over MPI's point-to-point (prefer_native = false) and once preferring MPI's own (MPI_Ibarrier,
// MPI_Ibcast, MPI_Iallreduce for the sum; the rest stay schedules): every result exactly the
// blocking collective's on the same inputs and the same bits on every rank (integer-valued data;
// each rank compares with the one exact result), sizes 0 to 1 MiB, the pipeline (from 128 KiB)
// and reduce-scatter (from 2 KiB) included.
BOOST_AUTO_TEST_CASE(nbc_engine_schedules_and_natives_match_the_blocking_collectives) {
    run([](transport& t) {
        const int p = t.size(), me = t.rank();
        const auto np = static_cast<std::size_t>(p), q = static_cast<std::size_t>(std::bit_floor(np));
        // Integer-valued: exact sums; the largest and smallest on a different rank per element.
        const auto value = [&](int r, std::size_t i) { return static_cast<double>(i % 1000) + 3.0 * static_cast<double>((static_cast<std::size_t>(r) + i) % np); };
        using comet::nbc::reduce_op;
        const auto reduced = [&](reduce_op op, std::size_t i) {
            const auto base = static_cast<double>(i % 1000);
            return op == reduce_op::sum ? p * base + 3.0 * p * (p - 1) / 2 : op == reduce_op::max ? base + 3.0 * (p - 1) : base;
        };
        for (const bool prefer_native : {false, true}) {
            comet::nbc::engine<transport> nb(t, {.prefer_native = prefer_native});
            const auto ran = [&](comet::nbc::request<transport>& r, bool mpi_has_it, std::string_view algorithm, const char* what) {
                nb.wait(r);
                const bool native = prefer_native && mpi_has_it;
                require(t, r.implementation() == (native ? comet::nbc::implementation::native : comet::nbc::implementation::schedule),
                        what, ": ran as ", to_string(r.implementation()), " with prefer_native = ", prefer_native);
                require(t, r.algorithm() == (native ? std::string_view("native") : algorithm), what, ": algorithm ", r.algorithm());
            };
            for (int i = 0; i < 2; ++i) {
                auto r = nb.ibarrier();
                ran(r, true, "dissemination", "ibarrier");
            }
            const std::size_t sizes[] = {0, 1, 100, 4096, 65536, 128 * 1024, mib};
            for (std::size_t k = 0; k < std::size(sizes); ++k) {
                const std::size_t n = sizes[k];
                const int root = static_cast<int>(k % np);
                const auto want = pattern(n, root + static_cast<int>(k));
                std::vector<std::byte> data = me == root ? want : std::vector<std::byte>(n), blocking = data;
                auto r = nb.ibroadcast(root, data);
                ran(r, true, p > 2 && n >= 128 * 1024 ? "pipeline" : "binomial", "ibroadcast");
                comet::ops::broadcast(t, root, blocking);
                require(t, data == want && blocking == data, "ibroadcast of ", n, " bytes from ", root, ": wrong bytes");
            }
            for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{255}, std::size_t{256}, mib / 8})
                for (reduce_op op : {reduce_op::sum, reduce_op::max, reduce_op::min}) {
                    std::vector<double> v(n), want(n);
                    for (std::size_t i = 0; i < n; ++i) v[i] = value(me, i), want[i] = reduced(op, i);
                    std::vector<double> blocking = v;
                    auto r = nb.iallreduce(v, op);
                    ran(r, op == reduce_op::sum, n >= 256 && n >= q ? "reduce_scatter_allgather" : "recursive_doubling", "iallreduce");
                    if (op == reduce_op::sum) comet::ops::allreduce_sum(t, blocking);
                    if (op == reduce_op::max) comet::ops::allreduce_max(t, blocking);
                    if (op == reduce_op::min) comet::ops::allreduce_min(t, blocking);
                    require(t, n == 0 || (std::memcmp(v.data(), want.data(), n * sizeof(double)) == 0 &&
                                          std::memcmp(blocking.data(), v.data(), n * sizeof(double)) == 0),
                            "iallreduce ", to_string(op), " of ", n, " doubles: not the blocking one's exact result");
                }
            for (std::size_t total : {std::size_t{0}, 8 * np, 5000 * np, mib}) {
                const std::size_t block = total / np;
                std::vector<std::byte> out(block * np), in(out.size()), blocking(out.size());
                for (int to = 0; to < p; ++to) {
                    const auto part = pattern(block, me * 64 + to);
                    std::copy(part.begin(), part.end(), out.begin() + static_cast<std::ptrdiff_t>(block) * to);
                }
                auto r = nb.ialltoall(out, in);
                ran(r, false, "linear", "ialltoall");
                comet::ops::alltoall(t, out, blocking);
                require(t, in == blocking, "ialltoall of ", block, "-byte blocks differs from alltoall");
                for (int from = 0; from < p; ++from) {
                    const auto want = pattern(block, from * 64 + me);
                    require(t, std::equal(want.begin(), want.end(), in.begin() + static_cast<std::ptrdiff_t>(block) * from),
                            "ialltoall of ", block, "-byte blocks: rank ", from, "'s block is wrong");
                }
            }
            for (std::size_t n : {std::size_t{0}, std::size_t{24}, mib / np}) {
                const int root = p - 1;
                const auto mine = pattern(n, me + 5);
                std::vector<std::byte> all(me == root ? n * np : 0), blocking(all.size());
                auto r = nb.igather(root, mine, all);
                ran(r, false, "linear", "igather");
                comet::ops::gather(t, root, mine, blocking);
                require(t, all == blocking, "igather of ", n, " bytes differs from gather");
                if (me == root)
                    for (int from = 0; from < p; ++from) {
                        const auto want = pattern(n, from + 5);
                        require(t, std::equal(want.begin(), want.end(), all.begin() + static_cast<std::ptrdiff_t>(n) * from),
                                "igather of ", n, " bytes: rank ", from, "'s block is wrong");
                    }
            }
            require(t, nb.outstanding() == 0, "requests left outstanding");
        }
    });
}

BOOST_AUTO_TEST_SUITE_END()

// Run on their own by ctest (they end the job): a rank that throws, and one that aborts,
// while the others wait for messages that never come.
BOOST_AUTO_TEST_SUITE(failure, *boost::unit_test::disabled())

BOOST_AUTO_TEST_CASE(rank_throws) {
    comet::mpi::run([](comet::mpi::transport& t) {
        if (t.rank() == 1) throw std::runtime_error("thrown on purpose");
        std::vector<std::byte> b(8);
        t.recv(comet::any_source, 99, b);
    });
}

BOOST_AUTO_TEST_CASE(rank_aborts) {
    comet::mpi::run([](comet::mpi::transport& t) {
        if (t.rank() == 1) t.abort("aborted on purpose");
        t.barrier();
    });
}

BOOST_AUTO_TEST_SUITE_END()
