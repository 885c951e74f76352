// comet/transport/decorators/dilated.hpp — `comet::dilated<T>`: a transport whose computation
// takes D times as long (SPEC 3, "dilated"; the NIST seed's time dilation, section 2). Every
// `compute(work)` is performed with its amount multiplied by D — D times the DAXPY length, the
// flops, the busy seconds, the elements copied — while messages go at the transport's own speed,
// so the run shows the program on a machine whose communication is D times faster relative to
// its computation. Normalised times divide by D (analysis/delays.hpp).
//
//   comet::dilated t(inner, 4.0);
//   comet::ops::compute(t, comet::work::flops(1000));   // the inner transport computes 4000
//
// Everything else is forwarded as it is, the inner transport's count of retransmissions too
// where it keeps one (the simulator's), so that a tracing decorator around this one finds it.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/transport/adaptor.hpp>

#include <cmath>
#include <cstdint>

namespace comet {

/// `w` with its amount multiplied by `factor` (lengths rounded to the nearest whole element).
inline work dilate(work w, double factor) noexcept {
    w.length = static_cast<std::size_t>(std::llround(static_cast<double>(w.length) * factor));
    w.seconds *= factor;
    return w;
}

/// A transport whose `compute` does `factor` times the work (see the file's comment).
template <transport Inner>
class dilated : public transport_adaptor<Inner> {
public:
    /// @throws invalid_argument naming the rank and the value unless 1 ≤ factor ≤ 10^6 (a
    ///         dilation stretches computation; it cannot shrink it).
    dilated(Inner& inner, double factor) : transport_adaptor<Inner>(inner), factor_(factor) {
        if (!(factor >= 1.0 && factor <= 1e6))
            raise<invalid_argument>(inner.rank(), "dilated: dilation factor ", factor, " is outside 1..1e6");
    }

    double factor() const noexcept { return factor_; }

    void compute(const work& w) { ops::compute(this->inner(), dilate(w, factor_)); }

private:
    double factor_;
};

}  // namespace comet
