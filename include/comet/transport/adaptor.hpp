// comet/transport/adaptor.hpp — the bases of every decorator. Each wraps one rank's endpoint of
// any transport and forwards what that endpoint has, so a decorator derives from one and writes
// only what it changes:
//
//   `transport_adaptor<Inner>` forwards everything: the point-to-point core, the native operations
//   (send, recv, wait, the collectives, compute, ...) and every optional capability (ssend, rsend,
//   bsend, sendrecv, nonblocking collectives, progress). For a decorator that leaves messages
//   alone (a clock's, a computation's, a counter's):
//
//     template <comet::transport Inner>
//     struct counting : comet::transport_adaptor<Inner> {
//         using comet::transport_adaptor<Inner>::transport_adaptor;
//         typename Inner::request isend(int dest, int tag, comet::const_bytes b) {
//             sent += b.size();
//             return this->inner().isend(dest, tag, b);
//         }
//         std::size_t sent = 0;
//     };
//
//   `message_adaptor<Inner>` forwards the core and what carries no message (compute, the clock's
//   kind, abort, the counts of disturbances and retransmissions). Every operation that sends or
//   completes a message stays hidden until the decorator writes it or brings the inner one in
//   with a using-declaration (`using base::barrier;`: "the transport's own barrier passes
//   untouched"). What it neither writes nor brings in, comet::ops builds from the decorator's own
//   isend/irecv/test (the portable algorithm, named so in records) — a capability added to the
//   adaptor later too, so nothing reaches the inner transport past a decorator that changes
//   messages (delays, drops, traces them) unless that decorator said it may.
//
// A forwarded member calls the inner transport directly, under the inner transport's own
// constraint: a decorator offers a native operation only where the inner transport has it.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace comet {

namespace detail {

/// Both bases' members: what carries no message is public; the operations on messages are
/// protected, made public by `transport_adaptor` and by each `message_adaptor` decorator's own
/// using-declarations.
template <transport Inner>
class adaptor_base {
public:
    using request = typename Inner::request;
    using inner_type = Inner;

    explicit adaptor_base(Inner& inner) noexcept : inner_(&inner) {}

    Inner& inner() noexcept { return *inner_; }
    const Inner& inner() const noexcept { return *inner_; }

    // ---- the core ----
    int rank() const { return inner_->rank(); }
    int size() const { return inner_->size(); }
    request isend(int dest, int tag, const_bytes data) { return inner_->isend(dest, tag, data); }
    request irecv(int source, int tag, mutable_bytes data) { return inner_->irecv(source, tag, data); }
    std::optional<status> test(request& r) { return inner_->test(r); }
    std::optional<status> iprobe(int source, int tag) { return inner_->iprobe(source, tag); }
    double now() { return inner_->now(); }

    // ---- what carries no message ----
    void compute(const work& w)
        requires requires(Inner& i) { i.compute(w); }
    {
        inner_->compute(w);
    }
    bool clock_is_global() const
        requires requires(const Inner& i) { i.clock_is_global(); }
    {
        return inner_->clock_is_global();
    }
    [[noreturn]] void abort(std::string_view message)
        requires requires(Inner& i) { i.abort(message); }
    {
        inner_->abort(message);
    }
    /// The inner transport's count of this rank's disturbances (it carries no message).
    std::uint64_t disturbances()
        requires counts_disturbances<Inner>
    {
        return static_cast<std::uint64_t>(inner_->disturbances());
    }
    /// The inner transport's count of this rank's retransmissions (it carries no message).
    std::uint64_t retransmissions() const
        requires counts_retransmissions<Inner>
    {
        return static_cast<std::uint64_t>(inner_->retransmissions());
    }
    /// The CPU time the inner transport's interrupt handlers took from this rank so far.
    double interrupt_seconds() const
        requires counts_interrupt_time<Inner>
    {
        return static_cast<double>(inner_->interrupt_seconds());
    }
    /// The inner transport's wire time of the last receive this rank completed.
    wire_span last_received_wire() const
        requires reports_wire_time<Inner>
    {
        return inner_->last_received_wire();
    }
    /// Whether the inner transport's `bsend` is a copying mode of its own (core/concepts.hpp,
    /// buffering_transport).
    static constexpr bool bsend_copies = requires { requires Inner::bsend_copies; };
    /// Whether the inner transport may be called from a second thread, one at a time
    /// (nbc/progress_thread.hpp). A decorator that keeps per-thread state must say false.
    static constexpr bool thread_serialized = requires { requires Inner::thread_serialized; };
    /// Whether a progress thread on the inner transport is modelled in time slices (the
    /// simulators: core/concepts.hpp, time_sliced_transport).
    static constexpr bool time_sliced_threads = requires { requires Inner::time_sliced_threads; };
    /// Whether the inner transport may be called from a second thread now, where it learns
    /// that only at run time (core/concepts.hpp, reports_thread_level).
    bool serialized_threads() const
        requires reports_thread_level<Inner>
    {
        return static_cast<bool>(inner_->serialized_threads());
    }

protected:
    // ---- native operations, where the inner transport has them ----
    void send(int dest, int tag, const_bytes data)
        requires requires(Inner& i) { i.send(dest, tag, data); }
    {
        inner_->send(dest, tag, data);
    }
    status recv(int source, int tag, mutable_bytes data)
        requires requires(Inner& i) { i.recv(source, tag, data); }
    {
        return inner_->recv(source, tag, data);
    }
    status wait(request& r)
        requires requires(Inner& i) { i.wait(r); }
    {
        return inner_->wait(r);
    }
    void wait_all(std::span<request> rs)
        requires requires(Inner& i) { i.wait_all(rs); }
    {
        inner_->wait_all(rs);
    }
    void barrier()
        requires requires(Inner& i) { i.barrier(); }
    {
        inner_->barrier();
    }
    void broadcast(int root, mutable_bytes data)
        requires requires(Inner& i) { i.broadcast(root, data); }
    {
        inner_->broadcast(root, data);
    }
    void allreduce_sum(std::span<double> v)
        requires requires(Inner& i) { i.allreduce_sum(v); }
    {
        inner_->allreduce_sum(v);
    }
    void allreduce_max(std::span<double> v)
        requires requires(Inner& i) { i.allreduce_max(v); }
    {
        inner_->allreduce_max(v);
    }
    void allreduce_min(std::span<double> v)
        requires requires(Inner& i) { i.allreduce_min(v); }
    {
        inner_->allreduce_min(v);
    }
    void reduce_sum(int root, std::span<double> v)
        requires requires(Inner& i) { i.reduce_sum(root, v); }
    {
        inner_->reduce_sum(root, v);
    }
    void reduce_max(int root, std::span<double> v)
        requires requires(Inner& i) { i.reduce_max(root, v); }
    {
        inner_->reduce_max(root, v);
    }
    void reduce_min(int root, std::span<double> v)
        requires requires(Inner& i) { i.reduce_min(root, v); }
    {
        inner_->reduce_min(root, v);
    }
    void gather(int root, const_bytes mine, mutable_bytes all)
        requires requires(Inner& i) { i.gather(root, mine, all); }
    {
        inner_->gather(root, mine, all);
    }
    void alltoall(const_bytes out, mutable_bytes in)
        requires requires(Inner& i) { i.alltoall(out, in); }
    {
        inner_->alltoall(out, in);
    }

