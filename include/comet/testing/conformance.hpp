// comet/testing/conformance.hpp — the conformance checks of comet/testing/checks.hpp as Boost.Test
// cases, for use in your own Boost.Test module (link the CMake target comet::testing).
//
//   #include <comet/testing/conformance.hpp>
//   struct my_runner {
//       static constexpr bool catches_failures = true;   // run rethrows a rank's exception
//       static constexpr bool detects_deadlock = true;   // a global deadlock raises deadlock_error
//       template <class F> void operator()(int ranks, F&& body) const { my::run(ranks, body); }
//   };
//   COMET_TRANSPORT_CONFORMANCE(my_transport_conforms, my_runner{})
#pragma once

#include <comet/testing/checks.hpp>

#include <boost/test/unit_test.hpp>


/// Declares a Boost.Test suite `name` that runs every conformance check with `runner`.
#define COMET_TRANSPORT_CONFORMANCE(name, runner)                                                 \
    BOOST_AUTO_TEST_SUITE(name)                                                                   \
    BOOST_AUTO_TEST_CASE(identity) { ::comet::testing::conformance{runner}.identity(); }         \
    BOOST_AUTO_TEST_CASE(blocking_round_trip) { ::comet::testing::conformance{runner}.blocking_round_trip(); } \
    BOOST_AUTO_TEST_CASE(tag_matching) { ::comet::testing::conformance{runner}.tag_matching(); } \
    BOOST_AUTO_TEST_CASE(non_overtaking) { ::comet::testing::conformance{runner}.non_overtaking(); } \
    BOOST_AUTO_TEST_CASE(any_source_matching) { ::comet::testing::conformance{runner}.any_source_matching(); } \
    BOOST_AUTO_TEST_CASE(receive_buffer_sizes) { ::comet::testing::conformance{runner}.receive_buffer_sizes(); } \
    BOOST_AUTO_TEST_CASE(both_send_first) { ::comet::testing::conformance{runner}.both_send_first(); } \
    BOOST_AUTO_TEST_CASE(nonblocking) { ::comet::testing::conformance{runner}.nonblocking(); }   \
    BOOST_AUTO_TEST_CASE(crossing_exchanges) { ::comet::testing::conformance{runner}.crossing_exchanges(); } \
    BOOST_AUTO_TEST_CASE(probe) { ::comet::testing::conformance{runner}.probe(); }               \
    BOOST_AUTO_TEST_CASE(collectives) { ::comet::testing::conformance{runner}.collectives(); }   \
    BOOST_AUTO_TEST_CASE(barrier_waits_for_everyone) { ::comet::testing::conformance{runner}.barrier_waits_for_everyone(); } \
    BOOST_AUTO_TEST_CASE(time_and_compute) { ::comet::testing::conformance{runner}.time_and_compute(); } \
    BOOST_AUTO_TEST_CASE(bad_arguments) { ::comet::testing::conformance{runner}.bad_arguments(); } \
    BOOST_AUTO_TEST_CASE(abort_stops_everyone) { ::comet::testing::conformance{runner}.abort_stops_everyone(); } \
    BOOST_AUTO_TEST_CASE(exception_stops_everyone) { ::comet::testing::conformance{runner}.exception_stops_everyone(); } \
    BOOST_AUTO_TEST_CASE(deadlock_is_reported) { ::comet::testing::conformance{runner}.deadlock_is_reported(); } \
    BOOST_AUTO_TEST_CASE(capabilities) { ::comet::testing::conformance{runner}.capabilities(); } \
    BOOST_AUTO_TEST_SUITE_END()
