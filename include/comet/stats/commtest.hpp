// comet/stats/commtest.hpp — COMMTEST's statistics (Worley, seed 001; SPEC 7.3) from the
// commtest kernel's records: per experiment, the per-message overhead a, the time per byte b,
// the latency and the swap / busy / idle bandwidths the seed defines for unordered and ordered
// protocols, and the error of the linear model T_N ≈ a·N + b·volume, over all the data and over
// the dominant protocol's range.
//
// The seed, on what is computed: "b = (min T_N)/(total number of bytes sent) and
// a = (T_N2 − T_N1)/(N2 − N1). All counts are for a single processor, and T_N is the time
// measured when exchanging the data using N SWAPs. Typically we use N2 = 1024 and N1 = 512".
// "The minimum observed execution time can be used to calculate the maximum achieved
// bandwidth": T_N is the least sample of a point, not its median.
// Unordered (0,k): latency = a, swap bandwidth = 2/b, busy bandwidth = 1/b (half the swap).
// Ordered (1,k): messages are not overlapped and the analysis doubles the sends and the volume,
// so latency = a/2, idle bandwidth = 2/b, and 2/b is also the swap bandwidth.
//
// What a reader can trust, and why:
// - b is a measured bound: b·volume is the least time of the group, so b·volume ≤ T_N for every
//   N. On data that follow T_N = α·N + β·volume exactly, b = β + α/volume (the one message of
//   the fastest point is in it) and the model overestimates every T_N by α: its relative error
//   is α/T_N, not 0. That is the seed's definition, kept as such.
// - a comes from two points. When they are not representative the model misses the rest of
//   the data; since b·volume ≤ T_N, the model can miss a point by more than 100% only by
//   overestimating it, which needs a·N > T_N — the per-message cost alone above the whole
//   time of N messages. Beyond `max_model_error` over the dominant range (default 100%), a is
//   flagged (`model_error`). b stays: it is the least time, whatever a is.
// - A negative a (the overhead below the timing noise, or a protocol change between N1 and
//   N2) or a b ≤ 0 (a clock that did not advance) is flagged; reporters show a flagged value
//   as flagged, never as a number, as they do the flagged transfer fits (fit_results.hpp).
// - The dominant protocol's range. A transport that changes protocol with the message size
//   bends T_N: within one group (one volume) the model is a line in N, T_N = a·N + β·volume,
//   and each protocol has its own line. The regimes are found as fit.hpp finds a transfer
//   model's, on relative residuals (timing noise grows with the time, and T_N spans orders of
//   magnitude within a volume): start from one line through (N, T_N); try every split between
//   two adjacent N that leaves `min_sizes` points on each side, take the one with the least
//   summed squared residual, and make it only when its F test rejects the lines without it at
//   `alpha` after multiplying the p-value by the splits tried (Bonferroni: the search picks
//   the largest F); repeat up to `max_regimes`; never split an exact fit (noiseless data). A
//   group measured at fewer than 2 × `min_sizes` counts cannot be split. The dominant range
//   is the regime holding N1 and N2 — the points whose message size lies on the same side of
//   every break as the messages a was measured with — or the regimes from N1's to N2's when a
//   break lies between them (then a mixes two protocols, and a note says so). No break found:
//   the dominant range is all the data (`dominant_is_all`).
//
// Why the search is written here rather than called from fit.hpp: fit.hpp's search fits with
// Eigen, whose headers cost every translation unit over a second, and report.hpp (which every
// reporter includes) needs this header for the statistics' struct. A two-coefficient line has
// a closed form, so this header stays Eigen-free; the rules and the `break_test` it reports are
// fit.hpp's, the residuals relative (see `detail::commtest_stats::find_regimes`).
//
// Deliberately not here: the kernel (kernels/commtest/), the transfer model of echo
// (fit.hpp), plots (report/).
#pragma once

#include <comet/core/errors.hpp>
#include <comet/stats/distributions.hpp>
#include <comet/stats/fit_results.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet {

