// comet/stats/least_squares.hpp — the least-squares core every fit in stats/ stands on: a
// rank-revealing solve of X·β ≈ y that also gives (XᵀX)⁻¹ for standard errors, and the straight
// line y = intercept + slope·x with the standard errors of both coefficients.
//
// Why column-pivoting QR on scaled columns: message sizes (up to 1e6) and an intercept column
// (1) differ by orders of magnitude; QR works on X itself rather than on XᵀX (whose condition
// number is X's squared), and pivoting reveals a rank-deficient design (one size, hops that
// move with the size) instead of returning nonsense.
//
// stats/' one door to Eigen: fit.hpp and growth.hpp reach it through this header; what a fit
// returns is in fit_results.hpp, which does not include it.
// Deliberately not here: the transfer model and its breaks (fit.hpp), polynomials and log-P
// curves (growth.hpp), weighted least squares.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>

// Eigen's dense core only: the factorisation below is written out (factor_pivoted_qr). LU stays
// because callers have always had inverse() from this header, e.g. to check (XᵀX)⁻¹.
#include <Eigen/Core>
#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
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

/// Column-pivoting Householder QR of X (n×k, n ≥ k), X·P = Q·R: R on and above the diagonal of
/// `r`, the Householder vectors v_j = (1, r(j+1, j), …, r(n−1, j)) below it, Q = H_0·…·H_(k−1)
/// with H_j = I − tau(j)·v_j·v_jᵀ; position a of X·P is column perm(a) of X.
struct pivoted_qr {
    Eigen::MatrixXd r;
    Eigen::VectorXd tau;
    Eigen::Matrix<Eigen::Index, Eigen::Dynamic, 1> perm;
    Eigen::Index rank = 0;  ///< pivots above `threshold` times the largest one
};

