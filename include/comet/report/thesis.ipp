// comet/report/thesis.ipp — the definitions of comet/report/thesis.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/thesis.hpp>

namespace comet {

COMET_DECL thesis_evidence evidence_of(const report& r) {
    return {.fits = r.fits, .bandwidth = r.bandwidth, .log_p = r.log_p, .growth = r.growth,
            .contention = r.contention, .overlap = r.overlap, .records = r.results.records};
}

COMET_DECL std::vector<thesis_comparison> compare_with_thesis(const report& r) { return compare_with_thesis(evidence_of(r)); }

COMET_DECL std::vector<shape_verdict> compare_shapes_with_thesis(const report& r,
                                                                 std::span<const thesis_shape> shapes) {
    return compare_shapes_with_thesis(evidence_of(r), shapes);
}

COMET_DECL void write_thesis_comparison(std::ostream& os, const std::vector<thesis_comparison>& rows) {
    const auto fixed = [](double v) {
        std::ostringstream s;
        s.imbue(std::locale::classic());
        s << std::fixed << std::setprecision(2) << v;
        return s.str();
    };
    os << "beside the thesis (CoMet, chapter 5: a 16-node iPSC/860)\n";
    os << "  " << std::left << std::setw(34) << "figure" << std::right << std::setw(12) << "thesis" << std::setw(12)
       << "measured" << std::setw(8) << "ratio" << "  unit\n";
    for (const auto& row : rows) {
        const auto& f = *row.figure;
        const std::string measured = row.measured ? fixed(*row.measured * f.scale) + (row.flags.empty() ? "" : "!")
                                                  : row.flags.empty() ? "-" : "flagged";  // a flagged fit's number is no measurement
        const std::string ratio = row.measured ? fixed(*row.measured / f.value) : "-";
        os << "  " << std::left << std::setw(34) << f.label << std::right << std::setw(12) << fixed(f.value * f.scale)
           << std::setw(12) << measured << std::setw(8) << ratio << "  " << f.unit;
        if (!row.flags.empty()) os << "  (" << fit_flags_text(row.flags) << ')';
        os << '\n';
    }
}

COMET_DECL void write_shape_comparison(std::ostream& os, const std::vector<shape_verdict>& verdicts) {
    os << "shapes beside the thesis (CoMet, chapter 5)\n";
    std::size_t width = 0;
    for (const auto& v : verdicts) width = std::max(width, v.shape->claim.size());
    bool any_no = false;
    for (const auto& v : verdicts) {
        os << "  " << std::left << std::setw(static_cast<int>(width)) << v.shape->claim << "  "
           << (v.holds ? (*v.holds ? "yes" : "NO ") : "-  ") << "  " << v.evidence << "  (" << v.shape->where << ")\n";
        any_no = any_no || (v.holds && !*v.holds);
    }
    if (any_no)
        os << "  NO: the run does not show what the thesis saw, where the numbers say; for the simulated iPSC/860,\n"
              "  docs/nx2-model.md (section 6) says which of the model's mechanisms decide it and why.\n";
}

}  // namespace comet
