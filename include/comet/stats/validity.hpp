// comet/stats/validity.hpp — which of a record's samples and figures can be trusted (SPEC 2 and
// 5, "validity"): the samples that reach a statistic, how many measurements the point made, the
// statistics of a record (over its valid samples, the mean over every iteration), and the flags
// a reader must see beside its figures.
//
// The rules, in one place:
// - A sample marked invalid (record::invalid: a negative time, ...) stays in the raw samples
//   and never reaches a statistic. A measurement dropped before it became a sample (a window
//   some rank started late) is counted in record::dropped. valid / total is what a point says
//   of itself: total = valid + invalid + dropped.
// - The mean is the time of every timed iteration over their number: samples of rounds with
//   different iteration counts weigh by their iterations, so that one short sample that caught
//   a preemption weighs as the few iterations it timed, not as a whole sample.
// - A statistic that one disturbed sample can move is flagged when one did. A sample is an
//   outlier when it lies beyond median ± 3·σ̂, σ̂ the MAD scaled to σ (never below half a percent
//   of the median: on a deterministic simulator the MAD is 0 and a sample 0.1% slower is not a
//   disturbance). Then `max` (above) or `min` (below: a sample far faster than the rest is
//   another state of the machine, or a clock's glitch), `stddev` (moved without bound by one),
//   `p95` / `p05` (when beyond the fence) are flagged, and `mean` when the outliers move it more
//   than 1% from the mean of the others. The median and its interval are what a few cannot move.
//   The extremes are flagged too when they lie more than `unstable_spread` (5%) from the median,
//   whatever the spread of the rest: each is one sample.
// - Every statistic is flagged ("statistics") when the samples disagree as a whole: their
//   robust spread is over `unstable_spread` (5%), or a tenth or more of them are outliers (the
//   samples fall in more than one group: a machine, simulated ones too, that a disturbance moved
//   between steady states, and the median is one of them).
// - A record with no valid sample, or flagged "point", reports no statistic and no analysis
//   uses it (`usable`).
//
// Deliberately not here: deciding that a measurement is invalid (the sampling engine, the
// window scheme and the kernels do, each with its own reason), and the order statistics
// themselves (stats/summary.hpp).
#pragma once

#include <comet/core/errors.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet {

/// An outlier lies more than this many σ̂ (scaled MAD) above the median.
inline constexpr double outlier_sigmas = 3.0;
/// σ̂ is taken as at least this fraction of the median when the fence is drawn.
inline constexpr double outlier_floor = 0.005;
/// The mean is flagged when its outliers pull it more than this fraction above the others' mean.
inline constexpr double mean_pull_limit = 0.01;

/// Whether sample `i` of `r` reaches the statistics.
inline bool is_valid_sample(const record& r, std::size_t i) {
    return std::none_of(r.invalid.begin(), r.invalid.end(), [i](const invalid_sample& s) { return s.index == i; });
}

/// The samples of `r` that reach the statistics, in order.
inline std::vector<double> valid_samples(const record& r) {
    if (r.invalid.empty()) return r.samples;
    std::vector<double> out;
    out.reserve(r.samples.size());
    for (std::size_t i = 0; i < r.samples.size(); ++i)
        if (is_valid_sample(r, i)) out.push_back(r.samples[i]);
    return out;
}

/// Samples of `r` that reach the statistics.
inline std::size_t valid_count(const record& r) { return r.samples.size() - r.invalid.size(); }

/// Every measurement `r`'s point made: its samples, valid or not, and those dropped.
inline std::size_t total_measurements(const record& r) {
    std::size_t n = r.samples.size();
    for (const auto& [why, count] : r.dropped) n += count;
    return n;
}

/// Flags `what` of `r` for `why`; a figure flagged already keeps its first reason.
inline void add_flag(record& r, std::string what, std::string why) {
    if (std::any_of(r.flags.begin(), r.flags.end(), [&](const flag& f) { return f.what == what; })) return;
    r.flags.push_back({std::move(what), std::move(why)});
}

