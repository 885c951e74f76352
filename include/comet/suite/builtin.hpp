// comet/suite/builtin.hpp — the CoMet suite's kernels as descriptors (suite/descriptor.hpp), in
// the thesis' order: echo, pairwise, broadcast, global_sum, barrier, contention, overlap and the
// five matrix kernels. Each says in one place how it runs, what it measures, how its figure is
// read, what is derived from it and how it is drawn.
//
// A kernel of one's own needs no edit here: pass its `kernel{descriptor, run}` to run_suite
// and its descriptor to analyse and the report (suite/suite.hpp, suite/output.hpp).
#pragma once

#include <comet/analysis/thesis.hpp>
#include <comet/kernels/clock_sync.hpp>
#include <comet/kernels/collectives.hpp>
#include <comet/kernels/commtest/commtest.hpp>
#include <comet/kernels/contention.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/kernels/matrix/matrix.hpp>
#include <comet/kernels/nbc.hpp>
#include <comet/kernels/overlap.hpp>
#include <comet/kernels/windowed_collectives.hpp>
#include <comet/report/thesis_plots.hpp>
#include <comet/suite/analyses.hpp>
#include <comet/suite/config.hpp>
#include <comet/suite/descriptor.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace comet {

namespace detail::builtin {

/// The thesis' plots of these names (report/thesis_plots.hpp), in its order.
inline std::vector<plot_description> plots(std::initializer_list<std::string_view> names) {
    std::vector<plot_description> out;
    for (auto& p : thesis_plots())
        if (std::find(names.begin(), names.end(), p.name) != names.end()) out.push_back(std::move(p));
    return out;
}

/// echo and pairwise: a point per hop distance and size.
inline std::size_t transfer_points(const suite_config& c, int nodes) {
    const auto& t = c.transfer;
    return (t.hops.empty() ? kernels::default_hops(t.test_node, nodes) : t.hops).size() * t.sizes.size();
}

/// The matrix kernels' rule: a processor mesh (thesis 4.3).
inline std::optional<std::string> needs_mesh(int nodes) {
    if (kernels::has_processor_mesh(nodes)) return std::nullopt;
    return std::string("needs a processor mesh: a square number of ranks or twice one");
}

/// A matrix kernel's descriptor: one figure (thesis 5.13–5.16), growth in the matrix dimension.
inline kernel_descriptor matrix(std::string name, std::initializer_list<std::string_view> plot_names) {
    kernel_descriptor d{.name = name,
                        .group_rule = needs_mesh,
                        .points = [name](const suite_config& c, int) { return kernels::matrix_kernel_points(name, c.matrix); },
                        .analyses = {analyses::growth_in("matrix_dim")},
                        .plots = plots(plot_names),
                        .shapes = thesis_shapes_of(name)};
    return d;
}

}  // namespace detail::builtin

/// Echo (thesis 3.3.1): one-way time per hop distance and size; transfer fits and bandwidth.
/// `k`, marked as a kernel whose records describe one run of it (kernel_descriptor::one_run).
template <class Run>
kernel<Run> describing_one_run(kernel<Run> k) {
    k.descriptor.one_run = true;
    return k;
}

inline auto echo_kernel() {
    using namespace detail::builtin;
    return kernel{kernel_descriptor{.name = "echo",
                                    .min_ranks = 2,
                                    .points = transfer_points,
                                    .analyses = {analyses::transfer_fits()},
                                    .plots = plots({"echo_time", "echo_bandwidth"}),
                                    .shapes = thesis_shapes_of("echo")},
                  [](auto& t, const suite_run& r) { return kernels::echo(t, r.config.configured(r.config.transfer)); }};
}

/// Pairwise exchange (thesis 3.3.2): exchange time per hop distance and size; transfer fits.
inline auto pairwise_kernel() {
    using namespace detail::builtin;
    return kernel{kernel_descriptor{.name = "pairwise",
                                    .min_ranks = 2,
                                    .points = transfer_points,
                                    .analyses = {analyses::transfer_fits()},
                                    .plots = plots({"pairwise_time"}),
                                    .shapes = thesis_shapes_of("pairwise")},
                  [](auto& t, const suite_run& r) { return kernels::pairwise(t, r.config.configured(r.config.transfer)); }};
}

/// Broadcast (thesis 3.3.3): time per size; growth with log P.
inline auto broadcast_kernel() {
    using namespace detail::builtin;
    return kernel{kernel_descriptor{.name = "broadcast",
                                    .points = [](const suite_config& c, int) { return c.broadcast.sizes.size(); },
                                    .analyses = {analyses::log_p()},
                                    .plots = plots({"broadcast_time"}),
                                    .shapes = thesis_shapes_of("broadcast")},
                  [](auto& t, const suite_run& r) { return kernels::broadcast(t, r.config.configured(r.config.broadcast)); }};
}

