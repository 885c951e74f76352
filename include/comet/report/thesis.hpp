// comet/report/thesis.hpp — the figures the CoMet thesis reports for the 16-node iPSC/860
// (chapter 5), and a comparison of a report's fits with them, for the simulated iPSC/860's
// summary.
//
// Each figure says where in the thesis it comes from. Figures are in SI units (seconds,
// seconds per byte, bytes per second, bytes); `unit` and `scale` say how to show them.
#pragma once

#include <comet/report/report.hpp>

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

}  // namespace comet
