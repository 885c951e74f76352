// comet/transport/decorators/skewed_clock.hpp — `comet::skewed_clock<T>`: a transport whose
// `now()` is the inner transport's clock shifted by an offset and running fast or slow by a
// drift, with the true mapping known — the ground truth clock synchronisation is tested
// against (SPEC 3, "skewed clock").
//
//   comet::threads::run(8, [](comet::threads::transport& inner) {
//       comet::skewed_clock t(inner, comet::seeded_skew(42, inner.rank()));  // ±1 s, ±100 ppm
//       comet::skew_mapping zero = t.mapping();            // rank 0's mapping, to every rank
//       comet::ops::broadcast(inner, 0, std::as_writable_bytes(std::span(&zero, 1)));
//       comet::global_clock g(t);                          // comet/timing/global_clock.hpp
//       const double local = t.now();
//       const double true_error = g.global_time(local) - zero.local_time(t.true_time(local));
//   });
//
// The mapping. With `u` the inner clock's reading and `u0` the reference point (by default
// the inner clock's reading when the decorator was made; it can be given),
//
//     now() = u + offset + drift · (u − u0),        drift = drift_ppm · 1e-6,
//
// so at the reference point the skewed clock is exactly `offset` seconds ahead of the inner
// one, and every inner second lasts 1 + drift skewed seconds. Anchoring the drift at a point
// near the run instead of at the inner clock's zero keeps the offset what it says: MPI_Wtime
// or the steady clock may read 10^6 s, and 100 ppm of that would add 100 s to every offset.
// `skew_mapping` holds the whole mapping as a value (offset, drift, reference), so a test can
// ship one rank's mapping to another and state the true error of a global clock exactly — where
// the inner clock is one clock for every rank (the threads transport's steady clock, the
// simulator's virtual time; not Open MPI's MPI_Wtime, which counts from each process's
// MPI_Init: test/mpi puts the steady clock under the decorator).
//
// Only `now()` and `clock_is_global()` change: the decorator says its clock is not global
// whatever the inner transport's is (each rank's clock now differs), so comet's clock
// synchronisation runs on it. Messages, the collectives, `compute` (which waits on the inner
// transport's own time base) and every optional capability are forwarded as they are.
//
// Seeded skews. `seeded_skew(seed, rank, bounds)` gives each rank an offset uniform in
// ±bounds.max_offset and a drift uniform in ±bounds.max_drift_ppm, the same on every platform
// and compiler for the same seed and rank (a splitmix64 hash of both, not a standard
// distribution, whose algorithm the standard leaves to each library).
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/hash.hpp>
#include <comet/transport/adaptor.hpp>

#include <cmath>
#include <cstdint>

namespace comet {

/// How far one rank's clock is off: `offset` seconds ahead of the true clock at the reference
/// point, running `drift_ppm` parts per million fast (negative: slow). An aggregate:
/// `comet::clock_skew{.offset = 0.25, .drift_ppm = -40}`.
struct clock_skew {
    double offset = 0.0;     ///< seconds ahead of the inner clock at the reference point
    double drift_ppm = 0.0;  ///< parts per million fast (> -1e6 and < 1e6)
    friend bool operator==(const clock_skew&, const clock_skew&) = default;
};

/// The bounds `seeded_skew` draws within: offsets uniform in ±max_offset seconds, drifts in
/// ±max_drift_ppm. The defaults are what commodity clocks give: free-running counters that
/// disagree by up to a second at start and whose crystals are off by up to 100 ppm.
struct skew_bounds {
    double max_offset = 1.0;
    double max_drift_ppm = 100.0;
};

/// A skewed clock's whole mapping as a value: the skew and the reference point `reference`
/// (an inner-clock reading). Trivially copyable, so it can travel in a message.
struct skew_mapping {
    clock_skew skew;
    double reference = 0.0;

