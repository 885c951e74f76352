// comet/stats/fit.ipp — the definitions of comet/stats/fit.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/fit.hpp>

namespace comet {
namespace detail {

COMET_DECL double exact_ssr(double y_max, std::size_t points) {
    const double r = 1e-12 * y_max;
    return static_cast<double>(points) * r * r;
}

COMET_DECL model_fit fit_model(std::span<const transfer_point> pts) {
    model_fit f;
    for (const auto& p : pts)
        if (p.hops != pts.front().hops) f.joint = true;
    f.points = pts.size();
    f.params = f.joint ? 3 : 2;
    const auto n = static_cast<Eigen::Index>(pts.size());
    const auto cols = static_cast<Eigen::Index>(f.params);
    Eigen::MatrixXd x(n, cols);
    Eigen::VectorXd y(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        const auto& p = pts[static_cast<std::size_t>(i)];
        x(i, 0) = 1.0;
        x(i, 1) = p.size;
        if (f.joint) x(i, 2) = p.extra_hops;
        y(i) = p.time;
        f.y_max = std::max(f.y_max, std::fabs(p.time));
        f.size_max = std::max(f.size_max, std::fabs(p.size));
        f.extra_hops_max = std::max(f.extra_hops_max, std::fabs(p.extra_hops));
    }
    const auto ls = fit_least_squares(x, y);
    if (!ls) return f;
    f.singular = false;
    f.t_startup = ls->beta(0);
    f.t_per_byte = ls->beta(1);
    if (f.joint) f.hop = ls->beta(2);
    f.ssr = ls->ssr;
    if (f.dof() > 0) {
        const double sigma2 = f.ssr / static_cast<double>(f.dof());
        const auto se = [&](Eigen::Index c) { return std::sqrt(std::max(0.0, sigma2 * ls->xtx_inverse(c, c))); };
        f.t_startup_se = se(0);
        f.t_per_byte_se = se(1);
        if (f.joint) f.hop_se = se(2);
    }
    return f;
}

COMET_DECL std::vector<std::string> flags_of(const model_fit& m, double tolerance) {
    std::vector<std::string> flags;
    if (m.singular) flags.emplace_back(fit_flag::singular);
    if (m.points <= m.params) flags.emplace_back(fit_flag::too_few_points);
    if (m.singular) return flags;
    const auto negative = [&](double v, const std::optional<double>& se, double x_max) {
        const double zero = x_max > 0.0 ? 1e-9 * m.y_max / x_max : 0.0;
        return v < -std::max(tolerance * se.value_or(0.0), zero);
    };
    if (negative(m.t_startup, m.t_startup_se, 1.0)) flags.emplace_back(fit_flag::negative_startup);
    if (negative(m.t_per_byte, m.t_per_byte_se, m.size_max)) flags.emplace_back(fit_flag::negative_per_byte);
    if (m.joint && negative(m.hop, m.hop_se, m.extra_hops_max)) flags.emplace_back(fit_flag::negative_hop);
    return flags;
}

COMET_DECL transfer_fit to_transfer_fit(std::string_view kernel, std::string regime, const model_fit& m, double tolerance) {
    transfer_fit f;
    f.kernel = std::string(kernel);
    f.regime = std::move(regime);
    f.t_startup = m.t_startup;
    f.t_per_byte = m.t_per_byte;
    if (m.joint) f.hop = m.hop;
    f.residual = m.points == 0 ? std::numeric_limits<double>::quiet_NaN()
                               : std::sqrt(m.ssr / static_cast<double>(m.points));
    f.points = m.points;
    f.t_startup_se = m.t_startup_se;
    f.t_per_byte_se = m.t_per_byte_se;
    f.hop_se = m.hop_se;
    f.dof = m.dof();
    f.sigma = f.dof > 0 ? std::sqrt(m.ssr / static_cast<double>(f.dof)) : std::numeric_limits<double>::quiet_NaN();
    f.flags = flags_of(m, tolerance);
    return f;
}

COMET_DECL break_test f_test(double ssr_fewer, std::size_t params_fewer, double ssr_more, std::size_t params_more,
                             std::size_t points, double exact, std::size_t candidates, double alpha) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    break_test t;
    t.df1 = params_more - params_fewer;
    t.df2 = points - params_more;
    t.candidates = candidates;
    t.alpha = alpha;
    if (ssr_more <= exact)
        t.f = ssr_fewer > exact ? std::numeric_limits<double>::infinity() : nan;
    else
        t.f = (std::max(0.0, ssr_fewer - ssr_more) / static_cast<double>(t.df1)) /
              (ssr_more / static_cast<double>(t.df2));
    t.p_nominal = std::isnan(t.f) ? nan : f_sf(t.f, static_cast<double>(t.df1), static_cast<double>(t.df2));
    t.p = std::isnan(t.p_nominal) ? nan : std::min(1.0, static_cast<double>(candidates) * t.p_nominal);
    t.chosen = t.p < alpha;  // false for NaN
    return t;
}

COMET_DECL std::string regime_name(std::size_t i, std::size_t k) {
    if (k == 1) return "all";
    if (i == 0) return "small";
    if (i + 1 == k) return "large";
    return k == 3 ? "medium" : "medium" + std::to_string(i);
}

COMET_DECL std::vector<transfer_point> transfer_fit_points(const result_set& results, std::string_view kernel) {
    std::vector<transfer_point> pts;
    for (const record* r : results.of(kernel)) {
        const auto size = r->params.integer("size");
        if (!size || !usable(*r)) continue;
        const std::int64_t hops = record_hops(*r, *size, "fit_transfers");
        if (hops == 0) continue;
        pts.push_back({static_cast<double>(*size), static_cast<double>(hops - 1), hops, summarize(*r).median});
    }
    return pts;
}


/// The sequential search for breaks (see `transfer_fit_options::find_break`) over points sorted
/// by size. Splits are only made between two distinct sizes: `starts` holds the index of the
/// first point of each distinct size, and a regime is a range [g0, g1) of these groups.
/// Returns the group ranges of the regimes, in size order, and the tests made.
class break_search {
public:
    break_search(std::span<const transfer_point> pts, const transfer_fit_options& o) : pts_(pts), o_(o) {
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (i == 0 || pts[i].size != pts[i - 1].size) starts_.push_back(i);
        starts_.push_back(pts.size());
        for (const auto& p : pts) y_max_ = std::max(y_max_, std::fabs(p.time));
    }

