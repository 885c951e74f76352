// comet/suite/builtin.hpp — the CoMet suite's kernels as descriptors (suite/descriptor.hpp), in
// the thesis' order: echo, pairwise, broadcast, global_sum, barrier, contention, overlap and the
// five matrix kernels. Each says in one place how it runs, what it measures, how its figure is
// read, what is derived from it and how it is drawn.
//
// A kernel of one's own needs no edit here: pass its `kernel{descriptor, run}` to run_suite
// and its descriptor to analyse and the report (suite/suite.hpp, suite/output.hpp).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/analysis/thesis.hpp>
#include <comet/kernels/clock_sync.hpp>
#include <comet/kernels/collectives.hpp>
#include <comet/kernels/commtest/commtest.hpp>
#include <comet/kernels/contention.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/kernels/loggp.hpp>
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
COMET_DECL std::vector<plot_description> plots(std::initializer_list<std::string_view> names);

/// echo and pairwise: a point per hop distance and size.
COMET_DECL std::size_t transfer_points(const suite_config& c, int nodes);

/// The matrix kernels' rule: a processor mesh (thesis 4.3).
COMET_DECL std::optional<std::string> needs_mesh(int nodes);

/// A matrix kernel's descriptor: one figure (thesis 5.13–5.16), growth in the matrix dimension.
COMET_DECL kernel_descriptor matrix(std::string name, std::initializer_list<std::string_view> plot_names);

/// The descriptor of echo_kernel().
COMET_DECL kernel_descriptor echo_descriptor();
/// The descriptor of pairwise_kernel().
COMET_DECL kernel_descriptor pairwise_descriptor();
/// The descriptor of broadcast_kernel().
COMET_DECL kernel_descriptor broadcast_descriptor();
/// The descriptor of global_sum_kernel().
COMET_DECL kernel_descriptor global_sum_descriptor();
/// The descriptor of barrier_kernel().
COMET_DECL kernel_descriptor barrier_descriptor();
/// The descriptor of contention_kernel().
COMET_DECL kernel_descriptor contention_descriptor();
/// The descriptor of overlap_kernel().
COMET_DECL kernel_descriptor overlap_descriptor();
/// The descriptor of update_guard_kernel().
COMET_DECL kernel_descriptor update_guard_descriptor();
/// The descriptor of shift_matrix_kernel().
COMET_DECL kernel_descriptor shift_matrix_descriptor();
/// The descriptor of transpose_kernel().
COMET_DECL kernel_descriptor transpose_descriptor();
/// The descriptor of row_broadcast_kernel().
COMET_DECL kernel_descriptor row_broadcast_descriptor();
/// The descriptor of col_broadcast_kernel().
COMET_DECL kernel_descriptor col_broadcast_descriptor();
/// The descriptor of commtest_kernel().
COMET_DECL kernel_descriptor commtest_descriptor();
/// The descriptor of sync_kernel().
COMET_DECL kernel_descriptor sync_descriptor();
/// The descriptor of collectives_kernel().
COMET_DECL kernel_descriptor collectives_descriptor();
/// The descriptor of nbc_kernel().
COMET_DECL kernel_descriptor nbc_descriptor();
/// The descriptor of loggp_kernel().
COMET_DECL kernel_descriptor loggp_descriptor();
/// The descriptor of nist_kernel().
COMET_DECL kernel_descriptor nist_descriptor(kernels::nist::application app);

}  // namespace detail::builtin

/// `k`, marked as a kernel whose records describe one run of it (kernel_descriptor::one_run).
template <class Run>
kernel<Run> describing_one_run(kernel<Run> k) {
    k.descriptor.one_run = true;
    return k;
}

/// Echo (thesis 3.3.1): one-way time per hop distance and size; transfer fits and bandwidth.
inline auto echo_kernel() {
    return kernel{detail::builtin::echo_descriptor(),
                  [](auto& t, const suite_run& r) { return kernels::echo(t, r.config.configured(r.config.transfer)); }};
}

