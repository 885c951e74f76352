// comet/stats/compare.hpp — two runs side by side: the points they share, matched by kernel
// and the params that say which point it is, each with its change in median, a test of that
// change and a verdict; each kernel's points taken together; and the name a point goes by
// ("echo/size:8/hops:1/nodes:2").
//
// What is replicated. Two runs of one build differ by more than the samples of either spread:
// a point's samples are taken milliseconds apart under one state of the machine (which cores
// the host gives the virtual machine and how far apart they are, the clock, what else runs),
// and that state moves between the stretches of a run. On the shared 2-core VM comet is
// developed on, two runs' medians of a whole kernel differed by 11-19% and a few neighbouring
// points by 40%, with 1-3% spread inside each point; a test that takes one stretch's samples
// for independent draws of the run's condition (the U test below on the samples) called 11-27%
// of the points of two runs of one build changed at a load of about one core, and 8-89% with
// both cores busy with other work. The samples of a stretch are one observation, not fifteen.
// So the comet program measures the suite in rounds (`--rounds`, 8 by default on real
// hardware): passes spread over the run, each point's samples kept by round (record::rounds).
// Seven runs of four passes each, under other work: the variance of a run's mean between runs
// was 1.35 times (median over the points; quartiles 0.85-1.75) what the variance between its
// passes predicts, so nearly all that moves a run moves its rounds too, and a point is tested
// on its round medians. Tested that way, the same seven runs called 0-0.8% of the points of
// five of six pairs changed, against 38-82% on one round's samples.
//
// The test, on the round medians: the two-sided Mann–Whitney U test below when the rounds are
// enough for it (7 or more a side at alpha 0.01: `u_test_resolves`), else Welch's t test. Why
// medians: a round's median of 15 or more samples is untouched by the single slow samples an
// interrupt makes. Why a rank test first: the machine's states make whole rounds jump (the
// threads transport's 8-byte echo at 6 µs in one round, 0.2 µs in the next), and a t test's
// variance grows with every such round until it hides a real change: 1 µs more per message
// (+18%), 24 rounds a side, 5 of them in the other state, came out at p = 0.12 in Welch's test
// and 0.0008 in the U test. Why Welch's t below 7 rounds: there the U test reaches 0.01 by a
// complete separation only (its least p at 5 a side is 2/C(10, 5) = 0.0079), while Welch's t
// still weighs how far apart the rounds are; it does not assume both runs vary alike, and a
// jumping round costs it power, never a false alarm.
// What it cannot see: a state that holds for a whole run moves every round of that run alike
// and reads as a change. Of three pairs of runs of one build with both cores busy with other
// work, one had every round of B's global_sum 17% below every round of A's, and 32% of its
// points flagged, all faster, whole kernels together. Only runs as replicates would show
// that; pooling several runs' rounds as if they were one run's does not (the rounds of one
// run are then no independent draws: tried, two runs against two flagged 63% of the points),
// so the output says what the test cannot see. A side measured in one round (`--rounds 1`, a
// file from before rounds) leaves only the samples' spread: its points fall back to the
// two-sided Mann–Whitney U test of the samples and are marked so (`compare_unit::samples`);
// the U test assumes only independent samples, and is Google Benchmark's compare.py's (exact
// below 9 samples on one side without ties, else the normal approximation with the tie and
// continuity corrections: SciPy's `mannwhitneyu` p-values). Its verdict says the two
// stretches differ, no more.
//
// Why a threshold beside the p-value: a change can be certain and too small to matter, and a
// state of the machine lasting a run shifts every point by a few percent. A change is called
// slower (faster) only when it is significant AND the median moved by more than `threshold`:
// the smallest change the caller cares about. A real change of a transport moves every point
// of a kernel alike; each point is then flagged on its own, and `by_kernel` shows the kernel's
// points moved together, flagged or not.
// Deliberately not here: reading files (report/json_read.hpp) and printing (the program).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/stats/distributions.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace comet {

namespace detail::compare {

/// A param's value as a point's name shows it: words as they are, integers in decimal, reals
/// in the shortest digits that read back (0.5, 1e-06; 2.0 as "2", like the integer 2).
COMET_DECL std::string value_text(const param_value& value);

}  // namespace detail::compare

/// The name of a point: the kernel, then each of its params (which point it is; what was
/// measured there is in `values`), as "name:value", in the order the kernel set them,
/// joined by "/" — Google Benchmark's style for named arguments:
/// "echo/size:8/hops:1/nodes:2". Two runs of one kernel name the same point the same way, and
/// an integral real reads back from a JSON file as an integer of the same name.
COMET_DECL std::string point_name(const record& r);

/// The outcome of a two-sided Mann–Whitney U test of samples a against samples b.
struct mann_whitney {
    /// U of `a`: the pairs (a_i, b_j) with a_i > b_j, a tie counting one half (R_a − n_a(n_a+1)/2
    /// with R_a the sum of a's ranks in the pooled samples). 0 ≤ u ≤ n_a·n_b; n_a·n_b/2 is
    /// "no tendency either way".
    double u = 0.0;
    /// Two-sided p-value: the probability, were both drawn from one distribution, of a U at
    /// least as far from n_a·n_b/2 as this one. 1 when every sample is equal.
    double p = 1.0;
    /// Whether p is the exact permutation probability (no ties, at most 8 samples on one side)
    /// rather than the normal approximation.
    bool exact = false;
};

