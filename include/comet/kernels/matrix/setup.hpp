// comet/kernels/matrix/setup.hpp — the fixed values of CoMet's distributed matrix: the thesis'
// setup.c, which "the user is not allowed to modify" (CoMet thesis 3.2.2, 3.4.1).
//
// Every cell of every rank's local (dim+2)×(dim+2) matrix starts with a value that says where it
// came from, so that the verification (verify.hpp) can tell not only THAT a cell is wrong but
// WHAT it holds instead — "the value of global element (3, 5)" reads as a misplaced element,
// "no setup value" as corrupted bytes:
//   interior cell = global element (row, col):  row·2^26 + col + 1              (> 0)
//   guard cell (i, j) of rank r:                −(r·(dim+2)² + i·(dim+2) + j + 1)  (< 0)
// Both are integers below 2^53, so doubles hold them exactly and survive any copy unchanged;
// no two cells of the whole distributed matrix share a value, and 0 (what a buffer that never
// received anything usually holds) is none of them.
//
// Holds the values and their decoding only; the matrix that carries them is distributed.hpp.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace comet::kernels {

/// The largest global row or column count the setup values can encode (2^26 = 67108864).
inline constexpr std::int64_t matrix_max_global_dim = std::int64_t{1} << 26;

/// The largest local block dimension: the whole (dim+2)² local matrix must fit one message.
inline constexpr int matrix_max_dim = 16381;

/// The largest node count the guard values can encode together with `matrix_max_dim`.
inline constexpr int matrix_max_nodes = 1 << 20;

/// The setup value of global element (`row`, `col`): row·2^26 + col + 1.
/// @pre 0 <= row, col < matrix_max_global_dim
constexpr double matrix_element_value(std::int64_t row, std::int64_t col) noexcept {
    return static_cast<double>(row * matrix_max_global_dim + col + 1);
}

/// The setup value of guard cell (`i`, `j`) (row and column in the (dim+2)² local matrix, on
/// its border) of `node`'s local matrix: −(node·(dim+2)² + i·(dim+2) + j + 1).
constexpr double matrix_guard_value(int node, int dim, int i, int j) noexcept {
    const std::int64_t side = std::int64_t{dim} + 2;
    return -static_cast<double>(std::int64_t{node} * side * side + std::int64_t{i} * side + j + 1);
}

namespace detail {

/// `v` in the shortest form that reads back as the same double, so that a value one bit off
/// prints differently from the one expected (335544323 against 335544323.00000006).
COMET_DECL std::string matrix_number(double v);

}  // namespace detail

/// What `v` is in a distributed matrix of `dim`×`dim` blocks over `nodes` ranks whose global
/// matrix is `global_rows`×`global_cols`: "global element (3, 5)", "guard cell (0, 2) of rank
/// 1", or "no setup value" (corrupted bytes, or a value computed by user code).
/// @code
///   comet::kernels::describe_matrix_value(comet::kernels::matrix_element_value(3, 5), 4, 4, 8, 8);  // "global element (3, 5)"
/// @endcode
COMET_DECL std::string describe_matrix_value(double v, int dim, int nodes, std::int64_t global_rows,
                                             std::int64_t global_cols);

}  // namespace comet::kernels

#if !defined(COMET_COMPILED)
#include <comet/kernels/matrix/setup.ipp>
#endif
