// comet/suite/builtin.ipp — the definitions of comet/suite/builtin.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/suite/builtin.hpp>

namespace comet {
namespace detail::builtin {

COMET_DECL std::vector<plot_description> plots(std::initializer_list<std::string_view> names) {
    std::vector<plot_description> out;
    for (auto& p : thesis_plots())
        if (std::find(names.begin(), names.end(), p.name) != names.end()) out.push_back(std::move(p));
    return out;
}

COMET_DECL std::size_t transfer_points(const suite_config& c, int nodes) {
    const auto& t = c.transfer;
    return (t.hops.empty() ? kernels::default_hops(t.test_node, nodes) : t.hops).size() * t.sizes.size();
}

COMET_DECL std::optional<std::string> needs_mesh(int nodes) {
    if (kernels::has_processor_mesh(nodes)) return std::nullopt;
    return std::string("needs a processor mesh: a square number of ranks or twice one");
}

COMET_DECL kernel_descriptor matrix(std::string name, std::initializer_list<std::string_view> plot_names) {
    kernel_descriptor d{.name = name,
                        .group_rule = needs_mesh,
                        .points = [name](const suite_config& c, int) { return kernels::matrix_kernel_points(name, c.matrix); },
                        .analyses = {analyses::growth_in("matrix_dim")},
                        .plots = plots(plot_names),
                        .shapes = thesis_shapes_of(name)};
    return d;
}

}  // namespace detail::builtin
}  // namespace comet

