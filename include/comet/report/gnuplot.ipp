// comet/report/gnuplot.ipp — the definitions of comet/report/gnuplot.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/gnuplot.hpp>

#if __has_include(<unistd.h>) && __has_include(<sys/wait.h>)
#include <sys/wait.h>
#include <unistd.h>
#define COMET_PLOT_POSIX 1
#endif

namespace comet {
namespace detail::plot {

COMET_DECL std::string number_text(double v, bool exact) {
    char buf[400];
    // Whole numbers in full (100000, not 1e+05): they are sizes and counts, read as such.
    const bool whole = exact && v == std::floor(v) && std::abs(v) < 1e15;
    const auto res = whole   ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
                     : exact ? std::to_chars(buf, buf + sizeof buf, v)
                             : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
    return std::string(buf, res.ptr);
}

COMET_DECL std::string gp_string(std::string_view s) {
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

COMET_DECL std::string one_line(std::string s) {
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    return s;
}

COMET_DECL std::string shell_quoted(std::string_view s) {
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
}  // namespace comet

namespace comet {

COMET_DECL void write_plot_data(std::ostream& os, const plot_data& p) {
    using detail::plot::number_text;
    using detail::plot::one_line;
    const bool intervals = !p.interval_label.empty();
    os << "# comet plot " << p.name << ": " << one_line(p.title) << '\n';
    os << "# x: " << one_line(p.x_label) << '\n';
    os << "# y: " << one_line(p.y_label) << '\n';
    if (intervals) os << "# low, high: " << one_line(p.interval_label) << " (NaN where the samples give none)\n";
    // The column only when a point is flagged: a plot of trusted figures keeps its columns.
    const bool flags = p.flagged > 0;
    if (flags) os << "# flagged: 1 where y comes from a flagged statistic (not to be read at face value; circled), else 0\n";
    if (p.zero_x)
        os << "# x = 0 is drawn at " << number_text(*p.zero_x, true)
           << " on the log axis, apart from the line (a blank line ends it)\n";
    for (std::size_t k = 0; k < p.series.size(); ++k) {
        if (k > 0) os << "\n\n";
        os << "# series " << k;
        if (!p.series[k].title.empty()) os << ": " << one_line(p.series[k].title);
        os << '\n';
        const auto& points = p.series[k].points;
        for (std::size_t i = 0; i < points.size(); ++i) {
            const plot_point& pt = points[i];
            os << number_text(pt.x, true) << ' ' << number_text(pt.y, false);
            if (intervals) {
                if (pt.interval)
                    os << ' ' << number_text(pt.interval->low, false) << ' ' << number_text(pt.interval->high, false);
                else
                    os << " NaN NaN";
            }
            if (flags) os << (pt.flagged ? " 1" : " 0");
            os << '\n';
            // One blank line: gnuplot does not join the points on either side of it.
            if (p.zero_x && pt.x == 0 && i + 1 < points.size() && points[i + 1].x != 0) os << '\n';
        }
    }
}

namespace detail::plot {

COMET_DECL std::string zero_log_ticks(double zero, double least, double most, int base) {
    const double b = base;
    const auto first = static_cast<long>(std::ceil(std::log(least) / std::log(b) - 1e-9));
    const auto last = static_cast<long>(std::floor(std::log(most) / std::log(b) + 1e-9));
    std::vector<double> at;
    if (last <= first) {  // one power or none between the ends: the ends say more
        at = {least};
        if (most > least) at.push_back(most);
    } else {
        const long step = (last - first) / 12 + 1;
        for (long e = first; e <= last; e += step) at.push_back(std::pow(b, static_cast<double>(e)));
    }
    std::string out = concat("('0' ", number_text(zero, true));
    for (double v : at) out += concat(", ", gp_string(number_text(v, true)), ' ', number_text(v, true));
    return out + ')';
}

}  // namespace detail::plot

COMET_DECL void write_plot_script(std::ostream& os, const plot_data& p, const plot_options& opt) {
    using detail::plot::gp_string;
    using detail::plot::number_text;
    std::string size = std::to_string(opt.width);  // to_string: no locale can group the digits
    size += ',';
    size += std::to_string(opt.height);
    // What the axes cannot say themselves goes on a second line of the x label.
    std::string notes;
    if (p.zero_x) notes = "0 drawn at the left, off the log scale";
    if (!p.interval_label.empty()) notes += detail::concat(notes.empty() ? "" : "; ", "bars: ", p.interval_label);
    // What is flagged or missing: a line of its own, which the width of the plot keeps whole.
    std::string validity;
    if (p.flagged > 0)
        validity = detail::concat(p.flagged, p.flagged == 1 ? " point" : " points", " circled: flagged, not to be read at face value");
    if (p.left_out > 0)
        validity += detail::concat(validity.empty() ? "" : "; ", p.left_out, " left out: flagged as a whole or without a valid sample");
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
    os << "set xlabel " << gp_string(p.x_label);
    if (!notes.empty()) os << ".\"\\n\"." << gp_string(detail::concat('(', notes, ')'));  // "\n": a line break
    if (!validity.empty()) os << ".\"\\n\"." << gp_string(detail::concat('(', validity, ')'));
    os << '\n';
    os << "set ylabel " << gp_string(p.y_label) << '\n';
    if (p.log_x) os << "set logscale x " << p.log_base_x << '\n';
    if (p.log_y) os << "set logscale y " << p.log_base_y << '\n';
    std::string x = "1";
    if (p.zero_x) {
        double least = 0, most = 0;
        for (const auto& s : p.series)
            for (const auto& pt : s.points)
                if (pt.x > 0) {
                    least = least == 0 ? pt.x : std::min(least, pt.x);
                    most = std::max(most, pt.x);
                }
        // Half a step of the scale of room on either side, so that no point sits on the border.
        const double room = std::sqrt(static_cast<double>(p.log_base_x));
        os << "set xrange [" << number_text(*p.zero_x / room, false) << ':' << number_text(most * room, false) << "]\n";
        os << "set xtics " << detail::plot::zero_log_ticks(*p.zero_x, least, most, p.log_base_x) << '\n';
        x = detail::concat("($1 == 0 ? ", number_text(*p.zero_x, true), " : $1)");
    }
    os << "set grid\n";
    // Beyond a few series (COMMTEST's 21 protocols) a key inside covers the small values.
    os << (p.series.size() > 8 ? "set key outside right top\n" : "set key top left\n");
    os << "plot";
    const std::string file = gp_string(p.name + ".dat");
    for (std::size_t k = 0; k < p.series.size(); ++k) {
        const plot_series& s = p.series[k];
        const std::string style = detail::concat(" lt ", s.line + 1, s.dash > 0 ? detail::concat(" dt ", s.dash + 1) : "");
        os << (k == 0 ? " " + file : ", \\\n     ''");  // '' is gnuplot's "the same file"
        os << " index " << k << " using " << x << ":2 with linespoints" << style << ' ';
        if (p.keyed)
            os << "title " << gp_string(s.title);
        else
            os << "notitle";
        if (std::any_of(s.points.begin(), s.points.end(), [](const plot_point& pt) { return pt.interval.has_value(); }))
            os << ", \\\n     '' index " << k << " using " << x << ":2:3:4 with yerrorbars lt " << s.line + 1
               << " pointsize 0 notitle";
    }
    // The flagged points, circled in black over their series' own: one key entry for all.
    const int flag_column = p.interval_label.empty() ? 3 : 5;
    bool keyed_flag = false;
    for (std::size_t k = 0; k < p.series.size(); ++k) {
        const auto& pts = p.series[k].points;
        if (std::none_of(pts.begin(), pts.end(), [](const plot_point& pt) { return pt.flagged; })) continue;
        os << ", \\\n     '' index " << k << " using " << x << ":($" << flag_column
           << " > 0 ? $2 : NaN) with points pt 6 ps 2.5 lc rgb 'black' "
           << (keyed_flag ? "notitle" : "title 'flagged: not to be read at face value'");
        keyed_flag = true;
    }
    os << '\n';
}

}  // namespace comet

namespace comet {
namespace detail::plot {

COMET_DECL std::optional<std::filesystem::path> find_program(const std::string& program) {
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

COMET_DECL std::optional<std::string> render(const std::filesystem::path& gnuplot, const std::filesystem::path& dir,
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
}  // namespace comet

namespace comet {

COMET_DECL bool gnuplot_available(const std::string& program) {
    return detail::plot::find_program(program).has_value();
}

COMET_DECL plot_outcome write_plots(const std::filesystem::path& dir, const std::vector<plot_description>& descriptions,
                                    const result_set& results, const plot_options& opt) {
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
