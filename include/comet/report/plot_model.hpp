// comet/report/plot_model.hpp — plots described generically, and the points they take from a
// result_set (the thesis' port wrote "a shell script to extract and organize all relevant
// output data into a form acceptable to gnuplot", 4.3).
//
// A description names the records (kernels, plus filters on their params), the x parameter,
// what y is (a statistic of the samples in µs, bandwidth in MB/s, or any function of a
// record, with the interval the statistic has where it has one), the parameter that splits the
// records into series (hops, nodes, load, mode, ... or the kernel name), titles, labels and log
// axes. A description whose records are absent produces no plot: any list of descriptions can
// be handed to any run, whatever it measured.
//
// A series is a function of x: records that would give one series two points at the same x
// differ in a parameter the description does not name (two pair sets, cache modes or buffers
// measured in one run), and are split into series of their own by that parameter, drawn in the
// first one's colour with another dash type (`plot_series::line`, `dash`); parameters listed in
// `experiments` split them into plots of their own instead. On a log x axis, a point at x = 0
// (a 0-byte message) is kept and drawn apart from the scale, at `plot_data::zero_x`.
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
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace comet {

/// An interval around a plotted value, in the value's unit: drawn as an error bar.
struct plot_interval {
    double low = 0.0;
    double high = 0.0;

    friend bool operator==(const plot_interval&, const plot_interval&) = default;
};

/// What a plot shows on its y axis: a label and the value derived from one record (nothing to
/// leave the record out), and optionally the interval that value has (drawn as error bars).
struct plot_value {
    std::string label;
    std::function<std::optional<double>(const record&)> of;
    /// The interval of the value `of` gives, in its unit (nothing where the samples give none);
    /// an empty function: no error bars.
    std::function<std::optional<plot_interval>(const record&)> interval = {};
    /// What the error bars are, as the plot says it ("the median's 95% interval").
    std::string interval_label = {};
    /// Why the value `of` gives for a record is not to be read at face value (the statistic it
    /// is, or the value, flagged: `statistic_flag`), empty when it may be; an empty function:
    /// never flagged. A flagged point is drawn circled, and the plot says how many are.
    std::function<std::string(const record&)> flag = {};

    /// The median sample in µs: "median time [µs]", with the median's distribution-free 95%
    /// confidence interval (stats/summary.hpp; none below 6 valid samples) as its error bars.
    COMET_DECL static plot_value median_time_us(std::string label = "median time [µs]");
    /// The statistic `s` of the samples in µs: what a kernel's descriptor plots its figure with
    /// (the median with its interval, as `median_time_us`).
    COMET_DECL static plot_value time_us(statistic s, std::string label = {});
    /// The least sample in µs (the thesis' barrier figure 5.6 plots "the minimum time").
    COMET_DECL static plot_value min_time_us(std::string label = "least time [µs]");
    /// `size` bytes over the median time, in MB/s (10^6 bytes per second, as the thesis'
    /// "2.5 MB/s"), with the bandwidths at the ends of the median's interval as error bars;
    /// records without a positive size or time are left out.
    COMET_DECL static plot_value bandwidth_mbs(std::string label = "bandwidth [MB/s]");
    /// The record's value `name` (record::values) times `scale`, flagged where that value, or
    /// the point as a whole, is.
    COMET_DECL static plot_value value(std::string name, std::string label, double scale = 1.0);
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
    /// Parameters that set an experiment apart (COMMTEST's pair set, cache mode, prepost): those
    /// holding more than one value in the records get a plot per combination, named and titled
    /// as `per` is, after it. Any other parameter the description does not name splits series.
    std::vector<std::string> experiments = {};
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

/// One point of a series: x, y and, where y has one, its interval; whether y is flagged
/// (`plot_value::flag`).
struct plot_point {
    double x = 0.0;
    double y = 0.0;
    std::optional<plot_interval> interval = {};
    bool flagged = false;

    friend bool operator==(const plot_point&, const plot_point&) = default;
};

/// One series of a plot: its title and its points, sorted by x.
struct plot_series {
    std::string title;
    std::vector<plot_point> points;
    /// The series of the description this one belongs to (its colour and point type), counted
    /// from 0 in the plot.
    std::size_t line = 0;
    /// Which of the records split off that series this is (0: the first; others dashed).
    std::size_t dash = 0;

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
    bool keyed = false;  ///< series titles shown (the description had a `series`, or series were split)
    std::vector<plot_series> series;
    /// Where the points at x = 0 are drawn on a log x axis: the smallest positive x divided by
    /// the log base, or by 4 when the base is smaller (2 for sizes from 8 bytes on base 2, 100
    /// for vector lengths from 1000 on base 10), apart from the line; empty when there are none.
    std::optional<double> zero_x = {};
    /// What the points' intervals are (`plot_value::interval_label`); empty when no point has one.
    std::string interval_label = {};
    /// The points whose value is flagged (`plot_point::flagged`), and the records of the plot
    /// left out because no analysis may read them (flagged as a whole, or without a valid
    /// sample: `usable`): the plot says both beside its x label.
    std::size_t flagged = 0;
    std::size_t left_out = 0;
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

/// The median's confidence interval of a usable record, in seconds (stats/summary.hpp).
COMET_DECL std::optional<plot_interval> median_interval_s(const record& r);

/// "the median's 95% confidence interval", at `median_ci_level`.
COMET_DECL std::string median_interval_label();

/// The values of `names` in a record (nothing where it has none).
using plot_key = std::vector<std::optional<param_value>>;

COMET_DECL plot_key key_of(const record& r, const std::vector<std::string>& names);

/// The records grouped by their values of `names`, the groups in the order of those values
/// (the first name first; numbers ascending, words first-seen, none last).
COMET_DECL std::vector<std::pair<plot_key, std::vector<const record*>>> group_by(const std::vector<const record*>& recs,
                                                                              const std::vector<std::string>& names);

/// "<name> = <value>" for each value present, joined by ", ".
COMET_DECL std::string key_text(const std::vector<std::string>& names, const plot_key& key);

}  // namespace detail::plot

/// The plots `d` describes for `results`: one, or one per value of `d.per` and combination of
/// the `d.experiments` that vary, each with its series (in the order of their values: numbers
/// ascending, words first-seen; a series split by a parameter the description does not name
/// follows the one it came from, titled "<title>, <param> = <value>") and points (sorted by x;
/// a record whose x is not a number, or whose y is absent or not finite, or whose x is negative
/// or y not positive on a log axis, is left out; x = 0 on a log axis is kept when the plot has
/// a positive x, see `plot_data::zero_x`). Plots without points are not returned.
/// @throws invalid_argument for an invalid description (bad name, no kernel, no x, no y function).
COMET_DECL std::vector<plot_data> collect_plots(const plot_description& d, const result_set& results);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/plot_model.ipp>
#endif
