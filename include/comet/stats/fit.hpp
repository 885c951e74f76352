// comet/stats/fit.hpp — least-squares fits of measured times: a straight line, the CoMet
// transfer model t(N) = t_startup + N·t_per_byte + (n − 1)·h with an optional protocol break,
// and the bandwidth figures (peak, sizes reaching 50% and 90% of it).
//
// Follows the CoMet thesis, section 5.1: "using a linear least-squares fit to our measured
// communication times, we arrive at t_start-up to be around 79us for transmitting messages less
// than 100 bytes and 156us for messages greater than 100 bytes ... t_per-byte around 0.63us ...
// and 0.41us ... and the overhead h to be 25us" — NX/2 changes protocol at 100 bytes, so the
// fit is done separately on each side of that break; the hop term comes from fitting echo
// times of several hop distances jointly.
//
// The only Eigen user in stats/. Every fit reports its residual (SPEC 8).
// Deliberately not here: log-P growth fits of collectives, COMMTEST a/b, LogGP parameters.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace comet {

/// y = intercept + slope·x, fitted by least squares.
struct line_fit {
    double intercept = 0.0;
    double slope = 0.0;
    double residual = 0.0;  ///< root-mean-square of the residuals, sqrt(Σr²/points), same unit as y
    std::size_t points = 0;
};

/// One fit of the transfer model t(N) = t_startup + N·t_per_byte [+ (n − 1)·hop] to the median
/// times of one kernel's records.
struct transfer_fit {
    std::string kernel;
    std::string regime;              ///< "all", "small" (size ≤ break_size) or "large" (size > break_size)
    double t_startup = 0.0;          ///< seconds: the time of a 0-byte message over one hop
    double t_per_byte = 0.0;         ///< seconds per byte
    std::optional<double> hop;       ///< seconds per extra hop; only when the records span ≥ 2 hop values
    double residual = 0.0;           ///< seconds: root-mean-square of the residuals
    std::size_t points = 0;          ///< records fitted
    std::optional<double> break_size;  ///< bytes: the break used ("small"/"large" fits only)
};

/// How `fit_transfers` splits the sizes.
struct transfer_fit_options {
    /// Fit sizes ≤ break_size and sizes > break_size separately (NX/2: 100).
    std::optional<double> break_size;
    /// Find the break instead: the split between two measured sizes that minimises the summed
    /// squared residual of the two fits. Exclusive with `break_size`.
    bool find_break = false;
};

/// Bandwidth figures of one kernel at one hop distance, from bandwidth(N) = N / median time.
struct bandwidth_figures {
    std::string kernel;
    std::int64_t hops = 1;
    double peak = 0.0;    ///< bytes per second: the largest measured bandwidth
    double n_half = 0.0;  ///< bytes: smallest size reaching 50% of peak (interpolated)
    double n_90 = 0.0;    ///< bytes: smallest size reaching 90% of peak (interpolated)
};

namespace detail {

/// Least squares X·beta ≈ y. Each column is scaled to unit maximum first: sizes (up to 1e6)
/// and an intercept column (1) differ by orders of magnitude, and the rank decision of the
/// pivoting QR compares column norms, so unscaled it could call a perfectly good design
/// singular (or a singular one good). Returns nullopt when X is rank deficient.
inline std::optional<Eigen::VectorXd> solve_least_squares(Eigen::MatrixXd x, const Eigen::VectorXd& y) {
    Eigen::VectorXd scale(x.cols());
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
        const double m = x.col(c).cwiseAbs().maxCoeff();
        scale(c) = m > 0.0 ? m : 1.0;
        x.col(c) /= scale(c);
    }
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(x.rows(), x.cols());
    // Eigen's default rank threshold (a few ulps) lets rounding noise of an exactly collinear
    // design (a hop column that is a copy of the size column) pass as rank. With unit-scaled
    // columns, a pivot 1e-10 of the largest means the columns are dependent for all purposes.
    qr.setThreshold(1e-10);
    qr.compute(x);
    if (qr.rank() < x.cols()) return std::nullopt;
    Eigen::VectorXd beta = qr.solve(y);
    return Eigen::VectorXd(beta.cwiseQuotient(scale));
}

inline double residual_rms(const Eigen::VectorXd& r) {
    return r.size() == 0 ? 0.0 : std::sqrt(r.squaredNorm() / static_cast<double>(r.size()));
}

