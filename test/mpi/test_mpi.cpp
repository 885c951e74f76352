// Tests of comet/transport/mpi.hpp, run by ctest under mpiexec with 2, 3 and 4 processes
// (test/mpi/tests.cmake): the conformance suite on the whole job, then what is particular to
// MPI — the buffering protocol (asks, held messages, stale asks), truncation on each receive
// path, requests dropped while pending, collectives on every rank, the kernels and run_suite.
// Every process runs every test; rank 0 logs progress, the others only failures. A check that
// throws inside comet::mpi::run ends the job (MPI_Abort) with the rank and the message, so a
// broken rule fails the test instead of hanging it. The `failure` suite is disabled: ctest runs
// its cases on their own and checks that the job ends non-zero, naming the rank.
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/kernels/matrix/matrix.hpp>
#include <comet/suite/suite.hpp>
#include <comet/testing/conformance.hpp>
#include <comet/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/test/results_reporter.hpp>
#include <boost/test/unit_test.hpp>
#include <boost/test/unit_test_log.hpp>

#include "../kernels/support.hpp"
#include "../support/messages.hpp"
#include "../support/suite_config.hpp"

#include <cstring>
#include <stdexcept>
#include <string>
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

/// The conformance runner: the group is the whole job (ranks() = its size).
struct world_runner {
    static constexpr bool catches_failures = false;  // a failing rank ends the job (MPI_Abort)
    static constexpr bool detects_deadlock = false;  // MPI reports no deadlock; ctest's TIMEOUT does
    int ranks() const { return boost::mpi::communicator{}.size(); }
    template <class F>
    void operator()(int, F&& body) const {
        comet::mpi::run(body);
    }
};

using comet::mpi::transport;
using comet_test::mentions;

std::vector<std::byte> pattern(std::size_t n, int seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((static_cast<std::size_t>(seed) * 131 + i * 7) & 0xff);
    return v;
}

/// Throws (ending the job, naming the rank) unless `ok`.
template <class... Parts>
void require(const transport& t, bool ok, const Parts&... parts) {
    if (!ok) comet::raise<std::logic_error>(t.rank(), parts...);
}

void require_pattern(const transport& t, const std::vector<std::byte>& got, std::size_t n, int seed, const char* what) {
    const auto want = pattern(n, seed);
    require(t, got.size() >= n && std::memcmp(got.data(), want.data(), n) == 0, what, ": the ", n, " bytes differ from what was sent");
}

/// Runs `body` expecting truncation_error mentioning every word; throws otherwise.
template <class Body>
void require_truncation(const transport& t, Body&& body, std::initializer_list<const char*> words) {
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

COMET_TRANSPORT_CONFORMANCE(mpi_conformance, mpi_test::world_runner{})

BOOST_AUTO_TEST_SUITE(mpi)

using namespace mpi_test;
using comet::mpi::run;

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
    });
}

// comet's messages travel on a duplicate: a receive the caller posted on the original
// communicator (any source, any tag) sees none of them, and comet sees none of the caller's.
BOOST_AUTO_TEST_CASE(traffic_stays_off_the_callers_communicator) {
    run([](transport& t) {
        const boost::mpi::communicator world;
        std::vector<std::byte> theirs(16);
        MPI_Request user = MPI_REQUEST_NULL;
        MPI_Irecv(theirs.data(), 16, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, world, &user);
        const int next = (t.rank() + 1) % t.size(), prev = (t.rank() + t.size() - 1) % t.size();
        for (std::size_t n : {std::size_t{8}, mib}) {
            std::vector<std::byte> in(n);
            t.send(next, 5, pattern(n, t.rank()));
            t.recv(prev, 5, in);
            require_pattern(t, in, n, prev, "ring message");
        }
        int done = 0;
        MPI_Test(&user, &done, MPI_STATUS_IGNORE);
        require(t, !done, "the caller's receive on the original communicator got a comet message");
        MPI_Cancel(&user);
        MPI_Wait(&user, MPI_STATUS_IGNORE);
        t.barrier();  // every rank has looked before rank 0 sends on the original communicator
        // And a message of the caller's own, on the original communicator, is not comet's.
        if (t.rank() == 0) MPI_Send(theirs.data(), 4, MPI_BYTE, 1, 5, world);
        t.barrier();
        require(t, !t.probe(comet::any_source, comet::any_tag).has_value(), "comet saw the caller's message");
        if (t.rank() == 1) MPI_Recv(theirs.data(), 16, MPI_BYTE, 0, 5, world, MPI_STATUS_IGNORE);
    });
}

