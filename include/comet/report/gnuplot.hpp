// comet/report/gnuplot.hpp — plots written for gnuplot: one data file and one script per plot,
// rendered to PNG when gnuplot is installed.
//
// Files, for a plot named N, in the folder given:
//   N.dat  gnuplot data: '#' comment lines naming the plot and the series, then one block per
//          series (x y rows, sorted by x; x y low high where the plot has intervals), blocks
//          separated by two blank lines (gnuplot's `index`)
//   N.gp   a script that, run in the folder (`gnuplot N.gp`), writes N.png with the pngcairo
//          terminal when this gnuplot has it and the png terminal otherwise
//   N.png  when gnuplot is on the PATH and rendering succeeds
// Rendering failures are reported in the outcome, never thrown: a missing gnuplot must not cost
// the measurements. Deliberately not here: SVG or other terminals (edit the script), and any
// statistics beyond what a y function derives (plot_model.hpp).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/report/plot_model.hpp>
#include <comet/stats/record.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace comet {

/// How `write_plots` renders.
struct plot_options {
    /// Run gnuplot on the scripts (when it is on the PATH).
    bool render = true;
    /// The gnuplot program: a name looked up on the PATH, or a path.
    std::string gnuplot = "gnuplot";
    /// Image size in pixels.
    int width = 800;
    int height = 600;
};

/// A plot whose image was not rendered, and why.
struct plot_failure {
    std::string name;
    std::string reason;
};

/// What `write_plots` did.
struct plot_outcome {
    std::vector<std::string> written;        ///< plots whose .dat and .gp were written, in order
    std::vector<std::string> rendered;       ///< ... and whose .png was rendered
    std::vector<plot_failure> not_rendered;  ///< ... whose .png was not, and why
    std::vector<std::string> without_data;   ///< descriptions that matched no points (no files)
};

namespace detail::plot {

/// A number for a data file: the shortest form that reads back exactly, whole numbers in full
/// (x values are parameters and stay exact), or six significant digits (y values are measurements).
COMET_DECL std::string number_text(double v, bool exact);

/// A gnuplot single-quoted string: no escapes inside, a quote doubled.
COMET_DECL std::string gp_string(std::string_view s);

/// `s` on one line (a comment line of a data file or script): line breaks become spaces.
COMET_DECL std::string one_line(std::string s);

/// A POSIX shell single-quoted word.
COMET_DECL std::string shell_quoted(std::string_view s);

/// The `set xtics` list of a log x axis that also shows x = 0 at `zero`: "0" there, then the
/// powers of `base` from `least` to `most` (every second, third ... when there are more than
/// 12; the two ends themselves when at most one power lies between them).
COMET_DECL std::string zero_log_ticks(double zero, double least, double most, int base);

}  // namespace detail::plot

/// Writes `p` as a gnuplot data file: "# " comment lines (name, title, axes, what the interval
/// columns are and where x = 0 is drawn; before each block "# series K: <title>", or
/// "# series K" when untitled), then one "x y" line per point of each series ("x y low high"
/// when a point of the plot has an interval, "NaN NaN" where one has none), the blocks
/// separated by two blank lines so that the script can pick them with `index K`; within a block,
/// one blank line after the points at x = 0 of a log axis, so that no line joins them to the rest.
COMET_DECL void write_plot_data(std::ostream& os, const plot_data& p);

/// Writes the gnuplot script that draws `p` from `<name>.dat` into `<name>.png`, both in the
/// folder the script is run in (pngcairo when this gnuplot has it, png otherwise): each series
/// as points joined by lines in linetype `line + 1` (dash type `dash + 1` for series split off
/// another), the intervals as error bars in the same colour; on a log x axis with points at
/// x = 0, those at `zero_x` with a tick "0", and a second line of the x label saying so and
/// what the bars are.
COMET_DECL void write_plot_script(std::ostream& os, const plot_data& p, const plot_options& opt = {});

namespace detail::plot {

/// The gnuplot program to run, if it can be found: `program` itself when it holds a '/', else
/// the first executable of that name on the PATH.
COMET_DECL std::optional<std::filesystem::path> find_program(const std::string& program);

/// Runs `gnuplot <name>.gp` in `dir`; returns the reason it failed, or nothing.
COMET_DECL std::optional<std::string> render(const std::filesystem::path& gnuplot, const std::filesystem::path& dir,
                                             const std::string& name);

}  // namespace detail::plot

/// True when `program` (a name looked up on the PATH, or a path) is an executable file: whether
/// `write_plots` can render with it.
/// @code  if (!comet::gnuplot_available()) std::cerr << "no gnuplot: scripts only\n";  @endcode
COMET_DECL bool gnuplot_available(const std::string& program = "gnuplot");

/// Writes, into folder `dir` (created if missing), `<name>.dat` and `<name>.gp` for every plot
/// the descriptions give for `results`, and — with `opt.render` and gnuplot on the PATH — runs
/// each script to render `<name>.png`. Descriptions without points are listed in
/// `without_data` and write nothing. Images that could not be rendered are listed with the
/// reason (gnuplot not found, gnuplot's error, no image written); nothing about rendering throws.
/// @throws invalid_argument for an invalid description or two plots of the same name;
///         error when `dir` cannot be created or a file cannot be written (naming it).
/// @code
///   comet::plot_outcome o = comet::write_plots(out / "plots", comet::thesis_plots(), report.results);
///   for (const auto& f : o.not_rendered) std::cerr << "no " << f.name << ".png: " << f.reason << '\n';
/// @endcode
COMET_DECL plot_outcome write_plots(const std::filesystem::path& dir, const std::vector<plot_description>& descriptions,
                                    const result_set& results, const plot_options& opt = {});

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/gnuplot.ipp>
#endif