/// Pairwise exchange (thesis 3.3.2): exchange time per hop distance and size; transfer fits.
inline auto pairwise_kernel() {
    return kernel{detail::builtin::pairwise_descriptor(),
                  [](auto& t, const suite_run& r) { return kernels::pairwise(t, r.config.configured(r.config.transfer)); }};
}

/// Broadcast (thesis 3.3.3): time per size; growth with log P.
inline auto broadcast_kernel() {
    return kernel{detail::builtin::broadcast_descriptor(),
                  [](auto& t, const suite_run& r) { return kernels::broadcast(t, r.config.configured(r.config.broadcast)); }};
}

/// Global sum (thesis 3.3.4): time per vector length; growth with log P.
inline auto global_sum_kernel() {
    return kernel{detail::builtin::global_sum_descriptor(),
                  [](auto& t, const suite_run& r) { return kernels::global_sum(t, r.config.configured(r.config.global_sum)); }};
}

/// Barrier (thesis 3.3.5): one point; its figure is the least time (figure 5.6: "the minimum
/// time"), in its log-P fit and its plot alike.
inline auto barrier_kernel() {
    return kernel{detail::builtin::barrier_descriptor(),
                  [](auto& t, const suite_run& r) { return kernels::barrier(t, r.config.configured(r.config.barrier)); }};
}