/// One measured point of the transfer model.
struct transfer_point {
    double size;
    double extra_hops;  // n − 1
    std::int64_t hops;
    double time;        // median of the record's samples
};

struct model_fit {
    double t_startup = 0.0, t_per_byte = 0.0;
    std::optional<double> hop;
    double ssr = 0.0;  // summed squared residual
    std::size_t points = 0;
};

inline std::size_t distinct_sizes(std::span<const transfer_point> pts) {
    std::vector<double> s;
    for (const auto& p : pts) s.push_back(p.size);
    std::sort(s.begin(), s.end());
    return static_cast<std::size_t>(std::unique(s.begin(), s.end()) - s.begin());
}

/// Fits the model to `pts`; joint with a hop term when they span ≥ 2 hop values (the rule is
/// applied to the points of each regime, because a hop column that is constant within a regime
/// cannot be told apart from the intercept). nullopt when the design is singular.
inline std::optional<model_fit> fit_model(std::span<const transfer_point> pts) {
    bool joint = false;
    for (const auto& p : pts)
        if (p.hops != pts.front().hops) joint = true;
    const auto n = static_cast<Eigen::Index>(pts.size());
    const Eigen::Index cols = joint ? 3 : 2;
    if (n < cols) return std::nullopt;
    Eigen::MatrixXd x(n, cols);
    Eigen::VectorXd y(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        const auto& p = pts[static_cast<std::size_t>(i)];
        x(i, 0) = 1.0;
        x(i, 1) = p.size;
        if (joint) x(i, 2) = p.extra_hops;
        y(i) = p.time;
    }
    const auto beta = solve_least_squares(x, y);
    if (!beta) return std::nullopt;
    model_fit f;
    f.t_startup = (*beta)(0);
    f.t_per_byte = (*beta)(1);
    if (joint) f.hop = (*beta)(2);
    f.ssr = (y - x * *beta).squaredNorm();
    f.points = pts.size();
    return f;
}

inline transfer_fit to_transfer_fit(std::string_view kernel, std::string regime, const model_fit& m,
                                    std::optional<double> break_size) {
    return {std::string(kernel), std::move(regime), m.t_startup, m.t_per_byte, m.hop,
            std::sqrt(m.ssr / static_cast<double>(m.points)), m.points, break_size};
}

/// The hop distance of a record: its integer `hops` parameter, 1 when absent.
inline std::int64_t record_hops(const record& r, std::int64_t size, const char* who) {
    if (!r.params.contains("hops")) return 1;
    const auto h = r.params.integer("hops");
    if (!h || *h < 0)
        raise<invalid_argument>(-1, who, ": kernel '", r.kernel, "' has a record of size ", size,
                                " whose 'hops' is not an integer >= 0");
    return *h;
}

/// The points of `kernel`: records with an integer `size`, at least one sample, and a hop
/// distance of at least 1. A rank messaging itself (0 hops) takes no network path at all, so
/// it is not a point of the line t_startup + N·t_per_byte + (n − 1)·h and would only bend it.
inline std::vector<transfer_point> transfer_fit_points(const result_set& results, std::string_view kernel) {
    std::vector<transfer_point> pts;
    for (const record* r : results.of(kernel)) {
        const auto size = r->params.integer("size");
        if (!size || r->samples.empty()) continue;
        const std::int64_t hops = record_hops(*r, *size, "fit_transfers");
        if (hops == 0) continue;
        pts.push_back({static_cast<double>(*size), static_cast<double>(hops - 1), hops,
                       summarize(r->samples).median});
    }
    return pts;
}

}  // namespace detail

