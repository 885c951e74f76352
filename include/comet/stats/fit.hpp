// comet/stats/fit.hpp — the CoMet transfer model t(N) = t_startup + N·t_per_byte + (n − 1)·h
// fitted to a kernel's records, with protocol breaks given or found by F tests, standard errors
// of every coefficient, and flags on fits that are not results. Includes least_squares.hpp
// (`fit_line`) and bandwidth.hpp (`bandwidth`), which callers have always had from here.
//
// Follows the CoMet thesis, section 5.1: "using a linear least-squares fit to our measured
// communication times, we arrive at t_start-up to be around 79us for transmitting messages less
// than 100 bytes and 156us for messages greater than 100 bytes ... t_per-byte around 0.63us ...
// and 0.41us ... and the overhead h to be 25us" — NX/2 changes protocol at 100 bytes, so the
// fit is done separately on each side of that break; the hop term comes from fitting echo
// times of several hop distances jointly.
//
// What a reader can trust, and why:
// - A break is there only when the data demand it. Splitting always lowers the residual, so
//   "the split with the least residual" would find a protocol change in any straight line. A
//   found break must pass an F test of the extra regime against the fit without it, at 5%,
//   with the p-value multiplied by the number of splits searched (Bonferroni): the search
//   picks the split with the largest F, and an F test that ignores this would call a break in
//   a straight line far more often than 5% of the time. Bonferroni is conservative (the splits'
//   F values are correlated), which is the side to err on: a missed break leaves one honest
//   line with a larger residual, a false one invents a protocol.
// - Every coefficient has a standard error, sqrt(σ̂²·[(XᵀX)⁻¹]_kk) with σ̂² = SSR/(n − p): the
//   textbook ordinary-least-squares error, valid when the points' errors are independent and
//   of one size. Timing noise grows with the time, so for fits spanning orders of magnitude
//   the errors of large-size coefficients are understated and small-size ones overstated;
//   fitting medians (not single samples) keeps both small.
// - A fit whose coefficients make no physical sense (a negative start-up, per-byte time or hop
//   cost beyond its standard error), that has no residual degree of freedom left, or whose
//   design is singular carries `flags`; reporters show such a fit as flagged, never as numbers.
//
// Every fit reports its residual (SPEC 8).
// The fit it returns (`transfer_fit`, its `break_test`s and `fit_flag`s) is in fit_results.hpp,
// which is all a reader of fits needs; this header adds the fitting, and with it
// least_squares.hpp and Eigen.
// Deliberately not here: the least-squares solve (least_squares.hpp), bandwidth figures
// (bandwidth.hpp), log-P growth fits of collectives (growth.hpp), COMMTEST a/b, LogGP
// parameters, weighted least squares.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/stats/bandwidth.hpp>
#include <comet/stats/distributions.hpp>
#include <comet/stats/fit_results.hpp>
#include <comet/stats/least_squares.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet {

/// How `fit_transfers` splits the sizes.
struct transfer_fit_options {
    /// Fit sizes ≤ break_size and sizes > break_size separately (NX/2: 100). The split is made
    /// whatever its F test says (the test is reported).
    std::optional<double> break_size;
    /// Search for breaks instead: split a regime only when the F test rejects the fit without
    /// the split (see `break_test`), one split at a time, up to `max_regimes`. Exclusive with
    /// `break_size`. Without either: one regime, no test.
    bool find_break = false;
    /// The level of the break tests.
    double alpha = 0.05;
    /// The most regimes a search may find. Four: MPI libraries commonly switch protocol twice
    /// (short in the envelope, eager, rendezvous), plus one for a cache or page boundary.
    std::size_t max_regimes = 4;
    /// Distinct sizes each regime of a search must hold. Three, so a regime's line is
    /// over-determined in the size (two sizes always fit a line exactly, so a 2-size regime
    /// could swallow any curvature at the edge of the sweep and "pass" the test). Values below
    /// 2 act as 2.
    std::size_t min_sizes = 3;
    /// A coefficient below −negative_tolerance × its standard error is flagged. One standard
    /// error: a negative estimate within it is a cost too small to resolve (a start-up of ~0 on
    /// shared memory), beyond it the model does not fit the machine.
    double negative_tolerance = 1.0;
};

