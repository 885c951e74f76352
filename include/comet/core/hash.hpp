// comet/core/hash.hpp — splitmix64, the one hash comet draws seeded values from (clock skews,
// injected faults, verification patterns): the same values on every platform and compiler for
// the same input, which no standard distribution promises.
#pragma once

#include <cstdint>

namespace comet::detail {

/// One step of splitmix64 (Steele, Lea, Flood 2014): a bijective mix of 64 bits, good enough to
/// turn (seed, rank, stream) into independent-looking uniform values.
constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

}  // namespace comet::detail
