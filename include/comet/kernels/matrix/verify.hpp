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

#include <comet/core/compiled.hpp>

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

COMET_DECL std::int64_t wrap(std::int64_t v, std::int64_t n) noexcept;

/// The setup value of cell (i, j) of `node`'s local matrix in a matrix shaped like `m`.
COMET_DECL double setup_cell(const distributed_matrix& m, int node, int i, int j);

/// "global element (5, 2) (local cell (2, 3) of rank 1 at mesh position (0, 1))" or
/// "north guard cell (0, 3) of rank 1 at mesh position (0, 1)".
COMET_DECL std::string describe_cell(const distributed_matrix& m, int node, int i, int j);

}  // namespace detail

/// The value cell (`i`, `j`) of `m`'s local matrix must hold after `e`, computed from the
/// fixed setup and the mesh alone (never from the operations' code).
/// @throws invalid_argument for a cell outside the local matrix, a row or column outside the
///         global matrix, or a negative count.
COMET_DECL double expected_value(const distributed_matrix& m, const matrix_expectation& e, int i, int j);

/// The first cell (row by row, guard included) of `m`'s local matrix that does not hold what it
/// must after `e`, if any.
COMET_DECL std::optional<matrix_mismatch> find_mismatch(const distributed_matrix& m, const matrix_expectation& e);

/// The one-line report of a mismatch in a matrix shaped like `m` after `e`:
/// "rank 1: transpose x 1: verification failed at global element (0, 3) (local cell (1, 4) of rank
/// 1 at mesh position (0, 1)): expected 201326593 (global element (3, 0)), found 4 (no setup value)".
COMET_DECL std::string describe_mismatch(const distributed_matrix& m, const matrix_expectation& e,
                                         const matrix_mismatch& x);

/// Checks every cell of `m`'s local matrix against what it must hold after `e` (the thesis'
/// check.c, run on one rank).
/// @throws verification_error describing the first wrong cell.
/// @code
///   comet::kernels::update_guard(t, m);
///   comet::kernels::verify(m, comet::kernels::matrix_expectation::update_guard());
/// @endcode
COMET_DECL void verify(const distributed_matrix& m, const matrix_expectation& e);

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

#if !defined(COMET_COMPILED)
#include <comet/kernels/matrix/verify.ipp>
#endif
