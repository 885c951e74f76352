// comet/timing/global_clock.hpp — `comet::global_clock<T>`: rank 0's time on every rank, from a
// clock synchronisation (comet/timing/sync.hpp), with a drift estimate and a resync policy
// (SPEC 5, "group clock sync"; seed 002, sections 2.2 and 3).
//
//   comet::global_clock g(t);                    // collective: synchronises (log_p by default)
//   double start = g.now();                      // rank 0's clock, read on this rank
//   ... g.estimated_error(), g.sync_time(), g.scheme(), g.exchanges()
//   if (g.needs_resync(1e-6)) g.resync();         // collective, both
//
// The mapping. A sync gives this rank its offset `o` to rank 0's clock, measured when its own
// clock read `r` (the reference). Clocks drift apart (the seed's figure 5: offsets between two
// nodes change nearly linearly over hours), so after a second sync the offset is modelled as a
// linear function of time, fitted through the first sync and the latest one (the longest
// baseline there is): drift d = (o_latest − o_first) / (r_latest − r_first), and
//
//     global(local) = local + o + d · (local − r)        (d = 0 until it is estimated)
//
// from the latest sync's offset and reference. The drift's own uncertainty is the two syncs'
// errors over the baseline, (e_first + e_latest) / (r_latest − r_first); an estimate is used
// only once that is below `sync_config::assumed_drift` (two syncs too close together say less
// than the prior bound does).
//
// The error. `estimated_error()` bounds how far the mapping was off at the reference (the
// sync's half round trips along this rank's path; sync.hpp). From there it grows with the time
// since, at the drift's uncertainty — `assumed_drift` (200 ppm by default) after one sync, the
// estimate's uncertainty after two: `error_bound()` = estimated_error() + uncertainty ·
// |local − r|. `needs_resync(max_error)` asks whether any rank's bound has passed `max_error`;
// it is collective (a reduction), so every rank gets the same answer and may act on it — a
// rank deciding alone on its own bound would leave the others waiting in a resync it never
// joins. Rank 0's clock is the time base: its error is 0 and stays 0.
//
// On a transport whose clock is global (`ops::clock_is_global`: the threads transport, the
// simulated iPSC/860, MPI with MPI_WTIME_IS_GLOBAL) the global clock is the transport's own:
// exact, free (no message, no barrier, ever: not for the sync, not for `needs_resync`, not for
// `resync`), scheme `none`.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/ops/ops.hpp>
#include <comet/timing/sync.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <span>

namespace comet {

/// Rank 0's clock, read on any rank of `T`'s group: a transport's clock corrected by a clock
/// synchronisation. A `comet::clock` itself (`now()`), so `comet::repeat` can time with it.
/// Holds a pointer to the transport, which must outlive it.
/// @code
///   comet::global_clock g(t, {.scheme = comet::sync_scheme::linear});
///   const double start = g.now();        // comparable across ranks to within g.error_bound()
/// @endcode
template <transport T>
class global_clock {
public:
    /// Synchronises the group's clocks (`sync_clocks`).
    /// @pre collective: every rank of the group calls it with the same configuration.
    /// @throws invalid_argument on every rank for a bad configuration (sync.hpp).
    explicit global_clock(T& t, const sync_config& c = {}) : t_(&t), config_(c) { adopt(sync_clocks(t, c)); }

    /// Rank 0's time now, in seconds.
    double now() { return global_time(t_->now()); }
    /// Rank 0's time when this rank's clock reads `local`.
    double global_time(double local) const noexcept { return local + offset_ + drift_ * (local - reference_); }
    /// This rank's clock reading when rank 0's reads `global` (the inverse: e.g. when to start
    /// an operation rank 0 scheduled at a global time).
    double local_time(double global) const noexcept { return reference_ + (global - offset_ - reference_) / (1.0 + drift_); }

    /// The most this rank's global time was off at the last sync (0 on rank 0 and on a global
    /// clock): half the smallest round trips along its path to rank 0, plus drift allowances.
    double estimated_error() const noexcept { return error_; }
    /// The largest `estimated_error()` of any rank at the last sync (the same on every rank).
    double max_estimated_error() const noexcept { return last_.max_error; }
    /// The most this rank's global time may be off when its clock reads `local`: the error at
    /// the sync, grown by the drift's uncertainty over the time since.
    double error_bound_at(double local) const noexcept { return error_ + drift_uncertainty_ * std::fabs(local - reference_); }
    /// `error_bound_at` now.
    double error_bound() { return error_bound_at(t_->now()); }

