// comet/analysis/overlap.hpp — how much the asynchronous overlap kernel gains over the
// synchronous one (CoMet thesis figures 5.9–5.12: "improvements of over 33% when overlapping a
// pairwise transfer of large messages with double precision computation"), from the overlap
// kernel's records: sync against async per point, the share of the hideable time hidden, and
// summaries per size and for large messages.
//
// An analysis of one kernel's params (`mode`, `vector_length`): it sits above stats/ and below
// report/. The overlap kernel's descriptor (suite/builtin.hpp) is what calls it.
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

/// Synchronous against asynchronous overlap at one message size and vector length.
struct overlap_point {
    std::int64_t size = 0;           ///< bytes exchanged each way
    std::int64_t vector_length = 0;  ///< doubles in the DAXPY
    double sync = 0.0;               ///< seconds: the statistic of the "sync" record
    double async = 0.0;              ///< seconds: the statistic of the "async" record
    double gain = 0.0;               ///< sync / async: above 1 when overlapping pays
    double saved = 0.0;              ///< 1 − async/sync: the fraction of the time saved (the thesis' "33%")
    /// (comm + comp − async) / min(comm, comp): the fraction of the time that could be hidden
    /// that the asynchronous version did hide (0: it took comm + comp, no overlap; 1: it took
    /// max(comm, comp), the shorter fully hidden). comm = the ASYNC time at this size with
    /// vector length 0 (the asynchronous exchange alone), comp = the "daxpy" baseline at this
    /// vector length. Measured against the asynchronous exchange rather than the synchronous
    /// one on purpose: `gain` also counts what the asynchronous calls save by themselves (the
    /// thesis: a message "copied directly into user space, avoiding a memory copy"; on the
    /// threads transport two blocking sends that both go first each take a buffered copy),
    /// which is no overlap. NaN at vector length 0 (nothing to hide), when comm or comp is
    /// missing, or when min(comm, comp) ≤ 0. Noisy where comp or comm is tiny.
    double hidden = 0.0;
};

/// The overlap gain of one message size, over its vector lengths above 0.
struct overlap_size_gain {
    std::int64_t size = 0;
    std::size_t points = 0;     ///< vector lengths > 0 with both modes
    double median_gain = 0.0;   ///< NaN when points is 0
    double max_gain = 0.0;
    double median_saved = 0.0;
    double max_saved = 0.0;
};

/// Overlap gains of one group of overlap records (one `nodes`, one `hops`, ...).
struct overlap_gain {
    std::string kernel;
    comet::params group;  ///< the params shared by the records; size, vector_length and mode left out
    statistic stat = statistic::median;
    std::vector<overlap_point> points;      ///< every (size, vector_length) with both modes: size, then vector_length ascending
    std::vector<overlap_size_gain> sizes;   ///< per size, ascending
    /// The "large messages" summary (thesis 5.1: "improvements of over 33% when overlapping a
    /// pairwise transfer of large messages with double precision computation"): the points with
    /// size ≥ large_size and vector_length > 0.
    std::int64_t large_size = 0;
    std::size_t large_points = 0;
    double large_median_gain = 0.0;   ///< NaN when large_points is 0
    double large_max_gain = 0.0;
    double large_median_saved = 0.0;
    double large_max_saved = 0.0;
};

/// Options of `overlap_gains`.
struct overlap_gain_options {
    /// The statistic of each record's samples; unset: median.
    std::optional<statistic> stat;
    /// The smallest message size summarised as "large"; unset: the largest size measured.
    std::optional<std::int64_t> large_size;
};

/// Overlap gains (thesis figures 5.9–5.12), from the records of the overlap kernel: for every
/// group (records grouped by their params without size, vector_length and mode — so per nodes
/// and hops), sync/async per (size, vector_length) measured in both modes, the fraction of
/// the hideable time that was hidden (with the "daxpy" baseline), a summary per size, and the
/// "large messages" summary over sizes ≥ `large_size` (default: the largest size measured)
/// with vector lengths above 0. Default statistic: the median.
/// @throws invalid_argument when no (size, vector_length) has both a "sync" and an "async" record.
/// @code
///   for (const auto& g : comet::overlap_gains(results))
///       std::printf("large messages: async saves %.0f%% (median)\n", 100 * g.large_median_saved);
/// @endcode
inline std::vector<overlap_gain> overlap_gains(const result_set& results, const overlap_gain_options& options = {},
                                               std::string_view kernel = "overlap") {
    using detail::growth::nan;
    const statistic stat = options.stat.value_or(statistic::median);
    using grid = std::map<std::pair<std::int64_t, std::int64_t>, std::vector<double>>;  // (size, vector_length)
    struct group {
        params key;
        grid sync, async;
        std::map<std::int64_t, std::vector<double>> daxpy;  // vector_length -> samples
    };
    std::vector<group> groups;
    for (const record* r : results.of(kernel)) {
        const auto n = r->params.integer("vector_length");
        const auto mode = r->params.text("mode");
        if (!n || !mode || !usable(*r)) continue;
        params key = detail::growth::without(r->params, {"size", "vector_length", "mode"});
        auto g = std::find_if(groups.begin(), groups.end(), [&](const group& x) { return x.key == key; });
        if (g == groups.end()) g = groups.insert(groups.end(), group{std::move(key), {}, {}, {}});
        std::vector<double>* into = nullptr;
        if (*mode == "daxpy") {
            into = &g->daxpy[*n];
        } else {
            const auto size = r->params.integer("size");
            if (!size || (*mode != "sync" && *mode != "async")) continue;
            into = &(*mode == "sync" ? g->sync : g->async)[{*size, *n}];
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
            const auto comm = g.async.find({at.first, 0});
            const auto comp = g.daxpy.find(at.second);
            if (at.second > 0 && comm != g.async.end() && comp != g.daxpy.end()) {
                const double t_comm = statistic_of(comm->second, stat), t_comp = statistic_of(comp->second, stat);
                const double hideable = std::min(t_comm, t_comp);
                if (hideable > 0.0) pt.hidden = (t_comm + t_comp - pt.async) / hideable;
            }
            o.points.push_back(pt);
        }
        if (o.points.empty()) continue;
        o.large_size = options.large_size.value_or(o.points.back().size);  // points are size-ascending
        std::vector<double> large_gain, large_saved;
        for (std::size_t i = 0; i < o.points.size();) {
            overlap_size_gain s;
            s.size = o.points[i].size;
            std::vector<double> gain, saved;
            for (; i < o.points.size() && o.points[i].size == s.size; ++i) {
                const auto& pt = o.points[i];
                if (pt.vector_length <= 0 || !std::isfinite(pt.gain) || !std::isfinite(pt.saved)) continue;
                gain.push_back(pt.gain);
                saved.push_back(pt.saved);
                if (pt.size >= o.large_size) {
                    large_gain.push_back(pt.gain);
                    large_saved.push_back(pt.saved);
                }
            }
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
        out.push_back(std::move(o));
    }
    if (out.empty())
        raise<invalid_argument>(-1, "overlap_gains: kernel '", kernel,
                                "' has no (size, vector_length) measured in both modes \"sync\" and \"async\"");
    return out;
}

}  // namespace comet
