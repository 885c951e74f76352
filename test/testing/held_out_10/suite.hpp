// held_out_10/suite.hpp — the one place the tenth held-out evaluation calls the conformance suite.
#pragma once

#include <comet/testing/checks.hpp>

namespace held_out_10 {

/// Runs the whole conformance suite against `runner` through its public entry point; throws on
/// the first failure (a `comet::testing::conformance_failure`, or whatever the transport raised).
/// A call that never returns is ended by the suite's own watchdog.
template <class Runner>
void run_suite(const Runner& runner) {
    comet::testing::conformance<Runner>{runner}.all();
}

}  // namespace held_out_10
