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

#include <comet/core/compiled.hpp>

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
#include <map>
#include <optional>
#include <set>
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
COMET_DECL std::string commtest_flag_text(std::string_view flag);

/// "flagged: negative a, model error too large".
COMET_DECL std::string commtest_flags_text(const std::vector<std::string>& flags);

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
COMET_DECL double weight(const commtest_point& p, bool relative);
COMET_DECL line least_squares_line(std::span<const commtest_point> pts, bool relative);

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
COMET_DECL regime_split find_regimes(std::span<const commtest_point> pts, const commtest_options& o);

/// One group's records on their way to statistics.
struct group_records {
    commtest_statistics stats;
    std::vector<const record*> records;
};

/// "N = 512" or "N = 256 and 1024".
COMET_DECL std::string counts_text(const std::vector<std::int64_t>& ns);

COMET_DECL std::string percent(double fraction);

/// The statistics of one group whose records are gathered in `g`.
COMET_DECL void compute(group_records& g, const commtest_options& o);

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
COMET_DECL std::vector<commtest_statistics> commtest_statistics_of(const result_set& results, const commtest_options& options = {},
                                                                   std::string_view kernel = "commtest");

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/commtest.ipp>
#endif