// A receive posted before its message (MPI reports the size), one whose message was held as a
// handle, and one whose message was taken into storage after its sender asked: each raises
// truncation_error naming this rank, the message's size and the buffer's, and consumes the
// message, so that what follows arrives.
BOOST_AUTO_TEST_CASE(truncation_on_every_receive_path) {
    run([](transport& t) {
        if (t.rank() > 1) return;
        std::vector<std::byte> in(64);
        const std::span<std::byte> ten(in.data(), 10);
        if (t.rank() == 1) {
            auto posted = t.irecv(0, 5, ten);
            t.send(0, 1, pattern(1, 1));  // "posted"
            require_truncation(t, [&] { t.wait(posted); }, {"rank 1:", "100-byte", "10-byte", "rank 0"});
            // Held as a handle: probed (drained) before the receive.
            while (!t.probe(0, 6)) {
            }
            require_truncation(t, [&] { t.recv(0, 6, ten); }, {"rank 1:", "5000-byte", "10-byte"});
            // In storage: rank 0 is blocked sending it and asks; this rank takes it while it
            // waits for tag 8, sent after.
            std::vector<std::byte> one(1);
            t.recv(0, 8, one);
            require_truncation(t, [&] { t.recv(0, 7, ten); }, {"rank 1:", "1048576-byte", "10-byte"});
            auto late = t.irecv(0, 9, ten);  // its message may be held already: reported by wait
            require_truncation(t, [&] { t.wait(late); }, {"rank 1:", "200-byte"});
            t.recv(0, 10, in);
            require_pattern(t, in, 64, 10, "message after the truncations");
        } else {
            t.recv(1, 1, in);
            t.send(1, 5, pattern(100, 5));
            t.send(1, 6, pattern(5000, 6));
            t.send(1, 7, pattern(mib, 7));
            t.send(1, 8, pattern(1, 8));
            t.send(1, 9, pattern(200, 9));
            t.send(1, 10, pattern(64, 10));
        }
    });
}

// Messages around the size where they start to travel as head and tail, through each way of
// receiving: a blocking recv posted to MPI, an irecv, a message held before its receive, a
// blocking recv behind an irecv of the same tag (post order), and too small a buffer for each
// (including one smaller than a head).
BOOST_AUTO_TEST_CASE(split_messages_on_every_path) {
    run([](transport& t) {
        if (t.rank() > 1) return;
        const std::size_t sizes[] = {1023, 1024, 1025, 1026, 2049, 70000};
        std::vector<std::byte> in(70000), other(70000);
        std::vector<std::byte> one(1);
        if (t.rank() == 1) {
            int seed = 0;
            for (std::size_t n : sizes) {
                t.recv(0, 1, in);  // posted to MPI before the message comes
                require_pattern(t, in, n, ++seed, "blocking recv");
                auto r = t.irecv(0, 2, in);
                t.send(0, 9, one);
                require(t, t.wait(r).size == n, "irecv size");
                require_pattern(t, in, n, ++seed, "irecv");
                while (!t.probe(0, 3)) {
                }
                require(t, t.probe(0, 3)->size == n, "probe size of a held message");
                t.recv(0, 3, in);
                require_pattern(t, in, n, ++seed, "held message");
                auto first = t.irecv(0, 4, other);
                const comet::status s = t.recv(0, 4, in);  // posted after `first`: the second message
                require(t, t.wait(first).size == n && s.size == n, "post order sizes");
                require_pattern(t, other, n, ++seed, "first of two");
                require_pattern(t, in, n, ++seed, "second of two");
                for (std::size_t cap : {n - 1, std::size_t{10}}) {
                    const std::string size = std::to_string(n) + "-byte", room = std::to_string(cap) + "-byte";
                    require_truncation(t, [&] { t.recv(0, 5, std::span(in.data(), cap)); }, {"rank 1:", size.c_str(), room.c_str()});
                    auto r2 = t.irecv(0, 6, std::span(in.data(), cap));
                    require_truncation(t, [&] { t.wait(r2); }, {"rank 1:", size.c_str(), room.c_str()});
                }
                t.send(0, 9, one);
            }
        } else {
            int seed = 0;
            for (std::size_t n : sizes) {
                t.send(1, 1, pattern(n, ++seed));
                t.recv(1, 9, one);
                t.send(1, 2, pattern(n, ++seed));
                t.send(1, 3, pattern(n, ++seed));
                t.send(1, 4, pattern(n, ++seed));
                t.send(1, 4, pattern(n, ++seed));
                for (int k = 0; k < 2; ++k) {
                    t.send(1, 5, pattern(n, 0));
                    t.send(1, 6, pattern(n, 0));
                }
                t.recv(1, 9, one);
            }
        }
    });
}

