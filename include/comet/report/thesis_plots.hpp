// comet/report/thesis_plots.hpp — the CoMet thesis' figures of chapter 5 as plot
// descriptions (plot_model.hpp). The built-in kernels' descriptors (suite/builtin.hpp) take
// their plots from here by name; a kernel added outside the suite describes its own.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/report/plot_model.hpp>
#include <comet/stats/summary.hpp>

#include <string>
#include <vector>

namespace comet {

/// The CoMet thesis' figures of chapter 5 as plot descriptions, for the kernels that record them
/// (SPEC 9's kernel and parameter names). Kernels a run did not measure give no plot. Where the
/// thesis shows one machine size ("on 16 nodes"), the plot keeps the largest `nodes` measured.
/// Message sizes, which span decades, are on log axes (base 2; 0 B drawn apart, plot_model.hpp),
/// the times against them too; medians carry their 95% interval as error bars.
///   echo_time          5.1   echo one-way time (half the round trip, where the thesis' figure
///                            draws the round trip) vs message size, a series per hop distance
///   echo_bandwidth     5.2   echo bandwidth vs message size, per hop distance
///   broadcast_time     5.3   broadcast time vs message size, per node count
///   pairwise_time      5.4   pairwise exchange time vs message size, per hop distance
///   contention_time    5.5   echo under contention vs message size, per load
///   barrier            5.6   least barrier time vs nodes (log 2 axis)
///   global_sum         5.7   global sum time vs nodes (log 2 axis), per vector length
///   overlap_size_<S>   5.9–5.12  overlap time vs vector length (log axis), sync and async, one plot per message size
///   update_guard       5.13  update_guard time vs matrix dimension
///   shift_matrix       5.14  shift_matrix time vs matrix dimension, north and east
///   row_col_broadcast  5.15  row_broadcast and col_broadcast time vs matrix dimension
///   transpose          5.16  transpose time vs matrix dimension
/// @code
///   comet::write_plots(dir / "plots", comet::thesis_plots(), results);
/// @endcode
COMET_DECL std::vector<plot_description> thesis_plots();

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/thesis_plots.ipp>
#endif