    // ---- optional capabilities, where the inner transport has them ----
    void ssend(int dest, int tag, const_bytes data)
        requires synchronous_send_transport<Inner>
    {
        inner_->ssend(dest, tag, data);
    }
    request issend(int dest, int tag, const_bytes data)
        requires synchronous_send_transport<Inner>
    {
        return inner_->issend(dest, tag, data);
    }
    void rsend(int dest, int tag, const_bytes data)
        requires ready_send_transport<Inner>
    {
        inner_->rsend(dest, tag, data);
    }
    request irsend(int dest, int tag, const_bytes data)
        requires ready_send_transport<Inner>
    {
        return inner_->irsend(dest, tag, data);
    }
    void bsend(int dest, int tag, const_bytes data)
        requires buffered_send_transport<Inner>
    {
        inner_->bsend(dest, tag, data);
    }
    /// Room for `messages` buffered sends totalling `bytes`, made before they are sent.
    void reserve_bsend(std::size_t messages, std::size_t bytes)
        requires requires(Inner& i) { i.reserve_bsend(messages, bytes); }
    {
        inner_->reserve_bsend(messages, bytes);
    }
    status sendrecv(int dest, int send_tag, const_bytes out, int source, int recv_tag, mutable_bytes in)
        requires sendrecv_transport<Inner>
    {
        return inner_->sendrecv(dest, send_tag, out, source, recv_tag, in);
    }
    request ibarrier()
        requires nonblocking_collective_transport<Inner>
    {
        return inner_->ibarrier();
    }
    request ibroadcast(int root, mutable_bytes data)
        requires nonblocking_collective_transport<Inner>
    {
        return inner_->ibroadcast(root, data);
    }
    request iallreduce_sum(std::span<double> v)
        requires nonblocking_collective_transport<Inner>
    {
        return inner_->iallreduce_sum(v);
    }
    void progress()
        requires progress_transport<Inner>
    {
        inner_->progress();
    }

private:
    Inner* inner_;
};

}  // namespace detail

/// The base of a decorator that leaves messages alone: forwards everything `Inner` has.
template <transport Inner>
class transport_adaptor : public detail::adaptor_base<Inner> {
    using base = detail::adaptor_base<Inner>;

public:
    using base::base;
    using base::send, base::recv, base::wait, base::wait_all;
    using base::barrier, base::broadcast, base::allreduce_sum, base::allreduce_max, base::allreduce_min;
    using base::reduce_sum, base::reduce_max, base::reduce_min, base::gather, base::alltoall;
    using base::ssend, base::issend, base::rsend, base::irsend, base::bsend, base::reserve_bsend;
    using base::sendrecv, base::ibarrier, base::ibroadcast, base::iallreduce_sum, base::progress;
};

/// The base of a decorator that changes messages: forwards the core and what carries no
/// message; the operations on messages stay hidden until the decorator writes them or brings
/// the inner transport's in with a using-declaration (see the file's comment).
template <transport Inner>
class message_adaptor : public detail::adaptor_base<Inner> {
public:
    using detail::adaptor_base<Inner>::adaptor_base;
};

}  // namespace comet
