// comet/report/gnuplot.hpp — plots written for gnuplot: one data file and one script per plot,
// rendered to PNG when gnuplot is installed.
//
// Files, for a plot named N, in the folder given:
//   N.dat  gnuplot data: '#' comment lines naming the plot and the series, then one block per
//          series (x y rows, sorted by x), blocks separated by two blank lines (gnuplot's `index`)
//   N.gp   a script that, run in the folder (`gnuplot N.gp`), writes N.png with the pngcairo
//          terminal when this gnuplot has it and the png terminal otherwise
//   N.png  when gnuplot is on the PATH and rendering succeeds
// Rendering failures are reported in the outcome, never thrown: a missing gnuplot must not cost
// the measurements. Deliberately not here: SVG or other terminals (edit the script), and any
// statistics beyond what a y function derives (plot_model.hpp).
#pragma once

#include <comet/core/errors.hpp>
#include <comet/report/plot_model.hpp>
#include <comet/stats/record.hpp>

#include <charconv>
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

#if __has_include(<unistd.h>) && __has_include(<sys/wait.h>)
#include <sys/wait.h>
#include <unistd.h>
#define COMET_PLOT_POSIX 1
#endif

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

/// A number for a data file: the shortest form that reads back exactly (x values are parameters
/// and stay exact) or six significant digits (y values are measurements).
inline std::string number_text(double v, bool exact) {
    char buf[64];
    const auto res = exact ? std::to_chars(buf, buf + sizeof buf, v)
                           : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
    return std::string(buf, res.ptr);
}

/// A gnuplot single-quoted string: no escapes inside, a quote doubled.
inline std::string gp_string(std::string_view s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += '\'';
        if (c == '\n' || c == '\r') {
            out += ' ';
            continue;
        }
        out += c;
    }
    out += '\'';
    return out;
}

/// `s` on one line (a comment line of a data file or script): line breaks become spaces.
inline std::string one_line(std::string s) {
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    return s;
}

/// A POSIX shell single-quoted word.
inline std::string shell_quoted(std::string_view s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
    return out;
}


}  // namespace detail::plot

/// Writes `p` as a gnuplot data file: "# " comment lines (name, title, axes; before each block
/// "# series K: <title>", or "# series K" when untitled), then one "x y" line per point of each
/// series, the blocks separated by two blank lines so that the script can pick them with `index K`.
inline void write_plot_data(std::ostream& os, const plot_data& p) {
    using detail::plot::number_text;
    using detail::plot::one_line;
    os << "# comet plot " << p.name << ": " << one_line(p.title) << '\n';
    os << "# x: " << one_line(p.x_label) << '\n';
    os << "# y: " << one_line(p.y_label) << '\n';
    for (std::size_t k = 0; k < p.series.size(); ++k) {
        if (k > 0) os << "\n\n";
        os << "# series " << k;
        if (!p.series[k].title.empty()) os << ": " << one_line(p.series[k].title);
        os << '\n';
        for (const auto& [x, y] : p.series[k].points)
            os << number_text(x, true) << ' ' << number_text(y, false) << '\n';
    }
}

/// Writes the gnuplot script that draws `p` from `<name>.dat` into `<name>.png`, both in the
/// folder the script is run in (pngcairo when this gnuplot has it, png otherwise).
inline void write_plot_script(std::ostream& os, const plot_data& p, const plot_options& opt = {}) {
    using detail::plot::gp_string;
    std::string size = std::to_string(opt.width);  // to_string: no locale can group the digits
    size += ',';
    size += std::to_string(opt.height);
    os << "# comet plot " << p.name << ": " << detail::plot::one_line(p.title) << '\n';
    os << "# Run in this folder: gnuplot " << p.name << ".gp (writes " << p.name << ".png from " << p.name << ".dat)\n";
    os << "set encoding utf8\n";
    os << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n";
    os << "    set terminal pngcairo noenhanced size " << size << '\n';
    os << "} else {\n";
    os << "    set terminal png noenhanced size " << size << '\n';
    os << "}\n";
    os << "set output " << gp_string(p.name + ".png") << '\n';
    os << "set title " << gp_string(p.title) << '\n';
    os << "set xlabel " << gp_string(p.x_label) << '\n';
    os << "set ylabel " << gp_string(p.y_label) << '\n';
    if (p.log_x) os << "set logscale x " << p.log_base_x << '\n';
    if (p.log_y) os << "set logscale y " << p.log_base_y << '\n';
    os << "set grid\n";
    os << "set key top left\n";
    os << "plot";
    for (std::size_t k = 0; k < p.series.size(); ++k) {
        if (k == 0)
            os << ' ' << gp_string(p.name + ".dat");
        else
            os << ", \\\n     ''";  // '' is gnuplot's "the same file"
        os << " index " << k << " using 1:2 with linespoints ";
        if (p.keyed)
            os << "title " << gp_string(p.series[k].title);
        else
            os << "notitle";
    }
    os << '\n';
}

