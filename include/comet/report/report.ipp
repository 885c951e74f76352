// comet/report/report.ipp — the definitions of comet/report/report.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/report.hpp>

namespace comet {

COMET_DECL std::string describe(const stop_note& s) {
    std::string out = "stopped";
    if (!s.kernel.empty()) out += " in " + s.kernel;
    out += s.last_point.empty() ? std::string(" before any point was measured") : " after " + s.last_point;
    return out + ": " + s.reason;
}

}  // namespace comet
