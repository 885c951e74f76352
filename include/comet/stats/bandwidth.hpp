// comet/stats/bandwidth.hpp — bandwidth figures of a transfer kernel: bandwidth(N) = N / median
// time per hop distance, its peak, and the sizes reaching 50% and 90% of it (CoMet thesis 5.1:
// "a peak bandwidth of 2.5 MB/s ... half the peak bandwidth was achieved around message sizes of
// 486 bytes ... ninety percent ... around 5000 bytes").
//
// Deliberately not here: the transfer model's fit (fit.hpp), whose `hops` rule (absent: 1 hop)
// this header shares.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet {

/// Bandwidth figures of one kernel at one hop distance, from bandwidth(N) = N / median time.
struct bandwidth_figures {
    std::string kernel;
    std::int64_t hops = 1;
    double peak = 0.0;    ///< bytes per second: the largest measured bandwidth
    double n_half = 0.0;  ///< bytes: smallest size reaching 50% of peak (interpolated)
    double n_90 = 0.0;    ///< bytes: smallest size reaching 90% of peak (interpolated)
    /// Why the figures must not be read at face value: the sizes whose median is flagged (its
    /// samples disagree: stats/validity.hpp's `median_flag`), each figure resting on the
    /// bandwidths of all; the sizes with a record left out (flagged as a whole, or without a
    /// valid sample: `unusable_why`), the peak perhaps among them. Empty when neither is.
    std::vector<std::string> flags = {};
};

namespace detail {

/// The hop distance of a record: its integer `hops` parameter, 1 when absent.
COMET_DECL std::int64_t record_hops(const record& r, std::int64_t size, const char* who);

}  // namespace detail

/// Bandwidth figures of `kernel`, one per hop value (ascending; records without `hops` count as
/// 1 hop), from the records with an integer `size` > 0 and samples.
///
/// bandwidth(N) = N / median time, in bytes per second (records that share a size and hop value
/// are pooled: the median of all their samples; a non-positive median gives no bandwidth).
/// peak is the largest measured bandwidth. n_half (n_90) is the smallest size at which the
/// bandwidth reaches 50% (90%) of peak: with sizes ascending, the first measured size N_i whose
/// bandwidth B_i ≥ level, interpolated linearly from the size before it,
///     n = N_(i−1) + (level − B_(i−1)) · (N_i − N_(i−1)) / (B_i − B_(i−1)),
/// or N_i itself when it is the smallest measured size (then read n as "at most N_i").
/// Every figure is NaN when no size of that hop value gives a bandwidth.
/// @code  for (const auto& b : comet::bandwidth(results, "echo")) use(b.hops, b.peak, b.n_half);  @endcode
COMET_DECL std::vector<bandwidth_figures> bandwidth(const result_set& results, std::string_view kernel);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/bandwidth.ipp>
#endif
