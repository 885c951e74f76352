// comet/transport/threads/transport.hpp — comet::threads::transport, one rank's endpoint of
// the threads transport (P ranks as threads of one process, run by comet::threads::run).
//
// Point-to-point. Each ordered pair of ranks has a channel (channel.hpp). Messages up to
// `options::eager_limit` bytes are copied into the channel and the send returns. Larger ones
// are offered: the receiver copies straight out of the sender's buffer into the posted receive
// buffer, a single copy, which is what makes large transfers run at memory speed (handoff.hpp).
// A blocking `send` whose offer finds no receive posted for it (the receiver drained it as
// unexpected) takes a private copy and returns, so `send` never waits for a matching receive
// once the receiver is in the transport: pairwise exchanges complete, as CoMet assumes. The
// receiver tells it so at its next call that does not receive the offer (every call but a
// receive that takes it starts by telling the senders of what it drained before), or at a look
// of a wait that goes on, a test or probe that finds nothing: a message drained during a wait
// that then completes stays offered for the receive that usually follows (inbox.hpp). Every
// 64th call drains every channel, so a receiver whose calls all complete at once still finds
// the offer. `ssend`/`issend` never take that way out; two ranks that both ssend first
// deadlock, and the deadlock is reported.
//
// What else a rank holds is in the headers beside this one: its receiving side and the
// matching (inbox.hpp), its requests (request.hpp), how it waits (waiting.hpp), the
// collectives it calls (collectives.hpp).
//
// Part of the threads transport: include comet/transport/threads.hpp.
#pragma once

#include <comet/core/checks.hpp>
#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/preemptions.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/transport/threads/channel.hpp>
#include <comet/transport/threads/collectives.hpp>
#include <comet/transport/threads/handoff.hpp>
#include <comet/transport/threads/inbox.hpp>
#include <comet/transport/threads/request.hpp>
#include <comet/transport/threads/waiting.hpp>
#include <comet/transport/threads/world.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace comet::threads {

/// One rank's endpoint. Created by `run`; every member is called from that rank's thread only.
class transport {
public:
    using request = threads::request;

