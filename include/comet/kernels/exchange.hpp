// comet/kernels/exchange.hpp — CoMet's pairwise exchange kernel (thesis 3.3.2, figure 3.3): the
// test node and its partner both send, then both receive, as neighbours swapping boundary data
// do. On bidirectional links it beats two echo halves. Both sides send first, so it relies on
// buffered sends (comet's Transport concept requires them).
#pragma once

#include <comet/kernels/transfer.hpp>

namespace comet {

using exchange_config = transfer_config;

/// Runs the pairwise exchange on every rank of `t`'s group and returns, on the test node, one
/// record per (hops, size) with params {size, hops, nodes} and samples = the time of one
/// exchange in seconds (averaged over a repeat loop of `max_times` exchanges, loop overhead
/// subtracted). Other ranks return an empty set.
/// @pre every rank calls pairwise with the same config.
/// @code
///   comet::result_set r = comet::pairwise(t, {.sizes = {8, 1024}});
/// @endcode
template <transport T>
result_set pairwise(T& t, const exchange_config& cfg = {}) {
    const int tag = cfg.tag;
    const auto swap = [&](int peer, std::span<std::byte> message) {
        t.send(peer, tag, message);
        t.recv(peer, tag, message);
    };
    return detail::transfer_points(t, cfg, "pairwise", 1.0, swap, swap);
}

}  // namespace comet
