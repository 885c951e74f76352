// comet/report/thesis_plots.hpp — the CoMet thesis' figures of chapter 5 as plot
// descriptions (plot_model.hpp). The built-in kernels' descriptors (suite/builtin.hpp) take
// their plots from here by name; a kernel added outside the suite describes its own.
#pragma once

#include <comet/report/plot_model.hpp>
#include <comet/stats/summary.hpp>

#include <string>
#include <vector>

namespace comet {

/// The CoMet thesis' figures of chapter 5 as plot descriptions, for the kernels that record them
/// (SPEC 9's kernel and parameter names). Kernels a run did not measure give no plot. Where the
/// thesis shows one machine size ("on 16 nodes"), the plot keeps the largest `nodes` measured.
///   echo_time          5.1   echo one-way time vs message size, a series per hop distance
///   echo_bandwidth     5.2   echo bandwidth vs message size, per hop distance
///   broadcast_time     5.3   broadcast time vs message size, per node count
///   pairwise_time      5.4   pairwise exchange time vs message size, per hop distance
///   contention_time    5.5   echo under contention vs message size, per load
///   barrier            5.6   least barrier time vs nodes (log 2 axis)
///   global_sum         5.7   global sum time vs nodes (log 2 axis), per vector length
///   overlap_size_<S>   5.9–5.12  overlap time vs vector length, sync and async, one plot per message size
///   update_guard       5.13  update_guard time vs matrix dimension
///   shift_matrix       5.14  shift_matrix time vs matrix dimension, north and east
///   row_col_broadcast  5.15  row_broadcast and col_broadcast time vs matrix dimension
///   transpose          5.16  transpose time vs matrix dimension
/// @code
///   comet::write_plots(dir / "plots", comet::thesis_plots(), results);
/// @endcode
inline std::vector<plot_description> thesis_plots() {
    const std::string size = "message size [bytes]", dim = "matrix dimension (block side per node)", nodes = "nodes";
    std::vector<plot_description> p;
    p.push_back({.name = "echo_time",
                 .kernels = {"echo"},
                 .x = "size",
                 .y = plot_value::median_time_us("one-way time [µs]"),
                 .series = "hops",
                 .largest = "nodes",
                 .title = "echo: one-way time vs message size (thesis figure 5.1)",
                 .x_label = size});
    p.push_back({.name = "echo_bandwidth",
                 .kernels = {"echo"},
                 .x = "size",
                 .y = plot_value::bandwidth_mbs(),
                 .series = "hops",
                 .largest = "nodes",
                 .title = "echo: bandwidth vs message size (thesis figure 5.2)",
                 .x_label = size});
    p.push_back({.name = "broadcast_time",
                 .kernels = {"broadcast"},
                 .x = "size",
                 .series = "nodes",
                 .series_title = "{} nodes",
                 .title = "broadcast: time vs message size (thesis figure 5.3)",
                 .x_label = size});
    p.push_back({.name = "pairwise_time",
                 .kernels = {"pairwise"},
                 .x = "size",
                 .y = plot_value::median_time_us("exchange time [µs]"),
                 .series = "hops",
                 .largest = "nodes",
                 .title = "pairwise exchange: time vs message size (thesis figure 5.4)",
                 .x_label = size});
    p.push_back({.name = "contention_time",
                 .kernels = {"contention"},
                 .x = "size",
                 .y = plot_value::median_time_us("one-way time [µs]"),
                 .series = "load",
                 .largest = "nodes",
                 .title = "echo with contention: time vs message size (thesis figure 5.5)",
                 .x_label = size});
    p.push_back({.name = "barrier",
                 .kernels = {"barrier"},
                 .x = "nodes",
                 .y = plot_value::time_us(statistic::min),
                 .title = "barrier: least time vs number of nodes (thesis figure 5.6)",
                 .x_label = nodes,
                 .log_x = true,
                 .log_base_x = 2});
    p.push_back({.name = "global_sum",
                 .kernels = {"global_sum"},
                 .x = "nodes",
                 .series = "vector_length",
                 .title = "global sum: time vs number of nodes (thesis figure 5.7)",
                 .x_label = nodes,
                 .log_x = true,
                 .log_base_x = 2});
    p.push_back({.name = "overlap",
                 .kernels = {"overlap"},
                 .x = "vector_length",
                 .series = "mode",
                 .series_title = "{}",
                 .largest = "nodes",
                 .per = "size",
                 .title = "overlap of computation and communication (thesis figures 5.9-5.12)",
                 .x_label = "DAXPY vector length [doubles]"});
    p.push_back({.name = "update_guard",
                 .kernels = {"update_guard"},
                 .x = "matrix_dim",
                 .largest = "nodes",
                 .title = "update_guard: time vs matrix dimension (thesis figure 5.13)",
                 .x_label = dim});
    p.push_back({.name = "shift_matrix",
                 .kernels = {"shift_matrix"},
                 .x = "matrix_dim",
                 .series = "direction",
                 .series_title = "{}",
                 .largest = "nodes",
                 .title = "shift_matrix: time vs matrix dimension (thesis figure 5.14)",
                 .x_label = dim});
    p.push_back({.name = "row_col_broadcast",
                 .kernels = {"row_broadcast", "col_broadcast"},
                 .x = "matrix_dim",
                 .series = "kernel",
                 .largest = "nodes",
                 .title = "row and column broadcast: time vs matrix dimension (thesis figure 5.15)",
                 .x_label = dim});
    p.push_back({.name = "transpose",
                 .kernels = {"transpose"},
                 .x = "matrix_dim",
                 .largest = "nodes",
                 .title = "transpose: time vs matrix dimension (thesis figure 5.16)",
                 .x_label = dim});
    return p;
}


}  // namespace comet
