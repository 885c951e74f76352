// comet/analysis/contention.ipp — the definitions of comet/analysis/contention.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/analysis/contention.hpp>

namespace comet {

COMET_DECL std::vector<contention_slowdown> contention_slowdowns(const result_set& results,
                                                                 const growth_options& options,
                                                                 std::string_view kernel) {
    const statistic stat = options.stat.value_or(statistic::median);
    struct load_curve {
        double load;
        std::int64_t cross;
        std::map<std::int64_t, std::vector<double>> by_size;
        std::map<std::int64_t, std::string> flagged;   // size -> why its statistic is flagged
        std::map<std::int64_t, std::string> left_out;  // size -> why a record there is not read
    };
    struct group {
        params key;
        std::map<std::int64_t, std::vector<double>> idle;
        std::map<std::int64_t, std::string> idle_flagged;
        std::map<std::int64_t, std::string> idle_left_out;
        std::vector<load_curve> loads;  // first-seen order
    };
    std::vector<group> groups;
    std::size_t left_out = 0;
    for (const record* r : results.of(kernel)) {
        const auto size = r->params.integer("size");
        const auto load = r->params.number("load");
        if (!size || !load) continue;
        params key = detail::growth::without(r->params, {"size", "load", "cross_size"});
        auto g = std::find_if(groups.begin(), groups.end(), [&](const group& x) { return x.key == key; });
        if (g == groups.end()) g = groups.insert(groups.end(), group{std::move(key), {}, {}, {}, {}});
        // A record left out (flagged as a whole, or without a valid sample) is noted where its
        // samples would have gone.
        const std::string unusable = unusable_why(*r);
        left_out += unusable.empty() ? 0 : 1;
        std::vector<double>* into = nullptr;
        std::string why = unusable.empty() ? statistic_flag(*r, stat) : std::string();
        if (*load == 0.0) {
            if (!unusable.empty()) {
                g->idle_left_out.emplace(*size, unusable);
                continue;
            }
            into = &g->idle[*size];
            if (!why.empty()) g->idle_flagged.emplace(*size, std::move(why));
        } else {
            const std::int64_t cross = r->params.integer("cross_size").value_or(0);
            auto l = std::find_if(g->loads.begin(), g->loads.end(),
                                  [&](const load_curve& x) { return x.load == *load && x.cross == cross; });
            if (l == g->loads.end()) l = g->loads.insert(g->loads.end(), load_curve{*load, cross, {}, {}, {}});
            if (!unusable.empty()) {
                l->left_out.emplace(*size, unusable);
                continue;
            }
            into = &l->by_size[*size];
            if (!why.empty()) l->flagged.emplace(*size, std::move(why));
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
                slowdown_point pt{size, t0, t1, t1 / t0};
                if (const auto f = g.idle_flagged.find(size); f != g.idle_flagged.end()) pt.flags.push_back("idle: " + f->second);
                if (const auto f = l.flagged.find(size); f != l.flagged.end()) pt.flags.push_back("loaded: " + f->second);
                if (!pt.flags.empty() && s.flags.empty())
                    s.flags.push_back("from a flagged point (size " + std::to_string(size) + ": " + pt.flags.front() + ")");
                s.points.push_back(std::move(pt));
                ratios.push_back(t1 / t0);
                log_sum += std::log(std::max(t1 / t0, std::numeric_limits<double>::min()));
            }
            // The sizes this curve could not compare, for a record left out on either side.
            std::map<std::int64_t, std::string> missing;
            std::set<std::int64_t> sizes;
            for (const auto& [size, samples] : l.by_size) sizes.insert(size);
            for (const auto& [size, why] : l.left_out) {
                sizes.insert(size);
                missing.emplace(size, "loaded: " + why);
            }
            for (const auto& [size, why] : g.idle_left_out)
                if (sizes.contains(size)) missing.emplace(size, "idle: " + why);
            if (!missing.empty()) s.flags.push_back("left out (a record not read) at " + points_listed(missing, sizes.size(), "sizes", " B"));
            if (ratios.empty()) continue;
            s.median_ratio = detail::growth::median_of(ratios);
            s.geometric_mean_ratio = std::exp(log_sum / static_cast<double>(ratios.size()));
            s.min_ratio = *std::min_element(ratios.begin(), ratios.end());
            s.max_ratio = *std::max_element(ratios.begin(), ratios.end());
            out.push_back(std::move(s));
        }
    if (out.empty())
        raise<invalid_argument>(-1, "contention_slowdowns: kernel '", kernel,
                                "' has no loaded record with an idle (load 0) record of the same size, nodes and hops",
                                left_out ? " (" + std::to_string(left_out) + " records left out: flagged as a whole, or without a valid sample)" : std::string());
    return out;
}

}  // namespace comet
