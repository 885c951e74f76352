// comet/stats/compare.hpp — two runs side by side: the points they share, matched by kernel
// and the params that say which point it is, each with its change in median and a two-sided
// Mann–Whitney U test, and a verdict; plus the name a point goes by ("echo/size:8/hops:1/nodes:2").
//
// Why the U test: timings are skewed to the right and have outliers (an interrupt only ever
// adds time), so a t test's normal assumption does not hold; the U test assumes only that the
// samples of a run are independent draws, and asks whether one run's samples tend to be larger
// than the other's. It is the test Google Benchmark's compare.py uses, and with the same
// method choice (exact below 9 samples on one side without ties, else the normal approximation
// with the tie and continuity corrections) it gives SciPy's `mannwhitneyu` p-values.
//
// Why a threshold beside the p-value: the samples of one run are not independent of each other
// in the way that matters here. What changes between two runs of the same build — the cores the
// host gives the virtual machine, the clock frequency, what else runs — shifts every sample of
// a run alike, and with 15 or more samples a side the test finds such a shift of a fraction of
// a percent significant. A change is called slower (faster) only when it is significant AND
// the median moved by more than `threshold`: the smallest change the caller cares about.
// Deliberately not here: reading files (report/json_read.hpp) and printing (the program).
#pragma once

#include <comet/core/errors.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
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

/// The name of a point: the kernel, then each param that says which point it is (not how it
/// was measured: `is_descriptive_param`), as "name:value", in the order the kernel set them,
/// joined by "/" — Google Benchmark's style for named arguments:
/// "echo/size:8/hops:1/nodes:2". Two runs of one kernel name the same point the same way, and
/// an integral real reads back from a JSON file as an integer of the same name.
inline std::string point_name(const record& r) {
    std::string out = r.kernel;
    for (const auto& [name, value] : r.params)
        if (!is_descriptive_param(name)) out += '/' + name + ':' + detail::compare::value_text(value);
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
    /// header comment for why a significant change within it is called "same". Why 10% and
    /// not 5%: on the shared 2-core VM comet is developed on, two runs of one build, back to
    /// back, move whole kernels' medians by 5-10% (each kernel is measured in a stretch of
    /// time of its own, and the machine's speed changes between stretches) and a few points by
    /// 15-40% with under 1% spread inside each run (transpose at 64: 1.17 µs in one run, 1.62
    /// in the next). Of 8 such comparisons with about one core busy with other work, 6 flagged
    /// more than 5% of their points at 5%, 1 at 10% (bench/compare_same_build.sh). Why not
    /// more: 1 µs more per message must stay in view, and the threads transport's 8-byte
    /// echo reads 0.1 µs in one state of the machine and 4 to 9 µs in another (other work
    /// decides which, from minute to minute): at 9 µs, 1 µs is +11%, just clear of 10%. With
    /// both cores busy with other work even 10% flags 6-20% of the points; and no threshold
    /// helps when the state changes between the runs, or during one.
    double threshold = 0.10;
};

/// One point both runs measured.
struct point_change {
    std::string name;         ///< `point_name`, as in both runs
    std::string kernel;
    comet::params params;     ///< run A's, descriptive ones included
    std::size_t n_a = 0, n_b = 0;  ///< samples on each side
    double median_a = 0.0, median_b = 0.0;  ///< seconds (the samples' unit)
    /// (median_b − median_a) / median_a: +0.10 is 10% slower. Empty when median_a ≤ 0 (a
    /// time left at or below zero by the overhead subtraction), where no ratio means anything.
    std::optional<double> change;
    mann_whitney test;        ///< of A's samples against B's
    bool significant = false;  ///< test.p < alpha
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

    std::size_t count(change_verdict v) const {
        return static_cast<std::size_t>(std::count_if(points.begin(), points.end(), [v](const point_change& p) { return p.verdict == v; }));
    }
    std::size_t significant() const {
        return static_cast<std::size_t>(std::count_if(points.begin(), points.end(), [](const point_change& p) { return p.significant; }));
    }
    bool regressed() const {
        return std::any_of(points.begin(), points.end(), [](const point_change& p) { return p.regression; });
    }
};

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
        for (const auto& [side, r] : {std::pair{"A", ra}, std::pair{"B", rb}})
            if (r->samples.empty()) raise<invalid_argument>(-1, "compare_runs: ", name, " has no samples in run ", side);
        point_change p;
        p.name = name;
        p.kernel = ra->kernel;
        p.params = ra->params;
        p.n_a = ra->samples.size();
        p.n_b = rb->samples.size();
        p.median_a = summarize(ra->samples).median;
        p.median_b = summarize(rb->samples).median;
        if (p.median_a > 0.0) p.change = (p.median_b - p.median_a) / p.median_a;
        p.test = mann_whitney_u(ra->samples, rb->samples);
        p.significant = p.test.p < options.alpha;
        if (p.significant) {
            const bool slower = p.change ? *p.change > options.threshold : p.median_b > p.median_a;
            const bool faster = p.change ? *p.change < -options.threshold : p.median_b < p.median_a;
            p.verdict = slower ? change_verdict::slower : faster ? change_verdict::faster : change_verdict::same;
        }
        p.regression = p.verdict == change_verdict::slower;
        out.points.push_back(std::move(p));
    }
    for (const auto& [name, r] : in_b)
        if (!find(in_a, name)) out.only_in_b.push_back(name);
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
