// Tests of comet/transport/threads.hpp: the conformance suite, then what is particular to
// threads (deadlock reports, collective mismatches, requests dropped while pending, ring
// overflow, more ranks than cores).
#include <comet/testing/conformance.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace threads_test {

struct runner {
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = true;
    comet::threads::options opt{};
    template <class F>
    void operator()(int ranks, F&& body) const {
        comet::threads::run(ranks, std::forward<F>(body), opt);
    }
};

using comet_test::mentions;

std::vector<std::byte> bytes(std::size_t n, int seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>(static_cast<std::size_t>(seed) * 31 + i);
    return v;
}

}  // namespace threads_test

COMET_TRANSPORT_CONFORMANCE(threads_conformance, threads_test::runner{})

// The same rules must hold on the paths a small ring and a tiny eager limit force.
COMET_TRANSPORT_CONFORMANCE(threads_conformance_small_ring,
                            (threads_test::runner{comet::threads::options{.eager_limit = 16, .ring_cells = 16}}))

BOOST_AUTO_TEST_SUITE(threads)

using comet::threads::run;
using comet::threads::transport;

BOOST_AUTO_TEST_CASE(run_returns_each_rank_result) {
    const auto r = run(5, [](transport& t) { return t.rank() * 10 + t.size(); });
    BOOST_TEST(r == (std::vector<int>{5, 15, 25, 35, 45}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bad_run_arguments) {
    BOOST_CHECK_EXCEPTION(run(0, [](transport&) {}), comet::invalid_argument,
                          [](const auto& e) { return threads_test::mentions(e, {"0 ranks"}); });
    BOOST_CHECK_EXCEPTION(run(2, [](transport&) {}, {.ring_cells = 100}), comet::invalid_argument,
                          [](const auto& e) { return threads_test::mentions(e, {"ring_cells 100"}); });
    BOOST_CHECK_EXCEPTION(run(2, [](transport&) {}, {.eager_limit = 100000}), comet::invalid_argument,
                          [](const auto& e) { return threads_test::mentions(e, {"eager_limit 100000"}); });
}

BOOST_AUTO_TEST_CASE(synchronous_pairwise_exchange_deadlocks_quickly) {
    // Both ranks ssend first: neither can complete. The run must end in deadlock_error on
    // every rank, naming what each waits for, within a second rather than hang.
    const auto start = std::chrono::steady_clock::now();
    BOOST_CHECK_EXCEPTION(run(2,
                              [](transport& t) {
                                  auto out = threads_test::bytes(8, t.rank());
                                  std::vector<std::byte> in(8);
                                  t.ssend(1 - t.rank(), 7, out);
                                  t.recv(1 - t.rank(), 7, in);
                              }),
                          comet::deadlock_error, [](const auto& e) {
                              return threads_test::mentions(e, {"rank 0 waits in ssend to rank 1 (tag 7, 8 bytes)",
                                                                "rank 1 waits in ssend to rank 0 (tag 7, 8 bytes)"});
                          });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    BOOST_TEST_MESSAGE("deadlock reported after " << seconds * 1e3 << " ms");
    BOOST_TEST(seconds < 1.0);
}

BOOST_AUTO_TEST_CASE(deadlock_report_names_every_rank) {
    BOOST_CHECK_EXCEPTION(run(4,
                              [](transport& t) {
                                  std::vector<std::byte> in(16);
                                  if (t.rank() == 0) t.recv(comet::any_source, 3, in);
                                  if (t.rank() == 1) t.barrier();
                                  if (t.rank() == 2) {
                                      std::vector<double> v(5);
                                      t.allreduce_sum(v);
                                  }
                                  // rank 3 finishes
                              }),
                          comet::deadlock_error, [](const auto& e) {
                              return threads_test::mentions(
                                  e, {"rank 0 waits in recv from any rank (tag 3, up to 16 bytes)", "rank 1 waits in barrier",
                                      "rank 2 waits in allreduce_sum of 5 doubles", "rank 3 finished"});
                          });
}

BOOST_AUTO_TEST_CASE(waiting_on_a_finished_rank_is_a_deadlock) {
    BOOST_CHECK_EXCEPTION(run(2,
                              [](transport& t) {
                                  if (t.rank() == 0) {
                                      std::vector<std::byte> in(4);
                                      t.recv(1, 1, in);
                                  }
                              }),
                          comet::deadlock_error,
                          [](const auto& e) { return threads_test::mentions(e, {"rank 0 waits in recv from rank 1", "rank 1 finished"}); });
}

BOOST_AUTO_TEST_CASE(isend_to_a_finished_rank_is_a_deadlock) {
    BOOST_CHECK_EXCEPTION(run(2,
                              [](transport& t) {
                                  if (t.rank() == 0) {
                                      auto out = threads_test::bytes(5000, 1);
                                      auto r = t.isend(1, 4, out);
                                      t.wait(r);
                                  }
                              }),
                          comet::deadlock_error,
                          [](const auto& e) { return threads_test::mentions(e, {"wait for isend to rank 1 (tag 4, 5000 bytes)"}); });
}

BOOST_AUTO_TEST_CASE(blocking_send_to_a_rank_that_never_receives_returns) {
    // Buffered semantics: the large send completes (from a copy) although rank 1 finishes
    // without receiving, whether rank 1 drained the message or not.
    for (int i = 0; i < 20; ++i)
        run(2, [](transport& t) {
            if (t.rank() == 0) t.send(1, 1, threads_test::bytes(1 << 16, 1));
        });
}

// A large message a rank drains during a wait that then completes is left offered: the receive
// that usually comes next copies it straight out of the sender's buffer. Told at once that no
// receive was posted, its sender withdrew it into a copy of its own, and the message was copied
// twice (a 1 MiB echo's reply, offered while the test node's own send completed: one leg in five).
BOOST_AUTO_TEST_CASE(a_large_message_drained_by_a_wait_that_completes_waits_for_its_receive) {
    using namespace std::chrono_literals;
    const auto big = threads_test::bytes(1 << 16, 1);
    std::atomic<int> stage{0};
    std::atomic<bool> send_returned{false};
    bool returned_before_receive = true, received = false;
    run(3, [&](transport& t) {
        if (t.rank() == 1) {
            stage.store(1);
            t.send(0, 7, big);
            send_returned.store(true);
        } else if (t.rank() == 2) {
            while (stage.load() < 1) std::this_thread::yield();
            t.send(0, 8, threads_test::bytes(8, 2));  // inline: complete at once
            stage.store(2);
        } else {
            while (stage.load() < 2) std::this_thread::yield();
            std::this_thread::sleep_for(20ms);  // rank 1's offer is in its channel by now
            std::vector<std::byte> small(8), in(big.size());
            // Drains both channels in one look: rank 1's offer (unexpected), then rank 2's
            // message, which completes the wait.
            t.recv(comet::any_source, 8, small);
            std::this_thread::sleep_for(50ms);  // computing, outside the transport
            returned_before_receive = send_returned.load();
            t.recv(1, 7, in);
            received = in == big;
        }
    });
    BOOST_TEST(!returned_before_receive);
    BOOST_TEST(received);
}

// ...but a rank that will not receive it now tells its sender, which copies and moves on (the
// buffered semantics of send): a wait that goes on (a barrier, a receive from another rank), a
// test that finds its request pending, a probe that finds nothing, progress, and any next call
// that does not receive it (a probe that finds it and does not receive it, a loop of receives
// from any rank, or from one other rank, that always find a message: every 64th call drains
// every channel). Here the receive comes only after the sender has
// sent again, to a third rank the receiver waits for: without the sender told, all three would
// wait for ever (a rank looping on calls that never sleep would not be reported deadlocked
// either: the loops give up after 10 s and say so).
BOOST_AUTO_TEST_CASE(a_rank_that_will_not_receive_now_lets_a_blocking_sender_go_on) {
    using namespace std::chrono_literals;
    for (const std::string how : {"barrier", "recv", "test", "iprobe", "progress", "iprobe finds it", "recv from any", "recv from rank 2"}) {
        std::atomic<bool> relayed{false}, stop{false};
        std::atomic<std::uint64_t> sent{0};
        bool gave_up = false, received = false;
        const auto big = threads_test::bytes(1 << 16, 3);
        run(3, [&](transport& t) {
            std::vector<std::byte> small(8);
            if (t.rank() == 0) {
                t.send(1, 7, big);
                if (how == "barrier") return t.barrier();
                t.send(2, 9, small);
            } else if (t.rank() == 2) {
                if (how == "barrier") return t.barrier();
                if (how == "recv from any" || how == "recv from rank 2") {
                    // A stream of messages the receiver always finds, until rank 0's send has
                    // returned (or the receiver gave up), then a 1-byte end of stream.
                    for (; !t.iprobe(0, 9) && !stop.load(); ++sent) t.send(1, 11, small);
                    t.send(1, 11, std::span(small).first(1));
                    ++sent;
                }
                t.recv(0, 9, small);
                t.send(1, 10, small);
                relayed.store(true);
            } else {
                const auto deadline = std::chrono::steady_clock::now() + 10s;
                const auto waited_too_long = [&] { return gave_up = std::chrono::steady_clock::now() > deadline; };
                if (how == "barrier") t.barrier();
                else if (how == "recv") t.recv(2, 10, small);
                else if (how == "test") {
                    auto r = t.irecv(2, 10, small);
                    while (!t.test(r) && !waited_too_long()) {
                    }
                    if (gave_up) t.wait(r);
                } else if (how == "iprobe") {
                    while (!t.iprobe(2, 10) && !waited_too_long()) {
                    }
                    t.recv(2, 10, small);
                } else if (how == "iprobe finds it") {
                    while (!relayed.load() && !waited_too_long()) (void)t.iprobe(0, 7);
                    t.recv(2, 10, small);
                } else if (how == "recv from any" || how == "recv from rank 2") {
                    // Each receive is called once its message was sent, so it finds it at
                    // its first look: never a wait that goes on.
                    for (std::uint64_t k = 0;; ++k) {
                        while (sent.load() <= k) {
                            if (waited_too_long()) stop.store(true);
                            std::this_thread::yield();
                        }
                        if (t.recv(how == "recv from any" ? comet::any_source : 2, 11, small).size == 1) break;
                    }
                    t.recv(2, 10, small);
                } else {
                    while (!relayed.load() && !waited_too_long()) t.progress();
                    t.recv(2, 10, small);
                }
                std::vector<std::byte> in(big.size());
                t.recv(0, 7, in);
                received = in == big;
            }
        });
        BOOST_TEST(!gave_up, how);
        BOOST_TEST(received, how);
    }
}

BOOST_AUTO_TEST_CASE(collective_mismatch_is_an_error) {
    BOOST_CHECK_EXCEPTION(run(3,
                              [](transport& t) {
                                  std::vector<std::byte> b(t.rank() == 2 ? 16 : 8);
                                  t.broadcast(0, b);
                              }),
                          comet::invalid_argument,
                          [](const auto& e) { return threads_test::mentions(e, {"broadcast", "size 8", "size 16"}); });
    BOOST_CHECK_EXCEPTION(run(2,
                              [](transport& t) {
                                  std::vector<double> v(4);
                                  std::vector<std::byte> b(4);
                                  if (t.rank() == 0) t.allreduce_sum(v);
                                  else t.broadcast(1, b);
                              }),
                          comet::invalid_argument, [](const auto& e) { return threads_test::mentions(e, {"different collective"}); });
    // A barrier against a broadcast that matches the barrier rank's previous broadcast.
    BOOST_CHECK_EXCEPTION(run(2,
                              [](transport& t) {
                                  std::vector<std::byte> b(8);
                                  t.broadcast(0, b);
                                  if (t.rank() == 0) t.barrier();
                                  else t.broadcast(0, b);
                              }),
                          comet::invalid_argument, [](const auto& e) { return threads_test::mentions(e, {"different collective"}); });
}

BOOST_AUTO_TEST_CASE(dropped_requests) {
    run(2, [](transport& t) {
        if (t.rank() == 0) {
            // A pending isend dropped before completion is still delivered, from a copy.
            auto data = threads_test::bytes(100000, 3);
            { auto r = t.isend(1, 1, data); }
            std::fill(data.begin(), data.end(), std::byte{0});
            t.send(1, 2, threads_test::bytes(8, 4));
        } else {
            std::vector<std::byte> in(100000);
            {
                // A dropped irecv is cancelled: the message goes to the next matching receive.
                auto r = t.irecv(0, 2, in);
            }
            // Checks inside rank threads throw: Boost.Test assertions belong to the main thread.
            t.recv(0, 1, in);
            if (in != threads_test::bytes(100000, 3)) comet::raise<std::logic_error>(1, "dropped isend: wrong data");
            std::vector<std::byte> small(8);
            t.recv(0, 2, small);
            if (small != threads_test::bytes(8, 4)) comet::raise<std::logic_error>(1, "cancelled irecv took the message");
        }
    });
}

BOOST_AUTO_TEST_CASE(a_completed_send_reports_its_status_once) {
    // The first wait or test that completes a send returns {destination, tag, size}; a second
    // one finds a completed request and returns an empty status, for large (offered) sends as
    // for small (eager) ones, as a completed receive does.
    for (const std::size_t size : {std::size_t{8}, std::size_t{100000}}) {
        const auto got = run(2, [size](transport& t) {
            std::vector<comet::status> s;
            if (t.rank() == 0) {
                const auto data = threads_test::bytes(size, 5);
                auto by_wait = t.isend(1, 1, data);
                s.push_back(t.wait(by_wait));
                s.push_back(t.wait(by_wait));
                s.push_back(t.test(by_wait).value_or(comet::status{-7, -7, 7}));
                auto by_test = t.isend(1, 2, data);
                std::optional<comet::status> first;
                while (!(first = t.test(by_test))) {}
                s.push_back(*first);
                s.push_back(t.test(by_test).value_or(comet::status{-7, -7, 7}));
                s.push_back(t.wait(by_test));
            } else {
                std::vector<std::byte> in(size);
                t.recv(0, 1, in);
                t.recv(0, 2, in);
            }
            return s;
        });
        const comet::status sent1{1, 1, size}, sent2{1, 2, size}, none{};
        BOOST_TEST_CONTEXT("size " << size) {
            BOOST_TEST((got[0] == std::vector<comet::status>{sent1, none, none, sent2, none, none}));
        }
    }
}

BOOST_AUTO_TEST_CASE(ring_overflow_keeps_order) {
    // Far more messages than the ring holds, both ways, before anyone receives.
    run(2,
        [](transport& t) {
            const int n = 5000;
            for (int i = 0; i < n; ++i) {
                const int size = 4 + (i % 7) * 32;  // mixes one-cell and multi-cell messages
                std::vector<int> v(static_cast<std::size_t>(size) / 4, i);
                t.send(1 - t.rank(), 9, comet::bytes_of(v));
            }
            std::vector<int> in(64);
            for (int i = 0; i < n; ++i) {
                const auto s = t.recv(1 - t.rank(), 9, comet::writable_bytes_of(in));
                if (in[0] != i || s.size != static_cast<std::size_t>(4 + (i % 7) * 32))
                    comet::raise<std::logic_error>(t.rank(), "message ", i, " arrived as ", in[0]);
            }
        },
        {.eager_limit = 200, .ring_cells = 16});
}

BOOST_AUTO_TEST_CASE(crossing_exchanges_are_not_a_deadlock) {
    // Four ranks, each exchanging two messages with each of two partners, all nonblocking,
    // thousands of times: many wake-ups in flight at once. A woken rank that goes back to
    // sleep before its waker has finished must not make the run look deadlocked.
    for (std::size_t n : {std::size_t{512}, std::size_t{1024}})
        run(4, [n](transport& t) {
            const int a = t.rank() ^ 2, b = t.rank() ^ 1;
            std::vector<std::vector<std::byte>> out(4, std::vector<std::byte>(n)), in(4, std::vector<std::byte>(n));
            std::vector<comet::threads::request> q(8);
            for (int i = 0; i < 3000; ++i) {
                q[0] = t.isend(a, 1, out[0]);
                q[1] = t.isend(a, 2, out[1]);
                q[2] = t.isend(b, 3, out[2]);
                q[3] = t.isend(b, 4, out[3]);
                q[4] = t.irecv(a, 2, in[0]);
                q[5] = t.irecv(a, 1, in[1]);
                q[6] = t.irecv(b, 3, in[2]);
                q[7] = t.irecv(b, 4, in[3]);
                if (i % 2) t.wait_all(q);
                else
                    for (auto& r : q) t.wait(r);
            }
        });
}

BOOST_AUTO_TEST_CASE(more_ranks_than_cores) {
    // 16 ranks on a machine with fewer cores: echo between two while the rest wait, then
    // everyone in collectives. Sleeping waiters keep it live.
    const auto r = run(16, [](transport& t) {
        std::vector<std::byte> b(64);
        t.barrier();
        if (t.rank() < 2)
            for (int i = 0; i < 2000; ++i) {
                if (t.rank() == 0) {
                    t.send(1, 1, b);
                    t.recv(1, 1, b);
                } else {
                    t.recv(0, 1, b);
                    t.send(0, 1, b);
                }
            }
        std::vector<double> v{1.0};
        for (int i = 0; i < 50; ++i) t.allreduce_sum(v);
        return v[0];
    });
    BOOST_TEST(r[15] == std::pow(16.0, 50));
}

BOOST_AUTO_TEST_CASE(allreduce_is_identical_on_every_rank) {
    // Values whose sum depends on the order of addition: every rank must still agree.
    const auto r = run(7, [](transport& t) {
        std::vector<double> v(1000);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = 1.0 / (static_cast<double>(i) + 3.0 + t.rank() * 0.37) * (t.rank() % 2 ? 1e12 : 1e-3);
        t.allreduce_sum(v);
        return v;
    });
    for (const auto& v : r) BOOST_TEST((v == r[0]));
}

#if defined(__linux__)
// Placement (options::pin): with no more ranks than usable CPUs rank r starts on the r-th of
// them and is then left free to run on any (never bound: two processes bound alike could not
// be moved apart); with more ranks, or pin off, nobody is moved.
BOOST_AUTO_TEST_CASE(each_rank_starts_on_a_cpu_of_its_own_when_they_fit) {
    const std::vector<int> cpus = comet::threads::detail::usable_cpus();
    BOOST_TEST_REQUIRE(!cpus.empty());
    const int fit = static_cast<int>(std::min<std::size_t>(cpus.size(), 4));
    const std::vector<int> first(cpus.begin(), cpus.begin() + fit);
    BOOST_TEST(comet::threads::detail::placement(fit, {}) == first);
    BOOST_TEST(comet::threads::detail::placement(fit, {.pin = false}).empty());
    BOOST_TEST(comet::threads::detail::placement(static_cast<int>(cpus.size()) + 1, {}).empty());
    const auto allowed = [](comet::threads::transport&) {
        cpu_set_t set;
        CPU_ZERO(&set);
        ::pthread_getaffinity_np(::pthread_self(), sizeof set, &set);
        std::vector<int> mine;
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set)) mine.push_back(c);
        return mine;
    };
    for (const auto& mine : comet::threads::run(fit, allowed)) BOOST_TEST(mine == cpus);
    for (const auto& mine : comet::threads::run(fit, allowed, {.pin = false})) BOOST_TEST(mine == cpus);
}