/// How `commtest_statistics_of` computes a and finds the dominant range.
struct commtest_options {
    /// The message counts a is computed from: a = (T_n2 − T_n1)/(n2 − n1). A group that lacks
    /// either uses its two largest counts instead (and says so).
    int n1 = 512, n2 = 1024;
    /// a is flagged (`commtest_flag::model_error`) when the model misses a point of the
    /// dominant range by more than this fraction of the point's time (see the header comment:
    /// beyond 1, a·N alone exceeds T_N there).
    double max_model_error = 1.0;
    /// The level of the F tests that split a group into protocol regimes.
    double alpha = 0.05;
    /// The most regimes a group may be split into.
    std::size_t max_regimes = 4;
    /// Message counts each regime must hold (values below 3 act as 3: two points always fit a
    /// line exactly, and a regime that fits exactly would "pass" any test).
    std::size_t min_sizes = 3;
};

/// Why a statistic of a group is not a result. Reporters show a flagged statistic as flagged
/// (JSON: `null`, CSV: an empty cell), never its number.
namespace commtest_flag {
/// a < 0: a and the latency are not results (the overhead is below what the times resolve, or
/// N1 and N2 are not representative).
inline constexpr std::string_view negative_a = "negative_a";
/// b ≤ 0: a time of zero or less; b and the bandwidths are not results.
inline constexpr std::string_view nonpositive_b = "nonpositive_b";
/// The model misses a point of the dominant range by more than `max_model_error`: a (and the
/// latency) does not describe the data it should.
inline constexpr std::string_view model_error = "model_error";
}  // namespace commtest_flag

/// A flag in words: "negative a", "b not positive", "model error too large".
inline std::string commtest_flag_text(std::string_view flag) {
    if (flag == commtest_flag::negative_a) return "negative a";
    if (flag == commtest_flag::nonpositive_b) return "b not positive";
    if (flag == commtest_flag::model_error) return "model error too large";
    return std::string(flag);
}

/// "flagged: negative a, model error too large".
inline std::string commtest_flags_text(const std::vector<std::string>& flags) {
    std::string out = "flagged:";
    for (std::size_t i = 0; i < flags.size(); ++i) out += (i ? ", " : " ") + commtest_flag_text(flags[i]);
    return out;
}

/// One measured message count of a group.
struct commtest_point {
    std::int64_t messages = 0;  ///< N: swaps (messages each rank sends)
    std::int64_t size = 0;      ///< bytes per message: volume / N
    double time = 0.0;          ///< seconds: T_N, the least sample of the point's records
    /// |a·N + b·volume − T_N| / T_N; NaN without a model (no a, or b ≤ 0).
    double error = std::numeric_limits<double>::quiet_NaN();
    bool dominant = false;      ///< in the dominant protocol's range

    friend bool operator==(const commtest_point&, const commtest_point&) = default;
};

/// The statistics of one COMMTEST experiment: one protocol, volume, pair set, cache mode,
/// prepost setting and group size, over its message counts.
struct commtest_statistics {
    std::string kernel;
    /// The params that make the group: protocol, volume, pair, cache, prepost, nodes (those the
    /// records have), in that order.
    comet::params group;
    std::string protocol;  ///< "(0,3)"
    bool ordered = false;  ///< a (1,k) protocol
    std::int64_t volume = 0;  ///< bytes each rank sends in the experiment
    /// False when every record of the group says "not supported" (the transport cannot run the
    /// protocol): nothing else is computed, and `notes` holds the records' reason.
    bool supported = true;
    std::vector<commtest_point> data;  ///< every measured N, ascending

