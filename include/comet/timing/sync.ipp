// comet/timing/sync.ipp — the definitions of comet/timing/sync.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/timing/sync.hpp>

namespace comet {
namespace detail {

COMET_DECL void check_sync_config(int rank, const sync_config& c) {
    if (c.scheme != sync_scheme::linear && c.scheme != sync_scheme::log_p)
        raise<invalid_argument>(rank, "sync_clocks: scheme ", to_string(c.scheme),
                                " is not a synchronisation scheme; ask for linear or log_p");
    if (c.patience < 1) raise<invalid_argument>(rank, "sync_clocks: patience (N) must be at least 1, got ", c.patience);
    if (c.max_exchanges <= c.warmup)
        raise<invalid_argument>(rank, "sync_clocks: max_exchanges ", c.max_exchanges, " leaves no exchange after the ",
                                c.warmup, " of warm-up");
    if (!std::isfinite(c.assumed_drift) || c.assumed_drift < 0.0 || c.assumed_drift >= 1.0)
        raise<invalid_argument>(rank, "sync_clocks: assumed_drift ", c.assumed_drift, " must be in [0, 1)");
    if (c.tag < 0 || c.tag > max_tag)
        raise<invalid_argument>(rank, "sync_clocks: tag ", c.tag, " is outside 0..", max_tag);
}

COMET_DECL clock_offset_estimate estimate_of(const sync_end& e) {
    return {e.client_time, e.server_time, e.round_trip, static_cast<std::size_t>(e.exchanges)};
}

}  // namespace detail
}  // namespace comet
