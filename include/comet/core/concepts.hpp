// comet/core/concepts.hpp — the Transport concept every kernel is written against, and the
// optional capabilities as refinement concepts.
//
// A transport is ONE rank's endpoint into a group of `size()` ranks. Kernels take it by
// reference: `template <comet::transport T> result_set echo(T& t, const echo_config&)`.
// Nothing in a kernel knows which transport it runs on. The required core is point-to-point
// only, eight members a third party writes in an afternoon:
//
//   using request = ...;                         movable, default-constructible
//   int rank() const;  int size() const;
//   request isend(int dest, int tag, const_bytes);
//   request irecv(int source_or_any, int tag_or_any, mutable_bytes);
//   std::optional<status> test(request&);
//   std::optional<status> iprobe(int source_or_any, int tag_or_any);
//   double now();
//
// Everything else a kernel calls (blocking send/recv, wait, wait_all, barrier, broadcast,
// the reductions, gather, alltoall, compute, clock_is_global, abort) is an operation in
// `comet/ops/`: the transport's own member when it has one (`native`), a portable algorithm
// over this core otherwise (`portable`). `comet/testing/conformance.hpp` checks that a type
// behaves, a check per rule below (docs/conformance.md lists them);
// `comet/transport/adaptor.hpp` is the base a decorator derives from.
//
// Semantics every model must honour (MPI's point-to-point rules, which CoMet's macros and
// NX/2 also satisfy):
//
// Matching. A receive names a source (or `any_source`) and a tag (or `any_tag`); it matches
//   the earliest-sent message from that source with that tag (with `any_source`, that of
//   whichever source it takes: the order between sources is not defined, as in MPI). Every
//   tag in 0..max_tag is distinct: none aliases another. Messages between one pair of
//   ranks with the same tag are never reordered ("non-overtaking"). Receives posted with
//   `irecv` are matched in the order they were posted. A message larger than the matched
//   receive buffer raises `truncation_error` (from the `test` that completes it); a smaller
//   one fills a prefix and `status::size` says how much.
// Completion. `isend`/`irecv` start an operation and return a request; the buffer belongs to
//   the transport until a successful `test` (or `wait`) completes it. `test` never blocks: on
//   an incomplete operation it returns nothing at once. A completed send's status names its
//   destination, tag and size. `test` on a default-constructed or already completed request
//   returns a default `status` at once. Every message is delivered exactly once.
// Buffering. Not required. A blocking `send` has MPI standard-send semantics: it may wait for
//   the matching receive. Two ranks that both `send` first may deadlock, as under MPI; a
//   transport whose sends never wait for the receiver (NX/2's csend, the threads transport)
//   says so by offering `bsend` (`buffered_send_transport`), and only then do kernels use
//   the both-send-first form of CoMet's thesis, with `bsend`. The promise is `bsend`'s: two
//   ranks that both `bsend` and then receive always complete; a standard `send` or `isend`
//   may still wait for its receive (MPI's do).
// Progress. A rank polling `test` or `iprobe` lets every other rank's operations progress;
//   an operation of this rank may need this rank to call into the transport again before it
//   completes.
// Probe. `iprobe` is nonblocking: the status of the earliest matching message that has
//   arrived, if any; the message stays queued.
// Time. `now()` returns seconds (any epoch, monotonic) from the transport's clock: steady
//   clock, MPI_Wtime, or virtual time.
// Failure. Bad arguments (a rank out of range, a negative tag) raise `invalid_argument`
//   naming the value and the rank.
//
// Native operations a transport may add (members with these exact signatures; `comet/ops/`
// calls them when present): `send`, `recv`, `wait`, `wait_all`, `barrier`, `broadcast`,
// `allreduce_sum`, `allreduce_max`, `allreduce_min`, `reduce_sum`, `reduce_max`, `reduce_min`,
// `gather`, `alltoall`, `compute`, `clock_is_global`, `abort`. Their contracts are those of the
// operations in `comet/ops/`:
//   void reduce_sum(int root, std::span<double> values);          // also _max, _min
//   void gather(int root, const_bytes mine, mutable_bytes all);
//   void alltoall(const_bytes out, mutable_bytes in);
#pragma once

