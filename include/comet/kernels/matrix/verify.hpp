// comet/kernels/matrix/verify.hpp — the verification module of CoMet's matrix component: the
// thesis' check.c (3.2.2: "a verification module is used to check the resultant matrix", which
// users may not modify), checking EXACTLY, cell by cell, guard included.
//
// It knows nothing of how the operations are implemented: from the fixed setup (setup.hpp), the
// mesh and what was done since the setup (a `matrix_expectation`), it computes the value every
// cell of a rank's local matrix must hold and compares with ==. Setup values are integers, so
// any changed bit, any misplaced element and any element not delivered shows; the report says
// where (global element or guard cell, local cell, rank, mesh position), what was expected and
// what was found, decoded ("the value of global element (2, 5)", "no setup value").
//
// `verify` checks one rank; `verify_all` is collective and makes every rank throw the same
// report, naming the failing rank, so that no rank runs on into the next measurement.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/core/errors.hpp>
#include <comet/kernels/matrix/distributed.hpp>
#include <comet/kernels/matrix/setup.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace comet::kernels {

/// A matrix operation's result failed verification: comet's verification_error (core/errors.hpp).
/// The message names the rank, the operation, the element (global position or guard cell, local
/// cell), and the expected and found values.
using comet::verification_error;

/// What has been done to a distributed matrix since its setup, i.e. which result to expect.
/// @code
///   comet::kernels::verify(m, comet::kernels::matrix_expectation::shift(comet::kernels::shift_direction::east, 3));
/// @endcode
struct matrix_expectation {
    enum class kind { setup, update_guard, shift, transpose, row_broadcast, col_broadcast };
    kind what = kind::setup;
    shift_direction direction = shift_direction::north;  ///< shift
    std::int64_t times = 0;                              ///< shift, transpose: applications since the setup
    std::int64_t index = 0;                              ///< row_broadcast: global row; col_broadcast: global column

    /// Just set up (or set up again).
    static matrix_expectation setup() { return {}; }
    /// update_guard, once or more (it is idempotent).
    static matrix_expectation update_guard() { return {kind::update_guard}; }
    /// shift_matrix in direction `d`, `times` times.
    static matrix_expectation shift(shift_direction d, std::int64_t times = 1) { return {kind::shift, d, times}; }
    /// transpose, `times` times (an even number gives the setup back).
    static matrix_expectation transpose(std::int64_t times = 1) {
        return {kind::transpose, shift_direction::north, times};
    }
    /// row_broadcast of global row `row`, once or more.
    static matrix_expectation row_broadcast(std::int64_t row) {
        return {kind::row_broadcast, shift_direction::north, 0, row};
    }
    /// col_broadcast of global column `col`, once or more.
    static matrix_expectation col_broadcast(std::int64_t col) {
        return {kind::col_broadcast, shift_direction::north, 0, col};
    }

    /// "setup", "update_guard", "shift_matrix(north) x 3", "transpose x 1", "row_broadcast(row 5)", ...
    std::string name() const {
        switch (what) {
        case kind::setup:
            return "setup";
        case kind::update_guard:
            return "update_guard";
        case kind::shift:
            return comet::detail::concat("shift_matrix(", to_string(direction), ") x ", times);
        case kind::transpose:
            return comet::detail::concat("transpose x ", times);
        case kind::row_broadcast:
            return comet::detail::concat("row_broadcast(row ", index, ")");
        case kind::col_broadcast:
            return comet::detail::concat("col_broadcast(col ", index, ")");
        }
        return "?";
    }
};

/// One cell that does not hold what it should.
struct matrix_mismatch {
    int rank = 0;       ///< whose local matrix
    int local_row = 0;  ///< cell in the (dim+2)×(dim+2) local matrix (0 and dim+1: guard)
    int local_col = 0;
    double expected = 0.0;
    double found = 0.0;
};

