// comet/report/thesis_plots.ipp — the definitions of comet/report/thesis_plots.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/thesis_plots.hpp>

namespace comet {

COMET_DECL std::vector<plot_description> thesis_plots() {
    const std::string size = "message size [bytes]", dim = "matrix dimension (block side per node)", nodes = "nodes";
    std::vector<plot_description> p;
    p.push_back({.name = "echo_time",
                 .kernels = {"echo"},
                 .x = "size",
                 .y = plot_value::median_time_us("one-way time = round trip / 2 [µs]"),
                 .series = "hops",
                 .largest = "nodes",
                 .title = "echo: one-way time (half the round trip; thesis figure 5.1 draws the round trip)",
                 .x_label = size,
                 .log_x = true,
                 .log_y = true,
                 .log_base_x = 2});
    p.push_back({.name = "echo_bandwidth",
                 .kernels = {"echo"},
                 .x = "size",
                 .y = plot_value::bandwidth_mbs("bandwidth = size / one-way time [MB/s]"),
                 .series = "hops",
                 .largest = "nodes",
                 .title = "echo: bandwidth vs message size (thesis figure 5.2)",
                 .x_label = size,
                 .log_x = true,
                 .log_base_x = 2});
    p.push_back({.name = "broadcast_time",
                 .kernels = {"broadcast"},
                 .x = "size",
                 .series = "nodes",
                 .series_title = "{} nodes",
                 .title = "broadcast: time vs message size (thesis figure 5.3)",
                 .x_label = size,
                 .log_x = true,
                 .log_y = true,
                 .log_base_x = 2});
    p.push_back({.name = "pairwise_time",
                 .kernels = {"pairwise"},
                 .x = "size",
                 .y = plot_value::median_time_us("exchange time [µs]"),
                 .series = "hops",
                 .largest = "nodes",
                 .title = "pairwise exchange: time vs message size (thesis figure 5.4)",
                 .x_label = size,
                 .log_x = true,
                 .log_y = true,
                 .log_base_x = 2});
    p.push_back({.name = "contention_time",
                 .kernels = {"contention"},
                 .x = "size",
                 .y = plot_value::median_time_us("one-way time = round trip / 2 [µs]"),
                 .series = "load",
                 .largest = "nodes",
                 .title = "echo with contention: one-way time vs message size (thesis figure 5.5)",
                 .x_label = size,
                 .log_x = true,
                 .log_y = true,
                 .log_base_x = 2});
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
                 .x_label = "DAXPY vector length [doubles]",
                 .log_x = true});
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
