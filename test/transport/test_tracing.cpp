// Tests of comet/transport/decorators/tracing.hpp on the threads transport: the decorator is a
// conforming transport; it records every send, receive and compute call; `collect` matches each
// receive with its send, also with any_source and interleaved tags; a receive waited for before
// its send was issued shows that wait as logical delay, and one waited for after as none; a
// second wait on a completed request records nothing twice; the threads transport counts no
// retransmissions, and the trace says it does not know them (the simulator's count is tested
// with the simulator, test/nx2/test_nx2.cpp).
#include <comet/analysis/delays.hpp>
#include <comet/testing/conformance.hpp>
#include <comet/transport/decorators/tracing.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <vector>

namespace tracing_test {

using threads_t = comet::threads::transport;
using traced = comet::tracing<threads_t>;

struct runner {
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = true;
    template <class F>
    void operator()(int ranks, F&& body) const {
        comet::threads::run(ranks, [&](threads_t& inner) {
            traced t(inner);
            body(t);
        });
    }
};

}  // namespace tracing_test

COMET_TRANSPORT_CONFORMANCE(tracing_conforms, tracing_test::runner{})

BOOST_AUTO_TEST_SUITE(tracing)

using namespace tracing_test;

BOOST_AUTO_TEST_CASE(every_receive_is_matched_with_its_send) {
    std::vector<comet::message_trace> traces(3);
    comet::threads::run(3, [&](threads_t& inner) {
        traced t(inner);
        t.start();
        const int me = t.rank();
        std::uint64_t x = 0;
        if (me != 0) {
            for (int i = 0; i < 4; ++i) {  // tags 5 and 6 interleaved
                x = static_cast<std::uint64_t>(me * 100 + i);
                comet::ops::send(t, 0, 5 + i % 2, std::as_bytes(std::span(&x, 1)));
            }
        } else {
            for (int i = 0; i < 8; ++i) comet::ops::recv(t, comet::any_source, comet::any_tag, std::as_writable_bytes(std::span(&x, 1)));
        }
        t.stop();
        traces[static_cast<std::size_t>(me)] = t.collect();
    });
    BOOST_TEST(traces[0].receives.size() == 8u);
    for (const comet::message_trace& t : traces) BOOST_TEST(!t.retransmissions_known);  // threads count none
    BOOST_TEST(traces[1].sends.size() == 4u);
    BOOST_TEST(traces[2].sends.size() == 4u);
    for (const comet::traced_receive& r : traces[0].receives) {
        BOOST_TEST_REQUIRE(r.send_issued >= 0.0);
        BOOST_TEST(r.send_issued <= r.completed);  // one clock: the send was issued before it arrived
        // The very send: among the sender's sends with that tag, one was issued at that time.
        bool found = false;
        for (const comet::traced_send& s : traces[static_cast<std::size_t>(r.matched_source)].sends)
            found = found || (s.tag == r.matched_tag && s.issued == r.send_issued);
        BOOST_TEST(found);
    }
}