    /// The message counts a was computed from (`options.n1`/`n2`, or the group's two largest
    /// when it lacks one of them, with a note); empty when a is.
    std::optional<std::int64_t> n1, n2;
    std::optional<double> a;  ///< seconds per message; empty with fewer than 2 measured N (a note says why)
    std::optional<double> b;  ///< seconds per byte: min T_N / volume; empty without samples
    std::optional<std::int64_t> b_messages;  ///< the N whose T_N is the least (b's point)
    std::optional<double> latency;         ///< seconds: a (unordered) or a/2 (ordered)
    std::optional<double> swap_bandwidth;  ///< bytes per second: 2/b (both classes)
    std::optional<double> busy_bandwidth;  ///< bytes per second: 1/b, unordered only
    std::optional<double> idle_bandwidth;  ///< bytes per second: 2/b, ordered only

    std::optional<double> max_error;   ///< max over all N of |model − T_N|/T_N
    std::optional<double> mean_error;  ///< the mean of the same
    std::size_t regimes = 0;           ///< protocol regimes the F tests found in the group; 0 without data
    /// The F tests that decided the regimes (as fit.hpp's: each accepted split, then the first
    /// refused one, or one with no candidate when no split leaves enough points on both sides).
    /// `break_size` is a message size: the largest of the small-message side.
    std::vector<break_test> break_tests;
    std::size_t dominant_points = 0;                        ///< measured N in the dominant range
    std::optional<std::int64_t> dominant_min_size, dominant_max_size;  ///< bytes per message, both ends included
    std::optional<double> dominant_max_error;   ///< the model's largest relative error there
    std::optional<double> dominant_mean_error;  ///< its mean relative error there

    std::vector<std::string> flags;  ///< why a statistic is not a result (`commtest_flag`)
    std::vector<std::string> notes;  ///< what a reader must know: a's fallback counts, why a is missing, ...

    bool flagged(std::string_view flag) const noexcept {
        return std::find(flags.begin(), flags.end(), flag) != flags.end();
    }
    /// Nothing flagged, and the protocol ran.
    bool valid() const noexcept { return supported && flags.empty(); }
    /// a and the latency may be shown as results.
    bool a_valid() const noexcept {
        return a.has_value() && !flagged(commtest_flag::negative_a) && !flagged(commtest_flag::model_error);
    }
    /// b and the bandwidths may be shown as results.
    bool b_valid() const noexcept { return b.has_value() && !flagged(commtest_flag::nonpositive_b); }
    /// The dominant range is all the data: no protocol change was found (or N1 and N2 lie in
    /// the first and the last regime).
    bool dominant_is_all() const noexcept { return dominant_points > 0 && dominant_points == data.size(); }
};