    std::vector<std::pair<std::size_t, std::size_t>> run() {
        const std::size_t groups = starts_.size() - 1;
        std::vector<std::pair<std::size_t, std::size_t>> regimes{{0, groups}};
        const model_fit& whole = fit(0, groups);
        if (whole.singular) return regimes;
        double ssr = whole.ssr;
        std::size_t params = whole.params;
        const double exact = exact_ssr(y_max_, pts_.size());
        const std::size_t min_sizes = std::max<std::size_t>(o_.min_sizes, 2);  // a line needs two
        while (regimes.size() < std::max<std::size_t>(o_.max_regimes, 1)) {
            struct candidate {
                std::size_t regime, cut;
                double ssr;
                std::size_t params;
            };
            std::optional<candidate> best;
            std::size_t searched = 0;
            for (std::size_t r = 0; r < regimes.size(); ++r) {
                const auto [g0, g1] = regimes[r];
                const model_fit& parent = fit(g0, g1);
                for (std::size_t cut = g0 + min_sizes; cut + min_sizes <= g1; ++cut) {
                    const model_fit& lo = fit(g0, cut);
                    const model_fit& hi = fit(cut, g1);
                    if (lo.singular || hi.singular) continue;
                    const std::size_t p = params - parent.params + lo.params + hi.params;
                    if (p <= params || p >= pts_.size()) continue;  // adds nothing, or leaves no dof
                    ++searched;
                    const double s = ssr - parent.ssr + lo.ssr + hi.ssr;
                    if (!best || s < best->ssr) best = candidate{r, cut, s, p};  // the first (smaller) on a tie
                }
            }
            if (!best) {  // no regime can be split further: say so rather than stop silently
                constexpr double nan = std::numeric_limits<double>::quiet_NaN();
                break_test none;
                none.regimes = regimes.size();
                none.break_size = none.f = none.p_nominal = none.p = nan;
                none.alpha = o_.alpha;
                tests_.push_back(none);
                break;
            }
            // The current fit is exact: no split can improve on it but by rounding, and an F test
            // of rounding against rounding would find "breaks" in it.
            if (ssr <= exact) break;
            break_test t = f_test(ssr, params, best->ssr, best->params, pts_.size(), exact, searched, o_.alpha);
            t.regimes = regimes.size();
            t.break_size = pts_[starts_[best->cut] - 1].size;
            tests_.push_back(t);
            if (!t.chosen) break;
            const auto [g0, g1] = regimes[best->regime];
            regimes[best->regime] = {g0, best->cut};
            regimes.insert(regimes.begin() + static_cast<std::ptrdiff_t>(best->regime) + 1, {best->cut, g1});
            ssr = best->ssr;
            params = best->params;
        }
        return regimes;
    }

