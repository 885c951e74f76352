// comet/report/thesis.hpp — the figures the CoMet thesis reports for the 16-node iPSC/860
// (chapter 5) and the shapes it observed, and a comparison of a report with both, for the
// simulated iPSC/860's summary.
//
// Each figure says where in the thesis it comes from. Figures are in SI units (seconds,
// seconds per byte, bytes per second, bytes); `unit` and `scale` say how to show them.
#pragma once

#include <comet/report/report.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
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

/// A thesis figure next to the value a report measured (nothing when the report lacks it).
struct thesis_comparison {
    const thesis_figure* figure;
    std::optional<double> measured;
};

namespace detail {

inline std::optional<double> measured_figure(const report& r, std::string_view key) {
    const auto fit = [&](std::string_view regime) -> const transfer_fit* {
        for (const auto& f : r.fits)
            if (f.kernel == "echo" && f.regime == regime) return &f;
        return nullptr;
    };
    const auto band = [&]() -> const bandwidth_figures* {
        for (const auto& b : r.bandwidth)
            if (b.kernel == "echo" && b.hops == 1) return &b;
        return nullptr;
    };
    if (key == "echo.small.t_startup") return fit("small") ? std::optional(fit("small")->t_startup) : std::nullopt;
    if (key == "echo.small.t_per_byte") return fit("small") ? std::optional(fit("small")->t_per_byte) : std::nullopt;
    if (key == "echo.large.t_startup") return fit("large") ? std::optional(fit("large")->t_startup) : std::nullopt;
    if (key == "echo.large.t_per_byte") return fit("large") ? std::optional(fit("large")->t_per_byte) : std::nullopt;
    if (key == "echo.large.hop") return fit("large") ? fit("large")->hop : std::nullopt;
    if (key == "echo.peak") return band() ? std::optional(band()->peak) : std::nullopt;
    if (key == "echo.n_half") return band() ? std::optional(band()->n_half) : std::nullopt;
    if (key == "echo.n_90") return band() ? std::optional(band()->n_90) : std::nullopt;
    return std::nullopt;
}

}  // namespace detail

/// Every thesis figure with the report's value for it. The report's echo fits should use the
/// thesis' break at 100 bytes (`analysis_options{.break_size = 100}`) to be comparable.
inline std::vector<thesis_comparison> compare_with_thesis(const report& r) {
    std::vector<thesis_comparison> rows;
    for (const auto& f : thesis_figures()) rows.push_back({&f, detail::measured_figure(r, f.key)});
    return rows;
}

/// The comparison as a table: figure, thesis, measured, measured / thesis.
inline void write_thesis_comparison(std::ostream& os, const std::vector<thesis_comparison>& rows) {
    os << "beside the thesis (CoMet, chapter 5: a 16-node iPSC/860)\n";
    os << "  " << std::left << std::setw(34) << "figure" << std::right << std::setw(12) << "thesis" << std::setw(12)
       << "measured" << std::setw(8) << "ratio" << "  unit\n";
    for (const auto& row : rows) {
        const auto& f = *row.figure;
        std::ostringstream thesis, measured, ratio;
        thesis << std::fixed << std::setprecision(2) << f.value * f.scale;
        if (row.measured) {
            measured << std::fixed << std::setprecision(2) << *row.measured * f.scale;
            ratio << std::fixed << std::setprecision(2) << *row.measured / f.value;
        } else {
            measured << "-";
            ratio << "-";
        }
        os << "  " << std::left << std::setw(34) << f.label << std::right << std::setw(12) << thesis.str() << std::setw(12)
           << measured.str() << std::setw(8) << ratio.str() << "  " << f.unit << '\n';
    }
}

/// A shape the thesis observed (chapter 5), which the model must reproduce without being tuned
/// to it.
struct thesis_shape {
    std::string_view key;
    std::string_view claim;  ///< what the thesis observed, in its words where possible
    std::string_view where;  ///< the figure
};

inline const std::vector<thesis_shape>& thesis_shapes() {
    static const std::vector<thesis_shape> shapes = {
        {"broadcast.log_p", "broadcast time grows linearly with log P", "figure 5.3"},
        {"global_sum.log_p", "global sum time grows almost linearly with log P", "figure 5.7"},
        {"barrier.log_p", "barrier time grows about logarithmically with P", "figure 5.6"},
        {"contention.loaded", "echo under cross traffic is slower than idle", "figure 5.5"},
        {"contention.heavier", "echo is slower under the 90% load than under the 50% load", "figure 5.5"},
        {"overlap.large", "asynchronous beats synchronous for large messages, at best by over 33%", "figures 5.10-5.12"},
        {"update_guard.linear", "update_guard time is linear in the matrix dimension", "figure 5.13"},
        {"row_broadcast.linear", "row broadcast time is linear in the matrix dimension", "figure 5.15"},
        {"col_broadcast.linear", "column broadcast time is linear in the matrix dimension", "figure 5.15"},
        {"shift_matrix.quadratic", "shift_matrix time is quadratic in the matrix dimension", "figure 5.14"},
        {"transpose.quadratic", "transpose time is quadratic in the matrix dimension", "figure 5.16"},
    };
    return shapes;
}

/// Whether a report shows a shape, with the numbers that decide it; `holds` is empty when the
/// report lacks what it takes (the kernel did not run, or on one group size only).
struct shape_verdict {
    const thesis_shape* shape;
    std::optional<bool> holds;
    std::string evidence;
};

namespace detail {

inline std::string number(double v, int decimals) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(decimals) << v;
    return os.str();
}