namespace detail::commtest_stats {

/// The params that make a group, in the order they are reported.
inline constexpr std::string_view group_params[] = {"protocol", "volume", "pair", "cache", "prepost", "nodes"};

/// A record the kernel could not run: no samples and a note "not supported: ...".
inline const std::string* unsupported_note(const record& r) {
    if (!r.samples.empty()) return nullptr;
    for (const auto& n : r.notes)
        if (n.starts_with("not supported")) return &n;
    return nullptr;
}

/// The least-squares line T = intercept + slope·N through `pts`, in closed form, each point
/// weighted by 1/T_N² when every time is positive: the residuals are then relative (see
/// `find_regimes`). `ssr` is the weighted sum of squared residuals.
struct line {
    bool singular = true;  // fewer than two distinct N
    double ssr = 0.0;
};
inline double weight(const commtest_point& p, bool relative) { return relative ? 1.0 / (p.time * p.time) : 1.0; }
inline line least_squares_line(std::span<const commtest_point> pts, bool relative) {
    line l;
    if (pts.size() < 2) return l;
    double w_sum = 0.0, mx = 0.0, my = 0.0;
    for (const auto& p : pts) {
        const double w = weight(p, relative);
        w_sum += w;
        mx += w * static_cast<double>(p.messages);
        my += w * p.time;
    }
    mx /= w_sum;
    my /= w_sum;
    double sxx = 0.0, sxy = 0.0;
    for (const auto& p : pts) {
        const double w = weight(p, relative), dx = static_cast<double>(p.messages) - mx;
        sxx += w * dx * dx;
        sxy += w * dx * (p.time - my);
    }
    if (!(sxx > 0.0)) return l;
    l.singular = false;
    const double slope = sxy / sxx;
    for (const auto& p : pts) {
        const double r = p.time - my - slope * (static_cast<double>(p.messages) - mx);
        l.ssr += weight(p, relative) * r * r;
    }
    return l;
}

/// The regimes of `pts` (ascending N) as index ranges [begin, end), ascending, and the F tests
/// that decided them. The rules are fit.hpp's `break_search` (see the header comment), with a
/// line (two coefficients) per regime, fitted to relative residuals (T_N weighted by 1/T_N²)
/// when every time is positive. Why weighted: within one volume T_N spans up to three orders of
/// magnitude (8 KB as 1 message or as 1024), and timing noise grows with the time; the F test
/// assumes residuals of one size. On straight lines with 2% noise (seeded trials, volumes of
/// 8 KB to 2 MB) absolute residuals passed the slow points' noise as a protocol change in 20%
/// of the lines, relative ones in 4–5%, the level asked for. The model error is relative too.
struct regime_split {
    std::vector<std::pair<std::size_t, std::size_t>> regimes;
    std::vector<break_test> tests;
};
inline regime_split find_regimes(std::span<const commtest_point> pts, const commtest_options& o) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    constexpr std::size_t coefficients = 2;  // per regime
    regime_split out;
    out.regimes = {{0, pts.size()}};
    const bool relative = std::all_of(pts.begin(), pts.end(), [](const commtest_point& p) { return p.time > 0.0; });
    const auto fit_of = [&](std::size_t b, std::size_t e) { return least_squares_line(pts.subspan(b, e - b), relative); };
    const line whole = fit_of(0, pts.size());
    if (whole.singular) return out;
    double y_max = 0.0;  // the largest (weighted) time: 1 with relative residuals
    for (const auto& p : pts) y_max = std::max(y_max, std::fabs(p.time) * std::sqrt(weight(p, relative)));
    // Every residual within 1e-12 of the largest time counts as exact (fit.hpp's `exact_ssr`):
    // noiseless data leave rounding residuals, and an F test on them would "find" breaks.
    const double exact = static_cast<double>(pts.size()) * (1e-12 * y_max) * (1e-12 * y_max);
    const std::size_t min_sizes = std::max<std::size_t>(o.min_sizes, 3);
    double ssr = whole.ssr;
    std::size_t params = coefficients;
    while (out.regimes.size() < std::max<std::size_t>(o.max_regimes, 1)) {
        struct candidate {
            std::size_t regime, cut;
            double ssr;
        };
        std::optional<candidate> best;
        std::size_t searched = 0;
        for (std::size_t r = 0; r < out.regimes.size(); ++r) {
            const auto [g0, g1] = out.regimes[r];
            const double parent = fit_of(g0, g1).ssr;
            for (std::size_t cut = g0 + min_sizes; cut + min_sizes <= g1; ++cut) {
                if (params + coefficients >= pts.size()) continue;  // no residual degree of freedom left
                ++searched;
                const double s = ssr - parent + fit_of(g0, cut).ssr + fit_of(cut, g1).ssr;
                if (!best || s < best->ssr) best = candidate{r, cut, s};  // the first on a tie
            }
        }
        if (!best) {  // no regime can be split further: say so rather than stop silently
            break_test none;
            none.regimes = out.regimes.size();
            none.break_size = none.f = none.p_nominal = none.p = nan;
            none.alpha = o.alpha;
            out.tests.push_back(none);
            break;
        }
        if (ssr <= exact) break;  // the current lines are exact: nothing is left to explain
        break_test t;
        t.regimes = out.regimes.size();
        t.break_size = static_cast<double>(pts[best->cut].size);  // the largest size of the small-message side
        t.df1 = coefficients;
        t.df2 = pts.size() - params - coefficients;
        t.candidates = searched;
        t.alpha = o.alpha;
        if (best->ssr <= exact)
            t.f = ssr > exact ? std::numeric_limits<double>::infinity() : nan;
        else
            t.f = (std::max(0.0, ssr - best->ssr) / static_cast<double>(t.df1)) /
                  (best->ssr / static_cast<double>(t.df2));
        t.p_nominal = std::isnan(t.f) ? nan : f_sf(t.f, static_cast<double>(t.df1), static_cast<double>(t.df2));
        t.p = std::isnan(t.p_nominal) ? nan : std::min(1.0, static_cast<double>(searched) * t.p_nominal);
        t.chosen = t.p < o.alpha;  // false for NaN
        out.tests.push_back(t);
        if (!t.chosen) break;
        const auto [g0, g1] = out.regimes[best->regime];
        out.regimes[best->regime] = {g0, best->cut};
        out.regimes.insert(out.regimes.begin() + static_cast<std::ptrdiff_t>(best->regime) + 1, {best->cut, g1});
        ssr = best->ssr;
        params += coefficients;
    }
    return out;
}

