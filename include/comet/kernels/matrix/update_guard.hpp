// comet/kernels/matrix/update_guard.hpp — CoMet's update_guard (thesis 3.3.8, figures 3.10–3.11,
// and its iPSC/860 form, figure 4.3): fill the guard wrapper of every rank's block from its four
// mesh neighbours, the halo exchange of every stencil code; and the kernel that times it over
// block dimensions (figure 5.13).
//
// Which guard comes from where. The thesis' text and figures disagree (3.3.8 fills the north
// guard from `top` but the east guard from `pred`; figure 4.3 fills the north guard from `bottom`
// but the east guard from `succ`). comet does what makes the guard useful — the guard holds the
// global neighbours of the block's edge elements, wrap-around included:
//   north guard row    ← top's last block row       south guard row   ← bottom's first block row
//   west guard column  ← pred's last block column   east guard column ← succ's first block column
// Corners are not exchanged (neither does the thesis); they keep their setup values.
//
// How (figure 4.3: "we have overlapped the assembling of buffers with communication"): each edge
// is sent with isend as soon as it is ready, the next one assembled while it travels; then the
// four irecvs; then one wait_all; then the two received columns are scattered into the guard.
// Each column assembled or scattered is also described to the transport as `work::copy` (a
// simulated machine charges its strided memory traffic; real ones have just paid it).
// Rows are contiguous in the row-major local matrix, so they go out of, and come into, the matrix
// itself; only the columns are assembled into buffers (the thesis assembled all four). Each
// direction has its own tag, so a neighbour that is two of them (2 mesh rows: top == bottom) or
// this rank itself (1 mesh row or column) is told apart.
#pragma once
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_MATRIX_UPDATE_GUARD

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/kernels/matrix/distributed.hpp>
#include <comet/kernels/matrix/kernel.hpp>
#include <comet/kernels/matrix/verify.hpp>
#include <comet/stats/record.hpp>

#include <array>
#include <span>

namespace comet::kernels {

/// Fills the guard wrapper of this rank's block from its four mesh neighbours (see the header
/// comment for which guard comes from where). Uses tags `tag` .. `tag + 3`.
/// @pre every rank of the group calls update_guard on its part of the same matrix, with the same tag.
/// @throws invalid_argument when `m` is not this rank's part of a matrix over this group.
/// @code
///   comet::kernels::distributed_matrix m(t, 64);
///   comet::kernels::update_guard(t, m);   // now m.local()(0, j) is the element above m.local()(1, j)
/// @endcode
template <transport T>
void update_guard(T& t, distributed_matrix& m, int tag = default_matrix_tag) {
    detail::check_matrix(t, m, "update_guard");
    detail::check_matrix_tag(t, tag, 4, "update_guard");
    const int d = m.dim();
    const auto n = m.neighbours();
    auto& a = m.local();
    auto& w = m.workspace();
    using column = Eigen::Map<Eigen::VectorXd>;
    // Tags by the direction a message travels; the receiver knows which guard it fills.
    const int north = tag, south = tag + 1, east = tag + 2, west = tag + 3;
    std::array<typename T::request, 8> requests;
    requests[0] = t.isend(n.top, north, std::as_bytes(m.row_span(1)));     // my first row: top's south guard
    requests[1] = t.isend(n.bottom, south, std::as_bytes(m.row_span(d)));  // my last row: bottom's north guard
    column(w.east_out.data(), d) = a.col(d).segment(1, d);                 // assembled while the rows travel
    ops::compute(t, m.column_copy());
    requests[2] = t.isend(n.succ, east, std::as_bytes(std::span(w.east_out)));
    column(w.west_out.data(), d) = a.col(1).segment(1, d);
    ops::compute(t, m.column_copy());
    requests[3] = t.isend(n.pred, west, std::as_bytes(std::span(w.west_out)));
    requests[4] = t.irecv(n.top, south, std::as_writable_bytes(m.row_span(0)));
    requests[5] = t.irecv(n.bottom, north, std::as_writable_bytes(m.row_span(d + 1)));
    requests[6] = t.irecv(n.pred, east, std::as_writable_bytes(std::span(w.west_in)));
    requests[7] = t.irecv(n.succ, west, std::as_writable_bytes(std::span(w.east_in)));
    ops::wait_all(t, std::span(requests));
    a.col(0).segment(1, d) = column(w.west_in.data(), d);
    a.col(d + 1).segment(1, d) = column(w.east_in.data(), d);
    ops::compute(t, m.column_copy());
    ops::compute(t, m.column_copy());
}

/// Times update_guard over block dimensions (thesis figure 5.13) and verifies its result.
/// Returns, on the test node, one record per dimension with params {matrix_dim, nodes} and
/// samples = seconds per update_guard, the largest of the ranks' times (see kernel.hpp), each
/// averaged over a repeat loop of operations with the loop overhead subtracted.
/// Other ranks return an empty set.
/// @pre every rank calls it with the same config; the group forms a thesis mesh (1, 2, 4, 8, 9, 16, 18, ...).
/// @throws invalid_argument for a bad config or group size; verification_error when a result is wrong.
/// @code
///   comet::result_set r = comet::kernels::update_guard(t, {.dims = {16, 64, 256}, .sampling = comet::fixed_sampling(5, 100)});
/// @endcode
template <transport T>
result_set update_guard(T& t, const matrix_config& cfg = {}) {
    const processor_mesh mesh = detail::matrix_kernel_mesh(t, cfg, "update_guard");
    result_set out;
    for (int d : cfg.dims) {
        distributed_matrix m(mesh, t.rank(), d);
        detail::matrix_point(
            t, cfg, m, detail::matrix_record("update_guard", d, t.size()), [&] { update_guard(t, m, cfg.tag); },
            [](std::int64_t) { return matrix_expectation::update_guard(); }, out);
    }
    ops::barrier(t);
    return out;
}

}  // namespace comet::kernels
