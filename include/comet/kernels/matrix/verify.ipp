// comet/kernels/matrix/verify.ipp — the definitions of comet/kernels/matrix/verify.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/matrix/verify.hpp>

namespace comet::kernels {
namespace detail {

COMET_DECL std::int64_t wrap(std::int64_t v, std::int64_t n) noexcept { return ((v % n) + n) % n; }

COMET_DECL double setup_cell(const distributed_matrix& m, int node, int i, int j) {
    const int side = m.dim() + 2;
    if (i == 0 || j == 0 || i == side - 1 || j == side - 1) return matrix_guard_value(node, m.dim(), i, j);
    const auto p = m.mesh().position(node);
    return matrix_element_value(std::int64_t{p.row} * m.dim() + i - 1, std::int64_t{p.col} * m.dim() + j - 1);
}

COMET_DECL std::string describe_cell(const distributed_matrix& m, int node, int i, int j) {
    const int side = m.dim() + 2;
    const auto p = m.mesh().position(node);
    const std::string where = comet::detail::concat("rank ", node, " at mesh position (", p.row, ", ", p.col, ")");
    const bool north = i == 0, south = i == side - 1, west = j == 0, east = j == side - 1;
    if (!north && !south && !west && !east)
        return comet::detail::concat("global element (", std::int64_t{p.row} * m.dim() + i - 1, ", ",
                      std::int64_t{p.col} * m.dim() + j - 1, ") (local cell (", i, ", ", j, ") of ", where, ")");
    const char* part = (north || south) && (west || east) ? "corner"
                       : north                            ? "north"
                       : south                            ? "south"
                       : west                             ? "west"
                                                          : "east";
    return comet::detail::concat(part, " guard cell (", i, ", ", j, ") of ", where);
}

}  // namespace detail
}  // namespace comet::kernels

namespace comet::kernels {

COMET_DECL double expected_value(const distributed_matrix& m, const matrix_expectation& e, int i, int j) {
    using kind = matrix_expectation::kind;
    const int d = m.dim(), side = d + 2;
    if (i < 0 || j < 0 || i >= side || j >= side)
        raise<invalid_argument>(m.rank(), "expected_value: cell (", i, ", ", j, ") is outside the ", side, " x ", side,
                                " local matrix");
    const bool interior = i >= 1 && i <= d && j >= 1 && j <= d;
    const auto [row, col] = m.position();
    const processor_mesh& mesh = m.mesh();
    switch (e.what) {
    case kind::setup:
        break;
    case kind::update_guard: {
        // North guard: the global row above the block; south: the row below; west / east: the
        // columns left and right — all with wrap-around. Corners are not exchanged.
        const bool edge_row = (i == 0 || i == side - 1) && j >= 1 && j <= d;
        const bool edge_col = (j == 0 || j == side - 1) && i >= 1 && i <= d;
        if (edge_row) {
            const std::int64_t g = detail::wrap(i == 0 ? m.first_row() - 1 : m.first_row() + d, m.global_rows());
            return matrix_element_value(g, m.first_col() + j - 1);
        }
        if (edge_col) {
            const std::int64_t g = detail::wrap(j == 0 ? m.first_col() - 1 : m.first_col() + d, m.global_cols());
            return matrix_element_value(m.first_row() + i - 1, g);
        }
        break;
    }
    case kind::shift: {
        if (e.times < 0) raise<invalid_argument>(m.rank(), "expected_value: shift count ", e.times, " is negative");
        // After n shifts north a rank holds, guard and all, the local matrix the rank n mesh rows
        // below it started with; after n shifts east, the one n columns to its left.
        const int origin = e.direction == shift_direction::north
                               ? mesh.node_at(static_cast<int>(detail::wrap(row + e.times, mesh.rows())), col)
                               : mesh.node_at(row, static_cast<int>(detail::wrap(col - e.times, mesh.cols())));
        return detail::setup_cell(m, origin, i, j);
    }
    case kind::transpose: {
        if (e.times < 0) raise<invalid_argument>(m.rank(), "expected_value: transpose count ", e.times, " is negative");
        if (e.times % 2 == 0) break;
        // The partner's whole local matrix, guard included, transposed.
        return detail::setup_cell(m, transpose_partner(mesh, m.rank()), j, i);
    }
    case kind::row_broadcast: {
        if (e.index < 0 || e.index >= m.global_rows())
            raise<invalid_argument>(m.rank(), "expected_value: row ", e.index, " is outside the ", m.global_rows(),
                                    " global rows");
        // Ranks outside the row's mesh row hold it in the same local row as its holders.
        if (row != e.index / d && interior && i == e.index % d + 1)
            return matrix_element_value(e.index, m.first_col() + j - 1);
        break;
    }
    case kind::col_broadcast: {
        if (e.index < 0 || e.index >= m.global_cols())
            raise<invalid_argument>(m.rank(), "expected_value: column ", e.index, " is outside the ", m.global_cols(),
                                    " global columns");
        if (col != e.index / d && interior && j == e.index % d + 1)
            return matrix_element_value(m.first_row() + i - 1, e.index);
        break;
    }
    }
    return detail::setup_cell(m, m.rank(), i, j);
}

COMET_DECL std::optional<matrix_mismatch> find_mismatch(const distributed_matrix& m, const matrix_expectation& e) {
    const int side = m.dim() + 2;
    const auto& a = m.local();
    for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j) {
            const double want = expected_value(m, e, i, j);
            const double have = a(i, j);
            // Compared by bits, not by ==: a NaN must fail, and so must −0.0 in place of 0.0.
            if (std::bit_cast<std::uint64_t>(want) != std::bit_cast<std::uint64_t>(have))
                return matrix_mismatch{m.rank(), i, j, want, have};
        }
    return std::nullopt;
}

COMET_DECL std::string describe_mismatch(const distributed_matrix& m, const matrix_expectation& e,
                                         const matrix_mismatch& x) {
    const auto what = [&](double v) {
        return comet::detail::concat(detail::matrix_number(v), " (",
                              describe_matrix_value(v, m.dim(), m.mesh().nodes(), m.global_rows(), m.global_cols()),
                              ")");
    };
    return comet::detail::concat("rank ", x.rank, ": ", e.name(), ": verification failed at ",
                          detail::describe_cell(m, x.rank, x.local_row, x.local_col), ": expected ", what(x.expected),
                          ", found ", what(x.found));
}

COMET_DECL void verify(const distributed_matrix& m, const matrix_expectation& e) {
    if (const auto x = find_mismatch(m, e)) throw verification_error(describe_mismatch(m, e, *x));
}

}  // namespace comet::kernels
