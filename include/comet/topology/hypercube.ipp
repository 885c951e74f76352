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
