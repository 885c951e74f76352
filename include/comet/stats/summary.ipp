// comet/stats/summary.ipp — the definitions of comet/stats/summary.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/summary.hpp>

namespace comet {
namespace detail {

COMET_DECL void check_no_nan_samples(std::span<const double> samples, const char* who) {
    for (std::size_t i = 0; i < samples.size(); ++i)
        if (std::isnan(samples[i])) raise<invalid_argument>(-1, who, ": sample ", i, " is NaN");
}

COMET_DECL void check_percentile(double p) {
    if (!(p >= 0.0 && p <= 100.0))  // also rejects NaN
        raise<invalid_argument>(-1, "percentile: p = ", p, " is outside [0, 100]");
}

COMET_DECL double percentile_sorted(std::span<const double> sorted, double p) {
    const std::size_t n = sorted.size();
    if (n == 0) return std::numeric_limits<double>::quiet_NaN();
    const double h = static_cast<double>(n - 1) * p / 100.0;
    const auto lo = std::min(static_cast<std::size_t>(std::floor(h)), n - 1);
    const auto hi = std::min(lo + 1, n - 1);
    const double frac = h - static_cast<double>(lo);
    if (frac == 0.0 || lo == hi) return sorted[lo];
    return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

COMET_DECL double log_binomial_half_pmf(double n, double k) {
    return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) - n * std::log(2.0);
}

COMET_DECL double median_ci_coverage(std::size_t n, std::size_t j) {
    const double dn = static_cast<double>(n);
    double tail = 0.0;  // P(B ≤ j − 1)
    for (std::size_t k = 0; k < j; ++k) tail += std::exp(log_binomial_half_pmf(dn, static_cast<double>(k)));
    return std::max(0.0, 1.0 - 2.0 * tail);
}

COMET_DECL std::size_t median_ci_rank(std::size_t n, double level) {
    const double alpha_half = (1.0 - level) / 2.0;
    if (n == 0) return 0;
    const double dn = static_cast<double>(n);
    double cdf = 0.0;
    std::size_t j = 0;  // invariant: cdf = P(B ≤ j − 1)
    while (j < (n + 1) / 2) {
        const double pmf = std::exp(log_binomial_half_pmf(dn, static_cast<double>(j)));
        if (cdf + pmf > alpha_half) break;
        cdf += pmf;
        ++j;
    }
    return j;
}

COMET_DECL std::optional<median_interval> median_ci_sorted(std::span<const double> sorted, double level) {
    const std::size_t n = sorted.size();
    const std::size_t j = median_ci_rank(n, level);
    if (j == 0) return std::nullopt;
    return median_interval{sorted[j - 1], sorted[n - j], median_ci_coverage(n, j), j};
}

}  // namespace detail
}  // namespace comet

namespace comet {

COMET_DECL double percentile(std::span<const double> samples, double p) {
    detail::check_percentile(p);
    detail::check_no_nan_samples(samples, "percentile");
    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    return detail::percentile_sorted(sorted, p);
}

COMET_DECL std::optional<median_interval> median_ci(std::span<const double> samples, double level) {
    if (!(level > 0.0 && level < 1.0)) raise<invalid_argument>(-1, "median_ci: level ", level, " is outside (0, 1)");
    detail::check_no_nan_samples(samples, "median_ci");
    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    return detail::median_ci_sorted(sorted, level);
}

COMET_DECL summary summarize(std::span<const double> samples) {
    detail::check_no_nan_samples(samples, "summarize");
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    summary s;
    s.n = samples.size();
    if (s.n == 0) {
        s.min = s.max = s.mean = s.median = s.stddev = s.mad = nan;
        return s;
    }
    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    const double dn = static_cast<double>(s.n);

    s.min = sorted.front();
    s.max = sorted.back();
    s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / dn;
    // Two passes (mean first, then squared deviations): the one-pass sum-of-squares formula
    // cancels catastrophically for timings, whose spread is tiny next to their mean.
    if (s.n >= 2) {
        double ss = 0.0;
        for (double x : sorted) ss += (x - s.mean) * (x - s.mean);
        s.stddev = std::sqrt(ss / (dn - 1.0));
    } else {
        s.stddev = nan;  // one sample says nothing about spread
    }
    s.median = detail::percentile_sorted(sorted, 50.0);
    if (percentile_supported(s.n, 5.0)) s.p05 = detail::percentile_sorted(sorted, 5.0);
    if (percentile_supported(s.n, 95.0)) s.p95 = detail::percentile_sorted(sorted, 95.0);

    if (const auto ci = detail::median_ci_sorted(sorted, median_ci_level)) {
        s.median_ci_low = ci->low;
        s.median_ci_high = ci->high;
        s.ci_coverage = ci->coverage;
    }

    // Robust spread: the MAD rather than the standard deviation or the IQR. Timings carry rare
    // slow outliers; the MAD ignores up to half the samples being wild (the IQR a quarter, the
    // standard deviation none), so it measures the steady jitter of a point, and "unstable"
    // then means the bulk of the samples disagree, not that one sample was hit by an interrupt.
    if (std::isfinite(s.median)) {
        std::vector<double> dev(sorted.size());
        for (std::size_t i = 0; i < sorted.size(); ++i) dev[i] = std::fabs(sorted[i] - s.median);
        std::sort(dev.begin(), dev.end());
        s.mad = mad_normal_scale * detail::percentile_sorted(dev, 50.0);
        if (s.n >= 2 && s.median > 0.0 && std::isfinite(s.mad)) {
            s.rel_spread = s.mad / s.median;
            s.unstable = *s.rel_spread > unstable_spread;
        }
    } else {
        s.mad = nan;
    }
    return s;
}

COMET_DECL summary summarize(std::initializer_list<double> samples) { return summarize(std::span<const double>(samples.begin(), samples.size())); }

COMET_DECL double statistic_of(std::span<const double> samples, statistic s) {
    const summary sum = summarize(samples);
    switch (s) {
    case statistic::min: return sum.min;
    case statistic::mean: return sum.mean;
    default: return sum.median;
    }
}

}  // namespace comet