// Sends that MPI cannot complete without a receive (rendezvous sizes) complete anyway when the
// receiver is blocked elsewhere: in a receive for a later message, in a barrier, or sending
// itself; and to oneself.
BOOST_AUTO_TEST_CASE(sends_complete_while_the_receiver_waits_elsewhere) {
    run([](transport& t) {
        const int p = t.size(), me = t.rank();
        std::vector<std::byte> in(mib);
        // Received in the reverse order of sending.
        if (me == 0) {
            for (int tag : {1, 2, 3}) t.send(1, tag, pattern(tag == 3 ? 8 : mib, tag));
        } else if (me == 1) {
            for (int tag : {3, 2, 1}) {
                const comet::status s = t.recv(0, tag, in);
                require(t, s.source == 0 && s.tag == tag && s.size == (tag == 3 ? 8 : mib), "reverse-order receive status");
                require_pattern(t, in, s.size, tag, "reverse-order receive");
            }
        }
        // Sent before a barrier, received after it.
        if (me == 0) t.send(1, 4, pattern(mib, 4));
        t.barrier();
        if (me == 1) {
            t.recv(0, 4, in);
            require_pattern(t, in, mib, 4, "message sent before a barrier");
        }
        // To oneself.
        t.send(me, 5, pattern(mib, 50 + me));
        t.recv(me, 5, in);
        require_pattern(t, in, mib, 50 + me, "message to oneself");
        // Everyone sends to everyone first, then receives from everyone.
        const std::size_t n = 256 * 1024;
        for (int k = 1; k < p; ++k) t.send((me + k) % p, 6, pattern(n, me * 100 + (me + k) % p));
        for (int k = 1; k < p; ++k) {
            const int from = (me - k + p) % p;
            t.recv(from, 6, in);
            require_pattern(t, in, n, from * 100 + me, "all-to-all message");
        }
    });
}

// A sender blocked in a buffered send asks for that message only: its earlier issend, held as
// a handle on the way, stays incomplete until the receiver really receives it.
BOOST_AUTO_TEST_CASE(an_ask_takes_only_the_blocked_message) {
    run([](transport& t) {
        if (t.rank() > 1) return;
        std::vector<std::byte> in(mib);
        if (t.rank() == 0) {
            const auto sync = pattern(5000, 41);
            auto r = t.issend(1, 41, sync);
            t.send(1, 44, pattern(mib, 44));  // rank 1 is receiving tag 45 meanwhile: it must ask
            const double until = t.now() + 0.02;
            while (t.now() < until) require(t, !t.test(r).has_value(), "the issend completed before it was received");
            t.send(1, 45, pattern(1, 45));
            t.wait(r);
        } else {
            t.recv(0, 45, in);
            t.recv(0, 44, in);
            require_pattern(t, in, mib, 44, "the asked-for message");
            t.recv(0, 41, in);
            require_pattern(t, in, 5000, 41, "the issend message");
        }
    });
}

