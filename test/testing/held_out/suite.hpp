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
/// TODAY'S SUITE has no `all()`, so this calls each check method of comet/testing/checks.hpp in
/// the order COMET_TRANSPORT_CONFORMANCE declares them. When the new suite provides
/// `conformance{runner}.all()`, replace the body with
///     starting("all");
///     comet::testing::conformance{runner}.all();
/// and nothing else in the held-out evaluation changes.
template <class Runner>
void run_suite(const Runner& runner, const std::function<void(std::string_view)>& starting) {
    const comet::testing::conformance<Runner> c{runner};
    const std::pair<std::string_view, void (comet::testing::conformance<Runner>::*)() const> checks[] = {
        {"identity", &comet::testing::conformance<Runner>::identity},
        {"blocking_round_trip", &comet::testing::conformance<Runner>::blocking_round_trip},
        {"tag_matching", &comet::testing::conformance<Runner>::tag_matching},
        {"non_overtaking", &comet::testing::conformance<Runner>::non_overtaking},
        {"any_source_matching", &comet::testing::conformance<Runner>::any_source_matching},
        {"receive_buffer_sizes", &comet::testing::conformance<Runner>::receive_buffer_sizes},
        {"both_send_first", &comet::testing::conformance<Runner>::both_send_first},
        {"nonblocking", &comet::testing::conformance<Runner>::nonblocking},
        {"crossing_exchanges", &comet::testing::conformance<Runner>::crossing_exchanges},
        {"probe", &comet::testing::conformance<Runner>::probe},
        {"collectives", &comet::testing::conformance<Runner>::collectives},
        {"barrier_waits_for_everyone", &comet::testing::conformance<Runner>::barrier_waits_for_everyone},
        {"time_and_compute", &comet::testing::conformance<Runner>::time_and_compute},
        {"bad_arguments", &comet::testing::conformance<Runner>::bad_arguments},
        {"abort_stops_everyone", &comet::testing::conformance<Runner>::abort_stops_everyone},
        {"exception_stops_everyone", &comet::testing::conformance<Runner>::exception_stops_everyone},
        {"deadlock_is_reported", &comet::testing::conformance<Runner>::deadlock_is_reported},
        {"capabilities", &comet::testing::conformance<Runner>::capabilities},
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
