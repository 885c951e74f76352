// comet/kernels/matrix/distributed.hpp — CoMet's distributed 2-D matrix (thesis 3.2.2, figure
// 3.1): a global matrix block-decomposed over the processor mesh (topology/mesh.hpp, thesis 4.3,
// figure 4.1), each rank holding one dim×dim block inside a one-element guard wrapper, i.e. a
// local (dim+2)×(dim+2) Eigen matrix whose border holds copies of the neighbours' edge values.
//
//     the local (dim+2)×(dim+2) matrix of the rank at mesh position (r, c):
//
//       +---+--------------------------+---+
//       | x |     north guard row      | x |   north guard row    ← top's last block row
//       +---+--------------------------+---+   south guard row    ← bottom's first block row
//       | w |                          | e |   west guard column  ← pred's last block column
//       | e |  the dim×dim block:      | a |   east guard column  ← succ's first block column
//       | s |  global rows r·dim ..    | s |   x: corners, not exchanged
//       | t |  r·dim+dim−1, columns    | t |
//       |   |  c·dim .. c·dim+dim−1    |   |
//       +---+--------------------------+---+
//       | x |     south guard row      | x |
//       +---+--------------------------+---+
//
// The global matrix is (rows·dim)×(cols·dim) for a rows×cols mesh, with wrap-around (the mesh is
// a torus, so the north guard of the top mesh row holds the global matrix's last row).
// Storage is row-major, like the thesis' C array: a row of the block is contiguous (sent as it
// is), a column is strided (assembled into a buffer first — the cost that makes col_broadcast
// slower than row_broadcast in the thesis' figure 5.15).
//
// Here: the matrix, its fixed setup (values from setup.hpp), and what transpose means on each
// mesh shape (`transpose_partner`). The operations are in update_guard.hpp, shift.hpp,
// transpose.hpp and broadcast.hpp; the checks in verify.hpp.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/work.hpp>
#include <comet/kernels/matrix/setup.hpp>
#include <comet/topology/mesh.hpp>

#include <Eigen/Core>

#include <cstdint>
#include <ostream>
#include <span>
#include <string_view>
#include <vector>

namespace comet::kernels {

/// The direction of `shift_matrix` (thesis 3.3.9's enumerated NORTH and EAST).
enum class shift_direction {
    north,  ///< every local matrix moves to the `top` neighbour (one mesh row up, wrapping)
    east,   ///< every local matrix moves to the `succ` neighbour (one mesh column right, wrapping)
};

/// "north" or "east": the value of the `direction` parameter in shift_matrix records.
constexpr std::string_view to_string(shift_direction d) noexcept {
    return d == shift_direction::north ? "north" : "east";
}

inline std::ostream& operator<<(std::ostream& os, shift_direction d) { return os << to_string(d); }

/// The rank a rank exchanges its local matrix with in `transpose` (thesis 3.3.10: "the node
/// with the mesh position transposed"), on a mesh of any shape one side of which divides the
/// other.
///
/// Square mesh (4, 9, 16 nodes): the node at (row, col) pairs with the node at (col, row), and
/// transpose is the transpose of the global matrix.
///
/// cols = k·rows (the thesis' other shape, dim1 = 2·dim2: 2, 8, 18, 32 nodes): the true
/// transpose of the (rows·dim)×(k·rows·dim) global matrix is (k·rows·dim)×(rows·dim), which cannot
/// be block-decomposed over the same rows×cols mesh with the same dim×dim blocks (it would need a
/// cols×rows mesh). What keeps the decomposition is to see the mesh as k square rows×rows meshes
/// side by side and the global matrix as k square matrices [A0 | A1 | ...], one over each, and to
/// transpose each in place: [A0ᵀ | A1ᵀ | ...]. That is what comet's transpose does there — the
/// same communication pattern as on a square mesh, within each square half. rows = k·cols works
/// the same way with the squares stacked.
/// @throws not_supported when neither side of the mesh divides the other (e.g. a 2×3 mesh).
/// @code
///   comet::processor_mesh mesh(8);                        // 2 x 4: two 2 x 2 squares side by side
///   int partner = comet::kernels::transpose_partner(mesh, rank);   // (0, 1) <-> (1, 0), (0, 3) <-> (1, 2)
/// @endcode
inline int transpose_partner(const processor_mesh& mesh, int node) {
    const int rows = mesh.rows(), cols = mesh.cols();
    const auto [r, c] = mesh.position(node);
    if (cols % rows == 0) {
        const int base = c / rows * rows;  // first column of this node's square
        return mesh.node_at(c - base, base + r);
    }
    if (rows % cols == 0) {
        const int base = r / cols * cols;  // first row of this node's square
        return mesh.node_at(base + c, r - base);
    }
    raise<not_supported>(-1, "transpose: a ", rows, " x ", cols,
                         " mesh cannot be tiled by squares, so it has no in-place block transpose");
}

/// Scratch buffers the operations reuse, so that a timed operation allocates nothing: column
/// assemblies of update_guard and col_broadcast.
struct matrix_workspace {
    std::vector<double> west_out, east_out, west_in, east_in;
};

/// One rank's part of CoMet's distributed matrix: its dim×dim block of the global matrix inside
/// a one-element guard wrapper, stored as a (dim+2)×(dim+2) row-major Eigen matrix, with the
/// processor mesh it is decomposed over. Construction writes the fixed setup (setup.hpp).
/// @code
///   comet::kernels::distributed_matrix m(t, 64);   // 64 x 64 block per rank, mesh from t.size()
///   comet::kernels::update_guard(t, m);            // fill the guard from the four neighbours
///   double above = m.local()(0, 1);       // global element (first_row() - 1, first_col())
/// @endcode
class distributed_matrix {
public:
    /// The local matrix type: row-major, like the thesis' C array.
    using storage = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

