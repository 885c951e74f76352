// Reliability of the simulated iPSC/860 under the patterns a stress test finds: buffers freed
// while their receiver waits, programs that poll for what can never come, buffered sends past
// the destination's reserved buffers, message order under retransmission, fiber stacks reused
// many times (run this file under AddressSanitizer too), local work in the matrix transpose,
// and machines the host cannot hold.
#include <comet/kernels/matrix/transpose.hpp>
#include <comet/transport/nx2.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <cstdint>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(nx2_reliability)

using namespace comet::nx2;
using comet_test::mentions;

namespace {

/// Three messages left unreceived, one taken by a receive posted before it came, a fifth sent
/// with `last` — against the preset's four buffers. The posted receive frees its buffer while
/// rank 1 already waits for the fifth message; that buffer is the only one the fifth can have.
template <class Last>
void three_unreceived_and_one_freed_while_waiting(Last last) {
    run(ipsc860(1), [&](transport& t) {
        std::vector<std::byte> b(8, std::byte{1});
        if (t.rank() == 0) {
            t.compute(comet::work::busy(1e-3));  // rank 1 is waiting by now
            t.send(1, 1, b);
            for (int i = 0; i < 3; ++i) t.send(1, 2, b);
            last(t, b);
        } else {
            auto posted = t.irecv(0, 1, b);
            t.recv(0, 3, b);
            t.wait(posted);
            for (int i = 0; i < 3; ++i) t.recv(0, 2, b);
        }
    });
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_buffer_freed_while_its_receiver_waits_goes_back) {
    BOOST_CHECK_NO_THROW(three_unreceived_and_one_freed_while_waiting([](transport& t, std::vector<std::byte>& b) {
        t.send(1, 3, b);
    }));
    // The same with the sender polling msgdone instead of waiting: it must see the send done.
    bool done = false;
    BOOST_CHECK_NO_THROW(three_unreceived_and_one_freed_while_waiting([&](transport& t, std::vector<std::byte>& b) {
        auto r = t.isend(1, 3, b);
        for (int polls = 0; polls < 2'000'000 && !done; ++polls) done = t.test(r).has_value();
        if (!done) t.wait(r);
    }));
    BOOST_TEST(done);
}

BOOST_AUTO_TEST_CASE(polling_for_what_cannot_come_is_a_deadlock) {
    // msgdone on a receive nobody sends, while the other rank waits for a message never sent.
    BOOST_CHECK_EXCEPTION(run(ipsc860(1),
                              [](transport& t) {
                                  std::vector<std::byte> b(8);
                                  if (t.rank() == 0) {
                                      auto r = t.irecv(1, 5, b);
                                      while (!t.test(r)) {
                                      }
                                  } else {
                                      t.recv(0, 6, b);
                                  }
                              }),
                          comet::deadlock_error, [](const auto& e) {
                              return mentions(e, {"rank 0 polls test (msgdone) of irecv from rank 1 (tag 5)",
                                                  "with no event pending", "rank 1 waits in recv from rank 0 (tag 6"});
                          });
    // iprobe, and a send that can never get a buffer (every other rank finished).
    BOOST_CHECK_EXCEPTION(run(ipsc860(1),
                              [](transport& t) {
                                  if (t.rank() == 0)
                                      while (!t.iprobe(comet::any_source, 4)) {
                                      }
                              }),
                          comet::deadlock_error, [](const auto& e) {
                              return mentions(e, {"rank 0 polls iprobe for any rank (tag 4)", "rank 1 finished"});
                          });
    machine one = ipsc860(1);
    one.eager_buffers = one.credit_batch = 1;
    BOOST_CHECK_EXCEPTION(run(one,
                              [](transport& t) {
                                  std::vector<std::byte> b(8);
                                  if (t.rank() != 0) return;
                                  t.send(1, 1, b);
                                  auto r = t.isend(1, 1, b);
                                  while (!t.test(r)) t.progress();
                              }),
                          comet::deadlock_error,
                          [](const auto& e) { return mentions(e, {"rank 0 polls", "rank 1 finished"}); });
}

BOOST_AUTO_TEST_CASE(polling_that_something_ends_is_no_deadlock) {
    // A thousand polls with nothing pending anywhere, then the send that ends rank 1's wait.
    const auto polls = run(ipsc860(1), [](transport& t) {
        std::vector<std::byte> b(8);
        int n = 0;
        if (t.rank() == 0) {
            auto r = t.irecv(1, 5, b);
            for (; n < 1000; ++n) BOOST_TEST(!t.test(r).has_value());
            t.send(1, 6, b);
            while (!t.test(r)) ++n;
        } else {
            t.recv(0, 6, b);
            t.send(0, 5, b);
        }
        return n;
    });
    BOOST_TEST(polls[0] > 1000);
    // Polling while another rank computes for a (virtual) second: events are pending throughout.
    BOOST_CHECK_NO_THROW(run(ipsc860(1), [](transport& t) {
        std::vector<std::byte> b(8);
        if (t.rank() == 0) {
            auto r = t.irecv(1, 5, b);
            while (!t.test(r)) {
            }
        } else {
            t.compute(comet::work::busy(1.0));
            t.send(0, 5, b);
        }
    }));
}

BOOST_AUTO_TEST_CASE(bsend_never_waits_for_the_receiver) {
    // Both ranks bsend six small messages, then receive six: more than the four buffers each
    // reserves for the other. csend would wait for a buffer (and both would deadlock); the
    // buffered capability sends the fifth and sixth as long messages, into the receiver's
    // system space, and returns.
    run_statistics stats;
    const auto got = run(
        ipsc860(1),
        [](transport& t) {
            const int other = 1 - t.rank();
            for (int i = 0; i < 6; ++i) {
                std::vector<std::byte> b(8, static_cast<std::byte>(10 * t.rank() + i));
                t.bsend(other, 4, b);
            }
            std::vector<int> seen;
            for (int i = 0; i < 6; ++i) {
                std::vector<std::byte> b(8);
                t.recv(other, 4, b);
                seen.push_back(static_cast<int>(b[0]));
            }
            return seen;
        },
        {.statistics = &stats});
    BOOST_TEST(got[0] == (std::vector<int>{10, 11, 12, 13, 14, 15}), boost::test_tools::per_element());
    BOOST_TEST(got[1] == (std::vector<int>{0, 1, 2, 3, 4, 5}), boost::test_tools::per_element());
    BOOST_TEST(stats.nodes[0].credit_stalls == 2u);  // the fifth and sixth found no buffer
    // The sixth bsend returned after six calls and six copies: it waited for nothing. (Rank 1's
    // first message interrupts rank 0 only after that: C + 8c + h + wire(24) > 6 (C + 8c).)
    const auto sixth = run(ipsc860(1), [](transport& t) -> vtime {
        std::vector<std::byte> b(8);
        if (t.rank() == 1) return 0;
        for (int i = 0; i < 6; ++i) t.bsend(1, 4, b);
        return t.clock();
    });
    const machine m = ipsc860(1);
    BOOST_TEST(sixth[0] == 6 * (m.call + 8 * m.copy_per_byte));
    // csend itself keeps NX/2's rule (standard-send semantics allow it): a fifth small message
    // to a node that holds four unreceived waits for a buffer.
    BOOST_CHECK_EXCEPTION(run(ipsc860(1),
                              [](transport& t) {
                                  std::vector<std::byte> b(8);
                                  if (t.rank() == 0)
                                      for (int i = 0; i < 5; ++i) t.send(1, 4, b);
                                  else
                                      t.recv(0, 5, b);
                              }),
                          comet::deadlock_error,
                          [](const auto& e) { return mentions(e, {"rank 0 waits in send to rank 1 (tag 4, 8 bytes): no free buffer"}); });
}

BOOST_AUTO_TEST_CASE(bsend_keeps_its_promise_whichever_message_is_received_first) {
    // Both ranks bsend five 8-byte messages with tags 1..5, then receive tag 5 first: the fifth
    // found the four buffers reserved for its sender full, and a buffer comes free only when
    // the receiver takes one of the first four, which it does only after the fifth. Waiting in
    // the sender's kernel for a buffer deadlocked here; the fifth goes by the long messages'
    // protocol instead, into the receiver's system space (docs/nx2-model.md, "bsend").
    run_statistics stats;
    const auto got = run(
        ipsc860(1),
        [](transport& t) {
            const int other = 1 - t.rank();
            for (int tag = 1; tag <= 5; ++tag) {
                std::vector<std::byte> b(8, static_cast<std::byte>(10 * t.rank() + tag));
                t.bsend(other, tag, b);
            }
            std::vector<int> seen;
            for (int tag = 5; tag >= 1; --tag) {
                std::vector<std::byte> b(8);
                const comet::status s = t.recv(other, tag, b);
                seen.push_back(s.size == 8 ? static_cast<int>(b[0]) : -1);
            }
            return seen;
        },
        {.statistics = &stats});
    BOOST_TEST(got[0] == (std::vector<int>{15, 14, 13, 12, 11}), boost::test_tools::per_element());
    BOOST_TEST(got[1] == (std::vector<int>{5, 4, 3, 2, 1}), boost::test_tools::per_element());
    for (int r : {0, 1}) {
        BOOST_TEST(stats.nodes[static_cast<std::size_t>(r)].credit_stalls == 1u);
        BOOST_TEST(stats.nodes[static_cast<std::size_t>(r)].bsend_spills == 1u);
    }
}

BOOST_AUTO_TEST_CASE(retransmission_keeps_the_order_of_one_pairs_messages) {
    // On an 8-node cube rank 1's long message to rank 7 holds channel 1 -> 3 for 8 ms. Rank 0
    // sends 8 bytes, then 200 bytes, to rank 3 with one tag: both headers wait for that channel
    // behind the circuit, give up and retry. Rank 3 must still match the 8 bytes first.
    machine m = ipsc860(3);
    m.retry_timeout = 50 * microseconds;
    m.retry_backoff = 40 * microseconds;
    run_statistics stats;
    const auto sizes = run(
        m,
        [](transport& t) {
            std::vector<std::byte> big(20000), buf(200);
            std::vector<std::size_t> got;
            switch (t.rank()) {
            case 0: {
                t.compute(comet::work::busy(300e-6));
                std::vector<std::byte> small(8), large(200);
                t.send(3, 9, small);
                t.send(3, 9, large);
                break;
            }
            case 1: t.send(7, 1, big); break;
            case 7: t.recv(1, 1, big); break;
            case 3:
                t.compute(comet::work::busy(20e-3));  // both messages are waiting by now
                got.push_back(t.recv(0, 9, buf).size);
                got.push_back(t.recv(0, 9, buf).size);
                break;
            default: break;
            }
            return got;
        },
        {.statistics = &stats});
    BOOST_TEST(stats.nodes[0].retransmissions >= 2u);  // both messages were sent again
    BOOST_TEST(sizes[3] == (std::vector<std::size_t>{8, 200}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(fiber_stacks_reused_many_times_with_deep_frames) {
    // Runs one after another map their stacks where the last run's were, and with stacks of
    // another size each time the frames a finished fiber never returned from (their redzones
    // poisoned under AddressSanitizer) lie in the middle of the next run's stacks: every stack
    // must start clean. Each rank recurses through frames holding arrays (redzones under ASan),
    // exchanges a message deep inside, and in every third run one rank leaves by an exception
    // thrown from the deepest frame.
    struct deep {
        static int down(transport& t, int depth, int aborting) {
            volatile char pad[512];
            pad[depth % 512] = static_cast<char>(depth);
            if (depth == 0) {
                std::vector<std::byte> b(8);
                t.sendrecv(t.rank() ^ 1, 1, b, t.rank() ^ 1, 1, b);
                if (t.rank() == aborting) t.abort("deep");
                return pad[0];
            }
            return down(t, depth - 1, aborting) + pad[depth % 512];
        }
    };
    for (int round = 0; round < 60; ++round) {
        const int depth = 20 + round % 40;
        const run_options opt{.stack_size = (128 + 12 * static_cast<std::size_t>(round % 7)) * 1024};
        if (round % 3 == 2)
            BOOST_CHECK_THROW(run(ipsc860(3), [&](transport& t) { deep::down(t, depth, 3); }, opt), comet::aborted);
        else
            BOOST_CHECK_NO_THROW(run(ipsc860(3), [&](transport& t) { deep::down(t, depth, -1); }, opt));
    }
}

BOOST_AUTO_TEST_CASE(a_two_node_transpose_takes_time) {
    // On 2 nodes (a 1 x 2 mesh) every rank is its own partner: the transpose is local work
    // alone, which the CPU model charges, growing with the block.
    const auto r = run(ipsc860(1), [](transport& t) {
        comet::kernels::matrix_config cfg;
        cfg.dims = {8, 64};
        cfg.sampling = comet::fixed_sampling(1, 4);
        return comet::kernels::transpose(t, cfg);
    })[0];
    BOOST_REQUIRE(r.records.size() == 2u);
    const double small = r.records[0].samples.at(0), large = r.records[1].samples.at(0);
    BOOST_TEST(small > 0.0);
    BOOST_TEST(large > small);
}

BOOST_AUTO_TEST_CASE(a_machine_the_host_cannot_hold_is_refused) {
    // The simulator's state per node (queues, counters, two lanes per channel) for a cube of
    // 2^20 nodes, against a host with 64 MiB: one line naming the dimension and the estimate.
    const std::uint64_t need = detail::memory_needed(ipsc860(20), 2);
    BOOST_TEST(need > (std::uint64_t{1} << 20) * detail::bytes_per_node(ipsc860(20)));
    BOOST_CHECK_EXCEPTION(detail::check_memory_for(ipsc860(20), 2, std::uint64_t{64} << 20), comet::error, [&](const auto& e) {
        const std::string estimate = std::to_string(need >> 20) + " MiB";
        return mentions(e, {"dimension = 20 (1048576 nodes)", estimate.c_str(), "64 MiB available"});
    });
    BOOST_CHECK_EXCEPTION(detail::check_memory_for(mesh(1024, 1024), 4, std::uint64_t{64} << 20), comet::error,
                          [](const auto& e) { return mentions(e, {"a 1024 x 1024 mesh (1048576 nodes)"}); });
    BOOST_CHECK_NO_THROW(detail::check_memory_for(ipsc860(20), 2, 0));  // unknown: not refused
    BOOST_CHECK_NO_THROW(detail::check_memory_for(ipsc860(4), 16, std::uint64_t{64} << 20));
    // A stack no host maps for every rank, and a huge cube: one line each, never std::bad_alloc.
    BOOST_CHECK_EXCEPTION(run(ipsc860(1), [](transport&) {}, {.stack_size = std::size_t{1} << 40}), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"stack_size = 1099511627776"}); });
    BOOST_CHECK_EXCEPTION(run(ipsc860(40), [](transport&) {}), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"dimension 40"}); });
    machine m = ipsc860(2);
    m.dimension = 1 << 30;
    BOOST_CHECK_EXCEPTION(run(m, [](transport&) {}), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"dimension = 1073741824"}); });
}

BOOST_AUTO_TEST_SUITE_END()
