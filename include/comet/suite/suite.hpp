// comet/suite/suite.hpp — the CoMet suite as one call: which kernels exist, running a chosen
// list of them on any transport, and the analysis of what they measured (transfer fits and
// bandwidth, growth with log P, linear or quadratic growth in the matrix dimension,
// slow-down under cross traffic, overlap gain).
//
// The comet program is a thin shell around this; a code that wants the whole benchmark from
// its own MPI job calls `run_suite` with its own transport.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/kernels/collectives.hpp>
#include <comet/kernels/contention.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/kernels/matrix/matrix.hpp>
#include <comet/kernels/overlap.hpp>
#include <comet/report/report.hpp>
#include <comet/stats/fit.hpp>
#include <comet/stats/growth.hpp>
#include <comet/stats/record.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace comet {

/// A kernel of the suite: its name (SPEC 9) and the smallest group it runs on.
struct suite_kernel {
    std::string_view name;
    int min_ranks;
};

/// Every kernel of the CoMet suite, in the thesis' order.
inline const std::vector<suite_kernel>& suite_kernels() {
    static const std::vector<suite_kernel> all = {
        {"echo", 2},         {"pairwise", 2},     {"broadcast", 1},    {"global_sum", 1},
        {"barrier", 1},      {"contention", 4},   {"overlap", 2},      {"update_guard", 1},
        {"shift_matrix", 1}, {"transpose", 1},    {"row_broadcast", 1}, {"col_broadcast", 1},
    };
    return all;
}

/// The names of every kernel: what "all" means.
inline std::vector<std::string> implemented_kernels() {
    std::vector<std::string> names;
    for (const auto& k : suite_kernels()) names.emplace_back(k.name);
    return names;
}

/// True for the kernels of the matrix component (they need a processor mesh: see
/// has_processor_mesh).
inline bool is_matrix_kernel(std::string_view name) {
    return name == "update_guard" || name == "shift_matrix" || name == "transpose" || name == "row_broadcast" ||
           name == "col_broadcast";
}

/// What to run. All ranks pass the same values (@pre). Each kernel has its own configuration;
/// the comet program sets the fields they share (repetitions, samples, test node) on all.
struct suite_config {
    std::vector<std::string> kernels = implemented_kernels();
    transfer_config transfer;  ///< echo and pairwise
    broadcast_config broadcast;
    global_sum_config global_sum;
    barrier_config barrier;
    /// Its load sizes come from this run's echo (1 hop) when echo runs before it.
    contention_config contention;
    overlap_config overlap;
    matrix_config matrix;  ///< update_guard, shift_matrix, transpose, row_broadcast, col_broadcast
    /// Called on the measuring rank after each point (for progress displays).
    std::function<void(const record&)> on_point = {};
};

/// Checks that every requested kernel exists; the message names the kernel.
inline void check_suite(const suite_config& cfg) {
    for (const auto& name : cfg.kernels) {
        const auto& all = suite_kernels();
        if (std::none_of(all.begin(), all.end(), [&](const suite_kernel& k) { return k.name == name; })) {
            std::string known;
            for (const auto& n : implemented_kernels()) known += (known.empty() ? "" : ", ") + n;
            raise<invalid_argument>(-1, "unknown kernel '", name, "' (available: ", known, ")");
        }
    }
}

/// What `kernel` needs that a group of `nodes` ranks lacks ("needs at least 4 ranks"), or
/// nothing if it can run there.
inline std::optional<std::string> suite_skip_reason(std::string_view kernel, int nodes) {
    for (const auto& k : suite_kernels())
        if (k.name == kernel && nodes < k.min_ranks) return "needs at least " + std::to_string(k.min_ranks) + " ranks";
    if (is_matrix_kernel(kernel) && !has_processor_mesh(nodes))
        return std::string("needs a processor mesh: a square number of ranks or twice one");
    return std::nullopt;
}

/// The number of points run_suite will measure on a group of `nodes` ranks (for progress).
inline std::size_t suite_points(const suite_config& cfg, int nodes) {
    std::size_t points = 0;
    for (const auto& name : cfg.kernels) {
        if (suite_skip_reason(name, nodes)) continue;
        if (name == "echo" || name == "pairwise") {
            const auto& t = cfg.transfer;
            points += (t.hops.empty() ? default_hops(t.test_node, nodes) : t.hops).size() * t.sizes.size();
        } else if (name == "broadcast") {
            points += cfg.broadcast.sizes.size();
        } else if (name == "global_sum") {
            points += cfg.global_sum.vector_lengths.size();
        } else if (name == "barrier") {
            points += 1;
        } else if (name == "contention") {
            const auto& c = cfg.contention;
            points += (c.hops.empty() ? default_contention_hops(nodes) : c.hops).size() * c.loads.size() * c.sizes.size();
        } else if (name == "overlap") {
            const auto& o = cfg.overlap;
            points += (o.daxpy_baseline ? o.vector_lengths.size() : 0) + 2 * o.sizes.size() * o.vector_lengths.size();
        } else if (is_matrix_kernel(name)) {
            points += matrix_kernel_points(name, cfg.matrix);
        }
    }
    return points;
}

