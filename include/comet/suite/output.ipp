// comet/suite/output.ipp — the definitions of comet/suite/output.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/suite/output.hpp>

namespace comet {

COMET_DECL void note_skipped(report& r, const std::vector<std::string>& kernels, const std::vector<int>& groups,
                             std::span<const kernel_descriptor> all) {
    for (int p : groups)
        for (const auto& k : kernels)
            if (const auto why = suite_skip_reason(k, p, all))
                r.notes.push_back(k + " skipped on " + std::to_string(p) + (p == 1 ? " rank" : " ranks") + ": it " + *why);
}

COMET_DECL std::string suite_summary(const report& r, std::span<const kernel_descriptor> all,
                                     bool beside_thesis) {
    std::ostringstream summary;
    // First, so that a reader sees at once that the tables below hold only part of the run.
    if (r.stopped) summary << describe(*r.stopped) << "\n(the tables hold what was measured up to there)\n\n";
    write_table(summary, r);
    if (beside_thesis) {
        summary << '\n';
        write_thesis_comparison(summary, compare_with_thesis(r));
        summary << '\n';
        const std::vector<thesis_shape> shapes = suite_shapes(all);
        write_shape_comparison(summary, compare_shapes_with_thesis(r, shapes));
    }
    return summary.str();
}

COMET_DECL suite_files write_suite_report(const std::filesystem::path& dir, const report& r, std::string_view summary,
                                          std::span<const kernel_descriptor> all, const plot_options& plots) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) raise<error>(-1, "cannot create ", dir.string(), ": ", ec.message());
    suite_files out;
    const auto write = [&](std::string_view name, const std::function<void(std::ostream&)>& body) {
        const std::filesystem::path path = dir / name;
        write_file_atomically(path, body);
        out.files.push_back(path);
    };
    write("results.json", [&](std::ostream& os) { write_json(os, r); });
    // The CSV files as the CSV reporter writes them, each whole or not at all.
    csv_reporter csv(dir);
    deliver(r, csv);
    out.files.insert(out.files.end(), csv.files().begin(), csv.files().end());
    write("summary.txt", [&](std::ostream& os) { os << summary; });
    out.plots = write_plots(dir / "plots", suite_plots(all), r.results, plots);
    return out;
}

}  // namespace comet
