// comet/suite/config.ipp — the definitions of comet/suite/config.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/suite/config.hpp>

namespace comet {

COMET_DECL std::vector<std::string> implemented_kernels() {
    return {"echo",       "pairwise", "broadcast",    "global_sum", "barrier",       "contention",
            "overlap",    "update_guard", "shift_matrix", "transpose", "row_broadcast", "col_broadcast"};
}

}  // namespace comet