    transport(detail::world& w, int rank)
        : world_(&w), rank_(rank), size_(w.ranks()), eager_(w.opts().eager_limit), inbox_(w, rank) {
        out_.reserve(static_cast<std::size_t>(size_));
        for (int r = 0; r < size_; ++r) out_.push_back(&w.link(rank, r));
    }
    transport(const transport&) = delete;
    transport& operator=(const transport&) = delete;

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }

    // ---- point to point ----

    void send(int dest, int tag, const_bytes data) {
        blocking_send(dest, tag, data, "send", detail::wait_op::send, true, true);
    }

    status recv(int source, int tag, mutable_bytes buffer) {
        check_recv(source, tag, "recv");
        status s;
        look_around();
        const bool taken = inbox_.has_unexpected() && inbox_.take_unexpected(source, tag, buffer, s);
        inbox_.defer_unexpected();  // the offers drained before, but the one taken
        if (taken) return s;
        detail::recv_op op;
        op.source = source;
        op.tag = tag;
        op.buffer = buffer;
        inbox_.post(&op);
        try {
            await([&](bool all) { return inbox_.poll(source, all), op.done; },
                  {detail::wait_op::recv, source, tag, buffer.size(), 0});
        } catch (...) {
            if (!op.done) inbox_.unlink(&op);
            throw;
        }
        return inbox_.finish_recv(op);
    }

    request isend(int dest, int tag, const_bytes data) { return start_send(dest, tag, data, "isend", true); }

    request irecv(int source, int tag, mutable_bytes buffer) {
        check_recv(source, tag, "irecv");
        request r;
        r.owner_ = &inbox_;
        status s;
        std::size_t overflow = 0;
        look_around();
        const bool taken = inbox_.has_unexpected() && inbox_.take_unexpected(source, tag, buffer, s, &overflow);
        inbox_.defer_unexpected();  // the offers drained before, but the one taken
        if (taken) {
            if (!overflow) {
                r.owner_ = nullptr;
                r.result_ = s;
                return r;
            }
            // Too big for the buffer: the test or wait that completes the receive says so.
            detail::recv_op* op = inbox_.allocate_op();
            *op = detail::recv_op{source, tag, buffer, true, s, overflow};
            r.recv_ = op;
            return r;
        }
        detail::recv_op* op = inbox_.allocate_op();
        op->source = source;
        op->tag = tag;
        op->buffer = buffer;
        op->done = false;
        op->overflow = 0;
        op->abandoned = false;
        inbox_.post(op);
        r.recv_ = op;
        return r;
    }

    status wait(request& r) {
        settle_offers();
        if (r.recv_) {
            detail::recv_op* op = r.recv_;
            await([&](bool all) { return inbox_.poll(op->source, all), op->done; },
                  {detail::wait_op::wait_recv, op->source, op->tag, op->buffer.size(), 0});
            return complete_recv(r);
        }
        if (r.send_) {
            detail::large_message* m = std::exchange(r.send_, nullptr);
            r.owner_ = nullptr;
            complete_offer(m, r.result_.source, false,
                           {detail::wait_op::wait_send, r.result_.source, m->tag, m->size, 0});
            return std::exchange(r.result_, status{});  // completed: a second wait gets an empty status
        }
        return std::exchange(r.result_, status{});
    }

    std::optional<status> test(request& r) {
        check_stop();
        settle_offers();
        inbox_.drain_all();
        if (r.recv_) {
            if (!r.recv_->done) return inbox_.defer_unexpected(), std::nullopt;
            return complete_recv(r);
        }
        if (r.send_) {
            if (r.send_->state.load(std::memory_order_acquire) != detail::large_state::done)
                return inbox_.defer_unexpected(), std::nullopt;
            delete std::exchange(r.send_, nullptr);
            r.owner_ = nullptr;
            return std::exchange(r.result_, status{});
        }
        return std::exchange(r.result_, status{});
    }

    void wait_all(std::span<request> requests) {
        settle_offers();
        const auto pending = [&] {
            std::size_t n = 0;
            for (auto& r : requests)
                n += (r.recv_ && !r.recv_->done) ||
                     (r.send_ && r.send_->state.load(std::memory_order_acquire) != detail::large_state::done);
            return n;
        };
        if (pending())
            await([&](bool) { return inbox_.drain_all(), pending() == 0; },
                  {detail::wait_op::wait_all, 0, 0, 0, pending()});
        for (auto& r : requests) wait(r);  // all complete now: collects statuses and errors
    }

    std::optional<status> iprobe(int source, int tag) {
        check_recv(source, tag, "iprobe");
        check_stop();
        settle_offers();
        inbox_.drain_all();
        auto found = inbox_.find_unexpected(source, tag);
        if (!found) inbox_.defer_unexpected();
        return found;
    }
    [[deprecated("renamed iprobe: it never blocks")]] std::optional<status> probe(int source, int tag) {
        return iprobe(source, tag);
    }

    // ---- optional capabilities ----

    void ssend(int dest, int tag, const_bytes data) {
        blocking_send(dest, tag, data, "ssend", detail::wait_op::ssend, false, false);
    }
    request issend(int dest, int tag, const_bytes data) { return start_send(dest, tag, data, "issend", false); }

    /// The receive is posted (the caller promises): small messages go eagerly, large ones are
    /// offered without the fallback to a buffered copy.
    void rsend(int dest, int tag, const_bytes data) {
        blocking_send(dest, tag, data, "rsend", detail::wait_op::rsend, true, false);
    }
    request irsend(int dest, int tag, const_bytes data) { return start_send(dest, tag, data, "irsend", true); }

    /// A send that never waits for the receiver to post its receive (the buffered capability):
    /// small messages go eagerly; a large one is offered for a single copy into the posted
    /// receive and, if the receiver drains it unexpected instead, this rank takes a private
    /// copy and returns. `send` behaves the same way; `bsend` is the promise kernels rely on.
    void bsend(int dest, int tag, const_bytes data) {
        blocking_send(dest, tag, data, "bsend", detail::wait_op::send, true, true);
    }

    status sendrecv(int dest, int send_tag, const_bytes out, int source, int recv_tag, mutable_bytes in) {
        request r = isend(dest, send_tag, out);
        const status s = recv(source, recv_tag, in);
        wait(r);
        return s;
    }

    void progress() {
        check_stop();
        inbox_.drain_all();
        inbox_.defer_unexpected();
    }

    // ---- collectives (collectives.hpp) ----

    void barrier() {
        settle_offers();
        detail::barrier(*world_, rank_, inbox_);
    }

    void broadcast(int root, mutable_bytes data) {
        check_rank(root, "broadcast root");
        settle_offers();
        detail::broadcast(*world_, rank_, inbox_, root, data);
    }

    void allreduce_sum(std::span<double> values) {
        settle_offers();
        detail::allreduce_sum(*world_, rank_, inbox_, values);
    }

    // ---- time, computation, failure ----

    double now() const noexcept {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - world_->epoch()).count();
    }
    /// All ranks read the same steady clock.
    bool clock_is_global() const noexcept { return true; }
    /// How often the operating system took the CPU from the calling thread so far (its
    /// involuntary context switches: core/preemptions.hpp); the measurement engines keep a
    /// sample during which that happened to a rank out of the statistics. Always 0 when the run
    /// has more ranks than CPUs, or options::count_preemptions is off.
    std::uint64_t disturbances() const noexcept { return world_->counts_preemptions() ? involuntary_switches() : 0; }
    /// A rank's transport may be called from a thread other than the one `run` gave it, one
    /// thread at a time, handed over by a synchronising operation (a progress thread:
    /// nbc/progress_thread.hpp): it keeps no per-thread state.
    static constexpr bool thread_serialized = true;

    /// Touches none of the rank's state: a nonblocking collective's progress thread may hold
    /// the transport meanwhile (nbc/progress_thread.hpp), so the offers drained before wait
    /// for the rank's next call into it.
    void compute(const work& w) { perform(w); }

    [[noreturn]] void abort(std::string_view message) { raise<aborted>(rank_, message); }

