// comet/transport/adaptor.hpp — `transport_adaptor<Inner>`: the base of every decorator. It
// wraps one rank's endpoint of any transport and forwards everything that endpoint has — the
// point-to-point core, its native operations (send, recv, wait, the collectives, compute, ...)
// and every optional capability (ssend, rsend, bsend, sendrecv, nonblocking collectives,
// progress) — so a decorator derives from it and writes only what it changes:
//
//   template <comet::transport Inner>
//   struct counting : comet::transport_adaptor<Inner> {
//       using comet::transport_adaptor<Inner>::transport_adaptor;
//       typename Inner::request isend(int dest, int tag, comet::const_bytes b) {
//           sent += b.size();
//           return this->inner().isend(dest, tag, b);
//       }
//       std::size_t sent = 0;
//   };
//
// A forwarded member calls the inner transport directly. A decorator that changes how messages
// are sent (delays them, counts them, drops them) therefore overrides every sending member it
// means to cover, or deletes it (`void send(int, int, comet::const_bytes) = delete;`): a deleted
// native makes comet::ops fall back to its portable algorithm, which goes through the
// decorator's own `isend`. Which members a decorator covers is its documentation's to say.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace comet {

template <transport Inner>
class transport_adaptor {
public:
    using request = typename Inner::request;
    using inner_type = Inner;

    explicit transport_adaptor(Inner& inner) noexcept : inner_(&inner) {}

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
    /// Whether that `bsend` is a copying mode of its own (core/concepts.hpp, buffering_transport).
    static constexpr bool bsend_copies = requires { requires Inner::bsend_copies; };
    /// Whether the inner transport may be called from a second thread, one at a time
    /// (nbc/progress_thread.hpp). A decorator that keeps per-thread state must say false.
    static constexpr bool thread_serialized = requires { requires Inner::thread_serialized; };
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
    /// The inner transport's count of this rank's disturbances (it carries no message).
    std::uint64_t disturbances()
        requires counts_disturbances<Inner>
    {
        return static_cast<std::uint64_t>(inner_->disturbances());
    }

private:
    Inner* inner_;
};

}  // namespace comet
