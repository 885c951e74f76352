// comet/core/concepts.hpp — the Transport concept every kernel is written against, and the
// optional capabilities as refinement concepts.
//
// A transport is ONE rank's endpoint into a group of `size()` ranks. Kernels take it by
// reference: `template <comet::transport T> result_set echo(T& t, const echo_config&)`.
// Nothing in a kernel knows which transport it runs on. To measure your own message layer,
// write a type with these members; `comet/testing/conformance.hpp` checks that it behaves.
//
// Semantics every model must honour (MPI's point-to-point rules, which CoMet's macros and
// NX/2 also satisfy):
//
// Matching. A receive names a source (or `any_source`) and a tag (or `any_tag`); it matches
//   the earliest-sent message from that source with that tag. Messages between one pair of
//   ranks with the same tag are never reordered ("non-overtaking"). Receives posted with
//   `irecv` are matched in the order they were posted; a blocking `recv` counts as posted
//   last. A message larger than the matched receive buffer raises `truncation_error`;
//   a smaller one fills a prefix and `status::size` says how much.
// Buffering. `send` returns once the caller may reuse its buffer. It must not wait for the
//   receiver to post a matching receive forever: two ranks that both `send` to each other
//   and then `recv` (CoMet's pairwise exchange) must complete. (CoMet "assumes buffered
//   message passing semantics"; NX/2 `csend` and an MPI standard send of a message under
//   the eager limit behave so.) A transport whose `send` can deadlock on that pattern is not
//   a model of this concept; offer that behaviour as `ssend` instead.
// Completion. `isend`/`irecv` start an operation and return a request; the buffer belongs to
//   the transport until `wait` or a successful `test` completes it. `wait` on a default-
//   constructed or already completed request returns a default `status` at once.
//   `wait_all` completes every request of the span (in any order).
// Progress. A rank blocked in any operation of the transport lets every other rank's
//   operations progress; an operation of this rank may need this rank to call into the
//   transport again (`test`, `wait`, any blocking call) before it completes.
// Collectives. `barrier`, `broadcast` and `allreduce_sum` are called by every rank, in the
//   same order, with the same root and the same sizes (the @pre of every collective).
//   `broadcast` copies `root`'s bytes into every other rank's buffer of the same size.
//   `allreduce_sum` leaves the element-wise sum over all ranks in every rank's span; the
//   sum is the same on every rank, bit for bit.
// Time. `now()` returns seconds (any epoch, monotonic) from the transport's clock: steady
//   clock, MPI_Wtime, or virtual time. `clock_is_global()` says whether two ranks' readings
//   can be compared directly.
// Computation. `compute(w)` performs the described work (or, on a simulated machine, lets
//   the model charge its time). See `comet/core/work.hpp`.
// Failure. `abort(message)` reports the rank and the message and stops every rank; it does
//   not return. Bad arguments (a rank out of range, a negative tag) raise
//   `invalid_argument` naming the value.
#pragma once

#include <comet/core/types.hpp>
#include <comet/core/work.hpp>

#include <concepts>
#include <optional>
#include <span>
#include <string_view>

namespace comet {

/// One rank's endpoint into a group of ranks that exchange tagged messages.
template <class T>
concept transport = requires(T& t, const T& ct, int peer, int tag, const_bytes out, mutable_bytes in,
                             typename T::request& req, std::span<typename T::request> reqs,
                             std::span<double> values, const work& w, std::string_view message) {
    typename T::request;
    requires std::movable<typename T::request>;
    requires std::default_initializable<typename T::request>;

    { ct.rank() } -> std::same_as<int>;
    { ct.size() } -> std::same_as<int>;

    { t.send(peer, tag, out) } -> std::same_as<void>;
    { t.recv(peer, tag, in) } -> std::same_as<status>;
    { t.isend(peer, tag, out) } -> std::same_as<typename T::request>;
    { t.irecv(peer, tag, in) } -> std::same_as<typename T::request>;
    { t.wait(req) } -> std::same_as<status>;
    { t.test(req) } -> std::same_as<std::optional<status>>;
    { t.wait_all(reqs) } -> std::same_as<void>;
    /// Nonblocking: the status of the earliest matching message that has arrived, if any.
    /// The message stays queued.
    { t.probe(peer, tag) } -> std::same_as<std::optional<status>>;

    { t.barrier() } -> std::same_as<void>;
    { t.broadcast(peer, in) } -> std::same_as<void>;
    { t.allreduce_sum(values) } -> std::same_as<void>;

    { t.now() } -> std::same_as<double>;
    { ct.clock_is_global() } -> std::same_as<bool>;
    { t.compute(w) } -> std::same_as<void>;
    t.abort(message);
};

/// Synchronous send: completes only once the receiver has matched the message (MPI_Ssend,
/// MPI_Issend). Two ranks that both `ssend` first deadlock; that is the point of it.
template <class T>
concept synchronous_send_transport = transport<T> && requires(T& t, int peer, int tag, const_bytes out) {
    { t.ssend(peer, tag, out) } -> std::same_as<void>;
    { t.issend(peer, tag, out) } -> std::same_as<typename T::request>;
};

/// Ready send: the caller promises the matching receive is already posted, which lets the
/// transport skip its handshake (MPI_Rsend, MPI_Irsend). Breaking the promise is an error
/// the transport may or may not detect.
template <class T>
concept ready_send_transport = transport<T> && requires(T& t, int peer, int tag, const_bytes out) {
    { t.rsend(peer, tag, out) } -> std::same_as<void>;
    { t.irsend(peer, tag, out) } -> std::same_as<typename T::request>;
};

/// Buffered send: always copies the message and returns at once (MPI_Bsend).
template <class T>
concept buffered_send_transport = transport<T> && requires(T& t, int peer, int tag, const_bytes out) {
    { t.bsend(peer, tag, out) } -> std::same_as<void>;
};

/// Combined send and receive that cannot deadlock against a matching sendrecv (MPI_Sendrecv).
template <class T>
concept sendrecv_transport =
    transport<T> && requires(T& t, int dest, int send_tag, const_bytes out, int source, int recv_tag, mutable_bytes in) {
        { t.sendrecv(dest, send_tag, out, source, recv_tag, in) } -> std::same_as<status>;
    };

/// Nonblocking collectives (MPI-3 MPI_Ibarrier, MPI_Ibcast, MPI_Iallreduce): same contracts
/// as the blocking ones, completed through the returned request.
template <class T>
concept nonblocking_collective_transport =
    transport<T> && requires(T& t, int root, mutable_bytes in, std::span<double> values) {
        { t.ibarrier() } -> std::same_as<typename T::request>;
        { t.ibroadcast(root, in) } -> std::same_as<typename T::request>;
        { t.iallreduce_sum(values) } -> std::same_as<typename T::request>;
    };

/// Explicit progress: lets outstanding nonblocking operations advance without completing
/// any request (what a test call in a computation loop does, without a request to test).
template <class T>
concept progress_transport = transport<T> && requires(T& t) {
    { t.progress() } -> std::same_as<void>;
};

/// Which optional capabilities a transport type offers, for reports ("not supported").
struct capabilities {
    bool synchronous_send = false;
    bool ready_send = false;
    bool buffered_send = false;
    bool sendrecv = false;
    bool nonblocking_collectives = false;
    bool progress = false;
};

template <transport T>
constexpr capabilities capabilities_of() noexcept {
    return {synchronous_send_transport<T>, ready_send_transport<T>, buffered_send_transport<T>,
            sendrecv_transport<T>,         nonblocking_collective_transport<T>, progress_transport<T>};
}

}  // namespace comet
