// comet/report/plot_model.hpp — plots described generically, and the points they take from a
// result_set (the thesis' port wrote "a shell script to extract and organize all relevant
// output data into a form acceptable to gnuplot", 4.3).
//
// A description names the records (kernels, plus filters on their params), the x parameter,
// what y is (a statistic of the samples in µs, bandwidth in MB/s, or any function of a
// record), the parameter that splits the records into series (hops, nodes, load, mode, ... or
// the kernel name), titles, labels and log axes. A description whose records are absent
// produces no plot: any list of descriptions can be handed to any run, whatever it measured.
//
// Just the model: writing the files and running gnuplot is gnuplot.hpp; the thesis' figures
// are thesis_plots.hpp; each kernel's descriptor (suite/) says which of them are its own.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace comet {

/// What a plot shows on its y axis: a label and the value derived from one record (nothing to
/// leave the record out).
struct plot_value {
    std::string label;
    std::function<std::optional<double>(const record&)> of;

    /// The median sample in µs: "median time [µs]".
    static plot_value median_time_us(std::string label = "median time [µs]") {
        return {std::move(label), [](const record& r) -> std::optional<double> {
                    if (!usable(r)) return std::nullopt;
                    return summarize(r).median * 1e6;
                }};
    }
    /// The statistic `s` of the samples in µs: what a kernel's descriptor plots its figure with.
    static plot_value time_us(statistic s, std::string label = {}) {
        if (label.empty()) label = detail::concat(s == statistic::min ? "least" : to_string(s), " time [µs]");
        return {std::move(label), [s](const record& r) -> std::optional<double> {
                    if (!usable(r)) return std::nullopt;
                    return statistic_of(r, s) * 1e6;
                }};
    }
    /// The least sample in µs (the thesis' barrier figure 5.6 plots "the minimum time").
    static plot_value min_time_us(std::string label = "least time [µs]") {
        return {std::move(label), [](const record& r) -> std::optional<double> {
                    if (!usable(r)) return std::nullopt;
                    return summarize(r).min * 1e6;
                }};
    }
    /// `size` bytes over the median time, in MB/s (10^6 bytes per second, as the thesis'
    /// "2.5 MB/s"); records without a positive size or time are left out.
    static plot_value bandwidth_mbs(std::string label = "bandwidth [MB/s]") {
        return {std::move(label), [](const record& r) -> std::optional<double> {
                    const auto size = r.params.number("size");
                    if (!size || *size <= 0 || !usable(r)) return std::nullopt;
                    const double median = summarize(r).median;
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
    /// Instead of `series`: several values of the same records, a series each, titled by its
    /// label (`y` then only names the axis) — the NIST figures' service states against D.
    std::vector<plot_value> curves = {};
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

/// The value of `name` in `r`: a param, else one of its values, or the kernel's name for "kernel".
inline std::optional<param_value> lookup(const record& r, const std::string& name) {
    if (name == "kernel") return param_value(r.kernel);
    if (const auto* v = r.params.find(name)) return *v;
    if (const auto* v = r.values.find(name)) return *v;
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
    if (!d.y.of && d.curves.empty()) raise<invalid_argument>(-1, "plot ", d.name, ": y has no value function");
    if (!d.curves.empty() && !d.series.empty())
        raise<invalid_argument>(-1, "plot ", d.name, ": curves and series '", d.series, "' both split the points");
    for (const auto& c : d.curves)
        if (!c.of) raise<invalid_argument>(-1, "plot ", d.name, ": curve '", c.label, "' has no value function");
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
        p.keyed = !d.series.empty() || !d.curves.empty();
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
        const std::size_t series_count = !d.curves.empty() ? d.curves.size() : d.series.empty() ? 1 : keys.size();
        for (std::size_t k = 0; k < series_count; ++k) {
            plot_series s;
            const plot_value& y = d.curves.empty() ? d.y : d.curves[k];
            if (!d.curves.empty()) {
                s.title = y.label;
            } else if (!d.series.empty()) {
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
                const auto yv = y.of(*r);
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

}  // namespace comet
