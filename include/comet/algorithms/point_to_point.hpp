// comet/algorithms/point_to_point.hpp — the blocking point-to-point operations every portable
// algorithm is written with, built from the Transport concept's core (isend, irecv, test).
//
// These are the portable halves of `comet::ops::send`, `recv`, `wait` and `wait_all`. They
// take the transport's own blocking member when it has one, because a portable collective on
// a transport with a native `wait` should block the way that transport blocks (the threads
// transport sleeps after a short spin; the simulator parks a fiber) rather than spin on
// `test`. The dispatch a user sees, and the `implementation` it reports, is in comet/ops/.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/types.hpp>

#include <concepts>
#include <cstddef>
#include <optional>
#include <span>
#include <thread>

namespace comet::algorithms {

/// Whether `T` has a blocking member of its own, with the signature the functions below call
/// it by: what `comet::ops` reports as native is exactly what runs (a `wait` that returns
/// something else is not called, and the polling loop runs, so it is not native either).
template <class T>
concept has_native_send = requires(T& t, const_bytes b) { t.send(0, 0, b); };
template <class T>
concept has_native_recv = requires(T& t, mutable_bytes b) {
    { t.recv(0, 0, b) } -> std::same_as<status>;
};
template <class T>
concept has_native_wait = requires(T& t, typename T::request& r) {
    { t.wait(r) } -> std::same_as<status>;
};
template <class T>
concept has_native_wait_all = requires(T& t, std::span<typename T::request> rs) { t.wait_all(rs); };

/// Completes `r` by polling `t.test(r)`. Yields the thread now and then, so that a portable
/// transport whose ranks are threads still progresses when there are more ranks than cores.
template <transport T>
status poll_until_complete(T& t, typename T::request& r) {
    for (unsigned polls = 1;; ++polls) {
        if (std::optional<status> s = t.test(r)) return *s;
        if (polls % 64 == 0) std::this_thread::yield();
    }
}

/// Waits for `r`: the transport's `wait` if it has one, `test` polled otherwise.
template <transport T>
status wait(T& t, typename T::request& r) {
    if constexpr (has_native_wait<T>)
        return t.wait(r);
    else
        return poll_until_complete(t, r);
}

/// Waits for every request of `rs`, in order (each completes independently of the others).
template <transport T>
void wait_all(T& t, std::span<typename T::request> rs) {
    if constexpr (has_native_wait_all<T>)
        t.wait_all(rs);
    else
        for (auto& r : rs) wait(t, r);
}

/// A blocking send with MPI standard-send semantics: `isend` then wait.
template <transport T>
void send(T& t, int dest, int tag, const_bytes data) {
    if constexpr (has_native_send<T>) {
        t.send(dest, tag, data);
    } else {
        typename T::request r = t.isend(dest, tag, data);
        wait(t, r);
    }
}

/// A blocking receive: `irecv` then wait.
template <transport T>
status recv(T& t, int source, int tag, mutable_bytes buffer) {
    if constexpr (has_native_recv<T>) {
        return t.recv(source, tag, buffer);
    } else {
        typename T::request r = t.irecv(source, tag, buffer);
        return wait(t, r);
    }
}

/// Sends `out` to `dest` and receives `in` from `source` at once, so two ranks exchanging
/// with each other cannot deadlock whatever the transport's buffering: the receive is posted
/// first, then the send goes out, then both complete.
template <transport T>
status exchange(T& t, int dest, int send_tag, const_bytes out, int source, int recv_tag, mutable_bytes in) {
    typename T::request r = t.irecv(source, recv_tag, in);
    typename T::request s = t.isend(dest, send_tag, out);
    const status got = wait(t, r);
    wait(t, s);
    return got;
}

}  // namespace comet::algorithms
