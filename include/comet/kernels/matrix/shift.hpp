// comet/kernels/matrix/shift.hpp — CoMet's shift_matrix (thesis 3.3.9, figure 3.12): shift the
// distributed matrix by one block (N/P elements) north or east, as matrix multiplication
// (Cannon's algorithm) does; and the kernel that times it over block dimensions (figure 5.14).
//
// As the thesis did ("to keep matters simple and to avoid having to build too many buffers"),
// the whole local matrix moves, guard wrapper included: it is sent to `top` (north) or `succ`
// (east) with a blocking send, and the neighbour's arrives from `bottom` or `pred` with a
// blocking receive into the same local matrix ("all the nodes receive the shifted part of the
// matrix into their original data structure"). That send-then-receive on every rank at once is
// safe because a transport's `send` must not wait forever for its receive (core/concepts.hpp);
// on a mesh one row high, north sends to the rank itself, likewise.
#pragma once
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_MATRIX_SHIFT

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/kernels/swap.hpp>
#include <comet/kernels/matrix/distributed.hpp>
#include <comet/kernels/matrix/kernel.hpp>
#include <comet/kernels/matrix/verify.hpp>
#include <comet/stats/record.hpp>

namespace comet::kernels {

/// Shifts the distributed matrix one block in direction `d`: every rank's whole local matrix,
/// guard included, moves to its `top` (north) or `succ` (east) neighbour, wrapping around. Uses
/// tag `tag`.
/// @pre every rank of the group calls it on its part of the same matrix, with the same direction and tag.
/// @throws invalid_argument when `m` is not this rank's part of a matrix over this group, or `d`
///         is not a direction.
/// @code
///   comet::kernels::shift_matrix(t, m, comet::kernels::shift_direction::north);  // m holds what bottom held
/// @endcode
template <transport T>
void shift_matrix(T& t, distributed_matrix& m, shift_direction d, int tag = default_matrix_tag) {
    detail::check_matrix(t, m, "shift_matrix");
    detail::check_matrix_tag(t, tag, 1, "shift_matrix");
    if (d != shift_direction::north && d != shift_direction::east)
        raise<invalid_argument>(t.rank(), "shift_matrix: unknown direction ", static_cast<int>(d), " (north or east)");
    const auto n = m.neighbours();
    const bool north = d == shift_direction::north;
    kernels::detail::swap_in_place(t, north ? n.top : n.succ, north ? n.bottom : n.pred, m.bytes(), tag);
}

/// Times shift_matrix over `cfg.directions` × block dimensions (thesis figure 5.14) and
/// verifies its result. Returns, on the test node, one record per (direction, dimension) with
/// params {matrix_dim, nodes, direction ("north" / "east")} and samples = seconds per shift, the
/// largest of the ranks' times (see kernel.hpp), each averaged over a repeat loop of shifts
/// with the loop overhead subtracted. Other ranks return an empty set.
/// @pre every rank calls it with the same config; the group forms a thesis mesh.
/// @throws invalid_argument for a bad config or group size; verification_error when a result is wrong.
/// @code
///   comet::result_set r = comet::kernels::shift_matrix(t, {.dims = {16, 64}, .directions = {comet::kernels::shift_direction::east}});
/// @endcode
template <transport T>
result_set shift_matrix(T& t, const matrix_config& cfg = {}) {
    const processor_mesh mesh = detail::matrix_kernel_mesh(t, cfg, "shift_matrix");
    for (shift_direction d : cfg.directions)
        if (d != shift_direction::north && d != shift_direction::east)
            raise<invalid_argument>(t.rank(), "shift_matrix: unknown direction ", static_cast<int>(d),
                                    " (north or east)");
    result_set out;
    for (shift_direction dir : cfg.directions)
        for (int d : cfg.dims) {
            distributed_matrix m(mesh, t.rank(), d);
            record rec = detail::matrix_record("shift_matrix", d, t.size());
            rec.values.set("form", std::string(to_string(swap_form_of<T>())));
            rec.params.set("direction", std::string(to_string(dir)));
            detail::matrix_point(
                t, cfg, m, std::move(rec), [&] { shift_matrix(t, m, dir, cfg.tag); },
                [dir](std::int64_t applied) { return matrix_expectation::shift(dir, applied); }, out);
        }
    ops::barrier(t);
    return out;
}

}  // namespace comet::kernels
