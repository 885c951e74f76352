// comet/analysis/thesis.hpp — what the CoMet thesis reports for the 16-node iPSC/860 (chapter
// 5), the figures and the shapes, and the judgement of a run against them: a figure beside the
// value measured for it, and a verdict per shape — yes, no, or not judged (the run lacks what
// it takes) — with the numbers that decide it.
//
// It reads the analyses' results (fits, bandwidth, log-P and growth curves, contention
// slow-downs, overlap gains) and, for the shapes that compare two kernels' points or two sizes
// of one kernel, the records themselves — passed as a `thesis_evidence` view, so it sits below report/,
// whose `report` bundle holds them and whose thesis.hpp writes the comparison. Each shape
// names the kernel it is about; a kernel's descriptor (suite/) carries its shapes, so a kernel
// added outside the suite brings its own.
//
// Figures are in SI units (seconds, seconds per byte, bytes per second, bytes); `unit` and
// `scale` say how to show them.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/analysis/contention.hpp>
#include <comet/analysis/overlap.hpp>
#include <comet/stats/bandwidth.hpp>
#include <comet/stats/compare.hpp>
#include <comet/stats/fit_results.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <limits>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <iomanip>
#include <locale>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet {

/// One number the thesis reports.
struct thesis_figure {
    std::string_view key;    ///< stable identifier, e.g. "echo.small.t_startup"
    std::string_view label;  ///< what it is, for people
    double value;            ///< SI units
    std::string_view unit;   ///< display unit
    double scale;            ///< display value = value * scale
    std::string_view where;  ///< the thesis' words it comes from
};

/// The thesis' echo figures (section 5.1, "Basic communication kernels"), measured between
/// neighbours of a 16-node iPSC/860 and fitted with the protocol break at 100 bytes.
inline const std::vector<thesis_figure>& thesis_figures() {
    static const std::vector<thesis_figure> figures = {
        {"echo.small.t_startup", "echo start-up, <= 100 B", 79e-6, "us", 1e6, "5.1: around 79us for messages less than 100 bytes"},
        {"echo.small.t_per_byte", "echo per byte, <= 100 B", 0.63e-6, "us/B", 1e6, "5.1: around 0.63us for messages less than 100 bytes"},
        {"echo.large.t_startup", "echo start-up, > 100 B", 156e-6, "us", 1e6, "5.1: 156us for messages greater than 100 bytes"},
        {"echo.large.t_per_byte", "echo per byte, > 100 B", 0.41e-6, "us/B", 1e6, "5.1: 0.41us for messages greater than 100 bytes"},
        {"echo.large.hop", "echo per extra hop, > 100 B", 25e-6, "us", 1e6, "5.1: the overhead h to be 25us for messages greater than 100 bytes"},
        {"echo.peak", "echo peak bandwidth, 1 hop", 2.5e6, "MB/s", 1e-6, "5.1: a peak bandwidth of 2.5 MB/s for the echo kernel between adjacent nodes"},
        {"echo.n_half", "echo size reaching 50% of peak", 486, "B", 1, "5.1: half the peak bandwidth was achieved around message sizes of 486 bytes"},
        {"echo.n_90", "echo size reaching 90% of peak", 5000, "B", 1, "5.1: ninety percent of the bandwidth was achieved around 5000 bytes"},
    };
    return figures;
}

/// What a run's analyses found, as the judgement reads it: views of the report's vectors
/// (see `evidence_of` in report/thesis.hpp), or of hand-made ones in a test.
struct thesis_evidence {
    std::span<const transfer_fit> fits = {};
    std::span<const bandwidth_figures> bandwidth = {};
    std::span<const log_p_fit> log_p = {};
    std::span<const growth_comparison> growth = {};
    std::span<const contention_slowdown> contention = {};
    std::span<const overlap_gain> overlap = {};
    std::span<const record> records = {};  ///< the run's records (each with its samples)
};

/// A thesis figure next to the value a run measured (nothing when the run lacks it, or when
/// the fit it comes from is flagged: then `flags` says why).
struct thesis_comparison {
    const thesis_figure* figure;
    std::optional<double> measured;
    /// The flags of the fit the figure comes from (see `fit_flag`; no number then), or of the
    /// bandwidth figures (`bandwidth_figures::flags`: the number is shown, marked).
    std::vector<std::string> flags;
};

namespace detail::thesis {

/// The echo fit a figure comes from ("echo.small.*", "echo.large.*"), flagged or not.
inline const transfer_fit* figure_fit(const thesis_evidence& e, std::string_view key) {
    for (std::string_view regime : {"small", "large"}) {
        const std::string prefix = "echo." + std::string(regime) + ".";
        if (key.substr(0, prefix.size()) != prefix) continue;
        for (const auto& f : e.fits)
            if (f.kernel == "echo" && f.regime == regime) return &f;
    }
    return nullptr;
}

COMET_DECL std::optional<double> measured_figure(const thesis_evidence& e, std::string_view key);

}  // namespace detail::thesis

