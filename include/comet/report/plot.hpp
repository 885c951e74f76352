// comet/report/plot.hpp — plots in the manner of the CoMet thesis' figures 5.1–5.16 (the thesis'
// port wrote "a shell script to extract and organize all relevant output data into a form
// acceptable to gnuplot", 4.3): a generic description of a plot, a writer that turns a list of
// them and a result_set into one gnuplot data file and one gnuplot script per plot and renders
// them to PNG when gnuplot is installed, and the thesis' figures as descriptions.
//
// A description names the records (kernels, plus filters on their params), the x parameter,
// what y is (median time in µs, least time, bandwidth in MB/s, or any function of a record),
// the parameter that splits the records into series (hops, nodes, load, mode, ... or the kernel
// name), titles, labels and log axes. A description whose records are absent produces no plot:
// the thesis' list can be handed to any run, whatever kernels it measured.
//
// Files, for a plot named N, in the folder given:
//   N.dat  gnuplot data: '#' comment lines naming the plot and the series, then one block per
//          series (x y rows, sorted by x), blocks separated by two blank lines (gnuplot's `index`)
//   N.gp   a script that, run in the folder (`gnuplot N.gp`), writes N.png with the pngcairo
//          terminal when this gnuplot has it and the png terminal otherwise
//   N.png  when gnuplot is on the PATH and rendering succeeds
// Rendering failures are reported in the outcome, never thrown: a missing gnuplot must not cost
// the measurements. Deliberately not here: SVG or other terminals (edit the script), and any
// statistics beyond what a y function derives.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

#if __has_include(<unistd.h>) && __has_include(<sys/wait.h>)
#include <sys/wait.h>
#include <unistd.h>
#define COMET_PLOT_POSIX 1
#endif

namespace comet {

/// What a plot shows on its y axis: a label and the value derived from one record (nothing to
/// leave the record out).
struct plot_value {
    std::string label;
    std::function<std::optional<double>(const record&)> of;

    /// The median sample in µs: "median time [µs]".
    static plot_value median_time_us(std::string label = "median time [µs]") {
        return {std::move(label), [](const record& r) -> std::optional<double> {
                    if (r.samples.empty()) return std::nullopt;
                    return summarize(r.samples).median * 1e6;
                }};
    }
    /// The least sample in µs (the thesis' barrier figure 5.6 plots "the minimum time").
    static plot_value min_time_us(std::string label = "least time [µs]") {
        return {std::move(label), [](const record& r) -> std::optional<double> {
                    if (r.samples.empty()) return std::nullopt;
                    return summarize(r.samples).min * 1e6;
                }};
    }
    /// `size` bytes over the median time, in MB/s (10^6 bytes per second, as the thesis'
    /// "2.5 MB/s"); records without a positive size or time are left out.
    static plot_value bandwidth_mbs(std::string label = "bandwidth [MB/s]") {
        return {std::move(label), [](const record& r) -> std::optional<double> {
                    const auto size = r.params.number("size");
                    if (!size || *size <= 0 || r.samples.empty()) return std::nullopt;
                    const double median = summarize(r.samples).median;
                    if (!(median > 0)) return std::nullopt;
                    return *size / median / 1e6;
                }};
    }
};

/// One plot (or, with `per`, one plot per value of a parameter), described generically.
/// @code
///   comet::plot_description echo_time{.name = "echo_time", .kernels = {"echo"}, .x = "size",
///                                      .series = "hops",
///                                      .title = "echo", .x_label = "message size [bytes]"};
/// @endcode
struct plot_description {
    /// File stem: letters, digits, '_', '-', '.' (not first).
    std::string name;
    /// The kernels whose records are drawn.
    std::vector<std::string> kernels;
    /// The numeric parameter on the x axis.
    std::string x;
    /// What y is.
    plot_value y = plot_value::median_time_us();
    /// The parameter whose values split the records into series; "kernel" means the kernel's
    /// name; empty: one series.
    std::string series = {};
    /// A series' title, "{}" standing for its value; empty: "<series> = {}" ("{}" for "kernel").
    std::string series_title = {};
    /// Keep only records whose params hold these values (numbers compare by value: 1 == 1.0).
    std::vector<std::pair<std::string, param_value>> where = {};
    /// Keep only records with the largest value of this parameter present (e.g. "nodes": a
    /// figure "on 16 nodes" from a run over 2, 4, 8 and 16).
    std::string largest = {};
    /// One plot per value of this parameter, named `<name>_<per>_<value>` and titled
    /// "<title> (<per> = <value>)" — e.g. the overlap figures, one per message size.
    std::string per = {};
    std::string title = {};
    /// Axis labels; empty: the x parameter's name, and `y.label`.
    std::string x_label = {};
    std::string y_label = {};
    bool log_x = false;
    bool log_y = false;
    /// The base of the log axes' tick marks (2 for sizes and node counts, 10 for times).
    int log_base_x = 10;
    int log_base_y = 10;
};

/// One series of a plot: its title and its (x, y) points, sorted by x.
struct plot_series {
    std::string title;
    std::vector<std::pair<double, double>> points;

