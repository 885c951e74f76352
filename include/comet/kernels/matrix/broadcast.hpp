// comet/kernels/matrix/broadcast.hpp — CoMet's row_broadcast and col_broadcast (thesis 3.3.11,
// figure 3.14, and the iPSC/860 code of figure 4.4), the pivot row / column broadcast of LU
// decomposition; and the kernels that time them over block dimensions (figure 5.15).
//
// row_broadcast(row): the ranks holding part of global row `row` (one mesh row of them) each
// send their segment to the other ranks of their mesh column, which store it in the same local
// row of their own block (figure 4.4: `ptr = local_matrix + (local_dim+2)*(++local_row)+1` on
// both sides), and acknowledge with an empty message; a sender finishes when every
// acknowledgement is in (figure 4.4's GOTIT), so its time covers the whole broadcast.
// col_broadcast(col) is the same along mesh rows. The difference the thesis' figure 5.15 shows:
// a block row is contiguous in the row-major local matrix and goes out as it is, while a block
// column is strided and is first assembled into a buffer (and scattered out of one on arrival).
//
// Figure 4.4 addresses the receivers as `i*proc_dim1 + node_col`, which holds for a row-major
// numbering only; comet asks the mesh (`node_at`), so the Gray-code layout works too.
#pragma once

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_MATRIX_BROADCAST

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/kernels/matrix/distributed.hpp>
#include <comet/kernels/matrix/kernel.hpp>
#include <comet/kernels/matrix/verify.hpp>
#include <comet/stats/record.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace comet::kernels {

namespace detail {

COMET_DECL void check_broadcast_index(int rank, std::string_view who, const char* what, std::int64_t index,
                                      std::int64_t count, const distributed_matrix& m);

}  // namespace detail

/// Broadcasts global row `row` (0 .. global_rows − 1) from the ranks holding it to the other
/// ranks of their mesh columns, which store it in the same local row of their blocks. Uses tags
/// `tag` (data) and `tag + 1` (acknowledgements).
/// @pre every rank of the group calls it on its part of the same matrix, with the same row and tag.
/// @throws invalid_argument for a row outside the global matrix, or when `m` is not this rank's
///         part of a matrix over this group.
/// @code
///   comet::kernels::row_broadcast(t, m, 5);   // every rank's block now holds global row 5's segment in local row 5 % dim + 1
/// @endcode
template <transport T>
void row_broadcast(T& t, distributed_matrix& m, std::int64_t row, int tag = default_matrix_tag) {
    detail::check_matrix(t, m, "row_broadcast");
    detail::check_matrix_tag(t, tag, 2, "row_broadcast");
    detail::check_broadcast_index(t.rank(), "row_broadcast", "row", row, m.global_rows(), m);
    const processor_mesh& mesh = m.mesh();
    const auto [r, c] = m.position();
    const int holders = static_cast<int>(row / m.dim());
    const std::span<double> segment = m.row_span(static_cast<int>(row % m.dim()) + 1);
    if (r == holders) {
        for (int i = 0; i < mesh.rows(); ++i)
            if (i != r) ops::send(t, mesh.node_at(i, c), tag, std::as_bytes(segment));
        for (int i = 1; i < mesh.rows(); ++i) ops::recv(t, any_source, tag + 1, {});
    } else {
        const int holder = mesh.node_at(holders, c);
        ops::recv(t, holder, tag, std::as_writable_bytes(segment));
        ops::send(t, holder, tag + 1, {});
    }
}

/// Broadcasts global column `col` (0 .. global_cols − 1) from the ranks holding it to the other
/// ranks of their mesh rows, which store it in the same local column of their blocks. The column
/// is assembled into a buffer to be sent, and scattered from one on arrival. Uses tags
/// `tag + 2` (data) and `tag + 3` (acknowledgements), so it can follow a row_broadcast with the
/// same tag at once.
/// @pre every rank of the group calls it on its part of the same matrix, with the same column and tag.
/// @throws invalid_argument for a column outside the global matrix, or when `m` is not this
///         rank's part of a matrix over this group.
/// @code
///   comet::kernels::col_broadcast(t, m, 0);
/// @endcode
template <transport T>
void col_broadcast(T& t, distributed_matrix& m, std::int64_t col, int tag = default_matrix_tag) {
    detail::check_matrix(t, m, "col_broadcast");
    detail::check_matrix_tag(t, tag, 4, "col_broadcast");
    detail::check_broadcast_index(t.rank(), "col_broadcast", "column", col, m.global_cols(), m);
    const processor_mesh& mesh = m.mesh();
    const auto [r, c] = m.position();
    const int d = m.dim();
    const int holders = static_cast<int>(col / d);
    const int j = static_cast<int>(col % d) + 1;
    auto& w = m.workspace();
    using column = Eigen::Map<Eigen::VectorXd>;
    if (c == holders) {
        column(w.west_out.data(), d) = m.local().col(j).segment(1, d);  // the assembly row_broadcast does not need
        ops::compute(t, m.column_copy());                                 // its cost, on a simulated machine
        for (int k = 0; k < mesh.cols(); ++k)
            if (k != c) ops::send(t, mesh.node_at(r, k), tag + 2, std::as_bytes(std::span(w.west_out)));
        for (int k = 1; k < mesh.cols(); ++k) ops::recv(t, any_source, tag + 3, {});
    } else {
        const int holder = mesh.node_at(r, holders);
        ops::recv(t, holder, tag + 2, std::as_writable_bytes(std::span(w.west_in)));
        ops::send(t, holder, tag + 3, {});
        m.local().col(j).segment(1, d) = column(w.west_in.data(), d);
        ops::compute(t, m.column_copy());
    }
}

