// comet/kernels/transfer.ipp — the definitions of comet/kernels/transfer.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/transfer.hpp>

namespace comet::kernels {

COMET_DECL std::vector<std::size_t> default_message_sizes() {
    return {0,    8,    16,   24,   32,   40,   48,   64,   80,   96,   100,  104,  128,  192,  256,
            384,  512,  768,  1024, 1536, 2048, 2560, 3072, 3584, 4096, 4608, 5120, 6144, 7168, 8192};
}

COMET_DECL std::vector<link> links_to(int rank, std::initializer_list<int> neighbours) {
    std::vector<link> out;
    for (int n : neighbours)
        if (n != rank && std::find(out.begin(), out.end(), link{rank, n}) == out.end()) out.push_back({rank, n});
    return out;
}

COMET_DECL std::vector<int> default_hops(int test_node, int nodes) {
    std::vector<int> hops;
    for (int h = 1; h <= max_hops(test_node, nodes); ++h)
        if ((test_node ^ ((1 << h) - 1)) < nodes) hops.push_back(h);  // hop_node(test_node, h)
    return hops;
}

COMET_DECL std::size_t largest_size(const transfer_config& cfg) {
    return cfg.sizes.empty() ? 0 : *std::max_element(cfg.sizes.begin(), cfg.sizes.end());
}

}  // namespace comet::kernels

namespace comet::kernels {
namespace detail {

COMET_DECL record transfer_record(std::string_view kernel, std::size_t size, int hops, int nodes, const params& more,
                                  const params& values, sampled_point&& measured, const transfer_config& cfg, double scale) {
    record rec{std::string(kernel), params{}, {}, values};
    rec.params.set("size", size).set("hops", hops).set("nodes", nodes);
    for (const auto& [name, value] : more) rec.params.set(name, value);
    if (cfg.verify) rec.params.set("verify", "payload");
    fill_record(rec, std::move(measured), cfg.sampling, sample_reduction::decider, scale);
    return rec;
}

}  // namespace detail
}  // namespace comet::kernels