    friend bool operator==(const plot_series&, const plot_series&) = default;
};

/// A plot ready to write: the resolved name, title and labels, and its series.
struct plot_data {
    std::string name;
    std::string title;
    std::string x_label;
    std::string y_label;
    bool log_x = false;
    bool log_y = false;
    int log_base_x = 10;
    int log_base_y = 10;
    bool keyed = false;  ///< series titles shown (the description had a `series`)
    std::vector<plot_series> series;
};

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

inline bool valid_name(std::string_view s) {
    if (s.empty() || s.front() == '.') return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
               c == '.';
    });
}

/// A value as it reads in a title or file name: integers plain, reals shortest, words as they are.
inline std::string text(const param_value& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    char buf[64];
    const auto res = std::holds_alternative<std::int64_t>(v)
                         ? std::to_chars(buf, buf + sizeof buf, std::get<std::int64_t>(v))
                         : std::to_chars(buf, buf + sizeof buf, std::get<double>(v));
    return std::string(buf, res.ptr);
}

inline std::optional<double> number(const param_value& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    return std::nullopt;
}

inline bool same(const param_value& a, const param_value& b) {
    const auto x = number(a), y = number(b);
    if (x && y) return *x == *y;
    return a == b;
}

/// The value of `name` in `r`: a param, or the kernel's name for "kernel".
inline std::optional<param_value> lookup(const record& r, const std::string& name) {
    if (name == "kernel") return param_value(r.kernel);
    if (const auto* v = r.params.find(name)) return *v;
    return std::nullopt;
}

/// Orders distinct values: numbers ascending, then words in first-seen order.
inline void sort_values(std::vector<param_value>& values) {
    std::stable_sort(values.begin(), values.end(), [](const param_value& a, const param_value& b) {
        const auto x = number(a), y = number(b);
        if (x && y) return *x < *y;
        return x.has_value() && !y;
    });
}

inline void add_distinct(std::vector<param_value>& values, const param_value& v) {
    for (const auto& w : values)
        if (same(w, v)) return;
    values.push_back(v);
}

inline std::string replace_braces(std::string pattern, const std::string& value) {
    const auto at = pattern.find("{}");
    if (at != std::string::npos) pattern.replace(at, 2, value);
    return pattern;
}

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

inline std::string file_part(std::string s) {
    for (char& c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
            c = '_';
    return s;
}

inline void check_description(const plot_description& d) {
    if (!valid_name(d.name))
        raise<invalid_argument>(-1, "plot: name '", d.name,
                                "' is not a file stem of letters, digits, '_', '-' and '.'");
    if (d.kernels.empty()) raise<invalid_argument>(-1, "plot ", d.name, ": no kernel named");
    if (d.x.empty()) raise<invalid_argument>(-1, "plot ", d.name, ": no x parameter named");
    if (!d.y.of) raise<invalid_argument>(-1, "plot ", d.name, ": y has no value function");
    for (int base : {d.log_base_x, d.log_base_y})
        if (base < 2) raise<invalid_argument>(-1, "plot ", d.name, ": log base ", base, " is not at least 2");
}

}  // namespace detail::plot

