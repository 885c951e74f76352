// comet/report/report.hpp — the bundle every reporter writes: the context of a run, its
// records (with raw samples), and the fits, bandwidth figures and other statistics derived
// from them.
//
// Just the bundle: the writers live in table.hpp, csv.hpp and json.hpp, so a program that
// writes only CSV does not pull in the others.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/analysis/contention.hpp>
#include <comet/analysis/overlap.hpp>
#include <comet/report/context.hpp>
#include <comet/stats/bandwidth.hpp>
#include <comet/stats/commtest.hpp>
#include <comet/stats/derived_table.hpp>
#include <comet/stats/fit_results.hpp>
#include <comet/stats/record.hpp>

#include <optional>
#include <string>
#include <vector>

namespace comet {

/// Where and why a run ended before its last point (an interrupt, an error): its records are
/// everything measured up to there.
struct stop_note {
    std::string kernel;      ///< the kernel that was running ("" when not known)
    std::string last_point;  ///< the last point measured, as `point_name` names it ("" when none was)
    std::string reason;      ///< "interrupted (SIGINT)", or the error's one-line message
};

/// "stopped in echo after echo/size:64/hops:1/nodes:2: interrupted (SIGINT)".
COMET_DECL std::string describe(const stop_note& s);

/// Everything one run produced, ready to be written.
/// @code
///   comet::report r{comet::make_context("threads", 2), results};
///   r.fits = comet::fit_transfers(r.results, "echo");
///   r.bandwidth = comet::bandwidth(r.results, "echo");
///   comet::write_table(std::cout, r);
/// @endcode
struct report {
    context ctx;
    result_set results;
    std::vector<transfer_fit> fits;             ///< echo, pairwise: t = t_startup + N t_per_byte (+ hops)
    std::vector<bandwidth_figures> bandwidth;   ///< echo, pairwise: peak, n_half, n_90
    std::vector<log_p_fit> log_p;               ///< collectives: time against log2 P
    std::vector<growth_comparison> growth;      ///< matrix kernels: linear or quadratic in matrix_dim
    std::vector<contention_slowdown> contention;  ///< echo under cross traffic against idle
    std::vector<overlap_gain> overlap;          ///< synchronous against asynchronous exchange + DAXPY
    std::vector<commtest_statistics> commtest;  ///< COMMTEST: a, b, latency, bandwidths, model error per experiment
    std::vector<derived_table> tables;          ///< what any other analysis derives (stats/derived_table.hpp)
    std::vector<std::string> notes;             ///< what could not be measured or derived, and why
    std::optional<stop_note> stopped;           ///< set when the run ended early: where and why
};

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/report.ipp>
#endif