    const std::vector<break_test>& tests() const { return tests_; }
    std::span<const transfer_point> points(std::size_t g0, std::size_t g1) const {
        return pts_.subspan(starts_[g0], starts_[g1] - starts_[g0]);
    }
    const model_fit& fit(std::size_t g0, std::size_t g1) {
        auto it = cache_.find({g0, g1});
        if (it == cache_.end()) it = cache_.emplace(std::pair{g0, g1}, fit_model(points(g0, g1))).first;
        return it->second;
    }
    /// The largest size of group range [.., g1): the break above it.
    double size_before(std::size_t g1) const { return pts_[starts_[g1] - 1].size; }

private:
    std::span<const transfer_point> pts_;
    const transfer_fit_options& o_;
    std::vector<std::size_t> starts_;
    double y_max_ = 0.0;
    std::map<std::pair<std::size_t, std::size_t>, model_fit> cache_;
    std::vector<break_test> tests_;
};

}  // namespace detail
}  // namespace comet

namespace comet {

COMET_DECL std::vector<transfer_fit> fit_transfers(const result_set& results, std::string_view kernel,
                                                   const transfer_fit_options& options) {
    using detail::transfer_point;
    if (options.break_size && options.find_break)
        raise<invalid_argument>(-1, "fit_transfers: break_size = ", *options.break_size,
                                " given together with find_break; choose one");
    if (options.break_size && !std::isfinite(*options.break_size))
        raise<invalid_argument>(-1, "fit_transfers: break_size = ", *options.break_size, " is not finite");
    if (!(options.alpha > 0.0 && options.alpha < 1.0))
        raise<invalid_argument>(-1, "fit_transfers: alpha = ", options.alpha, " is outside (0, 1)");

    auto pts = detail::transfer_fit_points(results, kernel);
    if (pts.empty()) {
        // Records there are, but flagged as a whole (every sample disturbed, on a busy
        // machine): said apart from records that never could be fitted.
        const auto flagged = std::ranges::count_if(results.of(kernel), [](const record* r) { return !usable(*r); });
        raise<invalid_argument>(-1, "fit_transfers: kernel '", kernel,
                                "' has 0 records with an integer size, valid samples and a hop distance >= 1",
                                flagged > 0 ? " (" + std::to_string(flagged) + " flagged: no valid sample)" : std::string());
    }
    std::stable_sort(pts.begin(), pts.end(),
                     [](const transfer_point& a, const transfer_point& b) { return a.size < b.size; });
    const std::span<const transfer_point> all(pts);
    const double tol = options.negative_tolerance;

    if (options.break_size) {
        const double brk = *options.break_size;
        const auto split = static_cast<std::size_t>(
            std::upper_bound(pts.begin(), pts.end(), brk, [](double b, const transfer_point& p) { return b < p.size; }) -
            pts.begin());
        if (split == 0 || split == pts.size())
            raise<invalid_argument>(-1, "fit_transfers: kernel '", kernel, "' regime '", split == 0 ? "small" : "large",
                                    "' has 0 records: break_size = ", brk, " lies outside the measured sizes ",
                                    pts.front().size, " to ", pts.back().size);
        const auto small = detail::fit_model(all.first(split));
        const auto large = detail::fit_model(all.subspan(split));
        const auto whole = detail::fit_model(all);
        std::vector<break_test> tests;
        if (!whole.singular && !small.singular && !large.singular && small.params + large.params > whole.params &&
            small.params + large.params < pts.size()) {
            double y_max = 0.0;
            for (const auto& p : pts) y_max = std::max(y_max, std::fabs(p.time));
            break_test t = detail::f_test(whole.ssr, whole.params, small.ssr + large.ssr, small.params + large.params,
                                          pts.size(), detail::exact_ssr(y_max, pts.size()), 1, options.alpha);
            t.break_size = brk;
            t.given = true;
            t.chosen = true;
            tests.push_back(t);
        }
        std::vector<transfer_fit> out{detail::to_transfer_fit(kernel, "small", small, tol),
                                      detail::to_transfer_fit(kernel, "large", large, tol)};
        out[0].upper_break = out[1].lower_break = brk;
        for (auto& f : out) {
            f.break_size = brk;
            f.regimes = 2;
            f.break_tests = tests;
        }
        return out;
    }

    if (!options.find_break) return {detail::to_transfer_fit(kernel, "all", detail::fit_model(all), tol)};

    detail::break_search search(all, options);
    const auto regimes = search.run();
    std::vector<transfer_fit> out;
    for (std::size_t i = 0; i < regimes.size(); ++i) {
        const auto [g0, g1] = regimes[i];
        auto f = detail::to_transfer_fit(kernel, detail::regime_name(i, regimes.size()), search.fit(g0, g1), tol);
        if (i > 0) f.lower_break = search.size_before(g0);
        if (i + 1 < regimes.size()) f.upper_break = search.size_before(g1);
        f.break_size = f.upper_break ? f.upper_break : f.lower_break;
        f.regimes = regimes.size();
        f.break_tests = search.tests();
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace comet
