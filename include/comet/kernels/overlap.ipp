// comet/kernels/overlap.ipp — the definitions of comet/kernels/overlap.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/overlap.hpp>

namespace comet::kernels {

COMET_DECL std::vector<std::size_t> default_overlap_sizes() { return {0, 2536, 85000}; }

COMET_DECL std::vector<std::size_t> default_overlap_vector_lengths() {
    return {0, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000};
}

}  // namespace comet::kernels