namespace detail {

/// The summed squared residual below which a fit counts as exact: every residual within
/// 1e-12 of the largest time. Noiseless data (the simulated iPSC/860) leave rounding residuals
/// of ~1e-16 relative; an F test on rounding noise would "find" breaks in it.
COMET_DECL double exact_ssr(double y_max, std::size_t points);

/// One measured point of the transfer model.
struct transfer_point {
    double size;
    double extra_hops;  // n − 1
    std::int64_t hops;
    double time;        // median of the record's samples
};

/// The transfer model fitted to some points.
struct model_fit {
    bool singular = true;
    bool joint = false;  // with a hop term
    double t_startup = std::numeric_limits<double>::quiet_NaN();
    double t_per_byte = std::numeric_limits<double>::quiet_NaN();
    double hop = std::numeric_limits<double>::quiet_NaN();
    std::optional<double> t_startup_se, t_per_byte_se, hop_se;
    double ssr = std::numeric_limits<double>::quiet_NaN();
    std::size_t points = 0;
    std::size_t params = 2;
    double y_max = 0.0, size_max = 0.0, extra_hops_max = 0.0;  // for the "is it zero?" scale
    std::size_t dof() const { return points > params ? points - params : 0; }
};

/// Fits the model to `pts`; joint with a hop term when they span ≥ 2 hop values (the rule is
/// applied to the points of each regime, because a hop column that is constant within a regime
/// cannot be told apart from the intercept). `singular` when the design is.
COMET_DECL model_fit fit_model(std::span<const transfer_point> pts);

/// The flags of a fit (see `fit_flag`). "Beyond its standard error" uses a floor as well: a
/// coefficient whose effect over the measured range is below 1e-9 of the largest time is zero
/// for all purposes, so rounding (−1e-21 s with a standard error of 1e-22 s on noiseless data)
/// is not "negative".
COMET_DECL std::vector<std::string> flags_of(const model_fit& m, double tolerance);

COMET_DECL transfer_fit to_transfer_fit(std::string_view kernel, std::string regime, const model_fit& m, double tolerance);

/// The F test of `more` (a split fit) against `fewer` (the fit it refines), both over the same
/// points; `candidates` splits were searched to find this one.
COMET_DECL break_test f_test(double ssr_fewer, std::size_t params_fewer, double ssr_more, std::size_t params_more,
                             std::size_t points, double exact, std::size_t candidates, double alpha);

/// The name of regime i of k: "all"; "small", "large"; "small", "medium", "large"; "small",
/// "medium1", "medium2", ..., "large". The
/// first and the last keep their names whatever k is, since what the thesis compares is the
/// smallest and the largest messages.
COMET_DECL std::string regime_name(std::size_t i, std::size_t k);

/// The points of `kernel`: records with an integer `size`, a valid sample (and no flag on the
/// whole point: stats/validity.hpp), and a hop
/// distance of at least 1. A rank messaging itself (0 hops) takes no network path at all, so
/// it is not a point of the line t_startup + N·t_per_byte + (n − 1)·h and would only bend it.
COMET_DECL std::vector<transfer_point> transfer_fit_points(const result_set& results, std::string_view kernel);

}  // namespace detail

/// Fits the CoMet transfer model to the records of `kernel` (CoMet thesis 5.1).
///
/// Uses the records whose params hold an integer `size` (bytes) and at least one sample; `hops`
/// (an integer) defaults to 1 when absent, and records at 0 hops (a rank messaging itself: no
/// network path) are left out. The time fitted for a record is the MEDIAN of its samples
/// (robust to the slow outliers timings always have).
/// - no option: one fit, regime "all", no test;
/// - `break_size` given: two fits, "small" (size ≤ break) and "large" (size > break), whatever
///   the data say; the F test of the split is reported (`given`);
/// - `find_break`: one regime unless F tests demand more. Each step tries every split of
///   every current regime between two adjacent distinct sizes that leaves `min_sizes` sizes on
///   both sides, takes the split with the least total squared residual (the smaller size on a
///   tie), and makes it only when the F test against the fit without it rejects at `alpha`
///   after multiplying its p-value by the number of splits tried; stops at `max_regimes`. The
///   tests are in every fit's `break_tests`, the count in `regimes`.
/// When the points of a regime span ≥ 2 hop values, its fit is joint over all of them:
/// t = t_startup + N·t_per_byte + (n − 1)·hop; with a single hop value, `hop` is nullopt (and
/// t_startup includes that distance's (n − 1)·h).
///
/// Data that cannot give a result do not throw: a regime that is singular (one size), has no
/// residual degree of freedom, or has a coefficient below zero beyond its standard error comes
/// back with `flags` (see `fit_flag`), and reporters show it as flagged.
/// @throws invalid_argument when the kernel has no fittable record, a given break leaves one
///         side without records, `hops` is not an integer >= 0, or both `break_size` and
///         `find_break` are given.
/// @code
///   auto fits = comet::fit_transfers(results, "echo", {.find_break = true});
///   for (const auto& f : fits)
///       if (f.valid()) use(f.regime, f.t_startup, *f.t_startup_se);
/// @endcode
COMET_DECL std::vector<transfer_fit> fit_transfers(const result_set& results, std::string_view kernel,
                                                   const transfer_fit_options& options = {});

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/fit.ipp>
#endif