/// Contention (thesis 3.3.6): echo idle and under cross traffic; slow-down against idle. Its
/// load sizes come from this run's echo when echo ran before it (thesis 5.1).
inline auto contention_kernel() {
    return kernel{detail::builtin::contention_descriptor(),
                  [](auto& t, const suite_run& r) {
            kernels::contention_config c = r.config.configured(r.config.contention);
            // Only "configured" sizes are replaced by this machine's: the thesis' or a caller's
            // own ("thesis", "given") are kept, echo or not. Every rank knows echo ran (`ran` is
            // alike everywhere); the test node's echo figures then reach every rank, which all
            // need the same load sizes.
            if (c.load_source == "configured" && r.has_run("echo")) {
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
    return kernel{detail::builtin::overlap_descriptor(),
                  [](auto& t, const suite_run& r) { return kernels::overlap(t, r.config.configured(r.config.overlap)); }};
}

/// The matrix kernels (thesis 3.3.8–3.3.11).
inline auto update_guard_kernel() {
    return kernel{detail::builtin::update_guard_descriptor(),
                  [](auto& t, const suite_run& r) { return kernels::update_guard(t, r.config.configured(r.config.matrix)); }};
}
inline auto shift_matrix_kernel() {
    return kernel{detail::builtin::shift_matrix_descriptor(),
                  [](auto& t, const suite_run& r) { return kernels::shift_matrix(t, r.config.configured(r.config.matrix)); }};
}
inline auto transpose_kernel() {
    return kernel{detail::builtin::transpose_descriptor(),
                  [](auto& t, const suite_run& r) { return kernels::transpose(t, r.config.configured(r.config.matrix)); }};
}
inline auto row_broadcast_kernel() {
    return kernel{detail::builtin::row_broadcast_descriptor(),
                  [](auto& t, const suite_run& r) { return kernels::row_broadcast(t, r.config.configured(r.config.matrix)); }};
}
inline auto col_broadcast_kernel() {
    return kernel{detail::builtin::col_broadcast_descriptor(),
                  [](auto& t, const suite_run& r) { return kernels::col_broadcast(t, r.config.configured(r.config.matrix)); }};
}

/// COMMTEST (seed 001): a fixed volume swapped as 1 .. 1024 messages by every PSTSWM protocol;
/// the seed's statistics (a, b, latency, bandwidths, model error) from the least time of each
/// experiment. Plots: total time against the number of messages, and swap bandwidth (2 ×
/// volume / least time) against the message size, one series per protocol and one plot per
/// volume and experiment (pair set, cache mode, prepost, nodes: those the run varied), as the
/// seed draws them.
inline auto commtest_kernel() {
    return kernel{detail::builtin::commtest_descriptor(),
                  [](auto& t, const suite_run& r) {
                      kernels::commtest::commtest_config c = r.config.configured(r.config.commtest);
                      c.sampling.iterations = 1;  // one exchange per sample (the seed's method)
                      if (r.config.commtest_caches.empty()) return kernels::commtest::commtest(t, c);
                      result_set out;
                      for (const auto& mode : r.config.commtest_caches) {
                          c.cache = mode;
                          out.append(kernels::commtest::commtest(t, c));
                      }
                      return out;
                  }};
}

/// Clock synchronisation (seed 002, section 3, figure 8): the time a sync of the whole group
/// takes, linear against log P, with its estimated error and, where the kernel skewed a global
/// clock itself, the true one. Plot: sync time against the number of nodes, per scheme.
inline auto sync_kernel() {
    return describing_one_run(kernel{detail::builtin::sync_descriptor(),
                  [](auto& t, const suite_run& r) {
                      return kernels::clock_sync(t, r.config.attached(r.config.sync));
                  }});
}

/// Collectives measured once per time window and pipelined (seed 002, sections 1 and 4): a
/// record per operation, size, measure and per-rank reduction. Plots, on the largest group:
/// per operation, time against size for every reduction (window-based), and window-based
/// against pipelined (the slowest rank's time).
inline auto collectives_kernel() {
    return describing_one_run(kernel{detail::builtin::collectives_descriptor(),
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
    return describing_one_run(kernel{detail::builtin::nbc_descriptor(),
                  [](auto& t, const suite_run& r) {
                      return kernels::nbc(t, r.config.attached(r.config.nbc));
                  }});
}

/// Netgauge's parametrised round trips between the test node and its partner (kernels/loggp.hpp):
/// four records a size, from which the analysis fits a LogGOPS machine (analysis/fit_machine.hpp)
/// and `comet fit-machine` writes its file. Its records describe one run (the spaced train's
/// spacing and the late receive's delay are that run's single round trip), so it runs in the
/// first of several rounds only.
inline auto loggp_kernel() {
    return describing_one_run(kernel{detail::builtin::loggp_descriptor(), [](auto& t, const suite_run& r) {
                                         kernels::loggp_config c = r.config.loggp;
                                         c.transfer = r.config.configured(c.transfer);
                                         return kernels::loggp(t, c);
                                     }});
}

/// One of NIST's synthetic applications under time dilation (seed 003): a record per setting
/// and dilation factor with the service states (tables A1–A6). Plots: E_D and the speedup
/// E_1 / E_D against D, a curve per setting (figure 7), and per setting E_D, U_D, L_D, P_D and
/// O_D against D (figures 5 and 6), on the largest group.
inline auto nist_kernel(kernels::nist::application app) {
    return kernel{detail::builtin::nist_descriptor(app),
                  [app](auto& t, const suite_run& r) {
                      return kernels::nist::dilation_study(t, app, r.config.attached(r.config.nist));
                  }};
}

/// Every kernel of the suite: CoMet's in the thesis' order (the order of `implemented_kernels`),
/// then the other seeds', then Netgauge's round trips (loggp).
inline const auto& builtin_kernels() {
    static const auto all =
        std::tuple{echo_kernel(),         pairwise_kernel(),      broadcast_kernel(),     global_sum_kernel(),
                   barrier_kernel(),      contention_kernel(),    overlap_kernel(),       update_guard_kernel(),
                   shift_matrix_kernel(), transpose_kernel(),     row_broadcast_kernel(), col_broadcast_kernel(),
                   commtest_kernel(),       sync_kernel(),          collectives_kernel(),   nbc_kernel(),
                   nist_kernel(kernels::nist::application::ring), nist_kernel(kernels::nist::application::rc),
                   nist_kernel(kernels::nist::application::mesh), loggp_kernel()};
    return all;
}

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/suite/builtin.ipp>
#endif