/// Every thesis figure with the run's value for it. The echo fits should use the thesis' break
/// at 100 bytes (`analysis_options{.break_size = 100}`) to be comparable.
COMET_DECL std::vector<thesis_comparison> compare_with_thesis(const thesis_evidence& e);

struct thesis_shape;

/// Whether a run shows a shape, with the numbers that decide it; `holds` is empty when the run
/// lacks what it takes (the kernel did not run, or on one group size only): not judged.
struct shape_verdict {
    const thesis_shape* shape;
    std::optional<bool> holds;
    std::string evidence;
};

/// A shape the thesis observed (chapter 5), which a machine model must reproduce without being
/// tuned to it, and how to judge it from a run's evidence.
struct thesis_shape {
    std::string_view key;
    std::string_view kernel;  ///< the kernel whose records decide it (its descriptor carries it)
    std::string_view claim;   ///< what the thesis observed, in its words where possible
    std::string_view where;   ///< the figure
    std::function<shape_verdict(const thesis_shape&, const thesis_evidence&)> judge;
    /// The group size the thesis' figure shows, where the claim is about one (0: any, or it is
    /// about several). A run with that size is judged on it alone; a run without it on its
    /// largest, and the verdict names the size it was judged on either way.
    int nodes = 0;
};

namespace detail::thesis {

COMET_DECL std::string number(double v, int decimals);

/// Log-P growth: every curve with 3 or more group sizes grows (per_doubling > 0) and follows
/// log P better than P. Two group sizes say nothing (any line passes through two points).
COMET_DECL shape_verdict log_p(const thesis_shape& s, const thesis_evidence& e);

/// Linear or quadratic growth in the matrix dimension: every curve of the kernel has `want`.
COMET_DECL shape_verdict growth(const thesis_shape& s, const thesis_evidence& e, growth_model want);

/// Whether a slow-down was measured where the cross traffic crosses the echo's links. A
/// record says so with an `on_route` param ("yes"/"no", or 1/0); without one the traffic is
/// taken to be on route (the hypercube rule, as the thesis chose its nodes).
COMET_DECL bool on_route(const contention_slowdown& c);

/// The median over groups on route of the loaded/idle ratio at `load`.
COMET_DECL std::optional<double> contention_ratio(const thesis_evidence& e, double load);

COMET_DECL shape_verdict contention(const thesis_shape& s, const thesis_evidence& e, bool heavier);

/// Thesis 5.1: "improvements of over 33% when overlapping a pairwise transfer of large
/// messages": faster in the typical case, and the best case saves over a third — in every
/// group measured (each group size is its own machine), not only the first.
COMET_DECL shape_verdict overlap(const thesis_shape& s, const thesis_evidence& e);

/// The median of a record's valid samples (NaN without any, or when the point is flagged as a
/// whole: no verdict reads a figure that is not reported).
COMET_DECL double median_of(const record& r);

/// Whether two records measure the same point but for the params in `except`.
COMET_DECL bool same_point(const record& a, const record& b, std::initializer_list<std::string_view> except);

/// One kernel's points against another's: for each record of `s.kernel`, the record of `other`
/// at the same point (params equal but for `except`), and whether `holds(mine, theirs)` on
/// their medians. Every matched point must hold; evidence: how many, and the range of
/// mine / (scale × theirs).
COMET_DECL shape_verdict against(const thesis_shape& s, const thesis_evidence& e, std::string_view other,
                                 std::initializer_list<std::string_view> except, double scale, std::string_view ratio_name,
                                 const std::function<bool(double, double)>& holds);

/// The protocol change at `limit` bytes (thesis 4.2, 5.1): in every curve of the kernel (its
/// records grouped by every param but `size`) whose sizes straddle the limit, the step from the
/// largest size ≤ limit to the next size is larger than the per-byte slope below the limit
/// predicts, by over 10% of the time at the limit. A curve needs two sizes ≤ limit (for the
/// slope) and one above it, at most twice the limit.
COMET_DECL shape_verdict jump(const thesis_shape& s, const thesis_evidence& e, std::int64_t limit);

/// Thesis 5.1: the asynchronous version is faster "in all cases except for very low message
/// sizes where the overhead involved in setting up the asynchronous call (isend and iwait) does
/// not match the gain": in every group whose smallest size is at most `tiny` bytes, the
/// asynchronous version is slower (sync/async below 1) at the median vector length there.
COMET_DECL shape_verdict overlap_tiny(const thesis_shape& s, const thesis_evidence& e, std::int64_t tiny);

}  // namespace detail::thesis

