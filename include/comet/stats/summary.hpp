// comet/stats/summary.hpp — order statistics and moments of one record's raw samples:
// min, max, mean, median, sample standard deviation, percentiles, and a distribution-free
// 95% confidence interval of the median.
//
// Why the median and an order-statistic interval rather than mean ± t·s: timings of message
// passing are skewed to the right (an interrupt, a page fault, a context switch only ever add
// time), so the mean and a normal-theory interval are pulled by the few slow samples. The
// median and its binomial interval assume nothing about the shape of the distribution.
//
// A summary is derived from the samples and never replaces them (SPEC 2): reporters write both.
// Deliberately not here: per-rank reductions (one value out of P ranks) and fits (stats/fit.hpp).
#pragma once

#include <comet/core/errors.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

namespace comet {

/// What `summarize` derives from a set of samples (seconds, when the samples are times).
/// With no samples every value (but `n`) is NaN, which reporters write as `null`.
struct summary {
    std::size_t n = 0;      ///< number of samples
    double min = 0.0;       ///< smallest sample
    double max = 0.0;       ///< largest sample
    double mean = 0.0;      ///< arithmetic mean
    double median = 0.0;    ///< 50th percentile (mean of the two middle samples when n is even)
    double stddev = 0.0;    ///< sample standard deviation (divides by n − 1); NaN when n < 2
    double p05 = 0.0;       ///< 5th percentile, interpolated as `percentile` does
    double p95 = 0.0;       ///< 95th percentile
    double median_ci_low = 0.0;   ///< lower end of the 95% confidence interval of the median
    double median_ci_high = 0.0;  ///< upper end of the 95% confidence interval of the median
};

namespace detail {

/// Rejects NaN samples: they have no place in an ordering, and sorting them is undefined
/// behaviour, so a NaN would silently corrupt every order statistic.
inline void check_no_nan_samples(std::span<const double> samples, const char* who) {
    for (std::size_t i = 0; i < samples.size(); ++i)
        if (std::isnan(samples[i])) raise<invalid_argument>(-1, who, ": sample ", i, " is NaN");
}

inline void check_percentile(double p) {
    if (!(p >= 0.0 && p <= 100.0))  // also rejects NaN
        raise<invalid_argument>(-1, "percentile: p = ", p, " is outside [0, 100]");
}

/// Percentile of already sorted, non-empty samples: linear interpolation between the order
/// statistics x[floor(h)] and x[floor(h) + 1] at h = (n − 1)·p/100 (Hyndman & Fan type 7, the
/// default of NumPy and R), so p = 0 is the minimum, p = 100 the maximum and p = 50 the median.
inline double percentile_sorted(std::span<const double> sorted, double p) {
    const std::size_t n = sorted.size();
    if (n == 0) return std::numeric_limits<double>::quiet_NaN();
    const double h = static_cast<double>(n - 1) * p / 100.0;
    const auto lo = std::min(static_cast<std::size_t>(std::floor(h)), n - 1);
    const auto hi = std::min(lo + 1, n - 1);
    const double frac = h - static_cast<double>(lo);
    if (frac == 0.0 || lo == hi) return sorted[lo];
    return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

/// The 1-based rank j of the lower end of the distribution-free 95% confidence interval of
/// the median of n samples, or 0 when no such interval exists (n < 6).
///
/// The number B of samples below the true median is Binomial(n, 1/2), so the interval between
/// the order statistics x_(j) and x_(n+1−j) covers the median with probability
///     P(j ≤ B ≤ n − j) = 1 − 2·P(B ≤ j − 1).
/// We take the largest j whose coverage is at least 95%, i.e. P(B ≤ j − 1) ≤ 0.025: the
/// narrowest symmetric interval that keeps the promise. Even j = 1 (min to max) covers only
/// 1 − 2^(1−n), which is below 95% for n ≤ 5.
inline std::size_t median_ci_rank(std::size_t n) {
    const double alpha_half = 0.025;
    if (n < 6) return 0;
    // Sum the binomial probabilities in log space: 2^-n underflows for n > 1074.
    const double dn = static_cast<double>(n);
    const double log_norm = std::lgamma(dn + 1.0) - dn * std::log(2.0);
    double cdf = 0.0;
    std::size_t j = 0;  // invariant: cdf = P(B ≤ j − 1)
    while (j < n / 2) {
        const double dj = static_cast<double>(j);
        const double pmf = std::exp(log_norm - std::lgamma(dj + 1.0) - std::lgamma(dn - dj + 1.0));
        if (cdf + pmf > alpha_half) break;
        cdf += pmf;
        ++j;
    }
    return j;  // j ≥ 1 here since P(B = 0) = 2^-n ≤ 1/64 < 0.025 for n ≥ 6
}

}  // namespace detail

/// The `p`-th percentile (p in [0, 100]) of `samples`, in any order: linear interpolation
/// between the two order statistics around rank (n − 1)·p/100. NaN when `samples` is empty.
/// @throws invalid_argument when p is outside [0, 100] or NaN, or a sample is NaN.
/// @code  double p95 = comet::percentile(rec.samples, 95);  @endcode
inline double percentile(std::span<const double> samples, double p) {
    detail::check_percentile(p);
    detail::check_no_nan_samples(samples, "percentile");
    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    return detail::percentile_sorted(sorted, p);
}

/// Summarises `samples` (in any order).
///
/// The confidence interval of the median is the distribution-free one from binomial order
/// statistics (see `detail::median_ci_rank`): [x_(j), x_(n+1−j)] with the largest j such that
/// P(Binomial(n, 1/2) ≤ j − 1) ≤ 0.025. For n ≤ 5 no pair of order statistics reaches 95%;
/// the interval is then [min, max], whose true coverage is only 1 − 2^(1−n) (n = 5: 93.75%,
/// n = 1: 0%) — read it as "all we have", not as a 95% interval.
/// @throws invalid_argument when a sample is NaN.
/// @code  auto s = comet::summarize(rec.samples);  // s.median, s.median_ci_low, ...  @endcode
inline summary summarize(std::span<const double> samples) {
    detail::check_no_nan_samples(samples, "summarize");
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    summary s;
    s.n = samples.size();
    if (s.n == 0) {
        s.min = s.max = s.mean = s.median = s.stddev = s.p05 = s.p95 = s.median_ci_low = s.median_ci_high = nan;
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
    s.p05 = detail::percentile_sorted(sorted, 5.0);
    s.p95 = detail::percentile_sorted(sorted, 95.0);

    if (const std::size_t j = detail::median_ci_rank(s.n); j > 0) {
        s.median_ci_low = sorted[j - 1];
        s.median_ci_high = sorted[s.n - j];
    } else {
        s.median_ci_low = s.min;
        s.median_ci_high = s.max;
    }
    return s;
}

}  // namespace comet
