// comet/stats/growth.hpp — the shapes of measured curves, as the CoMet thesis reads them
// (section 5.1 and 4.3): how collectives grow with the number of nodes (a straight line in
// log P, figures 5.3, 5.6, 5.7), whether a matrix kernel grows linearly or with the square of
// the matrix dimension (figures 5.13–5.16), how much cross traffic slows echo down (figure
// 5.5), and how much the asynchronous overlap kernel gains over the synchronous one (figures
// 5.9–5.12: "improvements of over 33% ... of large messages").
//
// Every function takes a kernel's records and returns plain structs (documented fields,
// seconds for times); nothing here prints, and every fit reports how well it explains the
// points. A record contributes one number, a statistic of its raw samples: the median by
// default (robust to the slow outliers timings have), the minimum for barrier (the thesis'
// figure is the least barrier time) — see `default_statistic`.
//
// Curves: records are grouped by every param except the ones a function reads (so broadcast
// records make one log-P curve per `size`, matrix records one curve per `nodes`, ...); records
// of one group at the same x pool their samples.
//
// Deliberately not here: the transfer model t_startup + N·t_per_byte (fit.hpp), COMMTEST's
// a/b, and LogGP parameters.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/stats/fit.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <array>
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
    min,     ///< the least sample: what the barrier kernel reports (thesis 3.3.5)
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

