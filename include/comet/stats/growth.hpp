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
// Curves (curves.hpp): records are grouped by every param except the ones a function reads (so
// broadcast records make one log-P curve per `size`, matrix records one curve per `nodes`, ...);
// records of one group at the same x pool their samples.
//
// The structs these fits return are in fit_results.hpp, which is all a reader of them needs;
// this header adds the fitting, and with it least_squares.hpp and Eigen.
// Deliberately not here: the transfer model t_startup + N·t_per_byte (fit.hpp), COMMTEST's
// a/b, LogGP parameters, and the analyses that know one kernel's params (contention's loads,
// overlap's modes: analysis/).
#pragma once

#include <comet/core/errors.hpp>
#include <comet/stats/curves.hpp>
#include <comet/stats/distributions.hpp>
#include <comet/stats/fit_results.hpp>
#include <comet/stats/least_squares.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet {

namespace detail::growth {

/// 1 − SS_res/SS_tot of a fit to `y` that left `ssr`; 1 when all of `y` are equal.
inline double r_squared(const std::vector<double>& y, double ssr) {
    double mean = 0.0;
    for (double v : y) mean += v;
    mean /= static_cast<double>(y.size());
    double ss_tot = 0.0;
    for (double v : y) ss_tot += (v - mean) * (v - mean);
    return ss_tot == 0.0 ? 1.0 : 1.0 - ssr / ss_tot;
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
    const auto ls = fit_least_squares(a, b);
    if (!ls) return std::nullopt;
    poly_result r;
    r.fit.coefficients.assign(ls->beta.data(), ls->beta.data() + ls->beta.size());
    r.ssr = ls->ssr;
    r.fit.residual = n == 0 ? 0.0 : std::sqrt(r.ssr / static_cast<double>(n));
    r.fit.r_squared = r_squared(y, r.ssr);
    return r;
}

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
