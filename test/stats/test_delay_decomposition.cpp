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

BOOST_AUTO_TEST_CASE(interrupts_during_computation_are_overhead_not_user_time) {
    // The seed's U leaves out "the time for interrupts to handle communication tasks": where the
    // trace knows it, that part of the compute calls moves to O; where it does not, U is the
    // whole time in compute and nothing is claimed.
    comet::message_trace t;
    t.start = 0.0, t.stop = 10.0, t.compute_seconds = 6.0, t.compute_interrupt_seconds = 0.5;
    t.receives = {waited(7.0, 8.0, 7.5)};
    comet::delay_decomposition d = comet::decompose(t);
    BOOST_TEST(d.user == 6.0);
    BOOST_TEST(d.interrupts == 0.0);
    BOOST_TEST(!d.interrupts_known);
    t.interrupts_known = true;
    d = comet::decompose(t);
    BOOST_TEST(d.user == 5.5);
    BOOST_TEST(d.interrupts == 0.5);
    BOOST_TEST(d.interrupts_known);
    BOOST_TEST(d.overhead == 10.0 - 5.5 - 0.5 - 0.5);
    BOOST_TEST(d.user + d.logical + d.physical + d.overhead == d.elapsed);
    // Over ranks: a mean, normalised with the times, known only if every rank's is.
    comet::delay_decomposition other = d;
    other.interrupts = 1.5;
    std::vector<comet::delay_decomposition> both{d, other};
    comet::service_states s = comet::combine(both);
    BOOST_TEST(s.interrupts == 1.0);
    BOOST_TEST(s.interrupts_known);
    BOOST_TEST(s.normalised(4.0).interrupts == 0.25);
    both[1].interrupts_known = false;
    BOOST_TEST(!comet::combine(both).interrupts_known);
}

BOOST_AUTO_TEST_CASE(where_the_wire_is_known_physical_delay_is_the_packets_time_on_it) {
    // The seed's P accumulates each packet's time on the wire, waited for or not; the time
    // blocked after the send was issued stays as physical_wait, and what of it was not on the
    // wire is overhead.
    comet::message_trace t;
    t.start = 0.0, t.stop = 10.0, t.compute_seconds = 4.0, t.wire_known = true;
    auto w1 = waited(5.0, 6.0, 4.0);  // blocked 1 s after its send; 0.25 s of it on the wire
    w1.wire_seconds = 0.25, w1.wire_from = 5.5, w1.wire_to = 5.75;
    auto w2 = waited(7.0, 7.0, 6.5);  // arrived while the rank computed: no wait
    w2.wire_seconds = 0.125, w2.wire_from = 6.6, w2.wire_to = 6.725;
    t.receives = {w1, w2};
    const comet::delay_decomposition d = comet::decompose(t);
    BOOST_TEST(d.wire_known);
    BOOST_TEST(d.physical == 0.375);
    BOOST_TEST(d.physical_wait == 1.0);
    BOOST_TEST(d.logical == 0.0);
    BOOST_TEST(d.overhead == 10.0 - 4.0 - 0.375);
    t.wire_known = false;  // the same trace where the transport does not say: P is the wait
    const comet::delay_decomposition w = comet::decompose(t);
    BOOST_TEST(w.physical == 1.0);
    BOOST_TEST(w.physical_wait == 1.0);
    BOOST_TEST(!w.wire_known);
}

BOOST_AUTO_TEST_CASE(control_messages_wait_in_l_but_count_for_no_logical_message_statistic) {
    // The seed's %LM, A and Max Log are over user messages; an application's acknowledgements
    // (here: up to 16 bytes) are waited for as logical delay all the same.
    comet::message_trace t;
    t.start = 0.0, t.stop = 10.0;
    auto data = waited(1.0, 2.0, 1.5);  // L 0.5
    data.size = 64;
    auto ack = waited(3.0, 5.0, 5.0);   // L 2
    ack.size = 16;
    auto late = waited(6.0, 6.5, 5.0);  // L 0
    late.size = 64;
    t.receives = {data, ack, late};
    const comet::delay_decomposition all = comet::decompose(t);
    BOOST_TEST(all.received == 3u);
    BOOST_TEST(all.logical_messages == 2u);
    BOOST_TEST(all.max_logical == 2.0);
    const comet::delay_decomposition d = comet::decompose(t, 16);
    BOOST_TEST(d.logical == 2.5);
    BOOST_TEST(d.received == 2u);
    BOOST_TEST(d.logical_messages == 1u);
    BOOST_TEST(d.user_logical == 0.5);
    BOOST_TEST(d.max_logical == 0.5);
    const std::vector<comet::delay_decomposition> one{d};
    const comet::service_states s = comet::combine(one);
    BOOST_TEST(s.logical_message_percent == 50.0);
    BOOST_TEST(s.mean_logical == 0.5);
    BOOST_TEST(s.logical == 2.5);
}

BOOST_AUTO_TEST_CASE(the_ranks_combine_as_the_seeds_tables_do) {
    comet::delay_decomposition a, b;
    a.elapsed = 10, a.user = 4, a.logical = 3, a.physical = 1, a.overhead = 2, a.received = 4, a.logical_messages = 2, a.user_logical = 3;
    a.max_logical = 2.5, a.sent = 4, a.retransmissions = 3, a.retransmissions_known = true;
    b.elapsed = 12, b.user = 6, b.logical = 1.5, b.physical = 1, b.overhead = 3.5, b.received = 6, b.logical_messages = 1, b.user_logical = 1;
    b.max_logical = 1.0, b.sent = 6, b.retransmissions = 1, b.retransmissions_known = true;
    const std::vector<comet::delay_decomposition> both{a, b};
    const comet::service_states s = comet::combine(both);
    BOOST_TEST(s.elapsed == 11.0);
    BOOST_TEST(s.user == 5.0);
    BOOST_TEST(s.logical == 2.25);                   // b waited 0.5 s for control messages too
    BOOST_TEST(s.logical_message_percent == 30.0);   // 3 of 10 user messages
    BOOST_TEST(s.mean_logical == 4.0 / 3.0);         // (3 + 1) s over 3 user messages
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