/// One group's records on their way to statistics.
struct group_records {
    commtest_statistics stats;
    std::vector<const record*> records;
};

/// "N = 512" or "N = 256 and 1024".
inline std::string counts_text(const std::vector<std::int64_t>& ns) {
    std::string out = "N = ";
    for (std::size_t i = 0; i < ns.size(); ++i) out += (i == 0 ? "" : i + 1 == ns.size() ? " and " : ", ") + std::to_string(ns[i]);
    return out;
}

inline std::string percent(double fraction) {
    const long long tenths = std::llround(fraction * 1000.0);
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
}

/// The statistics of one group whose records are gathered in `g`.
inline void compute(group_records& g, const commtest_options& o) {
    commtest_statistics& s = g.stats;
    std::vector<commtest_point>& data = s.data;
    bool unsupported = !g.records.empty();
    for (const record* r : g.records) {
        const std::string* why = unsupported_note(*r);
        if (!why) unsupported = false;
        else if (std::find(s.notes.begin(), s.notes.end(), *why) == s.notes.end()) s.notes.push_back(*why);
        if (!usable(*r)) continue;
        const std::int64_t n = *r->params.integer("messages");  // checked when grouped
        const double t = summarize(*r).min;
        auto it = std::find_if(data.begin(), data.end(), [&](const commtest_point& p) { return p.messages == n; });
        if (it == data.end()) data.push_back({n, s.volume / n, t});
        else it->time = std::min(it->time, t);  // records of one N pool their samples
    }
    if (unsupported) {
        s.supported = false;
        data.clear();
        return;
    }
    s.notes.clear();  // a "not supported" note of some records only is no statement about the group
    std::sort(data.begin(), data.end(), [](const commtest_point& x, const commtest_point& y) { return x.messages < y.messages; });
    if (data.empty()) {
        s.notes.push_back("no samples: no statistics");
        return;
    }

    // b: the least time of the group per byte.
    const auto fastest = std::min_element(data.begin(), data.end(),
                                          [](const commtest_point& x, const commtest_point& y) { return x.time < y.time; });
    s.b = fastest->time / static_cast<double>(s.volume);
    s.b_messages = fastest->messages;
    if (*s.b > 0.0) {
        s.swap_bandwidth = 2.0 / *s.b;
        if (s.ordered) s.idle_bandwidth = 2.0 / *s.b;
        else s.busy_bandwidth = 1.0 / *s.b;
    }

    // a: from N1 and N2, or the two largest N.
    if (data.size() < 2) {
        s.notes.push_back("a needs two message counts; the group has " + counts_text({data.front().messages}) + " only");
    } else {
        const auto at = [&](std::int64_t n) {
            return std::find_if(data.begin(), data.end(), [&](const commtest_point& p) { return p.messages == n; });
        };
        auto p1 = at(o.n1), p2 = at(o.n2);
        if (p1 == data.end() || p2 == data.end()) {
            std::vector<std::int64_t> missing;
            if (p1 == data.end()) missing.push_back(o.n1);
            if (p2 == data.end()) missing.push_back(o.n2);
            p1 = data.end() - 2;
            p2 = data.end() - 1;
            s.notes.push_back("a from " + counts_text({p1->messages, p2->messages}) + ", the two largest measured: the group has no " +
                              counts_text(missing));
        }
        s.n1 = p1->messages;
        s.n2 = p2->messages;
        s.a = (p2->time - p1->time) / static_cast<double>(*s.n2 - *s.n1);
        s.latency = s.ordered ? *s.a / 2.0 : *s.a;
    }

    // Regimes, found whether or not a exists (they are a fact about the data).
    const regime_split split = find_regimes(data, o);
    s.regimes = split.regimes.size();
    s.break_tests = split.tests;

    if (s.a && *s.a < 0.0) s.flags.emplace_back(commtest_flag::negative_a);
    if (!(*s.b > 0.0)) s.flags.emplace_back(commtest_flag::nonpositive_b);
    if (!s.a || !(*s.b > 0.0)) return;  // no model: no errors, no dominant range

    // The model's errors, over all N and over the dominant range.
    const double bv = *s.b * static_cast<double>(s.volume);
    double sum = 0.0, worst = 0.0;
    for (auto& p : data) {
        p.error = std::fabs(*s.a * static_cast<double>(p.messages) + bv - p.time) / p.time;
        sum += p.error;
        worst = std::max(worst, p.error);
    }
    s.max_error = worst;
    s.mean_error = sum / static_cast<double>(data.size());

    const auto regime_of = [&](std::int64_t n) {
        for (std::size_t r = 0; r < split.regimes.size(); ++r)
            for (std::size_t i = split.regimes[r].first; i < split.regimes[r].second; ++i)
                if (data[i].messages == n) return r;
        return std::size_t{0};  // unreachable: n1 and n2 are measured counts
    };
    const std::size_t r1 = regime_of(*s.n1), r2 = regime_of(*s.n2);
    const std::size_t begin = split.regimes[r1].first, end = split.regimes[r2].second;
    double dsum = 0.0, dworst = 0.0;
    for (std::size_t i = begin; i < end; ++i) {
        data[i].dominant = true;
        dsum += data[i].error;
        dworst = std::max(dworst, data[i].error);
    }
    s.dominant_points = end - begin;
    s.dominant_max_size = data[begin].size;  // the smallest N sends the largest messages
    s.dominant_min_size = data[end - 1].size;
    s.dominant_max_error = dworst;
    s.dominant_mean_error = dsum / static_cast<double>(s.dominant_points);
    if (dworst > o.max_model_error) s.flags.emplace_back(commtest_flag::model_error);

    if (r1 != r2)
        s.notes.push_back("a mixes protocols: a break lies between N1 = " + std::to_string(*s.n1) + " and N2 = " +
                          std::to_string(*s.n2) + ", so the dominant range spans their regimes");
    if (!s.dominant_is_all())
        s.notes.push_back("protocol change found: the dominant range is messages of " + std::to_string(*s.dominant_min_size) +
                          " to " + std::to_string(*s.dominant_max_size) + " bytes (" + std::to_string(s.dominant_points) +
                          " of " + std::to_string(data.size()) + " points), where its model error is at most " +
                          percent(dworst) + " against " + percent(worst) + " over all the data");
    if (!fastest->dominant)
        s.notes.push_back("b comes from N = " + std::to_string(fastest->messages) + ", outside the dominant range");
}

}  // namespace detail::commtest_stats

