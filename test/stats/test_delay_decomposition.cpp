// Tests of comet/stats/delay_decomposition.hpp on traces built by hand: each wait interval
// splits at the send's issue time into logical and physical delay, overhead is the rest, and
// %LM, A, Max Log and TM over the ranks follow the seed's definitions; a trace that cannot be
// decomposed is refused naming the rank.
#include <comet/stats/delay_decomposition.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <vector>

namespace decomposition_test {

/// A receive waited for from `a` to `b`, for a message issued at `s`.
comet::traced_receive waited(double a, double b, double s) {
    comet::traced_receive r;
    r.matched_source = 1, r.matched_tag = 3;
    r.blocked_from = a, r.blocked_to = b, r.completed = b, r.send_issued = s;
    return r;
}

}  // namespace decomposition_test

BOOST_AUTO_TEST_SUITE(delay_decomposition)

using namespace decomposition_test;

BOOST_AUTO_TEST_CASE(a_wait_splits_at_the_send_into_logical_and_physical_delay) {
    comet::message_trace t;
    t.rank = 2, t.start = 10.0, t.stop = 20.0, t.compute_seconds = 4.0;
    t.receives = {waited(11.0, 13.0, 12.5),   // L 1.5, P 0.5
                  waited(14.0, 14.25, 13.0),  // sent before the wait: L 0, P 0.25
                  waited(15.0, 15.0, 14.0)};  // found complete by a test: nothing
    t.sends.resize(5);
    const comet::delay_decomposition d = comet::decompose(t);
    BOOST_TEST(d.elapsed == 10.0);
    BOOST_TEST(d.user == 4.0);
    BOOST_TEST(d.logical == 1.5);
    BOOST_TEST(d.physical == 0.75);
    BOOST_TEST(d.overhead == 10.0 - 4.0 - 1.5 - 0.75);
    BOOST_TEST(d.received == 3u);
    BOOST_TEST(d.logical_messages == 1u);
    BOOST_TEST(d.max_logical == 1.5);
    BOOST_TEST(d.sent == 5u);
}

BOOST_AUTO_TEST_CASE(the_ranks_combine_as_the_seeds_tables_do) {
    comet::delay_decomposition a, b;
    a.elapsed = 10, a.user = 4, a.logical = 3, a.physical = 1, a.overhead = 2, a.received = 4, a.logical_messages = 2;
    a.max_logical = 2.5, a.sent = 4, a.retransmissions = 3, a.retransmissions_known = true;
    b.elapsed = 12, b.user = 6, b.logical = 1, b.physical = 1, b.overhead = 4, b.received = 6, b.logical_messages = 1;
    b.max_logical = 1.0, b.sent = 6, b.retransmissions = 1, b.retransmissions_known = true;
    const std::vector<comet::delay_decomposition> both{a, b};
    const comet::service_states s = comet::combine(both);
    BOOST_TEST(s.elapsed == 11.0);
    BOOST_TEST(s.user == 5.0);
    BOOST_TEST(s.logical == 2.0);
    BOOST_TEST(s.logical_message_percent == 30.0);   // 3 of 10 messages
    BOOST_TEST(s.mean_logical == 4.0 / 3.0);         // (3 + 1) s over 3 messages
    BOOST_TEST(s.max_logical == 2.5);
    BOOST_TEST(s.messages == 10u);
    BOOST_TEST(s.retries == 4u);
    BOOST_TEST(s.retries_known);
    const comet::service_states n = s.normalised(4.0);
    BOOST_TEST(n.elapsed == 11.0 / 4.0);
    BOOST_TEST(n.mean_logical == 1.0 / 3.0);
    BOOST_TEST(n.max_logical == 2.5);  // actual, as in the seed
}

BOOST_AUTO_TEST_CASE(bad_traces_are_refused) {
    const auto says = [](std::initializer_list<const char*> w) {
        return [w](const std::exception& e) { return comet_test::mentions(e, w); };
    };
    comet::message_trace t;
    t.rank = 3, t.start = 2.0, t.stop = 1.0;
    BOOST_CHECK_EXCEPTION(comet::decompose(t), comet::invalid_argument, says({"rank 3", "before its start"}));
    t.stop = 3.0;
    t.receives = {waited(2.0, 2.5, 2.1)};
    t.receives[0].send_issued = -1.0;
    BOOST_CHECK_EXCEPTION(comet::decompose(t), comet::invalid_argument, says({"rank 3", "no send time"}));
    BOOST_CHECK_EXCEPTION(comet::combine({}), comet::invalid_argument, says({"no ranks"}));
}

BOOST_AUTO_TEST_SUITE_END()
