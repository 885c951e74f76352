// held_out/suite.hpp — the one place the held-out evaluation calls the conformance suite.
#pragma once

#include <comet/testing/checks.hpp>

#include <functional>
#include <string_view>

namespace held_out {

/// Runs the whole conformance suite against `runner`; throws on the first failure (a
/// `comet::testing::conformance_failure`, or whatever the transport raised). `starting` hears
/// the name of each check before it runs, so that a run killed at the time limit can say where
/// it hung.
///
/// The checks of `comet::testing::conformance<Runner>::all()`, one by one in its order, so that
/// each can be named as it starts; a check added to `all()` belongs in this list too.
template <class Runner>
void run_suite(const Runner& runner, const std::function<void(std::string_view)>& starting) {
    using C = comet::testing::conformance<Runner>;
    const C c{runner};
    const std::pair<std::string_view, void (C::*)() const> checks[] = {
        {"identity", &C::identity},
        {"send_status", &C::send_status},
        {"test_never_blocks", &C::test_never_blocks},
        {"tag_matching", &C::tag_matching},
        {"tag_range", &C::tag_range},
        {"non_overtaking", &C::non_overtaking},
        {"non_overtaking_across_sizes", &C::non_overtaking_across_sizes},
        {"any_source_matching", &C::any_source_matching},
        {"wildcard_earliest", &C::wildcard_earliest},
        {"wildcard_posted_order", &C::wildcard_posted_order},
        {"receive_buffer_sizes", &C::receive_buffer_sizes},
        {"probe", &C::probe},
        {"progress", &C::progress},
        {"exactly_once", &C::exactly_once},
        {"bad_arguments", &C::bad_arguments},
        {"time_and_compute", &C::time_and_compute},
        {"blocking_round_trip", &C::blocking_round_trip},
        {"nonblocking", &C::nonblocking},
        {"crossing_exchanges", &C::crossing_exchanges},
        {"both_send_first", &C::both_send_first},
        {"bsend_promise", &C::bsend_promise},
        {"collectives", &C::collectives},
        {"barrier_waits_for_everyone", &C::barrier_waits_for_everyone},
        {"capabilities", &C::capabilities},
        {"abort_stops_everyone", &C::abort_stops_everyone},
        {"exception_stops_everyone", &C::exception_stops_everyone},
        {"deadlock_is_reported", &C::deadlock_is_reported},
    };
    for (const auto& [name, check] : checks) {
        starting(name);
        (c.*check)();
    }
}

/// The same, for a caller that does not follow the checks.
template <class Runner>
void run_suite(const Runner& runner) {
    run_suite(runner, [](std::string_view) {});
}

}  // namespace held_out