private:
    // ---- argument checks: one-line errors naming the value and this rank ----

    void check_rank(int r, const char* what) const { comet::detail::check_peer(rank_, size_, r, what); }
    void check_send(int dest, int tag, std::size_t size, const char* what) const {
        comet::detail::check_send(rank_, size_, dest, tag, size, what);
    }
    void check_recv(int source, int tag, const char* what) const {
        comet::detail::check_recv(rank_, size_, source, tag, what);
    }

    void check_stop() const { detail::check_stop(*world_, rank_); }

    /// At the start of every call: every 64th call drains every channel, so that a rank whose
    /// calls all complete at their first look (receives from one rank that always find a
    /// message) still comes upon the large offers of the others.
    void look_around() {
        if ((++calls_ & 63u) == 0) inbox_.drain_all();
    }

    /// At the start of every call but a receive: tells the blocking senders of the large
    /// offers drained before that no receive is coming for them now (inbox.hpp).
    void settle_offers() {
        look_around();
        inbox_.defer_unexpected();
    }

    /// Returns once `ready(all)` is true (waiting.hpp). After every look that finds it false,
    /// the senders of large messages drained unexpected meanwhile are told (inbox.hpp); a
    /// look that finds it true leaves them offered, for the receive that usually comes next.
    template <class Ready>
    void await(Ready&& ready, const detail::wait_desc& desc) {
        detail::await(
            *world_, rank_,
            [&](bool all) {
                if (ready(all)) return true;
                inbox_.defer_unexpected();
                return false;
            },
            desc);
    }

    // ---- sending ----

    void push_inline(int dest, int tag, const_bytes data) {
        out_[static_cast<std::size_t>(dest)]->push_inline(rank_, tag, data);
        world_->ring(dest);
    }
    void push_large(int dest, detail::large_message* m) {
        out_[static_cast<std::size_t>(dest)]->push_large(m);
        world_->ring(dest);
    }

    /// The blocking sends: `eager` lets messages up to the eager limit go inline; `withdraw`
    /// lets an offer that no posted receive matched turn into a buffered copy (buffered
    /// semantics) instead of waiting for the receive.
    void blocking_send(int dest, int tag, const_bytes data, const char* what, detail::wait_op op, bool eager, bool withdraw) {
        check_send(dest, tag, data.size(), what);
        settle_offers();
        if (eager && data.size() <= eager_) return push_inline(dest, tag, data);
        auto* m = detail::large_message::offered(rank_, tag, data);
        push_large(dest, m);
        complete_offer(m, dest, withdraw, {op, dest, tag, data.size(), 0});
    }

    /// The nonblocking sends: inline (complete at once) or offered (complete when received).
    request start_send(int dest, int tag, const_bytes data, const char* what, bool eager) {
        check_send(dest, tag, data.size(), what);
        settle_offers();
        request r;
        r.result_ = status{dest, tag, data.size()};
        if (eager && data.size() <= eager_) {
            push_inline(dest, tag, data);
            return r;
        }
        r.owner_ = &inbox_;
        r.send_ = detail::large_message::offered(rank_, tag, data);
        push_large(dest, r.send_);
        return r;
    }

    /// Waits until the receiver has copied offered message `m`; with `withdraw`, takes a
    /// private copy instead when the receiver found no receive posted for it or has finished.
    /// Frees `m` unless it was handed to the receiver.
    void complete_offer(detail::large_message* m, int dest, bool withdraw, const detail::wait_desc& desc) {
        bool handed_over = false;
        try {
            await(
                [&](bool) {
                    // Drain at every look, not every few dozen: when both ranks of a pair send
                    // first, each learns that its offer must become a copy only when the other
                    // drains it, and that hand-off is the whole cost of the exchange.
                    inbox_.drain_all();
                    auto s = m->state.load(std::memory_order_acquire);
                    if (s == detail::large_state::done) return true;
                    if (withdraw && (s == detail::large_state::deferred || world_->finished(dest)) &&
                        (s == detail::large_state::offered || s == detail::large_state::deferred) &&
                        m->state.compare_exchange_strong(s, detail::large_state::withdrawing, std::memory_order_acq_rel)) {
                        m->take_copy();
                        m->state.store(detail::large_state::buffered, std::memory_order_seq_cst);
                        handed_over = true;
                        return true;
                    }
                    return false;
                },
                desc);
        } catch (...) {
            detail::abandon(m);
            throw;
        }
        if (!handed_over) delete m;
    }

    // ---- receiving (the matching itself: inbox.hpp) ----

    status complete_recv(request& r) {
        detail::recv_op* op = std::exchange(r.recv_, nullptr);
        r.owner_ = nullptr;
        inbox_.recycle(op);
        return inbox_.finish_recv(*op);
    }

    detail::world* world_;
    int rank_;
    int size_;
    std::size_t eager_;
    detail::inbox inbox_;                ///< channels to this rank, posted receives, unexpected messages
    std::vector<detail::channel*> out_;  ///< channels from this rank to every rank
    std::uint32_t calls_ = 0;            ///< calls so far, for look_around
};

static_assert(comet::transport<transport>);
static_assert(synchronous_send_transport<transport> && ready_send_transport<transport> &&
              buffered_send_transport<transport> && sendrecv_transport<transport> && progress_transport<transport>);

}  // namespace comet::threads
