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
inline std::string value_text(const param_value& value) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>) {
                return x;
            } else {
                char buf[64];
                const auto res = std::to_chars(buf, buf + sizeof buf, x);  // no locale, unlike a stream
                return std::string(buf, res.ptr);
            }
        },
        value);
}

}  // namespace detail::compare

/// The name of a point: the kernel, then each of its params (which point it is; what was
/// measured there is in `values`), as "name:value", in the order the kernel set them,
/// joined by "/" — Google Benchmark's style for named arguments:
/// "echo/size:8/hops:1/nodes:2". Two runs of one kernel name the same point the same way, and
/// an integral real reads back from a JSON file as an integer of the same name.
inline std::string point_name(const record& r) {
    std::string out = r.kernel;
    for (const auto& [name, value] : r.params) out += '/' + name + ':' + detail::compare::value_text(value);
    return out;
}

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
inline std::pair<std::vector<double>, double> ranks(const std::vector<double>& pooled) {
    std::vector<std::size_t> order(pooled.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return pooled[i] < pooled[j]; });
    std::vector<double> rank(pooled.size());
    double ties = 0.0;
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && pooled[order[j + 1]] == pooled[order[i]]) ++j;
        const double mid = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;  // mean of ranks i+1 .. j+1
        for (std::size_t k = i; k <= j; ++k) rank[order[k]] = mid;
        const double t = static_cast<double>(j - i + 1);
        ties += t * t * t - t;
        i = j + 1;
    }
    return {rank, ties};
}

/// P(U ≥ u) under the null hypothesis, exactly, for samples of m and n without ties. The
/// number of orderings with U = k is the coefficient of q^k in the Gaussian binomial
/// [m+n choose m]_q = Π_{i=1..m} (1 − q^(n+i)) / (1 − q^i), built up factor by factor
/// (O(m·mn) with m the smaller side) and divided by C(m+n, m), the sum of the coefficients.
inline double exact_sf(std::size_t u, std::size_t m, std::size_t n) {
    if (m > n) std::swap(m, n);
    const std::size_t top = m * n;
    std::vector<double> c(top + 1, 0.0);
    c[0] = 1.0;
    for (std::size_t i = 1; i <= m; ++i) {
        for (std::size_t k = top; k >= n + i; --k) c[k] -= c[k - (n + i)];  // × (1 − q^(n+i))
        for (std::size_t k = i; k <= top; ++k) c[k] += c[k - i];            // ÷ (1 − q^i), a series
    }
    const double total = std::accumulate(c.begin(), c.end(), 0.0);
    double tail = 0.0;
    for (std::size_t k = std::min(u, top + 1); k <= top; ++k) tail += c[k];
    return tail / total;
}

inline double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace detail::compare

/// The two-sided Mann–Whitney U test of `a` against `b`. Exact when there are no ties and one
/// side has at most 8 samples; otherwise the normal approximation with the tie correction
/// σ² = n_a·n_b/12 · ((N + 1) − Σ(t³ − t)/(N(N − 1))) and a continuity correction of ½, as
/// SciPy's `mannwhitneyu` (method "auto") does.
/// @throws invalid_argument when either side is empty or holds a NaN.
/// @code  comet::mann_whitney t = comet::mann_whitney_u(before.samples, after.samples);  @endcode
inline mann_whitney mann_whitney_u(std::span<const double> a, std::span<const double> b) {
    if (a.empty() || b.empty()) raise<invalid_argument>(-1, "mann_whitney_u: ", a.empty() ? "the first" : "the second", " sample set is empty");
    detail::check_no_nan_samples(a, "mann_whitney_u");
    detail::check_no_nan_samples(b, "mann_whitney_u");
    const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size()), n = na + nb;
    std::vector<double> pooled(a.begin(), a.end());
    pooled.insert(pooled.end(), b.begin(), b.end());
    const auto [rank, ties] = detail::compare::ranks(pooled);
    const double ra = std::accumulate(rank.begin(), rank.begin() + static_cast<std::ptrdiff_t>(a.size()), 0.0);
    mann_whitney out;
    out.u = ra - na * (na + 1.0) / 2.0;
    const double big = std::max(out.u, na * nb - out.u);  // the farther of U_a and U_b from the middle
    if (ties == 0.0 && std::min(a.size(), b.size()) <= 8) {
        out.exact = true;
        // U of continuous data is a whole number; rounding only removes the sum's float error.
        out.p = 2.0 * detail::compare::exact_sf(static_cast<std::size_t>(std::llround(big)), a.size(), b.size());
    } else {
        const double var = na * nb / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
        out.p = var > 0.0 ? 2.0 * detail::compare::normal_sf((big - na * nb / 2.0 - 0.5) / std::sqrt(var)) : 1.0;
    }
    out.p = std::clamp(out.p, 0.0, 1.0);  // 2·P(U ≥ middle) exceeds 1
    return out;
}

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
inline welch welch_t(std::span<const double> a, std::span<const double> b) {
    for (auto [side, v] : {std::pair{"first", a}, std::pair{"second", b}})
        if (v.size() < 2) raise<invalid_argument>(-1, "welch_t: the ", side, " set has ", v.size(), " value", v.size() == 1 ? "" : "s", ", fewer than 2");
    detail::check_no_nan_samples(a, "welch_t");
    detail::check_no_nan_samples(b, "welch_t");
    const auto moments = [](std::span<const double> v) {
        const double n = static_cast<double>(v.size());
        const double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
        double ss = 0.0;
        for (double x : v) ss += (x - mean) * (x - mean);
        return std::pair{mean, ss / (n - 1.0) / n};  // the mean and its squared standard error
    };
    const auto [ma, ea] = moments(a);
    const auto [mb, eb] = moments(b);
    const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
    welch out;
    if (ea + eb == 0.0) {  // no spread on either side: the means are equal or certainly not
        out.dof = na + nb - 2.0;
        out.t = mb == ma ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), mb - ma);
        out.p = mb == ma ? 1.0 : 0.0;
        return out;
    }
    out.t = (mb - ma) / std::sqrt(ea + eb);
    out.dof = (ea + eb) * (ea + eb) / (ea * ea / (na - 1.0) + eb * eb / (nb - 1.0));
    out.p = std::clamp(2.0 * student_t_sf(std::fabs(out.t), out.dof), 0.0, 1.0);
    return out;
}

