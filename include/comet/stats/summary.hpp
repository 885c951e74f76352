// comet/stats/summary.hpp — order statistics and moments of one record's raw samples:
// min, max, mean, median, sample standard deviation, the 5th and 95th percentiles where the
// sample size supports them, a distribution-free 95% confidence interval of the median with its
// actual coverage, and a robust relative spread with an "unstable" verdict.
//
// Why the median and an order-statistic interval rather than mean ± t·s: timings of message
// passing are skewed to the right (an interrupt, a page fault, a context switch only ever add
// time), so the mean and a normal-theory interval are pulled by the few slow samples. The
// median and its binomial interval assume nothing about the shape of the distribution.
//
// Honesty rules: a number is given only where the samples support it, and `null` (an empty
// optional) otherwise — no interval below 6 samples, no 5th/95th percentile below 20 — and an
// interval states the coverage it actually has (0.965 at n = 15), not the 95% it aims at.
//
// A summary is derived from the samples and never replaces them (SPEC 2): reporters write both.
// Also here: `statistic`, the one number of a summary that stands for a record wherever a
// curve, a plot or an analysis reads records.
// Deliberately not here: per-rank reductions (one value out of P ranks) and fits (stats/fit.hpp).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <vector>

namespace comet {

/// The confidence level of the median interval `summarize` gives.
inline constexpr double median_ci_level = 0.95;

/// The robust relative spread above which a point is called unstable. Why 5%: for normal
/// noise it is a coefficient of variation of 5%, beyond which a median of 15
/// samples moves by more than ~2% from run to run — the size of the effects comet is asked to
/// resolve (a protocol change, a placement flip).
inline constexpr double unstable_spread = 0.05;

/// The factor that turns a median absolute deviation into an estimate of σ for normal data,
/// 1/Φ⁻¹(3/4) — R's `mad()` default, so comet's `mad` is the number R and SciPy's
/// `median_abs_deviation(scale="normal")` print.
inline constexpr double mad_normal_scale = 1.482602218505602;

/// A distribution-free confidence interval of the median: [x_(rank), x_(n+1−rank)] of the
/// sorted samples (1-based order statistics), and the probability it covers the true median.
struct median_interval {
    double low = 0.0;
    double high = 0.0;
    double coverage = 0.0;  ///< P(low ≤ true median ≤ high) for continuous data (≥ it with ties)
    std::size_t rank = 0;   ///< j: low is the j-th smallest sample, high the j-th largest
};

/// What `summarize` derives from a set of samples (seconds, when the samples are times).
/// With no samples every double (but `n`) is NaN and every optional empty; reporters write both
/// as `null`. An optional is empty where the number of samples does not support the value.
struct summary {
    std::size_t n = 0;      ///< number of samples
    double min = 0.0;       ///< smallest sample
    double max = 0.0;       ///< largest sample
    double mean = 0.0;      ///< arithmetic mean
    double median = 0.0;    ///< 50th percentile (mean of the two middle samples when n is even)
    double stddev = 0.0;    ///< sample standard deviation (divides by n − 1); NaN when n < 2
    /// 5th and 95th percentiles, interpolated as `percentile` does; only from n ≥ 20 (see
    /// `percentile_supported`), empty below: with fewer samples they are the extreme samples
    /// under another name.
    std::optional<double> p05;
    std::optional<double> p95;
    /// The distribution-free confidence interval of the median at `median_ci_level` (see
    /// `median_ci`); empty when n < 6, where no pair of order statistics reaches 95%.
    std::optional<double> median_ci_low;
    std::optional<double> median_ci_high;
    /// The interval's actual coverage, always ≥ 0.95 and above it because order statistics
    /// move in steps (0.965 at n = 15, 0.988 at n = 11); empty with the interval.
    std::optional<double> ci_coverage;
    /// Median absolute deviation from the median, scaled by `mad_normal_scale` (an estimate of
    /// σ that the slow outliers of timings cannot move); NaN when n = 0 or the median is not finite.
    double mad = 0.0;
    /// mad / median: the robust relative spread. Empty when n < 2 or the median is not > 0.
    std::optional<double> rel_spread;
    /// rel_spread > `unstable_spread`: the point is too noisy to take its median at face value.
    bool unstable = false;
};

namespace detail {

/// Rejects NaN samples: they have no place in an ordering, and sorting them is undefined
/// behaviour, so a NaN would silently corrupt every order statistic.
COMET_DECL void check_no_nan_samples(std::span<const double> samples, const char* who);

COMET_DECL void check_percentile(double p);

/// Percentile of already sorted, non-empty samples: linear interpolation between the order
/// statistics x[floor(h)] and x[floor(h) + 1] at h = (n − 1)·p/100 (Hyndman & Fan type 7, the
/// default of NumPy and R), so p = 0 is the minimum, p = 100 the maximum and p = 50 the median.
COMET_DECL double percentile_sorted(std::span<const double> sorted, double p);

/// log P(B = k) for B ~ Binomial(n, 1/2), in log space: 2^-n underflows for n > 1074.
COMET_DECL double log_binomial_half_pmf(double n, double k);

/// The coverage of [x_(j), x_(n+1−j)] for the median of n samples: the number B of samples
/// below the true median is Binomial(n, 1/2), and the interval misses the median exactly when
/// B ≤ j − 1 or B ≥ n + 1 − j, so it covers with probability 1 − 2·P(B ≤ j − 1).
/// @pre 1 ≤ j ≤ (n + 1)/2.
COMET_DECL double median_ci_coverage(std::size_t n, std::size_t j);

/// The 1-based rank j of the lower end of the distribution-free confidence interval of the
/// median of n samples at `level`, or 0 when no such interval exists (for 95%: n < 6).
///
/// We take the largest j whose coverage 1 − 2·P(B ≤ j − 1) is at least `level`, i.e.
/// P(B ≤ j − 1) ≤ (1 − level)/2: the narrowest symmetric interval that keeps the promise.
/// Symmetric because the binomial is; an asymmetric pair could get nearer 95% but would favour
/// one side of a skewed distribution for no reason the data give. Even j = 1 (min to max)
/// covers only 1 − 2^(1−n), which is below 95% for n ≤ 5.
COMET_DECL std::size_t median_ci_rank(std::size_t n, double level = median_ci_level);

/// The interval of already sorted samples; nullopt when n is too small for `level`.
COMET_DECL std::optional<median_interval> median_ci_sorted(std::span<const double> sorted, double level);

}  // namespace detail

/// Whether n samples support the p-th percentile (p in [0, 100]): n·min(p, 100 − p)/100 ≥ 1,
/// i.e. at least one sample is expected beyond it. Below that, the type-7 interpolation is
/// pulled onto the smallest (largest) sample, and the "5th percentile of 10 samples" is the
/// minimum renamed. For p05 and p95 this asks n ≥ 20.
inline constexpr bool percentile_supported(std::size_t n, double p) noexcept {
    const double tail = p < 50.0 ? p : 100.0 - p;
    return static_cast<double>(n) * tail >= 100.0;
}

/// The `p`-th percentile (p in [0, 100]) of `samples`, in any order: linear interpolation
/// between the two order statistics around rank (n − 1)·p/100. NaN when `samples` is empty.
/// Computed whatever n is; see `percentile_supported` for when it means something.
/// @throws invalid_argument when p is outside [0, 100] or NaN, or a sample is NaN.
/// @code  double p95 = comet::percentile(rec.samples, 95);  @endcode
COMET_DECL double percentile(std::span<const double> samples, double p);

/// The distribution-free confidence interval of the median of `samples` (in any order) at
/// `level` (default 95%), with its actual coverage; nullopt when there are too few samples
/// for any pair of order statistics to reach `level` (for 95%: fewer than 6).
///
/// [x_(j), x_(n+1−j)] with the largest j such that P(Binomial(n, ½) ≤ j − 1) ≤ (1 − level)/2;
/// it assumes only that the samples are independent draws from one distribution. With ties
/// (a coarse clock) the closed interval covers at least as often as stated.
/// Examples at 95%: n = 6 → [x_(1), x_(6)], coverage 0.969; n = 15 → [x_(4), x_(12)], 0.965;
/// n = 20 → [x_(6), x_(15)], 0.959.
/// @throws invalid_argument when level is not in (0, 1) or a sample is NaN.
/// @code
///   if (auto ci = comet::median_ci(samples)) half_width = (ci->high - ci->low) / 2;
/// @endcode
COMET_DECL std::optional<median_interval> median_ci(std::span<const double> samples, double level = median_ci_level);

/// Summarises `samples` (in any order); see `summary` for what each field means and when it
/// is empty.
/// @throws invalid_argument when a sample is NaN.
/// @code  auto s = comet::summarize(rec.samples);  // s.median, s.median_ci_low, s.ci_coverage ...  @endcode
COMET_DECL summary summarize(std::span<const double> samples);

/// `summarize` of a braced list of samples: `comet::summarize({1e-6, 2e-6, 3e-6})` (a braced
/// list would otherwise be as much a record, stats/validity.hpp, as a span).
COMET_DECL summary summarize(std::initializer_list<double> samples);

/// Which number of a record's samples stands for the record.
enum class statistic {
    median,  ///< the middle sample: robust to the slow outliers every timing has
    min,     ///< the least sample: the thesis' barrier figure (3.3.5, figure 5.6)
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

/// The value of `s` over `samples`; NaN when there are none.
/// @throws invalid_argument when a sample is NaN.
COMET_DECL double statistic_of(std::span<const double> samples, statistic s);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/summary.ipp>
#endif
