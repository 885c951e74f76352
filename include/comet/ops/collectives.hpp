// comet/ops/collectives.hpp — barrier, broadcast, the allreduces, the reductions to a root,
// gather and alltoall: the transport's own member when it has one, the portable algorithm of
// comet/algorithms/collectives.hpp otherwise. Each returns which one ran.
//
// A member counts as native when it takes the operation's arguments without the transport:
// `t.reduce_sum(root, values)`, `t.gather(root, mine, all)`, `t.alltoall(out, in)`, ...
// (core/concepts.hpp lists them); a member of the same name taking anything else is not used.
//
// @pre for all of them: every rank of the group calls them in the same order, with the same
// root and the same sizes.
#pragma once

#include <comet/algorithms/collectives.hpp>
#include <comet/core/concepts.hpp>
#include <comet/core/types.hpp>
#include <comet/ops/point_to_point.hpp>

#include <algorithm>
#include <span>

namespace comet::ops {

/// Returns once every rank has entered the barrier.
inline constexpr struct barrier_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t) { t.barrier(); }>();
    }
    template <transport T>
    implementation operator()(T& t) const {
        if constexpr (implementation_for<T>() == implementation::native)
            t.barrier();
        else
            algorithms::barrier(t);
        return implementation_for<T>();
    }
} barrier{};

/// Copies `root`'s bytes into every other rank's buffer of the same size.
inline constexpr struct broadcast_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t, mutable_bytes b) { t.broadcast(0, b); }>();
    }
    template <transport T>
    implementation operator()(T& t, int root, mutable_bytes data) const {
        if constexpr (implementation_for<T>() == implementation::native)
            t.broadcast(root, data);
        else
            algorithms::broadcast(t, root, data);
        return implementation_for<T>();
    }
} broadcast{};

/// Leaves the element-wise sum over all ranks in every rank's `values`, the same bits on
/// every rank.
inline constexpr struct allreduce_sum_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t, std::span<double> v) { t.allreduce_sum(v); }>();
    }
    template <transport T>
    implementation operator()(T& t, std::span<double> values) const {
        if constexpr (implementation_for<T>() == implementation::native)
            t.allreduce_sum(values);
        else
            algorithms::allreduce(t, values, [](double a, double b) { return a + b; });
        return implementation_for<T>();
    }
} allreduce_sum{};

/// Leaves the element-wise maximum over all ranks in every rank's `values`.
inline constexpr struct allreduce_max_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t, std::span<double> v) { t.allreduce_max(v); }>();
    }
    template <transport T>
    implementation operator()(T& t, std::span<double> values) const {
        if constexpr (implementation_for<T>() == implementation::native)
            t.allreduce_max(values);
        else
            algorithms::allreduce(t, values, [](double a, double b) { return std::max(a, b); });
        return implementation_for<T>();
    }
} allreduce_max{};

/// Leaves the element-wise minimum over all ranks in every rank's `values`.
inline constexpr struct allreduce_min_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t, std::span<double> v) { t.allreduce_min(v); }>();
    }
    template <transport T>
    implementation operator()(T& t, std::span<double> values) const {
        if constexpr (implementation_for<T>() == implementation::native)
            t.allreduce_min(values);
        else
            algorithms::allreduce(t, values, [](double a, double b) { return std::min(a, b); });
        return implementation_for<T>();
    }
} allreduce_min{};

/// Leaves the element-wise sum over all ranks in `root`'s `values`; the other ranks' values
/// are left as they were. The portable tree adds in a fixed order (algorithms::reduce), so the
/// same inputs give the same bits on every run; a native reduction's order is the transport's.
inline constexpr struct reduce_sum_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t, std::span<double> v) { t.reduce_sum(0, v); }>();
    }
    template <transport T>
    implementation operator()(T& t, int root, std::span<double> values) const {
        if constexpr (implementation_for<T>() == implementation::native)
            t.reduce_sum(root, values);
        else
            algorithms::reduce(t, root, values, [](double a, double b) { return a + b; });
        return implementation_for<T>();
    }
} reduce_sum{};

/// Leaves the element-wise maximum over all ranks in `root`'s `values`; the other ranks'
/// values are left as they were.
inline constexpr struct reduce_max_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t, std::span<double> v) { t.reduce_max(0, v); }>();
    }
    template <transport T>
    implementation operator()(T& t, int root, std::span<double> values) const {
        if constexpr (implementation_for<T>() == implementation::native)
            t.reduce_max(root, values);
        else
            algorithms::reduce(t, root, values, [](double a, double b) { return std::max(a, b); });
        return implementation_for<T>();
    }
} reduce_max{};

/// Leaves the element-wise minimum over all ranks in `root`'s `values`; the other ranks'
/// values are left as they were.
inline constexpr struct reduce_min_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t, std::span<double> v) { t.reduce_min(0, v); }>();
    }
    template <transport T>
    implementation operator()(T& t, int root, std::span<double> values) const {
        if constexpr (implementation_for<T>() == implementation::native)
            t.reduce_min(root, values);
        else
            algorithms::reduce(t, root, values, [](double a, double b) { return std::min(a, b); });
        return implementation_for<T>();
    }
} reduce_min{};

/// Gathers every rank's `mine` into `all` on `root` (any rank), in rank order (`all`: size() *
/// mine.size() bytes on the root, unused elsewhere).
inline constexpr struct gather_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t, const_bytes in, mutable_bytes out) { t.gather(0, in, out); }>();
    }
    template <transport T>
    implementation operator()(T& t, int root, const_bytes mine, mutable_bytes all) const {
        if constexpr (implementation_for<T>() == implementation::native)
            t.gather(root, mine, all);
        else
            algorithms::gather(t, root, mine, all);
        return implementation_for<T>();
    }
} gather{};

/// Sends block r of `out` to rank r and receives rank r's block for this rank into block r of
/// `in`, for every r (this rank's own block is copied): `out` and `in` both hold size()
/// blocks of out.size() / size() bytes.
inline constexpr struct alltoall_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<requires(T& t, const_bytes out, mutable_bytes in) { t.alltoall(out, in); }>();
    }
    template <transport T>
    implementation operator()(T& t, const_bytes out, mutable_bytes in) const {
        if constexpr (implementation_for<T>() == implementation::native)
            t.alltoall(out, in);
        else
            algorithms::alltoall(t, out, in);
        return implementation_for<T>();
    }
} alltoall{};

}  // namespace comet::ops
