// comet/kernels/matrix/transpose.hpp — CoMet's transpose (thesis 3.3.10, figure 3.13, and 4.3:
// "by dereferencing the processor mesh with the node_row and node_col transposed. Each node,
// after receiving the local matrix from another node performed an internal transpose"); and the
// kernel that times it over block dimensions (figure 5.16).
//
// Each rank exchanges its whole local matrix (guard included) with `transpose_partner` — a
// blocking send, then a blocking receive into the same local matrix, as in the pairwise
// exchange — and transposes it in place. Ranks that are their own partner (the mesh diagonal)
// only transpose. On a square mesh that is the transpose of the global matrix; on the thesis'
// other shape (twice as wide as high) the global matrix is transposed as the square matrices
// side by side that the square halves of the mesh hold — see `transpose_partner` in
// distributed.hpp for why that is the transpose this decomposition allows.
#pragma once
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_MATRIX_TRANSPOSE

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/kernels/swap.hpp>
#include <comet/kernels/matrix/distributed.hpp>
#include <comet/kernels/matrix/kernel.hpp>
#include <comet/kernels/matrix/verify.hpp>
#include <comet/stats/record.hpp>

namespace comet::kernels {

/// Transposes the distributed matrix: the block at mesh position (r, c) becomes the transpose of
/// the one at (c, r) (within each square of a mesh wider than high; see `transpose_partner`).
/// The guard is transposed with its block. Uses tag `tag`.
/// @pre every rank of the group calls it on its part of the same matrix, with the same tag.
/// @throws invalid_argument when `m` is not this rank's part of a matrix over this group;
///         not_supported on a hand-made mesh that squares cannot tile (e.g. 2 x 3).
/// @code
///   comet::kernels::transpose(t, m);   // m.block() now holds (the partner's block) transposed
/// @endcode
template <transport T>
void transpose(T& t, distributed_matrix& m, int tag = default_matrix_tag) {
    detail::check_matrix(t, m, "transpose");
    detail::check_matrix_tag(t, tag, 1, "transpose");
    int partner = 0;
    try {
        partner = transpose_partner(m.mesh(), t.rank());
    } catch (const not_supported& e) {
        raise<not_supported>(t.rank(), e.what());
    }
    if (partner != t.rank()) {
        kernels::detail::swap_in_place(t, partner, partner, m.bytes(), tag);
    }
    m.local().transposeInPlace();
    ops::compute(t, m.transpose_copy());  // its memory traffic, on a simulated machine
}

/// Times transpose over block dimensions (thesis figure 5.16) and verifies its result. Returns,
/// on the test node, one record per dimension with params {matrix_dim, nodes} and samples =
/// seconds per transpose, the largest of the ranks' times (see kernel.hpp; on the diagonal a
/// rank only transposes locally, so the largest is an exchanging rank's), each averaged over a
/// repeat loop of transposes with the loop overhead subtracted. Other ranks return
/// an empty set.
/// @pre every rank calls it with the same config; the group forms a thesis mesh.
/// @throws invalid_argument for a bad config or group size; verification_error when a result is wrong.
/// @code
///   comet::result_set r = comet::kernels::transpose(t, {.dims = {16, 64}});
/// @endcode
template <transport T>
result_set transpose(T& t, const matrix_config& cfg = {}) {
    const processor_mesh mesh = detail::matrix_kernel_mesh(t, cfg, "transpose");
    result_set out;
    for (int d : cfg.dims) {
        distributed_matrix m(mesh, t.rank(), d);
        record rec = detail::matrix_record("transpose", d, t.size());
        rec.values.set("form", std::string(to_string(swap_form_of<T>())));
        detail::matrix_point(
            t, cfg, m, std::move(rec), [&] { transpose(t, m, cfg.tag); },
            [](std::int64_t applied) { return matrix_expectation::transpose(applied); }, out);
    }
    ops::barrier(t);
    return out;
}

}  // namespace comet::kernels
