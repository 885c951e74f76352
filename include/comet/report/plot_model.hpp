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

#include <comet/core/compiled.hpp>

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
    COMET_DECL static plot_value median_time_us(std::string label = "median time [µs]");
    /// The statistic `s` of the samples in µs: what a kernel's descriptor plots its figure with.
    COMET_DECL static plot_value time_us(statistic s, std::string label = {});
    /// The least sample in µs (the thesis' barrier figure 5.6 plots "the minimum time").
    COMET_DECL static plot_value min_time_us(std::string label = "least time [µs]");
    /// `size` bytes over the median time, in MB/s (10^6 bytes per second, as the thesis'
    /// "2.5 MB/s"); records without a positive size or time are left out.
    COMET_DECL static plot_value bandwidth_mbs(std::string label = "bandwidth [MB/s]");
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
    /// The numeric parameter on the x axis (or the value, with `x_is_value`).
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
    /// `x` names one of the records' values, not a parameter: a measured quantity on the x
    /// axis (the NIST figure 6's retransmissions).
    bool x_is_value = false;
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

COMET_DECL bool valid_name(std::string_view s);

/// A value as it reads in a title or file name: integers plain, reals shortest, words as they are.
COMET_DECL std::string text(const param_value& v);

COMET_DECL std::optional<double> number(const param_value& v);

COMET_DECL bool same(const param_value& a, const param_value& b);

/// The value of `name` in `r`: a param, else one of its values, or the kernel's name for "kernel".
COMET_DECL std::optional<param_value> lookup(const record& r, const std::string& name);

/// Orders distinct values: numbers ascending, then words in first-seen order.
COMET_DECL void sort_values(std::vector<param_value>& values);

COMET_DECL void add_distinct(std::vector<param_value>& values, const param_value& v);

COMET_DECL std::string replace_braces(std::string pattern, const std::string& value);

COMET_DECL std::string file_part(std::string s);

COMET_DECL void check_description(const plot_description& d);

}  // namespace detail::plot

/// The plots `d` describes for `results`: one, or one per value of `d.per`, each with its
/// series (in the order of their values: numbers ascending, words first-seen) and points
/// (sorted by x; a record whose x is not a number, or whose y is absent or not finite, or not
/// positive on a log axis, is left out). Plots without points are not returned.
/// @throws invalid_argument for an invalid description (bad name, no kernel, no x, no y function).
COMET_DECL std::vector<plot_data> collect_plots(const plot_description& d, const result_set& results);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/plot_model.ipp>
#endif
