// comet/timing/clock.hpp — what comet times with: the `clock` concept, the steady clock, the
// x86-64 time-stamp counter, and `describe`, which measures a clock's resolution and the cost of
// reading it (SPEC section 5, "each reports its resolution and call overhead").
//
// A clock is anything with `double now()` returning seconds from an arbitrary epoch. Every
// transport has such a `now()`, so a transport is a clock: `comet::repeat(t, ...)` times with
// the transport's own time base (steady clock, MPI_Wtime, or virtual time on the simulator).
//
// Deliberately not here: clock offsets between ranks, group synchronisation and global clocks
// (they need a transport and live beside this header), and wall-clock (system_clock) time, which
// jumps when the system adjusts it and so must never time anything.
#pragma once

#include <comet/core/errors.hpp>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define COMET_TIMING_HAS_TSC 1
#else
#define COMET_TIMING_HAS_TSC 0
#endif

namespace comet {

/// Anything that tells the time: `now()` returns seconds (as `double`) from an arbitrary epoch,
/// never decreasing. Transports model it too.
template <class C>
concept clock = requires(C& c) {
    { c.now() } -> std::same_as<double>;
};

/// The C++ steady clock in seconds. Monotonic and available everywhere; on Linux it reads the
/// kernel's clocksource through the vDSO (tens of nanoseconds per call, no system call).
struct steady_clock_source {
    double now() const noexcept {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
    static constexpr std::string_view name = "steady_clock";
};

namespace detail {

#if COMET_TIMING_HAS_TSC
/// Reads the time-stamp counter so that the reading is not reordered around the timed code.
/// RDTSC is not a serialising instruction: without the first LFENCE it may execute before the
/// instructions ahead of it (the tail of the timed code) have finished, so an end reading would
/// come early; without the second, instructions after it (the head of the timed code) may start
/// before the counter is read, so a start reading would come late. The "memory" clobber stops
/// the compiler from moving loads and stores across the reading.
inline std::uint64_t read_tsc_ordered() noexcept {
    std::uint32_t lo = 0;
    std::uint32_t hi = 0;
    asm volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

/// One time-stamp counter reading and one steady-clock reading taken at (nearly) the same
/// instant. The steady clock is read between two counter readings; of several tries we keep the
/// one with the narrowest bracket, because a preemption or interrupt between the readings would
/// pair a counter value with a steady time from later and bias the measured frequency.
struct tsc_steady_pair {
    std::uint64_t ticks = 0;
    double seconds = 0.0;
};

inline tsc_steady_pair read_tsc_steady_pair() noexcept {
    tsc_steady_pair best;
    std::uint64_t narrowest = ~std::uint64_t{0};
    for (int attempt = 0; attempt < 16; ++attempt) {
        const std::uint64_t before = read_tsc_ordered();
        const double seconds = steady_clock_source{}.now();
        const std::uint64_t after = read_tsc_ordered();
        if (after - before < narrowest) {
            narrowest = after - before;
            best = {before + (after - before) / 2, seconds};
        }
    }
    return best;
}
#endif

}  // namespace detail

/// The x86-64 time-stamp counter, converted to seconds with a frequency measured against the
/// steady clock. Cheaper and finer than the steady clock; needs an invariant TSC (one that ticks
/// at a constant rate whatever the core's frequency or sleep state, and is synchronised across
/// cores). On other machines `available()` is false and the constructor throws `not_supported`.
/// @code
///   if (comet::tsc_clock::available()) {
///       comet::tsc_clock tsc;                      // calibrates for 20 ms
///       auto r = comet::repeat(tsc, 1000, [&](std::size_t) { work(); });
///   }
/// @endcode
class tsc_clock {
public:
    static constexpr std::string_view name = "tsc";

    /// Whether this machine has an invariant TSC (x86-64; CPUID leaf 0x80000007, EDX bit 8).
    /// Without the invariant bit the counter's rate may follow the core frequency, and a
    /// frequency measured once would not convert later readings correctly.
    static bool available() noexcept {
#if COMET_TIMING_HAS_TSC
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        // (GCC declares __get_cpuid_max unsigned, Clang int.)
        if (static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000007u) return false;
        if (!__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx)) return false;
        return (edx & (1u << 8)) != 0;
#else
        return false;
#endif
    }

    /// Measures the counter's frequency over `calibration` of steady-clock time. The caller
    /// sleeps meanwhile: the invariant counter keeps ticking, and a sleeping calibration leaves
    /// the core to others on a busy machine. Longer calibrations give a more precise frequency
    /// (the error is about one steady-clock reading divided by the calibration time: ~1e-6 at
    /// the default 20 ms).
    /// @throws not_supported when `available()` is false; invalid_argument when `calibration` ≤ 0.
    explicit tsc_clock(std::chrono::nanoseconds calibration = std::chrono::milliseconds(20)) {
        if (!available()) raise<not_supported>(-1, "tsc_clock: this machine has no invariant time-stamp counter");
        if (calibration <= std::chrono::nanoseconds::zero())
            raise<invalid_argument>(-1, "tsc_clock: calibration must be positive, got ", calibration.count(), " ns");
#if COMET_TIMING_HAS_TSC
        const auto start = detail::read_tsc_steady_pair();
        std::this_thread::sleep_for(calibration);
        auto end = detail::read_tsc_steady_pair();
        // sleep_for may return early on some systems; never divide by less than asked for.
        while (end.seconds - start.seconds < std::chrono::duration<double>(calibration).count())
            end = detail::read_tsc_steady_pair();
        frequency_ = static_cast<double>(end.ticks - start.ticks) / (end.seconds - start.seconds);
        period_ = 1.0 / frequency_;
        base_ = start.ticks;
#endif
    }

