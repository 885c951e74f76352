// comet/stats/growth.hpp — the shapes of measured curves, as the CoMet thesis reads them
// (section 5.1 and 4.3): how a time grows with the number of nodes (a straight line in log P,
// figures 5.3, 5.6, 5.7), and whether it grows linearly or with the square of a parameter such
// as the matrix dimension (figures 5.13–5.16).
//
// Every function takes a kernel's records and returns plain structs (documented fields,
// seconds for times); nothing here prints, and every fit reports how well it explains the
// points. A record contributes one number, a statistic of its raw samples: the median unless
// the caller says otherwise. Which statistic a kernel's figure is read with (the thesis reads
// barrier by its least time) is the kernel's descriptor's to say (suite/descriptor.hpp), not
// something this room decides from a kernel's name.
//
// Curves: records are grouped by every param except the ones a function reads (so broadcast
// records make one log-P curve per `size`, matrix records one curve per `nodes`, ...); records
// of one group at the same x pool their samples.
//
// Deliberately not here: the transfer model t_startup + N·t_per_byte (fit.hpp), COMMTEST's
// a/b, LogGP parameters, and the analyses that know one kernel's params (contention's loads,
// overlap's modes: analysis/).
#pragma once

#include <comet/core/errors.hpp>
#include <comet/stats/distributions.hpp>
#include <comet/stats/least_squares.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet {

/// Which number of a record's samples stands for the record.
enum class statistic {
    median,  ///< the middle sample: robust to the slow outliers every timing has
    min,     ///< the least sample: the thesis' barrier figure (3.3.5, figure 5.6)
    mean,    ///< the arithmetic mean
};

/// "median", "min" or "mean".
inline const char* to_string(statistic s) noexcept {
    switch (s) {
    case statistic::min: return "min";
    case statistic::mean: return "mean";
    default: return "median";
    }
}

/// The value of `s` over `samples`; NaN when there are none.
/// @throws invalid_argument when a sample is NaN.
inline double statistic_of(std::span<const double> samples, statistic s) {
    const summary sum = summarize(samples);
    switch (s) {
    case statistic::min: return sum.min;
    case statistic::mean: return sum.mean;
    default: return sum.median;
    }
}

/// Options shared by the growth analyses.
struct growth_options {
    /// The statistic of each record's samples; unset: the median.
    std::optional<statistic> stat;
};

/// One point of a curve: the x value (nodes, matrix dimension, ...) and the statistic of the
/// pooled samples there, in seconds.
struct growth_point {
    double x = 0.0;
    double time = 0.0;

    friend bool operator==(const growth_point&, const growth_point&) = default;
};

/// Time against log2 P for one curve of a kernel: time = intercept + per_doubling · log2(nodes).
/// A good collective algorithm grows by a constant amount each time P doubles (thesis 5.1:
/// "the broadcast times ... increased linearly with the log number of processors"; "the global
/// reduction times increase almost linearly with the log of the number of processors").
struct log_p_fit {
    std::string kernel;
    comet::params group;        ///< the params shared by the curve's records, `nodes` left out (e.g. {size: 8})
    statistic stat = statistic::median;  ///< the statistic each record contributed
    double intercept = 0.0;     ///< seconds: the line's value at P = 1 (log2 P = 0)
    double per_doubling = 0.0;  ///< seconds added each time P doubles (the slope against log2 P)
    double residual = 0.0;      ///< seconds: root-mean-square of the residuals
    /// 1 − SS_res/SS_tot of the log-P line: the share of the variation of the times the line
    /// explains (1 = every point on it; 1 also when all times are equal). With 2 group sizes
    /// any line passes through both points, so it is 1 and says nothing: look at `points`.
    double r_squared = 0.0;
    /// R² of a straight line in P itself, fitted to the same points, for comparison: a series
    /// of sends from one root (a broadcast done naively) grows linearly in P, a tree in log P.
    double r_squared_linear_p = 0.0;
    /// True when the log-P line explains the points at least as well as the line in P
    /// (r_squared ≥ r_squared_linear_p); meaningful from 3 group sizes on.
    bool logarithmic = false;
    std::size_t points = 0;           ///< distinct group sizes fitted
    std::vector<growth_point> data;   ///< x = nodes (not its log), ascending; time = the statistic
};