/// COMMTEST's statistics of every experiment of `kernel` (seed 001; see the header comment for
/// the definitions and the rules), one element per group of records sharing protocol, volume,
/// pair, cache, prepost and nodes, in the order the groups are first seen.
///
/// Reads the records of `kernel` with the params the commtest kernel sets: `protocol` ("(0,k)"
/// unordered or "(1,k)" ordered), `volume` (bytes each rank sends), `messages` (N) on every
/// record with samples; the other params of the group when present. T_N is the least sample of
/// the records at N. A group whose records all have no samples and a note "not supported ..."
/// comes back with `supported` false and the note; a group with fewer than 2 measured N has no
/// a (a note says why). Nothing about the data throws: what cannot be a result is flagged
/// (`commtest_flag`).
/// @throws invalid_argument when `options` are inconsistent (n1 < 1, n2 ≤ n1, max_model_error
///         ≤ 0, alpha outside (0, 1)) or a record lacks what the contract above promises: a
///         protocol of that form, an integer volume > 0, or, with samples, an integer
///         messages > 0.
/// @code
///   for (const auto& s : comet::commtest_statistics_of(results))
///       if (s.b_valid()) use(s.protocol, s.volume, *s.swap_bandwidth);
/// @endcode
inline std::vector<commtest_statistics> commtest_statistics_of(const result_set& results, const commtest_options& options = {},
                                                               std::string_view kernel = "commtest") {
    using detail::commtest_stats::group_records;
    if (options.n1 < 1 || options.n2 <= options.n1)
        raise<invalid_argument>(-1, "commtest_statistics_of: n1 = ", options.n1, " and n2 = ", options.n2,
                                " must satisfy 1 <= n1 < n2");
    if (!(options.max_model_error > 0.0))
        raise<invalid_argument>(-1, "commtest_statistics_of: max_model_error = ", options.max_model_error, " must be > 0");
    if (!(options.alpha > 0.0 && options.alpha < 1.0))
        raise<invalid_argument>(-1, "commtest_statistics_of: alpha = ", options.alpha, " is outside (0, 1)");

    std::vector<group_records> groups;
    for (const record* r : results.of(kernel)) {
        const auto protocol = r->params.text("protocol");
        if (!protocol || protocol->size() < 5 || !protocol->starts_with("(") || !protocol->ends_with(")") ||
            ((*protocol)[1] != '0' && (*protocol)[1] != '1') || (*protocol)[2] != ',')
            raise<invalid_argument>(-1, "commtest_statistics_of: kernel '", kernel, "' has a record whose protocol is ",
                                    protocol ? "'" + *protocol + "'" : std::string("missing"),
                                    "; expected \"(0,k)\" (unordered) or \"(1,k)\" (ordered)");
        const auto volume = r->params.integer("volume");
        if (!volume || *volume <= 0)
            raise<invalid_argument>(-1, "commtest_statistics_of: kernel '", kernel, "' has a ", *protocol,
                                    " record without an integer volume > 0");
        if (!r->samples.empty()) {
            const auto n = r->params.integer("messages");
            if (!n || *n <= 0)
                raise<invalid_argument>(-1, "commtest_statistics_of: kernel '", kernel, "' has a ", *protocol,
                                        " record of volume ", *volume, " with samples but no integer messages > 0");
        }
        params key;
        for (std::string_view name : detail::commtest_stats::group_params)
            if (const auto* v = r->params.find(name)) key.set(name, *v);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const group_records& g) { return g.stats.group == key; });
        if (it == groups.end()) {
            group_records g;
            g.stats.kernel = std::string(kernel);
            g.stats.group = std::move(key);
            g.stats.protocol = *protocol;
            g.stats.ordered = (*protocol)[1] == '1';
            g.stats.volume = *volume;
            it = groups.insert(groups.end(), std::move(g));
        }
        it->records.push_back(r);
    }
    std::vector<commtest_statistics> out;
    out.reserve(groups.size());
    for (auto& g : groups) {
        detail::commtest_stats::compute(g, options);
        out.push_back(std::move(g.stats));
    }
    return out;
}

}  // namespace comet