/// The statistic a kernel's figure is read with: `min` for "barrier" (the least time of a
/// barrier, thesis 3.3.5), `median` for every other kernel.
inline statistic default_statistic(std::string_view kernel) noexcept {
    return kernel == "barrier" ? statistic::min : statistic::median;
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
    /// The statistic of each record's samples; unset: `default_statistic(kernel)`.
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

/// Echo time under a load against the idle echo time at one size.
struct slowdown_point {
    std::int64_t size = 0;  ///< bytes: the echo message size
    double idle = 0.0;      ///< seconds: the statistic of the idle (load 0) record
    double loaded = 0.0;    ///< seconds: the statistic of the loaded record
    double ratio = 0.0;     ///< loaded / idle: 1 = no slow-down, 2 = twice as slow
};

/// How much one load slows echo down, per size and summarised (thesis figure 5.5: "the echo
/// test runs slower under increased loads").
struct contention_slowdown {
    std::string kernel;
    comet::params group;     ///< the params shared by the records (nodes, hops, ...), size, load and cross_size left out
    double load = 0.0;       ///< fraction of peak echo bandwidth (0.5, 0.9)
    std::int64_t cross_size = 0;  ///< bytes: the cross-traffic message size of the load
    statistic stat = statistic::median;
    std::vector<slowdown_point> points;  ///< sizes with both an idle and a loaded time (idle > 0), ascending
    double median_ratio = 0.0;     ///< median of the points' ratios
    double geometric_mean_ratio = 0.0;  ///< exp(mean(log ratio)): the typical factor, fair to ratios
    double min_ratio = 0.0;
    double max_ratio = 0.0;
};

/// Synchronous against asynchronous overlap at one message size and vector length.
struct overlap_point {
    std::int64_t size = 0;           ///< bytes exchanged each way
    std::int64_t vector_length = 0;  ///< doubles in the DAXPY
    double sync = 0.0;               ///< seconds: the statistic of the "sync" record
    double async = 0.0;              ///< seconds: the statistic of the "async" record
    double gain = 0.0;               ///< sync / async: above 1 when overlapping pays
    double saved = 0.0;              ///< 1 − async/sync: the fraction of the time saved (the thesis' "33%")
    /// (comm + comp − async) / min(comm, comp): the fraction of the time that could be hidden
    /// that the asynchronous version did hide (0: it took comm + comp, no overlap; 1: it took
    /// max(comm, comp), the shorter fully hidden). comm = the ASYNC time at this size with
    /// vector length 0 (the asynchronous exchange alone), comp = the "daxpy" baseline at this
    /// vector length. Measured against the asynchronous exchange rather than the synchronous
    /// one on purpose: `gain` also counts what the asynchronous calls save by themselves (the
    /// thesis: a message "copied directly into user space, avoiding a memory copy"; on the
    /// threads transport two blocking sends that both go first each take a buffered copy),
    /// which is no overlap. NaN at vector length 0 (nothing to hide), when comm or comp is
    /// missing, or when min(comm, comp) ≤ 0. Noisy where comp or comm is tiny.
    double hidden = 0.0;
};

/// The overlap gain of one message size, over its vector lengths above 0.
struct overlap_size_gain {
    std::int64_t size = 0;
    std::size_t points = 0;     ///< vector lengths > 0 with both modes
    double median_gain = 0.0;   ///< NaN when points is 0
    double max_gain = 0.0;
    double median_saved = 0.0;
    double max_saved = 0.0;
};

/// Overlap gains of one group of overlap records (one `nodes`, one `hops`, ...).
struct overlap_gain {
    std::string kernel;
    comet::params group;  ///< the params shared by the records; size, vector_length and mode left out
    statistic stat = statistic::median;
    std::vector<overlap_point> points;      ///< every (size, vector_length) with both modes: size, then vector_length ascending
    std::vector<overlap_size_gain> sizes;   ///< per size, ascending
    /// The "large messages" summary (thesis 5.1: "improvements of over 33% when overlapping a
    /// pairwise transfer of large messages with double precision computation"): the points with
    /// size ≥ large_size and vector_length > 0.
    std::int64_t large_size = 0;
    std::size_t large_points = 0;
    double large_median_gain = 0.0;   ///< NaN when large_points is 0
    double large_max_gain = 0.0;
    double large_median_saved = 0.0;
    double large_max_saved = 0.0;
};

/// Options of `overlap_gains`.
struct overlap_gain_options {
    /// The statistic of each record's samples; unset: median.
    std::optional<statistic> stat;
    /// The smallest message size summarised as "large"; unset: the largest size measured.
    std::optional<std::int64_t> large_size;
};

namespace detail::growth {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// `p` without the named params.
inline params without(const params& p, std::initializer_list<std::string_view> names) {
    params out;
    for (const auto& [name, value] : p)
        if (std::find(names.begin(), names.end(), name) == names.end()) out.set(name, value);
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

/// The 97.5% point of Student's t with `dof` degrees of freedom: a table for 1..30 (to 6
/// digits), the Cornish–Fisher expansion beyond (error below 1e-6 there).
inline double t_975(std::size_t dof) {
    static constexpr std::array<double, 30> table = {
        12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
        2.200985,  2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
        2.079614,  2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272};
    if (dof >= 1 && dof <= table.size()) return table[dof - 1];
    const double z = 1.959963984540054, v = static_cast<double>(dof);
    const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
    return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
           (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
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
/// Each record contributes `options.stat` of its samples (default: `default_statistic(kernel)`:
/// the least time for barrier, the median otherwise); records of one curve at the same `nodes`
/// pool their samples. Curves with fewer than 2 distinct group sizes are left out.
/// @throws invalid_argument when no curve of `kernel` has records at 2 or more group sizes
///         (the message lists the group sizes found), or a record's `nodes` is below 1.
/// @code
///   for (const auto& f : comet::fit_log_p(results, "global_sum"))
///       if (f.group.integer("vector_length") == 1) use(f.per_doubling, f.r_squared);
/// @endcode
inline std::vector<log_p_fit> fit_log_p(const result_set& results, std::string_view kernel,
                                        const growth_options& options = {}) {
    const statistic stat = options.stat.value_or(default_statistic(kernel));
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
/// `matrix_dim`. Each record contributes `options.stat` of its samples (default:
/// `default_statistic(kernel)`); records of a curve at the same x pool their samples. The
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
    const statistic stat = options.stat.value_or(default_statistic(kernel));
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
            const double t = detail::growth::t_975(dof);
            g.f_critical = t * t;  // F(1, ν) at 95% is t(ν) at 97.5%, squared
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

/// Slow-down of echo under each load against the idle run (thesis figure 5.5), from the
/// records of the contention kernel: for every group (records grouped by their params without
/// size, load and cross_size — so per nodes and hops) and every load above 0, the ratio
/// loaded/idle of each size that has both (and an idle time above 0), and its median,
/// geometric mean, least and largest. Default statistic: the median.
/// @throws invalid_argument when no loaded record has an idle record of the same size and group.
/// @code
///   for (const auto& s : comet::contention_slowdowns(results))
///       std::printf("load %.1f: echo %.2fx slower (median over sizes)\n", s.load, s.median_ratio);
/// @endcode
inline std::vector<contention_slowdown> contention_slowdowns(const result_set& results,
                                                             const growth_options& options = {},
                                                             std::string_view kernel = "contention") {
    const statistic stat = options.stat.value_or(default_statistic(kernel));
    struct load_curve {
        double load;
        std::int64_t cross;
        std::map<std::int64_t, std::vector<double>> by_size;
    };
    struct group {
        params key;
        std::map<std::int64_t, std::vector<double>> idle;
        std::vector<load_curve> loads;  // first-seen order
    };
    std::vector<group> groups;
    for (const record* r : results.of(kernel)) {
        const auto size = r->params.integer("size");
        const auto load = r->params.number("load");
        if (!size || !load || r->samples.empty()) continue;
        params key = detail::growth::without(r->params, {"size", "load", "cross_size"});
        auto g = std::find_if(groups.begin(), groups.end(), [&](const group& x) { return x.key == key; });
        if (g == groups.end()) g = groups.insert(groups.end(), group{std::move(key), {}, {}});
        std::vector<double>* into = nullptr;
        if (*load == 0.0) {
            into = &g->idle[*size];
        } else {
            const std::int64_t cross = r->params.integer("cross_size").value_or(0);
            auto l = std::find_if(g->loads.begin(), g->loads.end(),
                                  [&](const load_curve& x) { return x.load == *load && x.cross == cross; });
            if (l == g->loads.end()) l = g->loads.insert(g->loads.end(), load_curve{*load, cross, {}});
            into = &l->by_size[*size];
        }
        into->insert(into->end(), r->samples.begin(), r->samples.end());
    }

    std::vector<contention_slowdown> out;
    for (const auto& g : groups)
        for (const auto& l : g.loads) {
            contention_slowdown s;
            s.kernel = std::string(kernel);
            s.group = g.key;
            s.load = l.load;
            s.cross_size = l.cross;
            s.stat = stat;
            std::vector<double> ratios;
            double log_sum = 0.0;
            for (const auto& [size, samples] : l.by_size) {
                const auto idle = g.idle.find(size);
                if (idle == g.idle.end()) continue;
                const double t0 = statistic_of(idle->second, stat);
                const double t1 = statistic_of(samples, stat);
                if (!(t0 > 0.0) || !std::isfinite(t1)) continue;
                s.points.push_back({size, t0, t1, t1 / t0});
                ratios.push_back(t1 / t0);
                log_sum += std::log(std::max(t1 / t0, std::numeric_limits<double>::min()));
            }
            if (ratios.empty()) continue;
            s.median_ratio = detail::growth::median_of(ratios);
            s.geometric_mean_ratio = std::exp(log_sum / static_cast<double>(ratios.size()));
            s.min_ratio = *std::min_element(ratios.begin(), ratios.end());
            s.max_ratio = *std::max_element(ratios.begin(), ratios.end());
            out.push_back(std::move(s));
        }
    if (out.empty())
        raise<invalid_argument>(-1, "contention_slowdowns: kernel '", kernel,
                                "' has no loaded record with an idle (load 0) record of the same size, nodes and hops");
    return out;
}

/// Overlap gains (thesis figures 5.9–5.12), from the records of the overlap kernel: for every
/// group (records grouped by their params without size, vector_length and mode — so per nodes
/// and hops), sync/async per (size, vector_length) measured in both modes, the fraction of
/// the hideable time that was hidden (with the "daxpy" baseline), a summary per size, and the
/// "large messages" summary over sizes ≥ `large_size` (default: the largest size measured)
/// with vector lengths above 0. Default statistic: the median.
/// @throws invalid_argument when no (size, vector_length) has both a "sync" and an "async" record.
/// @code
///   for (const auto& g : comet::overlap_gains(results))
///       std::printf("large messages: async saves %.0f%% (median)\n", 100 * g.large_median_saved);
/// @endcode
inline std::vector<overlap_gain> overlap_gains(const result_set& results, const overlap_gain_options& options = {},
                                               std::string_view kernel = "overlap") {
    using detail::growth::nan;
    const statistic stat = options.stat.value_or(statistic::median);
    using grid = std::map<std::pair<std::int64_t, std::int64_t>, std::vector<double>>;  // (size, vector_length)
    struct group {
        params key;
        grid sync, async;
        std::map<std::int64_t, std::vector<double>> daxpy;  // vector_length -> samples
    };
    std::vector<group> groups;
    for (const record* r : results.of(kernel)) {
        const auto n = r->params.integer("vector_length");
        const auto mode = r->params.text("mode");
        if (!n || !mode || r->samples.empty()) continue;
        params key = detail::growth::without(r->params, {"size", "vector_length", "mode"});
        auto g = std::find_if(groups.begin(), groups.end(), [&](const group& x) { return x.key == key; });
        if (g == groups.end()) g = groups.insert(groups.end(), group{std::move(key), {}, {}, {}});
        std::vector<double>* into = nullptr;
        if (*mode == "daxpy") {
            into = &g->daxpy[*n];
        } else {
            const auto size = r->params.integer("size");
            if (!size || (*mode != "sync" && *mode != "async")) continue;
            into = &(*mode == "sync" ? g->sync : g->async)[{*size, *n}];
        }
        into->insert(into->end(), r->samples.begin(), r->samples.end());
    }

    std::vector<overlap_gain> out;
    for (const auto& g : groups) {
        overlap_gain o;
        o.kernel = std::string(kernel);
        o.group = g.key;
        o.stat = stat;
        for (const auto& [at, samples] : g.sync) {
            const auto a = g.async.find(at);
            if (a == g.async.end()) continue;
            overlap_point pt;
            pt.size = at.first;
            pt.vector_length = at.second;
            pt.sync = statistic_of(samples, stat);
            pt.async = statistic_of(a->second, stat);
            pt.gain = pt.async > 0.0 ? pt.sync / pt.async : nan;
            pt.saved = pt.sync > 0.0 ? 1.0 - pt.async / pt.sync : nan;
            pt.hidden = nan;
            const auto comm = g.async.find({at.first, 0});
            const auto comp = g.daxpy.find(at.second);
            if (at.second > 0 && comm != g.async.end() && comp != g.daxpy.end()) {
                const double t_comm = statistic_of(comm->second, stat), t_comp = statistic_of(comp->second, stat);
                const double hideable = std::min(t_comm, t_comp);
                if (hideable > 0.0) pt.hidden = (t_comm + t_comp - pt.async) / hideable;
            }
            o.points.push_back(pt);
        }
        if (o.points.empty()) continue;
        o.large_size = options.large_size.value_or(o.points.back().size);  // points are size-ascending
        std::vector<double> large_gain, large_saved;
        for (std::size_t i = 0; i < o.points.size();) {
            overlap_size_gain s;
            s.size = o.points[i].size;
            std::vector<double> gain, saved;
            for (; i < o.points.size() && o.points[i].size == s.size; ++i) {
                const auto& pt = o.points[i];
                if (pt.vector_length <= 0 || !std::isfinite(pt.gain) || !std::isfinite(pt.saved)) continue;
                gain.push_back(pt.gain);
                saved.push_back(pt.saved);
                if (pt.size >= o.large_size) {
                    large_gain.push_back(pt.gain);
                    large_saved.push_back(pt.saved);
                }
            }
            s.points = gain.size();
            s.median_gain = detail::growth::median_of(gain);
            s.max_gain = detail::growth::max_of(gain);
            s.median_saved = detail::growth::median_of(saved);
            s.max_saved = detail::growth::max_of(saved);
            o.sizes.push_back(s);
        }
        o.large_points = large_gain.size();
        o.large_median_gain = detail::growth::median_of(large_gain);
        o.large_max_gain = detail::growth::max_of(large_gain);
        o.large_median_saved = detail::growth::median_of(large_saved);
        o.large_max_saved = detail::growth::max_of(large_saved);
        out.push_back(std::move(o));
    }
    if (out.empty())
        raise<invalid_argument>(-1, "overlap_gains: kernel '", kernel,
                                "' has no (size, vector_length) measured in both modes \"sync\" and \"async\"");
    return out;
}

}  // namespace comet
