// comet/topology/hypercube.hpp — hypercube addressing: the binary-reflected Gray code, CoMet's
// "node n hops away" (thesis figure 4.2), and a `hypercube` value with distances, neighbours and
// the e-cube routes the iPSC/860 uses.
//
// CoMet thesis 3.1.5 ("a function which, given a node, identifies another node n hops away"),
// 3.4.1 (`get_hop_node()`) and 4.3 (figure 4.2, its bit arithmetic). Node numbers are `int`
// like every rank in comet. The free `hop_node` works on any group size, because kernels such as
// echo run on the threads transport with 3 or 6 ranks too; the `hypercube` class is the real
// 2^d machine and refuses anything else. The mapping of a cube onto a 2-D processor mesh (figure
// 4.1) lives in mesh.hpp.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace comet {

/// True when `n` is 1, 2, 4, 8, ...; false for 0.
constexpr bool is_power_of_two(std::uint64_t n) noexcept { return std::has_single_bit(n); }

/// The binary-reflected Gray code of `i`: consecutive values differ in exactly one bit, and so
/// do the first and the last of every aligned block of 2^k values (the wrap-around that makes a
/// Gray-coded ring a hypercube ring). Thesis figure 4.1 calls it `gray()` [FJG+88].
constexpr std::uint32_t gray(std::uint32_t i) noexcept { return i ^ (i >> 1); }

/// The inverse of `gray`: `gray_inverse(gray(i)) == i` for every `i`.
constexpr std::uint32_t gray_inverse(std::uint32_t g) noexcept {
    // Each bit of i is the XOR of all bits of g at or above it: a prefix XOR, done in
    // log2(32) = 5 doubling steps instead of a loop over the bits.
    g ^= g >> 1;
    g ^= g >> 2;
    g ^= g >> 4;
    g ^= g >> 8;
    g ^= g >> 16;
    return g;
}

namespace detail {

/// The mask of bits 0..hops-1, for 0 <= hops <= 63.
constexpr std::uint64_t low_bits(int hops) noexcept {
    return hops == 0 ? 0 : (~std::uint64_t{0} >> (64 - hops));
}

COMET_DECL void check_group(const char* who, int node, int nodes);

}  // namespace detail

/// The node `hops` hops away from `node` in a group of `nodes`: `node` with its bits 0..hops-1
/// flipped, as thesis figure 4.2 computes it (`temp` = 1, 2, 4, ...; subtract `temp` when the bit
/// is set, add it when not). On a 2^d cube with `hops` <= d the two nodes are exactly `hops` links
/// apart, which is what the echo and pairwise kernels need. `hops` = 0 gives `node` itself.
///
/// Any `nodes` >= 1 is accepted (a 6-rank threads group works), but the result must be one of
/// the `nodes`; otherwise the call throws rather than hand a kernel a rank that does not exist.
/// @throws invalid_argument for `nodes` < 1, `node` outside [0, nodes), `hops` < 0, or a result
///         outside the group ("hop_node: 3 hops from node 0 reach node 7, outside the 6 nodes").
/// @code
///   int partner = comet::hop_node(t.rank(), 2, t.size());   // rank 0 of 16 -> 3
/// @endcode
COMET_DECL int hop_node(int node, int hops, int nodes);

/// The largest `h` >= 0 for which `hop_node(node, h, nodes)` is valid; on a 2^d cube that is d
/// for every node. In a group that is not a power of two the valid hop counts need not be
/// contiguous: node 5 of 6 reaches 4 with 1 hop and 2 with 3 hops, but 2 hops would give 6. So
/// `max_hops` is an upper bound for a loop over hop counts, not a promise that every smaller
/// count works; such a loop must still be ready for `hop_node` to refuse.
/// @throws invalid_argument for `nodes` < 1 or `node` outside [0, nodes).
COMET_DECL int max_hops(int node, int nodes);

/// A binary hypercube of 2^d nodes: node numbers are d-bit addresses, and two nodes are linked
/// when their addresses differ in exactly one bit (the "dimension" of that link). This is the
/// iPSC/860's interconnect (thesis chapter 4), and the basis of the simulated machine's routing.
/// @code
///   comet::hypercube cube(16);
///   cube.route(0, 11);   // {0, 1, 3, 11}: dimensions 0, 1, 3, lowest first
/// @endcode
class hypercube {
public:
    /// The largest cube accepted: 2^20 nodes, far beyond any machine comet runs on or simulates
    /// (the iPSC/860 had at most 128), and small enough that routes and tables stay cheap.
    static constexpr int max_nodes = 1 << 20;

    /// A cube of `nodes` nodes.
    /// @throws invalid_argument unless `nodes` is a power of two in [1, 2^20]
    ///         ("hypercube: 12 nodes is not a power of two").
    COMET_DECL explicit hypercube(int nodes);

    /// The number of nodes, 2^dimension().
    int nodes() const noexcept { return nodes_; }
    /// The dimension d: the number of links per node and the largest distance between two nodes.
    int dimension() const noexcept { return dimension_; }

    /// The node `hops` links away from `node` (thesis figure 4.2); see the free `hop_node`.
    /// @throws invalid_argument for `node` outside the cube or `hops` outside [0, dimension()].
    COMET_DECL int hop_node(int node, int hops) const;

    /// The number of links on a shortest path between `a` and `b`: the number of address bits in
    /// which they differ (Hamming distance).
    /// @throws invalid_argument for a node outside the cube.
    COMET_DECL int distance(int a, int b) const;

    /// The e-cube route from `from` to `to`, both included: the differing address bits are fixed
    /// from the LOWEST dimension up, one link each, as the iPSC/860's routing hardware does. The
    /// route is deterministic, so two messages contend exactly when their routes share a link;
    /// the contention kernel and the simulator rely on that. `route(a, a)` is `{a}`.
    /// @throws invalid_argument for a node outside the cube.
    COMET_DECL std::vector<int> route(int from, int to) const;

    /// The dimensions the e-cube route from `from` to `to` crosses, in order (ascending).
    /// `route_dimensions(a, b)[i]` is the link between `route(a, b)[i]` and `route(a, b)[i + 1]`.
    /// @throws invalid_argument for a node outside the cube.
    COMET_DECL std::vector<int> route_dimensions(int from, int to) const;

    /// The neighbour of `node` across dimension `dim`: `node` with bit `dim` flipped.
    /// @throws invalid_argument for `node` outside the cube or `dim` outside [0, dimension()).
    COMET_DECL int neighbour(int node, int dim) const;

    /// The dimension() neighbours of `node`, ordered by dimension: element i is across dimension i.
    /// @throws invalid_argument for `node` outside the cube.
    COMET_DECL std::vector<int> neighbours(int node) const;

    friend bool operator==(const hypercube&, const hypercube&) = default;

private:
    COMET_DECL void check_node(const char* who, int node) const;

    int nodes_;
    int dimension_;
};

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/topology/hypercube.ipp>
#endif
