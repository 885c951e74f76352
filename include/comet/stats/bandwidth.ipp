// comet/stats/bandwidth.ipp — the definitions of comet/stats/bandwidth.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/bandwidth.hpp>

namespace comet {
namespace detail {

COMET_DECL std::int64_t record_hops(const record& r, std::int64_t size, const char* who) {
    if (!r.params.contains("hops")) return 1;
    const auto h = r.params.integer("hops");
    if (!h || *h < 0)
        raise<invalid_argument>(-1, who, ": kernel '", r.kernel, "' has a record of size ", size,
                                " whose 'hops' is not an integer >= 0");
    return *h;
}

}  // namespace detail
}  // namespace comet

namespace comet {

COMET_DECL std::vector<bandwidth_figures> bandwidth(const result_set& results, std::string_view kernel) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    // hops -> size -> pooled samples; std::map keeps both ascending, so the output is deterministic.
    std::map<std::int64_t, std::map<std::int64_t, std::vector<double>>> pooled;
    std::map<std::int64_t, std::map<std::int64_t, std::string>> flagged;   // hops -> size -> why its median is flagged
    std::map<std::int64_t, std::map<std::int64_t, std::string>> left_out;  // hops -> size -> why a record there is not read
    for (const record* r : results.of(kernel)) {
        const auto size = r->params.integer("size");
        if (!size) continue;
        const std::int64_t hops = detail::record_hops(*r, *size, "bandwidth");
        auto& by_size = pooled[hops];
        if (*size <= 0) continue;
        if (std::string why = unusable_why(*r); !why.empty()) {
            left_out[hops].emplace(*size, std::move(why));
            continue;
        }
        if (std::string why = median_flag(*r); !why.empty()) flagged[hops].emplace(*size, std::move(why));
        auto& s = by_size[*size];
        const std::vector<double> valid = valid_samples(*r);
        s.insert(s.end(), valid.begin(), valid.end());
    }

    std::vector<bandwidth_figures> out;
    for (const auto& [hops, by_size] : pooled) {
        std::vector<std::pair<double, double>> bw;  // (size, bandwidth), size ascending
        for (const auto& [size, samples] : by_size) {
            const double t = summarize(samples).median;
            if (t > 0.0 && std::isfinite(t)) bw.emplace_back(static_cast<double>(size), static_cast<double>(size) / t);
        }
        bandwidth_figures f{std::string(kernel), hops, nan, nan, nan};
        if (!bw.empty()) {
            f.peak = std::max_element(bw.begin(), bw.end(), [](const auto& a, const auto& b) {
                         return a.second < b.second;
                     })->second;
            const auto reach = [&](double level) {
                for (std::size_t i = 0; i < bw.size(); ++i) {
                    if (bw[i].second < level) continue;
                    if (i == 0) return bw[0].first;
                    const auto [n0, b0] = bw[i - 1];
                    const auto [n1, b1] = bw[i];
                    return n0 + (level - b0) * (n1 - n0) / (b1 - b0);
                }
                return nan;  // unreachable: the peak itself reaches every level ≤ peak
            };
            f.n_half = reach(0.5 * f.peak);
            f.n_90 = reach(0.9 * f.peak);
        }
        // Every size measured: those read and those whose records were all left out.
        std::set<std::int64_t> sizes;
        for (const auto& [size, samples] : by_size) sizes.insert(size);
        if (const auto l = left_out.find(hops); l != left_out.end())
            for (const auto& [size, why] : l->second) sizes.insert(size);
        if (const auto w = flagged.find(hops); w != flagged.end())
            f.flags.push_back("the median is flagged at " + points_listed(w->second, sizes.size(), "sizes", " B"));
        if (const auto l = left_out.find(hops); l != left_out.end())
            f.flags.push_back("left out (a record not read) at " + points_listed(l->second, sizes.size(), "sizes", " B"));
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace comet
