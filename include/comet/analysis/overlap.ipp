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
        // The records left out (flagged as a whole, or without a valid sample), by (mode, size,
        // vector_length) (a daxpy record's size: 0): why.
        std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::string> left_out;
    };
    std::vector<group> groups;
    std::size_t left_out = 0;
    for (const record* r : results.of(kernel)) {
        const auto n = r->params.integer("vector_length");
        const auto mode = r->params.text("mode");
        if (!n || !mode) continue;
        params key = detail::growth::without(r->params, {"size", "vector_length", "mode"});
        auto g = std::find_if(groups.begin(), groups.end(), [&](const group& x) { return x.key == key; });
        if (g == groups.end()) g = groups.insert(groups.end(), group{std::move(key), {}, {}, {}, {}, {}, {}, {}});
        if (std::string why = unusable_why(*r); !why.empty()) {
            const std::int64_t size = *mode == "daxpy" ? 0 : r->params.integer("size").value_or(0);
            g->left_out.emplace(std::tuple{*mode, size, *n}, std::move(why));
            ++left_out;
            continue;
        }
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
        std::vector<std::string> gain_flag;  // by point: why its gain and saved are flagged (the first), or empty
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
            gain_flag.push_back(pt.flags.empty() ? std::string() : pt.flags.front());
            if (at.second > 0) {
                const auto comm = g.async.find({at.first, 0});
                const auto comp = g.daxpy.find(at.second);
                if (comm != g.async.end() && comp != g.daxpy.end()) {
                    const double t_comm = statistic_of(comm->second, stat), t_comp = statistic_of(comp->second, stat);
                    const double hideable = std::min(t_comm, t_comp);
                    if (hideable > 0.0) pt.hidden = (t_comm + t_comp - pt.async) / hideable;
                }
                // hidden's two other records: flagged, or left out (then hidden is NaN, and says why).
                note(g.async_flag, std::pair{at.first, std::int64_t{0}}, "async alone");
                note(g.daxpy_flag, at.second, "daxpy");
                const auto left = [&](const char* mode, std::int64_t size, std::int64_t n, const char* what) {
                    if (const auto f = g.left_out.find({mode, size, n}); f != g.left_out.end())
                        pt.flags.push_back(std::string(what) + ": left out: " + f->second);
                };
                left("async", at.first, 0, "async alone");
                left("daxpy", 0, at.second, "daxpy");
            }
            o.points.push_back(pt);
        }
        if (o.points.empty()) continue;
        o.large_size = options.large_size.value_or(o.points.back().size);  // points are size-ascending
        // A summary's figures are flagged when a point it takes has a flagged sync or async
        // statistic, and when a sync or async record it would have taken (vector length above 0)
        // was left out: its points are then not all there.
        struct flagged_points {
            std::size_t count = 0;
            std::string first;
            void note(const overlap_point& pt, const std::string& why) {
                if (!why.empty() && count++ == 0)
                    first = "size " + std::to_string(pt.size) + ", vector length " + std::to_string(pt.vector_length) + ": " + why;
            }
            void into(std::vector<std::string>& flags, std::size_t of) const {
                if (count) flags.push_back("from " + std::to_string(count) + " of " + std::to_string(of) + " points with a flagged sync or async statistic (" + first + ")");
            }
        };
        const auto left_out_from = [&](std::vector<std::string>& flags, auto in) {
            std::size_t count = 0;
            std::string first;
            for (const auto& [at, why] : g.left_out) {
                const auto& [mode, size, n] = at;
                if (mode == "daxpy" || n <= 0 || !in(size)) continue;
                if (count++ == 0) first = mode + ", size " + std::to_string(size) + ", vector length " + std::to_string(n) + ": " + why;
            }
            if (count) flags.push_back(std::to_string(count) + " sync or async records left out (" + first + ")");
        };
        std::vector<double> large_gain, large_saved;
        flagged_points large_flagged;
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
                size_flagged.note(pt, gain_flag[i]);
                if (pt.size >= o.large_size) {
                    large_gain.push_back(pt.gain);
                    large_saved.push_back(pt.saved);
                    large_flagged.note(pt, gain_flag[i]);
                }
            }
            size_flagged.into(s.flags, gain.size());
            left_out_from(s.flags, [&](std::int64_t size) { return size == s.size; });
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
        left_out_from(o.large_flags, [&](std::int64_t size) { return size >= o.large_size; });
        out.push_back(std::move(o));
    }
    if (out.empty())
        raise<invalid_argument>(-1, "overlap_gains: kernel '", kernel,
                                "' has no (size, vector_length) measured in both modes \"sync\" and \"async\"",
                                left_out ? " (" + std::to_string(left_out) + " records left out: flagged as a whole, or without a valid sample)" : std::string());
    return out;
}

}  // namespace comet
