// comet/analysis/predict.ipp — the definitions of comet/analysis/predict.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/analysis/predict.hpp>

namespace comet {

COMET_DECL double predict(const transfer_fit& fit, double size, int hops) {
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

COMET_DECL double predict(std::span<const transfer_fit> fits, double size, int hops) {
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