namespace detail::plot {

/// The gnuplot program to run, if it can be found: `program` itself when it holds a '/', else
/// the first executable of that name on the PATH.
inline std::optional<std::filesystem::path> find_program(const std::string& program) {
#ifdef COMET_PLOT_POSIX
    const auto runnable = [](const std::filesystem::path& p) {
        std::error_code ec;
        return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
    };
    if (program.empty()) return std::nullopt;
    if (program.find('/') != std::string::npos) {
        if (runnable(program)) return std::filesystem::path(program);
        return std::nullopt;
    }
    const char* path = std::getenv("PATH");
    if (!path) return std::nullopt;
    std::string_view rest(path);
    while (true) {
        const auto colon = rest.find(':');
        const std::string_view dir = rest.substr(0, colon);
        const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : std::string(dir)) / program;
        if (runnable(candidate)) return candidate;
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
    }
#else
    (void)program;
#endif
    return std::nullopt;
}

/// Runs `gnuplot <name>.gp` in `dir`; returns the reason it failed, or nothing.
inline std::optional<std::string> render(const std::filesystem::path& gnuplot, const std::filesystem::path& dir,
                                         const std::string& name) {
#ifdef COMET_PLOT_POSIX
    const std::filesystem::path png = dir / (name + ".png");
    std::error_code ec;
    std::filesystem::remove(png, ec);  // a stale image must not pass for a new one
    const std::string command = concat("cd ", shell_quoted(dir.string()), " && ", shell_quoted(gnuplot.string()), ' ',
                                       shell_quoted(name + ".gp"), " 2>&1");
    std::FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return std::string("could not start gnuplot");
    std::string output;
    char buf[512];
    while (std::fgets(buf, sizeof buf, pipe)) output += buf;
    const int status = ::pclose(pipe);
    // The first line gnuplot wrote that says something, for the reason.
    std::string said;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        const auto first = line.find_first_not_of(" \t^");
        if (first == std::string::npos) continue;
        said = line.substr(first);
        if (line.find("rror") != std::string::npos || said.find("unknown") != std::string::npos) break;
    }
    if (status == -1) return std::string("could not run gnuplot");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string why = WIFEXITED(status) ? concat("gnuplot exited with status ", WEXITSTATUS(status))
                                            : std::string("gnuplot was killed");
        if (!said.empty()) why += concat(": ", said);
        return why;
    }
    if (!std::filesystem::is_regular_file(png, ec) || std::filesystem::file_size(png, ec) == 0)
        return said.empty() ? std::string("gnuplot wrote no image") : concat("gnuplot wrote no image: ", said);
    return std::nullopt;
#else
    (void)gnuplot;
    (void)dir;
    (void)name;
    return std::string("rendering needs a POSIX shell");
#endif
}

}  // namespace detail::plot

/// True when `program` (a name looked up on the PATH, or a path) is an executable file: whether
/// `write_plots` can render with it.
/// @code  if (!comet::gnuplot_available()) std::cerr << "no gnuplot: scripts only\n";  @endcode
inline bool gnuplot_available(const std::string& program = "gnuplot") {
    return detail::plot::find_program(program).has_value();
}

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
inline plot_outcome write_plots(const std::filesystem::path& dir, const std::vector<plot_description>& descriptions,
                                const result_set& results, const plot_options& opt = {}) {
    std::vector<plot_data> plots;
    plot_outcome out;
    for (const auto& d : descriptions) {
        auto some = collect_plots(d, results);
        if (some.empty()) out.without_data.push_back(d.name);
        for (auto& p : some) {
            for (const auto& q : plots)
                if (q.name == p.name) raise<invalid_argument>(-1, "plot: two plots are named '", p.name, "'");
            plots.push_back(std::move(p));
        }
    }
    if (plots.empty()) return out;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) raise<error>(-1, "plot: cannot create the folder ", dir.string(), ": ", ec.message());
    const auto write = [](const std::filesystem::path& path, const auto& body) {
        std::ofstream f(path);
        if (f) body(f);
        if (!f) raise<error>(-1, "plot: cannot write ", path.string());
    };
    for (const auto& p : plots) {
        write(dir / (p.name + ".dat"), [&](std::ostream& os) { write_plot_data(os, p); });
        write(dir / (p.name + ".gp"), [&](std::ostream& os) { write_plot_script(os, p, opt); });
        out.written.push_back(p.name);
    }
    if (!opt.render) return out;
    const auto gnuplot = detail::plot::find_program(opt.gnuplot);
    for (const auto& p : plots) {
        if (!gnuplot) {
            out.not_rendered.push_back({p.name, detail::concat("gnuplot (", opt.gnuplot, ") is not on the PATH")});
            continue;
        }
        if (auto why = detail::plot::render(*gnuplot, dir, p.name))
            out.not_rendered.push_back({p.name, std::move(*why)});
        else
            out.rendered.push_back(p.name);
    }
    return out;
}


}  // namespace comet

#undef COMET_PLOT_POSIX
