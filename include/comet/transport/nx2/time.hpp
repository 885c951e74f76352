// comet/transport/nx2/time.hpp — virtual time of the simulated iPSC/860: an integer count of
// picoseconds, its units, and the conversions the model needs (bytes over a channel of a given
// rate, seconds for `now()` and `work::busy`).
//
// Why integers: the simulator must give the same virtual times bit for bit on every host and
// every run (SPEC 2; STYLE: "floating-point simulated time" is to be avoided). Sums of doubles
// depend on the order of addition; sums of integers do not.
// Why picoseconds: the iPSC/860's channel moves a byte in 1/2.8 MB/s = 357142.857 ps. In whole
// nanoseconds that would be off by 0.04% per byte; in picoseconds by 2.4e-6. An int64 of
// picoseconds still spans 106 days of virtual time.
//
// Deliberately not here: the event queue (events.hpp) and the machine's parameters (machine.hpp).
#pragma once

#include <comet/core/errors.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace comet::nx2 {

/// A point in (or a span of) virtual time, in picoseconds.
using vtime = std::int64_t;

inline constexpr vtime picoseconds = 1;
inline constexpr vtime nanoseconds = 1'000;
inline constexpr vtime microseconds = 1'000'000;
inline constexpr vtime milliseconds = 1'000'000'000;
inline constexpr vtime seconds = 1'000'000'000'000;

/// Virtual time in seconds, as `now()` reports it (NX/2's `dclock()` returned double seconds).
/// A division by the exact power of ten, so the same vtime always gives the same double.
constexpr double to_seconds(vtime t) noexcept { return static_cast<double>(t) / 1e12; }

/// Seconds (a `work::busy` duration) rounded to the nearest picosecond; negative and NaN give 0
/// (`comet::perform` also treats a negative duration as none).
/// @throws invalid_argument for a duration beyond the 106 days a vtime spans.
inline vtime from_seconds(double s) {
    if (!(s > 0.0)) return 0;
    if (s >= 9.2e6) raise<invalid_argument>(-1, "nx2: a duration of ", s, " s does not fit the simulator's clock");
    return static_cast<vtime>(std::llround(s * 1e12));
}

namespace detail {
/// 128-bit products keep `bytes x 10^12` exact (GCC and Clang have the type; __extension__
/// tells -Wpedantic that it is used on purpose).
__extension__ using u128 = unsigned __int128;
}  // namespace detail

/// The time `bytes` take through something moving `bytes_per_second`, rounded UP to the next
/// picosecond (a transfer is never shorter than its bytes allow). Exact integer arithmetic;
/// saturates at the largest vtime.
/// @pre bytes_per_second > 0
constexpr vtime transfer_time(std::uint64_t bytes, std::int64_t bytes_per_second) noexcept {
    // Up to 18 MB the product fits 64 bits, and a 64-bit division is several times cheaper than
    // the 128-bit one (a library call): it runs for every transmission.
    if (bytes <= std::numeric_limits<std::uint64_t>::max() / 1'000'000'000'000u) {
        const std::uint64_t num = bytes * 1'000'000'000'000u, rate = static_cast<std::uint64_t>(bytes_per_second);
        const std::uint64_t t = num / rate + (num % rate != 0 ? 1 : 0);
        return t > static_cast<std::uint64_t>(std::numeric_limits<vtime>::max()) ? std::numeric_limits<vtime>::max() : static_cast<vtime>(t);
    }
    const detail::u128 num = static_cast<detail::u128>(bytes) * 1'000'000'000'000u;
    const auto rate = static_cast<detail::u128>(bytes_per_second);
    const detail::u128 t = (num + rate - 1) / rate;
    constexpr auto top = static_cast<detail::u128>(std::numeric_limits<vtime>::max());
    return t > top ? std::numeric_limits<vtime>::max() : static_cast<vtime>(t);
}

/// `cost` per item times `count` items, saturating at the largest vtime instead of wrapping.
constexpr vtime times(vtime cost, std::uint64_t count) noexcept {
    const detail::u128 p = static_cast<detail::u128>(cost < 0 ? 0 : cost) * count;
    constexpr auto top = static_cast<detail::u128>(std::numeric_limits<vtime>::max());
    return p > top ? std::numeric_limits<vtime>::max() : static_cast<vtime>(p);
}

}  // namespace comet::nx2