/// Log-P growth of a collective: every curve with 3 or more group sizes grows (per_doubling > 0)
/// and follows log P better than P.
inline shape_verdict log_p_verdict(const report& r, const thesis_shape& s, std::string_view kernel) {
    std::size_t curves = 0, good = 0;
    std::vector<double> per;
    for (const auto& f : r.log_p) {
        if (f.kernel != kernel || f.points < 3) continue;
        ++curves;
        good += f.logarithmic && f.per_doubling > 0;
        per.push_back(f.per_doubling);
    }
    if (curves == 0) return {&s, std::nullopt, "needs 3 or more group sizes (--nodes 2,4,8,16)"};
    std::sort(per.begin(), per.end());
    return {&s, good == curves,
            std::to_string(good) + " of " + std::to_string(curves) + " curves follow log P; median " +
                number(per[per.size() / 2] * 1e6, 1) + " us per doubling"};
}

inline shape_verdict growth_verdict(const report& r, const thesis_shape& s, std::string_view kernel, growth_model want) {
    std::size_t curves = 0, good = 0;
    std::string detail;
    for (const auto& g : r.growth) {
        if (g.kernel != kernel) continue;
        ++curves;
        good += g.model == want;
        if (detail.empty())
            detail = "; square share " + number(g.quadratic_share, 2) + ", R² linear " + number(g.linear.r_squared, 3) +
                     ", quadratic " + number(g.quadratic.r_squared, 3);
    }
    if (curves == 0) return {&s, std::nullopt, "not measured"};
    return {&s, good == curves, std::to_string(good) + " of " + std::to_string(curves) + " curves " + to_string(want) + detail};
}

inline std::optional<double> contention_ratio(const report& r, double load) {
    std::vector<double> ratios;
    for (const auto& c : r.contention)
        if (std::fabs(c.load - load) < 1e-9 && std::isfinite(c.median_ratio)) ratios.push_back(c.median_ratio);
    if (ratios.empty()) return std::nullopt;
    std::sort(ratios.begin(), ratios.end());
    return ratios[ratios.size() / 2];
}

}  // namespace detail

/// Every thesis shape with the report's verdict.
inline std::vector<shape_verdict> compare_shapes_with_thesis(const report& r) {
    std::vector<shape_verdict> out;
    for (const auto& s : thesis_shapes()) {
        const std::string_view k = s.key;
        if (k == "broadcast.log_p") out.push_back(detail::log_p_verdict(r, s, "broadcast"));
        else if (k == "global_sum.log_p") out.push_back(detail::log_p_verdict(r, s, "global_sum"));
        else if (k == "barrier.log_p") out.push_back(detail::log_p_verdict(r, s, "barrier"));
        else if (k == "contention.loaded" || k == "contention.heavier") {
            const auto half = detail::contention_ratio(r, 0.5), ninety = detail::contention_ratio(r, 0.9);
            if (!half || !ninety) {
                out.push_back({&s, std::nullopt, "not measured"});
                continue;
            }
            const std::string evidence = "median loaded/idle " + detail::number(*half, 3) + " at 50%, " +
                                         detail::number(*ninety, 3) + " at 90%";
            out.push_back({&s, k == "contention.loaded" ? *half > 1 && *ninety > 1 : *ninety > *half, evidence});
        } else if (k == "overlap.large") {
            const overlap_gain* g = r.overlap.empty() ? nullptr : &r.overlap.front();
            if (!g || g->large_points == 0) {
                out.push_back({&s, std::nullopt, "not measured"});
                continue;
            }
            // Thesis 5.1: "improvements of over 33% when overlapping a pairwise transfer of large
            // messages": faster in the typical case, and the best case saves over a third.
            out.push_back({&s, g->large_median_gain > 1 && g->large_max_saved > 0.33,
                           "at " + std::to_string(g->large_size) + " B: sync/async median " +
                               detail::number(g->large_median_gain, 2) + ", time saved median " +
                               detail::number(g->large_median_saved * 100, 0) + "%, at most " +
                               detail::number(g->large_max_saved * 100, 0) + "%"});
        } else if (k == "update_guard.linear") out.push_back(detail::growth_verdict(r, s, "update_guard", growth_model::linear));
        else if (k == "row_broadcast.linear") out.push_back(detail::growth_verdict(r, s, "row_broadcast", growth_model::linear));
        else if (k == "col_broadcast.linear") out.push_back(detail::growth_verdict(r, s, "col_broadcast", growth_model::linear));
        else if (k == "shift_matrix.quadratic") out.push_back(detail::growth_verdict(r, s, "shift_matrix", growth_model::quadratic));
        else if (k == "transpose.quadratic") out.push_back(detail::growth_verdict(r, s, "transpose", growth_model::quadratic));
    }
    return out;
}

/// The verdicts as a table: the thesis' observation, yes/no/-, and the numbers.
inline void write_shape_comparison(std::ostream& os, const std::vector<shape_verdict>& verdicts) {
    os << "shapes beside the thesis (CoMet, chapter 5)\n";
    std::size_t width = 0;
    for (const auto& v : verdicts) width = std::max(width, v.shape->claim.size());
    for (const auto& v : verdicts) {
        os << "  " << std::left << std::setw(static_cast<int>(width)) << v.shape->claim << "  "
           << (v.holds ? (*v.holds ? "yes" : "NO ") : "-  ") << "  " << v.evidence << "  (" << v.shape->where << ")\n";
    }
}

}  // namespace comet
