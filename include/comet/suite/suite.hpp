// comet/suite/suite.hpp — the CoMet suite as one call: running a chosen list of kernels on any
// transport, and the analysis of what they measured. Both loop over kernel descriptors
// (suite/descriptor.hpp): the suite's own (suite/builtin.hpp), plus any a caller brings.
//
// The comet program is a thin shell around this; a code that wants the whole benchmark from
// its own MPI job calls `run_suite` with its own transport.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/ops/ops.hpp>
#include <comet/report/report.hpp>
#include <comet/stats/compare.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>
#include <comet/suite/builtin.hpp>
#include <comet/suite/config.hpp>
#include <comet/suite/descriptor.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace comet {

/// Raised by run_suite on every rank after the kernel a stop request (`suite_config::stop`)
/// ended; the message is `suite_config::stop_reason`'s.
class suite_stopped : public error {
public:
    using error::error;
};

/// The descriptors of the suite's own kernels, in the thesis' order.
COMET_DECL const std::vector<kernel_descriptor>& suite_kernels();

/// The suite's descriptors followed by those of `extra` (kernels added by the caller).
template <class... Run>
std::vector<kernel_descriptor> suite_descriptors(const kernel<Run>&... extra) {
    std::vector<kernel_descriptor> all = suite_kernels();
    (all.push_back(extra.descriptor), ...);
    return all;
}

/// The descriptor named `name` in `all`, or nullptr.
inline const kernel_descriptor* find_kernel(std::string_view name, std::span<const kernel_descriptor> all = suite_kernels()) {
    for (const auto& d : all)
        if (d.name == name) return &d;
    return nullptr;
}

/// True for the kernels of the matrix component (they need a processor mesh: see
/// kernels::has_processor_mesh).
COMET_DECL bool is_matrix_kernel(std::string_view name);

/// Checks that every requested kernel is described in `all`, once, and that there is at least
/// one round; the message names the kernel or the value.
COMET_DECL void check_suite(const suite_config& cfg, std::span<const kernel_descriptor> all = suite_kernels());

/// What `kernel` needs that a group of `nodes` ranks lacks ("needs at least 4 ranks"), or
/// nothing if it can run there (or is not described in `all`).
COMET_DECL std::optional<std::string> suite_skip_reason(std::string_view kernel, int nodes,
                                                        std::span<const kernel_descriptor> all = suite_kernels());

/// The number of points run_suite will measure on a group of `nodes` ranks (for progress).
COMET_DECL std::size_t suite_points(const suite_config& cfg, int nodes, std::span<const kernel_descriptor> all = suite_kernels());

/// Adds `round`, a further pass over the points already in `into`, to `into`: each point's
/// samples (and overheads) after those of its earlier rounds, with the round's count of samples
/// and iterations in record::rounds, its invalid samples re-indexed, its dropped measurements
/// added, its flags kept (each figure's first reason); a first round is copied with one round
/// a record. A point `into` lacks (none, unless a round stopped short) is added as it is. The
/// params, values, first round's iterations and stop reason stay the first round's; notes are
/// kept once each.
COMET_DECL void add_round(result_set& into, const result_set& round);

/// `cfg` as the rounds after the first measure it: without the kernels whose records describe
/// one run (kernel_descriptor::one_run: the NIST applications, clock sync, the windowed and
/// nonblocking collectives), which the first round alone measures. Their records keep one
/// round, and `comet compare` tests them on their samples (and says so).
COMET_DECL suite_config suite_later_rounds(suite_config cfg, std::span<const kernel_descriptor> all = suite_kernels());

