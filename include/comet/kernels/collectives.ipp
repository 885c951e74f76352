// comet/kernels/collectives.ipp — the definitions of comet/kernels/collectives.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/collectives.hpp>

namespace comet::kernels {

COMET_DECL std::vector<std::size_t> default_vector_lengths() {
    return {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
}

}  // namespace comet::kernels

namespace comet::kernels {
namespace detail::collectives {

COMET_DECL void without_closing_barrier(record& rec, const sampled_point& with, const sampled_point& alone) {
    // Only valid samples: not below zero, no rank disturbed during them (timing/measure.hpp).
    const auto valid = [](const sampled_point& p, std::size_t j) {
        return p.samples[j] >= 0 && !(j < p.disturbed.size() && p.disturbed[j]);
    };
    std::vector<double> barrier, differences;
    for (std::size_t j = 0; j < alone.samples.size(); ++j)
        if (valid(alone, j)) barrier.push_back(alone.samples[j]);
    // The points close on their own rules; their first samples come from the same rounds.
    for (std::size_t j = 0; j < std::min(with.samples.size(), alone.samples.size()); ++j)
        if (valid(with, j) && valid(alone, j)) differences.push_back(with.samples[j] - alone.samples[j]);
    if (!barrier.empty()) {
        rec.values.set("closing_barrier", summarize(std::span<const double>(barrier)).median);
        // The barrier's own samples: where they disagree, so does their median.
        const assessment b = assess(record{"", {}, barrier});
        if (const flag* f = find_flag(b.flags, "statistics")) add_flag(rec, "closing_barrier", "its samples: " + f->why);
    }
    const auto ci = median_ci(differences);
    if (!ci) {
        add_flag(rec, "without_barrier", "too few paired samples for an interval (" + std::to_string(differences.size()) + ")");
        return;
    }
    if (!(ci->low > 0)) {
        add_flag(rec, "without_barrier", "not resolved: the 95% interval of the paired differences [" + std::to_string(ci->low * 1e6) +
                                             ", " + std::to_string(ci->high * 1e6) + "] us does not exclude 0");
        return;
    }
    rec.values.set("without_barrier", summarize(std::span<const double>(differences)).median)
        .set("without_barrier_ci_low", ci->low)
        .set("without_barrier_ci_high", ci->high);
    // The differences are samples like any other: where they disagree (a disturbed broadcast
    // or barrier on one side of a pair), the figure and its interval are flagged as theirs would be.
    const assessment d = assess(record{"", {}, differences});
    const flag* f = find_flag(d.flags, "statistics");
    if (f || d.outliers > 0) {
        const std::string why =
            "the paired differences: " + (f ? f->why : std::to_string(d.outliers) + " of " + std::to_string(d.valid) + " beyond median +- 3 sigma");
        for (const char* what : {"without_barrier", "without_barrier_ci_low", "without_barrier_ci_high"}) add_flag(rec, what, why);
    }
}

}  // namespace detail::collectives
}  // namespace comet::kernels
