// comet/ops/process.hpp — what a rank asks of its transport besides messages: `compute(work)`,
// `clock_is_global()` and `abort(message)`. Native when the transport has the member.
//
// Portable meanings: `compute` performs the work on this CPU (comet/core/work.hpp);
// `clock_is_global` is false (nothing says two ranks' clocks agree); `abort` raises
// `comet::aborted` naming the rank, which the transport's runner turns into stopping every
// rank.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/point_to_point.hpp>

#include <cstdint>
#include <string_view>

namespace comet::ops {

/// Performs `w` (or, on a simulated machine, charges its time).
inline constexpr struct compute_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t, const work& w) { t.compute(w); }>();
    }
    template <transport T>
    void operator()(T& t, const work& w) const {
        if constexpr (implementation_for<T>() == implementation::native)
            t.compute(w);
        else
            perform(w);
    }
} compute{};

/// Whether two ranks' `now()` readings can be compared directly.
inline constexpr struct clock_is_global_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(const T& t) { { t.clock_is_global() } -> std::same_as<bool>; }>();
    }
    template <transport T>
    bool operator()(const T& t) const {
        if constexpr (implementation_for<T>() == implementation::native)
            return t.clock_is_global();
        else
            return false;
    }
} clock_is_global{};

/// How often this rank lost its CPU to something else so far (`counts_disturbances`); 0 where
/// the transport does not count (then nothing is ever called disturbed).
inline constexpr struct disturbances_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<counts_disturbances<T>>();
    }
    template <transport T>
    std::uint64_t operator()(T& t) const {
        if constexpr (counts_disturbances<T>)
            return static_cast<std::uint64_t>(t.disturbances());
        else
            return 0;
    }
} disturbances{};

/// Reports the rank and `message` and stops every rank (CoMet's error_exit). Does not return.
inline constexpr struct abort_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t, std::string_view m) { t.abort(m); }>();
    }
    template <transport T>
    [[noreturn]] void operator()(T& t, std::string_view message) const {
        if constexpr (implementation_for<T>() == implementation::native) t.abort(message);
        raise<aborted>(t.rank(), message);
    }
} abort{};

}  // namespace comet::ops
