// comet/topology/mesh.hpp — the 2-D processor mesh CoMet's matrix kernels decompose over, and the
// general 2-D torus of the NIST mesh benchmark.
//
// CoMet thesis 3.1.5 (a user-specified "two-dimensional matrix of processors" that keeps adjacent
// matrix blocks on adjacent nodes), 3.4.1 (`get_proc_dimensions()`, `get_adjacent_neighbors()`,
// the globals `proc_dim1`, `proc_dim2`, `top`, `bottom`, `pred`, `succ`, `node_row`, `node_col`)
// and 4.3 (figure 4.1: a hypercube laid onto the mesh with Gray codes in snake order). Here those
// globals become the values of one `processor_mesh`. The mesh only maps node numbers to
// positions; it knows nothing of transports, and it does not check that `nodes()` matches a
// transport's size (the matrix kernels do, where the rank is known).
#pragma once

#include <comet/core/errors.hpp>
#include <comet/topology/hypercube.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>

namespace comet {

/// How node numbers are laid onto the mesh.
enum class mesh_mapping {
    /// Thesis figure 4.1: Gray codes in snake order, so that mesh neighbours (wrap-around
    /// included) are hypercube neighbours. Needs a power-of-two number of nodes.
    gray,
    /// Node r·cols + c at row r, column c: any shape, no hypercube adjacency promised.
    row_major,
};

/// A place in the mesh: the thesis' `node_row` and `node_col`.
struct mesh_position {
    int row = 0;
    int col = 0;

    friend bool operator==(const mesh_position&, const mesh_position&) = default;
};

/// The four nearest neighbours of a node, with wrap-around in both directions; the thesis'
/// globals of the same names. In a mesh one row high, `top` and `bottom` are the node itself
/// (likewise `pred` and `succ` one column wide); two rows high, `top` == `bottom`.
struct mesh_neighbours {
    int top = 0;     ///< north: row - 1
    int bottom = 0;  ///< south: row + 1
    int pred = 0;    ///< west: column - 1
    int succ = 0;    ///< east: column + 1

    friend bool operator==(const mesh_neighbours&, const mesh_neighbours&) = default;
};

inline std::ostream& operator<<(std::ostream& os, mesh_mapping m) {
    switch (m) {
    case mesh_mapping::gray: return os << "gray";
    case mesh_mapping::row_major: return os << "row_major";
    }
    return os << "mesh_mapping(" << static_cast<int>(m) << ")";
}

/// Prints "(row, col)".
inline std::ostream& operator<<(std::ostream& os, const mesh_position& p) {
    return os << '(' << p.row << ", " << p.col << ')';
}

/// Prints "{top T, bottom B, pred P, succ S}".
inline std::ostream& operator<<(std::ostream& os, const mesh_neighbours& n) {
    return os << "{top " << n.top << ", bottom " << n.bottom << ", pred " << n.pred << ", succ " << n.succ << '}';
}

namespace detail {

inline void check_mesh_shape(const char* who, int rows, int cols, mesh_mapping m) {
    if (m != mesh_mapping::gray && m != mesh_mapping::row_major)
        raise<invalid_argument>(-1, who, ": unknown mapping ", static_cast<int>(m));
    if (rows < 1) raise<invalid_argument>(-1, who, ": a mesh needs at least 1 row, not ", rows);
    if (cols < 1) raise<invalid_argument>(-1, who, ": a mesh needs at least 1 column, not ", cols);
    const std::int64_t nodes = std::int64_t{rows} * cols;
    if (nodes > std::numeric_limits<int>::max())
        raise<invalid_argument>(-1, who, ": ", rows, " x ", cols, " = ", nodes, " nodes do not fit an int rank");
    // A product of positive integers is a power of two only when both factors are, which is what
    // the Gray layout needs: each row is a Gray-coded ring of `cols`, each column one of `rows`.
    if (m == mesh_mapping::gray && !is_power_of_two(static_cast<std::uint64_t>(nodes)))
        raise<invalid_argument>(-1, who, ": the gray mapping needs a power-of-two number of nodes, not ", nodes,
                                " (", rows, " x ", cols, ")");
}

/// The largest r with r*r <= n, for n >= 0.
inline int isqrt(int n) noexcept {
    auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
    while (r * r > n) --r;
    while ((r + 1) * (r + 1) <= n) ++r;
    return static_cast<int>(r);
}

}  // namespace detail

/// A rows x cols mesh of nodes with wrap-around (a 2-D torus), and the mapping of node numbers
/// onto it. With `mesh_mapping::gray` on a power-of-two number of nodes, every pair of mesh
/// neighbours is exactly one hypercube hop apart (distance 1 in `hypercube(nodes())`), wrap-around
/// links included; so the matrix kernels' guard updates and shifts cross a single link each. (A
/// side of length 1 makes a node its own neighbour, distance 0; that is the only exception.)
/// @code
///   comet::processor_mesh mesh(t.size());          // 16 ranks: 4 x 4, gray mapping
///   auto [top, bottom, pred, succ] = mesh.neighbours(t.rank());
///   auto [row, col] = mesh.position(t.rank());
/// @endcode
class processor_mesh {
public:
    /// The thesis' mesh for `nodes` (section 4.3, `get_proc_dimensions()`): square when `nodes`
    /// is a perfect square, otherwise `cols()` = 2·`rows()` (so `nodes` = 2·rows²). The mapping
    /// is `gray` when `nodes` is a power of two (the iPSC/860 case), `row_major` otherwise.
    /// @throws invalid_argument when `nodes` < 1 or has neither shape
    ///         ("processor_mesh: 6 nodes is neither a perfect square nor twice one").
    explicit processor_mesh(int nodes)
        : processor_mesh(nodes, nodes > 0 && is_power_of_two(static_cast<std::uint64_t>(nodes))
                                    ? mesh_mapping::gray
                                    : mesh_mapping::row_major) {}

