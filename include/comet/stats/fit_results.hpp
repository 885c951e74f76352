// comet/stats/fit_results.hpp — what the fits return, as analysis/ and report/ read them: the
// transfer model's fits with their F tests and flags (made by fit.hpp), the log-P fits and the
// linear-against-quadratic comparisons of curves (made by growth.hpp).
//
// Why apart from the fitting: the fits solve least squares with Eigen, whose headers and
// templates cost every translation unit that includes them over a second of compile time; a
// reporter, an analysis or a kernel that only reads a fit includes this header instead. Deliberately not here: any fitting
// (fit.hpp, growth.hpp, least_squares.hpp) and the options of a fit (transfer_fit_options:
// fit.hpp; growth_options: curves.hpp).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/stats/curves.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace comet {

/// Why a fit is not a result. A flagged fit keeps its estimates for diagnosis, but every
/// reporter shows it as flagged (JSON: `"valid": false` and `null` coefficients).
namespace fit_flag {
/// The design matrix is rank deficient (one size only; hops that move with the size): no
/// unique coefficients exist. The coefficients are NaN.
inline constexpr std::string_view singular = "singular";
/// No residual degree of freedom is left (points ≤ coefficients): the fit passes through every
/// point, and neither its residual nor its standard errors say anything.
inline constexpr std::string_view too_few_points = "too_few_points";
/// t_startup, t_per_byte or hop below zero by more than its standard error (times
/// `transfer_fit_options::negative_tolerance`): no transfer takes negative time, so the model
/// does not describe these points (the wrong regimes, a placement change within the sweep...).
inline constexpr std::string_view negative_startup = "negative_startup";
inline constexpr std::string_view negative_per_byte = "negative_per_byte";
inline constexpr std::string_view negative_hop = "negative_hop";
}  // namespace fit_flag

/// A flag in words, for tables: "negative hop", "singular design", "too few points".
COMET_DECL std::string fit_flag_text(std::string_view flag);

/// "flagged: negative hop, too few points".
COMET_DECL std::string fit_flags_text(const std::vector<std::string>& flags);

/// One F test of "one more regime" against the fit without it: does splitting a regime at
/// `break_size` lower the summed squared residual by more than chance would?
///     F = ((SSR_fewer − SSR_more) / df1) / (SSR_more / df2)
/// df1 = the coefficients the split adds, df2 = points − coefficients of the split fit.
struct break_test {
    std::size_t regimes = 1;     ///< regimes before the split (the test is regimes + 1 against regimes)
    double break_size = 0.0;     ///< bytes: the split tested, the largest size below it; NaN when no split was testable
    double f = 0.0;              ///< the F statistic; +inf when the split fits exactly and the fit without it does not
    std::size_t df1 = 0;
    std::size_t df2 = 0;
    double p_nominal = 0.0;      ///< P(F(df1, df2) > f): the p-value were the split fixed in advance
    std::size_t candidates = 0;  ///< splits searched for this step (1 for a given break; 0: none testable)
    double p = 0.0;              ///< min(1, candidates · p_nominal): the p-value the decision uses
    double alpha = 0.05;         ///< the level the test is made at
    bool given = false;          ///< the break was given (`break_size` option), not searched
    bool chosen = false;         ///< the split was made (p < alpha, or given)
};

/// One fit of the transfer model t(N) = t_startup + N·t_per_byte [+ (n − 1)·hop] to the median
/// times of one regime of one kernel's records.
///
/// The first eight fields are as before the flags existed; aggregate initialisation with them
/// alone still works (a fit without standard errors, valid).
struct transfer_fit {
    std::string kernel;
    std::string regime;              ///< "all"; "small", "large"; "small", "medium", "large"; "small", "medium1", ..., "large"
    double t_startup = 0.0;          ///< seconds: the time of a 0-byte message over one hop
    double t_per_byte = 0.0;         ///< seconds per byte
    std::optional<double> hop;       ///< seconds per extra hop; only when the regime's records span ≥ 2 hop values
    double residual = 0.0;           ///< seconds: root-mean-square of the residuals, sqrt(SSR/points)
    std::size_t points = 0;          ///< records fitted
    /// bytes: the break that bounds this regime ("small"/"large" of a two-regime fit: the one
    /// break; with more regimes `upper_break`, or `lower_break` for the last). Empty for "all".
    std::optional<double> break_size;

    std::optional<double> t_startup_se;   ///< standard error of t_startup (empty when dof = 0 or singular)
    std::optional<double> t_per_byte_se;  ///< standard error of t_per_byte
    std::optional<double> hop_se;         ///< standard error of hop (empty without a hop term)
    double sigma = std::numeric_limits<double>::quiet_NaN();  ///< seconds: residual standard error sqrt(SSR/dof); NaN when dof = 0 or not computed
    std::size_t dof = 0;                  ///< residual degrees of freedom: points − coefficients
    std::optional<double> lower_break;    ///< bytes: the regime holds sizes > lower_break (empty: from the smallest)
    std::optional<double> upper_break;    ///< bytes: the regime holds sizes ≤ upper_break (empty: to the largest)
    std::size_t regimes = 1;              ///< how many regimes this kernel's fit has
    /// The F tests that decided the regimes, in order (the same list on every regime of the
    /// kernel): each accepted split, then the first one refused. Empty when no break was
    /// searched or given.
    std::vector<break_test> break_tests;
    /// Why this fit is not a result (`fit_flag`); empty for a valid fit.
    std::vector<std::string> flags;

    /// True when nothing is flagged: the coefficients may be shown as a result.
    bool valid() const noexcept { return flags.empty(); }
    bool flagged(std::string_view flag) const noexcept {
        return std::find(flags.begin(), flags.end(), flag) != flags.end();
    }
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
    /// Where a point's statistic is flagged (its samples disagree): the group sizes, and why at
    /// the first; every figure of the line then rests on it. Empty when none is.
    std::vector<std::string> flags = {};
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
    /// As `log_p_fit::flags`: the x values whose statistic is flagged. Empty when none is.
    std::vector<std::string> flags = {};
};

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/fit_results.ipp>
#endif