/// The plots `d` describes for `results`: one, or one per value of `d.per`, each with its
/// series (in the order of their values: numbers ascending, words first-seen) and points
/// (sorted by x; a record whose x is not a number, or whose y is absent or not finite, or not
/// positive on a log axis, is left out). Plots without points are not returned.
/// @throws invalid_argument for an invalid description (bad name, no kernel, no x, no y function).
inline std::vector<plot_data> collect_plots(const plot_description& d, const result_set& results) {
    using namespace detail::plot;
    check_description(d);
    std::vector<const record*> recs;
    for (const auto& r : results.records) {
        if (std::find(d.kernels.begin(), d.kernels.end(), r.kernel) == d.kernels.end()) continue;
        bool keep = true;
        for (const auto& [name, value] : d.where) {
            const auto v = lookup(r, name);
            keep = keep && v && same(*v, value);
        }
        if (keep) recs.push_back(&r);
    }
    if (!d.largest.empty()) {
        std::optional<double> top;
        for (const record* r : recs)
            if (const auto v = r->params.number(d.largest); v && (!top || *v > *top)) top = v;
        std::erase_if(recs, [&](const record* r) {
            const auto v = r->params.number(d.largest);
            return !v || !top || *v != *top;
        });
    }
    std::vector<param_value> pages;  // the values of `per`, or one empty page
    if (!d.per.empty()) {
        for (const record* r : recs)
            if (const auto v = lookup(*r, d.per)) add_distinct(pages, *v);
        sort_values(pages);
    }
    std::vector<plot_data> out;
    const std::size_t page_count = d.per.empty() ? 1 : pages.size();
    for (std::size_t page = 0; page < page_count; ++page) {
        plot_data p;
        p.name = d.name;
        p.title = d.title.empty() ? d.name : d.title;
        if (!d.per.empty()) {
            // (concat, not "literal" + string: GCC 12 warns falsely about the latter, PR 105329)
            p.name += detail::concat('_', file_part(d.per), '_', file_part(text(pages[page])));
            p.title += detail::concat(" (", d.per, " = ", text(pages[page]), ')');
        }
        p.x_label = d.x_label.empty() ? d.x : d.x_label;
        p.y_label = d.y_label.empty() ? d.y.label : d.y_label;
        p.log_x = d.log_x;
        p.log_y = d.log_y;
        p.log_base_x = d.log_base_x;
        p.log_base_y = d.log_base_y;
        p.keyed = !d.series.empty();
        std::vector<const record*> mine;
        for (const record* r : recs) {
            if (d.per.empty()) {
                mine.push_back(r);
                continue;
            }
            const auto v = lookup(*r, d.per);
            if (v && same(*v, pages[page])) mine.push_back(r);
        }
        std::vector<param_value> keys;
        if (!d.series.empty()) {
            for (const record* r : mine)
                if (const auto v = lookup(*r, d.series)) add_distinct(keys, *v);
            sort_values(keys);
        }
        const std::size_t series_count = d.series.empty() ? 1 : keys.size();
        for (std::size_t k = 0; k < series_count; ++k) {
            plot_series s;
            if (!d.series.empty()) {
                const std::string pattern = !d.series_title.empty() ? d.series_title
                                            : d.series == "kernel"  ? std::string("{}")
                                                                    : detail::concat(d.series, " = {}");
                s.title = replace_braces(pattern, text(keys[k]));
            }
            for (const record* r : mine) {
                if (!d.series.empty()) {
                    const auto v = lookup(*r, d.series);
                    if (!v || !same(*v, keys[k])) continue;
                }
                const auto xv = r->params.number(d.x);
                const auto yv = d.y.of(*r);
                if (!xv || !yv || !std::isfinite(*xv) || !std::isfinite(*yv)) continue;
                if ((d.log_x && *xv <= 0) || (d.log_y && *yv <= 0)) continue;
                s.points.emplace_back(*xv, *yv);
            }
            std::stable_sort(s.points.begin(), s.points.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
            if (!s.points.empty()) p.series.push_back(std::move(s));
        }
        if (!p.series.empty()) out.push_back(std::move(p));
    }
    return out;
}

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

/// The CoMet thesis' figures of chapter 5 as plot descriptions, for the kernels that record them
/// (SPEC 9's kernel and parameter names). Kernels a run did not measure give no plot. Where the
/// thesis shows one machine size ("on 16 nodes"), the plot keeps the largest `nodes` measured.
///   echo_time          5.1   echo one-way time vs message size, a series per hop distance
///   echo_bandwidth     5.2   echo bandwidth vs message size, per hop distance
///   broadcast_time     5.3   broadcast time vs message size, per node count
///   pairwise_time      5.4   pairwise exchange time vs message size, per hop distance
///   contention_time    5.5   echo under contention vs message size, per load
///   barrier            5.6   least barrier time vs nodes (log 2 axis)
///   global_sum         5.7   global sum time vs nodes (log 2 axis), per vector length
///   overlap_size_<S>   5.9–5.12  overlap time vs vector length, sync and async, one plot per message size
///   update_guard       5.13  update_guard time vs matrix dimension
///   shift_matrix       5.14  shift_matrix time vs matrix dimension, north and east
///   row_col_broadcast  5.15  row_broadcast and col_broadcast time vs matrix dimension
///   transpose          5.16  transpose time vs matrix dimension
/// @code
///   comet::write_plots(dir / "plots", comet::thesis_plots(), results);
/// @endcode
inline std::vector<plot_description> thesis_plots() {
    const std::string size = "message size [bytes]", dim = "matrix dimension (block side per node)", nodes = "nodes";
    std::vector<plot_description> p;
    p.push_back({.name = "echo_time",
                 .kernels = {"echo"},
                 .x = "size",
                 .y = plot_value::median_time_us("one-way time [µs]"),
                 .series = "hops",
                 .largest = "nodes",
                 .title = "echo: one-way time vs message size (thesis figure 5.1)",
                 .x_label = size});
    p.push_back({.name = "echo_bandwidth",
                 .kernels = {"echo"},
                 .x = "size",
                 .y = plot_value::bandwidth_mbs(),
                 .series = "hops",
                 .largest = "nodes",
                 .title = "echo: bandwidth vs message size (thesis figure 5.2)",
                 .x_label = size});
    p.push_back({.name = "broadcast_time",
                 .kernels = {"broadcast"},
                 .x = "size",
                 .series = "nodes",
                 .series_title = "{} nodes",
                 .title = "broadcast: time vs message size (thesis figure 5.3)",
                 .x_label = size});
    p.push_back({.name = "pairwise_time",
                 .kernels = {"pairwise"},
                 .x = "size",
                 .y = plot_value::median_time_us("exchange time [µs]"),
                 .series = "hops",
                 .largest = "nodes",
                 .title = "pairwise exchange: time vs message size (thesis figure 5.4)",
                 .x_label = size});
    p.push_back({.name = "contention_time",
                 .kernels = {"contention"},
                 .x = "size",
                 .y = plot_value::median_time_us("one-way time [µs]"),
                 .series = "load",
                 .largest = "nodes",
                 .title = "echo with contention: time vs message size (thesis figure 5.5)",
                 .x_label = size});
    p.push_back({.name = "barrier",
                 .kernels = {"barrier"},
                 .x = "nodes",
                 .y = plot_value::min_time_us(),
                 .title = "barrier: least time vs number of nodes (thesis figure 5.6)",
                 .x_label = nodes,
                 .log_x = true,
                 .log_base_x = 2});
    p.push_back({.name = "global_sum",
                 .kernels = {"global_sum"},
                 .x = "nodes",
                 .series = "vector_length",
                 .title = "global sum: time vs number of nodes (thesis figure 5.7)",
                 .x_label = nodes,
                 .log_x = true,
                 .log_base_x = 2});
    p.push_back({.name = "overlap",
                 .kernels = {"overlap"},
                 .x = "vector_length",
                 .series = "mode",
                 .series_title = "{}",
                 .largest = "nodes",
                 .per = "size",
                 .title = "overlap of computation and communication (thesis figures 5.9-5.12)",
                 .x_label = "DAXPY vector length [doubles]"});
    p.push_back({.name = "update_guard",
                 .kernels = {"update_guard"},
                 .x = "matrix_dim",
                 .largest = "nodes",
                 .title = "update_guard: time vs matrix dimension (thesis figure 5.13)",
                 .x_label = dim});
    p.push_back({.name = "shift_matrix",
                 .kernels = {"shift_matrix"},
                 .x = "matrix_dim",
                 .series = "direction",
                 .series_title = "{}",
                 .largest = "nodes",
                 .title = "shift_matrix: time vs matrix dimension (thesis figure 5.14)",
                 .x_label = dim});
    p.push_back({.name = "row_col_broadcast",
                 .kernels = {"row_broadcast", "col_broadcast"},
                 .x = "matrix_dim",
                 .series = "kernel",
                 .largest = "nodes",
                 .title = "row and column broadcast: time vs matrix dimension (thesis figure 5.15)",
                 .x_label = dim});
    p.push_back({.name = "transpose",
                 .kernels = {"transpose"},
                 .x = "matrix_dim",
                 .largest = "nodes",
                 .title = "transpose: time vs matrix dimension (thesis figure 5.16)",
                 .x_label = dim});
    return p;
}

}  // namespace comet

#undef COMET_PLOT_POSIX