/// Global sum (thesis 3.3.4): time per vector length; growth with log P.
inline auto global_sum_kernel() {
    using namespace detail::builtin;
    return kernel{kernel_descriptor{.name = "global_sum",
                                    .points = [](const suite_config& c, int) { return c.global_sum.vector_lengths.size(); },
                                    .analyses = {analyses::log_p()},
                                    .plots = plots({"global_sum"}),
                                    .shapes = thesis_shapes_of("global_sum")},
                  [](auto& t, const suite_run& r) { return kernels::global_sum(t, r.config.configured(r.config.global_sum)); }};
}

/// Barrier (thesis 3.3.5): one point; its figure is the least time (figure 5.6: "the minimum
/// time"), in its log-P fit and its plot alike.
inline auto barrier_kernel() {
    using namespace detail::builtin;
    return kernel{kernel_descriptor{.name = "barrier",
                                    .points = [](const suite_config&, int) { return std::size_t{1}; },
                                    .figure = statistic::min,
                                    .analyses = {analyses::log_p()},
                                    .plots = plots({"barrier"}),
                                    .shapes = thesis_shapes_of("barrier")},
                  [](auto& t, const suite_run& r) { return kernels::barrier(t, r.config.configured(r.config.barrier)); }};
}

/// Contention (thesis 3.3.6): echo idle and under cross traffic; slow-down against idle. Its
/// load sizes come from this run's echo when echo ran before it (thesis 5.1).
inline auto contention_kernel() {
    using namespace detail::builtin;
    return kernel{
        kernel_descriptor{.name = "contention",
                          .min_ranks = 4,
                          .points =
                              [](const suite_config& c, int nodes) {
                                  const auto& k = c.contention;
                                  return (k.hops.empty() ? kernels::default_contention_hops(nodes) : k.hops).size() *
                                         k.loads.size() * k.sizes.size();
                              },
                          .analyses = {analyses::slowdown_under_load()},
                          .plots = plots({"contention_time"}),
                          .shapes = thesis_shapes_of("contention")},
        [](auto& t, const suite_run& r) {
            kernels::contention_config c = r.config.configured(r.config.contention);
            // Every rank knows echo ran (`ran` is alike everywhere); the test node's echo figures
            // then reach every rank, which all need the same load sizes.
            if (r.has_run("echo")) {
                const auto [sizes, from_echo] =
                    kernels::contention_loads_from_echo(t, r.config.transfer.test_node, r.measured, 1, c.load_sizes);
                c.load_sizes = sizes;
                if (from_echo) c.load_source = "echo";
            } else if (c.load_source == "configured") {
                // No echo ran: the thesis' iPSC/860 sizes would mean nothing on another machine
                // while still being called 50% and 90% of peak. A short echo at one hop (the
                // sizes of the thesis' sweep, few samples) gives this machine's.
                kernels::transfer_config e = r.config.configured(r.config.transfer);
                e.hops = {1};
                e.sizes = kernels::default_message_sizes();
                e.on_point = {};
                e.sampling.min_samples = e.sampling.max_samples = 5;
                const result_set echo = kernels::echo(t, e);
                const auto [sizes, from_echo] = kernels::contention_loads_from_echo(t, e.test_node, echo, 1, c.load_sizes);
                c.load_sizes = sizes;
                if (from_echo) c.load_source = "short_echo";
            }
            return kernels::contention(t, c);
        }};
}

/// Overlap (thesis 3.3.7): synchronous and asynchronous exchange with a DAXPY; the gain.
inline auto overlap_kernel() {
    using namespace detail::builtin;
    return kernel{kernel_descriptor{.name = "overlap",
                                    .min_ranks = 2,
                                    .points =
                                        [](const suite_config& c, int) {
                                            const auto& o = c.overlap;
                                            return (o.daxpy_baseline ? o.vector_lengths.size() : 0) +
                                                   2 * o.sizes.size() * o.vector_lengths.size();
                                        },
                                    .analyses = {analyses::gain_from_overlap()},
                                    .plots = plots({"overlap"}),
                                    .shapes = thesis_shapes_of("overlap")},
                  [](auto& t, const suite_run& r) { return kernels::overlap(t, r.config.configured(r.config.overlap)); }};
}

