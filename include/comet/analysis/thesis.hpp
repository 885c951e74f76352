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
    std::vector<std::string> flags;  ///< the flags of the fit the figure comes from (see `fit_flag`)
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

inline std::optional<double> measured_figure(const thesis_evidence& e, std::string_view key) {
    const transfer_fit* fit = figure_fit(e, key);
    if (fit && !fit->valid()) return std::nullopt;  // a flagged fit's number is no measurement
    if (fit) {
        if (key.ends_with(".t_startup")) return fit->t_startup;
        if (key.ends_with(".t_per_byte")) return fit->t_per_byte;
        if (key.ends_with(".hop")) return fit->hop;
        return std::nullopt;
    }
    const bandwidth_figures* band = nullptr;
    for (const auto& b : e.bandwidth)
        if (b.kernel == "echo" && b.hops == 1) band = &b;
    if (!band) return std::nullopt;
    if (key == "echo.peak") return band->peak;
    if (key == "echo.n_half") return band->n_half;
    if (key == "echo.n_90") return band->n_90;
    return std::nullopt;
}

}  // namespace detail::thesis

/// Every thesis figure with the run's value for it. The echo fits should use the thesis' break
/// at 100 bytes (`analysis_options{.break_size = 100}`) to be comparable.
inline std::vector<thesis_comparison> compare_with_thesis(const thesis_evidence& e) {
    std::vector<thesis_comparison> rows;
    for (const auto& f : thesis_figures()) {
        thesis_comparison row{&f, detail::thesis::measured_figure(e, f.key), {}};
        if (const transfer_fit* fit = detail::thesis::figure_fit(e, f.key); fit && !fit->valid()) row.flags = fit->flags;
        rows.push_back(std::move(row));
    }
    return rows;
}

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
};

