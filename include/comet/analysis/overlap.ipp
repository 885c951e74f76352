// comet/analysis/overlap.ipp — the definitions of comet/analysis/overlap.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/analysis/overlap.hpp>

namespace comet {

COMET_DECL std::vector<overlap_gain> overlap_gains(const result_set& results, const overlap_gain_options& options,
                                                   std::string_view kernel) {
    using detail::growth::nan;
    const statistic stat = options.stat.value_or(statistic::median);
    using grid = std::map<std::pair<std::int64_t, std::int64_t>, std::vector<double>>;  // (size, vector_length)
    struct group {
        params key;
        grid sync, async;
        std::map<std::int64_t, std::vector<double>> daxpy;  // vector_length -> samples
        // Why a record's statistic is flagged, where it is: as the grids, by (size, vector_length).
        std::map<std::pair<std::int64_t, std::int64_t>, std::string> sync_flag, async_flag;
        std::map<std::int64_t, std::string> daxpy_flag;
    };
    std::vector<group> groups;
    for (const record* r : results.of(kernel)) {
        const auto n = r->params.integer("vector_length");
        const auto mode = r->params.text("mode");
        if (!n || !mode || !usable(*r)) continue;
        params key = detail::growth::without(r->params, {"size", "vector_length", "mode"});
        auto g = std::find_if(groups.begin(), groups.end(), [&](const group& x) { return x.key == key; });
        if (g == groups.end()) g = groups.insert(groups.end(), group{std::move(key), {}, {}, {}, {}, {}, {}});
        std::vector<double>* into = nullptr;
        std::string why = statistic_flag(*r, stat);
        if (*mode == "daxpy") {
            into = &g->daxpy[*n];
            if (!why.empty()) g->daxpy_flag.emplace(*n, std::move(why));
        } else {
            const auto size = r->params.integer("size");
            if (!size || (*mode != "sync" && *mode != "async")) continue;
            into = &(*mode == "sync" ? g->sync : g->async)[{*size, *n}];
            if (!why.empty()) (*mode == "sync" ? g->sync_flag : g->async_flag).emplace(std::pair{*size, *n}, std::move(why));
        }
        const std::vector<double> valid = valid_samples(*r);
        into->insert(into->end(), valid.begin(), valid.end());
    }

    std::vector<overlap_gain> out;
    for (const auto& g : groups) {
        overlap_gain o;
        o.kernel = std::string(kernel);
        o.group = g.key;
        o.stat = stat;
        for (const auto& [at, samples] : g.sync) {
            const auto a = g.async.find(at);
            if (a == g.async.end()) continue;
            overlap_point pt;
            pt.size = at.first;
            pt.vector_length = at.second;
            pt.sync = statistic_of(samples, stat);
            pt.async = statistic_of(a->second, stat);
            pt.gain = pt.async > 0.0 ? pt.sync / pt.async : nan;
            pt.saved = pt.sync > 0.0 ? 1.0 - pt.async / pt.sync : nan;
            pt.hidden = nan;
            const auto note = [&](const auto& flags, const auto& key, const char* what) {
                if (const auto f = flags.find(key); f != flags.end()) pt.flags.push_back(std::string(what) + ": " + f->second);
            };
            note(g.sync_flag, at, "sync");
            note(g.async_flag, at, "async");
            const auto comm = g.async.find({at.first, 0});
            const auto comp = g.daxpy.find(at.second);
            if (at.second > 0 && comm != g.async.end() && comp != g.daxpy.end()) {
                const double t_comm = statistic_of(comm->second, stat), t_comp = statistic_of(comp->second, stat);
                const double hideable = std::min(t_comm, t_comp);
                if (hideable > 0.0) pt.hidden = (t_comm + t_comp - pt.async) / hideable;
                note(g.async_flag, std::pair{at.first, std::int64_t{0}}, "async alone");
                note(g.daxpy_flag, at.second, "daxpy");
            }
            o.points.push_back(pt);
        }
        if (o.points.empty()) continue;
        o.large_size = options.large_size.value_or(o.points.back().size);  // points are size-ascending
        std::vector<double> large_gain, large_saved;
        // A summary's figures are flagged when a point it takes has a flagged sync or async.
        struct flagged_points {
            std::size_t count = 0;
            std::string first;
            void note(const overlap_point& pt) {
                for (const auto& f : pt.flags)
                    if (f.starts_with("sync: ") || f.starts_with("async: ")) {
                        if (count++ == 0) first = "size " + std::to_string(pt.size) + ", vector length " + std::to_string(pt.vector_length) + ": " + f;
                        return;
                    }
            }
            void into(std::vector<std::string>& flags, std::size_t of) const {
                if (count) flags.push_back("from " + std::to_string(count) + " of " + std::to_string(of) + " points with a flagged sync or async statistic (" + first + ")");
            }
        } large_flagged;
        for (std::size_t i = 0; i < o.points.size();) {
            overlap_size_gain s;
            s.size = o.points[i].size;
            std::vector<double> gain, saved;
            flagged_points size_flagged;
            for (; i < o.points.size() && o.points[i].size == s.size; ++i) {
                const auto& pt = o.points[i];
                if (pt.vector_length <= 0 || !std::isfinite(pt.gain) || !std::isfinite(pt.saved)) continue;
                gain.push_back(pt.gain);
                saved.push_back(pt.saved);
                size_flagged.note(pt);
                if (pt.size >= o.large_size) {
                    large_gain.push_back(pt.gain);
                    large_saved.push_back(pt.saved);
                    large_flagged.note(pt);
                }
            }
            size_flagged.into(s.flags, gain.size());
            s.points = gain.size();
            s.median_gain = detail::growth::median_of(gain);
            s.max_gain = detail::growth::max_of(gain);
            s.median_saved = detail::growth::median_of(saved);
            s.max_saved = detail::growth::max_of(saved);
            o.sizes.push_back(s);
        }
        o.large_points = large_gain.size();
        o.large_median_gain = detail::growth::median_of(large_gain);
        o.large_max_gain = detail::growth::max_of(large_gain);
        o.large_median_saved = detail::growth::median_of(large_saved);
        o.large_max_saved = detail::growth::max_of(large_saved);
        large_flagged.into(o.large_flags, large_gain.size());
        out.push_back(std::move(o));
    }
    if (out.empty())
        raise<invalid_argument>(-1, "overlap_gains: kernel '", kernel,
                                "' has no (size, vector_length) measured in both modes \"sync\" and \"async\"");
    return out;
}

}  // namespace comet