// An ask can meet an any_tag receive that is posted to MPI; such an ask is stale and must not
// complete the receive: it is dropped and the receive goes on. Rank 1 computes without calling
// MPI, so rank 0's 1 MiB send cannot complete and asks.
BOOST_AUTO_TEST_CASE(a_stale_ask_is_not_a_message) {
    run([](transport& t) {
        if (t.rank() > 1) return;
        std::vector<std::byte> big(mib), small(64);
        if (t.rank() == 1) {
            auto r1 = t.irecv(0, 7, big);
            auto r2 = t.irecv(0, comet::any_tag, small);
            t.send(0, 1, pattern(1, 1));
            t.compute(comet::work::busy(0.03));
            t.wait(r1);
            require_pattern(t, big, mib, 7, "message of the posted receive");
            const comet::status s = t.wait(r2);
            require(t, s.source == 0 && s.tag == 9 && s.size == 8, "any_tag receive got {", s.source, ", ", s.tag, ", ", s.size,
                    "}, expected the 8-byte message with tag 9");
            // The same with probe: an ask in MPI's queue is handled, never reported.
            auto r3 = t.irecv(0, 7, big);
            t.send(0, 2, pattern(1, 2));
            t.compute(comet::work::busy(0.03));
            t.wait(r3);
            std::optional<comet::status> seen;
            while (!(seen = t.probe(0, comet::any_tag))) {
            }
            require(t, seen->tag == 10 && seen->size == 8, "probe reported tag ", seen->tag, " (", seen->size, " bytes)");
            const comet::status b = t.recv(0, comet::any_tag, small);
            require(t, b.tag == 10 && b.size == 8, "blocking any_tag receive got tag ", b.tag);
        } else {
            t.recv(1, 1, small);
            t.send(1, 7, pattern(mib, 7));
            t.send(1, 9, pattern(8, 9));
            t.recv(1, 2, small);
            t.send(1, 7, pattern(mib, 7));
            t.send(1, 10, pattern(8, 10));
        }
    });
}

// A request dropped while pending: a receive is cancelled (the message goes to a later
// receive), a send completes first.
BOOST_AUTO_TEST_CASE(requests_dropped_while_pending) {
    run([](transport& t) {
        if (t.rank() > 1) return;
        std::vector<std::byte> in(mib);
        if (t.rank() == 1) {
            { auto dropped = t.irecv(0, 3, in); }
            t.send(0, 1, pattern(1, 1));
            t.recv(0, 3, in);
            require_pattern(t, in, 300, 3, "message after a cancelled receive");
            t.recv(0, 4, in);
            require_pattern(t, in, mib, 4, "message of a dropped isend");
        } else {
            std::vector<std::byte> one(1);
            t.recv(1, 1, one);
            t.send(1, 3, pattern(300, 3));
            const auto out = pattern(mib, 4);
            { auto dropped = t.isend(1, 4, out); }
        }
    });
}

// Blocking and nonblocking collectives on every rank; allreduce_sum gives every rank the same
// bits even for sums whose value depends on the order of the additions.
BOOST_AUTO_TEST_CASE(collectives_on_every_rank) {
    run([](transport& t) {
        const double p = t.size();
        std::vector<double> v{1.0 + t.rank(), 2.0};
        auto r = t.iallreduce_sum(v);
        t.wait(r);
        require(t, v[0] == p * (p + 1) / 2 && v[1] == 2 * p, "iallreduce_sum gave ", v[0], ", ", v[1]);
        for (int root = 0; root < t.size(); ++root) {
            auto data = t.rank() == root ? pattern(3000, root) : std::vector<std::byte>(3000);
            auto b = t.ibroadcast(root, data);
            t.wait(b);
            require_pattern(t, data, 3000, root, "ibroadcast");
        }
        auto bar = t.ibarrier();
        while (!t.test(bar)) {
        }
        std::vector<double> x(257);
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] = (t.rank() % 2 ? 1e16 : -1e16) * static_cast<double>(i % 3) + 0.1 * (t.rank() + 1) + 1e-3 * static_cast<double>(i);
        t.allreduce_sum(x);
        std::vector<double> root_x = x;
        t.broadcast(0, comet::writable_bytes_of(root_x));
        require(t, std::memcmp(root_x.data(), x.data(), x.size() * sizeof(double)) == 0, "allreduce_sum differs from rank 0's");
    });
}

// sendrecv around a ring, and ssend/rsend between every neighbour pair.
BOOST_AUTO_TEST_CASE(sendrecv_ssend_rsend_on_every_rank) {
    run([](transport& t) {
        const int p = t.size(), me = t.rank(), next = (me + 1) % p, prev = (me + p - 1) % p;
        std::vector<std::byte> in(mib);
        for (std::size_t n : {std::size_t{8}, mib}) {
            const comet::status s = t.sendrecv(next, 3, pattern(n, me), prev, 3, in);
            require(t, s.source == prev && s.size == n, "sendrecv status");
            require_pattern(t, in, n, prev, "sendrecv");
        }
        // Even ranks ssend/rsend to odd ones, which post their receives first.
        if (me % 2 == 1) {
            auto r = t.irecv(me - 1, 4, in);
            t.send(me - 1, 5, pattern(1, 5));
            t.wait(r);
            require_pattern(t, in, mib, 4, "rsend message");
            t.recv(me - 1, 6, in);
            require_pattern(t, in, 70000, 6, "ssend message");
        } else if (me + 1 < p) {
            t.recv(me + 1, 5, in);
            t.rsend(me + 1, 4, pattern(mib, 4));
            t.ssend(me + 1, 6, pattern(70000, 6));
        }
    });
}

