// comet/analysis/contention.hpp — how much cross traffic slows echo down (CoMet thesis figure
// 5.5: "the echo test runs slower under increased loads"), from the contention kernel's
// records: loaded against idle, per size and summarised.
//
// An analysis of one kernel's params (`load`, `cross_size`): it sits above stats/, which knows
// curves and fits but no kernel, and below report/, which writes what it finds. The contention
// kernel's descriptor (suite/builtin.hpp) is what calls it.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/stats/curves.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet {

/// Echo time under a load against the idle echo time at one size.
struct slowdown_point {
    std::int64_t size = 0;  ///< bytes: the echo message size
    double idle = 0.0;      ///< seconds: the statistic of the idle (load 0) record
    double loaded = 0.0;    ///< seconds: the statistic of the loaded record
    double ratio = 0.0;     ///< loaded / idle: 1 = no slow-down, 2 = twice as slow
};

/// How much one load slows echo down, per size and summarised (thesis figure 5.5: "the echo
/// test runs slower under increased loads").
struct contention_slowdown {
    std::string kernel;
    comet::params group;     ///< the params shared by the records (nodes, hops, ...), size, load and cross_size left out
    double load = 0.0;       ///< fraction of peak echo bandwidth (0.5, 0.9)
    std::int64_t cross_size = 0;  ///< bytes: the cross-traffic message size of the load
    statistic stat = statistic::median;
    std::vector<slowdown_point> points;  ///< sizes with both an idle and a loaded time (idle > 0), ascending
    double median_ratio = 0.0;     ///< median of the points' ratios
    double geometric_mean_ratio = 0.0;  ///< exp(mean(log ratio)): the typical factor, fair to ratios
    double min_ratio = 0.0;
    double max_ratio = 0.0;
};

/// Slow-down of echo under each load against the idle run (thesis figure 5.5), from the
/// records of the contention kernel: for every group (records grouped by their params without
/// size, load and cross_size — so per nodes and hops) and every load above 0, the ratio
/// loaded/idle of each size that has both (and an idle time above 0), and its median,
/// geometric mean, least and largest. Default statistic: the median.
/// @throws invalid_argument when no loaded record has an idle record of the same size and group.
/// @code
///   for (const auto& s : comet::contention_slowdowns(results))
///       std::printf("load %.1f: echo %.2fx slower (median over sizes)\n", s.load, s.median_ratio);
/// @endcode
inline std::vector<contention_slowdown> contention_slowdowns(const result_set& results,
                                                             const growth_options& options = {},
                                                             std::string_view kernel = "contention") {
    const statistic stat = options.stat.value_or(statistic::median);
    struct load_curve {
        double load;
        std::int64_t cross;
        std::map<std::int64_t, std::vector<double>> by_size;
    };
    struct group {
        params key;
        std::map<std::int64_t, std::vector<double>> idle;
        std::vector<load_curve> loads;  // first-seen order
    };
    std::vector<group> groups;
    for (const record* r : results.of(kernel)) {
        const auto size = r->params.integer("size");
        const auto load = r->params.number("load");
        if (!size || !load || !usable(*r)) continue;
        params key = detail::growth::without(r->params, {"size", "load", "cross_size"});
        auto g = std::find_if(groups.begin(), groups.end(), [&](const group& x) { return x.key == key; });
        if (g == groups.end()) g = groups.insert(groups.end(), group{std::move(key), {}, {}});
        std::vector<double>* into = nullptr;
        if (*load == 0.0) {
            into = &g->idle[*size];
        } else {
            const std::int64_t cross = r->params.integer("cross_size").value_or(0);
            auto l = std::find_if(g->loads.begin(), g->loads.end(),
                                  [&](const load_curve& x) { return x.load == *load && x.cross == cross; });
            if (l == g->loads.end()) l = g->loads.insert(g->loads.end(), load_curve{*load, cross, {}});
            into = &l->by_size[*size];
        }
        const std::vector<double> valid = valid_samples(*r);
        into->insert(into->end(), valid.begin(), valid.end());
    }

    std::vector<contention_slowdown> out;
    for (const auto& g : groups)
        for (const auto& l : g.loads) {
            contention_slowdown s;
            s.kernel = std::string(kernel);
            s.group = g.key;
            s.load = l.load;
            s.cross_size = l.cross;
            s.stat = stat;
            std::vector<double> ratios;
            double log_sum = 0.0;
            for (const auto& [size, samples] : l.by_size) {
                const auto idle = g.idle.find(size);
                if (idle == g.idle.end()) continue;
                const double t0 = statistic_of(idle->second, stat);
                const double t1 = statistic_of(samples, stat);
                if (!(t0 > 0.0) || !std::isfinite(t1)) continue;
                s.points.push_back({size, t0, t1, t1 / t0});
                ratios.push_back(t1 / t0);
                log_sum += std::log(std::max(t1 / t0, std::numeric_limits<double>::min()));
            }
            if (ratios.empty()) continue;
            s.median_ratio = detail::growth::median_of(ratios);
            s.geometric_mean_ratio = std::exp(log_sum / static_cast<double>(ratios.size()));
            s.min_ratio = *std::min_element(ratios.begin(), ratios.end());
            s.max_ratio = *std::max_element(ratios.begin(), ratios.end());
            out.push_back(std::move(s));
        }
    if (out.empty())
        raise<invalid_argument>(-1, "contention_slowdowns: kernel '", kernel,
                                "' has no loaded record with an idle (load 0) record of the same size, nodes and hops");
    return out;
}

}  // namespace comet
