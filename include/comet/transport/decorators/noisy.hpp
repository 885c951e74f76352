// comet/transport/decorators/noisy.hpp — `comet::noisy<T>`: a transport whose ranks lose their
// CPU now and then, for given lengths, at seeded random or periodic times (SPEC 3, "noisy"): OS
// noise in the "detour" model (a detour takes the CPU away from the rank for its length), so
// that a measurement's robustness to noise is a repeatable test.
//
//   comet::threads::run(4, [](comet::threads::transport& inner) {
//       // rank 1 loses 2 ms every 20 ms; every rank loses 10 us at random, 1% of its time
//       comet::noisy t(inner, {{.when = comet::detour_source::timing::periodic, .ranks = {1},
//                               .length = 2e-3, .share = 0.1},
//                              {.length = 10e-6, .share = 0.01, .seed = 7}});
//       auto r = comet::kernels::echo(t, {.sizes = {0, 1024}});
//   });
//
// The schedule. Each source puts detours on its ranks (every rank when the list is empty) from
// the decorator's construction on, in the inner transport's own time base (virtual seconds on
// the simulator, the steady clock on threads, MPI_Wtime on MPI): periodic ones every
// length/share seconds, random ones at Poisson times (exponential gaps of mean length/share),
// so that either takes `share` of the rank's time on average. Where a rank's detours fall is a
// function of (seed, rank, source index) alone: a splitmix64 hash and an inverse-CDF exponential,
// not a standard distribution (the standard leaves their algorithms to each library), so the
// same seed gives the same schedule on every platform. `detour_schedule` is that schedule.
//
// How a detour acts, on any transport (threads, MPI, a user's own). The decorator sees the rank
// only when it calls into the transport, so it applies the detours at call boundaries:
//   - a detour that began while the rank ran its own code (between two calls) made that code
//     take its whole length longer: the next call first spends that time;
//   - a detour that began while the rank waited inside a call keeps it only until the detour
//     ends: a rank blocked for a message wakes late only if the message came during the detour;
//   - `compute(work)` is the rank's own code: a detour during it lengthens it by its whole length.
// The time is spent busy, through the inner transport's compute (`work::busy`), so it is real
// CPU time on a real transport and virtual time on a simulated one. Put this decorator directly
// around the transport, inside any that changes compute (`dilated<noisy<T>>`, not
// `noisy<dilated<T>>`, which would dilate the detours too).
//
// On the simulator (comet::nx2::transport) the detours are faithful instead: the decorator hands
// the schedule to the simulated machine, where each detour takes the node's CPU as an interrupt
// handler of its length would (nx2/engine.hpp, docs/nx2-model.md "Detours"): whatever the rank
// does, in the middle of a native collective too, so a delay propagates down a broadcast's tree.
// The decorator then does nothing at call boundaries. The run stays deterministic.
//
// Every member the adaptor forwards is wrapped, under the adaptor's own constraint, so comet::ops
// picks the same native or portable implementation with noise as without: a noisy run measures
// the same code as the quiet one. `detours()` says how many detours took effect on this rank and
// the time they took.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/hash.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/transport/adaptor.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace comet {

/// One source of detours (noise): on each of `ranks` (empty: every rank), detours of `length`
/// seconds that take `share` of the rank's time on average (one every length/share seconds).
/// An aggregate: `{.when = comet::detour_source::timing::periodic, .ranks = {1}, .length = 1e-3, .share = 0.01}`.
struct detour_source {
    enum class timing : unsigned char {
        random,    ///< Poisson arrivals: exponential gaps of mean length/share
        periodic,  ///< one every length/share seconds
    };
    timing when = timing::random;
    std::vector<int> ranks = {};  ///< the ranks it acts on; empty: every rank
    double length = 0.0;          ///< seconds per detour, at least 1 ns
    double share = 0.0;           ///< fraction of the rank's time, in (0, 0.5]
    /// Periodic only: every rank's detours at the same moments of the inner clock (synchronised
    /// noise: at the multiples of the period, which coincide across ranks wherever that clock is
    /// one clock for all, as on threads and the simulator). False: each rank its own seeded phase
    /// in [0, period) from its decorator's construction (unsynchronised noise).
    bool aligned = false;
    std::uint64_t seed = 1;
};

