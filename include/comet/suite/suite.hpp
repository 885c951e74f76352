// comet/suite/suite.hpp — the CoMet suite as one call: which kernels exist, running a chosen
// list of them on any transport, and the analysis (fits, bandwidth) of what they measured.
//
// The comet program is a thin shell around this; a code that wants the whole benchmark from
// its own MPI job calls `run_suite` with its own transport.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/report/report.hpp>
#include <comet/stats/fit.hpp>
#include <comet/stats/record.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace comet {

/// A kernel of the suite: its name (SPEC 9) and whether this build implements it.
struct suite_kernel {
    std::string_view name;
    bool implemented;
};

/// Every kernel of the CoMet suite, in the thesis' order.
inline const std::vector<suite_kernel>& suite_kernels() {
    static const std::vector<suite_kernel> all = {
        {"echo", true},           {"pairwise", true},      {"broadcast", false},     {"global_sum", false},
        {"barrier", false},       {"contention", false},   {"overlap", false},       {"update_guard", false},
        {"shift_matrix", false},  {"transpose", false},    {"row_broadcast", false}, {"col_broadcast", false},
    };
    return all;
}

/// The names of the implemented kernels: what "all" means.
inline std::vector<std::string> implemented_kernels() {
    std::vector<std::string> names;
    for (const auto& k : suite_kernels())
        if (k.implemented) names.emplace_back(k.name);
    return names;
}

/// What to run. All ranks pass the same values (@pre).
struct suite_config {
    std::vector<std::string> kernels = implemented_kernels();
    transfer_config transfer;  ///< echo and pairwise
    /// Called on the measuring rank after each point (for progress displays).
    std::function<void(const record&)> on_point = {};
};

/// Checks that every requested kernel exists and is implemented; the message names the kernel.
inline void check_suite(const suite_config& cfg) {
    for (const auto& name : cfg.kernels) {
        const auto& all = suite_kernels();
        const auto k = std::find_if(all.begin(), all.end(), [&](const suite_kernel& x) { return x.name == name; });
        std::string known;
        for (const auto& n : implemented_kernels()) known += (known.empty() ? "" : ", ") + n;
        if (k == all.end()) raise<invalid_argument>(-1, "unknown kernel '", name, "' (available: ", known, ")");
        if (!k->implemented) raise<invalid_argument>(-1, "kernel '", name, "' is not implemented yet (available: ", known, ")");
    }
}

/// The number of points run_suite will measure on a group of `nodes` ranks (for progress).
inline std::size_t suite_points(const suite_config& cfg, int nodes) {
    std::size_t points = 0;
    for (const auto& name : cfg.kernels)
        if (name == "echo" || name == "pairwise") {
            const auto hops = cfg.transfer.hops.empty() ? default_hops(cfg.transfer.test_node, nodes) : cfg.transfer.hops;
            points += hops.size() * cfg.transfer.sizes.size();
        }
    return points;
}

/// Runs the requested kernels in order on every rank of `t`'s group; returns the records
/// measured on this rank (each kernel measures on its test node; other ranks get less).
/// @pre every rank calls run_suite with the same config.
/// @code
///   comet::result_set r = comet::run_suite(t, {.kernels = {"echo"}});
/// @endcode
template <transport T>
result_set run_suite(T& t, const suite_config& cfg = {}) {
    check_suite(cfg);
    transfer_config transfer = cfg.transfer;
    if (cfg.on_point) transfer.on_point = cfg.on_point;
    result_set all;
    for (const auto& name : cfg.kernels) {
        if (name == "echo") all.append(echo(t, transfer));
        else if (name == "pairwise") all.append(pairwise(t, transfer));
    }
    return all;
}

/// How to analyse a suite run.
struct analysis_options {
    /// Where the transfer fits split the sizes; unset: found from the data.
    std::optional<double> break_size;
};

/// Adds the fits and bandwidth figures of `r.results` to `r`. A kernel whose records cannot be
/// fitted (too few sizes, say) gets a note instead; returns the notes.
inline std::vector<std::string> analyse(report& r, const analysis_options& opt = {}) {
    std::vector<std::string> notes;
    for (const char* kernel : {"echo", "pairwise"}) {
        if (r.results.of(kernel).empty()) continue;
        try {
            transfer_fit_options fo;
            if (opt.break_size) fo.break_size = opt.break_size;
            else fo.find_break = true;
            std::vector<transfer_fit> fits;
            try {
                fits = fit_transfers(r.results, kernel, fo);
            } catch (const invalid_argument&) {
                if (opt.break_size) throw;
                fits = fit_transfers(r.results, kernel, {});  // too few sizes to split: one line
            }
            r.fits.insert(r.fits.end(), fits.begin(), fits.end());
        } catch (const invalid_argument& e) {
            notes.push_back(std::string("no fit for ") + kernel + ": " + e.what());
        }
        for (auto& b : bandwidth(r.results, kernel)) r.bandwidth.push_back(b);
    }
    return notes;
}

}  // namespace comet
