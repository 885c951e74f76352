// comet/transport/threads.hpp — the threads transport: P ranks as threads of one process.
//
//   comet::threads::run(4, [](comet::threads::transport& t) { ... });
//
// Point-to-point. Each ordered pair of ranks has a channel (threads/channel.hpp). Messages up
// to `options::eager_limit` bytes are copied into the channel and the send returns. Larger
// ones are offered: the receiver copies straight out of the sender's buffer into the posted
// receive buffer, a single copy, which is what makes large transfers run at memory speed.
// A blocking `send` whose offer finds no receive posted for it (the receiver drained it as
// unexpected) takes a private copy and returns, so `send` never waits for a matching receive:
// pairwise exchanges complete, as CoMet assumes. `ssend`/`issend` never take that way out;
// two ranks that both ssend first deadlock, and the deadlock is reported.
//
// Matching happens only on the receiving thread, when it drains its channels: posted
// receives in post order, then the unexpected queue. Any blocking call or `test`/`progress`
// drains; nothing progresses while a rank computes without calling the transport.
//
// Collectives are native: every rank publishes its buffer, meets the others at a shared
// barrier, and reads the others' buffers directly. `allreduce_sum` adds in rank order, so every
// rank gets the same bits.
//
// Waiting spins briefly, then sleeps (threads/world.hpp), so more ranks than cores still make
// progress at a context switch per hand-off. If every rank blocks with nothing that can wake
// any of them, every rank raises `comet::deadlock_error` naming what each waits for. An
// exception on one rank stops the others at their next call into the transport, and `run`
// rethrows it.
#pragma once

#include <comet/core/checks.hpp>
#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/function_ref.hpp>
#include <comet/core/preemptions.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/transport/threads/channel.hpp>
#include <comet/transport/threads/copy.hpp>
#include <comet/transport/threads/world.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace comet::threads {

class transport;

namespace detail {

/// A posted receive. Lives on the stack of a blocking recv or in the rank's pool for irecv.
struct recv_op {
    int source = any_source;
    int tag = any_tag;
    mutable_bytes buffer;
    bool done = false;
    status result;
    std::size_t overflow = 0;  ///< the size of a matched message that did not fit (else 0)
    bool abandoned = false;    ///< its sender gave it up while the run was stopping
    recv_op* prev = nullptr;
    recv_op* next = nullptr;
};

/// A message drained before any receive was posted for it.
struct unexpected_msg {
    int source = 0;
    int tag = 0;
    std::size_t size = 0;
    large_message* large = nullptr;
    std::byte small[48];
    std::unique_ptr<std::byte[]> big;
    const std::byte* bytes() const noexcept { return big ? big.get() : small; }
};

}  // namespace detail

/// A nonblocking operation of the threads transport. Move-only. Destroying it while the
/// operation is pending cancels a receive, and turns a send into a buffered one (the data is
/// copied and still delivered).
class request {
public:
    request() = default;
    request(request&& o) noexcept { take(o); }
    request& operator=(request&& o) noexcept {
        if (this != &o) {
            release();
            take(o);
        }
        return *this;
    }
    request(const request&) = delete;
    request& operator=(const request&) = delete;
    ~request() { release(); }

    /// True while the operation has not been completed by wait or test.
    bool pending() const noexcept { return recv_ || send_; }

private:
    friend class transport;
    void take(request& o) noexcept {
        owner_ = std::exchange(o.owner_, nullptr);
        recv_ = std::exchange(o.recv_, nullptr);
        send_ = std::exchange(o.send_, nullptr);
        result_ = o.result_;
    }
    inline void release() noexcept;

    transport* owner_ = nullptr;
    detail::recv_op* recv_ = nullptr;
    detail::large_message* send_ = nullptr;
    status result_;  ///< for a send: destination, tag and size
};

/// One rank's endpoint. Created by `run`; every member is called from that rank's thread only.
class transport {
public:
    using request = threads::request;

