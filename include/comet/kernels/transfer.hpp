// comet/kernels/transfer.hpp — what echo and pairwise exchange share: their configuration,
// its validation, and the loop over hop distances and message sizes in which the test node
// times a repeat loop while its partner mirrors it (CoMet thesis 3.3.1–3.3.2, figures 3.2–3.3).
//
// The kernels themselves are in echo.hpp and exchange.hpp.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/core/errors.hpp>
#include <comet/stats/record.hpp>
#include <comet/timing/measure.hpp>
#include <comet/timing/repeat.hpp>
#include <comet/topology/hypercube.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace comet::kernels {

/// Message sizes echo and pairwise exchange use by default: every 8 to 16 bytes up to NX/2's
/// 100-byte protocol change (so both regimes have points to fit), then steps to twice the
/// 4096-byte page (the thesis looks "at buffer lengths slightly exceeding the page size").
inline std::vector<std::size_t> default_message_sizes() {
    return {0,    8,    16,   24,   32,   40,   48,   64,   80,   96,   100,  104,  128,  192,  256,
            384,  512,  768,  1024, 1536, 2048, 2560, 3072, 3584, 4096, 4608, 5120, 6144, 7168, 8192};
}

/// Configuration of echo and pairwise exchange. All ranks pass the same values (@pre).
struct transfer_config {
    /// Message sizes in bytes, measured in this order.
    std::vector<std::size_t> sizes = default_message_sizes();
    /// Hop distances from the test node (the partner is `hop_node(test_node, h)`, the thesis'
    /// figure 4.2). Empty: every distance 1, 2, ... the group size allows.
    std::vector<int> hops = {};
    /// The rank that times (the thesis measures on one designated node: clocks need not agree).
    int test_node = 0;
    /// How each point is sampled (timing/measure.hpp): iterations per sample calibrated to the
    /// clock, at least 15 samples, interleaved over the points. The thesis' fixed loops are
    /// `comet::fixed_sampling(samples, 1000)`.
    comet::sampling sampling = {};
    /// The message tag, in comet's reserved range (core/types.hpp) so that an application's
    /// messages and the kernel's never meet.
    int tag = first_reserved_tag + 1;
    /// Called on the test node after each point is measured (for progress displays).
    std::function<void(const record&)> on_point = {};
};

/// The hop distances echo and pairwise measure by default from `test_node` in a group of
/// `nodes`: 1, 2, ... as far as the thesis' hop_node (figure 4.2) stays inside the group.
inline std::vector<int> default_hops(int test_node, int nodes) {
    std::vector<int> hops;
    for (int h = 1; h <= max_hops(test_node, nodes); ++h)
        if ((test_node ^ ((1 << h) - 1)) < nodes) hops.push_back(h);  // hop_node(test_node, h)
    return hops;
}

/// The largest message size of `cfg`.
inline std::size_t largest_size(const transfer_config& cfg) {
    return cfg.sizes.empty() ? 0 : *std::max_element(cfg.sizes.begin(), cfg.sizes.end());
}

namespace detail {

/// Checks `cfg` on the calling rank and returns the hop distances to measure. Every rank
/// checks the same config, so a bad value fails on every rank with the same message.
template <transport T>
std::vector<int> transfer_hops(const T& t, const transfer_config& cfg, std::string_view kernel) {
    const int p = t.size();
    if (p < 2) raise<invalid_argument>(t.rank(), kernel, " needs at least 2 ranks; the group has ", p);
    if (cfg.test_node < 0 || cfg.test_node >= p)
        raise<invalid_argument>(t.rank(), kernel, ": test node ", cfg.test_node, " is outside 0..", p - 1);
    check_sampling(t.rank(), kernel, cfg.sampling);
    if (cfg.tag < 0 || cfg.tag > max_tag) raise<invalid_argument>(t.rank(), kernel, ": tag ", cfg.tag, " is outside 0..", max_tag);
    for (std::size_t n : cfg.sizes)
        if (n > max_message_size)
            raise<invalid_argument>(t.rank(), kernel, ": message size ", n, " exceeds the ", max_message_size, "-byte limit");
    const std::vector<int> hops = cfg.hops.empty() ? default_hops(cfg.test_node, p) : cfg.hops;
    for (int h : hops) {
        if (h < 0) raise<invalid_argument>(t.rank(), kernel, ": hop distance ", h, " is negative");
        try {
            (void)hop_node(cfg.test_node, h, p);
        } catch (const invalid_argument& e) {
            raise<invalid_argument>(t.rank(), kernel, ": ", e.what());
        }
    }
    return hops;
}

/// The points of echo and pairwise exchange, measured by the sampling engine: for every hop
/// distance and size, the test node times repeat loops of `step(partner, message)` while the
/// partner runs `mirror(test_node, message)` as often; each sample, times `scale`, is the
/// test node's time per iteration. Ranks that are no test node's partner wait at the closing
/// barrier. Returns the records on the test node, nothing elsewhere; each carries `extra`.
template <transport T, class Step, class Mirror>
result_set transfer_points(T& t, const transfer_config& cfg, std::string_view kernel, double scale, Step&& step,
                           Mirror&& mirror, const params& extra = {}) {
    const std::vector<int> hops = transfer_hops(t, cfg, kernel);
    std::vector<std::byte> buffer(largest_size(cfg));
    struct point {
        int hops, partner;
        std::size_t size;
    };
    std::vector<point> points;
    std::vector<int> ranks{cfg.test_node};
    for (int h : hops) {
        const int partner = hop_node(cfg.test_node, h, t.size());
        if (std::find(ranks.begin(), ranks.end(), partner) == ranks.end()) ranks.push_back(partner);
        for (std::size_t size : cfg.sizes) points.push_back({h, partner, size});
    }
    const int me = t.rank();
    result_set out;
    ops::barrier(t);  // the thesis starts every kernel from a well-defined state
    if (std::find(ranks.begin(), ranks.end(), me) != ranks.end()) {
        auto measured = sample_points(t, points.size(), cfg.sampling, cfg.test_node, ranks, sample_reduction::decider,
                                      [&](std::size_t p, std::size_t iterations) -> std::optional<repeat_result> {
                                          const point& x = points[p];
                                          const std::span<std::byte> message(buffer.data(), x.size);
                                          if (me == cfg.test_node)
                                              return repeat(t, iterations, [&] { step(x.partner, message); });
                                          if (me == x.partner)
                                              for (std::size_t i = 0; i < iterations; ++i) mirror(cfg.test_node, message);
                                          return std::nullopt;
                                      });
        if (me == cfg.test_node)
            for (std::size_t p = 0; p < points.size(); ++p) {
                record rec{std::string(kernel), params{}, {}};
                rec.params.set("size", points[p].size).set("hops", points[p].hops).set("nodes", t.size());
                for (const auto& [name, value] : extra) rec.params.set(name, value);
                fill_record(rec, std::move(measured[p]), cfg.sampling, sample_reduction::decider, scale);
                if (cfg.on_point) cfg.on_point(rec);
                out.records.push_back(std::move(rec));
            }
    }
    ops::barrier(t);
    return out;
}

}  // namespace detail
}  // namespace comet::kernels