BOOST_AUTO_TEST_CASE(waiting_before_the_send_is_logical_delay_and_after_it_none) {
    std::vector<comet::message_trace> traces(2);
    comet::threads::run(2, [&](threads_t& inner) {
        traced t(inner);
        comet::ops::barrier(inner);
        t.start();
        std::uint64_t x = 1;
        if (t.rank() == 0) {
            comet::ops::send(t, 1, 8, std::as_bytes(std::span(&x, 1)));  // issued before rank 1 waits for it
            comet::ops::compute(t, comet::work::busy(20e-3));           // rank 1 waits meanwhile: logical
            comet::ops::send(t, 1, 7, std::as_bytes(std::span(&x, 1)));
        } else {
            comet::ops::recv(t, 0, 7, std::as_writable_bytes(std::span(&x, 1)));
            comet::ops::compute(t, comet::work::busy(1e-3));
            auto r = t.irecv(0, 8, std::as_writable_bytes(std::span(&x, 1)));
            comet::ops::wait(t, r);
            comet::ops::wait(t, r);  // completed: nothing recorded twice
        }
        t.stop();
        traces[static_cast<std::size_t>(t.rank())] = t.collect();
    });
    const auto& sent = traces[0].sends;
    const auto& got = traces[1].receives;
    BOOST_REQUIRE_EQUAL(sent.size(), 2u);
    BOOST_REQUIRE_EQUAL(got.size(), 2u);
    // Matched with their own sends, whatever order they were received in.
    BOOST_TEST(got[0].matched_tag == 7);
    BOOST_TEST(got[0].send_issued == sent[1].issued);
    BOOST_TEST(got[1].send_issued == sent[0].issued);
    BOOST_TEST(sent[1].issued - sent[0].issued >= 20e-3);
    const comet::delay_decomposition d1 = comet::decompose(traces[1]), d0 = comet::decompose(traces[0]);
    BOOST_TEST(d1.received == 2u);
    // Rank 1 waited for tag 7 before it was sent: that part of the wait is logical delay.
    BOOST_TEST_REQUIRE(got[0].blocked_from < sent[1].issued);
    BOOST_TEST(d1.logical == sent[1].issued - got[0].blocked_from);
    BOOST_TEST(d1.logical_messages == 1u);  // tag 8 was sent before rank 1 waited for it
    BOOST_TEST(d0.user >= 20e-3);
    BOOST_TEST(d0.sent == 2u);
    for (const auto& x : {d0, d1}) {
        BOOST_TEST(x.overhead >= -1e-9);
        BOOST_TEST(std::abs(x.user + x.logical + x.physical + x.overhead - x.elapsed) <= 1e-12);
    }
}

BOOST_AUTO_TEST_CASE(only_what_happens_between_start_and_stop_is_collected) {
    // Messages and computation before `start` (a configuration check, a barrier) and after
    // `stop` (a verification) are not the application's: the collected trace leaves them out.
    std::vector<comet::message_trace> traces(2);
    comet::threads::run(2, [&](threads_t& inner) {
        traced t(inner);
        const int me = t.rank(), other = 1 - me;
        std::uint64_t x = 1, y = 0;
        const auto exchange = [&](int tag) {
            auto r = t.irecv(other, tag, std::as_writable_bytes(std::span(&y, 1)));
            comet::ops::send(t, other, tag, std::as_bytes(std::span(&x, 1)));
            comet::ops::wait(t, r);
        };
        exchange(1);  // before the run
        comet::ops::compute(t, comet::work::busy(2e-3));
        t.start();
        exchange(2);
        exchange(3);
        comet::ops::compute(t, comet::work::busy(1e-3));
        t.stop();
        exchange(4);  // after it
        comet::ops::compute(t, comet::work::busy(2e-3));
        traces[static_cast<std::size_t>(me)] = t.collect();
    });
    for (const comet::message_trace& tr : traces) {
        const comet::message_trace& sender = traces[static_cast<std::size_t>(1 - tr.rank)];
        BOOST_REQUIRE_EQUAL(tr.sends.size(), 2u);
        BOOST_REQUIRE_EQUAL(tr.receives.size(), 2u);
        BOOST_TEST(tr.sends[0].tag == 2);
        BOOST_TEST(tr.sends[1].tag == 3);
        for (const comet::traced_receive& r : tr.receives) {
            BOOST_TEST((r.matched_tag == 2 || r.matched_tag == 3));
            BOOST_TEST(r.send_issued >= sender.start);  // matched with a send of the sender's run
        }
        BOOST_TEST(tr.compute_calls == 1u);
        BOOST_TEST(tr.compute_seconds >= 1e-3);
        BOOST_TEST(tr.compute_seconds < tr.stop - tr.start + 1e-12);  // none of the 4 ms outside
        const comet::delay_decomposition d = comet::decompose(tr);
        BOOST_TEST(d.sent == 2u);
        BOOST_TEST(d.received == 2u);
    }
}

BOOST_AUTO_TEST_SUITE_END()
