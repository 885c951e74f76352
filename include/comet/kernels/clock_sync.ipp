// comet/kernels/clock_sync.ipp — the definitions of comet/kernels/clock_sync.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/clock_sync.hpp>

namespace comet::kernels {
namespace detail::clock_sync {

COMET_DECL std::size_t lower_median(std::vector<std::size_t> v) {
    if (v.empty()) return 0;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

}  // namespace detail::clock_sync
}  // namespace comet::kernels