/// Factors X as Eigen's ColPivHouseholderQR::compute does (Eigen 3.4: the same pivot choice,
/// reflectors, LAPACK norm downdating and rank count, so the same decisions; sums may round
/// differently in the last bit), written out because that class's templates cost ~0.75 s of
/// compile time in every translation unit that includes this header, whether it fits or not:
/// an inline function's body is compiled, and the templates it names instantiated, in every
/// translation unit that sees it.
inline pivoted_qr factor_pivoted_qr(Eigen::MatrixXd x, double threshold) {
    const Eigen::Index n = x.rows(), k = x.cols();
    pivoted_qr qr{std::move(x), Eigen::VectorXd(k), Eigen::Matrix<Eigen::Index, Eigen::Dynamic, 1>(k), 0};
    Eigen::MatrixXd& r = qr.r;
    std::iota(qr.perm.data(), qr.perm.data() + k, Eigen::Index{0});
    const auto tail_norm = [&](Eigen::Index c, Eigen::Index from) {
        double sum = 0.0;
        for (Eigen::Index i = from; i < n; ++i) sum += r(i, c) * r(i, c);
        return std::sqrt(sum);
    };
    // Column norms, downdated after each step (LAPACK xGEQP3, LAWN 176) and recomputed when the
    // downdate has lost too much accuracy.
    Eigen::VectorXd updated(k), direct(k);
    for (Eigen::Index c = 0; c < k; ++c) updated(c) = direct(c) = tail_norm(c, 0);
    const double eps = std::numeric_limits<double>::epsilon();
    const double largest_norm = k > 0 ? *std::max_element(updated.data(), updated.data() + k) : 0.0;
    // A pivot column whose squared norm is below this times its row count is zero for all
    // purposes: the pivots from there on do not count towards the rank.
    const double negligible = (largest_norm * eps) * (largest_norm * eps) / static_cast<double>(n);
    const double downdate_threshold = std::sqrt(eps);
    Eigen::Index nonzero_pivots = k;
    double max_pivot = 0.0;
    for (Eigen::Index j = 0; j < k; ++j) {
        Eigen::Index biggest = j;  // the first of equal norms, as Eigen's maxCoeff
        for (Eigen::Index c = j + 1; c < k; ++c)
            if (updated(c) > updated(biggest)) biggest = c;
        if (nonzero_pivots == k && updated(biggest) * updated(biggest) < negligible * static_cast<double>(n - j))
            nonzero_pivots = j;
        if (biggest != j) {
            for (Eigen::Index i = 0; i < n; ++i) std::swap(r(i, j), r(i, biggest));
            std::swap(updated(j), updated(biggest));
            std::swap(direct(j), direct(biggest));
            std::swap(qr.perm(j), qr.perm(biggest));
        }
        // The reflector that maps r(j.., j) onto beta·e_0.
        double tail = 0.0;
        for (Eigen::Index i = j + 1; i < n; ++i) tail += r(i, j) * r(i, j);
        const double c0 = r(j, j);
        double beta = c0, tau = 0.0;
        if (tail <= std::numeric_limits<double>::min()) {
            for (Eigen::Index i = j + 1; i < n; ++i) r(i, j) = 0.0;
        } else {
            beta = std::sqrt(c0 * c0 + tail);
            if (c0 >= 0.0) beta = -beta;
            for (Eigen::Index i = j + 1; i < n; ++i) r(i, j) /= c0 - beta;
            tau = (beta - c0) / beta;
        }
        r(j, j) = beta;
        qr.tau(j) = tau;
        max_pivot = std::max(max_pivot, std::abs(beta));
        // H_j applied to the columns right of j (the identity when tau is 0, as it is on the
        // last row: no tail to reflect).
        if (tau != 0.0)
            for (Eigen::Index c = j + 1; c < k; ++c) {
                double w = 0.0;
                for (Eigen::Index i = j + 1; i < n; ++i) w += r(i, j) * r(i, c);
                w += r(j, c);
                r(j, c) -= tau * w;
                for (Eigen::Index i = j + 1; i < n; ++i) r(i, c) -= tau * r(i, j) * w;
            }
        for (Eigen::Index c = j + 1; c < k; ++c) {
            if (updated(c) == 0.0) continue;
            const double ratio = std::abs(r(j, c)) / updated(c);
            const double left = std::max(0.0, (1.0 + ratio) * (1.0 - ratio));
            const double drift = updated(c) / direct(c);
            if (left * drift * drift <= downdate_threshold) {
                direct(c) = tail_norm(c, j + 1);
                updated(c) = direct(c);
            } else {
                updated(c) *= std::sqrt(left);
            }
        }
    }
    for (Eigen::Index i = 0; i < nonzero_pivots; ++i) qr.rank += std::abs(r(i, i)) > threshold * max_pivot ? 1 : 0;
    return qr;
}

/// Least squares X·beta ≈ y with (XᵀX)⁻¹. Each column is scaled to unit maximum first: sizes (up
/// to 1e6) and an intercept column (1) differ by orders of magnitude, and the rank decision of
/// the pivoting QR compares column norms, so unscaled it could call a perfectly good design
/// singular (or a singular one good). Returns nullopt when X is rank deficient.
///
/// β and (XᵀX)⁻¹ come from the QR factors, X_s·P = Q·R ⇒ β_s = P·R⁻¹·Qᵀy and
/// (X_sᵀX_s)⁻¹ = P·R⁻¹·R⁻ᵀ·Pᵀ, never from forming XᵀX, whose condition number is the square of X's.
COMET_DECL std::optional<least_squares> fit_least_squares(Eigen::MatrixXd x, const Eigen::VectorXd& y);

}  // namespace detail

/// Fits y = intercept + slope·x by least squares (column-pivoting Householder QR), with
/// the standard errors of both coefficients (from 3 points on).
/// @throws invalid_argument when the sizes differ, there are fewer than 2 points, every x is
///         the same, or a value is not finite.
/// @code  auto f = comet::fit_line(sizes, times);  // f.intercept, f.slope, f.slope_se, f.residual  @endcode
COMET_DECL line_fit fit_line(std::span<const double> x, std::span<const double> y);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/least_squares.ipp>
#endif
