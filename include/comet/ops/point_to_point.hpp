// comet/ops/point_to_point.hpp — blocking point-to-point operations and completion: `send`,
// `recv`, `wait`, `wait_all`. Native when the transport has the member, else built from its
// isend/irecv/test core (comet/algorithms/point_to_point.hpp).
//
// `send` has MPI standard-send semantics: it may wait for the matching receive. Code in which
// two ranks both send first must use `bsend` (only on a `buffered_send_transport`) or
// `algorithms::exchange` / a transport's `sendrecv`.
#pragma once

#include <comet/algorithms/point_to_point.hpp>
#include <comet/core/concepts.hpp>
#include <comet/core/types.hpp>
#include <comet/ops/implementation.hpp>

#include <span>

namespace comet::ops {

namespace detail {
template <bool Native>
constexpr implementation choose() noexcept {
    return Native ? implementation::native : implementation::portable;
}
}  // namespace detail

/// Blocking send: returns once `data` may be reused (it may wait for the matching receive).
inline constexpr struct send_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<algorithms::has_native_send<T>>();
    }
    template <transport T>
    void operator()(T& t, int dest, int tag, const_bytes data) const {
        algorithms::send(t, dest, tag, data);
    }
} send{};

/// Blocking receive into `buffer`; returns the message's status.
inline constexpr struct recv_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<algorithms::has_native_recv<T>>();
    }
    template <transport T>
    status operator()(T& t, int source, int tag, mutable_bytes buffer) const {
        return algorithms::recv(t, source, tag, buffer);
    }
} recv{};

/// Completes a request; a default-constructed or completed one returns a default status.
inline constexpr struct wait_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<algorithms::has_native_wait<T>>();
    }
    template <transport T>
    status operator()(T& t, typename T::request& r) const {
        return algorithms::wait(t, r);
    }
} wait{};

/// Completes every request of `rs`.
inline constexpr struct wait_all_fn {
    template <class T>
    static constexpr implementation implementation_for() noexcept {
        return detail::choose<algorithms::has_native_wait_all<T>>();
    }
    template <transport T>
    void operator()(T& t, std::span<typename T::request> rs) const {
        algorithms::wait_all(t, rs);
    }
} wait_all{};

}  // namespace comet::ops