/// Runs the requested kernels in order on every rank of `t`'s group and returns the records
/// measured on this rank (each kernel measures on its test node; other ranks get less).
/// Kernels the group is too small for are skipped (see suite_skip_reason).
/// @pre every rank calls run_suite with the same config.
/// @code
///   comet::result_set r = comet::run_suite(t, {.kernels = {"echo", "barrier"}});
/// @endcode
template <transport T>
result_set run_suite(T& t, const suite_config& cfg = {}) {
    check_suite(cfg);
    suite_config c = cfg;
    if (cfg.on_point) {
        c.transfer.on_point = c.broadcast.on_point = c.global_sum.on_point = c.barrier.on_point = cfg.on_point;
        c.contention.on_point = c.overlap.on_point = c.matrix.on_point = cfg.on_point;
    }
    result_set all;
    bool have_echo = false;
    for (const auto& name : c.kernels) {
        if (suite_skip_reason(name, t.size())) continue;
        if (name == "echo") {
            all.append(echo(t, c.transfer));
            have_echo = true;
        } else if (name == "pairwise") {
            all.append(pairwise(t, c.transfer));
        } else if (name == "broadcast") {
            all.append(broadcast(t, c.broadcast));
        } else if (name == "global_sum") {
            all.append(global_sum(t, c.global_sum));
        } else if (name == "barrier") {
            all.append(barrier(t, c.barrier));
        } else if (name == "contention") {
            // The thesis took the loads from the echo it had just measured (5.1): every rank
            // learns the test node's figures, or keeps the configured sizes without an echo.
            if (have_echo)
                c.contention.load_sizes =
                    contention_loads_from_echo(t, c.transfer.test_node, all, 1, c.contention.load_sizes).first;
            all.append(contention(t, c.contention));
        } else if (name == "overlap") {
            all.append(overlap(t, c.overlap));
        } else if (name == "update_guard") {
            all.append(update_guard(t, c.matrix));
        } else if (name == "shift_matrix") {
            all.append(shift_matrix(t, c.matrix));
        } else if (name == "transpose") {
            all.append(transpose(t, c.matrix));
        } else if (name == "row_broadcast") {
            all.append(row_broadcast(t, c.matrix));
        } else if (name == "col_broadcast") {
            all.append(col_broadcast(t, c.matrix));
        }
    }
    return all;
}

/// How to analyse a suite run.
struct analysis_options {
    /// Where the transfer fits split the sizes; unset: found from the data.
    std::optional<double> break_size;
};

namespace detail {

/// The records of `kernel` measured on the largest group in `results` (the thesis fits its
/// echo and exchange figures on its largest machine, 16 nodes).
inline result_set largest_group(const result_set& results, std::string_view kernel) {
    std::int64_t largest = 0;
    for (const auto* r : results.of(kernel)) largest = std::max(largest, r->params.integer("nodes").value_or(0));
    result_set out;
    for (const auto* r : results.of(kernel))
        if (r->params.integer("nodes").value_or(0) == largest) out.records.push_back(*r);
    return out;
}

}  // namespace detail

/// Adds to `r` everything derived from `r.results`: transfer fits and bandwidth figures (echo,
/// pairwise; on the largest group measured), log-P fits (broadcast, global_sum, barrier),
/// linear against quadratic growth in the matrix dimension (the matrix kernels), contention
/// slow-downs and overlap gains. What cannot be derived (too few sizes or group sizes) becomes
/// a note in `r.notes`, saying what to run instead.
inline void analyse(report& r, const analysis_options& opt = {}) {
    for (const char* kernel : {"echo", "pairwise"}) {
        const result_set at = detail::largest_group(r.results, kernel);
        if (at.empty()) continue;
        try {
            transfer_fit_options fo;
            if (opt.break_size) fo.break_size = opt.break_size;
            else fo.find_break = true;
            std::vector<transfer_fit> fits;
            try {
                fits = fit_transfers(at, kernel, fo);
            } catch (const invalid_argument&) {
                if (opt.break_size) throw;
                fits = fit_transfers(at, kernel, {});  // too few sizes to split: one line
            }
            r.fits.insert(r.fits.end(), fits.begin(), fits.end());
        } catch (const invalid_argument& e) {
            r.notes.push_back(std::string("no fit for ") + kernel + ": " + e.what());
        }
        for (auto& b : bandwidth(at, kernel)) r.bandwidth.push_back(b);
    }
    for (const char* kernel : {"broadcast", "global_sum", "barrier"}) {
        if (r.results.of(kernel).empty()) continue;
        try {
            const auto fits = fit_log_p(r.results, kernel);
            r.log_p.insert(r.log_p.end(), fits.begin(), fits.end());
        } catch (const invalid_argument&) {
            r.notes.push_back(std::string("no growth with P for ") + kernel +
                              ": it was measured on one group size; run with --nodes 2,4,8,16");
        }
    }
    for (const char* kernel : {"update_guard", "shift_matrix", "transpose", "row_broadcast", "col_broadcast"}) {
        const result_set at = detail::largest_group(r.results, kernel);
        if (at.empty()) continue;
        try {
            const auto growth = compare_growth(at, kernel, "matrix_dim");
            r.growth.insert(r.growth.end(), growth.begin(), growth.end());
        } catch (const invalid_argument& e) {
            r.notes.push_back(std::string("no growth with the matrix dimension for ") + kernel + ": " + e.what());
        }
    }
    if (!r.results.of("contention").empty()) {
        try {
            r.contention = contention_slowdowns(r.results);
        } catch (const invalid_argument& e) {
            r.notes.push_back(std::string("no contention slow-down: ") + e.what());
        }
    }
    if (!r.results.of("overlap").empty()) {
        try {
            r.overlap = overlap_gains(r.results);
        } catch (const invalid_argument& e) {
            r.notes.push_back(std::string("no overlap gain: ") + e.what());
        }
    }
}

}  // namespace comet
