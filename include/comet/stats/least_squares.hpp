// comet/stats/least_squares.hpp — the least-squares core every fit in stats/ stands on: a
// rank-revealing solve of X·β ≈ y that also gives (XᵀX)⁻¹ for standard errors, and the straight
// line y = intercept + slope·x with the standard errors of both coefficients.
//
// Why column-pivoting QR on scaled columns: message sizes (up to 1e6) and an intercept column
// (1) differ by orders of magnitude; QR works on X itself rather than on XᵀX (whose condition
// number is X's squared), and pivoting reveals a rank-deficient design (one size, hops that
// move with the size) instead of returning nonsense.
//
// stats/' one door to Eigen: fit.hpp and growth.hpp reach it through this header.
// Deliberately not here: the transfer model and its breaks (fit.hpp), polynomials and log-P
// curves (growth.hpp), weighted least squares.
#pragma once

#include <comet/core/errors.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace comet {

/// y = intercept + slope·x, fitted by least squares.
struct line_fit {
    double intercept = 0.0;
    double slope = 0.0;
    double residual = 0.0;  ///< root-mean-square of the residuals, sqrt(Σr²/points), same unit as y
    std::size_t points = 0;
    std::optional<double> intercept_se;  ///< standard error of the intercept; empty when dof = 0
    std::optional<double> slope_se;      ///< standard error of the slope; empty when dof = 0
    std::size_t dof = 0;                 ///< residual degrees of freedom, points − 2
};

namespace detail {

/// A least-squares solution with what its uncertainty needs.
struct least_squares {
    Eigen::VectorXd beta;
    Eigen::MatrixXd xtx_inverse;  ///< (XᵀX)⁻¹ in the units of the unscaled columns
    double ssr = 0.0;             ///< summed squared residual
};

/// Least squares X·beta ≈ y with (XᵀX)⁻¹. Each column is scaled to unit maximum first: sizes (up
/// to 1e6) and an intercept column (1) differ by orders of magnitude, and the rank decision of
/// the pivoting QR compares column norms, so unscaled it could call a perfectly good design
/// singular (or a singular one good). Returns nullopt when X is rank deficient.
///
/// (XᵀX)⁻¹ comes from the QR factors, X_s·P = Q·R ⇒ (X_sᵀX_s)⁻¹ = P·R⁻¹·R⁻ᵀ·Pᵀ, never from
/// forming XᵀX, whose condition number is the square of X's.
inline std::optional<least_squares> fit_least_squares(Eigen::MatrixXd x, const Eigen::VectorXd& y) {
    const Eigen::Index k = x.cols();
    Eigen::VectorXd scale(k);
    for (Eigen::Index c = 0; c < k; ++c) {
        const double m = x.rows() > 0 ? x.col(c).cwiseAbs().maxCoeff() : 0.0;
        scale(c) = m > 0.0 ? m : 1.0;
        x.col(c) /= scale(c);
    }
    if (x.rows() < k) return std::nullopt;
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(x.rows(), k);
    // Eigen's default rank threshold (a few ulps) lets rounding noise of an exactly collinear
    // design (a hop column that is a copy of the size column) pass as rank. With unit-scaled
    // columns, a pivot 1e-10 of the largest means the columns are dependent for all purposes.
    qr.setThreshold(1e-10);
    qr.compute(x);
    if (qr.rank() < k) return std::nullopt;
    const Eigen::VectorXd beta_scaled = qr.solve(y);
    // (X_sᵀX_s)⁻¹ = P·R⁻¹·R⁻ᵀ·Pᵀ by back substitution on the k×k triangle (k ≤ 3 here),
    // written out rather than with Eigen's triangular solve and permutation products: those
    // templates cost ~0.6 s of compile time in every translation unit that includes this header.
    const auto& qr_r = qr.matrixQR();  // R is its upper triangle
    const auto& perm = qr.colsPermutation().indices();
    std::vector<double> r_inv(static_cast<std::size_t>(k * k), 0.0);  // R⁻¹, row-major, upper triangle
    const auto at = [&](Eigen::Index i, Eigen::Index j) -> double& { return r_inv[static_cast<std::size_t>(i * k + j)]; };
    for (Eigen::Index j = 0; j < k; ++j) {
        at(j, j) = 1.0 / qr_r(j, j);
        for (Eigen::Index i = j - 1; i >= 0; --i) {
            double sum = 0.0;
            for (Eigen::Index m = i + 1; m <= j; ++m) sum += qr_r(i, m) * at(m, j);
            at(i, j) = -sum / qr_r(i, i);
        }
    }
    least_squares out;
    out.beta = beta_scaled;
    out.xtx_inverse = Eigen::MatrixXd::Zero(k, k);
    for (Eigen::Index a = 0; a < k; ++a)
        for (Eigen::Index b = 0; b < k; ++b) {
            double c = 0.0;  // (R⁻¹·R⁻ᵀ)(a, b)
            for (Eigen::Index m = std::max(a, b); m < k; ++m) c += at(a, m) * at(b, m);
            // P maps position a to column perm(a); the scaling undoes x_s = x / scale.
            out.xtx_inverse(perm(a), perm(b)) = c / (scale(perm(a)) * scale(perm(b)));
        }
    for (Eigen::Index c = 0; c < k; ++c) out.beta(c) /= scale(c);
    out.ssr = (y - x * beta_scaled).squaredNorm();
    return out;
}

/// The coefficients of X·beta ≈ y alone (growth.hpp's polynomials); nullopt when singular.
inline std::optional<Eigen::VectorXd> solve_least_squares(Eigen::MatrixXd x, const Eigen::VectorXd& y) {
    auto f = fit_least_squares(std::move(x), y);
    if (!f) return std::nullopt;
    return std::move(f->beta);
}

inline double residual_rms(const Eigen::VectorXd& r) {
    return r.size() == 0 ? 0.0 : std::sqrt(r.squaredNorm() / static_cast<double>(r.size()));
}

}  // namespace detail

/// Fits y = intercept + slope·x by least squares (Eigen's column-pivoting Householder QR), with
/// the standard errors of both coefficients (from 3 points on).
/// @throws invalid_argument when the sizes differ, there are fewer than 2 points, every x is
///         the same, or a value is not finite.
/// @code  auto f = comet::fit_line(sizes, times);  // f.intercept, f.slope, f.slope_se, f.residual  @endcode
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
    const auto ls = detail::fit_least_squares(a, b);
    if (!ls)  // distinct x, but numerically collinear with the intercept (say 1 and 1 + 1e-12)
        raise<invalid_argument>(-1, "fit_line: the ", x.size(), " x values are too close together to fit a slope");
    line_fit f;
    f.intercept = ls->beta(0);
    f.slope = ls->beta(1);
    f.residual = std::sqrt(ls->ssr / static_cast<double>(n));
    f.points = x.size();
    f.dof = x.size() - 2;
    if (f.dof > 0) {
        const double sigma2 = ls->ssr / static_cast<double>(f.dof);
        f.intercept_se = std::sqrt(std::max(0.0, sigma2 * ls->xtx_inverse(0, 0)));
        f.slope_se = std::sqrt(std::max(0.0, sigma2 * ls->xtx_inverse(1, 1)));
    }
    return f;
}

}  // namespace comet
