// comet/stats/fit_results.ipp — the definitions of comet/stats/fit_results.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/fit_results.hpp>

namespace comet {

COMET_DECL std::string fit_flag_text(std::string_view flag) {
    if (flag == fit_flag::singular) return "singular design";
    if (flag == fit_flag::negative_startup) return "negative start-up";
    if (flag == fit_flag::negative_per_byte) return "negative per-byte time";
    std::string out(flag);
    std::replace(out.begin(), out.end(), '_', ' ');
    return out;
}

COMET_DECL std::string fit_flags_text(const std::vector<std::string>& flags) {
    std::string out = "flagged:";
    for (std::size_t i = 0; i < flags.size(); ++i) out += (i ? ", " : " ") + fit_flag_text(flags[i]);
    return out;
}

}  // namespace comet
