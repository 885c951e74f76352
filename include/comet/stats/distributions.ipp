// comet/stats/distributions.ipp — the definitions of comet/stats/distributions.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/distributions.hpp>

namespace comet {
namespace detail::dist {

COMET_DECL double beta_continued_fraction(double a, double b, double x) {
    constexpr double tiny = 1e-300, eps = 1e-15;
    const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
    double c = 1.0, d = 1.0 - qab * x / qap;
    if (std::fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double h = d;
    // The number of terms needed grows like sqrt(max(a, b)); 100000 covers a and b up to ~1e9.
    for (int m = 1; m <= 100000; ++m) {
        const double dm = m, m2 = 2.0 * dm;
        double aa = dm * (b - dm) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if (std::fabs(d) < tiny) d = tiny;
        c = 1.0 + aa / c;
        if (std::fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + dm) * (qab + dm) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if (std::fabs(d) < tiny) d = tiny;
        c = 1.0 + aa / c;
        if (std::fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        const double del = d * c;
        h *= del;
        if (std::fabs(del - 1.0) < eps) break;
    }
    return h;
}

COMET_DECL std::pair<double, double> incomplete_beta_pair(double a, double b, double x, double y) {
    if (x <= 0.0) return {0.0, 1.0};
    if (y <= 0.0) return {1.0, 0.0};
    const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log(y);
    const double front = std::exp(log_front);
    if (x < (a + 1.0) / (a + b + 2.0)) {
        const double i = front * beta_continued_fraction(a, b, x) / a;
        return {i, 1.0 - i};
    }
    const double j = front * beta_continued_fraction(b, a, y) / b;  // I_y(b, a) = 1 − I_x(a, b)
    return {1.0 - j, j};
}

COMET_DECL void check_dof(double dof, const char* who) {
    if (!(dof > 0.0)) raise<invalid_argument>(-1, who, ": degrees of freedom ", dof, " must be > 0");
}

COMET_DECL void check_probability(double p, const char* who) {
    if (!(p >= 0.0 && p <= 1.0)) raise<invalid_argument>(-1, who, ": probability ", p, " is outside [0, 1]");
}

}  // namespace detail::dist
}  // namespace comet

namespace comet {

COMET_DECL double incomplete_beta(double a, double b, double x) {
    if (!(a > 0.0 && b > 0.0)) raise<invalid_argument>(-1, "incomplete_beta: a = ", a, " and b = ", b, " must be > 0");
    if (!(x >= 0.0 && x <= 1.0)) raise<invalid_argument>(-1, "incomplete_beta: x = ", x, " is outside [0, 1]");
    return detail::dist::incomplete_beta_pair(a, b, x, 1.0 - x).first;
}

COMET_DECL double student_t_sf(double t, double dof) {
    detail::dist::check_dof(dof, "student_t_sf");
    if (std::isnan(t)) return t;
    if (std::isinf(t)) return t > 0 ? 0.0 : 1.0;
    // P(|T| > |t|) = I_{ν/(ν+t²)}(ν/2, ½); both ν/(ν+t²) and t²/(ν+t²) are computed directly.
    const double t2 = t * t;
    const double two_sided =  // P(|T| > |t|)
        detail::dist::incomplete_beta_pair(dof / 2.0, 0.5, dof / (dof + t2), t2 / (dof + t2)).first;
    return t >= 0 ? 0.5 * two_sided : 1.0 - 0.5 * two_sided;
}

COMET_DECL double student_t_cdf(double t, double dof) {
    detail::dist::check_dof(dof, "student_t_cdf");
    if (std::isnan(t)) return t;
    return student_t_sf(-t, dof);  // symmetry: keeps the small tail accurate on both sides
}

COMET_DECL double student_t_quantile(double p, double dof) {
    detail::dist::check_dof(dof, "student_t_quantile");
    detail::dist::check_probability(p, "student_t_quantile");
    if (p == 0.5) return 0.0;
    if (p == 0.0) return -std::numeric_limits<double>::infinity();
    if (p == 1.0) return std::numeric_limits<double>::infinity();
    // Invert the small tail: for p < 0.5 that is p itself (1 − p would round away its digits:
    // 1 − 1e-9 is not representable), for p > 0.5 it is 1 − p, which is exact there.
    const double tail = p < 0.5 ? p : 1.0 - p;
    const double t = detail::dist::invert_decreasing_tail([&](double x) { return student_t_sf(x, dof); }, tail);
    return p < 0.5 ? -t : t;
}

COMET_DECL double f_sf(double f, double d1, double d2) {
    detail::dist::check_dof(d1, "f_sf");
    detail::dist::check_dof(d2, "f_sf");
    if (std::isnan(f)) return f;
    if (f <= 0.0) return 1.0;
    if (std::isinf(f)) return 0.0;
    // P(F > f) = I_{d2/(d2 + d1 f)}(d2/2, d1/2); both arguments computed directly.
    const double den = d2 + d1 * f;
    return detail::dist::incomplete_beta_pair(d2 / 2.0, d1 / 2.0, d2 / den, d1 * f / den).first;
}

COMET_DECL double f_cdf(double f, double d1, double d2) {
    detail::dist::check_dof(d1, "f_cdf");
    detail::dist::check_dof(d2, "f_cdf");
    if (std::isnan(f)) return f;
    if (f <= 0.0) return 0.0;
    if (std::isinf(f)) return 1.0;
    const double den = d2 + d1 * f;
    return detail::dist::incomplete_beta_pair(d2 / 2.0, d1 / 2.0, d2 / den, d1 * f / den).second;
}

COMET_DECL double f_quantile(double p, double d1, double d2) {
    detail::dist::check_dof(d1, "f_quantile");
    detail::dist::check_dof(d2, "f_quantile");
    detail::dist::check_probability(p, "f_quantile");
    if (p == 0.0) return 0.0;
    if (p == 1.0) return std::numeric_limits<double>::infinity();
    // Bisect on the smaller of the two tails, where the function is computed accurately.
    if (p > 0.5) return detail::dist::invert_decreasing_tail([&](double f) { return f_sf(f, d1, d2); }, 1.0 - p);
    return detail::dist::invert_decreasing_tail([&](double f) { return -f_cdf(f, d1, d2); }, -p);
}

}  // namespace comet