    /// Rank `rank`'s part of a matrix of `dim`×`dim` blocks over `mesh`, set up.
    /// @throws invalid_argument for a rank outside the mesh, `dim` outside 1..matrix_max_dim,
    ///         or a global matrix too large for the setup values; the message names the value.
    distributed_matrix(const processor_mesh& mesh, int rank, int dim) : mesh_(mesh), rank_(rank), dim_(dim) {
        if (rank < 0 || rank >= mesh.nodes())
            raise<invalid_argument>(rank, "distributed_matrix: rank ", rank, " is outside the ", mesh.nodes(),
                                    " nodes of a ", mesh.rows(), " x ", mesh.cols(), " mesh");
        if (dim < 1 || dim > matrix_max_dim)
            raise<invalid_argument>(rank, "distributed_matrix: matrix dimension ", dim, " is outside 1..",
                                    matrix_max_dim);
        if (mesh.nodes() > matrix_max_nodes)
            raise<invalid_argument>(rank, "distributed_matrix: ", mesh.nodes(), " nodes exceed the ", matrix_max_nodes,
                                    " the setup values can tell apart");
        if (global_rows() > matrix_max_global_dim || global_cols() > matrix_max_global_dim)
            raise<invalid_argument>(rank, "distributed_matrix: a ", global_rows(), " x ", global_cols(),
                                    " global matrix exceeds the ", matrix_max_global_dim,
                                    " rows and columns the setup values encode");
        position_ = mesh.position(rank);
        neighbours_ = mesh.neighbours(rank);
        local_.resize(dim + 2, dim + 2);
        const auto d = static_cast<std::size_t>(dim);
        work_.west_out.resize(d);
        work_.east_out.resize(d);
        work_.west_in.resize(d);
        work_.east_in.resize(d);
        setup();
    }

    /// The calling rank's part of a matrix of `dim`×`dim` blocks over the thesis' mesh for
    /// `t.size()` nodes (`processor_mesh(t.size())`: square, or twice as wide as high).
    /// @throws invalid_argument naming the rank when `t.size()` has no such mesh (3, 6, 12 ...).
    template <transport T>
    distributed_matrix(const T& t, int dim) : distributed_matrix(mesh_of(t), t.rank(), dim) {}

    /// Rewrites every cell with its fixed setup value (setup.hpp): interior cells the value of
    /// their global element, guard cells this rank's guard values. Users cannot change these
    /// values; the verification relies on them.
    void setup() {
        const int side = dim_ + 2;
        const std::int64_t r0 = first_row(), c0 = first_col();
        for (int i = 0; i < side; ++i)
            for (int j = 0; j < side; ++j)
                local_(i, j) = (i == 0 || j == 0 || i == side - 1 || j == side - 1)
                                   ? matrix_guard_value(rank_, dim_, i, j)
                                   : matrix_element_value(r0 + i - 1, c0 + j - 1);
    }

    const processor_mesh& mesh() const noexcept { return mesh_; }
    /// The rank this part belongs to.
    int rank() const noexcept { return rank_; }
    /// The block dimension: the thesis' "local dimension".
    int dim() const noexcept { return dim_; }
    /// This rank's mesh position: the thesis' (node_row, node_col).
    mesh_position position() const noexcept { return position_; }
    /// This rank's wrap-around neighbours: the thesis' top, bottom, pred, succ.
    mesh_neighbours neighbours() const noexcept { return neighbours_; }

