// comet/kernels/nist/ring.ipp — the definitions of comet/kernels/nist/ring.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/nist/ring.hpp>

namespace comet::kernels::nist {

COMET_DECL ring_config ring_setting(setting s) {
    ring_config c;
    if (s == setting::cp) {
        c.messages = 20;
        c.work_per_datum = 100;
        c.bookkeeping_per_datum = 55;
    }
    return c;
}

}  // namespace comet::kernels::nist
