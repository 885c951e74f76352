// comet/suite/analyses.hpp — the analyses a kernel descriptor lists (`kernel_descriptor::
// analyses`), each reading the kernel's records from a report and adding what it derives, with
// the descriptor's figure statistic: transfer fits and bandwidth, growth with log P, linear or
// quadratic growth in a parameter, contention slow-downs, overlap gains, COMMTEST's statistics,
// NIST's speedups and equation 1. What cannot be derived becomes a note in the report saying
// what to run instead; nothing throws.
//
// The computations live in stats/ (curves, fits, COMMTEST) and analysis/ (contention, overlap,
// delays); these only connect them to a report.
#pragma once

#include <comet/analysis/contention.hpp>
#include <comet/analysis/delays.hpp>
#include <comet/analysis/overlap.hpp>
#include <comet/core/errors.hpp>
#include <comet/report/report.hpp>
#include <comet/stats/bandwidth.hpp>
#include <comet/stats/commtest.hpp>
#include <comet/stats/fit.hpp>
#include <comet/stats/growth.hpp>
#include <comet/suite/descriptor.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet::analyses {

namespace detail {

/// Moves the elements of `from` to the end of `to`. Why not `to.insert(to.end(), ...)`: a
/// vector's range insert instantiates its own copy, move and reallocation templates for every
/// element type, compiled wherever this header is included (the umbrella header too), while
/// the push_back it stands for is the one the analyses already instantiate to build `from`.
template <class T>
void append(std::vector<T>& to, std::vector<T>&& from) {
    to.reserve(to.size() + from.size());
    for (T& x : from) to.push_back(std::move(x));
}

/// The records of `kernel` measured on the largest group in `results` (the thesis fits its
/// echo and exchange figures on its largest machine, 16 nodes).
inline result_set largest_group(const result_set& results, std::string_view kernel) {
    std::int64_t largest = 0;
    for (const auto* r : results.of(kernel)) largest = std::max(largest, r->params.integer("nodes").value_or(0));
    result_set out;
    for (const auto* r : results.of(kernel))
        if (r->params.integer("nodes").value_or(0) == largest) out.records.push_back(*r);
    return out;
}

}  // namespace detail

/// t = t_startup + N·t_per_byte (+ hops) and the bandwidth figures, on the largest group
/// measured (echo, pairwise). The transfer model reads medians (stats/fit.hpp).
inline kernel_analysis transfer_fits() {
    return [](report& r, const kernel_descriptor& d, const analysis_options& opt) {
        const std::string& kernel = d.name;
        const result_set at = detail::largest_group(r.results, kernel);
        if (at.empty()) return;
        try {
            transfer_fit_options fo;
            if (opt.break_size) fo.break_size = opt.break_size;
            else fo.find_break = true;
            std::vector<transfer_fit> fits = fit_transfers(at, kernel, fo);
            // A fit that does not hold stays in the report, flagged, and is said so here too.
            for (const auto& f : fits)
                if (!f.valid()) r.notes.push_back("fit of " + kernel + " " + f.regime + ": " + fit_flags_text(f.flags));
            detail::append(r.fits, std::move(fits));
        } catch (const invalid_argument& e) {
            r.notes.push_back("no fit for " + kernel + ": " + e.what());
        }
        for (auto& b : bandwidth(at, kernel)) r.bandwidth.push_back(b);
    };
}

/// Time against log2 P across the group sizes measured (the collectives).
inline kernel_analysis log_p() {
    return [](report& r, const kernel_descriptor& d, const analysis_options&) {
        if (r.results.of(d.name).empty()) return;
        try {
            auto fits = fit_log_p(r.results, d.name, {.stat = d.figure});
            detail::append(r.log_p, std::move(fits));
        } catch (const invalid_argument&) {
            // Measured on several group sizes, but with points flagged (every sample disturbed,
            // on a busy machine): said so, not taken for a run on one group size.
            std::vector<std::int64_t> nodes, flagged;
            for (const record* x : r.results.of(d.name))
                if (const auto n = x->params.integer("nodes")) {
                    if (std::ranges::find(nodes, *n) == nodes.end()) nodes.push_back(*n);
                    if (!usable(*x) && std::ranges::find(flagged, *n) == flagged.end()) flagged.push_back(*n);
                }
            if (nodes.size() >= 2 && !flagged.empty()) {
                std::ranges::sort(flagged);
                std::string at;
                for (const auto n : flagged) at += (at.empty() ? "" : ", ") + std::to_string(n);
                r.notes.push_back("no growth with P for " + d.name + ": its points on " + at +
                                  " nodes are flagged (no valid sample), too few group sizes are left");
            } else {
                r.notes.push_back("no growth with P for " + d.name + ": it was measured on one group size; run with --nodes 2,4,8,16");
            }
        }
    };
}

