// A LogGOPS machine for the tests of the machine and of its fit (test/loggops/,
// test/analysis/test_fit_machine.cpp): every parameter has a value of its own, so that each is
// recognisable in a sum of them and a fit that swaps two is caught.
#pragma once

#include <comet/transport/loggops/machine.hpp>

namespace comet_test {

inline comet::loggops::machine distinct_loggops_machine() {
    using namespace comet::loggops;
    machine m;
    m.L = 2 * microseconds;
    m.o_s = 400 * nanoseconds;
    m.o_r = 600 * nanoseconds;
    m.O_s = 50 * picoseconds_per_byte;
    m.O_r = 70 * picoseconds_per_byte;
    m.g = 1 * microseconds;
    m.G = 300 * picoseconds_per_byte;
    m.S = 4096;
    return m;
}

}  // namespace comet_test
