// comet/kernels/matrix/kernel.ipp — the definitions of comet/kernels/matrix/kernel.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/matrix/kernel.hpp>

namespace comet::kernels {

COMET_DECL std::vector<int> default_matrix_dims() { return {4, 8, 16, 32, 64, 96, 128, 160, 192, 224, 256}; }

COMET_DECL std::size_t matrix_kernel_points(std::string_view kernel, const matrix_config& cfg) {
    if (kernel == "shift_matrix") return cfg.dims.size() * cfg.directions.size();
    if (kernel == "update_guard" || kernel == "transpose" || kernel == "row_broadcast" || kernel == "col_broadcast")
        return cfg.dims.size();
    return 0;
}

}  // namespace comet::kernels

namespace comet::kernels {
namespace detail {

COMET_DECL record matrix_record(std::string_view kernel, int dim, int nodes) {
    record rec{std::string(kernel), params{}, {}};
    rec.params.set("matrix_dim", dim).set("nodes", nodes);
    return rec;
}

}  // namespace detail
}  // namespace comet::kernels
