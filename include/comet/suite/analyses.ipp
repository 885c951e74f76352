// comet/suite/analyses.ipp — the definitions of comet/suite/analyses.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/suite/analyses.hpp>

namespace comet::analyses {
namespace detail {

COMET_DECL result_set largest_group(const result_set& results, std::string_view kernel) {
    std::int64_t largest = 0;
    for (const auto* r : results.of(kernel)) largest = std::max(largest, r->params.integer("nodes").value_or(0));
    result_set out;
    for (const auto* r : results.of(kernel))
        if (r->params.integer("nodes").value_or(0) == largest) out.records.push_back(*r);
    return out;
}

}  // namespace detail
}  // namespace comet::analyses

namespace comet::analyses {

COMET_DECL kernel_analysis transfer_fits() {
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

COMET_DECL kernel_analysis machine_fit() {
    return [](report& r, const kernel_descriptor& d, const analysis_options&) {
        const result_set at = detail::largest_group(r.results, d.name);
        if (at.empty()) return;
        try {
            const fitted_machine f = fit_machine(at.records);
            r.notes.push_back("LogGOPS machine fitted to " + d.name + " (comet fit-machine writes its file): " +
                              loggops::describe(f.machine));
            for (const auto& n : f.notes) r.notes.push_back(d.name + ": " + n);
        } catch (const invalid_argument& e) {
            r.notes.push_back("no LogGOPS machine fitted to " + d.name + ": " + e.what());
        }
    };
}

COMET_DECL kernel_analysis log_p() {
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

COMET_DECL kernel_analysis growth_in(std::string x) {
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

COMET_DECL kernel_analysis slowdown_under_load() {
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

COMET_DECL kernel_analysis gain_from_overlap() {
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

COMET_DECL kernel_analysis commtest_statistics() {
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

COMET_DECL kernel_analysis dilation_estimates() {
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