/// The noise on a group of ranks: its sources, in order (a source's index is its place here).
using noise = std::vector<detour_source>;

/// One detour: the rank loses its CPU at `start` (a reading of the inner transport's clock) for
/// `length` seconds.
struct detour {
    double start = 0.0;
    double length = 0.0;
    friend bool operator==(const detour&, const detour&) = default;
};

/// Detours that took effect on a rank, and the time they took from it.
struct detour_counts {
    std::uint64_t count = 0;
    double seconds = 0.0;
};

/// The detours that `sources` put on one rank, in order of start, without end: each source's own,
/// merged (ties: the lower source index first). A function of (seed, rank, source index) and the
/// origin alone.
/// @code
///   comet::detour_schedule s({{.length = 1e-3, .share = 0.01, .seed = 3}}, 2, 4, 0.0);
///   comet::detour first = s.next(), second = s.next();   // second.start >= first.start
/// @endcode
class detour_schedule {
public:
    /// Rank `rank`'s detours (of a group of `size`) from `origin`, a reading of the inner clock.
    /// @throws invalid_argument naming the rank, the source, the field and its value for a length
    ///         not finite or under 1 ns, a share not in (0, 0.5], a rank outside 0..size-1,
    ///         `aligned` on a random source, or sources on this rank whose shares add up to 1 or
    ///         more (they would leave it no time at all).
    detour_schedule(const noise& sources, int rank, int size, double origin) {
        double total = 0.0;
        for (std::size_t i = 0; i < sources.size(); ++i) {
            const detour_source& s = sources[i];
            // Under a nanosecond no clock here resolves, and the simulator's picoseconds would
            // round a period to nothing.
            if (!std::isfinite(s.length) || !(s.length >= 1e-9))
                raise<invalid_argument>(rank, "noisy: source ", i, ": length ", s.length, " s is not a finite 1e-9 s or more");
            if (!std::isfinite(s.share) || !(s.share > 0.0 && s.share <= 0.5))
                raise<invalid_argument>(rank, "noisy: source ", i, ": share ", s.share, " is outside (0, 0.5]");
            if (s.aligned && s.when == detour_source::timing::random)
                raise<invalid_argument>(rank, "noisy: source ", i,
                                        ": aligned = 1 on a random source (only periodic ones align)");
            bool here = s.ranks.empty();
            for (std::size_t j = 0; j < s.ranks.size(); ++j) {
                if (s.ranks[j] < 0 || s.ranks[j] >= size)
                    raise<invalid_argument>(rank, "noisy: source ", i, ": ranks[", j, "] = ", s.ranks[j],
                                            " is outside 0..", size - 1);
                here = here || s.ranks[j] == rank;
            }
            if (!here) continue;
            total += s.share;
            streams_.push_back(stream::of(s, i, rank, origin));
        }
        if (!(total < 1.0))
            raise<invalid_argument>(rank, "noisy: the sources on this rank take shares adding up to ", total,
                                    ", which leaves it no time (must be below 1)");
        find_next();
    }

    /// Whether no source acts on this rank.
    bool empty() const noexcept { return streams_.empty(); }

    /// The next detour, not taken; one at +infinity when the schedule is empty.
    detour peek() const noexcept {
        if (empty()) return {std::numeric_limits<double>::infinity(), 0.0};
        return streams_[next_].upcoming;
    }

    /// Takes the next detour. @pre !empty()
    detour next() {
        const detour d = streams_[next_].upcoming;
        streams_[next_].advance();
        find_next();
        return d;
    }

private:
    /// One source's detours on this rank.
    struct stream {
        detour_source::timing when;
        double gap;          ///< the period, or the mean gap
        double anchor;       ///< periodic: the first start
        std::uint64_t key;   ///< the hash of (seed, rank, source index): gaps, or the phase
        std::uint64_t drawn; ///< detours made so far
        detour upcoming;