/// Whether a two-sided U test of m values against n resolves finely enough to be used at level
/// `alpha`: its least p, that of a complete separation, 2/C(m+n, m), is at most alpha/10, so
/// that a few values out of order still reach alpha. At 0.01: from 7 a side (2/C(14, 7) =
/// 5.8e-4; at 8 a side up to 7 of the 64 pairs may be out of order); not at 5 a side, whose
/// least p is 2/C(10, 5) = 0.0079: only a complete separation would count.
inline bool u_test_resolves(std::size_t m, std::size_t n, double alpha) {
    if (m == 0 || n == 0) return false;
    double orderings = 1.0;  // C(m+n, m), built up as a product
    for (std::size_t i = 1; i <= std::min(m, n); ++i) orderings = orderings * static_cast<double>(std::max(m, n) + i) / static_cast<double>(i);
    return 2.0 / orderings <= alpha / 10.0;
}

/// The median of the valid samples of each round of `r` (record::rounds), in order, leaving
/// out a round with no valid sample; the median of all its valid samples when it was measured
/// in one round.
/// @throws invalid_argument when the rounds do not add up to the samples or a round is empty.
inline std::vector<double> round_medians(const record& r) {
    if (r.rounds.empty()) return {summarize(r).median};
    std::size_t total = 0;
    for (const auto& round : r.rounds) total += round.samples;
    if (total != r.samples.size())
        raise<invalid_argument>(-1, "round_medians: ", r.kernel, ": the rounds hold ", total, " samples, the record ", r.samples.size());
    std::vector<double> out, valid;
    std::size_t at = 0;
    for (std::size_t i = 0; i < r.rounds.size(); ++i) {
        if (r.rounds[i].samples == 0) raise<invalid_argument>(-1, "round_medians: ", r.kernel, ": round ", i, " has no samples");
        valid.clear();
        for (std::size_t k = at; k < at + r.rounds[i].samples; ++k)
            if (is_valid_sample(r, k)) valid.push_back(r.samples[k]);
        if (!valid.empty()) out.push_back(summarize(std::span<const double>(valid)).median);
        at += r.rounds[i].samples;
    }
    return out;
}

/// What a change in a point's median amounts to.
enum class change_verdict { same, faster, slower };

inline std::string_view to_string(change_verdict v) noexcept {
    switch (v) {
        case change_verdict::faster: return "faster";
        case change_verdict::slower: return "slower";
        default: return "same";
    }
}

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

inline std::string_view to_string(compare_unit u) noexcept { return u == compare_unit::rounds ? "rounds" : "samples"; }

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
    /// (by the sign of the difference alone when `change` is empty); same otherwise.
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
inline std::vector<kernel_change> by_kernel(const run_comparison& c) {
    std::vector<kernel_change> out;
    std::vector<std::vector<double>> changes;
    for (const auto& p : c.points) {
        auto at = std::find_if(out.begin(), out.end(), [&](const kernel_change& k) { return k.kernel == p.kernel; });
        if (at == out.end()) {
            out.push_back({.kernel = p.kernel});
            changes.emplace_back();
            at = out.end() - 1;
        }
        ++at->points;
        at->slower += p.verdict == change_verdict::slower;
        at->faster += p.verdict == change_verdict::faster;
        if (p.change) {
            changes[static_cast<std::size_t>(at - out.begin())].push_back(*p.change);
            at->up += *p.change > 0.0;
            at->down += *p.change < 0.0;
        }
    }
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!changes[i].empty()) out[i].median_change = summarize(changes[i]).median;
    return out;
}