// A rank that wakes from sleep on the CPU of the rank that woke it (Linux puts a wakee on its
// waker's CPU) is moved to its own start CPU, or to another when the waker sits there, and is
// left free to move again; not when ranks are not placed, nor when it woke elsewhere.
BOOST_AUTO_TEST_CASE(a_rank_woken_onto_its_wakers_cpu_is_moved_off_it) {
    using namespace comet::threads::detail;
    const std::vector<int> cpus = usable_cpus();
    if (cpus.size() < 2) return;  // one CPU: nowhere to move to (and nothing to spread)
    std::vector<int> seen;
    std::thread([&] {
        world w(2, {});
        BOOST_TEST_REQUIRE(w.home(0) == cpus[0]);
        BOOST_TEST_REQUIRE(w.home(1) == cpus[1]);
        for (int rank : {0, 1}) {
            // As if its waker ran on the CPU it woke on: once on its own start CPU (it moves
            // to another), once on the other rank's (it moves home).
            for (int sits_on : {w.home(rank), w.home(1 - rank)}) {
                start_on_cpu(sits_on, cpus);
                w.control(rank).woken_from.store(current_cpu());
                w.spread_after_sleep(rank);
                seen.push_back(current_cpu());
                BOOST_TEST(w.control(rank).woken_from.load() == -1);
            }
        }
        // Woken elsewhere: stays.
        start_on_cpu(cpus[0], cpus);
        w.control(0).woken_from.store(cpus[1]);
        w.spread_after_sleep(0);
        seen.push_back(current_cpu());
        // Not placed (pin off): stays.
        world unplaced(2, {.pin = false});
        BOOST_TEST(unplaced.home(0) == -1);
        unplaced.control(0).woken_from.store(current_cpu());
        unplaced.spread_after_sleep(0);
        seen.push_back(current_cpu());
        cpu_set_t set;
        CPU_ZERO(&set);
        ::pthread_getaffinity_np(::pthread_self(), sizeof set, &set);
        BOOST_TEST(CPU_COUNT(&set) == static_cast<int>(cpus.size()));  // left free to move
    }).join();
    // The scheduler may move a free thread at any moment, so a move it made on its own could
    // pass for ours: each position was read right after the call, a few microseconds.
    BOOST_TEST(seen[0] != cpus[0]);  // rank 0 woken on its own CPU by its waker: moved off
    BOOST_TEST(seen[1] == cpus[0]);  // rank 0 woken on rank 1's CPU: moved home
    BOOST_TEST(seen[2] != cpus[1]);  // rank 1 woken on its own CPU: moved off
    BOOST_TEST(seen[3] == cpus[1]);  // rank 1 woken on rank 0's CPU: moved home
    BOOST_TEST(seen[4] == cpus[0]);
    BOOST_TEST(seen[5] == cpus[0]);
}
#endif

BOOST_AUTO_TEST_SUITE_END()