        static stream of(const detour_source& s, std::size_t index, int rank, double origin) {
            const std::uint64_t key = detail::splitmix64(
                detail::splitmix64(detail::splitmix64(s.seed) ^ static_cast<std::uint64_t>(rank)) ^ index);
            stream t{s.when, s.length / s.share, 0.0, key, 0, {0.0, s.length}};
            if (s.when == detour_source::timing::random) {
                t.upcoming.start = origin + t.random_gap();
            } else {
                // Aligned: the first multiple of the period at or after the origin, the same
                // moment for every rank. Else a phase of the rank's own, uniform in [0, period).
                t.anchor = s.aligned ? std::ceil(origin / t.gap) * t.gap : origin + unit(key, 0) * t.gap;
                t.upcoming.start = t.anchor;
            }
            t.drawn = 1;
            return t;
        }

        void advance() noexcept {
            if (when == detour_source::timing::random)
                upcoming.start += random_gap();
            else
                upcoming.start = anchor + static_cast<double>(drawn) * gap;  // no sum of rounding errors
            ++drawn;
        }

        /// An exponential gap of mean `gap`, by its inverse CDF from the uniform number `drawn`.
        double random_gap() const noexcept { return -gap * std::log1p(-unit(key, drawn)); }

        /// The n-th value of splitmix64's own sequence from `key`, as a double uniform in [0, 1).
        static double unit(std::uint64_t key, std::uint64_t n) noexcept {
            return static_cast<double>(detail::splitmix64(key + n * 0x9e3779b97f4a7c15u) >> 11) * 0x1.0p-53;
        }
    };

    void find_next() noexcept {
        next_ = 0;
        for (std::size_t i = 1; i < streams_.size(); ++i)
            if (streams_[i].upcoming.start < streams_[next_].upcoming.start) next_ = i;
    }

    std::vector<stream> streams_;
    std::size_t next_ = 0;  ///< the stream whose detour comes first
};

namespace detail {

/// A transport that runs detours itself, on its own machine model (the simulator): it takes a
/// schedule as a generator of `detour`s and counts what they took per registration.
template <class T>
concept runs_detours = requires(T& t, const T& ct, detour (*next)(), std::size_t handle) {
    { t.add_detours(next) } -> std::same_as<std::size_t>;
    t.remove_detours(handle);
    { ct.detours(handle).count } -> std::convertible_to<std::uint64_t>;
    { ct.detours(handle).seconds() } -> std::convertible_to<double>;
};

}  // namespace detail

/// A transport whose ranks are preempted by detours (see the file's comment). One rank's
/// endpoint, used in place: not copyable (on the simulator it owns its schedule's registration).
/// @code
///   comet::noisy t(inner, {{.length = 50e-6, .share = 0.02, .seed = 11}});   // 2% noise everywhere
///   comet::ops::barrier(t);
///   comet::detour_counts d = t.detours();
/// @endcode
template <transport Inner>
class noisy : public transport_adaptor<Inner> {
    using base = transport_adaptor<Inner>;
    /// The simulator applies the detours to its node itself; then nothing happens at call boundaries.
    static constexpr bool simulated = detail::runs_detours<Inner>;

public:
    using request = typename base::request;

    /// Puts the detours of `sources` on this rank from now on (see detour_schedule).
    /// @pre every rank gets the same `sources` (each draws its own detours from them).
    /// @throws invalid_argument as detour_schedule's constructor does.
    noisy(Inner& inner, const noise& sources) : base(inner), schedule_(sources, inner.rank(), inner.size(), inner.now()) {
        if constexpr (simulated)
            if (!schedule_.empty())
                registration_ = inner.add_detours([s = std::move(schedule_)]() mutable { return s.next(); });
    }
    noisy(const noisy&) = delete;
    noisy& operator=(const noisy&) = delete;
    /// On the simulator, the detours stop with the decorator, as they do elsewhere.
    ~noisy() {
        if constexpr (simulated)
            if (registration_) this->inner().remove_detours(*registration_);
    }