namespace detail::compare {

/// Ranks (1-based, ties averaged) of `pooled`, and Σ(t³ − t) over its groups of t equal values.
COMET_DECL std::pair<std::vector<double>, double> ranks(const std::vector<double>& pooled);

/// P(U ≥ u) under the null hypothesis, exactly, for samples of m and n without ties. The
/// number of orderings with U = k is the coefficient of q^k in the Gaussian binomial
/// [m+n choose m]_q = Π_{i=1..m} (1 − q^(n+i)) / (1 − q^i), built up factor by factor
/// (O(m·mn) with m the smaller side) and divided by C(m+n, m), the sum of the coefficients.
COMET_DECL double exact_sf(std::size_t u, std::size_t m, std::size_t n);

COMET_DECL double normal_sf(double z);

}  // namespace detail::compare

/// The two-sided Mann–Whitney U test of `a` against `b`. Exact when there are no ties and one
/// side has at most 8 samples; otherwise the normal approximation with the tie correction
/// σ² = n_a·n_b/12 · ((N + 1) − Σ(t³ − t)/(N(N − 1))) and a continuity correction of ½, as
/// SciPy's `mannwhitneyu` (method "auto") does.
/// @throws invalid_argument when either side is empty or holds a NaN.
/// @code  comet::mann_whitney t = comet::mann_whitney_u(before.samples, after.samples);  @endcode
COMET_DECL mann_whitney mann_whitney_u(std::span<const double> a, std::span<const double> b);

/// The outcome of Welch's two-sided t test of values a against values b.
struct welch {
    /// (mean_b − mean_a) / √(s_a²/n_a + s_b²/n_b): positive when b is larger.
    double t = 0.0;
    /// The Welch–Satterthwaite degrees of freedom, between min(n_a, n_b) − 1 and n_a + n_b − 2.
    double dof = 0.0;
    /// Two-sided p-value: P(|T| ≥ |t|) for Student's t with `dof` degrees of freedom. 1 when
    /// both sides hold one value each repeated; 0 when they hold two different such values.
    double p = 1.0;
};

/// Welch's two-sided t test of `a` against `b` (the unequal-variance t test): each side's mean,
/// its variance with n − 1, t = (mean_b − mean_a)/√(s_a²/n_a + s_b²/n_b) and
/// ν = (s_a²/n_a + s_b²/n_b)² / ((s_a²/n_a)²/(n_a − 1) + (s_b²/n_b)²/(n_b − 1)), as SciPy's
/// `ttest_ind(a, b, equal_var=False)` (with the sign of t the other way: b against a).
/// @throws invalid_argument when a side has fewer than two values or holds a NaN.
/// @code  comet::welch w = comet::welch_t(round_medians_before, round_medians_after);  @endcode
COMET_DECL welch welch_t(std::span<const double> a, std::span<const double> b);

/// Whether a two-sided U test of m values against n resolves finely enough to be used at level
/// `alpha`: its least p, that of a complete separation, 2/C(m+n, m), is at most alpha/10, so
/// that a few values out of order still reach alpha. At 0.01: from 7 a side (2/C(14, 7) =
/// 5.8e-4; at 8 a side up to 7 of the 64 pairs may be out of order); not at 5 a side, whose
/// least p is 2/C(10, 5) = 0.0079: only a complete separation would count.
COMET_DECL bool u_test_resolves(std::size_t m, std::size_t n, double alpha);

/// The median of the valid samples of each round of `r` (record::rounds), in order, leaving
/// out a round with no valid sample; the median of all its valid samples when it was measured
/// in one round.
/// @throws invalid_argument when the rounds do not add up to the samples or a round is empty.
COMET_DECL std::vector<double> round_medians(const record& r);

/// What a change in a point's median amounts to: `same` (within the threshold, or a change the
/// test cannot tell from the spread that stays within it), `faster` / `slower` (significant and
/// beyond the threshold), `unresolved` (beyond the threshold, but not significant: the samples,
/// or the rounds, spread too much for the test to say whether the point moved; a busy machine's
/// runs read so, and such a point is not "the same").
enum class change_verdict { same, faster, slower, unresolved };

COMET_DECL std::string_view to_string(change_verdict v) noexcept;

/// How `compare_runs` decides.
struct compare_options {
    /// Significance level of the two-sided U test: a change counts only when p < alpha. Why
    /// 0.01 rather than 0.05: a run compares dozens of points, and at 5% one in twenty
    /// unchanged points would be significant by chance.
    double alpha = 0.01;
    /// The least relative change of the median that counts (0.10: 10%), either way; see the
    /// header comment for why a significant change within it is called "same". Why 10%: 1 µs
    /// more per message must stay in view, and the threads transport's 8-byte echo reads 0.1
    /// µs in one state of the machine and 4 to 9 µs in another (other work decides which): at
    /// 9 µs, 1 µs is +11%. Why not less: a state lasting a whole run, which rounds cannot see,
    /// moved whole kernels of runs of one build by 5-10% on the shared 2-core VM.
    double threshold = 0.10;
};

