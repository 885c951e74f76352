// comet/testing/checks/group.hpp — the conformance checks of what involves the whole group: the
// blocking collectives of comet/ops/ and a barrier's meaning (checks/collectives.hpp), the
// optional capabilities the type claims (checks/capabilities.hpp, with the nonblocking
// collectives in checks/nonblocking_collectives.hpp), and how a run ends when a rank aborts,
// throws or deadlocks, the runner's part (checks/termination.hpp).
#pragma once

#include <comet/testing/checks/capabilities.hpp>
#include <comet/testing/checks/collectives.hpp>
#include <comet/testing/checks/nonblocking_collectives.hpp>
#include <comet/testing/checks/termination.hpp>