/// A polynomial least-squares fit y = Σ coefficients[k] · x^k.
struct polynomial_fit {
    std::vector<double> coefficients;  ///< seconds per x^k, k = 0, 1, ...
    double residual = 0.0;             ///< seconds: root-mean-square of the residuals
    double r_squared = 0.0;            ///< 1 − SS_res/SS_tot (1 when all times are equal)
};

/// Which model describes a curve's growth.
enum class growth_model { linear, quadratic };

/// "linear" or "quadratic".
inline const char* to_string(growth_model m) noexcept { return m == growth_model::quadratic ? "quadratic" : "linear"; }

/// Linear against quadratic growth of one curve of a kernel in one parameter `x` (thesis 5.2:
/// update_guard, row and column broadcast grow linearly with the matrix dimension; shift and
/// transpose with its square).
///
/// The quadratic always fits at least as well (it contains the line), so "fits better" alone
/// would call every curve quadratic. The curve is called quadratic only when both hold:
/// - the square term carries the growth: `quadratic_share` ≥ 0.5, i.e. of the quadratic's rise
///   over the measured x range, at least half comes from c2·x² (a line with a kink — a protocol
///   change — bends a quadratic fit a little, but its rise stays in the linear term);
/// - the square term is more than noise: the nested-model F test rejects the line at the 5%
///   level (`f_statistic` > `f_critical`); with 3 points there is nothing left to test with,
///   and the share alone decides.
struct growth_comparison {
    std::string kernel;
    std::string x;               ///< the parameter the time grows in (e.g. "matrix_dim")
    comet::params group;         ///< the params shared by the curve's records, `x` left out
    statistic stat = statistic::median;
    polynomial_fit linear;       ///< t = c0 + c1·x
    polynomial_fit quadratic;    ///< t = c0 + c1·x + c2·x²
    /// c2·(x_max² − x_min²) / (q(x_max) − q(x_min)) for the quadratic q: the share of the fitted
    /// rise over the measured range that the square term accounts for (above 1 when the linear
    /// term falls). NaN when the fitted curve does not rise over the range.
    double quadratic_share = 0.0;
    /// (SS_lin − SS_quad) / (SS_quad / (n − 3)); +inf when the quadratic fits exactly and the
    /// line does not; NaN for 3 points or when both fit exactly.
    double f_statistic = 0.0;
    /// The 95% point of F(1, n − 3); NaN for 3 points.
    double f_critical = 0.0;
    growth_model model = growth_model::linear;  ///< the verdict, by the rule above
    std::size_t points = 0;                     ///< distinct x values fitted
    std::vector<growth_point> data;             ///< ascending x
};

