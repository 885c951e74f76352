// Tests of comet/analysis/delays.hpp on traces built by hand: each wait interval splits at the
// send's issue time into logical and physical delay, overhead is the rest, %LM, A, Max Log and
// TM follow the seed's definitions, and equation 1 recovers b1 and b0 from runs made to follow
// it (and says so when retransmissions never vary, or when the runs do not follow it).
#include <comet/analysis/delays.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <vector>

namespace delays_test {

/// A receive waited for from `a` to `b`, for a message issued at `s`.
comet::traced_receive waited(double a, double b, double s) {
    comet::traced_receive r;
    r.matched_source = 1, r.matched_tag = 3;
    r.blocked_from = a, r.blocked_to = b, r.completed = b, r.send_issued = s;
    return r;
}

}  // namespace delays_test

BOOST_AUTO_TEST_SUITE(delays)

using namespace delays_test;

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

BOOST_AUTO_TEST_CASE(equation_one_recovers_its_coefficients) {
    // Runs made to follow E_D = U + P1/D + b1·MR + b0 exactly, with U = 2.89, P1 = 0.86,
    // b1 = 0.024563, b0 = 1.5498 (the seed's equation 2).
    std::vector<comet::dilated_run> runs;
    const double mr[] = {120, 64, 18, 9, 6};
    int i = 0;
    for (double d : {1.0, 2.0, 4.0, 8.0, 16.0}) {
        comet::dilated_run r{d, {}};
        r.states.user = 2.89 * d;
        r.states.physical = 0.86;  // the transport's own time: not dilated
        r.states.retries = static_cast<std::uint64_t>(mr[i++]);
        r.states.elapsed = d * (2.89 + 0.86 / d + 0.024563 * static_cast<double>(r.states.retries) + 1.5498);
        runs.push_back(r);
    }
    const comet::dilation_estimate e = comet::estimate_dilation(runs);
    BOOST_TEST(e.b1_fitted);
    BOOST_TEST(e.b1 == 0.024563, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(e.b0 == 1.5498, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(e.mean_user == 2.89, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(e.residual < 1e-9);
    BOOST_TEST(e.note.empty());
    BOOST_TEST(e.speedup[0] == 1.0);
    BOOST_TEST(e.speedup[1] == runs[0].states.elapsed / (runs[1].states.elapsed / 2.0), boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(without_retransmissions_only_b0_is_fitted_and_a_poor_fit_is_flagged) {
    std::vector<comet::dilated_run> runs;
    for (double d : {1.0, 2.0, 4.0}) {
        comet::dilated_run r{d, {}};
        r.states.user = d, r.states.physical = 0.5, r.states.elapsed = d * 3.0 + 0.5;
        runs.push_back(r);
    }
    comet::dilation_estimate e = comet::estimate_dilation(runs);
    BOOST_TEST(!e.b1_fitted);
    BOOST_TEST(e.note.find("b1 cannot be fitted") != std::string::npos);
    runs[2].states.elapsed = 100.0;  // a run the estimator cannot describe
    runs[0].states.retries = 5;
    e = comet::estimate_dilation(runs);
    BOOST_TEST(e.note.find("does not describe") != std::string::npos, e.note);
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused) {
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
    const std::vector<comet::dilated_run> one{{1.0, {}}}, no_first{{2.0, {}}, {4.0, {}}}, shrunk{{1.0, {}}, {0.5, {}}};
    BOOST_CHECK_EXCEPTION(comet::estimate_dilation(one), comet::invalid_argument, says({"at least 2"}));
    BOOST_CHECK_EXCEPTION(comet::estimate_dilation(no_first), comet::invalid_argument, says({"no undilated run"}));
    BOOST_CHECK_EXCEPTION(comet::estimate_dilation(shrunk), comet::invalid_argument, says({"0.5 is below 1"}));
    BOOST_CHECK_EXCEPTION(comet::combine({}), comet::invalid_argument, says({"no ranks"}));
}

BOOST_AUTO_TEST_SUITE_END()
