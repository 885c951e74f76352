// comet/kernels/nist/mesh.ipp — the definitions of comet/kernels/nist/mesh.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/nist/mesh.hpp>

namespace comet::kernels::nist {

COMET_DECL mesh_config mesh_setting(setting s) {
    mesh_config c;
    if (s == setting::cp) {
        c.steps = 50;
        c.work_per_datum = 160;
        c.bookkeeping_per_datum = 17;
    }
    return c;
}

}  // namespace comet::kernels::nist