/// Marks sample `i` of `r` invalid for `why` (once; the list stays in index order). The last
/// valid sample marked flags the point: it has no statistic left, and says why.
inline void mark_invalid(record& r, std::size_t i, std::string why) {
    if (i >= r.samples.size()) raise<invalid_argument>(-1, "mark_invalid: ", r.kernel, " has no sample ", i, " (", r.samples.size(), " samples)");
    if (!is_valid_sample(r, i)) return;
    const auto at = std::find_if(r.invalid.begin(), r.invalid.end(), [i](const invalid_sample& s) { return s.index > i; });
    r.invalid.insert(at, invalid_sample{i, std::move(why)});
    if (r.invalid.size() == r.samples.size()) {
        std::vector<std::pair<std::string, std::size_t>> by;
        for (const auto& x : r.invalid) {
            auto it = std::find_if(by.begin(), by.end(), [&](const auto& b) { return b.first == x.why; });
            if (it == by.end()) by.emplace_back(x.why, 1);
            else ++it->second;
        }
        std::string why_all;
        for (const auto& [w, n] : by) why_all += (why_all.empty() ? "" : ", ") + std::to_string(n) + " " + w;
        add_flag(r, "point", "no valid sample: all " + std::to_string(r.samples.size()) + " invalid (" + why_all + ")");
    }
}

/// Marks every sample of `r` below zero invalid ("negative"): a time cannot be, and one that
/// came out so after an overhead was subtracted says the subtraction failed (the empty loop
/// caught a preemption, or the body costs less than the clock's noise).
inline void mark_negative(record& r) {
    for (std::size_t i = 0; i < r.samples.size(); ++i)
        if (r.samples[i] < 0) mark_invalid(r, i, "negative");
}

/// Adds `count` measurements dropped for `why` to `r`.
inline void add_dropped(record& r, std::string_view why, std::size_t count) {
    if (count == 0) return;
    for (auto& [w, n] : r.dropped)
        if (w == why) {
            n += count;
            return;
        }
    r.dropped.emplace_back(std::string(why), count);
}

/// The flag of `what` in `flags`, or nullptr.
inline const flag* find_flag(std::span<const flag> flags, std::string_view what) {
    for (const auto& f : flags)
        if (f.what == what) return &f;
    return nullptr;
}

namespace detail::validity {

/// The iterations each sample of `r` timed (empty: all alike, as one stretch's are).
inline std::vector<double> weights(const record& r) {
    if (r.rounds.empty()) return {};
    std::vector<double> w;
    w.reserve(r.samples.size());
    for (const auto& round : r.rounds) w.insert(w.end(), round.samples, static_cast<double>(std::max<std::size_t>(round.iterations, 1)));
    if (w.size() != r.samples.size())
        raise<invalid_argument>(-1, r.kernel, ": its rounds hold ", w.size(), " samples, the record ", r.samples.size());
    return w;
}

}  // namespace detail::validity

/// The statistics of `r` (stats/summary.hpp) over its valid samples, with the mean taken over
/// every iteration they timed (see the top of this header).
inline summary summarize(const record& r) {
    std::vector<double> valid = valid_samples(r);
    summary s = summarize(std::span<const double>(valid));
    const std::vector<double> w = detail::validity::weights(r);
    if (w.empty() || valid.empty()) return s;
    double time = 0, iterations = 0;
    for (std::size_t i = 0; i < r.samples.size(); ++i)
        if (is_valid_sample(r, i)) time += r.samples[i] * w[i], iterations += w[i];
    s.mean = time / iterations;
    return s;
}

/// The value of `s` over the valid samples of `r` (the mean over every iteration); NaN when
/// there are none.
inline double statistic_of(const record& r, statistic s) {
    const summary sum = summarize(r);
    switch (s) {
    case statistic::min: return sum.min;
    case statistic::mean: return sum.mean;
    default: return sum.median;
    }
}