namespace detail {

inline std::int64_t wrap(std::int64_t v, std::int64_t n) noexcept { return ((v % n) + n) % n; }

/// The setup value of cell (i, j) of `node`'s local matrix in a matrix shaped like `m`.
inline double setup_cell(const distributed_matrix& m, int node, int i, int j) {
    const int side = m.dim() + 2;
    if (i == 0 || j == 0 || i == side - 1 || j == side - 1) return matrix_guard_value(node, m.dim(), i, j);
    const auto p = m.mesh().position(node);
    return matrix_element_value(std::int64_t{p.row} * m.dim() + i - 1, std::int64_t{p.col} * m.dim() + j - 1);
}

/// "global element (5, 2) (local cell (2, 3) of rank 1 at mesh position (0, 1))" or
/// "north guard cell (0, 3) of rank 1 at mesh position (0, 1)".
inline std::string describe_cell(const distributed_matrix& m, int node, int i, int j) {
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

/// The value cell (`i`, `j`) of `m`'s local matrix must hold after `e`, computed from the
/// fixed setup and the mesh alone (never from the operations' code).
/// @throws invalid_argument for a cell outside the local matrix, a row or column outside the
///         global matrix, or a negative count.
inline double expected_value(const distributed_matrix& m, const matrix_expectation& e, int i, int j) {
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

/// The first cell (row by row, guard included) of `m`'s local matrix that does not hold what it
/// must after `e`, if any.
inline std::optional<matrix_mismatch> find_mismatch(const distributed_matrix& m, const matrix_expectation& e) {
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

/// The one-line report of a mismatch in a matrix shaped like `m` after `e`:
/// "rank 1: transpose x 1: verification failed at global element (0, 3) (local cell (1, 4) of rank
/// 1 at mesh position (0, 1)): expected 201326593 (global element (3, 0)), found 4 (no setup value)".
inline std::string describe_mismatch(const distributed_matrix& m, const matrix_expectation& e,
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

/// Checks every cell of `m`'s local matrix against what it must hold after `e` (the thesis'
/// check.c, run on one rank).
/// @throws verification_error describing the first wrong cell.
/// @code
///   comet::kernels::update_guard(t, m);
///   comet::kernels::verify(m, comet::kernels::matrix_expectation::update_guard());
/// @endcode
inline void verify(const distributed_matrix& m, const matrix_expectation& e) {
    if (const auto x = find_mismatch(m, e)) throw verification_error(describe_mismatch(m, e, *x));
}

/// Collective `verify`: every rank checks its part, and if any failed, EVERY rank throws the
/// same verification_error, describing the lowest failing rank's first wrong cell and saying how
/// many ranks failed. (Were only the failing rank to throw, the others would wait for it in
/// their next collective operation.)
/// @pre every rank calls verify_all with the same expectation.
template <transport T>
void verify_all(T& t, const distributed_matrix& m, const matrix_expectation& e) {
    detail::check_matrix(t, m, "verify_all");
    // Five numbers per rank, zero except in the failing ranks' slots; the sum carries every
    // rank's report to every rank exactly (adding zeros changes no bit).
    const auto p = static_cast<std::size_t>(t.size());
    std::vector<double> report(5 * p, 0.0);
    if (const auto x = find_mismatch(m, e)) {
        const auto at = 5 * static_cast<std::size_t>(t.rank());
        report[at] = 1.0;
        report[at + 1] = x->local_row;
        report[at + 2] = x->local_col;
        report[at + 3] = x->expected;
        report[at + 4] = x->found;
    }
    ops::allreduce_sum(t, report);
    int failed = 0, first = -1;
    for (std::size_t r = 0; r < p; ++r)
        if (report[5 * r] != 0.0) {
            ++failed;
            if (first < 0) first = static_cast<int>(r);
        }
    if (failed == 0) return;
    const auto at = 5 * static_cast<std::size_t>(first);
    const matrix_mismatch x{first, static_cast<int>(report[at + 1]), static_cast<int>(report[at + 2]), report[at + 3],
                            report[at + 4]};
    std::string message = describe_mismatch(m, e, x);
    if (failed > 1) message += comet::detail::concat(" (", failed - 1, " more rank", failed > 2 ? "s" : "", " failed too)");
    throw verification_error(message);
}

}  // namespace comet::kernels