/// The shapes of the thesis' chapter 5, each with its judgement. The built-in kernels'
/// descriptors take theirs from here (by `kernel`).
inline const std::vector<thesis_shape>& thesis_shapes() {
    namespace d = detail::thesis;
    const auto linear = [](const thesis_shape& s, const thesis_evidence& e) { return d::growth(s, e, growth_model::linear); };
    const auto quadratic = [](const thesis_shape& s, const thesis_evidence& e) { return d::growth(s, e, growth_model::quadratic); };
    static const std::vector<thesis_shape> shapes = {
        {"broadcast.log_p", "broadcast", "broadcast time grows linearly with log P", "figure 5.3", d::log_p},
        {"global_sum.log_p", "global_sum", "global sum time grows almost linearly with log P", "figure 5.7", d::log_p},
        {"barrier.log_p", "barrier", "barrier time grows about logarithmically with P", "figure 5.6", d::log_p},
        {"contention.loaded", "contention", "echo under cross traffic is slower than idle", "figure 5.5",
         [](const thesis_shape& s, const thesis_evidence& e) { return d::contention(s, e, false); }, 8},
        {"contention.heavier", "contention", "echo is slower under the 90% load than under the 50% load", "figure 5.5",
         [](const thesis_shape& s, const thesis_evidence& e) { return d::contention(s, e, true); }, 8},
        {"overlap.large", "overlap", "asynchronous beats synchronous for large messages, at best by over 33%",
         "figures 5.10-5.12", d::overlap},
        {"overlap.tiny", "overlap", "asynchronous is slower than synchronous for very low message sizes", "figures 5.9, 5.11",
         [](const thesis_shape& s, const thesis_evidence& e) { return d::overlap_tiny(s, e, 100); }},
        {"echo.jump", "echo", "echo time jumps at 100 bytes (the change of protocol)", "figure 5.1",
         [](const thesis_shape& s, const thesis_evidence& e) { return d::jump(s, e, 100); }},
        {"broadcast.jump", "broadcast", "broadcast time jumps at 100 bytes (the change of protocol)", "figure 5.3",
         [](const thesis_shape& s, const thesis_evidence& e) { return d::jump(s, e, 100); }},
        {"pairwise.faster", "pairwise", "pairwise exchange is faster than the echo round trip of the same size", "figure 5.4",
         [](const thesis_shape& s, const thesis_evidence& e) {
             // The thesis' echo sends back the buffer it received into (param `buffer` same);
             // the exchange has no such param, and a clean-buffer echo is not the thesis'.
             std::vector<record> kept;
             for (const auto& r : e.records)
                 if (r.kernel != "echo" || r.params.text("buffer").value_or("same") == "same") kept.push_back(r);
             thesis_evidence only = e;
             only.records = kept;
             return d::against(s, only, "echo", {"buffer"}, 2.0, "pairwise / echo round trip", std::less<double>{});
         }},
        {"update_guard.linear", "update_guard", "update_guard time is linear in the matrix dimension", "figure 5.13", linear, 16},
        {"row_broadcast.linear", "row_broadcast", "row broadcast time is linear in the matrix dimension", "figure 5.15", linear, 16},
        {"col_broadcast.linear", "col_broadcast", "column broadcast time is linear in the matrix dimension", "figure 5.15", linear, 16},
        {"col_broadcast.slower", "col_broadcast", "column broadcast is slower than row broadcast (assembling the column)",
         "figures 4.4, 5.15",
         [](const thesis_shape& s, const thesis_evidence& e) {
             return d::against(s, e, "row_broadcast", {"row", "col"}, 1.0, "column / row", std::greater<double>{});
         },
         16},
        {"shift_matrix.quadratic", "shift_matrix", "shift_matrix time is quadratic in the matrix dimension", "figure 5.14", quadratic, 16},
        {"transpose.quadratic", "transpose", "transpose time is quadratic in the matrix dimension", "figure 5.16", quadratic, 16},
    };
    return shapes;
}

/// The thesis' shapes about one kernel (none for a kernel the thesis did not measure).
COMET_DECL std::vector<thesis_shape> thesis_shapes_of(std::string_view kernel);

/// The verdict on each shape of `shapes` (default: every thesis shape), in that order. The
/// verdicts point into `shapes`, which must outlive them.
COMET_DECL std::vector<shape_verdict> compare_shapes_with_thesis(const thesis_evidence& e,
                                                                 std::span<const thesis_shape> shapes = thesis_shapes());

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/analysis/thesis.ipp>
#endif
