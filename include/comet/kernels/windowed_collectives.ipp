// comet/kernels/windowed_collectives.ipp — the definitions of comet/kernels/windowed_collectives.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/windowed_collectives.hpp>

namespace comet::kernels {

COMET_DECL std::optional<collective_operation> parse_collective_operation(std::string_view name) {
    for (auto o : all_collective_operations)
        if (to_string(o) == name) return o;
    return std::nullopt;
}

COMET_DECL std::size_t windowed_collectives_points(const windowed_collectives_config& c) {
    std::size_t n = 0;
    for (auto o : c.operations) n += o == collective_operation::barrier ? 1 : c.sizes.size();
    return n * c.measures.size() * all_rank_reductions.size();
}

}  // namespace comet::kernels