#include <comet/core/types.hpp>

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace comet {

/// One rank's endpoint into a group of ranks that exchange tagged messages: the point-to-point
/// core. Everything else is in `comet/ops/`.
template <class T>
concept transport = requires(T& t, const T& ct, int peer, int tag, const_bytes out, mutable_bytes in,
                             typename T::request& req) {
    typename T::request;
    requires std::movable<typename T::request>;
    requires std::default_initializable<typename T::request>;

    { ct.rank() } -> std::same_as<int>;
    { ct.size() } -> std::same_as<int>;
    { t.isend(peer, tag, out) } -> std::same_as<typename T::request>;
    { t.irecv(peer, tag, in) } -> std::same_as<typename T::request>;
    { t.test(req) } -> std::same_as<std::optional<status>>;
    /// Nonblocking: the status of the earliest matching message that has arrived, if any.
    { t.iprobe(peer, tag) } -> std::same_as<std::optional<status>>;
    { t.now() } -> std::same_as<double>;
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

/// Buffered send: a send that never waits for the receiver to post a matching receive (NX/2's
/// csend; MPI_Bsend). Two ranks that both `bsend` and then receive always complete, which is
/// what CoMet's thesis assumes of every send; kernels use that form only on such transports.
template <class T>
concept buffered_send_transport = transport<T> && requires(T& t, int peer, int tag, const_bytes out) {
    { t.bsend(peer, tag, out) } -> std::same_as<void>;
};

/// A transport whose `bsend` is how all its sends behave: the system buffers every message
/// (NX/2's csend, the threads transport), so a kernel whose ranks both send first may send the
/// thesis' way at no cost the transport's ordinary sends do not have. A transport whose `bsend`
/// is a mode of its own — MPI_Bsend copies into a buffer attached for it, which MPI's other sends
/// never do — says `static constexpr bool bsend_copies = true;`, and such kernels then swap by
/// `sendrecv` or nonblocking operations (kernels/swap.hpp).
template <class T>
concept buffering_transport = buffered_send_transport<T> && !requires { requires T::bsend_copies; };

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

/// Calls from a second thread: a rank's transport may be called from a thread other than the one
/// it was given, one thread at a time, handed over by a synchronising operation (MPI_THREAD_SERIALIZED's
/// promise; what a progress thread needs, nbc/progress_thread.hpp). Says so with
/// `static constexpr bool thread_serialized = true;`.
template <class T>
concept thread_serialized_transport = transport<T> && requires { requires T::thread_serialized; };

/// A thread_serialized transport that learns only at run time whether it may be called from a
/// second thread (MPI: the thread level the library provided, MPI_Query_thread): says so with
/// `serialized_threads()`.
template <class T>
concept reports_thread_level = requires(const T& t) {
    { t.serialized_threads() } -> std::convertible_to<bool>;
};

/// A transport whose ranks have one CPU and no threads of their own (the simulators): a progress
/// thread there is modelled as the node's scheduler would run it, in time slices taken from the
/// rank's computation (kernels/nbc.hpp). Says so with `static constexpr bool
/// time_sliced_threads = true;`.
template <class T>
concept time_sliced_transport = transport<T> && requires { requires T::time_sliced_threads; };

/// Whether this rank's transport may be called from a second thread now (a progress thread).
template <class T>
bool allows_second_thread(const T& t) {
    if constexpr (!thread_serialized_transport<T>)
        return false;
    else if constexpr (reports_thread_level<T>)
        return static_cast<bool>(t.serialized_threads());
    else
        return true;
}

/// A transport that counts how many of this rank's transmissions it sent again (the simulator
/// with retransmission on): a count since the run began, which a decorator tracing part of the
/// run takes the difference of.
template <class T>
concept counts_retransmissions = requires(const T& t) {
    { t.retransmissions() } -> std::convertible_to<std::uint64_t>;
};

/// A transport that says how much CPU time its interrupt handlers (messages and
/// acknowledgements arriving, a send's DMA finishing) took from this rank's process so far, in
/// seconds (the simulator): what the NIST seed leaves out of user computation. A total since the
/// run began, which a decorator timing part of the run takes the difference of.
template <class T>
concept counts_interrupt_time = requires(const T& t) {
    { t.interrupt_seconds() } -> std::convertible_to<double>;
};

/// A transport that says, for the last receive this rank completed (by recv, wait or test),
/// how long its message was on the wire (`wire_span`: the simulators): the NIST seed's physical
/// delay, "the time a message takes to travel over the physical medium".
template <class T>
concept reports_wire_time = requires(const T& t) {
    { t.last_received_wire() } -> std::convertible_to<wire_span>;
};

/// A transport that counts how often this rank lost its CPU to something else so far: an
/// involuntary context switch of its thread or process (the threads and MPI transports, from the
/// operating system's count), a detour of `comet::noisy`. The measurement engines read it before
/// and after each sample on every rank taking part, and a sample during which the count moved
/// on any of them is not the system's communication alone: kept raw, marked, out of every
/// statistic ("preempted", stats/validity.hpp).
template <class T>
concept counts_disturbances = requires(T& t) {
    { t.disturbances() } -> std::convertible_to<std::uint64_t>;
};

/// Which optional capabilities a transport type offers, for reports ("not supported").
struct capabilities {
    bool synchronous_send = false;
    bool ready_send = false;
    bool buffered_send = false;
    bool sendrecv = false;
    bool nonblocking_collectives = false;
    bool progress = false;
    bool thread_serialized = false;
    friend constexpr bool operator==(const capabilities&, const capabilities&) = default;
};

template <transport T>
constexpr capabilities capabilities_of() noexcept {
    return {synchronous_send_transport<T>, ready_send_transport<T>, buffered_send_transport<T>,
            sendrecv_transport<T>,         nonblocking_collective_transport<T>, progress_transport<T>,
            thread_serialized_transport<T>};
}

}  // namespace comet
