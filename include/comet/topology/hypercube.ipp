// comet/topology/hypercube.ipp — the definitions of comet/topology/hypercube.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/topology/hypercube.hpp>

namespace comet {
namespace detail {

COMET_DECL void check_group(const char* who, int node, int nodes) {
    if (nodes < 1) raise<invalid_argument>(-1, who, ": a group needs at least 1 node, not ", nodes);
    if (node < 0 || node >= nodes)
        raise<invalid_argument>(-1, who, ": node ", node, " is outside the ", nodes, " nodes [0, ", nodes, ")");
}

}  // namespace detail
}  // namespace comet

namespace comet {

COMET_DECL int hop_node(int node, int hops, int nodes) {
    detail::check_group("hop_node", node, nodes);
    if (hops < 0) raise<invalid_argument>(-1, "hop_node: hop count ", hops, " is negative");
    // Past 62 hops the result does not even fit the 64-bit arithmetic below; no int-numbered
    // group (at most 2^31 nodes, so at most 31 meaningful hops) reaches it anyway.
    if (hops > 62)
        raise<invalid_argument>(-1, "hop_node: ", hops, " hops from node ", node, " leave the ", nodes,
                                " nodes (no group of int-numbered nodes spans more than 31 hops)");
    const std::uint64_t result = static_cast<std::uint64_t>(node) ^ detail::low_bits(hops);
    if (result >= static_cast<std::uint64_t>(nodes))
        raise<invalid_argument>(-1, "hop_node: ", hops, " hops from node ", node, " reach node ", result,
                                ", outside the ", nodes, " nodes");
    return static_cast<int>(result);
}

COMET_DECL int max_hops(int node, int nodes) {
    detail::check_group("max_hops", node, nodes);
    // Flipping a bit at or above bit_width(nodes - 1) lands at or beyond the next power of two,
    // so only h <= bit_width(nodes - 1) can be valid.
    const int limit = static_cast<int>(std::bit_width(static_cast<std::uint32_t>(nodes - 1)));
    for (int h = limit; h > 0; --h)
        if ((static_cast<std::uint64_t>(node) ^ detail::low_bits(h)) < static_cast<std::uint64_t>(nodes)) return h;
    return 0;
}

}  // namespace comet

namespace comet {

COMET_DECL hypercube::hypercube(int nodes) : nodes_(nodes), dimension_(0) {
    if (nodes < 1) raise<invalid_argument>(-1, "hypercube: a cube needs at least 1 node, not ", nodes);
    if (!is_power_of_two(static_cast<std::uint64_t>(nodes)))
        raise<invalid_argument>(-1, "hypercube: ", nodes, " nodes is not a power of two");
    if (nodes > max_nodes)
        raise<invalid_argument>(-1, "hypercube: ", nodes, " nodes is more than the ", max_nodes, " supported");
    dimension_ = std::countr_zero(static_cast<std::uint32_t>(nodes));
}

COMET_DECL int hypercube::hop_node(int node, int hops) const {
    check_node("hypercube::hop_node", node);
    if (hops < 0 || hops > dimension_)
        raise<invalid_argument>(-1, "hypercube::hop_node: ", hops, " hops is outside [0, ", dimension_,
                                "] for the dimension-", dimension_, " cube");
    return node ^ static_cast<int>(detail::low_bits(hops));
}

COMET_DECL int hypercube::distance(int a, int b) const {
    check_node("hypercube::distance", a);
    check_node("hypercube::distance", b);
    return std::popcount(static_cast<std::uint32_t>(a ^ b));
}

COMET_DECL std::vector<int> hypercube::route(int from, int to) const {
    check_node("hypercube::route", from);
    check_node("hypercube::route", to);
    std::vector<int> path;
    path.reserve(static_cast<std::size_t>(distance(from, to)) + 1);
    path.push_back(from);
    int at = from;
    for (std::uint32_t diff = static_cast<std::uint32_t>(from ^ to); diff != 0; diff &= diff - 1) {
        at ^= static_cast<int>(diff & (~diff + 1));  // the lowest differing bit still to fix
        path.push_back(at);
    }
    return path;
}

COMET_DECL std::vector<int> hypercube::route_dimensions(int from, int to) const {
    check_node("hypercube::route_dimensions", from);
    check_node("hypercube::route_dimensions", to);
    std::vector<int> dims;
    for (std::uint32_t diff = static_cast<std::uint32_t>(from ^ to); diff != 0; diff &= diff - 1)
        dims.push_back(std::countr_zero(diff));
    return dims;
}

COMET_DECL int hypercube::neighbour(int node, int dim) const {
    check_node("hypercube::neighbour", node);
    if (dim < 0 || dim >= dimension_)
        raise<invalid_argument>(-1, "hypercube::neighbour: dimension ", dim, " is outside [0, ", dimension_,
                                ") for the dimension-", dimension_, " cube");
    return node ^ (1 << dim);
}

COMET_DECL std::vector<int> hypercube::neighbours(int node) const {
    check_node("hypercube::neighbours", node);
    std::vector<int> result;
    result.reserve(static_cast<std::size_t>(dimension_));
    for (int d = 0; d < dimension_; ++d) result.push_back(node ^ (1 << d));
    return result;
}

COMET_DECL void hypercube::check_node(const char* who, int node) const {
    if (node < 0 || node >= nodes_)
        raise<invalid_argument>(-1, who, ": node ", node, " is outside the ", nodes_, " nodes [0, ", nodes_, ")");
}

}  // namespace comet