    /// Detours that took effect on this rank since the decorator was made (elsewhere than on the
    /// simulator: by the last call), and the time they took from it (each its whole length).
    detour_counts detours() const {
        if constexpr (simulated) {
            if (!registration_) return {};
            const auto& c = this->inner().detours(*registration_);
            return {c.count, c.seconds()};
        } else {
            std::lock_guard lock(*mutex_);
            return counts_;
        }
    }

    /// This rank's disturbances so far (core/concepts.hpp, counts_disturbances): the detours
    /// that took effect, and the inner transport's own where it counts them (the operating
    /// system's preemptions on threads and MPI), so that the measurement engines see the noise
    /// this decorator makes as they see a real machine's.
    std::uint64_t disturbances() {
        if constexpr (simulated) {
            return this->inner().disturbances();  // the simulated machine's: every detour on the node
        } else {
            std::uint64_t n = detours().count;
            if constexpr (counts_disturbances<Inner>) n += static_cast<std::uint64_t>(this->inner().disturbances());
            return n;
        }
    }

    /// The inner transport's retransmissions so far, where it counts them.
    std::uint64_t retransmissions() const
        requires counts_retransmissions<Inner>
    {
        return this->inner().retransmissions();
    }
    /// The inner transport's wire time of the last receive this rank completed, where it says.
    wire_span last_received_wire() const
        requires reports_wire_time<Inner>
    {
        return this->inner().last_received_wire();
    }
    /// The CPU time the inner transport's interrupt handlers took from this rank so far, where
    /// it says (a detour is no handler: it is not in it).
    double interrupt_seconds() const
        requires counts_interrupt_time<Inner>
    {
        return this->inner().interrupt_seconds();
    }

    /// The inner transport's compute; a detour during it lengthens it by its whole length (the
    /// computation is the rank's own code). Where the inner transport has no compute, neither has
    /// this decorator: comet::ops performs the work itself, as the rank's own code, and the next
    /// call pays the detours that fell in it.
    void compute(const work& w)
        requires requires(base& b) { b.compute(w); }
    {
        around([&] {
            this->inner().compute(w);
            if constexpr (!simulated) ran_own_code();
        });
    }

// Member `name` as the adaptor has it (under the adaptor's own constraint), run `around`.
#define COMET_NOISY_CALL(result, name, params, args)                        \
    result name params                                                      \
        requires requires(base& b) { b.name args; }                         \
    {                                                                       \
        return around([&]() -> result { return this->inner().name args; }); \
    }

