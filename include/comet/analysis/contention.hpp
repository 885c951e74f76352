// comet/analysis/contention.hpp — how much cross traffic slows echo down (CoMet thesis figure
// 5.5: "the echo test runs slower under increased loads"), from the contention kernel's
// records: loaded against idle, per size and summarised.
//
// An analysis of one kernel's params (`load`, `cross_size`): it sits above stats/, which knows
// curves and fits but no kernel, and below report/, which writes what it finds. The contention
// kernel's descriptor (suite/builtin.hpp) is what calls it.
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
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet {

/// Echo time under a load against the idle echo time at one size.
struct slowdown_point {
    std::int64_t size = 0;  ///< bytes: the echo message size
    double idle = 0.0;      ///< seconds: the statistic of the idle (load 0) record
    double loaded = 0.0;    ///< seconds: the statistic of the loaded record
    double ratio = 0.0;     ///< loaded / idle: 1 = no slow-down, 2 = twice as slow
    /// Why the ratio must not be read at face value: "idle: why", "loaded: why" for each side
    /// whose statistic is flagged (`statistic_flag`). Empty when neither is.
    std::vector<std::string> flags = {};
};

/// How much one load slows echo down, per size and summarised (thesis figure 5.5: "the echo
/// test runs slower under increased loads").
struct contention_slowdown {
    std::string kernel;
    comet::params group;     ///< the params shared by the records (nodes, hops, ...), size, load and cross_size left out
    double load = 0.0;       ///< fraction of peak echo bandwidth (0.5, 0.9)
    std::int64_t cross_size = 0;  ///< bytes: the cross-traffic message size of the load
    statistic stat = statistic::median;
    std::vector<slowdown_point> points;  ///< sizes with both an idle and a loaded time (idle > 0), ascending
    double median_ratio = 0.0;     ///< median of the points' ratios
    double geometric_mean_ratio = 0.0;  ///< exp(mean(log ratio)): the typical factor, fair to ratios
    double min_ratio = 0.0;
    double max_ratio = 0.0;
    /// Set when a point it summarises is flagged, or when a size of the curve has no point
    /// because a record there, loaded or idle, was left out (flagged as a whole, or without a
    /// valid sample: `unusable_why`): the four ratios are then flagged too.
    std::vector<std::string> flags = {};
};

/// Slow-down of echo under each load against the idle run (thesis figure 5.5), from the
/// records of the contention kernel: for every group (records grouped by their params without
/// size, load and cross_size — so per nodes and hops) and every load above 0, the ratio
/// loaded/idle of each size that has both (and an idle time above 0), and its median,
/// geometric mean, least and largest. Default statistic: the median.
/// @throws invalid_argument when no loaded record has an idle record of the same size and group.
/// @code
///   for (const auto& s : comet::contention_slowdowns(results))
///       std::printf("load %.1f: echo %.2fx slower (median over sizes)\n", s.load, s.median_ratio);
/// @endcode
COMET_DECL std::vector<contention_slowdown> contention_slowdowns(const result_set& results,
                                                                 const growth_options& options = {},
                                                                 std::string_view kernel = "contention");

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/analysis/contention.ipp>
#endif