namespace detail::compare {

/// The records of `run` by name, rejecting a name that appears twice (which of the two would
/// be compared?).
inline std::vector<std::pair<std::string, const record*>> named(const result_set& run, const char* which) {
    std::vector<std::pair<std::string, const record*>> out;
    for (const auto& r : run.records) {
        std::string name = point_name(r);
        for (const auto& [n, rec] : out)
            if (n == name) raise<invalid_argument>(-1, "compare_runs: run ", which, " has two records of ", name);
        out.emplace_back(std::move(name), &r);
    }
    return out;
}

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
inline run_comparison compare_runs(const result_set& a, const result_set& b, compare_options options = {}) {
    if (!(options.alpha > 0.0 && options.alpha < 1.0))
        raise<invalid_argument>(-1, "compare_runs: alpha = ", options.alpha, " is outside (0, 1)");
    if (!(options.threshold >= 0.0 && std::isfinite(options.threshold)))
        raise<invalid_argument>(-1, "compare_runs: threshold = ", options.threshold, " is not a finite number >= 0");
    const auto in_a = detail::compare::named(a, "A");
    const auto in_b = detail::compare::named(b, "B");
    const auto find = [](const auto& list, const std::string& name) -> const record* {
        for (const auto& [n, r] : list)
            if (n == name) return r;
        return nullptr;
    };
    run_comparison out;
    out.options = options;
    for (const auto& [name, ra] : in_a) {
        const record* rb = find(in_b, name);
        if (!rb) {
            out.only_in_a.push_back(name);
            continue;
        }
        std::string why;
        for (const auto& [side, r] : {std::pair{"A", ra}, std::pair{"B", rb}})
            if (!usable(*r)) {
                const flag* f = find_flag(r->flags, "point");
                why += std::string(why.empty() ? "" : "; ") + side + ": " +
                       (f ? "flagged (" + f->why + ")" : r->samples.empty() ? std::string("no samples") : std::string("no valid sample"));
            }
        if (!why.empty()) {
            out.not_compared.emplace_back(name, why);
            continue;
        }
        point_change p;
        p.name = name;
        p.kernel = ra->kernel;
        p.params = ra->params;
        const std::vector<double> valid_a = valid_samples(*ra), valid_b = valid_samples(*rb);
        p.n_a = valid_a.size();
        p.n_b = valid_b.size();
        p.median_a = summarize(std::span<const double>(valid_a)).median;
        p.median_b = summarize(std::span<const double>(valid_b)).median;
        if (p.median_a > 0.0) p.change = (p.median_b - p.median_a) / p.median_a;
        p.test = mann_whitney_u(valid_a, valid_b);
        const std::vector<double> rounds_a = round_medians(*ra), rounds_b = round_medians(*rb);
        p.rounds_a = rounds_a.size();
        p.rounds_b = rounds_b.size();
        if (p.rounds_a >= 2 && p.rounds_b >= 2) {
            p.unit = compare_unit::rounds;
            if (u_test_resolves(p.rounds_a, p.rounds_b, options.alpha)) {
                p.round_u = mann_whitney_u(rounds_a, rounds_b);
                p.p = p.round_u->p;
            } else {
                p.round_test = welch_t(rounds_a, rounds_b);
                p.p = p.round_test->p;
            }
        } else {
            p.p = p.test.p;
        }
        p.significant = p.p < options.alpha;
        if (p.significant) {
            // On rounds, the test's direction (of the rounds' medians) must agree with the
            // change of the pooled median it is reported by.
            bool up = true, down = true;
            if (p.round_test) up = p.round_test->t > 0.0, down = p.round_test->t < 0.0;
            if (p.round_u) {  // U of A's rounds below the middle: B's rank higher
                const double middle = static_cast<double>(p.rounds_a * p.rounds_b) / 2.0;
                up = p.round_u->u < middle, down = p.round_u->u > middle;
            }
            const bool slower = up && (p.change ? *p.change > options.threshold : p.median_b > p.median_a);
            const bool faster = down && (p.change ? *p.change < -options.threshold : p.median_b < p.median_a);
            p.verdict = slower ? change_verdict::slower : faster ? change_verdict::faster : change_verdict::same;
        }
        p.regression = p.verdict == change_verdict::slower;
        out.points.push_back(std::move(p));
    }
    for (const auto& [name, r] : in_b)
        if (!find(in_a, name)) out.only_in_b.push_back(name);
    if (out.points.empty() && !out.not_compared.empty())
        raise<invalid_argument>(-1, "compare_runs: none of the ", out.not_compared.size(), " points both runs measured can be compared (",
                                out.not_compared.front().first, ": ", out.not_compared.front().second, ")");
    if (out.points.empty()) {
        const auto what = [](const auto& list) {
            if (list.empty()) return std::string("no points");
            return std::to_string(list.size()) + (list.size() == 1 ? " point, " : " points, e.g. ") + list.front().first;
        };
        raise<invalid_argument>(-1, "compare_runs: the runs have no point in common (A: ", what(in_a), "; B: ", what(in_b), ")");
    }
    return out;
}

}  // namespace comet
