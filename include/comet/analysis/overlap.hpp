// comet/analysis/overlap.hpp — how much the asynchronous overlap kernel gains over the
// synchronous one (CoMet thesis figures 5.9–5.12: "improvements of over 33% when overlapping a
// pairwise transfer of large messages with double precision computation"), from the overlap
// kernel's records: sync against async per point, the share of the hideable time hidden, and
// summaries per size and for large messages.
//
// An analysis of one kernel's params (`mode`, `vector_length`): it sits above stats/ and below
// report/. The overlap kernel's descriptor (suite/builtin.hpp) is what calls it.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/stats/curves.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace comet {

/// Synchronous against asynchronous overlap at one message size and vector length.
struct overlap_point {
    std::int64_t size = 0;           ///< bytes exchanged each way
    std::int64_t vector_length = 0;  ///< doubles in the DAXPY
    double sync = 0.0;               ///< seconds: the statistic of the "sync" record
    double async = 0.0;              ///< seconds: the statistic of the "async" record
    double gain = 0.0;               ///< sync / async: above 1 when overlapping pays
    double saved = 0.0;              ///< 1 − async/sync: the fraction of the time saved (the thesis' "33%")
    /// (comm + comp − async) / min(comm, comp): the fraction of the time that could be hidden
    /// that the asynchronous version did hide (0: it took comm + comp, no overlap; 1: it took
    /// max(comm, comp), the shorter fully hidden). comm = the ASYNC time at this size with
    /// vector length 0 (the asynchronous exchange alone), comp = the "daxpy" baseline at this
    /// vector length. Measured against the asynchronous exchange rather than the synchronous
    /// one on purpose: `gain` also counts what the asynchronous calls save by themselves (the
    /// thesis: a message "copied directly into user space, avoiding a memory copy"; on the
    /// threads transport two blocking sends that both go first each take a buffered copy),
    /// which is no overlap. NaN at vector length 0 (nothing to hide), when comm or comp is
    /// missing, or when min(comm, comp) ≤ 0. Noisy where comp or comm is tiny.
    double hidden = 0.0;
    /// Why this point's figures must not be read at face value: each record they come from whose
    /// statistic is flagged (`statistic_flag`), as "sync: why", "async: why" (gain and saved), and
    /// "async alone: why", "daxpy: why" (hidden); "async alone: left out: why", "daxpy: left
    /// out: why" when one of hidden's records was left out (flagged as a whole, or without a valid
    /// sample: `unusable_why`), hidden then NaN. Empty when none is.
    std::vector<std::string> flags = {};
};

/// The overlap gain of one message size, over its vector lengths above 0.
struct overlap_size_gain {
    std::int64_t size = 0;
    std::size_t points = 0;     ///< vector lengths > 0 with both modes
    double median_gain = 0.0;   ///< NaN when points is 0
    double max_gain = 0.0;
    double median_saved = 0.0;
    double max_saved = 0.0;
    /// Set when a point it summarises has a flagged sync or async statistic, or when a sync or
    /// async record it would have summarised was left out (flagged as a whole, or without a valid
    /// sample): the four figures are then flagged. Empty when neither.
    std::vector<std::string> flags = {};
};

/// Overlap gains of one group of overlap records (one `nodes`, one `hops`, ...).
struct overlap_gain {
    std::string kernel;
    comet::params group;  ///< the params shared by the records; size, vector_length and mode left out
    statistic stat = statistic::median;
    std::vector<overlap_point> points;      ///< every (size, vector_length) with both modes: size, then vector_length ascending
    std::vector<overlap_size_gain> sizes;   ///< per size, ascending
    /// The "large messages" summary (thesis 5.1: "improvements of over 33% when overlapping a
    /// pairwise transfer of large messages with double precision computation"): the points with
    /// size ≥ large_size and vector_length > 0.
    std::int64_t large_size = 0;
    std::size_t large_points = 0;
    double large_median_gain = 0.0;   ///< NaN when large_points is 0
    double large_max_gain = 0.0;
    double large_median_saved = 0.0;
    double large_max_saved = 0.0;
    /// As `overlap_size_gain::flags`, for the "large messages" summary (a record left out at a
    /// size above large_size too: with the largest size left out, large_size is a smaller one).
    std::vector<std::string> large_flags = {};
};

/// Options of `overlap_gains`.
struct overlap_gain_options {
    /// The statistic of each record's samples; unset: median.
    std::optional<statistic> stat;
    /// The smallest message size summarised as "large"; unset: the largest size measured.
    std::optional<std::int64_t> large_size;
};

/// Overlap gains (thesis figures 5.9–5.12), from the records of the overlap kernel: for every
/// group (records grouped by their params without size, vector_length and mode — so per nodes
/// and hops), sync/async per (size, vector_length) measured in both modes, the fraction of
/// the hideable time that was hidden (with the "daxpy" baseline), a summary per size, and the
/// "large messages" summary over sizes ≥ `large_size` (default: the largest size measured)
/// with vector lengths above 0. Default statistic: the median.
/// @throws invalid_argument when no (size, vector_length) has both a "sync" and an "async" record.
/// @code
///   for (const auto& g : comet::overlap_gains(results))
///       std::printf("large messages: async saves %.0f%% (median)\n", 100 * g.large_median_saved);
/// @endcode
COMET_DECL std::vector<overlap_gain> overlap_gains(const result_set& results, const overlap_gain_options& options = {},
                                                   std::string_view kernel = "overlap");

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/analysis/overlap.ipp>
#endif