namespace detail::thesis {

inline std::string number(double v, int decimals) {
    std::ostringstream os;
    os.imbue(std::locale::classic());
    os << std::fixed << std::setprecision(decimals) << v;
    return os.str();
}

/// Log-P growth: every curve with 3 or more group sizes grows (per_doubling > 0) and follows
/// log P better than P. Two group sizes say nothing (any line passes through two points).
inline shape_verdict log_p(const thesis_shape& s, const thesis_evidence& e) {
    std::size_t curves = 0, good = 0;
    std::vector<double> per;
    std::string failed;  // the first curve that does not, and why
    for (const auto& f : e.log_p) {
        if (f.kernel != s.kernel || f.points < 3) continue;
        ++curves;
        const bool follows = f.logarithmic && f.per_doubling > 0;
        good += follows;
        per.push_back(f.per_doubling);
        if (!follows && failed.empty()) {
            for (const auto& [name, value] : f.group) failed += (failed.empty() ? "" : ", ") + name + " " + detail::compare::value_text(value);
            failed = "; not " + (failed.empty() ? std::string("a curve") : failed) + ": R² log P " + number(f.r_squared, 3) + ", P " + number(f.r_squared_linear_p, 3);
            if (f.per_doubling <= 0) failed += ", not growing";
        }
    }
    if (curves == 0) return {&s, std::nullopt, "needs 3 or more group sizes (--nodes 2,4,8,16)"};
    std::sort(per.begin(), per.end());
    return {&s, good == curves,
            std::to_string(good) + " of " + std::to_string(curves) + " curves follow log P; median " +
                number(per[per.size() / 2] * 1e6, 1) + " us per doubling" + failed};
}

/// Linear or quadratic growth in the matrix dimension: every curve of the kernel has `want`.
inline shape_verdict growth(const thesis_shape& s, const thesis_evidence& e, growth_model want) {
    std::size_t curves = 0, good = 0;
    std::string detail;
    for (const auto& g : e.growth) {
        if (g.kernel != s.kernel) continue;
        ++curves;
        good += g.model == want;
        if (detail.empty())
            detail = "; square share " + number(g.quadratic_share, 2) + ", R² linear " + number(g.linear.r_squared, 3) +
                     ", quadratic " + number(g.quadratic.r_squared, 3);
    }
    if (curves == 0) return {&s, std::nullopt, "not measured"};
    return {&s, good == curves, std::to_string(good) + " of " + std::to_string(curves) + " curves " + to_string(want) + detail};
}

/// Whether a slow-down was measured where the cross traffic crosses the echo's links. A
/// record says so with an `on_route` param ("yes"/"no", or 1/0); without one the traffic is
/// taken to be on route (the hypercube rule, as the thesis chose its nodes).
inline bool on_route(const contention_slowdown& c) {
    if (const auto t = c.group.text("on_route")) return *t != "no" && *t != "off" && *t != "false";
    if (const auto i = c.group.integer("on_route")) return *i != 0;
    return true;
}

/// The median over groups on route of the loaded/idle ratio at `load`.
inline std::optional<double> contention_ratio(const thesis_evidence& e, double load) {
    std::vector<double> ratios;
    for (const auto& c : e.contention)
        if (on_route(c) && std::fabs(c.load - load) < 1e-9 && std::isfinite(c.median_ratio)) ratios.push_back(c.median_ratio);
    if (ratios.empty()) return std::nullopt;
    std::sort(ratios.begin(), ratios.end());
    return ratios[ratios.size() / 2];
}

inline shape_verdict contention(const thesis_shape& s, const thesis_evidence& e, bool heavier) {
    const auto half = contention_ratio(e, 0.5), ninety = contention_ratio(e, 0.9);
    if (!half || !ninety) return {&s, std::nullopt, "not measured (needs loads 0.5 and 0.9 on route of the echo)"};
    const std::string evidence =
        "median loaded/idle " + number(*half, 3) + " at 50%, " + number(*ninety, 3) + " at 90%";
    return {&s, heavier ? *ninety > *half : *half > 1 && *ninety > 1, evidence};
}

/// Thesis 5.1: "improvements of over 33% when overlapping a pairwise transfer of large
/// messages": faster in the typical case, and the best case saves over a third — in every
/// group measured (each group size is its own machine), not only the first.
inline shape_verdict overlap(const thesis_shape& s, const thesis_evidence& e) {
    std::size_t groups = 0, good = 0;
    const overlap_gain* largest = nullptr;
    for (const auto& g : e.overlap) {
        if (g.large_points == 0) continue;
        ++groups;
        good += g.large_median_gain > 1 && g.large_max_saved > 0.33;
        if (!largest || g.group.integer("nodes").value_or(0) >= largest->group.integer("nodes").value_or(0)) largest = &g;
    }
    if (!largest) return {&s, std::nullopt, "not measured"};
    std::string evidence = std::to_string(good) + " of " + std::to_string(groups) + " groups; ";
    if (const auto n = largest->group.integer("nodes")) evidence += "on " + std::to_string(*n) + " nodes, ";
    evidence += "at " + std::to_string(largest->large_size) + " B: sync/async median " + number(largest->large_median_gain, 2) +
                ", time saved median " + number(largest->large_median_saved * 100, 0) + "%, at most " +
                number(largest->large_max_saved * 100, 0) + "%";
    return {&s, good == groups, evidence};
}

/// The median of a record's valid samples (NaN without any, or when the point is flagged as a
/// whole: no verdict reads a figure that is not reported).
inline double median_of(const record& r) {
    return usable(r) ? statistic_of(r, statistic::median) : std::numeric_limits<double>::quiet_NaN();
}

/// Whether two records measure the same point but for the params in `except`.
inline bool same_point(const record& a, const record& b, std::initializer_list<std::string_view> except) {
    const auto skip = [&](std::string_view name) { return std::find(except.begin(), except.end(), name) != except.end(); };
    for (const auto& [name, value] : a.params)
        if (!skip(name) && (!b.params.find(name) || *b.params.find(name) != value)) return false;
    for (const auto& [name, value] : b.params)
        if (!skip(name) && !a.params.contains(name)) return false;
    return true;
}

/// One kernel's points against another's: for each record of `s.kernel`, the record of `other`
/// at the same point (params equal but for `except`), and whether `holds(mine, theirs)` on
/// their medians. Every matched point must hold; evidence: how many, and the range of
/// mine / (scale × theirs).
inline shape_verdict against(const thesis_shape& s, const thesis_evidence& e, std::string_view other,
                             std::initializer_list<std::string_view> except, double scale, std::string_view ratio_name,
                             const std::function<bool(double, double)>& holds) {
    std::size_t points = 0, good = 0;
    double low = 0, high = 0;
    for (const auto& mine : e.records) {
        if (mine.kernel != s.kernel) continue;
        for (const auto& theirs : e.records) {
            if (theirs.kernel != other || !same_point(mine, theirs, except)) continue;
            const double a = median_of(mine), b = scale * median_of(theirs);
            if (!std::isfinite(a) || !std::isfinite(b) || b <= 0) continue;
            const double ratio = a / b;
            low = points ? std::min(low, ratio) : ratio;
            high = points ? std::max(high, ratio) : ratio;
            ++points;
            good += holds(a, b);
            break;
        }
    }
    if (points == 0) return {&s, std::nullopt, "needs both kernels at the same points"};
    return {&s, good == points,
            std::to_string(good) + " of " + std::to_string(points) + " points; " + std::string(ratio_name) + " " +
                number(low, 3) + " .. " + number(high, 3)};
}

/// The protocol change at `limit` bytes (thesis 4.2, 5.1): in every curve of the kernel (its
/// records grouped by every param but `size`) whose sizes straddle the limit, the step from the
/// largest size ≤ limit to the next size is larger than the per-byte slope below the limit
/// predicts, by over 10% of the time at the limit. A curve needs two sizes ≤ limit (for the
/// slope) and one above it, at most twice the limit.
inline shape_verdict jump(const thesis_shape& s, const thesis_evidence& e, std::int64_t limit) {
    std::vector<const record*> mine;
    for (const auto& r : e.records)
        if (r.kernel == s.kernel && r.params.integer("size")) mine.push_back(&r);
    std::vector<bool> done(mine.size(), false);
    std::size_t curves = 0, good = 0;
    std::string detail;
    for (std::size_t i = 0; i < mine.size(); ++i) {
        if (done[i]) continue;
        // The curve of mine[i]: its sizes and medians, ascending.
        std::vector<std::pair<std::int64_t, double>> curve;
        for (std::size_t j = i; j < mine.size(); ++j)
            if (!done[j] && same_point(*mine[i], *mine[j], {"size"})) {
                done[j] = true;
                curve.emplace_back(*mine[j]->params.integer("size"), median_of(*mine[j]));
            }
        std::sort(curve.begin(), curve.end());
        const auto above = std::find_if(curve.begin(), curve.end(), [&](const auto& x) { return x.first > limit; });
        if (above == curve.end() || above - curve.begin() < 2 || above->first > 2 * limit) continue;
        const auto& [n1, t1] = *(above - 2);
        const auto& [n2, t2] = *(above - 1);
        const auto& [n3, t3] = *above;
        if (!std::isfinite(t1) || !std::isfinite(t2) || !std::isfinite(t3) || t2 <= 0) continue;
        const double slope = (t2 - t1) / static_cast<double>(n2 - n1);
        const double step = t3 - t2 - slope * static_cast<double>(n3 - n2);
        ++curves;
        const bool jumps = step > 0.1 * t2;
        good += jumps;
        // The first curve, and then each one that does not jump.
        if (curves == 1 || !jumps) {
            std::string where;
            if (const auto nodes = mine[i]->params.integer("nodes")) where += "on " + std::to_string(*nodes) + " nodes";
            if (const auto hops = mine[i]->params.integer("hops")) where += ", " + std::to_string(*hops) + " hop" + (*hops == 1 ? "" : "s");
            detail += (jumps ? "; " : "; not ") + where + (where.empty() ? "" : ": ") + std::to_string(n2) + " B " +
                      number(t2 * 1e6, 1) + " us, " + std::to_string(n3) + " B " + number(t3 * 1e6, 1) + " us (+" +
                      number(100 * (t3 - t2) / t2, 0) + "%)";
        }
    }
    if (curves == 0)
        return {&s, std::nullopt,
                "needs two sizes up to " + std::to_string(limit) + " B and one above it, up to " + std::to_string(2 * limit) + " B"};
    return {&s, good == curves,
            std::to_string(good) + " of " + std::to_string(curves) + " curves jump by over 10% beyond the slope" + detail};
}

/// Thesis 5.1: the asynchronous version is faster "in all cases except for very low message
/// sizes where the overhead involved in setting up the asynchronous call (isend and iwait) does
/// not match the gain": in every group whose smallest size is at most `tiny` bytes, the
/// asynchronous version is slower (sync/async below 1) at the median vector length there.
inline shape_verdict overlap_tiny(const thesis_shape& s, const thesis_evidence& e, std::int64_t tiny) {
    std::size_t groups = 0, good = 0;
    std::string detail;
    for (const auto& g : e.overlap) {
        if (g.points.empty() || g.points.front().size > tiny) continue;
        const std::int64_t smallest = g.points.front().size;
        std::vector<double> gains;
        for (const auto& p : g.points)
            if (p.size == smallest && std::isfinite(p.gain)) gains.push_back(p.gain);
        if (gains.empty()) continue;
        std::sort(gains.begin(), gains.end());
        const double median = gains[gains.size() / 2];
        ++groups;
        good += median < 1;
        if (detail.empty())
            detail = "; at " + std::to_string(smallest) + " B: sync/async median " + number(median, 3) + " over " +
                     std::to_string(gains.size()) + " vector lengths";
    }
    if (groups == 0) return {&s, std::nullopt, "needs a message size up to " + std::to_string(tiny) + " B"};
    return {&s, good == groups, std::to_string(good) + " of " + std::to_string(groups) + " groups" + detail};
}

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
         [](const thesis_shape& s, const thesis_evidence& e) { return d::contention(s, e, false); }},
        {"contention.heavier", "contention", "echo is slower under the 90% load than under the 50% load", "figure 5.5",
         [](const thesis_shape& s, const thesis_evidence& e) { return d::contention(s, e, true); }},
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
             return d::against(s, e, "echo", {}, 2.0, "pairwise / echo round trip", std::less<double>{});
         }},
        {"update_guard.linear", "update_guard", "update_guard time is linear in the matrix dimension", "figure 5.13", linear},
        {"row_broadcast.linear", "row_broadcast", "row broadcast time is linear in the matrix dimension", "figure 5.15", linear},
        {"col_broadcast.linear", "col_broadcast", "column broadcast time is linear in the matrix dimension", "figure 5.15", linear},
        {"col_broadcast.slower", "col_broadcast", "column broadcast is slower than row broadcast (assembling the column)",
         "figure 4.4",
         [](const thesis_shape& s, const thesis_evidence& e) {
             return d::against(s, e, "row_broadcast", {"row", "col"}, 1.0, "column / row", std::greater<double>{});
         }},
        {"shift_matrix.quadratic", "shift_matrix", "shift_matrix time is quadratic in the matrix dimension", "figure 5.14", quadratic},
        {"transpose.quadratic", "transpose", "transpose time is quadratic in the matrix dimension", "figure 5.16", quadratic},
    };
    return shapes;
}

/// The thesis' shapes about one kernel (none for a kernel the thesis did not measure).
inline std::vector<thesis_shape> thesis_shapes_of(std::string_view kernel) {
    std::vector<thesis_shape> out;
    for (const auto& s : thesis_shapes())
        if (s.kernel == kernel) out.push_back(s);
    return out;
}

/// The verdict on each shape of `shapes` (default: every thesis shape), in that order. The
/// verdicts point into `shapes`, which must outlive them.
inline std::vector<shape_verdict> compare_shapes_with_thesis(const thesis_evidence& e,
                                                             std::span<const thesis_shape> shapes = thesis_shapes()) {
    std::vector<shape_verdict> out;
    for (const auto& s : shapes)
        out.push_back(s.judge ? s.judge(s, e) : shape_verdict{&s, std::nullopt, "no judgement given"});
    return out;
}

}  // namespace comet
