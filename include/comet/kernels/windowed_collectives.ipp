// comet/kernels/windowed_collectives.ipp — the definitions of comet/kernels/windowed_collectives.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/windowed_collectives.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

namespace comet::kernels {

COMET_DECL std::optional<collective_operation> parse_collective_operation(std::string_view name) {
    for (auto o : all_collective_operations)
        if (to_string(o) == name) return o;
    return std::nullopt;
}

namespace detail::windowed {

COMET_DECL void compare_with_window(std::span<record> point) {
    const auto key = [](const record& r) { return r.params.text("reduction").value_or(""); };
    const auto usable = [](const record& r) { return find_flag(r.flags, "point") == nullptr && valid_count(r) > 0; };
    for (record& r : point) {
        if (r.params.text("measure") == std::optional<std::string>("window")) continue;
        const record* window = nullptr;
        for (const record& w : point)
            if (w.params.text("measure") == std::optional<std::string>("window") && key(w) == key(r)) window = &w;
        if (window == nullptr) continue;  // the window scheme was not measured here
        if (!usable(r) || !usable(*window)) {
            r.notes.push_back("versus_window: none, " + std::string(usable(r) ? "the window scheme's point" : "this point") +
                              " is flagged or has no valid sample");
            continue;
        }
        const double base = summarize(valid_samples(*window)).median;
        if (!(base > 0.0)) {
            r.notes.push_back("versus_window: none, the window scheme's median is 0");
            continue;
        }
        r.values.set("versus_window", summarize(valid_samples(r)).median / base);
    }
}

}  // namespace detail::windowed

COMET_DECL std::size_t windowed_collectives_points(const windowed_collectives_config& c, int nodes) {
    std::size_t n = 0;
    for (auto o : c.operations) n += o == collective_operation::barrier ? 1 : c.sizes.size();
    return n * c.measures.size() * (all_rank_reductions.size() + (c.rank_times ? static_cast<std::size_t>(std::max(nodes, 0)) : 0));
}

}  // namespace comet::kernels
