// comet/stats/least_squares.ipp — the definitions of comet/stats/least_squares.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/least_squares.hpp>

namespace comet {
namespace detail {

COMET_DECL std::optional<least_squares> fit_least_squares(Eigen::MatrixXd x, const Eigen::VectorXd& y) {
    const Eigen::Index n = x.rows(), k = x.cols();
    Eigen::VectorXd scale(k);
    for (Eigen::Index c = 0; c < k; ++c) {
        const double m = n > 0 ? x.col(c).cwiseAbs().maxCoeff() : 0.0;
        scale(c) = m > 0.0 ? m : 1.0;
        x.col(c) /= scale(c);
    }
    if (n < k) return std::nullopt;
    // A rank threshold of a few ulps (Eigen's default) lets rounding noise of an exactly collinear
    // design (a hop column that is a copy of the size column) pass as rank. With unit-scaled
    // columns, a pivot 1e-10 of the largest means the columns are dependent for all purposes.
    const pivoted_qr qr = factor_pivoted_qr(x, 1e-10);
    if (qr.rank < k) return std::nullopt;
    // Everything after the factorisation is written out too, on the k×k triangle (k ≤ 3 here)
    // and the n-vector y, rather than with Eigen's triangular solves, permutation and
    // matrix-vector products: for a few dozen multiplications those templates cost ~1.5 s of
    // compile time in every translation unit that includes this header (the umbrella header
    // does, and so does any program that runs the suite's analyses).
    const Eigen::MatrixXd& qr_r = qr.r;  // R on and above the diagonal, the Householder vectors below it
    const Eigen::VectorXd& tau = qr.tau;
    const auto& perm = qr.perm;  // position a of X_s·P is column perm(a) of X_s

    // Qᵀ·y, one reflector at a time: Q = H_0·H_1·…·H_(k−1), H_j = I − τ_j·v_j·v_jᵀ, where
    // v_j = (0, …, 0, 1, qr_r(j+1, j), …, qr_r(n−1, j)).
    Eigen::VectorXd qty = y;
    for (Eigen::Index j = 0; j < k; ++j) {
        double dot = qty(j);
        for (Eigen::Index i = j + 1; i < n; ++i) dot += qr_r(i, j) * qty(i);
        dot *= tau(j);
        qty(j) -= dot;
        for (Eigen::Index i = j + 1; i < n; ++i) qty(i) -= dot * qr_r(i, j);
    }
    // R·z = (Qᵀy)[0, k) by back substitution: z(a) is the coefficient of column perm(a) of X_s.
    Eigen::VectorXd beta_scaled(k);
    for (Eigen::Index a = k - 1; a >= 0; --a) {
        double sum = qty(a);
        for (Eigen::Index m = a + 1; m < k; ++m) sum -= qr_r(a, m) * qty(m);
        qty(a) = sum / qr_r(a, a);
        beta_scaled(perm(a)) = qty(a);
    }
    // R⁻¹, upper triangular, by back substitution column by column.
    Eigen::MatrixXd r_inv = Eigen::MatrixXd::Zero(k, k);
    for (Eigen::Index j = 0; j < k; ++j) {
        r_inv(j, j) = 1.0 / qr_r(j, j);
        for (Eigen::Index i = j - 1; i >= 0; --i) {
            double sum = 0.0;
            for (Eigen::Index m = i + 1; m <= j; ++m) sum += qr_r(i, m) * r_inv(m, j);
            r_inv(i, j) = -sum / qr_r(i, i);
        }
    }
    least_squares out;
    out.xtx_inverse = Eigen::MatrixXd::Zero(k, k);
    for (Eigen::Index a = 0; a < k; ++a)
        for (Eigen::Index b = 0; b < k; ++b) {
            double c = 0.0;  // (R⁻¹·R⁻ᵀ)(a, b)
            for (Eigen::Index m = std::max(a, b); m < k; ++m) c += r_inv(a, m) * r_inv(b, m);
            // P maps position a to column perm(a); the scaling undoes x_s = x / scale.
            out.xtx_inverse(perm(a), perm(b)) = c / (scale(perm(a)) * scale(perm(b)));
        }
    out.beta = beta_scaled;
    for (Eigen::Index c = 0; c < k; ++c) out.beta(c) /= scale(c);
    // The summed squared residual from the points, Σ(y − X_s·β_s)².
    for (Eigen::Index i = 0; i < n; ++i) {
        double fitted = 0.0;
        for (Eigen::Index c = 0; c < k; ++c) fitted += x(i, c) * beta_scaled(c);
        out.ssr += (y(i) - fitted) * (y(i) - fitted);
    }
    return out;
}

}  // namespace detail
}  // namespace comet

namespace comet {

COMET_DECL line_fit fit_line(std::span<const double> x, std::span<const double> y) {
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
