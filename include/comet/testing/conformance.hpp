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

#include <string>

// One case: the check's failure becomes a failed assertion carrying its message (a check that
// passes is one passed assertion); what else a transport throws ends the case as an error.
#define COMET_CONFORMANCE_CASE_(runner, check)                                            \
    BOOST_AUTO_TEST_CASE(check) {                                                         \
        std::string comet_failure_;                                                       \
        try {                                                                             \
            ::comet::testing::conformance{runner}.check();                                \
        } catch (const ::comet::testing::conformance_failure& e) {                        \
            comet_failure_ = e.what();                                                    \
        }                                                                                 \
        BOOST_TEST(comet_failure_.empty(), comet_failure_);                               \
    }

/// Declares a Boost.Test suite `name` with a test case per conformance check (every check of
/// `conformance::all`, in its order), each run with `runner`.
#define COMET_TRANSPORT_CONFORMANCE(name, runner)                              \
    BOOST_AUTO_TEST_SUITE(name)                                                \
    COMET_CONFORMANCE_CASE_(runner, identity)                                  \
    COMET_CONFORMANCE_CASE_(runner, send_status)                               \
    COMET_CONFORMANCE_CASE_(runner, test_never_blocks)                         \
    COMET_CONFORMANCE_CASE_(runner, tag_matching)                              \
    COMET_CONFORMANCE_CASE_(runner, tag_range)                                 \
    COMET_CONFORMANCE_CASE_(runner, non_overtaking)                            \
    COMET_CONFORMANCE_CASE_(runner, non_overtaking_across_sizes)               \
    COMET_CONFORMANCE_CASE_(runner, any_source_matching)                       \
    COMET_CONFORMANCE_CASE_(runner, wildcard_earliest)                         \
    COMET_CONFORMANCE_CASE_(runner, wildcard_posted_order)                     \
    COMET_CONFORMANCE_CASE_(runner, receive_buffer_sizes)                      \
    COMET_CONFORMANCE_CASE_(runner, buffers_after_completion)                  \
    COMET_CONFORMANCE_CASE_(runner, probe)                                     \
    COMET_CONFORMANCE_CASE_(runner, progress)                                  \
    COMET_CONFORMANCE_CASE_(runner, exactly_once)                              \
    COMET_CONFORMANCE_CASE_(runner, bad_arguments)                             \
    COMET_CONFORMANCE_CASE_(runner, time_and_compute)                          \
    COMET_CONFORMANCE_CASE_(runner, random_traffic)                            \
    COMET_CONFORMANCE_CASE_(runner, blocking_round_trip)                       \
    COMET_CONFORMANCE_CASE_(runner, nonblocking)                               \
    COMET_CONFORMANCE_CASE_(runner, crossing_exchanges)                        \
    COMET_CONFORMANCE_CASE_(runner, both_send_first)                           \
    COMET_CONFORMANCE_CASE_(runner, bsend_promise)                             \
    COMET_CONFORMANCE_CASE_(runner, barrier_waits_for_everyone)                \
    COMET_CONFORMANCE_CASE_(runner, collectives)                               \
    COMET_CONFORMANCE_CASE_(runner, capabilities)                              \
    COMET_CONFORMANCE_CASE_(runner, random_operations)                         \
    COMET_CONFORMANCE_CASE_(runner, abort_stops_everyone)                      \
    COMET_CONFORMANCE_CASE_(runner, exception_stops_everyone)                  \
    COMET_CONFORMANCE_CASE_(runner, deadlock_is_reported)                      \
    BOOST_AUTO_TEST_SUITE_END()
