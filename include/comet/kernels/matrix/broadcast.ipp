// comet/kernels/matrix/broadcast.ipp — the definitions of comet/kernels/matrix/broadcast.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/matrix/broadcast.hpp>

namespace comet::kernels {
namespace detail {

COMET_DECL void check_broadcast_index(int rank, std::string_view who, const char* what, std::int64_t index,
                                      std::int64_t count, const distributed_matrix& m) {
    if (index < 0 || index >= count)
        raise<invalid_argument>(rank, who, ": ", what, " ", index, " is outside the ", count, " global ", what,
                                "s of a ", m.mesh().rows(), " x ", m.mesh().cols(), " mesh of ", m.dim(), " x ",
                                m.dim(), " blocks");
}

}  // namespace detail
}  // namespace comet::kernels
