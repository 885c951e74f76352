// comet/kernels/contention.ipp — the definitions of comet/kernels/contention.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/contention.hpp>

namespace comet::kernels {

COMET_DECL contention_nodes contention_roles(int nodes, int hops) {
    if (nodes < 4)
        raise<invalid_argument>(-1, "contention needs at least 4 ranks (two carry cross traffic, two echo); the group has ",
                                nodes);
    if (hops < 1) raise<invalid_argument>(-1, "contention: echo pair hop distance ", hops, " is less than 1");
    contention_nodes n;
    n.hops = hops;
    const bool cube = is_power_of_two(static_cast<std::uint64_t>(nodes)) && nodes <= hypercube::max_nodes;
    if (cube && hops + 2 < 31 && nodes >= (1 << (hops + 2))) {
        const hypercube c(nodes);
        const std::vector<int> route = c.route(0, (1 << (hops + 2)) - 1);
        n.traffic_source = route.front();
        n.traffic_sink = route.back();
        n.echo_node = route[1];
        n.echo_partner = route[static_cast<std::size_t>(hops) + 1];
        n.on_route = true;
    } else {
        n.echo_node = 1;
        try {
            n.echo_partner = hop_node(1, hops, nodes);
        } catch (const invalid_argument& e) {
            raise<invalid_argument>(-1, "contention_roles: ", e.what());
        }
        std::vector<int> others;
        for (int r = 0; r < nodes && others.size() < 2; ++r)
            if (r != n.echo_node && r != n.echo_partner) others.push_back(r);
        n.traffic_source = others[0];
        n.traffic_sink = others[1];
    }
    if (cube) {
        const hypercube c(nodes);
        const auto links = [&](int from, int to) {
            const std::vector<int> path = c.route(from, to);
            std::set<std::pair<int, int>> out;
            for (std::size_t i = 0; i + 1 < path.size(); ++i) out.emplace(path[i], path[i + 1]);
            return out;
        };
        const auto traffic = links(n.traffic_source, n.traffic_sink);
        int shared = 0;
        for (const auto& l : links(n.echo_node, n.echo_partner)) shared += traffic.count(l) ? 1 : 0;
        n.shared_links = shared;
    }
    return n;
}

COMET_DECL std::vector<int> default_contention_hops(int nodes) {
    std::vector<int> hops{1};
    if (nodes >= 8 && is_power_of_two(static_cast<std::uint64_t>(nodes)))
        for (int h = 2; (1 << (h + 2)) <= nodes && h + 2 < 31; ++h) hops.push_back(h);
    return hops;
}

COMET_DECL contention_load_sizes contention_loads_from_echo(const result_set& echo, std::int64_t hops) {
    for (const auto& b : bandwidth(echo, "echo")) {
        if (b.hops != hops) continue;
        if (!std::isfinite(b.n_half) || !std::isfinite(b.n_90)) break;
        const auto whole = [](double n) { return static_cast<std::size_t>(std::max(1.0, std::ceil(n))); };
        return {whole(b.n_half), whole(b.n_90)};
    }
    raise<invalid_argument>(-1, "contention_loads_from_echo: no echo records with a positive size and samples at ", hops,
                            " hops");
}

}  // namespace comet::kernels

namespace comet::kernels {
namespace detail::contention {

COMET_DECL std::optional<std::size_t> load_size(double load, const contention_load_sizes& s) {
    if (load == 0.0) return 0;
    if (load == 0.5) return s.half;
    if (load == 0.9) return s.ninety;
    return std::nullopt;
}

}  // namespace detail::contention
}  // namespace comet::kernels