/// What a point's verdict was tested on.
enum class compare_unit {
    /// The rounds' medians, in the U test or Welch's t test: both runs measured the point in two
    /// or more rounds.
    rounds,
    /// The samples, in the U test: a run measured the point in one stretch, so its samples are
    /// all there is; the test sees how they spread, not how the run's state moves.
    samples
};

COMET_DECL std::string_view to_string(compare_unit u) noexcept;

/// One point both runs measured.
struct point_change {
    std::string name;         ///< `point_name`, as in both runs
    std::string kernel;
    comet::params params;     ///< run A's
    std::size_t n_a = 0, n_b = 0;  ///< valid samples on each side
    std::size_t rounds_a = 1, rounds_b = 1;  ///< rounds on each side (record::rounds; 1 when none)
    double median_a = 0.0, median_b = 0.0;  ///< seconds (the samples' unit), of all valid samples
    /// (median_b − median_a) / median_a: +0.10 is 10% slower. Empty when median_a ≤ 0 (a
    /// time left at or below zero by the overhead subtraction), where no ratio means anything.
    std::optional<double> change;
    mann_whitney test;        ///< of A's samples against B's, whatever the unit
    /// Of A's round medians against B's, when the unit is `rounds`: the U test when the rounds
    /// are enough for it to resolve alpha (`u_test_resolves`), else Welch's t test.
    std::optional<mann_whitney> round_u;
    std::optional<welch> round_test;
    compare_unit unit = compare_unit::samples;
    /// The p-value the verdict went by: round_u's or round_test's for `rounds`, test.p for `samples`.
    double p = 1.0;
    bool significant = false;  ///< p < alpha
    /// slower / faster: significant, and the median moved by more than the threshold that way
    /// (by the sign of the difference alone when `change` is empty); unresolved: not
    /// significant, but the median moved by more than the threshold; same otherwise.
    change_verdict verdict = change_verdict::same;
    /// B is slower than A (the verdict is `slower`): what a CI job fails on.
    bool regression = false;
};

/// Two runs compared point by point.
struct run_comparison {
    compare_options options;
    std::vector<point_change> points;     ///< in run A's order
    std::vector<std::string> only_in_a;   ///< names of points B did not measure, A's order
    std::vector<std::string> only_in_b;   ///< names of points A did not measure, B's order
    /// Points both measured that are not compared, with why: a side has no valid sample or is
    /// flagged as a whole (stats/validity.hpp), so it has no figure to compare.
    std::vector<std::pair<std::string, std::string>> not_compared;

    std::size_t count(change_verdict v) const {
        return static_cast<std::size_t>(std::count_if(points.begin(), points.end(), [v](const point_change& p) { return p.verdict == v; }));
    }
    std::size_t significant() const {
        return static_cast<std::size_t>(std::count_if(points.begin(), points.end(), [](const point_change& p) { return p.significant; }));
    }
    bool regressed() const {
        return std::any_of(points.begin(), points.end(), [](const point_change& p) { return p.regression; });
    }
    /// The points whose verdict was tested on `u`.
    std::size_t tested_on(compare_unit u) const {
        return static_cast<std::size_t>(std::count_if(points.begin(), points.end(), [u](const point_change& p) { return p.unit == u; }));
    }
};

/// A kernel's points, taken together: how far they moved as a whole. A state of the machine
/// that lasts a kernel's stretch of a run moves all its points alike, and so does a change to
/// the transport; a kernel whose points all moved one way by a similar amount, none of them
/// flagged, is what a reader should look at before trusting "same".
struct kernel_change {
    std::string kernel;
    std::size_t points = 0, slower = 0, faster = 0;
    /// The median over the kernel's points of their `change` (those that have one); empty
    /// when none has.
    std::optional<double> median_change;
    /// The kernel's points that moved up (change > 0) and down (change < 0).
    std::size_t up = 0, down = 0;
};

/// `c`'s points by kernel, in the order of their first point.
COMET_DECL std::vector<kernel_change> by_kernel(const run_comparison& c);

namespace detail::compare {

/// The records of `run` by name, rejecting a name that appears twice (which of the two would
/// be compared?).
COMET_DECL std::vector<std::pair<std::string, const record*>> named(const result_set& run, const char* which);

}  // namespace detail::compare

/// Compares run `b` with run `a` (the baseline): each point both measured, matched by
/// `point_name`, gets its medians, relative change, U test and verdict; points only one run has
/// are listed apart.
/// @throws invalid_argument when the options are out of range, a run names one point twice,
///         the runs share no point, or a shared point has no samples on one side.
/// @code
///   const comet::run_comparison c = comet::compare_runs(before.results, after.results, {.threshold = 0.10});
///   if (c.regressed()) return 1;  // some point significantly over 10% slower
/// @endcode
COMET_DECL run_comparison compare_runs(const result_set& a, const result_set& b, compare_options options = {});

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/compare.ipp>
#endif