    transport(detail::world& w, int rank) : world_(&w), rank_(rank), size_(w.ranks()), eager_(w.opts().eager_limit) {
        in_.reserve(static_cast<std::size_t>(size_));
        out_.reserve(static_cast<std::size_t>(size_));
        for (int r = 0; r < size_; ++r) {
            in_.push_back(&w.link(r, rank));
            out_.push_back(&w.link(rank, r));
        }
    }
    transport(const transport&) = delete;
    transport& operator=(const transport&) = delete;
    ~transport() {
        // A sender may still withdraw an offer this rank drained but never received (it sees
        // this rank finish), so the descriptors outlive the rank: the world frees them.
        for (auto& u : unexpected_)
            if (u.large) world_->leave_behind(u.large);
    }

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }

    // ---- point to point ----

    void send(int dest, int tag, const_bytes data) {
        blocking_send(dest, tag, data, "send", detail::wait_op::send, true, true);
    }

    status recv(int source, int tag, mutable_bytes buffer) {
        check_recv(source, tag, "recv");
        status s;
        if (!unexpected_.empty() && take_unexpected(source, tag, buffer, s)) return s;
        detail::recv_op op;
        op.source = source;
        op.tag = tag;
        op.buffer = buffer;
        post(&op);
        try {
            await([&](bool all) { return poll(source, all), op.done; },
                  {detail::wait_op::recv, source, tag, buffer.size(), 0});
        } catch (...) {
            if (!op.done) unlink(&op);
            throw;
        }
        return finish_recv(op);
    }

    request isend(int dest, int tag, const_bytes data) { return start_send(dest, tag, data, "isend", true); }

    request irecv(int source, int tag, mutable_bytes buffer) {
        check_recv(source, tag, "irecv");
        request r;
        r.owner_ = this;
        status s;
        std::size_t overflow = 0;
        if (!unexpected_.empty() && take_unexpected(source, tag, buffer, s, &overflow)) {
            if (!overflow) {
                r.owner_ = nullptr;
                r.result_ = s;
                return r;
            }
            // Too big for the buffer: the test or wait that completes the receive says so.
            detail::recv_op* op = allocate_op();
            *op = detail::recv_op{source, tag, buffer, true, s, overflow};
            r.recv_ = op;
            return r;
        }
        detail::recv_op* op = allocate_op();
        op->source = source;
        op->tag = tag;
        op->buffer = buffer;
        op->done = false;
        op->overflow = 0;
        op->abandoned = false;
        post(op);
        r.recv_ = op;
        return r;
    }

    status wait(request& r) {
        if (r.recv_) {
            detail::recv_op* op = r.recv_;
            await([&](bool all) { return poll(op->source, all), op->done; },
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
        drain_all();
        if (r.recv_) {
            if (!r.recv_->done) return std::nullopt;
            return complete_recv(r);
        }
        if (r.send_) {
            if (r.send_->state.load(std::memory_order_acquire) != detail::large_state::done) return std::nullopt;
            delete std::exchange(r.send_, nullptr);
            r.owner_ = nullptr;
            return std::exchange(r.result_, status{});
        }
        return std::exchange(r.result_, status{});
    }

    void wait_all(std::span<request> requests) {
        const auto pending = [&] {
            std::size_t n = 0;
            for (auto& r : requests)
                n += (r.recv_ && !r.recv_->done) ||
                     (r.send_ && r.send_->state.load(std::memory_order_acquire) != detail::large_state::done);
            return n;
        };
        if (pending())
            await([&](bool) { return drain_all(), pending() == 0; },
                  {detail::wait_op::wait_all, 0, 0, 0, pending()});
        for (auto& r : requests) wait(r);  // all complete now: collects statuses and errors
    }

    std::optional<status> iprobe(int source, int tag) {
        check_recv(source, tag, "iprobe");
        check_stop();
        drain_all();
        for (const auto& u : unexpected_)
            if (matches(source, tag, u.source, u.tag)) return status{u.source, u.tag, u.size};
        return std::nullopt;
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
        drain_all();
    }

    // ---- collectives ----

    void barrier() {
        // Published although the barrier itself reads nothing: a rank in another collective
        // at the same point must see "barrier" here, not a stale descriptor it could match.
        publish(collective::barrier, 0, 0, nullptr);
        meet({detail::wait_op::barrier, 0, 0, 0, 0});
    }

    void broadcast(int root, mutable_bytes data) {
        check_rank(root, "broadcast root");
        publish(collective::broadcast, root, data.size(), data.data());
        const detail::wait_desc desc{detail::wait_op::broadcast, root, 0, data.size(), 0};
        meet(desc);
        check_same_collective("broadcast");
        if (rank_ != root) detail::copy_bulk(data.data(), static_cast<const std::byte*>(world_->slot(root).data), data.size());
        meet(desc);  // the root's buffer stays untouched until everyone has copied it
    }

    void allreduce_sum(std::span<double> values) {
        publish(collective::allreduce, 0, values.size(), values.data());
        const detail::wait_desc desc{detail::wait_op::allreduce, 0, 0, values.size(), 0};
        meet(desc);
        check_same_collective("allreduce_sum");
        // Each rank sums its share of the elements over all ranks, in rank order.
        auto& mine = world_->slot(rank_).partial;
        const auto [lo, hi] = share(values.size(), rank_);
        mine.assign(hi - lo, 0.0);
        for (int r = 0; r < size_; ++r) {
            const auto* x = static_cast<const double*>(world_->slot(r).data);
            for (std::size_t i = lo; i < hi; ++i) mine[i - lo] += x[i];
        }
        meet(desc);
        for (int r = 0; r < size_; ++r) {
            const auto [rlo, rhi] = share(values.size(), r);
            std::copy(world_->slot(r).partial.begin(), world_->slot(r).partial.begin() + static_cast<std::ptrdiff_t>(rhi - rlo),
                      values.begin() + static_cast<std::ptrdiff_t>(rlo));
        }
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

    void compute(const work& w) { perform(w); }

    [[noreturn]] void abort(std::string_view message) { raise<aborted>(rank_, message); }

private:
    friend class threads::request;
    enum class collective : int { none, barrier, broadcast, allreduce };

    // ---- argument checks: one-line errors naming the value and this rank ----

    void check_rank(int r, const char* what) const { comet::detail::check_peer(rank_, size_, r, what); }
    void check_send(int dest, int tag, std::size_t size, const char* what) const {
        comet::detail::check_send(rank_, size_, dest, tag, size, what);
    }
    void check_recv(int source, int tag, const char* what) const {
        comet::detail::check_recv(rank_, size_, source, tag, what);
    }

    void check_stop() const {
        if (world_->stopping() != detail::stop_reason::none) world_->throw_stop(rank_);
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
        if (eager && data.size() <= eager_) return push_inline(dest, tag, data);
        auto* m = detail::large_message::offered(rank_, tag, data);
        push_large(dest, m);
        complete_offer(m, dest, withdraw, {op, dest, tag, data.size(), 0});
    }

    /// The nonblocking sends: inline (complete at once) or offered (complete when received).
    request start_send(int dest, int tag, const_bytes data, const char* what, bool eager) {
        check_send(dest, tag, data.size(), what);
        request r;
        r.result_ = status{dest, tag, data.size()};
        if (eager && data.size() <= eager_) {
            push_inline(dest, tag, data);
            return r;
        }
        r.owner_ = this;
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
                    drain_all();
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
            abandon(m);
            throw;
        }
        if (!handed_over) delete m;
    }

    /// An offer whose sender stops caring (stopped run, or destroyed request): the receiver
    /// will find it abandoned (or buffered, if `keep_data`), or it is mid-copy and we wait.
    static void abandon(detail::large_message* m, bool keep_data = false) noexcept {
        auto s = m->state.load(std::memory_order_acquire);
        for (;;) {
            if (s == detail::large_state::offered || s == detail::large_state::deferred) {
                if (!m->state.compare_exchange_weak(s, detail::large_state::withdrawing, std::memory_order_acq_rel)) continue;
                if (keep_data) m->take_copy();
                m->state.store(keep_data ? detail::large_state::buffered : detail::large_state::abandoned,
                               std::memory_order_seq_cst);
                return;  // the receiver (or the teardown) frees it now
            }
            if (s == detail::large_state::done) {
                delete m;
                return;
            }
            detail::cpu_relax();  // claimed: the receiver is copying; it ends soon
            s = m->state.load(std::memory_order_acquire);
        }
    }

    // ---- receiving ----

    static bool matches(int want_source, int want_tag, int source, int tag) noexcept {
        return (want_source == any_source || want_source == source) && (want_tag == any_tag || want_tag == tag);
    }

    void post(detail::recv_op* op) noexcept {
        op->prev = posted_tail_;
        op->next = nullptr;
        (posted_tail_ ? posted_tail_->next : posted_head_) = op;
        posted_tail_ = op;
    }
    void unlink(detail::recv_op* op) noexcept {
        (op->prev ? op->prev->next : posted_head_) = op->next;
        (op->next ? op->next->prev : posted_tail_) = op->prev;
        op->prev = op->next = nullptr;
    }

    detail::recv_op* allocate_op() {
        if (free_ops_.empty()) {
            ops_.push_back(std::make_unique<detail::recv_op>());
            return ops_.back().get();
        }
        auto* op = free_ops_.back();
        free_ops_.pop_back();
        return op;
    }

    status finish_recv(detail::recv_op& op) {
        if (op.abandoned) world_->throw_stop(rank_);
        if (op.overflow) throw truncation_error(truncated(op.source, op.tag, op.result, op.buffer.size()));
        return op.result;
    }
    status complete_recv(request& r) {
        detail::recv_op* op = std::exchange(r.recv_, nullptr);
        r.owner_ = nullptr;
        free_ops_.push_back(op);
        return finish_recv(*op);
    }

    /// Drains the channel from `source` (every channel when `all` or any_source). Between
    /// drains, a waiting rank only looks at the one cell the next message will land in.
    void poll(int source, bool all) {
        if (all || source == any_source) return drain_all();
        if (in_[static_cast<std::size_t>(source)]->ready()) drain_from(source);
    }
    void drain_from(int source) {
        in_[static_cast<std::size_t>(source)]->drain([&](const detail::arrival& a) { arrive(source, a); });
    }
    void drain_all() {
        for (int s = 0; s < size_; ++s) drain_from(s);
    }

    /// A message has been drained: complete the earliest matching posted receive, or keep it.
    void arrive(int source, const detail::arrival& a) {
        for (detail::recv_op* op = posted_head_; op; op = op->next) {
            if (!matches(op->source, op->tag, source, a.tag)) continue;
            unlink(op);
            op->result = status{source, a.tag, a.size};
            if (a.size > op->buffer.size()) {
                op->overflow = a.size;
                if (a.large) discard_large(a.large);
            } else if (a.large) {
                op->abandoned = !take_large(a.large, op->buffer.data());
            } else {
                a.copy_inline(op->buffer.data());
            }
            op->done = true;
            return;
        }
        keep_unexpected(source, a);
    }

    [[gnu::noinline]] void keep_unexpected(int source, const detail::arrival& a) {
        auto& u = unexpected_.emplace_back();
        u.source = source;
        u.tag = a.tag;
        u.size = a.size;
        u.large = a.large;
        if (a.large) {
            // Tell a blocking sender nobody is waiting for this yet: it copies and moves on.
            auto s = detail::large_state::offered;
            if (a.large->state.compare_exchange_strong(s, detail::large_state::deferred, std::memory_order_seq_cst))
                world_->ring(a.large->source);
        } else if (a.size <= sizeof u.small) {
            a.copy_inline(u.small);
        } else {
            u.big = std::make_unique_for_overwrite<std::byte[]>(a.size);
            a.copy_inline(u.big.get());
        }
    }

    /// Takes the earliest unexpected message matching (source, tag) into `buffer`. One too big
    /// for it raises truncation_error, or with `overflow` is given up and its size put there.
    [[gnu::noinline]] bool take_unexpected(int source, int tag, mutable_bytes buffer, status& s, std::size_t* overflow = nullptr) {
        for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
            if (!matches(source, tag, it->source, it->tag)) continue;
            s = status{it->source, it->tag, it->size};
            std::string error;
            bool abandoned = false;
            if (it->size > buffer.size()) {
                error = truncated(source, tag, s, buffer.size());
                if (it->large) discard_large(it->large);
            } else if (it->large) {
                abandoned = !take_large(it->large, buffer.data());
            } else if (it->size) {
                std::memcpy(buffer.data(), it->bytes(), it->size);
            }
            unexpected_.erase(it);
            if (abandoned) world_->throw_stop(rank_);
            if (!error.empty()) {
                if (!overflow) throw truncation_error(error);
                *overflow = s.size;
            }
            return true;
        }
        return false;
    }

    /// Copies large message `m` into `dst` and gives the descriptor back (to its sender, or to
    /// the heap). False if its sender abandoned it (only while a failed run is stopping).
    bool take_large(detail::large_message* m, std::byte* dst) {
        auto s = m->state.load(std::memory_order_acquire);
        for (;;) {
            switch (s) {
            case detail::large_state::offered:
            case detail::large_state::deferred:
                if (m->state.compare_exchange_weak(s, detail::large_state::claimed, std::memory_order_acq_rel)) {
                    detail::copy_bulk(dst, m->data, m->size);
                    const int sender = m->source;
                    m->state.store(detail::large_state::done, std::memory_order_seq_cst);  // m is the sender's again
                    world_->ring(sender);
                    return true;
                }
                continue;
            case detail::large_state::withdrawing:  // the sender is copying it: a moment
                detail::cpu_relax();
                s = m->state.load(std::memory_order_acquire);
                continue;
            case detail::large_state::buffered:
                detail::copy_bulk(dst, m->data, m->size);
                delete m;
                return true;
            default:  // abandoned
                delete m;
                return false;
            }
        }
    }

    /// Consumes a large message without its data (the receive it matched was too small).
    void discard_large(detail::large_message* m) {
        auto s = m->state.load(std::memory_order_acquire);
        while ((s == detail::large_state::offered || s == detail::large_state::deferred) &&
               !m->state.compare_exchange_weak(s, detail::large_state::claimed, std::memory_order_acq_rel)) {
        }
        if (s == detail::large_state::offered || s == detail::large_state::deferred) {
            const int sender = m->source;
            m->state.store(detail::large_state::done, std::memory_order_seq_cst);
            world_->ring(sender);
            return;
        }
        while ((s = m->state.load(std::memory_order_acquire)) == detail::large_state::withdrawing) detail::cpu_relax();
        delete m;
    }

    [[gnu::cold]] std::string truncated(int want_source, int want_tag, const status& got, std::size_t capacity) const {
        return comet::detail::concat("rank ", rank_, ": recv from ",
                                     want_source == any_source ? "any rank" : "rank " + std::to_string(want_source), " (",
                                     want_tag == any_tag ? "any tag" : "tag " + std::to_string(want_tag), "): the ", got.size,
                                     "-byte message from rank ", got.source, " (tag ", got.tag, ") does not fit the ",
                                     capacity, "-byte buffer");
    }

    // ---- collectives ----

    void publish(collective kind, int root, std::size_t size, void* data) noexcept {
        auto& s = world_->slot(rank_);
        s.kind = static_cast<int>(kind);
        s.root = root;
        s.size = size;
        s.data = data;
    }

    void check_same_collective(const char* what) const {
        const auto& mine = world_->slot(rank_);
        for (int r = 0; r < size_; ++r) {
            const auto& other = world_->slot(r);
            if (other.kind != mine.kind)
                raise<invalid_argument>(rank_, what, ": rank ", r, " called a different collective at the same point");
            if (other.root != mine.root || other.size != mine.size)
                raise<invalid_argument>(rank_, what, " with root ", mine.root, " and size ", mine.size, ", but rank ", r,
                                        " called it with root ", other.root, " and size ", other.size);
        }
    }

    /// The shared barrier.
    void meet(const detail::wait_desc& desc) {
        check_stop();
        const std::uint32_t g = world_->barrier_generation();
        if (world_->barrier_arrive(rank_, g)) return;
        await([&](bool all) { return (all ? drain_all() : void()), world_->barrier_generation() != g; }, desc);
    }

    std::pair<std::size_t, std::size_t> share(std::size_t n, int r) const noexcept {
        const auto p = static_cast<std::size_t>(size_);
        const auto i = static_cast<std::size_t>(r);
        return {n * i / p, n * (i + 1) / p};
    }

    // ---- waiting ----

    /// Returns once `ready(all)` is true. `ready` makes progress itself; `all` asks it to
    /// drain every channel (done every few dozen spins and always before sleeping, so that a
    /// sender whose offer no receive here will match learns it and moves on).
    template <class Ready>
    void await(Ready&& ready, const detail::wait_desc& desc) {
        if (ready(false)) return;
        wait_until(ready, desc);
    }

    /// The waiting of `await` once the first look found nothing: one copy for every condition
    /// a rank waits for (a copy per condition was ~1-6 KB of code each to compile in every
    /// program). The condition is called through a function_ref, an indirect call per look
    /// beside the pause instruction of every spin round.
    [[gnu::noinline]] void wait_until(function_ref<bool(bool)> ready, const detail::wait_desc& desc) {
        check_stop();
        detail::world& w = *world_;
        // Spin without yielding for a couple of microseconds (the partner is usually on
        // another core and answers within that), then keep spinning but yield the core now and
        // then (the partner may be waiting for this very core: the machine is loaded), then
        // sleep. With more awake ranks than cores, go to sleep almost at once.
        // The clock is read only once the spin has lasted 64 rounds: a message usually
        // arrives sooner, and a clock reading (~30 ns) would otherwise sit on every hand-off.
        const bool crowded = w.crowded();
        std::chrono::steady_clock::time_point eager_until, deadline;
        for (unsigned i = 1;; ++i) {
            detail::cpu_relax();
            const bool every = (i & 63) == 0;
            if (ready(every)) return;
            if (every) {
                check_stop();
                const auto now = std::chrono::steady_clock::now();
                if (i == 64) {
                    eager_until = now + std::chrono::nanoseconds(crowded ? 0 : 2000);
                    deadline = now + (crowded ? std::chrono::nanoseconds(2000) : w.opts().spin);
                }
                if (now >= deadline) break;
                if (now >= eager_until) std::this_thread::yield();
            }
        }
        detail::rank_control& c = w.control(rank_);
        c.op.store(desc.op, std::memory_order_relaxed);
        c.peer.store(desc.peer, std::memory_order_relaxed);
        c.tag.store(desc.tag, std::memory_order_relaxed);
        c.size.store(desc.size, std::memory_order_relaxed);
        c.count.store(desc.count, std::memory_order_relaxed);
        w.dozing();
        struct wake_guard {
            detail::world& w;
            ~wake_guard() { w.waking(); }
        } awake_again{w};
        for (;;) {
            check_stop();
            const std::uint32_t seen = c.doorbell.load(std::memory_order_seq_cst);
            // Still counted if the doorbell rang late: a ringer that set us awake was preempted
            // before its bell, we counted ourselves again, then its bell woke us. Uncount, or
            // the count drifts (exactly one of this exchange and a ringer's sees "counted").
            if (c.sleep.exchange(detail::sleep_state::sleeping, std::memory_order_seq_cst) == detail::sleep_state::counted)
                w.uncount();
            if (ready(true)) return w.leave_sleep(rank_);
            if (!w.count_blocked(rank_)) continue;  // rung in between: look again
            while (c.sleep.load(std::memory_order_seq_cst) == detail::sleep_state::counted) {
                detail::sleep_while_equal(c.doorbell, seen, std::chrono::milliseconds(200));
                if (c.doorbell.load(std::memory_order_seq_cst) != seen) break;
                if (ready(true)) return w.leave_sleep(rank_);  // safety net after a timeout
            }
        }
    }

    detail::world* world_;
    int rank_;
    int size_;
    std::size_t eager_;
    detail::recv_op* posted_head_ = nullptr;
    detail::recv_op* posted_tail_ = nullptr;
    std::deque<detail::unexpected_msg> unexpected_;
    std::vector<detail::channel*> in_;   ///< channels from every rank to this one
    std::vector<detail::channel*> out_;  ///< channels from this rank to every rank
    std::vector<std::unique_ptr<detail::recv_op>> ops_;
    std::vector<detail::recv_op*> free_ops_;
};