// Bad arguments name the value and the rank, and the transport stays usable.
BOOST_AUTO_TEST_CASE(bad_arguments_name_the_rank) {
    run([](transport& t) {
        const std::string me = "rank " + std::to_string(t.rank()) + ":";
        std::vector<std::byte> b(8);
        const auto expect = [&](auto&& call, const char* value) {
            try {
                call();
            } catch (const comet::invalid_argument& e) {
                require(t, mentions(e, {me.c_str(), value}), "unexpected message ", e.what());
                return;
            }
            require(t, false, "no invalid_argument for ", value);
        };
        expect([&] { t.send(t.size(), 1, b); }, std::to_string(t.size()).c_str());
        expect([&] { t.ssend(0, 40000, b); }, "40000");
        expect([&] { (void)t.irsend(-2, 1, b); }, "-2");
        expect([&] { (void)t.probe(0, -4); }, "-4");
        expect([&] { (void)t.ibroadcast(t.size() + 1, b); }, std::to_string(t.size() + 1).c_str());
        t.barrier();
    });
}

// The kernels measure on the test node, whatever the number of processes.
BOOST_AUTO_TEST_CASE(kernels_record_on_the_test_node) {
    const std::vector<std::size_t> sizes{0, 8, 5000, mib};
    for (int test_node : {0, 1}) {
        const auto r = run([&](transport& t) {
            comet::result_set all = comet::echo(t, {.sizes = sizes, .test_node = test_node, .max_times = 5, .samples = 2, .warmup = 2});
            all.append(comet::pairwise(t, {.sizes = sizes, .test_node = test_node, .max_times = 5, .samples = 2, .warmup = 2}));
            return all;
        });
        const boost::mpi::communicator world;
        const std::size_t hops = comet::default_hops(test_node, world.size()).size();
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
    }
}

BOOST_AUTO_TEST_CASE(run_suite_records_on_rank_0) {
    const auto r = run([](transport& t) {
        return comet::run_suite(t, {.kernels = {"echo", "pairwise"}, .transfer = {.sizes = {8, 4096, 65536}, .max_times = 10}});
    });
    const boost::mpi::communicator world;
    if (world.rank() == 0) {
        BOOST_TEST(r.of("echo").size() == 3 * comet::default_hops(0, world.size()).size());
        BOOST_TEST(r.of("pairwise").size() == 3 * comet::default_hops(0, world.size()).size());
    } else {
        BOOST_TEST(r.records.empty());
    }
}

// The whole CoMet suite, small, on the job: every kernel that fits the job's size records on
// rank 0, and the matrix kernels verify their results exactly (a wrong element would raise
// verification_error on every rank and end the job naming it).
BOOST_AUTO_TEST_CASE(the_whole_suite_runs_and_verifies) {
    const auto r = run([](transport& t) { return comet::run_suite(t, comet_test::whole_suite_small()); });
    const boost::mpi::communicator world;
    if (world.rank() == 0)
        comet_test::check_every_kernel_recorded(r, world.size());
    else
        BOOST_TEST(r.records.empty());
}

// A single flipped bit in one block a rank receives is caught by the verification, on every
// rank (verify_all is collective), naming the element, the rank and both values.
BOOST_AUTO_TEST_CASE(a_corrupted_block_is_caught) {
    const boost::mpi::communicator world;
    if (world.size() % 2) return;  // the thesis' mesh: 2 and 4 processes, not 3
    const std::string said = run([](transport& t) {
        matrix_test::corrupting_transport<transport> ct(t, {.rank = 1, .source = 0, .byte = 40});
        comet::distributed_matrix m(t, 2);
        comet::shift_matrix(ct, m, comet::shift_direction::east);
        try {
            comet::verify_all(ct, m, comet::matrix_expectation::shift(comet::shift_direction::east));
        } catch (const comet::verification_error& e) {
            return std::string(e.what());
        }
        return std::string("no verification_error");
    });
    BOOST_TEST(mentions(std::runtime_error(said),
                        {"rank 1: shift_matrix(east) x 1: verification failed at global element", "found 1.0000000000000002"}),
               said);
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
