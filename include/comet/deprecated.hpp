// comet/deprecated.hpp — the names of the first release (0.1) that have moved since, kept for
// one release so that code written against it still compiles, with a warning that says where
// each name went. Included by comet/comet.hpp; CHANGELOG.md lists what moved and why.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/kernels/transfer.hpp>
#include <comet/stats/record.hpp>
#include <comet/timing/measure.hpp>

#include <cstddef>
#include <functional>
#include <vector>

namespace comet {
namespace detail {

/// 0.1's configuration of echo and pairwise exchange, as 0.1 laid it out: fixed repeat loops
/// (`samples` loops of `max_times` iterations, as the thesis) instead of 0.2's `sampling`.
struct transfer_config_0_1 {
    std::vector<std::size_t> sizes = kernels::default_message_sizes();
    std::vector<int> hops = {};
    int test_node = 0;
    std::size_t max_times = 1000;
    std::size_t samples = 3;
    /// 0.1 counted untimed iterations; 0.2 warms up for a time. 0 stays "none"; any other
    /// count becomes 0.2's default warm-up.
    std::size_t warmup = 10;
    /// 0.1's default (32001) is in the range comet now reserves for itself and is used as is.
    int tag = first_reserved_tag + 1;
    std::function<void(const record&)> on_point = {};

    kernels::transfer_config current() const {
        kernels::transfer_config c;
        c.sizes = sizes;
        c.hops = hops;
        c.test_node = test_node;
        c.sampling = fixed_sampling(samples, max_times);
        c.sampling.warmup_seconds = warmup == 0 ? 0.0 : sampling{}.warmup_seconds;
        c.tag = tag;
        c.on_point = on_point;
        return c;
    }
};

}  // namespace detail

using transfer_config [[deprecated("comet::transfer_config is comet::kernels::transfer_config since 0.2 (its loops: .sampling = comet::fixed_sampling(samples, max_times))")]] =
    detail::transfer_config_0_1;
using echo_config [[deprecated("comet::echo_config is comet::kernels::echo_config since 0.2")]] = detail::transfer_config_0_1;
using exchange_config [[deprecated("comet::exchange_config is comet::kernels::exchange_config since 0.2")]] = detail::transfer_config_0_1;

/// comet::kernels::echo under its 0.1 name and configuration.
template <transport T>
[[deprecated("comet::echo is comet::kernels::echo since 0.2")]] result_set echo(T& t, const detail::transfer_config_0_1& cfg = {}) {
    return kernels::echo(t, cfg.current());
}

/// comet::kernels::pairwise under its 0.1 name and configuration.
template <transport T>
[[deprecated("comet::pairwise is comet::kernels::pairwise since 0.2")]] result_set pairwise(T& t, const detail::transfer_config_0_1& cfg = {}) {
    return kernels::pairwise(t, cfg.current());
}

}  // namespace comet