    /// Rows of the global matrix: mesh rows · dim.
    std::int64_t global_rows() const noexcept { return std::int64_t{mesh_.rows()} * dim_; }
    /// Columns of the global matrix: mesh columns · dim.
    std::int64_t global_cols() const noexcept { return std::int64_t{mesh_.cols()} * dim_; }
    /// The global row of the block's first row (local row 1).
    std::int64_t first_row() const noexcept { return std::int64_t{position_.row} * dim_; }
    /// The global column of the block's first column (local column 1).
    std::int64_t first_col() const noexcept { return std::int64_t{position_.col} * dim_; }

    /// The (dim+2)×(dim+2) local matrix, guard included: rows and columns 1..dim are the block,
    /// row 0 / dim+1 the north / south guard, column 0 / dim+1 the west / east guard.
    storage& local() noexcept { return local_; }
    const storage& local() const noexcept { return local_; }

    /// The dim×dim block without its guard.
    auto block() noexcept { return local_.block(1, 1, dim_, dim_); }
    auto block() const noexcept { return local_.block(1, 1, dim_, dim_); }

    /// Columns 1..dim of local row `i` (0..dim+1), contiguous, as doubles and as bytes.
    std::span<double> row_span(int i) noexcept {
        return {local_.data() + static_cast<std::ptrdiff_t>(i) * (dim_ + 2) + 1, static_cast<std::size_t>(dim_)};
    }
    /// The whole local matrix as bytes (what shift_matrix and transpose send).
    std::span<std::byte> bytes() noexcept {
        return std::as_writable_bytes(std::span(local_.data(), static_cast<std::size_t>(local_.size())));
    }

    /// Scratch buffers for the operations (see `matrix_workspace`).
    matrix_workspace& workspace() noexcept { return work_; }

    /// The memory traffic of copying one block column (`dim` doubles, a local row apart) into a
    /// contiguous buffer or back: what the operations tell the transport through
    /// `compute(work::copy(...))`, so a simulated machine charges it (core/work.hpp).
    work column_copy() const noexcept {
        return work::copy(static_cast<std::size_t>(dim_), sizeof(double), static_cast<std::size_t>(dim_ + 2) * sizeof(double));
    }
    /// The memory traffic of transposing the local matrix in place: every element moved once,
    /// read or written a local row apart.
    work transpose_copy() const noexcept {
        return work::copy(static_cast<std::size_t>(local_.size()), sizeof(double), static_cast<std::size_t>(dim_ + 2) * sizeof(double));
    }

private:
    template <transport T>
    static processor_mesh mesh_of(const T& t) {
        try {
            return processor_mesh(t.size());
        } catch (const invalid_argument& e) {
            raise<invalid_argument>(t.rank(), "distributed_matrix: ", e.what());
        }
    }

    processor_mesh mesh_;
    int rank_;
    int dim_;
    mesh_position position_;
    mesh_neighbours neighbours_;
    storage local_;
    matrix_workspace work_;
};

/// True when `nodes` ranks form one of the thesis' meshes (a perfect square, or twice one), so
/// the matrix kernels can run on them: 1, 2, 4, 8, 9, 16, 18, 25, 32, ...
inline bool has_processor_mesh(int nodes) {
    try {
        (void)processor_mesh(nodes);
        return true;
    } catch (const invalid_argument&) {
        return false;
    }
}

namespace detail {

/// The checks every matrix operation makes: `m` belongs to this rank of this group.
template <transport T>
void check_matrix(const T& t, const distributed_matrix& m, std::string_view who) {
    if (m.mesh().nodes() != t.size())
        raise<invalid_argument>(t.rank(), who, ": the matrix is decomposed over ", m.mesh().nodes(), " nodes (",
                                m.mesh().rows(), " x ", m.mesh().cols(), "), the group has ", t.size());
    if (m.rank() != t.rank())
        raise<invalid_argument>(t.rank(), who, ": the matrix is rank ", m.rank(), "'s part, not this rank's");
}

/// Tags an operation uses: `tag` .. `tag + count - 1` must be valid tags.
template <transport T>
void check_matrix_tag(const T& t, int tag, int count, std::string_view who) {
    if (tag < 0 || tag > max_tag - (count - 1))
        raise<invalid_argument>(t.rank(), who, ": tag ", tag, " is outside 0..", max_tag - (count - 1), " (it uses ",
                                count, " tags from there)");
}

}  // namespace detail

/// The tag the matrix operations use by default (update_guard uses it and the 3 after it).
inline constexpr int default_matrix_tag = first_reserved_tag + 500;

}  // namespace comet::kernels
