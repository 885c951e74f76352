// comet/report/thesis.hpp — a report beside the CoMet thesis, written: the figures and the
// shape verdicts as tables, for the simulated iPSC/860's summary.
//
// The figures, the shapes and their judgement live in analysis/thesis.hpp; this file only
// hands them a report's findings (`evidence_of`) and writes what comes back.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/analysis/thesis.hpp>
#include <comet/report/report.hpp>

#include <algorithm>
#include <iomanip>
#include <locale>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace comet {

/// A view of what `r`'s analyses found, for the judgement (valid while `r` is unchanged).
COMET_DECL thesis_evidence evidence_of(const report& r);

/// Every thesis figure with the report's value for it.
COMET_DECL std::vector<thesis_comparison> compare_with_thesis(const report& r);

/// The verdict on each of `shapes` (default: every thesis shape) from the report's findings.
COMET_DECL std::vector<shape_verdict> compare_shapes_with_thesis(const report& r,
                                                                 std::span<const thesis_shape> shapes = thesis_shapes());

/// The comparison as a table: figure, thesis, measured, measured / thesis; "flagged" and the
/// reason where the figure's fit is flagged.
COMET_DECL void write_thesis_comparison(std::ostream& os, const std::vector<thesis_comparison>& rows);

/// The verdicts as a table: the thesis' observation, yes / NO / - (not judged), and the numbers;
/// under it, when a line reads NO, where to read why.
COMET_DECL void write_shape_comparison(std::ostream& os, const std::vector<shape_verdict>& verdicts);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/thesis.ipp>
#endif