namespace detail {

/// One pass of run_suite over `cfg.kernels`.
template <transport T, class... Run>
result_set suite_pass(T& t, const suite_config& cfg, std::span<const kernel_descriptor> all, const kernel<Run>&... extra) {
    // A point a stop request left without a single sample was never measured: no record of it.
    const auto measured_at_all = [](const record& rec) { return !(rec.stop == "interrupted" && rec.samples.empty()); };
    suite_config config = cfg;
    config.on_point = [&cfg, &measured_at_all](const record& rec) {
        if (cfg.on_point && measured_at_all(rec)) cfg.on_point(rec);
    };
    result_set measured;
    std::vector<std::string> ran;
    for (const auto& name : cfg.kernels) {
        if (suite_skip_reason(name, t.size(), all)) continue;
        if (cfg.on_kernel) cfg.on_kernel(name);
        const suite_run r{config, measured, ran};
        bool done = false;
        const auto run_if_named = [&](const auto& k) {
            if (done || k.descriptor.name != name) return;
            result_set got = k.run(t, r);
            std::erase_if(got.records, [&](const record& rec) { return !measured_at_all(rec); });
            measured.append(got);
            done = true;
        };
        std::apply([&](const auto&... k) { (run_if_named(k), ...); }, builtin_kernels());
        (run_if_named(extra), ...);
        ran.push_back(name);
        // Every rank learns whether any was asked to stop (the kernel itself ended within a
        // sample where its deciding rank was), and all stop together.
        if (cfg.stop.stop_possible()) {
            std::array<double, 1> stop{cfg.stop.stop_requested() ? 1.0 : 0.0};
            ops::allreduce_max(t, std::span<double>(stop));
            if (stop[0] != 0.0) throw suite_stopped(cfg.stop_reason ? cfg.stop_reason() : "stop requested");
        }
    }
    return measured;
}

}  // namespace detail

/// Runs the requested kernels in order on every rank of `t`'s group and returns the records
/// measured on this rank (each kernel measures on its test node — `cfg.test_node` when set —
/// other ranks get less). Kernels the group is too small for are skipped (see
/// suite_skip_reason). `extra` are kernels of the caller's own, requested by name in
/// `cfg.kernels` like the suite's. With `cfg.rounds` R > 1 it passes over them R times, the
/// later passes without the kernels whose records describe one run (suite_later_rounds), and
/// pools each point's samples round after round (add_round).
/// @throws invalid_argument (every rank) for an unknown kernel, rounds below 1 or a test node
///         outside the group; suite_stopped after a stop request (see suite_config::stop).
/// @pre every rank calls run_suite with the same config and kernels.
/// @code
///   comet::result_set r = comet::run_suite(t, {.kernels = {"echo", "barrier"}});
/// @endcode
template <transport T, class... Run>
result_set run_suite(T& t, const suite_config& cfg = {}, const kernel<Run>&... extra) {
    const std::vector<kernel_descriptor> all = suite_descriptors(extra...);
    check_suite(cfg, all);
    if (cfg.test_node && (*cfg.test_node < 0 || *cfg.test_node >= t.size()))
        raise<invalid_argument>(t.rank(), "suite: test node ", *cfg.test_node, " is outside the group of ", t.size(), " ranks");
    if (cfg.rounds == 1) return detail::suite_pass(t, cfg, all, extra...);  // one stretch: no rounds
    result_set pooled;
    add_round(pooled, detail::suite_pass(t, cfg, all, extra...));
    const suite_config later = suite_later_rounds(cfg, all);
    for (int round = 1; round < cfg.rounds && !later.kernels.empty(); ++round) add_round(pooled, detail::suite_pass(t, later, all, extra...));
    return pooled;
}

/// Adds to `r` everything the descriptors' analyses derive from `r.results`, kernel by kernel
/// in the descriptors' order: for the suite's own, transfer fits and bandwidth figures (echo,
/// pairwise; on the largest group measured), log-P fits (broadcast, global_sum, barrier),
/// linear against quadratic growth in the matrix dimension (the matrix kernels), contention
/// slow-downs and overlap gains, each read with its kernel's figure statistic. What cannot be
/// derived (too few sizes or group sizes) becomes a note in `r.notes`, saying what to run
/// instead.
COMET_DECL void analyse(report& r, std::span<const kernel_descriptor> all, const analysis_options& opt = {});

COMET_DECL void analyse(report& r, const analysis_options& opt = {});

/// The plots of `all`, each name once, in the descriptors' order.
COMET_DECL std::vector<plot_description> suite_plots(std::span<const kernel_descriptor> all = suite_kernels());

/// The shapes of `all` (the thesis' about the suite's kernels, and any a caller's kernel
/// brings): the thesis' in the order of its catalogue (analysis/thesis.hpp, the order its
/// summary has always had), then the others in the descriptors' order.
COMET_DECL std::vector<thesis_shape> suite_shapes(std::span<const kernel_descriptor> all = suite_kernels());

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/suite/suite.ipp>
#endif