/// What a reader must know of a record besides its statistics.
struct assessment {
    std::size_t valid = 0;     ///< samples that reach the statistics
    std::size_t total = 0;     ///< every measurement the point made (valid, invalid, dropped)
    std::size_t outliers = 0;  ///< valid samples beyond median ± 3σ̂ (either side)
    double fence = std::numeric_limits<double>::quiet_NaN();  ///< median + 3σ̂ (NaN without samples)
    /// The record's own flags, then those its samples call for (outliers, more than one group,
    /// a spread over `unstable_spread`, no valid sample).
    std::vector<flag> flags;
};

/// Counts and flags of `r` (see the top of this header); `s` is `summarize(r)`.
inline assessment assess(const record& r, const summary& s) {
    assessment a{valid_count(r), total_measurements(r), 0, std::numeric_limits<double>::quiet_NaN(), r.flags};
    const auto flag_once = [&](std::string what, std::string why) {
        if (!find_flag(a.flags, what)) a.flags.push_back({std::move(what), std::move(why)});
    };
    if (a.valid == 0) {
        if (a.total > 0) flag_once("point", "no valid measurement of " + std::to_string(a.total));
        return a;
    }
    if (!std::isfinite(s.median) || !std::isfinite(s.mad)) return a;
    const double sigma = std::max(s.mad, outlier_floor * std::fabs(s.median));
    a.fence = s.median + outlier_sigmas * sigma;
    const double low_fence = s.median - outlier_sigmas * sigma;
    std::size_t above = 0, below = 0;
    double in_sum = 0, in_n = 0, all_sum = 0, all_n = 0;
    const std::vector<double> w = detail::validity::weights(r);
    for (std::size_t i = 0; i < r.samples.size(); ++i) {
        if (!is_valid_sample(r, i)) continue;
        const double x = r.samples[i], weight = w.empty() ? 1.0 : w[i];
        all_sum += x * weight, all_n += weight;
        if (x > a.fence)
            ++above;
        else if (x < low_fence)
            ++below;
        else
            in_sum += x * weight, in_n += weight;
    }
    a.outliers = above + below;
    const auto percent = [](double x) { return std::to_string(static_cast<int>(std::lround(x * 100))) + "%"; };
    if (s.unstable)
        flag_once("statistics", "the samples disagree: spread (MAD/median) " + percent(*s.rel_spread) + " > " + percent(unstable_spread));
    else if (a.outliers * 10 >= a.valid && a.valid >= 10)
        flag_once("statistics", "the samples fall in more than one group: " + std::to_string(a.outliers) + " of " +
                                    std::to_string(a.valid) + " beyond median +- 3 sigma");
    const auto side = [&](std::size_t k, const char* where) {
        return std::to_string(k) + " of " + std::to_string(a.valid) + " samples " + where + " (a disturbed sample: a preemption, an interrupt)";
    };
    if (above > 0) {
        const std::string why = side(above, "above median + 3 sigma");
        flag_once("max", why);
        flag_once("stddev", why);
        if (s.p95 && *s.p95 > a.fence) flag_once("p95", why);
    }
    if (below > 0) {
        const std::string why = side(below, "below median - 3 sigma");
        flag_once("min", why);
        flag_once("stddev", why);
        if (s.p05 && *s.p05 < low_fence) flag_once("p05", why);
    }
    // The extremes are one sample each: one far from the median (over `unstable_spread` away,
    // whatever the spread of the rest) says more about that sample than about the point.
    if (s.max > s.median * (1 + unstable_spread)) flag_once("max", "one sample: " + percent(s.max / s.median - 1) + " above the median");
    if (s.min < s.median * (1 - unstable_spread)) flag_once("min", "one sample: " + percent(1 - s.min / s.median) + " below the median");
    if (in_n > 0 && a.outliers > 0 && std::fabs(all_sum / all_n - in_sum / in_n) > mean_pull_limit * (in_sum / in_n))
        flag_once("mean", "its " + std::to_string(a.outliers) + " outliers move it over 1% from the mean of the other samples");
    return a;
}

inline assessment assess(const record& r) { return assess(r, summarize(r)); }

/// Whether an analysis may read `r`: it has a valid sample and is not flagged as a whole.
inline bool usable(const record& r) { return valid_count(r) > 0 && !find_flag(r.flags, "point"); }

}  // namespace comet
