// comet/stats/rank_reduction.ipp — the definitions of comet/stats/rank_reduction.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/rank_reduction.hpp>

namespace comet {

COMET_DECL double reduce_ranks(const rank_times& m, rank_reduction how, std::size_t designated) {
    const std::size_t p = m.start.size();
    if (how == rank_reduction::designated) return m.end[designated] - m.start[designated];
    if (how == rank_reduction::span)
        return *std::max_element(m.end.begin(), m.end.end()) - *std::min_element(m.start.begin(), m.start.end());
    std::vector<double> d(p);
    for (std::size_t r = 0; r < p; ++r) d[r] = m.end[r] - m.start[r];
    switch (how) {
    case rank_reduction::max: return *std::max_element(d.begin(), d.end());
    case rank_reduction::min: return *std::min_element(d.begin(), d.end());
    case rank_reduction::mean: return std::accumulate(d.begin(), d.end(), 0.0) / static_cast<double>(p);
    default: break;
    }
    const auto mid = d.begin() + static_cast<std::ptrdiff_t>(p / 2);
    std::nth_element(d.begin(), mid, d.end());
    if (p % 2 == 1) return *mid;
    const double upper = *mid;
    return (upper + *std::max_element(d.begin(), mid)) / 2;
}

}  // namespace comet
