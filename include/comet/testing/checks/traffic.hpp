// comet/testing/checks/traffic.hpp — the conformance checks on seeded random traffic: the
// point-to-point rules together (random_traffic, checks/random_traffic.hpp) and the operations
// together (random_operations, checks/random_operations.hpp), both drawn by the seed, dice and
// model of checks/traffic_model.hpp. COMET_CONFORMANCE_SEED=<seed> replays a failure.
#pragma once

#include <comet/testing/checks/random_operations.hpp>
#include <comet/testing/checks/random_traffic.hpp>
#include <comet/testing/checks/traffic_model.hpp>