    /// Seconds since this clock was calibrated. The counter is read relative to a base so the
    /// double keeps sub-nanosecond precision; the difference is taken as signed so that a
    /// reading on a core whose counter trails by a few ticks gives a tiny negative time rather
    /// than wrapping round.
    double now() const noexcept {
#if COMET_TIMING_HAS_TSC
        return static_cast<double>(static_cast<std::int64_t>(detail::read_tsc_ordered() - base_)) * period_;
#else
        return 0.0;
#endif
    }

    /// The measured counter frequency, in Hz.
    double frequency() const noexcept { return frequency_; }

private:
    double frequency_ = 0.0;
    double period_ = 0.0;
    std::uint64_t base_ = 0;
};

/// What `describe` measured about a clock, in seconds.
struct clock_info {
    std::string name;
    double resolution = 0.0;  ///< smallest nonzero step seen between consecutive readings (0: never advanced)
    double call_cost = 0.0;   ///< mean time one `now()` takes (0: the clock never advanced)
};

/// Measures the resolution of `c` and the cost of reading it, using `c` itself (so a virtual
/// clock is described in its own time base: reading it costs no virtual time, and both values
/// come back 0). Takes about 15 ms on a clock with nanosecond resolution, about 1 s on a 10 ms
/// one.
/// @code
///   comet::steady_clock_source s;
///   auto info = comet::describe(s, "steady_clock");   // e.g. resolution 2.1e-8, call_cost 2.3e-8
/// @endcode
template <clock C>
clock_info describe(C& c, std::string name) {
    // Resolution: the smallest nonzero difference between back-to-back readings. Back to back,
    // because that is the shortest interval anyone can time with the clock; the minimum, because
    // interrupts and preemption only ever lengthen an interval, so the smallest one seen is the
    // clock's own step (its tick, or, on fine clocks such as the TSC, the time one read takes).
    // A coarse clock gives zero differences until it ticks, and the difference across a tick is
    // exactly one tick, so one nonzero step suffices there; a fine clock needs many readings for
    // the minimum to settle. The cap ends the loop on a clock that never advances (virtual time).
    constexpr std::size_t min_reads = std::size_t{1} << 16;
    constexpr std::size_t max_reads = std::size_t{1} << 22;
    double resolution = 0.0;
    double previous = c.now();
    for (std::size_t reads = 0; reads < max_reads && !(reads >= min_reads && resolution > 0.0); ++reads) {
        const double current = c.now();
        const double step = current - previous;
        if (step > 0.0 && (resolution == 0.0 || step < resolution)) resolution = step;
        previous = current;
    }
    if (resolution == 0.0) return {std::move(name), 0.0, 0.0};

    // Call cost: the mean time per call over runs of back-to-back calls, timed by the clock
    // itself. The mean, not the minimum of pairs, because the cost of a reading is what every
    // measurement pays on average. Each run spans at least 1000 resolution steps, because its
    // two end readings are each off by up to one step: that quantisation stays below 0.2%.
    // Every call in a run is counted, including the ones that check the elapsed time, so the
    // loop needs no separate timer. Many short runs (≥ 200 µs; 51, or about 1 s in all on a
    // coarse clock) and their median rather than one long run, because on a shared machine a
    // preemption or interrupt lands in a long run every time and adds its length to the mean,
    // while most short runs miss them. Runs are capped at 100 ms so that a 10 ms clock still
    // finishes (at 10% precision), and in calls, against clocks that barely advance.
    const double span = std::clamp(1000.0 * resolution, 200e-6, 0.1);
    const auto runs = static_cast<std::size_t>(std::clamp(1.0 / span, 3.0, 51.0));
    constexpr std::size_t max_calls = std::size_t{1} << 24;
    std::vector<double> per_call;
    for (std::size_t run = 0; run < runs; ++run) {
        const double start = c.now();
        double last = start;
        std::size_t calls = 0;
        while (calls < max_calls) {
            last = c.now();
            ++calls;
            if (last - start >= span) break;
        }
        per_call.push_back((last - start) / static_cast<double>(calls));
    }
    const auto middle = per_call.begin() + static_cast<std::ptrdiff_t>(per_call.size() / 2);
    std::nth_element(per_call.begin(), middle, per_call.end());
    return {std::move(name), resolution, *middle};
}

}  // namespace comet
