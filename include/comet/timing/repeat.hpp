// comet/timing/repeat.hpp — the CoMet repeat loop (CoMet thesis, section 3.1.3 "Clock
// resolution"), and `time_once` for single-shot timings.
//
// The thesis: clocks are often far coarser than the few microseconds a message start-up takes,
// so the code to be timed runs `max_times` times inside a loop and the whole loop is timed. Each
// iteration also calls an external dummy function with the loop index, so that no optimising
// compiler can remove or fold the loop. The same loop is then timed again without the code, and
// that time (loop control plus dummy calls) is subtracted to leave the true time of the code.
//
// Deliberately not here: statistics over several repeats (stats/), and synchronised
// multi-rank measurement windows (window scheduler, clock sync), which need a transport.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/timing/clock.hpp>

#include <concepts>
#include <cstddef>
#include <functional>
#include <utility>

// GCC's noipa keeps a function out of every interprocedural optimisation: no inlining, and no
// clone specialised for a constant argument (-fipa-cp) or merged with an identical function.
// Clang has no such attribute; noinline is the nearest.
#if defined(__GNUC__) && !defined(__clang__)
#define COMET_DETAIL_NOIPA [[gnu::noipa]]
#else
#define COMET_DETAIL_NOIPA [[gnu::noinline]]
#endif

namespace comet {

namespace detail {

/// The body of the default dummy function. The empty asm takes the index as an input and
/// clobbers memory, so the compiler must materialise the index and assume any memory may have
/// been read or written: nothing the timed code stores can be sunk out of the loop.
COMET_DETAIL_NOIPA inline void repeat_dummy_impl(std::size_t index) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    asm volatile("" : : "r"(index) : "memory");
#else
    static volatile std::size_t sink;
    sink = index;
#endif
}

}  // namespace detail

/// The "external dummy function" every iteration of the repeat loop calls with its index.
/// A header-only library has no separate translation unit to hide a function in, so the call
/// goes through a `volatile` function pointer: the compiler must load the pointer afresh on
/// every iteration and cannot know where it points, so it can neither inline the call nor
/// prove the loop has no effect — at any optimisation level, with or without LTO. Programs may
/// point it at their own function (it must not throw) before any thread starts timing; both
/// loops of `repeat` call it. Every thread only reads it, so ranks on threads share it safely.
inline void (*volatile repeat_dummy)(std::size_t) noexcept = &detail::repeat_dummy_impl;

/// What one `repeat` measured, in seconds of the clock it was given.
struct repeat_result {
    double per_iteration = 0.0;  ///< (loop_seconds − empty_seconds) / iterations: the body's time
    double loop_seconds = 0.0;   ///< the loop with the body and the dummy call
    double empty_seconds = 0.0;  ///< the same loop with only the dummy call
    std::size_t iterations = 0;
};

namespace detail {

/// A body that does nothing: what the empty loop runs in place of the user's body.
struct repeat_no_body {
    void operator()(std::size_t) const noexcept {}
};

/// Calls `body` with the index if it takes one, else without arguments.
template <class Body>
void repeat_invoke(Body& body, std::size_t index) {
    if constexpr (std::invocable<Body&, std::size_t>)
        std::invoke(body, index);
    else
        std::invoke(body);
}

/// The loop both timings run. One template for both, so the empty loop has exactly the shape
/// of the measured one (same counter type, same dummy call, same code around the body) and
/// differs only in the body; that holds at -O0 too, where the empty body is a real call just as
/// the user's is. Not inlined into `repeat`, so the compiler cannot interleave the loop with the
/// clock readings around it; and not specialised for a constant iteration count, which GCC
/// otherwise does for one instantiation and not the other, giving the two loops different code.
template <class Body>
COMET_DETAIL_NOIPA void repeat_loop(std::size_t iterations, Body& body) {
    for (std::size_t i = 0; i < iterations; ++i) {
        repeat_invoke(body, i);
        repeat_dummy(i);
    }
}

}  // namespace detail

/// The CoMet repeat loop: times `iterations` runs of `body` (each followed by a call to the
/// dummy function with the loop index), times the same loop with an empty body, and returns the
/// difference per iteration. `body` is called with the index (`std::size_t`) if it accepts one,
/// else with no arguments; indices run 0, 1, ..., iterations − 1, in order.
///
/// The result is not clamped: when the body costs less than the clock's noise, `per_iteration`
/// may come out slightly negative. Clamping would bias every mean of such results upwards.
/// @throws invalid_argument when `iterations` is 0.
/// @code
///   comet::steady_clock_source clock;
///   auto r = comet::repeat(clock, 1000, [&](std::size_t i) { ops::send(t, 1, 7, comet::bytes_of(buf)); });
///   double seconds_per_send = r.per_iteration;
/// @endcode
template <clock C, class Body>
    requires std::invocable<Body&, std::size_t> || std::invocable<Body&>
repeat_result repeat(C& clock, std::size_t iterations, Body&& body) {
    if (iterations == 0) raise<invalid_argument>(-1, "repeat: iterations must be at least 1, got ", iterations);

    // The body loop first, then the empty loop. The first iterations of the body loop pay for a
    // cold start (instruction cache, branch predictors, the first call through the dummy
    // pointer); that cost belongs to the measurement, and 1000 iterations amortise it. Timed
    // afterwards, the empty loop runs warm, so it measures the same steady-state overhead that
    // each body iteration carried. Timed first, it would carry the cold start itself, and
    // subtracting it would make the body look cheaper than it is (an empty body negative).
    const double body_start = clock.now();
    detail::repeat_loop(iterations, body);
    const double body_end = clock.now();

    // Without this subtraction the result would include the loop control and the dummy call
    // (a few nanoseconds per iteration): negligible for a message round trip on the iPSC/860,
    // but the whole answer for the cheap operations this loop is meant to resolve. Both
    // intervals also contain one clock reading's cost, which the subtraction cancels as well.
    detail::repeat_no_body no_body;
    const double empty_start = clock.now();
    detail::repeat_loop(iterations, no_body);
    const double empty_end = clock.now();

    repeat_result r;
    r.loop_seconds = body_end - body_start;
    r.empty_seconds = empty_end - empty_start;
    r.iterations = iterations;
    r.per_iteration = (r.loop_seconds - r.empty_seconds) / static_cast<double>(iterations);
    return r;
}

/// Times one run of `body` (called with no arguments): the difference between a clock reading
/// before and one after. For operations too long, or too stateful, to repeat; the result
/// includes one clock reading's cost (see `describe`) and is only as fine as the clock.
/// @code
///   double seconds = comet::time_once(clock, [&] { ops::barrier(t); });
/// @endcode
template <clock C, class Body>
    requires std::invocable<Body&>
double time_once(C& clock, Body&& body) {
    const double start = clock.now();
    std::invoke(body);
    const double end = clock.now();
    return end - start;
}

}  // namespace comet

#undef COMET_DETAIL_NOIPA
