// comet/stats/growth.ipp — the definitions of comet/stats/growth.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/growth.hpp>

namespace comet {
namespace detail::growth {

COMET_DECL double r_squared(const std::vector<double>& y, double ssr) {
    double mean = 0.0;
    for (double v : y) mean += v;
    mean /= static_cast<double>(y.size());
    double ss_tot = 0.0;
    for (double v : y) ss_tot += (v - mean) * (v - mean);
    return ss_tot == 0.0 ? 1.0 : 1.0 - ssr / ss_tot;
}

COMET_DECL std::optional<poly_result> fit_polynomial(const std::vector<double>& x, const std::vector<double>& y, int degree) {
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
}  // namespace comet

namespace comet {

COMET_DECL std::vector<log_p_fit> fit_log_p(const result_set& results, std::string_view kernel,
                                            const growth_options& options) {
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
        f.flags = detail::growth::flags_of(c, stat, "nodes");
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

COMET_DECL std::vector<growth_comparison> compare_growth(const result_set& results, std::string_view kernel,
                                                         std::string_view x_param, const growth_options& options) {
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
        g.flags = detail::growth::flags_of(c, stat, x_param);
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