    /// The thesis' shape for `nodes` with the mapping `m`.
    /// @throws invalid_argument as the one-argument constructor, and for `gray` unless `nodes`
    ///         is a power of two.
    processor_mesh(int nodes, mesh_mapping m) {
        if (nodes < 1) raise<invalid_argument>(-1, "processor_mesh: a mesh needs at least 1 node, not ", nodes);
        int r = detail::isqrt(nodes);
        if (r * r != nodes) {
            r = detail::isqrt(nodes / 2);
            if (nodes % 2 != 0 || 2 * r * r != nodes)
                raise<invalid_argument>(-1, "processor_mesh: ", nodes, " nodes is neither a perfect square nor twice one");
        }
        const int c = (r * r == nodes) ? r : 2 * r;
        detail::check_mesh_shape("processor_mesh", r, c, m);
        rows_ = r;
        cols_ = c;
        mapping_ = m;
    }

    /// A mesh of any shape "specified by hand" (thesis 3.1.5).
    /// @throws invalid_argument for `rows` or `cols` < 1, a node count beyond `int`, or `gray`
    ///         on a node count that is not a power of two.
    processor_mesh(int rows, int cols, mesh_mapping m) {
        detail::check_mesh_shape("processor_mesh", rows, cols, m);
        rows_ = rows;
        cols_ = cols;
        mapping_ = m;
    }

    /// Rows: the thesis' `proc_dim2`.
    int rows() const noexcept { return rows_; }
    /// Columns, the length of a row: the thesis' `proc_dim1`.
    int cols() const noexcept { return cols_; }
    /// rows() · cols().
    int nodes() const noexcept { return rows_ * cols_; }
    mesh_mapping mapping() const noexcept { return mapping_; }

    /// The node at (`row`, `col`); no wrap-around here (use `neighbours` for that).
    /// @throws invalid_argument for a row or column outside the mesh.
    int node_at(int row, int col) const {
        if (row < 0 || row >= rows_)
            raise<invalid_argument>(-1, "processor_mesh::node_at: row ", row, " is outside the ", rows_, " rows [0, ",
                                    rows_, ")");
        if (col < 0 || col >= cols_)
            raise<invalid_argument>(-1, "processor_mesh::node_at: column ", col, " is outside the ", cols_,
                                    " columns [0, ", cols_, ")");
        return at(row, col);
    }

    /// Where `node` sits: the thesis' (`node_row`, `node_col`).
    /// @throws invalid_argument for `node` outside [0, nodes()).
    mesh_position position(int node) const {
        check_node("processor_mesh::position", node);
        if (mapping_ == mesh_mapping::gray) {
            // Inverse of `at`: the high bits of the node are the row's Gray code, the low bits the
            // column's (cols_ is a power of two here).
            const int shift = std::countr_zero(static_cast<std::uint32_t>(cols_));
            const auto u = static_cast<std::uint32_t>(node);
            return {static_cast<int>(gray_inverse(u >> shift)),
                    static_cast<int>(gray_inverse(u & static_cast<std::uint32_t>(cols_ - 1)))};
        }
        return {node / cols_, node % cols_};
    }

    /// The four wrap-around neighbours of `node` (thesis figure 4.1's `top`, `bottom`, `pred`, `succ`).
    /// @throws invalid_argument for `node` outside [0, nodes()).
    mesh_neighbours neighbours(int node) const {
        check_node("processor_mesh::neighbours", node);
        const auto [r, c] = position(node);
        return {at((r + rows_ - 1) % rows_, c), at((r + 1) % rows_, c), at(r, (c + cols_ - 1) % cols_),
                at(r, (c + 1) % cols_)};
    }

    friend bool operator==(const processor_mesh&, const processor_mesh&) = default;

private:
    int at(int row, int col) const noexcept {
        if (mapping_ == mesh_mapping::gray) {
            // Figure 4.1 fills row i with gray(i·cols + j), j = 0..cols-1, left to right on even
            // rows and right to left on odd ones (the snake). Because the reflected Gray code
            // mirrors its low bits in every odd block of `cols` (cols a power of two), the node it
            // leaves at column c is gray(row)·cols + gray(c): each row is a Gray-coded ring in the
            // low bits, each column one in the high bits. We compute that directly (O(1), no
            // table); the tests rebuild the figure's table and check the two agree.
            return static_cast<int>(gray(static_cast<std::uint32_t>(row)) * static_cast<std::uint32_t>(cols_) +
                                    gray(static_cast<std::uint32_t>(col)));
        }
        return row * cols_ + col;
    }

    void check_node(const char* who, int node) const {
        if (node < 0 || node >= nodes())
            raise<invalid_argument>(-1, who, ": node ", node, " is outside the ", nodes(), " nodes [0, ", nodes(), ")");
    }

    int rows_ = 1;
    int cols_ = 1;
    mesh_mapping mapping_ = mesh_mapping::row_major;
};

/// The general rows x cols 2-D torus, row-major: node r·cols + c at (r, c), neighbours with
/// wrap-around. The NIST mesh benchmark (seed 003) runs an N x N torus of any N.
/// @throws invalid_argument for `rows` or `cols` < 1, or a node count beyond `int`.
inline processor_mesh torus(int rows, int cols) {
    detail::check_mesh_shape("torus", rows, cols, mesh_mapping::row_major);
    return processor_mesh(rows, cols, mesh_mapping::row_major);
}

}  // namespace comet
