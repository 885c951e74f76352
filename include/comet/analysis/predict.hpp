// comet/analysis/predict.hpp — what a fitted transfer model says an application's own message
// costs: t(N) = t_startup + N·t_per_byte [+ (n − 1)·hop], from the regime that holds N.
//
// A prediction is only as good as its fit: a flagged fit (stats/fit.hpp) predicts nothing, and
// asking it is an error, not a number. Nor does a fit without a hop term know what another
// distance costs.
#pragma once

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
inline double predict(const transfer_fit& fit, double size, int hops = 1) {
    if (!fit.valid())
        raise<invalid_argument>(-1, "predict: the ", fit.kernel, " fit (regime ", fit.regime, ") is ",
                                fit_flags_text(fit.flags), "; it predicts nothing");
    if (!(size >= 0) || !std::isfinite(size))
        raise<invalid_argument>(-1, "predict: message size ", size, " is not a number of bytes >= 0");
    if (hops < 1) raise<invalid_argument>(-1, "predict: hops = ", hops, " is below 1");
    if (hops != 1 && !fit.hop)
        raise<invalid_argument>(-1, "predict: the ", fit.kernel, " fit (regime ", fit.regime, ") has no hop term: its records ",
                                "spanned one distance, so it cannot say what ", hops, " hops cost");
    return fit.t_startup + size * fit.t_per_byte + (fit.hop ? (hops - 1) * *fit.hop : 0.0);
}

/// The same from the regimes of one kernel's fit (as `fit_transfers` returns them): the
/// regime whose sizes hold `size` (lower_break < size ≤ upper_break) predicts.
/// @throws invalid_argument as above, for no fits, or for fits of more than one kernel.
inline double predict(std::span<const transfer_fit> fits, double size, int hops = 1) {
    if (fits.empty()) raise<invalid_argument>(-1, "predict: no fit to predict from");
    for (const auto& f : fits)
        if (f.kernel != fits.front().kernel)
            raise<invalid_argument>(-1, "predict: fits of two kernels (", fits.front().kernel, ", ", f.kernel,
                                    "): pass one kernel's regimes");
    for (const auto& f : fits)
        if ((!f.lower_break || size > *f.lower_break) && (!f.upper_break || size <= *f.upper_break))
            return predict(f, size, hops);
    // Regimes cover every size by construction; a hand-made list may leave a gap.
    raise<invalid_argument>(-1, "predict: no regime of the ", fits.front().kernel, " fit holds ", size, " bytes");
}

}  // namespace comet
