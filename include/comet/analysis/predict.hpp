// comet/analysis/predict.hpp — what a fitted transfer model says an application's own message
// costs: t(N) = t_startup + N·t_per_byte [+ (n − 1)·hop], from the regime that holds N.
//
// A prediction is only as good as its fit: a flagged fit (stats/fit.hpp) predicts nothing, and
// asking it is an error, not a number. Nor does a fit without a hop term know what another
// distance costs.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/stats/fit_results.hpp>

#include <cmath>
#include <span>
#include <string>

namespace comet {

/// The time in seconds the transfer model `fit` gives for a message of `size` bytes over
/// `hops` links (1: the fit's own distance when it has no hop term).
/// @throws invalid_argument for a flagged fit, a size below 0 or not finite, hops below 1, or
///         hops other than 1 for a fit without a hop term (its records spanned one distance).
/// @code
///   auto fits = comet::fit_transfers(results, "pairwise", {.find_break = true});
///   double halo = comet::predict(fits, 8192);   // seconds for an 8 KiB exchange
/// @endcode
COMET_DECL double predict(const transfer_fit& fit, double size, int hops = 1);

/// The same from the regimes of one kernel's fit (as `fit_transfers` returns them): the
/// regime whose sizes hold `size` (lower_break < size ≤ upper_break) predicts.
/// @throws invalid_argument as above, for no fits, or for fits of more than one kernel.
COMET_DECL double predict(std::span<const transfer_fit> fits, double size, int hops = 1);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/analysis/predict.ipp>
#endif