namespace comet::detail::builtin {

COMET_DECL kernel_descriptor echo_descriptor() {
    return kernel_descriptor{.name = "echo",
                                    .min_ranks = 2,
                                    .points = transfer_points,
                                    .analyses = {analyses::transfer_fits()},
                                    .plots = plots({"echo_time", "echo_bandwidth"}),
                                    .shapes = thesis_shapes_of("echo")};
}

COMET_DECL kernel_descriptor pairwise_descriptor() {
    return kernel_descriptor{.name = "pairwise",
                                    .min_ranks = 2,
                                    .points = transfer_points,
                                    .analyses = {analyses::transfer_fits()},
                                    .plots = plots({"pairwise_time"}),
                                    .shapes = thesis_shapes_of("pairwise")};
}

COMET_DECL kernel_descriptor broadcast_descriptor() {
    return kernel_descriptor{.name = "broadcast",
                                    .points = [](const suite_config& c, int) { return c.broadcast.sizes.size(); },
                                    .analyses = {analyses::log_p()},
                                    .plots = plots({"broadcast_time"}),
                                    .shapes = thesis_shapes_of("broadcast")};
}

COMET_DECL kernel_descriptor global_sum_descriptor() {
    return kernel_descriptor{.name = "global_sum",
                                    .points = [](const suite_config& c, int) { return c.global_sum.vector_lengths.size(); },
                                    .analyses = {analyses::log_p()},
                                    .plots = plots({"global_sum"}),
                                    .shapes = thesis_shapes_of("global_sum")};
}

COMET_DECL kernel_descriptor barrier_descriptor() {
    return kernel_descriptor{.name = "barrier",
                                    .points = [](const suite_config&, int) { return std::size_t{1}; },
                                    .figure = statistic::min,
                                    .analyses = {analyses::log_p()},
                                    .plots = plots({"barrier"}),
                                    .shapes = thesis_shapes_of("barrier")};
}

COMET_DECL kernel_descriptor contention_descriptor() {
    return kernel_descriptor{.name = "contention",
                          .min_ranks = 4,
                          .points =
                              [](const suite_config& c, int nodes) {
                                  const auto& k = c.contention;
                                  return (k.hops.empty() ? kernels::default_contention_hops(nodes) : k.hops).size() *
                                         k.loads.size() * k.sizes.size();
                              },
                          .analyses = {analyses::slowdown_under_load()},
                          .plots = plots({"contention_time"}),
                          .shapes = thesis_shapes_of("contention")};
}

COMET_DECL kernel_descriptor overlap_descriptor() {
    return kernel_descriptor{.name = "overlap",
                                    .min_ranks = 2,
                                    .points =
                                        [](const suite_config& c, int) {
                                            const auto& o = c.overlap;
                                            return (o.daxpy_baseline ? o.vector_lengths.size() : 0) +
                                                   2 * o.sizes.size() * o.vector_lengths.size();
                                        },
                                    .analyses = {analyses::gain_from_overlap()},
                                    .plots = plots({"overlap"}),
                                    .shapes = thesis_shapes_of("overlap")};
}

COMET_DECL kernel_descriptor update_guard_descriptor() {
    return detail::builtin::matrix("update_guard", {"update_guard"});
}

COMET_DECL kernel_descriptor shift_matrix_descriptor() {
    return detail::builtin::matrix("shift_matrix", {"shift_matrix"});
}

COMET_DECL kernel_descriptor transpose_descriptor() {
    return detail::builtin::matrix("transpose", {"transpose"});
}

COMET_DECL kernel_descriptor row_broadcast_descriptor() {
    return detail::builtin::matrix("row_broadcast", {"row_col_broadcast"});
}

COMET_DECL kernel_descriptor col_broadcast_descriptor() {
    return detail::builtin::matrix("col_broadcast", {"row_col_broadcast"});
}

COMET_DECL kernel_descriptor commtest_descriptor() {
    const auto plots = [] {
        plot_value swap_mbs{"swap bandwidth [MB/s] (2 x volume / least time)", [](const record& r) -> std::optional<double> {
                                const auto volume = r.params.number("volume");
                                if (!volume || !usable(r)) return std::nullopt;
                                const double least = summarize(r).min;
                                if (!(least > 0)) return std::nullopt;
                                return 2 * *volume / least / 1e6;
                            }};
        swap_mbs.flag = [](const record& r) { return statistic_flag(r, statistic::min); };
        return std::vector<plot_description>{
            {.name = "commtest_time",
             .kernels = {"commtest"},
             .x = "messages",
             .y = plot_value::time_us(statistic::min, "least time of the exchange [µs]"),
             .series = "protocol",
             .series_title = "{}",
             .per = "volume",
             .experiments = {"pair", "cache", "prepost", "nodes"},
             .title = "COMMTEST: time to swap the volume vs number of messages",
             .x_label = "number of messages",
             .log_x = true,
             .log_y = true,
             .log_base_x = 2},
            {.name = "commtest_bandwidth",
             .kernels = {"commtest"},
             .x = "size",
             .y = std::move(swap_mbs),
             .series = "protocol",
             .series_title = "{}",
             .per = "volume",
             .experiments = {"pair", "cache", "prepost", "nodes"},
             .title = "COMMTEST: swap bandwidth vs message size",
             .x_label = "message size [bytes]",
             .log_x = true,
             .log_base_x = 2}};
    };
    return kernel_descriptor{.name = "commtest",
                                    .min_ranks = 2,
                                    .points =
                                        [](const suite_config& c, int) {
                                            return kernels::commtest::commtest_points(c.commtest) *
                                                   std::max<std::size_t>(1, c.commtest_caches.size());
                                        },
                                    .figure = statistic::min,
                                    .analyses = {analyses::commtest_statistics()},
                                    .plots = plots()};
}

COMET_DECL kernel_descriptor sync_descriptor() {
    const auto value_of = [](std::string name, std::string label) { return plot_value::value(std::move(name), std::move(label)); };
    plot_value error_us = plot_value::value("estimated_error", "largest estimated error [µs]", 1e6);
    return kernel_descriptor{.name = "sync",
                                    .points = [](const suite_config& c, int nodes) {
                                        // The round-trip study's histogram records are its non-empty bins: at most `bins`.
                                        const kernels::rtt_config& r = c.sync.rtt;
                                        const std::size_t trips = c.sync.round_trips && nodes >= 2
                                            ? (r.partners.empty() ? std::min<std::size_t>(3, static_cast<std::size_t>(nodes - 1)) : r.partners.size()) *
                                                  (1 + r.bins + r.segments + r.patience.size())
                                            : 0;
                                        return 2 * c.sync.schemes.size() + trips;
                                    },
                                    .plots = {{.name = "sync_time",
                                               .kernels = {"sync"},
                                               .x = "nodes",
                                               .series = "scheme",
                                               .series_title = "{}",
                                               .where = {{"reduction", param_value(std::string("rank_0"))}},
                                               .title = "Clock synchronisation: rank 0's time vs number of nodes (seed 002, figure 8)",
                                               .x_label = "nodes",
                                               .y_label = "median sync time [µs]",
                                               .log_x = true,
                                               .log_y = true,
                                               .log_base_x = 2},
                                              {.name = "sync_time_slowest",
                                               .kernels = {"sync"},
                                               .x = "nodes",
                                               .series = "scheme",
                                               .series_title = "{}",
                                               .where = {{"reduction", param_value(std::string("max_over_ranks"))}},
                                               .title = "Clock synchronisation: the slowest rank's time vs number of nodes",
                                               .x_label = "nodes",
                                               .y_label = "median sync time [µs]",
                                               .log_x = true,
                                               .log_y = true,
                                               .log_base_x = 2},
                                              {.name = "sync_rtt_histogram",
                                               .kernels = {"rtt"},
                                               .x = "latency_us",
                                               .y = value_of("count", "round trips"),
                                               .series = "partner",
                                               .series_title = "test node - {}",
                                               .where = {{"study", param_value(std::string("histogram"))}},
                                               .largest = "nodes",
                                               .title = "Round-trip latency (RTT / 2) distribution, per pair (seed 002, figure 4)",
                                               .x_label = "latency [µs]",
                                               .x_is_value = true},
                                              {.name = "sync_drift",
                                               .kernels = {"rtt"},
                                               .x = "at_s",
                                               .series = "partner",
                                               .series_title = "test node - {}",
                                               .where = {{"study", param_value(std::string("drift"))}},
                                               .largest = "nodes",
                                               .title = "Clock difference since the first round trip, per pair (seed 002, figure 5)",
                                               .x_label = "time since the first round trip [s]",
                                               .y_label = "median clock difference [µs]",
                                               .x_is_value = true},
                                              {.name = "sync_quality",
                                               .kernels = {"rtt"},
                                               .x = "patience",
                                               .curves = {value_of("quality", "quality: minimum above the smallest [%]")},
                                               .where = {{"study", param_value(std::string("quality"))}, {"partner", param_value(std::int64_t{1})}},
                                               .largest = "nodes",
                                               .title = "Minimum RTT not improved for N in a row: quality against N (seed 002, figure 6)",
                                               .x_label = "N",
                                               .y_label = "%",
                                               .log_x = true},
                                              {.name = "sync_cost",
                                               .kernels = {"rtt"},
                                               .x = "patience",
                                               .curves = {value_of("cost", "cost: round trips measured")},
                                               .where = {{"study", param_value(std::string("quality"))}, {"partner", param_value(std::int64_t{1})}},
                                               .largest = "nodes",
                                               .title = "Minimum RTT not improved for N in a row: cost against N (seed 002, figure 6)",
                                               .x_label = "N",
                                               .y_label = "round trips",
                                               .log_x = true,
                                               .log_y = true},
                                              {.name = "sync_error",
                                               .kernels = {"sync"},
                                               .x = "nodes",
                                               .y = std::move(error_us),
                                               .series = "scheme",
                                               .series_title = "{}",
                                               .where = {{"reduction", param_value(std::string("max_over_ranks"))}},
                                               .title = "Clock synchronisation: estimated error vs number of nodes",
                                               .x_label = "nodes",
                                               .log_x = true,
                                               .log_base_x = 2}}};
}

COMET_DECL kernel_descriptor collectives_descriptor() {
    return kernel_descriptor{.name = "collectives",
                                    .points = [](const suite_config& c, int nodes) { return kernels::windowed_collectives_points(c.collectives, nodes); },
                                    .plots = {{.name = "collectives_time",
                                               .kernels = {"collectives"},
                                               .x = "size",
                                               .series = "reduction",
                                               .series_title = "{}",
                                               .where = {{"measure", param_value(std::string("window"))}},
                                               .largest = "nodes",
                                               .per = "operation",
                                               .title = "Window-based collective time vs size, per reduction over ranks",
                                               .x_label = "bytes per rank",
                                               .log_x = true,
                                               .log_y = true,
                                               .log_base_x = 2},
                                              {.name = "collectives_window_vs_pipelined",
                                               .kernels = {"collectives"},
                                               .x = "size",
                                               .series = "measure",
                                               .series_title = "{}",
                                               .where = {{"reduction", param_value(std::string("max"))}},
                                               .largest = "nodes",
                                               .per = "operation",
                                               .title = "Slowest rank's time: one operation per window, pipelined, and the loop schemes (seed 002, listings 1-3)",
                                               .x_label = "bytes per rank",
                                               .log_x = true,
                                               .log_y = true,
                                               .log_base_x = 2}}};
}

COMET_DECL kernel_descriptor loggp_descriptor() {
    return kernel_descriptor{.name = "loggp",
                             .min_ranks = 2,
                             .points = [](const suite_config& c, int) { return 4 * c.loggp.transfer.sizes.size(); },
                             .analyses = {analyses::machine_fit()}};
}

COMET_DECL kernel_descriptor nbc_descriptor() {
    const auto overhead = [](std::string method, std::string title) {
        return plot_description{.name = "nbc_overhead_" + method,
                                .kernels = {"nbc"},
                                .x = "size",
                                .series = "curve",
                                .series_title = "{}",
                                .where = {{"implementation", param_value(std::string("schedule"))}},
                                .largest = "nodes",
                                .per = "operation",
                                .title = std::move(title),
                                .x_label = "bytes",
                                .y_label = "median overhead of the slowest rank [µs]",
                                .log_x = true,
                                .log_y = true,
                                .log_base_x = 2};
    };
    plot_description time = overhead("time", "Nonblocking collective: time-based overhead vs size, per progression");
    time.where.push_back({"method", param_value(std::string("time"))});
    plot_description work = overhead("work", "Nonblocking collective: work-based overhead vs size, per progression");
    work.where.push_back({"method", param_value(std::string("work"))});
    plot_description blocking = overhead("blocking", "Nonblocking collective started and waited for at once (T_b) vs size");
    blocking.where.push_back({"method", param_value(std::string("blocking"))});
    blocking.series = "implementation";
    blocking.where.erase(blocking.where.begin());
    blocking.y_label = "median time of the slowest rank [µs]";
    return kernel_descriptor{.name = "nbc",
                                    .points = [](const suite_config& c, int) { return kernels::nbc_points(c.nbc); },
                                    .plots = {std::move(blocking), std::move(time), std::move(work),
                                              {.name = "nbc_progression",
                                               .kernels = {"nbc"},
                                               .x = "interval",
                                               .series = "size",
                                               .series_title = "{} bytes",
                                               .where = {{"progression", param_value(std::string("test"))},
                                                         {"method", param_value(std::string("time"))},
                                                         {"implementation", param_value(std::string("schedule"))}},
                                               .largest = "nodes",
                                               .per = "operation",
                                               .title = "Test progression: time-based overhead vs bytes per test call",
                                               .x_label = "bytes per test call (interval)",
                                               .y_label = "median overhead of the slowest rank [µs]",
                                               .log_x = true,
                                               .log_y = true,
                                               .log_base_x = 2}}};
}

COMET_DECL kernel_descriptor nist_descriptor(kernels::nist::application app) {
    const std::string name(kernels::nist::to_string(app));
    const auto against_d = [&](std::string plot, plot_value y, std::string title) {
        return plot_description{.name = name + "_" + plot,
                                .kernels = {name},
                                .x = "dilation",
                                .y = std::move(y),
                                .series = "setting",
                                .series_title = "{}",
                                .largest = "nodes",
                                .title = std::move(title),
                                .x_label = "dilation factor D",
                                .log_x = true,
                                .log_base_x = 2};
    };
    plot_value elapsed{"normalised elapsed time E_D [s]", [](const record& r) -> std::optional<double> {
                           if (!usable(r)) return std::nullopt;
                           return summarize(r).median;
                       }};
    elapsed.flag = median_flag;
    plot_value speedup = plot_value::value("speedup", "speedup E_1 / E_D");
    // Figures 5 and 6: where the time goes as D grows, a plot per setting.
    const auto state = [](std::string label, std::string param) {
        return plot_value::value(std::move(param), std::move(label));
    };
    plot_description components = against_d("components", plot_value{"normalised time [s]", {}},
                                             "NIST " + name + ": normalised service states vs dilation");
    components.series.clear();
    components.per = "setting";
    components.curves = {plot_value{"E_D", elapsed.of, {}, {}, elapsed.flag}, state("U_D", "user"), state("L_D", "logical"),
                         state("P_D", "physical"), state("O_D", "overhead")};
    // Figure 6: E_D, L_D and O_D against the retransmissions, a plot per setting (none where
    // the transport counts no retransmissions: the records have no value to put on x).
    plot_description retries = components;
    retries.name = name + "_retries";
    retries.x = "retries";
    retries.x_is_value = true;
    retries.log_x = false;
    retries.x_label = "message retransmissions";
    retries.title = "NIST " + name + ": E_D, L_D and O_D vs message retransmissions";
    retries.curves = {plot_value{"E_D", elapsed.of, {}, {}, elapsed.flag}, state("L_D", "logical"), state("O_D", "overhead")};
    kernel_descriptor d{.name = name,
                        .min_ranks = app == kernels::nist::application::mesh ? 4 : 2,
                        .points = [](const suite_config& c, int) { return c.nist.settings.size() * c.nist.dilations.size(); },
                        .analyses = {analyses::dilation_estimates()},
                        .plots = {against_d("elapsed", std::move(elapsed), "NIST " + name + ": normalised elapsed time vs dilation"),
                                  against_d("speedup", std::move(speedup), "NIST " + name + ": speedup with time dilation"),
                                  std::move(components), std::move(retries)},
                        .one_run = true};
    if (app == kernels::nist::application::mesh)
        d.group_rule = [](int nodes) -> std::optional<std::string> {
            int n = 2;
            while (n * n < nodes) ++n;
            if (n * n != nodes) return "needs a square number of nodes (an N x N torus)";
            return std::nullopt;
        };
    return d;
}

}  // namespace comet::detail::builtin