    /// Whether any rank's `error_bound()` now exceeds `max_error`. The same answer on every
    /// rank (a maximum over ranks); on a global clock false, at no cost.
    /// @pre collective: every rank calls it at the same point with the same `max_error`.
    /// @throws invalid_argument (on every rank) when `max_error` is negative or not finite.
    bool needs_resync(double max_error) {
        if (!std::isfinite(max_error) || max_error < 0.0)
            raise<invalid_argument>(t_->rank(), "global_clock::needs_resync: max_error ", max_error,
                                    " s must be finite and at least 0");
        if (exact()) return false;
        std::array<double, 1> worst{error_bound()};
        ops::allreduce_max(*t_, std::span<double>(worst));
        return worst[0] > max_error;
    }

    /// Synchronises again (same configuration), keeping the first sync as the anchor of the
    /// drift estimate: from the second sync on, the offset follows the fitted drift. On a
    /// global clock, nothing.
    /// @pre collective: every rank calls it at the same point.
    void resync() {
        if (exact()) return;
        adopt(sync_clocks(*t_, config_));
    }

    sync_scheme scheme() const noexcept { return last_.scheme; }             ///< `none` on a global clock
    bool exact() const noexcept { return last_.scheme == sync_scheme::none; }  ///< the transport's clock is global
    double sync_time() const noexcept { return last_.duration; }             ///< how long the last sync took (s)
    std::size_t exchanges() const noexcept { return last_.exchanges; }       ///< timestamp exchanges of the last sync, all pairs
    int steps() const noexcept { return last_.steps; }                       ///< pair steps of the last sync's schedule
    int syncs() const noexcept { return syncs_; }                            ///< syncs so far (0 on a global clock)

    double offset() const noexcept { return offset_; }        ///< rank 0's clock minus this rank's, at `reference()`
    double reference() const noexcept { return reference_; }  ///< this rank's clock when `offset()` was measured
    /// The fitted rate of rank 0's clock relative to this rank's, minus 1 (1e-6: rank 0's clock
    /// gains a microsecond per second of this rank's); 0 until estimated.
    double drift() const noexcept { return drift_; }
    /// How far `drift()` may be off: the estimate's uncertainty, or `assumed_drift` before
    /// there is one (0 on rank 0 and on a global clock).
    double drift_uncertainty() const noexcept { return drift_uncertainty_; }
    bool drift_estimated() const noexcept { return drift_estimated_; }

    const sync_result& last_sync() const noexcept { return last_; }
    const sync_config& config() const noexcept { return config_; }

private:
    void adopt(const sync_result& r) {
        last_ = r;
        if (r.scheme == sync_scheme::none) {
            offset_ = drift_ = drift_uncertainty_ = error_ = 0.0;
            reference_ = r.reference;
            return;
        }
        if (syncs_++ == 0) {
            first_ = r;
            drift_uncertainty_ = t_->rank() == 0 ? 0.0 : config_.assumed_drift;
        } else if (const double baseline = r.reference - first_.reference; baseline > 0.0) {
            // A first estimate must say more than the prior bound (rank 0's, exactly 0, always
            // does); a later one must improve on the estimate in use.
            const double uncertainty = (first_.error + r.error) / baseline;
            const bool better = drift_estimated_ ? uncertainty < drift_uncertainty_
                                                 : uncertainty < config_.assumed_drift || t_->rank() == 0;
            if (better) {
                drift_ = (r.offset - first_.offset) / baseline;
                drift_uncertainty_ = uncertainty;
                drift_estimated_ = true;
            }
        }
        offset_ = r.offset;
        reference_ = r.reference;
        error_ = r.error;
    }

    T* t_;
    sync_config config_;
    sync_result first_{}, last_{};
    int syncs_ = 0;
    double offset_ = 0.0, reference_ = 0.0, drift_ = 0.0, drift_uncertainty_ = 0.0, error_ = 0.0;
    bool drift_estimated_ = false;
};

}  // namespace comet