/// Fits y = intercept + slope·x by least squares (Eigen's column-pivoting Householder QR).
/// @throws invalid_argument when the sizes differ, there are fewer than 2 points, every x is
///         the same, or a value is not finite.
/// @code  auto f = comet::fit_line(sizes, times);  // f.intercept, f.slope, f.residual  @endcode
inline line_fit fit_line(std::span<const double> x, std::span<const double> y) {
    if (x.size() != y.size())
        raise<invalid_argument>(-1, "fit_line: ", x.size(), " x values but ", y.size(), " y values");
    if (x.size() < 2) raise<invalid_argument>(-1, "fit_line: ", x.size(), " points; a line needs at least 2");
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!std::isfinite(x[i]) || !std::isfinite(y[i]))
            raise<invalid_argument>(-1, "fit_line: point ", i, " (", x[i], ", ", y[i], ") is not finite");
    if (std::all_of(x.begin(), x.end(), [&](double v) { return v == x.front(); }))
        raise<invalid_argument>(-1, "fit_line: all ", x.size(), " x values are ", x.front(), "; no slope can be fitted");

    const auto n = static_cast<Eigen::Index>(x.size());
    Eigen::MatrixXd a(n, 2);
    Eigen::VectorXd b(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        a(i, 0) = 1.0;
        a(i, 1) = x[static_cast<std::size_t>(i)];
        b(i) = y[static_cast<std::size_t>(i)];
    }
    const auto beta = detail::solve_least_squares(a, b);
    if (!beta)  // distinct x, but numerically collinear with the intercept (say 1 and 1 + 1e-12)
        raise<invalid_argument>(-1, "fit_line: the ", x.size(), " x values are too close together to fit a slope");
    return {(*beta)(0), (*beta)(1), detail::residual_rms(b - a * *beta), x.size()};
}

/// Fits the CoMet transfer model to the records of `kernel` (CoMet thesis 5.1).
///
/// Uses the records whose params hold an integer `size` (bytes) and at least one sample; `hops`
/// (an integer) defaults to 1 when absent, and records at 0 hops (a rank messaging itself: no
/// network path) are left out. The time fitted for a record is the MEDIAN of its
/// samples (robust to the slow outliers timings always have).
/// - no break: one fit, regime "all";
/// - `break_size` given, or found with `find_break`: two fits, "small" (size ≤ break) then
///   "large" (size > break), both reporting the break. The search tries every split between
///   two adjacent distinct sizes s_i < s_(i+1) that leaves ≥ 3 points on each side, keeps the
///   one with the least summed squared residual of the two fits (the smaller break on a tie)
///   and reports break_size = s_i, the largest size of the "small" side.
/// When the points of a fit span ≥ 2 hop values, the fit is joint over all of them:
/// t = t_startup + N·t_per_byte + (n − 1)·hop; with a single hop value, `hop` is nullopt (and
/// t_startup includes that distance's (n − 1)·h).
/// @throws invalid_argument when a regime has too few points (or sizes) for its fit, no split
///         leaves 3 points on each side, `hops` is not an integer >= 0, or both `break_size` and
///         `find_break` are given.
/// @code
///   auto fits = comet::fit_transfers(results, "echo", {.break_size = 100});
///   // fits[0]: regime "small", fits[1]: regime "large"
/// @endcode
inline std::vector<transfer_fit> fit_transfers(const result_set& results, std::string_view kernel,
                                               const transfer_fit_options& options = {}) {
    using detail::transfer_point;
    if (options.break_size && options.find_break)
        raise<invalid_argument>(-1, "fit_transfers: break_size = ", *options.break_size,
                                " given together with find_break; choose one");
    if (options.break_size && !std::isfinite(*options.break_size))
        raise<invalid_argument>(-1, "fit_transfers: break_size = ", *options.break_size, " is not finite");

    auto pts = detail::transfer_fit_points(results, kernel);
    std::stable_sort(pts.begin(), pts.end(),
                     [](const transfer_point& a, const transfer_point& b) { return a.size < b.size; });

    const auto fit_or_throw = [&](std::span<const transfer_point> side, const char* regime) {
        auto f = detail::fit_model(side);
        if (!f)
            raise<invalid_argument>(-1, "fit_transfers: kernel '", kernel, "' regime '", regime, "' has ", side.size(),
                                    " records with ", detail::distinct_sizes(side),
                                    " distinct sizes; the fit needs at least 2 sizes (and 2 hop values "
                                    "spread over them for the hop term)");
        return *f;
    };

    if (!options.break_size && !options.find_break) {
        if (pts.size() < 2)
            raise<invalid_argument>(-1, "fit_transfers: kernel '", kernel, "' has ", pts.size(),
                                    " records with an integer size and samples; a fit needs at least 2");
        return {detail::to_transfer_fit(kernel, "all", fit_or_throw(pts, "all"), std::nullopt)};
    }

    std::size_t split = 0;  // pts[0, split) is "small"
    double brk = 0.0;
    if (options.break_size) {
        brk = *options.break_size;
        split = static_cast<std::size_t>(
            std::upper_bound(pts.begin(), pts.end(), brk, [](double b, const transfer_point& p) { return b < p.size; }) -
            pts.begin());
    } else {
        std::optional<double> best_ssr;
        for (std::size_t i = 3; i + 3 <= pts.size(); ++i) {
            if (pts[i - 1].size == pts[i].size) continue;  // only between distinct sizes
            const std::span<const transfer_point> all(pts);
            const auto lo = detail::fit_model(all.first(i));
            const auto hi = detail::fit_model(all.subspan(i));
            if (!lo || !hi) continue;
            const double ssr = lo->ssr + hi->ssr;
            if (!best_ssr || ssr < *best_ssr) {
                best_ssr = ssr;
                split = i;
            }
        }
        if (!best_ssr)
            raise<invalid_argument>(-1, "fit_transfers: kernel '", kernel, "' has ", pts.size(), " records and ",
                                    detail::distinct_sizes(pts),
                                    " distinct sizes; finding a break needs a split with at least 3 fittable "
                                    "records on each side");
        brk = pts[split - 1].size;
    }
    const std::span<const transfer_point> all(pts);
    const auto small = fit_or_throw(all.first(split), "small");
    const auto large = fit_or_throw(all.subspan(split), "large");
    return {detail::to_transfer_fit(kernel, "small", small, brk), detail::to_transfer_fit(kernel, "large", large, brk)};
}

