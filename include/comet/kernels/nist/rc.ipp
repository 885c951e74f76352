// comet/kernels/nist/rc.ipp — the definitions of comet/kernels/nist/rc.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/nist/rc.hpp>

namespace comet::kernels::nist {

COMET_DECL rc_config rc_setting(setting s) {
    rc_config c;
    if (s == setting::cp) {
        c.dispatch_frequency = 17430;
        c.bookkeeping_per_datum = 12;
    }
    return c;
}

}  // namespace comet::kernels::nist