namespace detail::growth {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// `p` without the named params and without the descriptive ones (`is_descriptive_param`),
/// which say how a point was measured, not which point it is.
inline params without(const params& p, std::initializer_list<std::string_view> names) {
    params out;
    for (const auto& [name, value] : p)
        if (std::find(names.begin(), names.end(), name) == names.end() && !is_descriptive_param(name)) out.set(name, value);
    return out;
}

/// The records of one curve: x value -> pooled samples.
struct curve {
    params key;
    std::map<double, std::vector<double>> by_x;
};

/// The curves of `kernel`: records with a numeric `x_param` and samples, grouped by their
/// params without `x_param` and `also_ignore`, in the order each group is first seen.
inline std::vector<curve> curves(const result_set& results, std::string_view kernel, std::string_view x_param,
                                 std::initializer_list<std::string_view> also_ignore = {}) {
    std::vector<curve> out;
    for (const record* r : results.of(kernel)) {
        const auto x = r->params.number(x_param);
        if (!x || r->samples.empty()) continue;
        params key = without(r->params, {x_param});
        if (also_ignore.size() != 0) key = without(key, also_ignore);
        auto it = std::find_if(out.begin(), out.end(), [&](const curve& c) { return c.key == key; });
        if (it == out.end()) it = out.insert(out.end(), curve{std::move(key), {}});
        auto& s = it->by_x[*x];
        s.insert(s.end(), r->samples.begin(), r->samples.end());
    }
    return out;
}

inline double r_squared(const Eigen::VectorXd& y, const Eigen::VectorXd& fitted) {
    const double mean = y.mean();
    const double ss_tot = (y.array() - mean).square().sum();
    const double ss_res = (y - fitted).squaredNorm();
    return ss_tot == 0.0 ? 1.0 : 1.0 - ss_res / ss_tot;
}

/// Least-squares polynomial of `degree` through (x, y); nullopt when the design is singular.
struct poly_result {
    polynomial_fit fit;
    double ssr = 0.0;
};
inline std::optional<poly_result> fit_polynomial(const std::vector<double>& x, const std::vector<double>& y, int degree) {
    const auto n = static_cast<Eigen::Index>(x.size());
    Eigen::MatrixXd a(n, degree + 1);
    Eigen::VectorXd b(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        double power = 1.0;
        for (int k = 0; k <= degree; ++k, power *= x[static_cast<std::size_t>(i)]) a(i, k) = power;
        b(i) = y[static_cast<std::size_t>(i)];
    }
    const auto beta = solve_least_squares(a, b);
    if (!beta) return std::nullopt;
    const Eigen::VectorXd fitted = a * *beta;
    poly_result r;
    r.fit.coefficients.assign(beta->data(), beta->data() + beta->size());
    r.fit.residual = residual_rms(b - fitted);
    r.fit.r_squared = r_squared(b, fitted);
    r.ssr = (b - fitted).squaredNorm();
    return r;
}

/// The statistics of the pooled samples of each x of `c`, ascending x.
inline std::vector<growth_point> points_of(const curve& c, statistic s) {
    std::vector<growth_point> pts;
    for (const auto& [x, samples] : c.by_x) pts.push_back({x, statistic_of(samples, s)});
    return pts;
}

inline double median_of(std::vector<double> v) { return v.empty() ? nan : summarize(v).median; }
inline double max_of(const std::vector<double>& v) { return v.empty() ? nan : *std::max_element(v.begin(), v.end()); }

}  // namespace detail::growth

/// Fits time against log2 P for every curve of `kernel` (records grouped by their params
/// without `nodes`: one curve per size for broadcast, per vector_length for global_sum, one for
/// barrier), from the records of several group sizes — the thesis' figures 5.3, 5.6 and 5.7.
/// Each record contributes `options.stat` of its samples (default: the median; the thesis'
/// barrier figure is the least time: pass `{.stat = statistic::min}`); records of one curve at
/// the same `nodes` pool their samples. Curves with fewer than 2 distinct group sizes are left out.
/// @throws invalid_argument when no curve of `kernel` has records at 2 or more group sizes
///         (the message lists the group sizes found), or a record's `nodes` is below 1.
/// @code
///   for (const auto& f : comet::fit_log_p(results, "global_sum"))
///       if (f.group.integer("vector_length") == 1) use(f.per_doubling, f.r_squared);
/// @endcode
inline std::vector<log_p_fit> fit_log_p(const result_set& results, std::string_view kernel,
                                        const growth_options& options = {}) {
    const statistic stat = options.stat.value_or(statistic::median);
    std::vector<log_p_fit> out;
    std::vector<double> seen;  // every group size found, for the error message
    for (const auto& c : detail::growth::curves(results, kernel, "nodes")) {
        for (const auto& [x, samples] : c.by_x) {
            if (!(x >= 1.0))
                raise<invalid_argument>(-1, "fit_log_p: kernel '", kernel, "' has a record at nodes = ", x,
                                        "; a group has at least 1 node");
            if (std::find(seen.begin(), seen.end(), x) == seen.end()) seen.push_back(x);
        }
        if (c.by_x.size() < 2) continue;
        log_p_fit f;
        f.kernel = std::string(kernel);
        f.group = c.key;
        f.stat = stat;
        f.data = detail::growth::points_of(c, stat);
        f.points = f.data.size();
        std::vector<double> log_p, p, time;
        for (const auto& pt : f.data) {
            log_p.push_back(std::log2(pt.x));
            p.push_back(pt.x);
            time.push_back(pt.time);
        }
        const auto in_log = detail::growth::fit_polynomial(log_p, time, 1);
        const auto in_p = detail::growth::fit_polynomial(p, time, 1);
        if (!in_log || !in_p) continue;  // unreachable with ≥ 2 distinct x
        f.intercept = in_log->fit.coefficients[0];
        f.per_doubling = in_log->fit.coefficients[1];
        f.residual = in_log->fit.residual;
        f.r_squared = in_log->fit.r_squared;
        f.r_squared_linear_p = in_p->fit.r_squared;
        f.logarithmic = f.r_squared >= f.r_squared_linear_p;
        out.push_back(std::move(f));
    }
    if (out.empty()) {
        std::sort(seen.begin(), seen.end());
        std::string found;
        for (double x : seen) found += (found.empty() ? "" : ", ") + std::to_string(static_cast<long long>(x));
        raise<invalid_argument>(-1, "fit_log_p: kernel '", kernel, "' has no curve with records at 2 or more group sizes",
                                " (group sizes found: ", found.empty() ? std::string("none") : found, ")");
    }
    return out;
}

