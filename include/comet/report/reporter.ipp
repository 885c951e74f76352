// comet/report/reporter.ipp — the definitions of comet/report/reporter.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/reporter.hpp>

namespace comet {

COMET_DECL void deliver(const report& r, std::span<reporter* const> to) {
    for (reporter* out : to) {
        out->begin(r.ctx);
        for (const record& rec : r.results.records) out->add(rec);
        for (const derived_table& t : r.tables) out->add(t);
        out->finish(r);
    }
}

COMET_DECL void deliver(const report& r, std::initializer_list<reporter*> to) { deliver(r, std::span<reporter* const>(to.begin(), to.size())); }

COMET_DECL void deliver(const report& r, reporter& to) { deliver(r, {&to}); }

}  // namespace comet