/// The matrix kernels (thesis 3.3.8–3.3.11).
inline auto update_guard_kernel() {
    return kernel{detail::builtin::matrix("update_guard", {"update_guard"}),
                  [](auto& t, const suite_run& r) { return kernels::update_guard(t, r.config.configured(r.config.matrix)); }};
}
inline auto shift_matrix_kernel() {
    return kernel{detail::builtin::matrix("shift_matrix", {"shift_matrix"}),
                  [](auto& t, const suite_run& r) { return kernels::shift_matrix(t, r.config.configured(r.config.matrix)); }};
}
inline auto transpose_kernel() {
    return kernel{detail::builtin::matrix("transpose", {"transpose"}),
                  [](auto& t, const suite_run& r) { return kernels::transpose(t, r.config.configured(r.config.matrix)); }};
}
inline auto row_broadcast_kernel() {
    return kernel{detail::builtin::matrix("row_broadcast", {"row_col_broadcast"}),
                  [](auto& t, const suite_run& r) { return kernels::row_broadcast(t, r.config.configured(r.config.matrix)); }};
}
inline auto col_broadcast_kernel() {
    return kernel{detail::builtin::matrix("col_broadcast", {"row_col_broadcast"}),
                  [](auto& t, const suite_run& r) { return kernels::col_broadcast(t, r.config.configured(r.config.matrix)); }};
}

/// COMMTEST (seed 001): a fixed volume swapped as 1 .. 1024 messages by every PSTSWM protocol;
/// the seed's statistics (a, b, latency, bandwidths, model error) from the least time of each
/// experiment. Plots: total time against the number of messages, and swap bandwidth (2 ×
/// volume / least time) against the message size, one series per protocol and one plot per
/// volume, as the seed draws them.
inline auto commtest_kernel() {
    const auto plots = [] {
        plot_value swap_mbs{"swap bandwidth [MB/s] (2 x volume / least time)", [](const record& r) -> std::optional<double> {
                                const auto volume = r.params.number("volume");
                                if (!volume || !usable(r)) return std::nullopt;
                                const double least = summarize(r).min;
                                if (!(least > 0)) return std::nullopt;
                                return 2 * *volume / least / 1e6;
                            }};
        return std::vector<plot_description>{
            {.name = "commtest_time",
             .kernels = {"commtest"},
             .x = "messages",
             .y = plot_value::time_us(statistic::min, "least time of the exchange [µs]"),
             .series = "protocol",
             .series_title = "{}",
             .per = "volume",
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
             .title = "COMMTEST: swap bandwidth vs message size",
             .x_label = "message size [bytes]",
             .log_x = true,
             .log_base_x = 2}};
    };
    return kernel{kernel_descriptor{.name = "commtest",
                                    .min_ranks = 2,
                                    .points = [](const suite_config& c, int) { return kernels::commtest::commtest_points(c.commtest); },
                                    .figure = statistic::min,
                                    .analyses = {analyses::commtest_statistics()},
                                    .plots = plots()},
                  [](auto& t, const suite_run& r) {
                      kernels::commtest::commtest_config c = r.config.configured(r.config.commtest);
                      c.sampling.iterations = 1;  // one exchange per sample (the seed's method)
                      return kernels::commtest::commtest(t, c);
                  }};
}

/// Clock synchronisation (seed 002, section 3, figure 8): the time a sync of the whole group
/// takes, linear against log P, with its estimated error and, where the kernel skewed a global
/// clock itself, the true one. Plot: sync time against the number of nodes, per scheme.
inline auto sync_kernel() {
    plot_value error_us{"largest estimated error [µs]", [](const record& r) -> std::optional<double> {
                            const auto e = r.values.number("estimated_error");
                            if (!e) return std::nullopt;
                            return *e * 1e6;
                        }};
    return describing_one_run(kernel{kernel_descriptor{.name = "sync",
                                    .points = [](const suite_config& c, int) { return c.sync.schemes.size(); },
                                    .plots = {{.name = "sync_time",
                                               .kernels = {"sync"},
                                               .x = "nodes",
                                               .series = "scheme",
                                               .series_title = "{}",
                                               .title = "Clock synchronisation: time vs number of nodes (seed 002, figure 8)",
                                               .x_label = "nodes",
                                               .y_label = "median sync time [µs]",
                                               .log_x = true,
                                               .log_y = true,
                                               .log_base_x = 2},
                                              {.name = "sync_error",
                                               .kernels = {"sync"},
                                               .x = "nodes",
                                               .y = std::move(error_us),
                                               .series = "scheme",
                                               .series_title = "{}",
                                               .title = "Clock synchronisation: estimated error vs number of nodes",
                                               .x_label = "nodes",
                                               .log_x = true,
                                               .log_base_x = 2}}},
                  [](auto& t, const suite_run& r) {
                      return kernels::clock_sync(t, r.config.attached(r.config.sync));
                  }});
}

