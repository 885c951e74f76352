// comet/kernels/echo.hpp — CoMet's echo kernel (thesis 3.3.1, figure 3.2): the test node sends
// a message to a node `h` hops away and waits for it to come back; half the round trip is the
// one-way time the thesis reports. Repeated over hop distances and message sizes.
#pragma once
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_ECHO

#include <comet/kernels/transfer.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace comet::kernels {

using echo_config = transfer_config;

/// Runs echo on every rank of `t`'s group and returns, on the test node, one record per
/// (hops, size) with params {size, hops, nodes, buffer} and samples = one-way time in seconds (half a
/// round trip, averaged over a sample's repeat loop of round trips, loop overhead
/// subtracted). Other ranks return an empty set. With `cfg.links`, the links an application
/// uses instead, one at a time or all at once (`transfer_config::links`, `concurrent`).
/// @pre every rank calls echo with the same config.
/// @code
///   comet::result_set r = comet::kernels::echo(t, {.sizes = {0, 8, 4096}, .hops = {1, 2}});
/// @endcode
template <transport T>
result_set echo(T& t, const echo_config& cfg = {}) {
    const int tag = cfg.tag;
    const int me = t.rank();
    detail::message_numbers numbers;  // with cfg.verify: each message's number, per peer
    // buffer clean: the message goes out of `message` (which no receive writes) and comes back
    // into `reply`, on both ranks.
    const bool clean = cfg.buffer == echo_buffer::clean && !cfg.concurrent;
    std::vector<std::byte> reply(clean ? largest_size(cfg) : 0);
    const auto into = [&](std::span<std::byte> message) { return clean ? std::span<std::byte>(reply.data(), message.size()) : message; };
    params buffer;
    buffer.set("buffer", std::string(to_string(cfg.concurrent ? echo_buffer::same : cfg.buffer)));
    return detail::transfer_points(
        t, cfg, "echo", 0.5,
        [&](int partner, std::span<std::byte> message) {
            const std::uint64_t number = cfg.verify ? numbers.next(partner) : 0;
            if (cfg.verify) detail::fill_pattern(message, me, number);
            ops::send(t, partner, tag, message);
            ops::recv(t, partner, tag, into(message));
            if (cfg.verify) detail::check_pattern("echo", me, into(message), clean ? partner : me, number);
        },
        // The communicating node sends back the very buffer it received into, as the thesis
        // does; or, clean, its own.
        [&](int test_node, std::span<std::byte> message) {
            ops::recv(t, test_node, tag, into(message));
            const std::uint64_t number = cfg.verify ? numbers.next(test_node) : 0;
            if (cfg.verify) detail::check_pattern("echo", me, into(message), test_node, number);
            if (cfg.verify && clean) detail::fill_pattern(message, me, number);
            ops::send(t, test_node, tag, message);
        },
        detail::concurrent_pattern::echo, {}, buffer);
}

}  // namespace comet::kernels