/// Linear against quadratic growth of every curve of `kernel` in the numeric param `x_param`
/// (records grouped by their params without `x_param`), e.g. the matrix kernels' time against
/// `matrix_dim`. Each record contributes `options.stat` of its samples (default: the median); records of a curve at the same x pool their samples. The
/// verdict follows the rule documented at `growth_comparison`. Curves with fewer than 3
/// distinct x values are left out.
/// @throws invalid_argument when no curve of `kernel` has 3 or more distinct `x_param` values.
/// @code
///   for (const auto& g : comet::compare_growth(results, "shift_matrix", "matrix_dim"))
///       std::printf("%s (R² %.3f)\n", comet::to_string(g.model), g.quadratic.r_squared);
/// @endcode
inline std::vector<growth_comparison> compare_growth(const result_set& results, std::string_view kernel,
                                                     std::string_view x_param, const growth_options& options = {}) {
    using detail::growth::nan;
    const statistic stat = options.stat.value_or(statistic::median);
    std::vector<growth_comparison> out;
    std::size_t most = 0;
    for (const auto& c : detail::growth::curves(results, kernel, x_param)) {
        most = std::max(most, c.by_x.size());
        if (c.by_x.size() < 3) continue;
        growth_comparison g;
        g.kernel = std::string(kernel);
        g.x = std::string(x_param);
        g.group = c.key;
        g.stat = stat;
        g.data = detail::growth::points_of(c, stat);
        g.points = g.data.size();
        std::vector<double> x, time;
        for (const auto& pt : g.data) {
            x.push_back(pt.x);
            time.push_back(pt.time);
        }
        const auto lin = detail::growth::fit_polynomial(x, time, 1);
        const auto quad = detail::growth::fit_polynomial(x, time, 2);
        if (!lin || !quad) continue;  // x values too close together to tell a square from a line
        g.linear = lin->fit;
        g.quadratic = quad->fit;

        const auto& c2 = quad->fit.coefficients;
        const double lo = x.front(), hi = x.back();
        const auto q = [&](double v) { return c2[0] + c2[1] * v + c2[2] * v * v; };
        const double rise = q(hi) - q(lo);
        g.quadratic_share = rise > 0.0 ? c2[2] * (hi * hi - lo * lo) / rise : nan;

        const std::size_t dof = g.points - 3;
        if (dof == 0) {
            g.f_statistic = nan;
            g.f_critical = nan;
        } else {
            const double gain = lin->ssr - quad->ssr;
            g.f_statistic = quad->ssr > 0.0 ? std::max(gain, 0.0) / (quad->ssr / static_cast<double>(dof))
                            : (lin->ssr > 0.0 ? std::numeric_limits<double>::infinity() : nan);
            g.f_critical = f_quantile(0.95, 1.0, static_cast<double>(dof));
        }
        const bool square_carries = std::isfinite(g.quadratic_share) && g.quadratic_share >= 0.5;
        const bool beyond_noise = dof == 0 || g.f_statistic > g.f_critical;
        g.model = square_carries && beyond_noise ? growth_model::quadratic : growth_model::linear;
        out.push_back(std::move(g));
    }
    if (out.empty())
        raise<invalid_argument>(-1, "compare_growth: kernel '", kernel, "' has no curve with 3 or more distinct '", x_param,
                                "' values (the most found: ", most, ")");
    return out;
}

}  // namespace comet
