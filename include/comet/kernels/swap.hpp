// comet/kernels/swap.hpp — how a kernel in which two ranks both send first (pairwise exchange,
// the synchronous overlap mode, the matrix shift and transpose) sends, on any transport.
//
// CoMet's thesis writes these as send-then-receive on both sides and "assumes buffered message
// passing semantics". comet keeps that form exactly where the transport promises it — a
// `buffering_transport` (NX/2's csend on the simulator, the threads transport) — and
// elsewhere uses a form that cannot deadlock on any conforming transport: the transport's own
// `sendrecv` (MPI_Sendrecv), or isend + recv + wait. The record of every such kernel carries
// the form that ran as the param `form`, because the three are different measurements: on MPI
// a pairwise exchange by MPI_Sendrecv is what an application's halo swap costs, not a
// send-then-receive that MPI could not complete above its eager size.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/types.hpp>
#include <comet/ops/ops.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace comet::kernels {

enum class swap_form : unsigned char {
    send_recv,        ///< the thesis' form: a buffered send, then the receive
    sendrecv,         ///< the transport's combined send-receive
    isend_recv_wait,  ///< a nonblocking send, the receive, then the send's completion
};

constexpr std::string_view to_string(swap_form f) noexcept {
    return f == swap_form::send_recv ? "send_recv" : f == swap_form::sendrecv ? "sendrecv" : "isend_recv_wait";
}

/// The form a swap takes on transport type `T`.
template <transport T>
constexpr swap_form swap_form_of() noexcept {
    if constexpr (buffering_transport<T>)
        return swap_form::send_recv;
    else if constexpr (sendrecv_transport<T>)
        return swap_form::sendrecv;
    else
        return swap_form::isend_recv_wait;
}

/// Whether the form of `T` needs separate send and receive buffers (a nonblocking or combined
/// send may still read its buffer while the receive writes).
template <transport T>
constexpr bool swap_needs_two_buffers() noexcept {
    return swap_form_of<T>() != swap_form::send_recv;
}

/// Sends `out` to `dest` and receives `in` from `source`, both with `tag`, in the form of `T`.
/// With the thesis' form `out` and `in` may be the same bytes; otherwise they must not overlap.
template <transport T>
status swap(T& t, int dest, const_bytes out, int source, mutable_bytes in, int tag) {
    if constexpr (swap_form_of<T>() == swap_form::send_recv) {
        t.bsend(dest, tag, out);
        return ops::recv(t, source, tag, in);
    } else if constexpr (swap_form_of<T>() == swap_form::sendrecv) {
        return t.sendrecv(dest, tag, out, source, tag, in);
    } else {
        typename T::request r = t.isend(dest, tag, out);
        const status s = ops::recv(t, source, tag, in);
        ops::wait(t, r);
        return s;
    }
}

namespace detail {

/// Sends `block` to `dest` and receives the same number of bytes from `source` into it (the
/// matrix shift and transpose). In the thesis' form the one buffer serves both; in the others
/// the outgoing bytes are first copied aside, as MPI_Sendrecv_replace does, and that copy is
/// part of the measured time (the record's `form` says so).
template <transport T>
void swap_in_place(T& t, int dest, int source, mutable_bytes block, int tag) {
    if constexpr (!swap_needs_two_buffers<T>()) {
        swap(t, dest, block, source, block, tag);
    } else {
        // A vector of the call's own: on the simulator's fibers a shared one would be rewritten
        // by another rank while this rank's send still reads it.
        const std::vector<std::byte> outgoing(block.begin(), block.end());
        swap(t, dest, const_bytes(outgoing), source, block, tag);
    }
}

}  // namespace detail

}  // namespace comet::kernels