    /// The skewed clock's reading when the inner (true) clock reads `true_time`.
    double local_time(double true_time) const noexcept {
        return true_time + skew.offset + skew.drift_ppm * 1e-6 * (true_time - reference);
    }
    /// The inner (true) clock's reading when the skewed clock reads `local` (the inverse).
    double true_time(double local) const noexcept {
        return reference + (local - skew.offset - reference) / (1.0 + skew.drift_ppm * 1e-6);
    }
};

namespace detail {

/// A value uniform in [-1, 1) from 53 bits of the hash of (seed, rank, stream).
constexpr double symmetric_unit(std::uint64_t seed, int rank, std::uint64_t stream) noexcept {
    const std::uint64_t h = splitmix64(splitmix64(splitmix64(seed) ^ static_cast<std::uint64_t>(rank)) ^ stream);
    return static_cast<double>(h >> 11) * 0x1.0p-52 - 1.0;
}

/// Throws invalid_argument unless `s` is a skew a clock can have (finite; |drift| < 1e6 ppm,
/// at which the clock would stop or run backwards).
inline void check_skew(int rank, const clock_skew& s) {
    if (!std::isfinite(s.offset)) raise<invalid_argument>(rank, "skewed_clock: offset ", s.offset, " s is not finite");
    if (!std::isfinite(s.drift_ppm) || !(std::fabs(s.drift_ppm) < 1e6))
        raise<invalid_argument>(rank, "skewed_clock: drift ", s.drift_ppm,
                                " ppm is outside (-1e6, 1e6) ppm (the clock would stop or run backwards)");
}

}  // namespace detail

/// The skew of `rank` for `seed`: offset uniform in ±b.max_offset, drift in ±b.max_drift_ppm;
/// the same values on every platform. Rank 0 is skewed too (the global time base is rank 0's
/// clock, which is no truer than the others).
/// @throws invalid_argument (naming the rank and the value) for a negative rank, or a bound
///         that is negative, not finite, or a drift bound of 1e6 ppm or more.
/// @code
///   comet::skewed_clock t(inner, comet::seeded_skew(7, inner.rank(), {.max_offset = 1e-3}));
/// @endcode
inline clock_skew seeded_skew(std::uint64_t seed, int rank, const skew_bounds& b = {}) {
    if (rank < 0) raise<invalid_argument>(-1, "seeded_skew: rank ", rank, " is negative");
    if (!std::isfinite(b.max_offset) || b.max_offset < 0.0)
        raise<invalid_argument>(rank, "seeded_skew: max_offset ", b.max_offset, " s must be finite and at least 0");
    if (!std::isfinite(b.max_drift_ppm) || b.max_drift_ppm < 0.0 || b.max_drift_ppm >= 1e6)
        raise<invalid_argument>(rank, "seeded_skew: max_drift_ppm ", b.max_drift_ppm, " must be in [0, 1e6)");
    return {.offset = b.max_offset * detail::symmetric_unit(seed, rank, 1),
            .drift_ppm = b.max_drift_ppm * detail::symmetric_unit(seed, rank, 2)};
}

/// A transport whose clock is `Inner`'s skewed by a known offset and drift (and which forwards
/// everything else `Inner` has).
/// @code
///   comet::skewed_clock t(inner, {.offset = 0.5, .drift_ppm = 20});   // reference: now
///   double local = t.now();
///   double truth = t.true_time(local);                                 // inner clock's reading
/// @endcode
template <transport Inner>
class skewed_clock : public transport_adaptor<Inner> {
    using base = transport_adaptor<Inner>;

public:
    /// Skews `inner`'s clock by `s` from the inner clock's present reading on.
    /// @throws invalid_argument naming the rank and the value for a non-finite offset or drift,
    ///         or |drift| ≥ 1e6 ppm.
    skewed_clock(Inner& inner, clock_skew s) : base(inner) {
        detail::check_skew(inner.rank(), s);
        map_ = {s, inner.now()};
    }
    /// Skews `inner`'s clock by `s`, exactly `s.offset` ahead when the inner clock reads
    /// `reference`. @throws invalid_argument as above, and for a non-finite reference.
    skewed_clock(Inner& inner, clock_skew s, double reference) : base(inner) {
        detail::check_skew(inner.rank(), s);
        if (!std::isfinite(reference))
            raise<invalid_argument>(inner.rank(), "skewed_clock: reference ", reference, " s is not finite");
        map_ = {s, reference};
    }

    /// The skewed reading of the inner clock.
    double now() { return map_.local_time(this->inner().now()); }

    /// Never global: this rank's clock is its own.
    bool clock_is_global() const noexcept { return false; }

    /// The inner (true) clock's reading when this clock read `local`.
    double true_time(double local) const noexcept { return map_.true_time(local); }
    /// This clock's reading when the inner (true) clock reads `true_time`.
    double local_time(double true_time) const noexcept { return map_.local_time(true_time); }

    double offset() const noexcept { return map_.skew.offset; }        ///< seconds ahead at the reference
    double drift_ppm() const noexcept { return map_.skew.drift_ppm; }  ///< parts per million fast
    double reference() const noexcept { return map_.reference; }      ///< inner-clock reading of the reference point
    const skew_mapping& mapping() const noexcept { return map_; }     ///< all three, as a value

private:
    skew_mapping map_;
};

}  // namespace comet