inline void request::release() noexcept {
    if (recv_) {
        if (!recv_->done) owner_->unlink(recv_);
        owner_->free_ops_.push_back(recv_);
        recv_ = nullptr;
    }
    if (send_) {
        // Still pending: keep the promise that the message is delivered, from a copy.
        transport::abandon(std::exchange(send_, nullptr), true);
    }
    owner_ = nullptr;
}

static_assert(comet::transport<transport>);
static_assert(synchronous_send_transport<transport> && ready_send_transport<transport> &&
              buffered_send_transport<transport> && sendrecv_transport<transport> && progress_transport<transport>);

namespace detail {

/// Runs `body` on `ranks` threads and rethrows the first failure.
inline void run_ranks(int ranks, const options& opt, function_ref<void(transport&)> body) {
    if (ranks < 1) raise<invalid_argument>(-1, "threads::run: ", ranks, " ranks; need at least 1");
    world w(ranks, opt);
    const std::vector<int> cpus = placement(ranks, opt);
    const std::vector<int> allowed = cpus.empty() ? std::vector<int>{} : usable_cpus();
    const auto rank_main = [&](int r) {
        if (!cpus.empty()) start_on_cpu(cpus[static_cast<std::size_t>(r)], allowed);
        {
            transport t(w, r);
            try {
                body(t);
            } catch (...) {
                w.fail(r, std::current_exception());
            }
        }
        w.finish(r);
    };
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(ranks));
    try {
        for (int r = 0; r < ranks; ++r) threads.emplace_back(rank_main, r);
    } catch (...) {
        // The ranks already running may wait for those never started: stop them.
        w.fail(static_cast<int>(threads.size()), std::current_exception());
        for (int r = static_cast<int>(threads.size()); r < ranks; ++r) w.finish(r);
    }
    for (auto& th : threads) th.join();
    if (auto e = w.failure()) std::rethrow_exception(e);
}

}  // namespace detail

/// Runs `fn(transport&)` on `ranks` threads, one per rank, and returns what each returned,
/// indexed by rank (nothing when `fn` returns void). If ranks failed, rethrows the failure of
/// the lowest-numbered one (not counting ranks merely stopped because another failed):
/// `deadlock_error` if the ranks deadlocked, `aborted` if one called `abort`.
/// @code
///   auto r = comet::threads::run(2, [](auto& t) { return comet::kernels::echo(t, {.sizes = {8}}); });
///   // r[0]: the records measured on the test node
/// @endcode
template <class F>
auto run(int ranks, F&& fn, const options& opt = {}) {
    using result = std::invoke_result_t<F&, transport&>;
    if constexpr (std::is_void_v<result>) {
        detail::run_ranks(ranks, opt, [&](transport& t) { fn(t); });
    } else {
        std::vector<std::optional<result>> slots(static_cast<std::size_t>(std::max(ranks, 0)));
        detail::run_ranks(ranks, opt, [&](transport& t) { slots[static_cast<std::size_t>(t.rank())].emplace(fn(t)); });
        std::vector<result> out;
        out.reserve(slots.size());
        for (auto& x : slots) out.push_back(std::move(*x));
        return out;
    }
}

}  // namespace comet::threads
