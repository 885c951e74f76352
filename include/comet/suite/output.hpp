// comet/suite/output.hpp — a suite run's report as the comet program writes it, for any list
// of kernel descriptors: the summary (the console tables, and the thesis beside them where the
// run compares with it) and the report folder:
//
//   results.json   the schema of docs/results-schema.md
//   results.csv    a row per record; fits.csv, bandwidth.csv; commtest.csv (COMMTEST's statistics)
//   summary.txt    the summary
//   plots/         every descriptor's plots (.dat, .gp, and .png where gnuplot is installed)
//
// The program calls exactly this, so a kernel added outside the suite (its descriptor in
// `all`) reaches the JSON and the plots as the suite's own do.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/report/csv.hpp>
#include <comet/report/files.hpp>
#include <comet/report/gnuplot.hpp>
#include <comet/report/json.hpp>
#include <comet/report/report.hpp>
#include <comet/report/table.hpp>
#include <comet/report/thesis.hpp>
#include <comet/suite/descriptor.hpp>
#include <comet/suite/suite.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace comet {

/// A note in `r` for each requested kernel a group of `groups` could not run, saying why.
COMET_DECL void note_skipped(report& r, const std::vector<std::string>& kernels, const std::vector<int>& groups,
                             std::span<const kernel_descriptor> all = suite_kernels());

/// The summary of an analysed report: its tables, then — with `beside_thesis` — the thesis'
/// figures and the verdicts on the shapes of `all`'s kernels.
COMET_DECL std::string suite_summary(const report& r, std::span<const kernel_descriptor> all = suite_kernels(),
                                     bool beside_thesis = false);

/// What `write_suite_report` wrote.
struct suite_files {
    std::vector<std::filesystem::path> files;  ///< results.json, the CSV files, summary.txt
    plot_outcome plots;                        ///< in plots/
};

/// Writes the report folder `dir` (created if missing): results.json, results.csv, fits.csv,
/// bandwidth.csv, commtest.csv (with COMMTEST statistics), each derived table as
/// tables/<name>.csv, `summary` as summary.txt, and the plots of `all`'s descriptors in plots/.
/// Each file is written whole or not at all (`write_file_atomically`).
/// @throws error naming the file or folder that could not be written (plots that could not be
///         rendered are listed in the outcome instead).
/// @code
///   comet::analyse(rep, descriptors);
///   const std::string summary = comet::suite_summary(rep, descriptors);
///   comet::write_suite_report("out", rep, summary, descriptors);
/// @endcode
COMET_DECL suite_files write_suite_report(const std::filesystem::path& dir, const report& r, std::string_view summary,
                                          std::span<const kernel_descriptor> all = suite_kernels(), const plot_options& plots = {});

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/suite/output.ipp>
#endif