/// Linear against quadratic growth in the numeric param `x` on the largest group measured
/// (the matrix kernels in `matrix_dim`).
inline kernel_analysis growth_in(std::string x) {
    return [x = std::move(x)](report& r, const kernel_descriptor& d, const analysis_options&) {
        const result_set at = detail::largest_group(r.results, d.name);
        if (at.empty()) return;
        try {
            auto growth = compare_growth(at, d.name, x, {.stat = d.figure});
            detail::append(r.growth, std::move(growth));
        } catch (const invalid_argument& e) {
            r.notes.push_back("no growth with " + (x == "matrix_dim" ? std::string("the matrix dimension") : x) + " for " +
                              d.name + ": " + e.what());
        }
    };
}

/// Echo under each load against idle (contention).
inline kernel_analysis slowdown_under_load() {
    return [](report& r, const kernel_descriptor& d, const analysis_options&) {
        if (r.results.of(d.name).empty()) return;
        try {
            auto s = contention_slowdowns(r.results, {.stat = d.figure}, d.name);
            detail::append(r.contention, std::move(s));
        } catch (const invalid_argument& e) {
            r.notes.push_back(std::string("no contention slow-down: ") + e.what());
        }
    };
}

/// Synchronous against asynchronous exchange with computation (overlap).
inline kernel_analysis gain_from_overlap() {
    return [](report& r, const kernel_descriptor& d, const analysis_options&) {
        if (r.results.of(d.name).empty()) return;
        try {
            auto g = overlap_gains(r.results, {.stat = d.figure, .large_size = {}}, d.name);
            detail::append(r.overlap, std::move(g));
        } catch (const invalid_argument& e) {
            r.notes.push_back(std::string("no overlap gain: ") + e.what());
        }
    };
}

/// COMMTEST's statistics (stats/commtest.hpp) of every experiment of the kernel: a, b, latency,
/// bandwidths and the model's error, with N1 = 512 and N2 = 1024. Read from each point's least
/// time whatever the descriptor's figure statistic: the seed's b is the maximum achieved
/// bandwidth. Every group size is its own experiment (`nodes` is part of the group).
inline kernel_analysis commtest_statistics() {
    return [](report& r, const kernel_descriptor& d, const analysis_options&) {
        if (r.results.of(d.name).empty()) return;
        try {
            auto stats = commtest_statistics_of(r.results, {}, d.name);
            // One note for all, not one per experiment: a sweep of every protocol makes dozens,
            // and the table shows each flagged statistic where its number would be.
            const auto flagged = std::count_if(stats.begin(), stats.end(), [](const auto& s) { return !s.flags.empty(); });
            if (flagged > 0)
                r.notes.push_back(d.name + ": a flagged statistic in " + std::to_string(flagged) + " of " +
                                  std::to_string(stats.size()) +
                                  " experiments (negative a, b not positive, or model error too large); see the commtest section");
            detail::append(r.commtest, std::move(stats));
        } catch (const invalid_argument& e) {
            r.notes.push_back("no commtest statistics for " + d.name + ": " + e.what());
        }
    };
}

/// The speedups and equation 1 of a dilation study (analysis/delays.hpp, `estimate_dilations`),
/// written into the kernel's records (per series of records that differ in `dilation` alone),
/// and the seed's tables of them (`dilation_tables`).
inline kernel_analysis dilation_estimates() {
    return [](report& r, const kernel_descriptor& d, const analysis_options&) {
        std::vector<record> mine;
        for (const record& rec : r.results.records)
            if (rec.kernel == d.name) mine.push_back(rec);
        estimate_dilations(mine);
        auto next = mine.begin();
        for (record& rec : r.results.records)
            if (rec.kernel == d.name) rec = *next++;
        detail::append(r.tables, dilation_tables(mine));
    };
}

}  // namespace comet::analyses
