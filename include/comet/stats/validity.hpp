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
//   uses it (`usable`); an analysis that leaves one out says so in its figure's flags, as it
//   does for a flagged statistic it reads (`points_listed`).
//
// Deliberately not here: deciding that a measurement is invalid (the sampling engine, the
// window scheme and the kernels do, each with its own reason), and the order statistics
// themselves (stats/summary.hpp).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <locale>
#include <map>
#include <span>
#include <sstream>
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
COMET_DECL bool is_valid_sample(const record& r, std::size_t i);

/// The samples of `r` that reach the statistics, in order.
COMET_DECL std::vector<double> valid_samples(const record& r);

/// Samples of `r` that reach the statistics.
COMET_DECL std::size_t valid_count(const record& r);

/// Every measurement `r`'s point made: its samples, valid or not, and those dropped.
COMET_DECL std::size_t total_measurements(const record& r);

/// Flags `what` of `r` for `why`; a figure flagged already keeps its first reason.
COMET_DECL void add_flag(record& r, std::string what, std::string why);

/// Marks sample `i` of `r` invalid for `why` (once; the list stays in index order). The last
/// valid sample marked flags the point: it has no statistic left, and says why.
COMET_DECL void mark_invalid(record& r, std::size_t i, std::string why);

/// Marks every sample of `r` below zero invalid ("negative"): a time cannot be, and one that
/// came out so after an overhead was subtracted says the subtraction failed (the empty loop
/// caught a preemption, or the body costs less than the clock's noise).
COMET_DECL void mark_negative(record& r);

/// Adds `count` measurements dropped for `why` to `r`.
COMET_DECL void add_dropped(record& r, std::string_view why, std::size_t count);

/// The flag of `what` in `flags`, or nullptr.
inline const flag* find_flag(std::span<const flag> flags, std::string_view what) {
    for (const auto& f : flags)
        if (f.what == what) return &f;
    return nullptr;
}

namespace detail::validity {

/// The iterations each sample of `r` timed (empty: all alike, as one stretch's are).
COMET_DECL std::vector<double> weights(const record& r);

}  // namespace detail::validity

/// The statistics of `r` (stats/summary.hpp) over its valid samples, with the mean taken over
/// every iteration they timed (see the top of this header).
COMET_DECL summary summarize(const record& r);

/// The value of `s` over the valid samples of `r` (the mean over every iteration); NaN when
/// there are none.
COMET_DECL double statistic_of(const record& r, statistic s);

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
COMET_DECL assessment assess(const record& r, const summary& s);

COMET_DECL assessment assess(const record& r);

/// Whether an analysis may read `r`: it has a valid sample and is not flagged as a whole.
COMET_DECL bool usable(const record& r);

/// Why an analysis may not read `r` (`usable`): the flag of the point as a whole, or that it has
/// no valid sample; empty when it may. An analysis that leaves a record out says so with this.
COMET_DECL std::string unusable_why(const record& r);

/// Why statistic `s` of `r` must not be read at face value (its samples disagree, or that
/// statistic is flagged: an outlier pulls the mean, the kernel flagged the median), or empty.
/// An analysis that derives a figure from it flags that figure with this.
inline std::string statistic_flag(const record& r, statistic s) {
    const assessment a = assess(r);
    for (const char* what : {"statistics", to_string(s)})
        if (const flag* f = find_flag(a.flags, what)) return f->why;
    return {};
}

/// Why the median of `r` must not be read at face value, or empty (`statistic_flag`).
inline std::string median_flag(const record& r) { return statistic_flag(r, statistic::median); }

/// Where a figure's points are flagged or left out, for its flags: "<n> of <of> <noun> (<x>,
/// <x><unit>; at <x><unit>: <why>)", `at` the points (x ascending) and why, the reason given at
/// the first; e.g. "2 of 5 sizes (8, 1024 B; at 8 B: the samples disagree ...)".
template <class X>
std::string points_listed(const std::map<X, std::string>& at, std::size_t of, std::string_view noun, std::string_view unit) {
    std::ostringstream o;
    o.imbue(std::locale::classic());
    o << at.size() << " of " << of << ' ' << noun << " (";
    for (auto i = at.begin(); i != at.end(); ++i) o << (i == at.begin() ? "" : ", ") << i->first;
    if (!at.empty()) o << unit << "; at " << at.begin()->first << unit << ": " << at.begin()->second;
    o << ')';
    return o.str();
}

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/validity.ipp>
#endif