/// Times row_broadcast of global row `cfg.row` over block dimensions (thesis figure 5.15) and
/// verifies its result. Returns, on the test node, one record per dimension with params
/// {matrix_dim, nodes, row} and samples = seconds per broadcast, the largest of the ranks' times
/// (see kernel.hpp; a sending rank's time includes the acknowledgements), each averaged over a
/// repeat loop of broadcasts with the loop overhead subtracted. Other ranks return
/// an empty set.
/// @pre every rank calls it with the same config; the group forms a thesis mesh.
/// @throws invalid_argument for a bad config, group size or row; verification_error when a result is wrong.
/// @code
///   comet::result_set r = comet::kernels::row_broadcast(t, {.dims = {16, 64}, .row = 0});
/// @endcode
template <transport T>
result_set row_broadcast(T& t, const matrix_config& cfg = {}) {
    const processor_mesh mesh = detail::matrix_kernel_mesh(t, cfg, "row_broadcast");
    for (int d : cfg.dims)
        if (cfg.row < 0 || cfg.row >= std::int64_t{mesh.rows()} * d)
            raise<invalid_argument>(t.rank(), "row_broadcast: row ", cfg.row, " is outside the ",
                                    std::int64_t{mesh.rows()} * d, " global rows at matrix dimension ", d, " (",
                                    mesh.rows(), " x ", mesh.cols(), " mesh)");
    result_set out;
    for (int d : cfg.dims) {
        distributed_matrix m(mesh, t.rank(), d);
        record rec = detail::matrix_record("row_broadcast", d, t.size());
        rec.params.set("row", cfg.row);
        const std::size_t before = out.records.size();
        detail::matrix_point(
            t, cfg, m, std::move(rec), [&] { row_broadcast(t, m, cfg.row, cfg.tag); },
            [&](std::int64_t) { return matrix_expectation::row_broadcast(cfg.row); }, out);
        // The row's segments go down the mesh columns: a mesh of one row sends nothing.
        if (mesh.rows() == 1 && out.records.size() > before)
            out.records.back().notes.push_back("a mesh of one row (1 x " + std::to_string(mesh.cols()) +
                                               "): no other rank to send to, nothing is sent; the time is the kernel's local work alone");
    }
    ops::barrier(t);
    return out;
}

/// Times col_broadcast of global column `cfg.col` over block dimensions (thesis figure 5.15) and
/// verifies its result. Records as row_broadcast's, with params {matrix_dim, nodes, col}.
/// @pre every rank calls it with the same config; the group forms a thesis mesh.
/// @throws invalid_argument for a bad config, group size or column; verification_error when a result is wrong.
/// @code
///   comet::result_set r = comet::kernels::col_broadcast(t, {.dims = {16, 64}, .col = 0});
/// @endcode
template <transport T>
result_set col_broadcast(T& t, const matrix_config& cfg = {}) {
    const processor_mesh mesh = detail::matrix_kernel_mesh(t, cfg, "col_broadcast");
    for (int d : cfg.dims)
        if (cfg.col < 0 || cfg.col >= std::int64_t{mesh.cols()} * d)
            raise<invalid_argument>(t.rank(), "col_broadcast: column ", cfg.col, " is outside the ",
                                    std::int64_t{mesh.cols()} * d, " global columns at matrix dimension ", d, " (",
                                    mesh.rows(), " x ", mesh.cols(), " mesh)");
    result_set out;
    for (int d : cfg.dims) {
        distributed_matrix m(mesh, t.rank(), d);
        record rec = detail::matrix_record("col_broadcast", d, t.size());
        rec.params.set("col", cfg.col);
        const std::size_t before = out.records.size();
        detail::matrix_point(
            t, cfg, m, std::move(rec), [&] { col_broadcast(t, m, cfg.col, cfg.tag); },
            [&](std::int64_t) { return matrix_expectation::col_broadcast(cfg.col); }, out);
        // The column's segments go along the mesh rows: a mesh of one column sends nothing.
        if (mesh.cols() == 1 && out.records.size() > before)
            out.records.back().notes.push_back("a mesh of one column (" + std::to_string(mesh.rows()) +
                                               " x 1): no other rank to send to, nothing is sent; the time is the kernel's local work alone");
    }
    ops::barrier(t);
    return out;
}

}  // namespace comet::kernels

#if !defined(COMET_COMPILED)
#include <comet/kernels/matrix/broadcast.ipp>
#endif
