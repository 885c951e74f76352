// comet/kernels/matrix/setup.ipp — the definitions of comet/kernels/matrix/setup.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/matrix/setup.hpp>

namespace comet::kernels {
namespace detail {

COMET_DECL std::string matrix_number(double v) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

}  // namespace detail
}  // namespace comet::kernels

namespace comet::kernels {

COMET_DECL std::string describe_matrix_value(double v, int dim, int nodes, std::int64_t global_rows,
                                             std::int64_t global_cols) {
    if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9007199254740992.0) return "no setup value";
    if (v > 0) {
        const auto k = static_cast<std::int64_t>(v) - 1;
        const std::int64_t row = k / matrix_max_global_dim, col = k % matrix_max_global_dim;
        if (row < global_rows && col < global_cols) return comet::detail::concat("global element (", row, ", ", col, ")");
    } else if (v < 0) {
        const std::int64_t side = std::int64_t{dim} + 2;
        const auto k = static_cast<std::int64_t>(-v) - 1;
        const std::int64_t node = k / (side * side), i = k % (side * side) / side, j = k % side;
        const bool border = i == 0 || j == 0 || i == side - 1 || j == side - 1;
        if (node < nodes && border) return comet::detail::concat("guard cell (", i, ", ", j, ") of rank ", node);
    }
    return "no setup value";
}

}  // namespace comet::kernels