/// Bandwidth figures of `kernel`, one per hop value (ascending; records without `hops` count as
/// 1 hop), from the records with an integer `size` > 0 and samples.
///
/// bandwidth(N) = N / median time, in bytes per second (records that share a size and hop value
/// are pooled: the median of all their samples; a non-positive median gives no bandwidth).
/// peak is the largest measured bandwidth. n_half (n_90) is the smallest size at which the
/// bandwidth reaches 50% (90%) of peak: with sizes ascending, the first measured size N_i whose
/// bandwidth B_i ≥ level, interpolated linearly from the size before it,
///     n = N_(i−1) + (level − B_(i−1)) · (N_i − N_(i−1)) / (B_i − B_(i−1)),
/// or N_i itself when it is the smallest measured size (then read n as "at most N_i").
/// Every figure is NaN when no size of that hop value gives a bandwidth.
/// @code  for (const auto& b : comet::bandwidth(results, "echo")) use(b.hops, b.peak, b.n_half);  @endcode
inline std::vector<bandwidth_figures> bandwidth(const result_set& results, std::string_view kernel) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    // hops -> size -> pooled samples; std::map keeps both ascending, so the output is deterministic.
    std::map<std::int64_t, std::map<std::int64_t, std::vector<double>>> pooled;
    for (const record* r : results.of(kernel)) {
        const auto size = r->params.integer("size");
        if (!size) continue;
        const std::int64_t hops = detail::record_hops(*r, *size, "bandwidth");
        auto& by_size = pooled[hops];
        if (*size <= 0 || r->samples.empty()) continue;
        auto& s = by_size[*size];
        s.insert(s.end(), r->samples.begin(), r->samples.end());
    }

    std::vector<bandwidth_figures> out;
    for (const auto& [hops, by_size] : pooled) {
        std::vector<std::pair<double, double>> bw;  // (size, bandwidth), size ascending
        for (const auto& [size, samples] : by_size) {
            const double t = summarize(samples).median;
            if (t > 0.0 && std::isfinite(t)) bw.emplace_back(static_cast<double>(size), static_cast<double>(size) / t);
        }
        bandwidth_figures f{std::string(kernel), hops, nan, nan, nan};
        if (!bw.empty()) {
            f.peak = std::max_element(bw.begin(), bw.end(), [](const auto& a, const auto& b) {
                         return a.second < b.second;
                     })->second;
            const auto reach = [&](double level) {
                for (std::size_t i = 0; i < bw.size(); ++i) {
                    if (bw[i].second < level) continue;
                    if (i == 0) return bw[0].first;
                    const auto [n0, b0] = bw[i - 1];
                    const auto [n1, b1] = bw[i];
                    return n0 + (level - b0) * (n1 - n0) / (b1 - b0);
                }
                return nan;  // unreachable: the peak itself reaches every level ≤ peak
            };
            f.n_half = reach(0.5 * f.peak);
            f.n_90 = reach(0.9 * f.peak);
        }
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace comet