/// Collectives measured once per time window and pipelined (seed 002, sections 1 and 4): a
/// record per operation, size, measure and per-rank reduction. Plots, on the largest group:
/// per operation, time against size for every reduction (window-based), and window-based
/// against pipelined (the slowest rank's time).
inline auto collectives_kernel() {
    return describing_one_run(kernel{kernel_descriptor{.name = "collectives",
                                    .points = [](const suite_config& c, int) { return kernels::windowed_collectives_points(c.collectives); },
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
                                               .title = "Slowest rank's time: one operation per window vs pipelined",
                                               .x_label = "bytes per rank",
                                               .log_x = true,
                                               .log_y = true,
                                               .log_base_x = 2}}},
                  [](auto& t, const suite_run& r) {
                      return kernels::windowed_collectives(t, r.config.attached(r.config.collectives));
                  }});
}

/// Nonblocking collectives (seed 002, section 4, figures 10–11): per operation, size and
/// implementation, the blocking time T_b and the time- and work-based overhead under each
/// progression. Plots, on the largest group: per operation and method, overhead against size for
/// every progression (T_b beside them); and, with the test progression, overhead against the
/// test interval per size (the seed's progression benchmark).
inline auto nbc_kernel() {
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
    return describing_one_run(kernel{kernel_descriptor{.name = "nbc",
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
                                               .log_base_x = 2}}},
                  [](auto& t, const suite_run& r) {
                      return kernels::nbc(t, r.config.attached(r.config.nbc));
                  }});
}

/// One of NIST's synthetic applications under time dilation (seed 003): a record per setting
/// and dilation factor with the service states (tables A1–A6). Plots: E_D and the speedup
/// E_1 / E_D against D, a curve per setting (figure 7), and per setting E_D, U_D, L_D, P_D and
/// O_D against D (figures 5 and 6), on the largest group.
inline auto nist_kernel(kernels::nist::application app) {
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
    plot_value speedup{"speedup E_1 / E_D", [](const record& r) { return r.values.number("speedup"); }};
    // Figures 5 and 6: where the time goes as D grows, a plot per setting.
    const auto state = [](std::string label, std::string param) {
        return plot_value{std::move(label), [param = std::move(param)](const record& r) { return r.values.number(param); }};
    };
    plot_description components = against_d("components", plot_value{"normalised time [s]", {}},
                                             "NIST " + name + ": normalised service states vs dilation");
    components.series.clear();
    components.per = "setting";
    components.curves = {plot_value{"E_D", elapsed.of}, state("U_D", "user"), state("L_D", "logical"),
                         state("P_D", "physical"), state("O_D", "overhead")};
    kernel_descriptor d{.name = name,
                        .min_ranks = app == kernels::nist::application::mesh ? 4 : 2,
                        .points = [](const suite_config& c, int) { return c.nist.settings.size() * c.nist.dilations.size(); },
                        .analyses = {analyses::dilation_estimates()},
                        .plots = {against_d("elapsed", std::move(elapsed), "NIST " + name + ": normalised elapsed time vs dilation"),
                                  against_d("speedup", std::move(speedup), "NIST " + name + ": speedup with time dilation"),
                                  std::move(components)},
                        .one_run = true};
    if (app == kernels::nist::application::mesh)
        d.group_rule = [](int nodes) -> std::optional<std::string> {
            int n = 2;
            while (n * n < nodes) ++n;
            if (n * n != nodes) return "needs a square number of nodes (an N x N torus)";
            return std::nullopt;
        };
    return kernel{std::move(d), [app](auto& t, const suite_run& r) {
                      return kernels::nist::dilation_study(t, app, r.config.attached(r.config.nist));
                  }};
}

/// Every kernel of the suite: CoMet's in the thesis' order (the order of `implemented_kernels`),
/// then the other seeds'.
inline const auto& builtin_kernels() {
    static const auto all =
        std::tuple{echo_kernel(),         pairwise_kernel(),      broadcast_kernel(),     global_sum_kernel(),
                   barrier_kernel(),      contention_kernel(),    overlap_kernel(),       update_guard_kernel(),
                   shift_matrix_kernel(), transpose_kernel(),     row_broadcast_kernel(), col_broadcast_kernel(),
                   commtest_kernel(),       sync_kernel(),          collectives_kernel(),   nbc_kernel(),
                   nist_kernel(kernels::nist::application::ring), nist_kernel(kernels::nist::application::rc),
                   nist_kernel(kernels::nist::application::mesh)};
    return all;
}

}  // namespace comet
