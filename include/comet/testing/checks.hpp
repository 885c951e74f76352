// comet/testing/checks.hpp — the conformance suite: does a type behave as the Transport concept
// says (comet/core/concepts.hpp)? Independent of any test framework; comet/testing/conformance.hpp
// turns the checks into Boost.Test cases.
//
//   struct my_runner {
//       static constexpr bool catches_failures = true;   // run rethrows a rank's exception
//       static constexpr bool detects_deadlock = true;   // a global deadlock raises deadlock_error
//       template <class F> void operator()(int ranks, F&& body) const { my::run(ranks, body); }
//   };
//   comet::testing::conformance{my_runner{}}.all();     // every check in order; throws on the first failure
//
// A runner runs `body(t)` on every rank of a group of `ranks` ranks of your transport. A
// runner bound to a fixed group (MPI: the size of the job) has `int ranks() const` and
// ignores the requested count; checks then use the ranks they need and let the rest watch. One
// that can start only so many ranks (a simulated machine of a few nodes) has `int max_ranks()
// const`, and the group sizes past it are left out (checks ask for 1 to 16).
// The concept itself is checked at compile time; at run time each check exercises one rule
// and the optional capabilities the type claims. Checks exchange data only through the
// transport, so they run the same for threads, processes and simulated nodes. A failed check
// throws `conformance_failure` naming the rank, the check and what it saw; one that waits too
// long fails at its deadline, and a call into the transport that never returns is ended by a
// watchdog (comet/testing/session.hpp). Every check ends with a barrier over the core and a
// probe that must find nothing left queued.
//
// The checks live by subject: checks/matching.hpp (identity, send status, tags, ordering),
// checks/wildcards.hpp, checks/completion.hpp (buffer sizes, test, probe, progress, delivery,
// arguments, time), checks/traffic.hpp (on seeded random traffic, checks/traffic_model.hpp: the
// rules together, checks/random_traffic.hpp, and the operations together,
// checks/random_operations.hpp), checks/operations.hpp (blocking operations, wait, bsend) and
// checks/group.hpp (checks/collectives.hpp: collectives and barriers; checks/capabilities.hpp
// with checks/nonblocking_collectives.hpp; checks/termination.hpp: abort, exceptions, deadlock).
#pragma once

#include <comet/testing/checks/completion.hpp>
#include <comet/testing/checks/group.hpp>
#include <comet/testing/checks/matching.hpp>
#include <comet/testing/checks/operations.hpp>
#include <comet/testing/checks/traffic.hpp>
#include <comet/testing/checks/wildcards.hpp>
#include <comet/testing/session.hpp>

namespace comet::testing {

/// The checks, each run with `run` under `limits` (COMET_CONFORMANCE_DEADLINE and
/// COMET_CONFORMANCE_WATCHDOG by default, session.hpp). Each throws `conformance_failure` (or
/// whatever the transport threw) when the transport misbehaves.
/// @code
///   comet::testing::conformance{my_runner{}}.all();
///   comet::testing::conformance{my_runner{}, {.deadline = 2}}.non_overtaking();
/// @endcode
template <class Runner>
struct conformance {
    const Runner& run;
    testing::limits limits = default_limits();

    // The point-to-point core, every wait deadlined: the order of `all`.
    void identity() const { checks::identity(run, limits); }
    void send_status() const { checks::send_status(run, limits); }
    void test_never_blocks() const { checks::test_never_blocks(run, limits); }
    void tag_matching() const { checks::tag_matching(run, limits); }
    void tag_range() const { checks::tag_range(run, limits); }
    void non_overtaking() const { checks::non_overtaking(run, limits); }
    void non_overtaking_across_sizes() const { checks::non_overtaking_across_sizes(run, limits); }
    void any_source_matching() const { checks::any_source_matching(run, limits); }
    void wildcard_earliest() const { checks::wildcard_earliest(run, limits); }
    void wildcard_posted_order() const { checks::wildcard_posted_order(run, limits); }
    void receive_buffer_sizes() const { checks::receive_buffer_sizes(run, limits); }
    void buffers_after_completion() const { checks::buffers_after_completion(run, limits); }
    void probe() const { checks::probe(run, limits); }
    void progress() const { checks::progress(run, limits); }
    void exactly_once() const { checks::exactly_once(run, limits); }
    void bad_arguments() const { checks::bad_arguments(run, limits); }
    void time_and_compute() const { checks::time_and_compute(run, limits); }
    void random_traffic() const { checks::random_traffic(run, limits); }
    // Operations and capabilities, each call watched.
    void blocking_round_trip() const { checks::blocking_round_trip(run, limits); }
    void nonblocking() const { checks::nonblocking(run, limits); }
    void crossing_exchanges() const { checks::crossing_exchanges(run, limits); }
    void both_send_first() const { checks::both_send_first(run, limits); }
    void bsend_promise() const { checks::bsend_promise(run, limits); }
    void barrier_waits_for_everyone() const { checks::barrier_waits_for_everyone(run, limits); }
    void collectives() const { checks::collectives(run, limits); }
    void capabilities() const { checks::capabilities(run, limits); }
    void random_operations() const { checks::random_operations(run, limits); }
    // How a run ends (the runner's part).
    void abort_stops_everyone() const { checks::abort_stops_everyone(run, limits); }
    void exception_stops_everyone() const { checks::exception_stops_everyone(run, limits); }
    void deadlock_is_reported() const { checks::deadlock_is_reported(run, limits); }

    /// Every check, in the order above (the core's first, so that a broken core is reported by
    /// a deadlined check before an operation built on it could hang); throws on the first failure.
    void all() const {
        identity(), send_status(), test_never_blocks(), tag_matching(), tag_range(), non_overtaking(),
            non_overtaking_across_sizes(), any_source_matching(), wildcard_earliest(), wildcard_posted_order(),
            receive_buffer_sizes(), buffers_after_completion(), probe(), progress(), exactly_once(), bad_arguments(),
            time_and_compute(), random_traffic();
        blocking_round_trip(), nonblocking(), crossing_exchanges(), both_send_first(), bsend_promise(),
            barrier_waits_for_everyone(), collectives(), capabilities(), random_operations();
        abort_stops_everyone(), exception_stops_everyone(), deadlock_is_reported();
    }
};

}  // namespace comet::testing