    // ---- the core ----
    COMET_NOISY_CALL(request, isend, (int dest, int tag, const_bytes data), (dest, tag, data))
    COMET_NOISY_CALL(request, irecv, (int source, int tag, mutable_bytes data), (source, tag, data))
    COMET_NOISY_CALL(std::optional<status>, test, (request & r), (r))
    COMET_NOISY_CALL(std::optional<status>, iprobe, (int source, int tag), (source, tag))
    COMET_NOISY_CALL(double, now, (), ())
    // ---- native operations ----
    COMET_NOISY_CALL(void, send, (int dest, int tag, const_bytes data), (dest, tag, data))
    COMET_NOISY_CALL(status, recv, (int source, int tag, mutable_bytes data), (source, tag, data))
    COMET_NOISY_CALL(status, wait, (request & r), (r))
    COMET_NOISY_CALL(void, wait_all, (std::span<request> rs), (rs))
    COMET_NOISY_CALL(void, barrier, (), ())
    COMET_NOISY_CALL(void, broadcast, (int root, mutable_bytes data), (root, data))
    COMET_NOISY_CALL(void, allreduce_sum, (std::span<double> v), (v))
    COMET_NOISY_CALL(void, allreduce_max, (std::span<double> v), (v))
    COMET_NOISY_CALL(void, allreduce_min, (std::span<double> v), (v))
    COMET_NOISY_CALL(void, reduce_sum, (int root, std::span<double> v), (root, v))
    COMET_NOISY_CALL(void, reduce_max, (int root, std::span<double> v), (root, v))
    COMET_NOISY_CALL(void, reduce_min, (int root, std::span<double> v), (root, v))
    COMET_NOISY_CALL(void, gather, (int root, const_bytes mine, mutable_bytes all), (root, mine, all))
    COMET_NOISY_CALL(void, alltoall, (const_bytes out, mutable_bytes in), (out, in))
    // ---- optional capabilities ----
    COMET_NOISY_CALL(void, ssend, (int dest, int tag, const_bytes data), (dest, tag, data))
    COMET_NOISY_CALL(request, issend, (int dest, int tag, const_bytes data), (dest, tag, data))
    COMET_NOISY_CALL(void, rsend, (int dest, int tag, const_bytes data), (dest, tag, data))
    COMET_NOISY_CALL(request, irsend, (int dest, int tag, const_bytes data), (dest, tag, data))
    COMET_NOISY_CALL(void, bsend, (int dest, int tag, const_bytes data), (dest, tag, data))
    COMET_NOISY_CALL(void, reserve_bsend, (std::size_t messages, std::size_t bytes), (messages, bytes))
    COMET_NOISY_CALL(status, sendrecv,
                     (int dest, int send_tag, const_bytes out, int source, int recv_tag, mutable_bytes in),
                     (dest, send_tag, out, source, recv_tag, in))
    COMET_NOISY_CALL(request, ibarrier, (), ())
    COMET_NOISY_CALL(request, ibroadcast, (int root, mutable_bytes data), (root, data))
    COMET_NOISY_CALL(request, iallreduce_sum, (std::span<double> v), (v))
    COMET_NOISY_CALL(void, progress, (), ())

#undef COMET_NOISY_CALL

private:
    /// One call into the transport: the detours of the rank's own code before it, of the wait
    /// inside it after it (nothing on the simulator, which applies them itself).
    template <class Op>
    decltype(auto) around(Op op) {
        if constexpr (!simulated) ran_own_code();
        if constexpr (std::is_void_v<std::invoke_result_t<Op&>>) {
            op();
            if constexpr (!simulated) waited_inside();
        } else {
            decltype(auto) r = op();
            if constexpr (!simulated) waited_inside();
            return r;
        }
    }

    /// The rank ran its own code until now: each detour that began meanwhile made it take the
    /// detour's whole length longer, and so does each one that begins while it catches up.
    void ran_own_code() {
        if (schedule_.empty()) return;
        const double now = this->inner().now();
        double end = now;
        {
            std::lock_guard lock(*mutex_);
            while (schedule_.peek().start <= end) end += take().length;
        }
        if (end > now) spin_until(end);
    }

    /// The rank waited inside the transport until now: a detour that began meanwhile kept the
    /// CPU from its start (or from the end of the one before it: they do not overlap) for its
    /// length, so the rank runs again only once the last of them has ended.
    void waited_inside() {
        if (schedule_.empty()) return;
        const double now = this->inner().now();
        double end = now, cpu_free = -std::numeric_limits<double>::infinity();
        {
            std::lock_guard lock(*mutex_);
            while (schedule_.peek().start <= end) {
                const detour d = take();
                cpu_free = std::max(cpu_free, d.start) + d.length;
                end = std::max(end, cpu_free);
            }
        }
        if (end > now) spin_until(end);
    }

    /// @pre `mutex_` held.
    detour take() {
        const detour d = schedule_.next();
        ++counts_.count;
        counts_.seconds += d.length;
        return d;
    }

    /// Busy until the inner clock reads `end`: real CPU time on a real transport.
    void spin_until(double end) { ops::compute(this->inner(), work::busy(end - this->inner().now())); }

    detour_schedule schedule_;                 ///< the detours to come (on the simulator: handed to it)
    detour_counts counts_;                     ///< what they took so far (not on the simulator)
    /// Guards the schedule and the counts: a rank's progress thread (nbc's progression by a
    /// thread) calls into the transport beside the rank, and both take the detours due.
    std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
    std::optional<std::size_t> registration_;  ///< the simulator's handle for this schedule
};

}  // namespace comet
