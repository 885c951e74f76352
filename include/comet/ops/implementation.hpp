// comet/ops/implementation.hpp — which implementation of an operation ran: the transport's own
// (`native`) or comet's portable algorithm over the point-to-point core (`portable`).
//
// Every operation in comet/ops/ is a function object with
//   `template <class T> static constexpr implementation implementation_for()`,
// decided at compile time from the transport's members; collectives also return it, and kernels
// write it into their records as the param `implementation`, so a reader knows whether a
// broadcast figure is the transport's broadcast or comet's binomial tree over its sends.
#pragma once

#include <string_view>

namespace comet::ops {

enum class implementation : unsigned char { native, portable };

constexpr std::string_view to_string(implementation i) noexcept { return i == implementation::native ? "native" : "portable"; }

}  // namespace comet::ops
