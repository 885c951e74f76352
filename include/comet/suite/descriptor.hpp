// comet/suite/descriptor.hpp — one kernel as the suite knows it: its descriptor (name, the
// groups it runs on, how many points it measures, the statistic its figure is read with, its
// analyses, plots and the thesis' shapes about it) and its run on a transport.
//
// The suite, the comet program and the report loop over descriptors; nothing else names a
// kernel. Adding a kernel is its header in kernels/ plus one `kernel{descriptor, run}`: see
// suite/builtin.hpp for the CoMet kernels, and test/suite/test_descriptor.cpp for one added
// from outside.
//
// Why the run is apart from the descriptor: a kernel is a template on the transport, and a
// template cannot be stored behind a type-erased function for transports not yet known. So
// `kernel<Run>` keeps the run as a generic callable (`[](auto& t, const suite_run& r) {...}`),
// instantiated by run_suite for whatever transport it is given, while everything that does not
// run (counting points, analysing, plotting, judging) reads the plain `kernel_descriptor`.
#pragma once

#include <comet/analysis/thesis.hpp>
#include <comet/report/plot_model.hpp>
#include <comet/report/report.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/record.hpp>
#include <comet/suite/config.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace comet {

/// How to analyse a suite run.
struct analysis_options {
    /// Where the transfer fits split the sizes; unset: found from the data.
    std::optional<double> break_size;
};

/// What a kernel's run is given besides the transport. The same on every rank except
/// `measured`, which holds what this rank measured so far (kernels return their records on the
/// measuring rank only): a decision every rank must take alike reads `ran`, not `measured`.
struct suite_run {
    const suite_config& config;
    const result_set& measured;         ///< this rank's records of the kernels run before
    const std::vector<std::string>& ran;  ///< the kernels run before, in order (alike on every rank)

    bool has_run(std::string_view kernel) const { return std::find(ran.begin(), ran.end(), kernel) != ran.end(); }
};

struct kernel_descriptor;

/// An analysis of a kernel's records: adds to the report what it derives (fits, curves,
/// slow-downs, ...) or a note saying why it could not.
using kernel_analysis = std::function<void(report&, const kernel_descriptor&, const analysis_options&)>;

/// Everything the suite knows of a kernel but how to run it.
struct kernel_descriptor {
    /// The kernel's name: what --kernels takes and every record's `kernel`.
    std::string name;
    /// The smallest group it runs on.
    int min_ranks = 1;
    /// Beyond `min_ranks`: why a group of `nodes` cannot run it ("needs a processor mesh ..."),
    /// or nothing. Unset: any group of `min_ranks` or more.
    std::function<std::optional<std::string>(int nodes)> group_rule = {};
    /// The points a run on `nodes` ranks measures (for progress). Unset: unknown, counted as 0.
    std::function<std::size_t(const suite_config&, int nodes)> points = {};
    /// The statistic of a record's samples its figure is read with, in every analysis and plot
    /// of it: the median (robust to the slow outliers timings have), the least for barrier
    /// (the thesis' figure 5.6, "the minimum time").
    statistic figure = statistic::median;
    /// What is derived from its records, in order (see suite/analyses.hpp).
    std::vector<kernel_analysis> analyses = {};
    /// Its plots (a plot may draw several kernels; the suite writes each name once).
    std::vector<plot_description> plots = {};
    /// The thesis' shapes about it, judged where the run compares with the thesis.
    std::vector<thesis_shape> shapes = {};
    /// Whether its records describe one run of it: beside the samples, params that are that
    /// run's measurements (a NIST run's service states, a time window's widenings and
    /// overruns, a clock sync's errors). A program that measures the suite in rounds (the
    /// comet program's --rounds) runs such a kernel in its first round only: later rounds'
    /// samples pooled under the first round's figures would make a record whose columns
    /// describe different runs (U + L + P + O would no longer add up to E).
    bool one_run = false;

    /// Why a group of `nodes` ranks cannot run it, or nothing.
    std::optional<std::string> skip_reason(int nodes) const {
        if (nodes < min_ranks) return "needs at least " + std::to_string(min_ranks) + " ranks";
        if (group_rule) return group_rule(nodes);
        return std::nullopt;
    }
};

/// A kernel of the suite: its descriptor, and its run — a callable taking any transport and
/// the suite_run, returning the records (on the measuring rank; other ranks return less).
/// @pre every rank runs it with the same suite_config.
/// @code
///   const comet::kernel toy{comet::kernel_descriptor{.name = "toy", .min_ranks = 2},
///                           [](auto& t, const comet::suite_run& r) { return toy_kernel(t, r.config.configured(cfg)); }};
///   comet::run_suite(t, {.kernels = {"echo", "toy"}}, toy);
/// @endcode
template <class Run>
struct kernel {
    kernel_descriptor descriptor;
    Run run;
};
template <class Run>
kernel(kernel_descriptor, Run) -> kernel<Run>;

}  // namespace comet
