// comet/timing/delay.hpp — `calibrated_spin`, a busy delay of a known length that reads no
// clock while it runs.
//
// It exists to check measurement code against a known answer: the repeat loop should read a
// 100 ns spin as 100 ns (SPEC section 11, "a known delay at its value"). It is also a cheap
// stand-in for computation of a chosen length.
//
// Deliberately not here: `work_kind::busy` (core/work.hpp) waits on the steady clock until a
// deadline, which is right for long waits but costs a clock reading or more per call — tens of
// nanoseconds, too much for a delay of 100 ns that must itself be measured.
#pragma once

#include <comet/core/errors.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace comet {

namespace detail {

/// LFENCE on x86-64 (see `spin_steps`); nothing elsewhere.
inline void spin_fence() noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    asm volatile("lfence" : : : "memory");
#endif
}

/// Runs `steps` links of a dependent chain of integer multiply-adds (a 64-bit LCG step: about
/// four cycles of latency each, whatever the core's width, because each needs the last one's
/// result). The empty asm makes the value opaque after every step, so the compiler can neither
/// compute the chain in closed form, vectorise it, nor drop it; it costs no instruction. No
/// memory is touched, so the delay does not depend on caches (or on sanitiser instrumentation).
///
/// On x86-64 the chain is fenced at both ends (LFENCE: nothing later starts executing until
/// everything before has finished). Without the fences an out-of-order core runs the next
/// call's chain, or the caller's surrounding code, in parallel with the tail of this one — a
/// reorder buffer holds dozens of steps — so back-to-back calls would take less than one call
/// alone, and the cost of code around the spin would hide under it. Fenced, a call is a delay:
/// it takes the same time wherever it is called. (Elsewhere the chain is unfenced.)
inline void spin_steps(std::size_t steps) noexcept {
    spin_fence();
    std::uint64_t x = 0x9e3779b97f4a7c15u;
    for (std::size_t i = 0; i < steps; ++i) {
        x = x * 6364136223846793005u + 1442695040888963407u;
#if defined(__GNUC__) || defined(__clang__)
        asm volatile("" : "+r"(x));
#else
        static volatile std::uint64_t opaque;
        opaque = x;
        x = opaque;
#endif
    }
#if defined(__GNUC__) || defined(__clang__)
    asm volatile("" : : "r"(x));
#endif
    spin_fence();
}

/// Seconds of steady-clock time that `fn` takes.
template <class Fn>
double steady_seconds(Fn&& fn) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double median_of(std::vector<double> values) {
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

}  // namespace detail

/// A busy delay calibrated so that one call takes `seconds`. Construction calibrates (about
/// `calibration` of wall time); calls then run a fixed number of steps and read no clock.
/// The delay holds on the machine, and at the core speed, it was calibrated on: calibrate
/// right before measuring. Delays shorter than the fixed cost of a call (about 10 ns: the two
/// fences and the loop's entry and exit) cannot be produced: such a spin runs 0 steps.
/// @code
///   comet::calibrated_spin spin(100e-9);                  // 100 ns
///   auto r = comet::repeat(clock, 1000, [&] { spin(); });  // r.per_iteration ≈ 1e-7
/// @endcode
class calibrated_spin {
public:
    /// @throws invalid_argument when `seconds` is negative, not finite, or absurdly long
    /// (over a day), or when `calibration` is not positive.
    explicit calibrated_spin(double seconds, std::chrono::milliseconds calibration = std::chrono::milliseconds(50))
        : seconds_(seconds) {
        if (!std::isfinite(seconds) || seconds < 0.0 || seconds > 86400.0)
            raise<invalid_argument>(-1, "calibrated_spin: delay must be between 0 and 86400 seconds, got ", seconds);
        if (calibration <= std::chrono::milliseconds::zero())
            raise<invalid_argument>(-1, "calibrated_spin: calibration must be positive, got ", calibration.count(),
                                    " ms");
        calibrate(std::chrono::duration<double>(calibration).count());
    }

    /// Spins for the calibrated time.
    void operator()() const noexcept { detail::spin_steps(steps_); }

    /// The delay asked for, in seconds.
    double seconds() const noexcept { return seconds_; }

    /// The number of chain steps one call runs.
    std::size_t steps() const noexcept { return steps_; }

private:
    // A call of n steps takes about a + b·n seconds: b is the latency of one step, a the fixed
    // cost of a call (the two fences, entering and leaving the loop, the mispredicted branch at
    // its end: about 8 ns on a 2 GHz EPYC). Calibrating b alone would leave every short delay
    // that much too long, 8% at 100 ns; so b is measured first, then a at the step count b
    // suggests, and the count corrected.
    //
    // Both are medians over many short chunks of about 100 µs. Short, because on a shared or
    // virtual machine interruptions of tens of µs arrive about every millisecond: every chunk
    // of a few ms is hit, and the median of such chunks ran 5% slow on a 2-core VM, where with
    // 100 µs chunks most are clean. Not shorter, so that the two steady-clock readings around a
    // chunk (≤ 0.1 µs of resolution and call cost) stay below 0.1% of it. The median, not the
    // minimum, because the minimum would pick a lucky moment (a turbo burst) that later calls
    // won't see.
    void calibrate(double budget) {
        constexpr double chunk = 100e-6;

        // Warm up: bring the core out of any idle state and the code into the caches before
        // anything is timed.
        detail::steady_seconds([] { detail::spin_steps(std::size_t{1} << 16); });

        std::size_t chunk_steps = 64;
        while (detail::steady_seconds([&] { detail::spin_steps(chunk_steps); }) < chunk) chunk_steps *= 2;

        // b, over half the budget (and at least 25 chunks).
        std::vector<double> per_step;
        double spent = 0.0;
        while (spent < budget / 2.0 || per_step.size() < 25) {
            const double s = detail::steady_seconds([&] { detail::spin_steps(chunk_steps); });
            per_step.push_back(s / static_cast<double>(chunk_steps));
            spent += s;
        }
        const double b = detail::median_of(std::move(per_step));
        const double estimate = seconds_ / b;
        steps_ = static_cast<std::size_t>(std::llround(estimate));

        // a, over the other half, from back-to-back calls. Only worth measuring where it
        // matters: in a spin longer than a chunk a few ns are below a part in 10^4.
        if (estimate >= static_cast<double>(chunk_steps)) return;
        const std::size_t calls = std::max<std::size_t>(1, chunk_steps / std::max<std::size_t>(steps_, 1));
        std::vector<double> per_call;
        spent = 0.0;
        while (spent < budget / 2.0 || per_call.size() < 25) {
            const double s = detail::steady_seconds([&] {
                for (std::size_t i = 0; i < calls; ++i) (*this)();
            });
            per_call.push_back(s / static_cast<double>(calls));
            spent += s;
        }
        const double a = detail::median_of(std::move(per_call)) - b * static_cast<double>(steps_);
        steps_ = static_cast<std::size_t>(std::llround(std::max(0.0, (seconds_ - a) / b)));
    }

    double seconds_ = 0.0;
    std::size_t steps_ = 0;
};

}  // namespace comet
