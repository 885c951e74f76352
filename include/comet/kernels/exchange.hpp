// comet/kernels/exchange.hpp — CoMet's pairwise exchange kernel (thesis 3.3.2, figure 3.3): the
// test node and its partner both send, then both receive, as neighbours swapping boundary data
// do. On bidirectional links it beats two echo halves. Both sides send first: in the thesis'
// form where the transport's sends are buffered, by sendrecv or isend + recv + wait elsewhere
// (kernels/swap.hpp); the record's param `form` says which.
#pragma once
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_EXCHANGE

#include <comet/kernels/swap.hpp>
#include <comet/kernels/transfer.hpp>

namespace comet::kernels {

using exchange_config = transfer_config;

/// Runs the pairwise exchange on every rank of `t`'s group and returns, on the test node, one
/// record per (hops, size) with params {size, hops, nodes, form} and samples = the time of one
/// exchange in seconds (averaged over a sample's repeat loop of exchanges, loop overhead
/// subtracted). Other ranks return an empty set. With `cfg.links`, the links an application
/// uses instead, one at a time or all at once (`transfer_config::links`, `concurrent`; all at
/// once, every exchange is nonblocking: `form` "isend_irecv_wait_all").
/// @pre every rank calls pairwise with the same config.
/// @code
///   comet::result_set r = comet::kernels::pairwise(t, {.sizes = {8, 1024}});
/// @endcode
template <transport T>
result_set pairwise(T& t, const exchange_config& cfg = {}) {
    const int tag = cfg.tag;
    // The thesis' form sends and receives the one buffer; the other forms need a second one.
    std::vector<std::byte> incoming(swap_needs_two_buffers<T>() ? largest_size(cfg) : 0);
    detail::message_numbers numbers;  // with cfg.verify: each message's number, per peer
    const auto step = [&](int peer, std::span<std::byte> message) {
        const mutable_bytes in = swap_needs_two_buffers<T>() ? mutable_bytes(incoming.data(), message.size()) : message;
        const std::uint64_t number = cfg.verify ? numbers.next(peer) : 0;
        if (cfg.verify) detail::fill_pattern(message, t.rank(), number);
        swap(t, peer, message, peer, in, tag);
        if (cfg.verify) detail::check_pattern("pairwise", t.rank(), in, peer, number);
    };
    return detail::transfer_points(t, cfg, "pairwise", 1.0, step, step, detail::concurrent_pattern::exchange,
                                   params{{"form", std::string(to_string(swap_form_of<T>()))}});
}

}  // namespace comet::kernels
