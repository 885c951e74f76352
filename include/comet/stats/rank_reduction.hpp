// comet/stats/rank_reduction.hpp — one measurement of an operation every rank ran, reduced to
// one number (seed 002, section 1.2, "Results on multiple processes"; Worsch et al.'s schemes).
//
// Every rank times its own part of a collective: it starts when it calls the operation and ends
// when the call returns, and the ranks do not end together (a broadcast's root may leave after
// its first send; the last leaf finishes a tree's depth later). Which single number describes
// the operation is the reader's choice, and benchmarks differ in it silently. comet keeps them
// all, named:
//
//   designated  the time on one chosen rank (the root of a rooted operation, else rank 0):
//               what a benchmark that times on rank 0 alone reports;
//   max         the longest time of any rank: when the slowest participant is done;
//   min         the shortest: how soon the first rank is free again;
//   mean        the average over ranks (what IMB's "t_avg" is);
//   median      the middle rank's time, robust to one slow rank;
//   span        first start to last finish, max(end) − min(start), on the global clock: the
//               operation's whole extent in time, skew between the ranks' starts included.
//
// The inputs are each rank's start and end on a global time base (timing/global_clock.hpp); the
// first five use only differences on one rank's clock, `span` compares clocks of different
// ranks and is as good as their synchronisation (the record says how good: `clock_error`).
#pragma once

#include <comet/core/compiled.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <span>
#include <string_view>
#include <vector>

namespace comet {

/// How one measurement's per-rank times become one number.
enum class rank_reduction : unsigned char { designated, max, min, mean, median, span };

/// Every reduction, in the order records list them.
inline constexpr std::array<rank_reduction, 6> all_rank_reductions{rank_reduction::designated, rank_reduction::max,
                                                                   rank_reduction::min,        rank_reduction::mean,
                                                                   rank_reduction::median,     rank_reduction::span};

constexpr std::string_view to_string(rank_reduction r) noexcept {
    switch (r) {
    case rank_reduction::designated: return "designated";
    case rank_reduction::max: return "max";
    case rank_reduction::min: return "min";
    case rank_reduction::mean: return "mean";
    case rank_reduction::median: return "median";
    case rank_reduction::span: return "first_start_to_last_finish";
    }
    return "?";
}

/// One measurement on every rank: rank r started at `start[r]` and ended at `end[r]` (global
/// time, seconds).
struct rank_times {
    std::span<const double> start;
    std::span<const double> end;
};

/// The measurement reduced by `how`; `designated` names the rank of `designated`. The median of
/// an even number of ranks is the mean of the middle two.
/// @pre start.size() == end.size() > 0, 0 <= designated < start.size().
COMET_DECL double reduce_ranks(const rank_times& m, rank_reduction how, std::size_t designated = 0);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/rank_reduction.ipp>
#endif
