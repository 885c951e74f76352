// comet/transport/nx2.hpp — the simulated iPSC/860: every rank's real code runs on a fiber
// against a discrete-event model of the machine's network and of NX/2, in virtual time.
//
//   auto r = comet::nx2::run(comet::nx2::ipsc860(4), [](comet::nx2::transport& t) {
//       return comet::kernels::echo(t, {.sizes = {0, 100, 4096}});
//   });
//
// SPEC 4.3; the model is CoMet thesis chapter 4 (architecture, NX/2's protocols, table 4.1) with
// its software costs calibrated to the echo figures of section 5.1. docs/nx2-model.md describes
// every parameter, where it comes from, and the calibration algebra.
//
// The transport's operations are NX/2's (thesis table 4.1):
//   send / recv           csend / crecv          (blocking, "locally synchronous")
//   isend / irecv / wait  isend / irecv / msgwait
//   test                  msgdone
//   iprobe                iprobe
//   bsend                 csend                  (the buffered capability: never waits for a receive,
//                                                 nor, unlike csend, for a free buffer)
//   barrier               gsync                  (dimension exchange: log2 P steps)
//   broadcast             csend(..., -1) + crecv (a spanning tree of the cube: log2 P levels)
//   allreduce_sum         gdsum                  (dimension exchange of the vector: log2 P steps)
//   now                   dclock                 (virtual seconds; one clock for all nodes)
//   compute(work)         the CPU model of machine.hpp (charges time, does no arithmetic)
// The collectives are library code over the model's own messages (as NX/2's were over its
// kernel's), so their growth with log P follows from the model. Groups that are not a power of
// two fold the extra ranks onto the others first.
//
// Optional capabilities, defined honestly on the model: `ssend`/`issend` (NX/2 had none: the
// request protocol for every size, acknowledged only once a receive matches), `rsend`/`irsend`
// (NX/2's force types: the data goes at once and must find a posted receive, else the receiving
// rank fails), `sendrecv` (isend + crecv + msgwait), `progress` (an NX/2 call; NX/2 progresses by
// interrupts anyway). `bsend` (csend, except that a small message finding no free buffer at
// its destination goes by the long messages' protocol, into the receiver's system space,
// instead of waiting for one),
// and no nonblocking collectives (NX/2 had none): kernels that need them report "not supported".
// `send` is csend and may wait for a buffer, as standard-send semantics allow.
//
// OS noise: `add_detours` puts detours on a node's CPU, each taking it as an interrupt handler of
// its length would (nx2/engine.hpp); comet::noisy (transport/decorators/noisy.hpp) registers them.
//
// Determinism: one event queue ordered by (time, sequence); no decision depends on the host.
// Deadlock (every rank waits, no event pending) raises `deadlock_error` on every rank, naming
// what each waits for; an exception on one rank stops all and `run` rethrows it.
#pragma once

#include <comet/core/checks.hpp>
#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/transport/nx2/engine.hpp>
#include <comet/transport/nx2/machine.hpp>
#include <comet/transport/nx2/memory.hpp>
#include <comet/transport/nx2/message.hpp>
#include <comet/transport/nx2/network.hpp>
#include <comet/transport/nx2/time.hpp>
#include <comet/transport/nx2/waits.hpp>
#include <comet/transport/nx2/world.hpp>

#include <bit>
#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace comet::nx2 {

class transport;

/// A nonblocking operation (an NX/2 message id). Move-only. Dropping it while pending cancels
/// a receive (data that still arrives is thrown away) and keeps a send's promise: its bytes
/// are copied and still delivered.
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
    bool pending() const noexcept { return op_ != nullptr || id_; }

private:
    friend class transport;
    void take(request& o) noexcept {
        world_ = std::exchange(o.world_, nullptr);
        op_ = std::exchange(o.op_, nullptr);
        id_ = std::exchange(o.id_, false);
        result_ = o.result_;
    }
    void release() noexcept {
        if (op_) world_->abandon(op_);
        op_ = nullptr;
        world_ = nullptr;
        id_ = false;
    }

    detail::world* world_ = nullptr;
    detail::op* op_ = nullptr;
    bool id_ = false;  ///< an NX/2 message id that msgwait/msgdone still has to be called on
    status result_;
};

/// One rank's endpoint on the simulated machine. Created by `run`; used only by its rank.
class transport {
public:
    using request = nx2::request;

    transport(detail::world& w, int rank) : world_(&w), rank_(rank), size_(w.ranks()) {}
    transport(const transport&) = delete;
    transport& operator=(const transport&) = delete;

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }

    // ---- point to point: csend, crecv, isend, irecv, msgwait, msgdone, iprobe ----

    /// csend: returns once the buffer may be reused (an eager message copied into a system
    /// buffer; a long one delivered over its circuit). A small message to a node holding
    /// `eager_buffers` of this node's messages unreceived waits for one to be freed (NX/2's flow
    /// control; standard-send semantics allow it: `bsend` never waits).
    void send(int dest, int tag, const_bytes data) { blocking_send(dest, tag, data, "send", standard(data.size())); }

    /// crecv.
    status recv(int source, int tag, mutable_bytes buffer) {
        check_recv(source, tag, "recv");
        return finish(receive(source, tag, false, buffer, detail::wait_op::recv));
    }

    request isend(int dest, int tag, const_bytes data) { return start_send(dest, tag, data, "isend", standard(data.size())); }

    request irecv(int source, int tag, mutable_bytes buffer) {
        check_recv(source, tag, "irecv");
        world_->check_stop(rank_);
        return wrap(world_->start_recv(rank_, source, tag, false, buffer));
    }

    /// msgwait (a system call, also when the operation is already complete).
    status wait(request& r) {
        if (!r.id_) return std::exchange(r.result_, status{});
        world_->check_stop(rank_);
        world_->charge(rank_, world_->config().call);
        r.id_ = false;
        if (!r.op_) return std::exchange(r.result_, status{});
        detail::op* o = std::exchange(r.op_, nullptr);
        r.world_ = nullptr;
        r.result_ = status{};
        guard g{world_, o};
        auto ready = [o] { return o->done; };
        world_->block(rank_, ready,
                      o->is_send ? detail::wait_desc{detail::wait_op::wait_send, o->peer, o->tag, o->result.size}
                                 : detail::wait_desc{detail::wait_op::wait_recv, o->peer, o->tag, o->buffer.size()});
        return finish(g.take());
    }

    /// msgdone: a system call that reports completion without waiting.
    std::optional<status> test(request& r) {
        if (!r.id_) return std::exchange(r.result_, status{});
        world_->check_stop(rank_);
        world_->charge(rank_, world_->config().call);
        if (r.op_ && !r.op_->done) {
            const detail::op* o = r.op_;
            world_->idle(rank_, o->is_send ? detail::wait_desc{detail::wait_op::poll_send, o->peer, o->tag, o->result.size}
                                           : detail::wait_desc{detail::wait_op::poll_recv, o->peer, o->tag, o->buffer.size()});
            return std::nullopt;
        }
        r.id_ = false;
        if (!r.op_) return std::exchange(r.result_, status{});
        detail::op* o = std::exchange(r.op_, nullptr);
        r.world_ = nullptr;
        return finish(o);
    }

    /// msgwait on each request in turn.
    void wait_all(std::span<request> requests) {
        for (auto& r : requests) wait(r);
    }

    /// iprobe: a system call; the earliest matching message that has arrived, left queued.
    std::optional<status> iprobe(int source, int tag) {
        check_recv(source, tag, "iprobe");
        world_->check_stop(rank_);
        world_->charge(rank_, world_->config().call);
        if (const detail::message* m = world_->find_unexpected(rank_, source, tag, false))
            return status{m->source, m->tag, m->size};
        world_->idle(rank_, {detail::wait_op::poll_probe, source, tag, 0});
        return std::nullopt;
    }
    [[deprecated("renamed iprobe: it never blocks")]] std::optional<status> probe(int source, int tag) {
        return iprobe(source, tag);
    }

    /// csend as the buffered capability: NX/2's csend never waits for the receiver to post a
    /// receive (a short message goes into the buffers reserved for this node; for a long one
    /// the receiver's kernel allocates a buffer on request), which is the send CoMet's thesis
    /// assumes when both nodes of a pairwise exchange send first. Where csend would wait for a
    /// free buffer at `dest` (all `eager_buffers` hold unreceived messages), bsend copies the
    /// message into a system buffer of this node's kernel (the copy csend makes anyway) and
    /// sends it as a long message: the receiver's kernel allocates system space for it on
    /// request. It never waits for the receiver, however many messages it leaves unreceived
    /// and whichever the receiver takes first (docs/nx2-model.md, "bsend").
    void bsend(int dest, int tag, const_bytes data) {
        blocking_send(dest, tag, data, "bsend", standard(data.size()), true);
    }

    // ---- optional capabilities ----

    /// Synchronous send (not in NX/2): the request protocol for every size, acknowledged only
    /// once a receive matches the message, so it completes only after the match.
    void ssend(int dest, int tag, const_bytes data) { blocking_send(dest, tag, data, "ssend", detail::mode::sync); }
    request issend(int dest, int tag, const_bytes data) { return start_send(dest, tag, data, "issend", detail::mode::sync); }

    /// Ready send (NX/2's force types): no request, no buffer, the data streams at once. The
    /// receive must be posted when it arrives; if not, the receiving rank fails.
    void rsend(int dest, int tag, const_bytes data) { blocking_send(dest, tag, data, "rsend", detail::mode::ready); }
    request irsend(int dest, int tag, const_bytes data) { return start_send(dest, tag, data, "irsend", detail::mode::ready); }

    /// isend, crecv, msgwait.
    status sendrecv(int dest, int send_tag, const_bytes out, int source, int recv_tag, mutable_bytes in) {
        request r = isend(dest, send_tag, out);
        const status s = recv(source, recv_tag, in);
        wait(r);
        return s;
    }

    /// A system call that does nothing else: NX/2 advances messages in interrupt handlers,
    /// whatever the process does.
    void progress() {
        world_->check_stop(rank_);
        world_->charge(rank_, world_->config().call);
        world_->idle(rank_, {detail::wait_op::poll_progress, 0, 0, 0});
    }

    // ---- global operations: gsync, csend(-1), gdsum ----

    /// gsync: dimension exchange of empty messages, log2 P steps.
    void barrier() {
        world_->check_stop(rank_);
        collective c(*this, "barrier (gsync)", 0);
        const int q = std::bit_floor(static_cast<unsigned>(size_)), extra = size_ - q;
        if (rank_ >= q) {  // fold onto a partner in the largest power-of-two group
            c.send(rank_ - q, {});
            c.recv(rank_ - q, {});
            return;
        }
        if (rank_ < extra) c.recv(rank_ + q, {});
        for (int k = 1; k < q; k <<= 1) {
            c.send(rank_ ^ k, {});
            c.recv(rank_ ^ k, {});
        }
        if (rank_ < extra) c.send(rank_ + q, {});
    }

    /// NX/2's broadcast (csend to -1): a spanning tree of the cube rooted at `root`, the farthest
    /// subtree served first; every node receives once and forwards to its subtrees.
    void broadcast(int root, mutable_bytes data) {
        check_rank(root, "broadcast root");
        world_->check_stop(rank_);
        collective c(*this, "broadcast from root " + std::to_string(root) + " (" + std::to_string(data.size()) + " bytes)", 1);
        const int p = size_;
        if (p == 1) return;
        // On a power-of-two group, relative addresses by XOR make every tree edge one channel.
        const bool cube = std::has_single_bit(static_cast<unsigned>(p));
        const int v = cube ? rank_ ^ root : (rank_ - root + p) % p;
        const auto actual = [&](int u) { return cube ? u ^ root : (u + root) % p; };
        int below = std::bit_width(static_cast<unsigned>(p - 1));
        if (v != 0) {
            c.recv(actual(v & (v - 1)), data);
            below = std::countr_zero(static_cast<unsigned>(v));
        }
        for (int k = below - 1; k >= 0; --k)
            if (const int child = v | (1 << k); child < p) c.send(actual(child), data);
    }

    /// gdsum: dimension exchange of the whole vector, adding at every step (log2 P steps). The
    /// partners of a step add the same two vectors (a + b == b + a in IEEE arithmetic), so every
    /// rank ends with the same bits.
    void allreduce_sum(std::span<double> values) {
        world_->check_stop(rank_);
        collective c(*this, "allreduce_sum (gdsum) of " + std::to_string(values.size()) + " doubles", 2);
        if (size_ == 1) return;
        const mutable_bytes mine = std::as_writable_bytes(values);
        if (scratch_.size() < values.size()) scratch_.resize(values.size());  // kept: no allocation per call
        const std::span<double> other(scratch_.data(), values.size());
        const mutable_bytes theirs = std::as_writable_bytes(other);
        const auto add = [&] {
            world_->charge(rank_, vector_add_time(world_->config(), values.size()));
            for (std::size_t i = 0; i < values.size(); ++i) values[i] += other[i];
        };
        const int q = std::bit_floor(static_cast<unsigned>(size_)), extra = size_ - q;
        if (rank_ >= q) {
            c.send(rank_ - q, mine);
            c.recv(rank_ - q, mine);
            return;
        }
        if (rank_ < extra) {
            c.recv(rank_ + q, theirs);
            add();
        }
        for (int k = 1; k < q; k <<= 1) {
            c.send(rank_ ^ k, mine);
            c.recv(rank_ ^ k, theirs);
            add();
        }
        if (rank_ < extra) c.send(rank_ + q, mine);
    }

    // ---- time, computation, failure ----

    /// dclock: virtual seconds since the run began.
    double now() const noexcept { return to_seconds(world_->now()); }
    /// A node has one CPU and NX/2 no threads: a progress thread is modelled in time slices of
    /// the computation (kernels/nbc.hpp).
    static constexpr bool time_sliced_threads = true;
    /// Every node reads the one virtual clock.
    bool clock_is_global() const noexcept { return true; }

    /// Charges the CPU model's time for `w` (machine.hpp, `compute_time`); interrupts that
    /// arrive meanwhile make it take longer.
    void compute(const work& w) {
        world_->check_stop(rank_);
        world_->charge(rank_, compute_time(world_->config(), w));
    }

    [[noreturn]] void abort(std::string_view message) { raise<aborted>(rank_, message); }

    // ---- the simulator ----

    /// The machine being simulated.
    const nx2::machine& machine() const noexcept { return world_->config(); }
    /// Virtual time in picoseconds.
    vtime clock() const noexcept { return world_->now(); }
    /// What this rank's node counted so far.
    const node_counters& counters() const noexcept { return world_->counters(rank_); }
    /// How many of this node's transmissions were sent again so far (machine::retry_timeout;
    /// always 0 with retransmission off). A count since the run began: a decorator that traces
    /// one part of the run takes the difference (tracing.hpp).
    std::uint64_t retransmissions() const noexcept { return counters().retransmissions; }
    /// The CPU time interrupt handlers (messages, acknowledgements and credits arriving, a send's
    /// DMA finishing) took from this rank's process so far, in seconds: what the NIST seed's user
    /// computation leaves out (the tracing decorator takes it out of each `compute`). Detours
    /// (`add_detours`) are not in it.
    double interrupt_seconds() const noexcept { return to_seconds(world_->stolen(rank_)); }
    /// The last receive this rank completed (recv, wait, test): its message's packets' time on
    /// the wire (each packet its hops' latency and its bytes' streaming; request, acknowledgement
    /// and data of a long message; no waiting for a channel), and the span from the first
    /// one's start to the last one's end, in seconds of now()'s clock. All 0 for a message to
    /// oneself. What the tracing decorator reads for the NIST seed's physical delay.
    wire_span last_received_wire() const noexcept { return last_wire_; }

    /// Puts detours (OS noise) on this node's CPU from now on: `next()` gives them in order of
    /// start, without end, each with `start` and `length` in seconds of now()'s clock. Each takes
    /// the node's CPU for its length whatever the rank does, as an interrupt handler of that cost
    /// would (nx2/engine.hpp). Returns the handle for `remove_detours` and `detours`. What
    /// comet::noisy calls: not forwarded by decorators, whose time bases may differ.
    template <class Next>
        requires requires(Next& n) {
            { n().start } -> std::convertible_to<double>;
            { n().length } -> std::convertible_to<double>;
        }
    std::size_t add_detours(Next next) {
        return world_->add_detours(rank_, [next = std::move(next)]() mutable {
            const auto d = next();
            return detail::detour{from_seconds(d.start), from_seconds(d.length)};
        });
    }
    /// No further detours from `handle`'s schedule.
    void remove_detours(std::size_t handle) noexcept { world_->remove_detours(handle); }
    /// How many of `handle`'s detours came so far, and their total length.
    const detour_counters& detours(std::size_t handle) const noexcept { return world_->detours(handle); }
    /// The detours that began on this node so far plus those that ended (core/concepts.hpp,
    /// counts_disturbances): a reading moves across any stretch a detour overlaps, so the
    /// measurement engines see the simulated machine's noise as a real machine's preemptions.
    /// Always 0 on a machine without detours, and the engines then exchange the same messages
    /// as on one with them: a noisy run and a quiet one measure the same protocol.
    std::uint64_t disturbances() const noexcept { return world_->disturbances(rank_); }

private:
    /// Takes a completed op's status and gives the op back; raises its truncation.
    struct guard {
        detail::world* w;
        detail::op* o;
        guard(detail::world* world, detail::op* op) noexcept : w(world), o(op) {}
        guard(const guard&) = delete;
        guard& operator=(const guard&) = delete;
        ~guard() {
            if (o) w->abandon(o);
        }
        detail::op* take() noexcept { return std::exchange(o, nullptr); }
    };

    /// A collective in progress: its tag (the same on every rank, as every rank calls the
    /// collectives in the same order), and its name in deadlock reports.
    class collective {
    public:
        collective(transport& t, std::string what, int kind) : t_(t), what_(std::move(what)) {
            tag_ = static_cast<int>(((t.world_->next_collective(t.rank_) & 0x0fffffffu) << 2) | static_cast<unsigned>(kind));
            t.world_->set_collective(t.rank_, what_.c_str());
        }
        collective(const collective&) = delete;
        collective& operator=(const collective&) = delete;
        ~collective() { t_.world_->set_collective(t_.rank_, nullptr); }

        void send(int dest, const_bytes data) {
            detail::op* o = t_.world_->start_send(t_.rank_, dest, tag_, true, data, t_.standard(data.size()));
            guard g{t_.world_, o};
            auto ready = [o] { return o->done; };
            t_.world_->block(t_.rank_, ready, {detail::wait_op::send, dest, tag_, data.size()});
            t_.world_->free_op(g.take());
        }
        /// Receives exactly `data.size()` bytes from `source`; anything else is a mismatch of
        /// the collective's arguments between ranks.
        void recv(int source, mutable_bytes data) {
            detail::op* o = t_.receive(source, tag_, true, data, detail::wait_op::recv);
            const status s = o->result;
            const std::size_t got = o->overflow ? o->overflow : s.size;
            t_.world_->free_op(o);
            if (got != data.size())
                raise<invalid_argument>(t_.rank_, what_, ": rank ", source, " sent ", got, " bytes where this rank expects ",
                                        data.size(), " (every rank must call it with the same root and size)");
        }

    private:
        transport& t_;
        std::string what_;
        int tag_ = 0;
    };

    detail::mode standard(std::size_t size) const noexcept {
        return size <= world_->config().eager_limit ? detail::mode::eager : detail::mode::rendezvous;
    }

    void check_rank(int r, const char* what) const { comet::detail::check_peer(rank_, size_, r, what); }
    void check_send(int dest, int tag, std::size_t size, const char* what) const {
        comet::detail::check_send(rank_, size_, dest, tag, size, what);
    }
    void check_recv(int source, int tag, const char* what) const {
        comet::detail::check_recv(rank_, size_, source, tag, what);
    }

    void blocking_send(int dest, int tag, const_bytes data, const char* what, detail::mode how, bool buffered = false) {
        check_send(dest, tag, data.size(), what);
        world_->check_stop(rank_);
        detail::op* o = world_->start_send(rank_, dest, tag, false, data, how, buffered);
        guard g{world_, o};
        auto ready = [o] { return o->done; };
        detail::wait_desc desc{how == detail::mode::sync    ? detail::wait_op::ssend
                               : how == detail::mode::ready ? detail::wait_op::rsend
                               : how == detail::mode::eager ? detail::wait_op::credit
                                                            : detail::wait_op::send,
                               dest, tag, data.size()};
        world_->block(rank_, ready, desc);
        world_->free_op(g.take());
    }

    request start_send(int dest, int tag, const_bytes data, const char* what, detail::mode how) {
        check_send(dest, tag, data.size(), what);
        world_->check_stop(rank_);
        return wrap(world_->start_send(rank_, dest, tag, false, data, how));
    }

    /// A receive, blocking until its message is in (the op is returned done, not yet freed).
    detail::op* receive(int source, int tag, bool system, mutable_bytes buffer, detail::wait_op what) {
        world_->check_stop(rank_);
        detail::op* o = world_->start_recv(rank_, source, tag, system, buffer);
        guard g{world_, o};
        auto ready = [o] { return o->done; };
        world_->block(rank_, ready, {what, source, tag, buffer.size()});
        return g.take();
    }

    /// A request for `o`: already complete (status kept for the first wait/test) or pending.
    /// A receive that found its message too big stays with the request: the wait or test that
    /// completes it raises the truncation (the concept's rule), not the irecv.
    request wrap(detail::op* o) {
        request r;
        r.id_ = true;
        if (o->done && !o->overflow) {
            r.result_ = finish(o);
            return r;
        }
        r.world_ = world_;
        r.op_ = o;
        return r;
    }

    /// The status of completed op `o`, which goes back to the pool; raises its truncation.
    status finish(detail::op* o) {
        const status s = o->result;
        if (!o->is_send) last_wire_ = {to_seconds(o->wire_time), to_seconds(o->wire_from), to_seconds(o->wire_to)};
        const std::size_t overflow = o->overflow;
        const int want_source = o->peer, want_tag = o->tag;
        const std::size_t capacity = o->buffer.size();
        world_->free_op(o);
        if (overflow)
            throw truncation_error(comet::detail::truncated_text(rank_, want_source, want_tag, overflow, s.source, s.tag, capacity));
        return s;
    }

    detail::world* world_;
    int rank_;
    int size_;
    std::vector<double> scratch_;  ///< allreduce_sum: the partner's vector
    wire_span last_wire_{};        ///< of the last receive completed
};

static_assert(comet::transport<transport>);
static_assert(synchronous_send_transport<transport> && ready_send_transport<transport> && sendrecv_transport<transport> &&
              progress_transport<transport>);
static_assert(buffered_send_transport<transport> && !nonblocking_collective_transport<transport>);

namespace detail {

template <class F>
auto run_world(const machine& m, int ranks, F&& fn, const run_options& opt) {
    using result = std::invoke_result_t<F&, transport&>;
    detail::world w(m, ranks, opt.stack_size);
    const auto finish = [&](std::exception_ptr e) {
        if (opt.statistics) w.fill(*opt.statistics);
        if (e) std::rethrow_exception(e);
    };
    if constexpr (std::is_void_v<result>) {
        finish(w.run([&](int r) {
            transport t(w, r);
            fn(t);
        }));
    } else {
        std::vector<std::optional<result>> slots(static_cast<std::size_t>(ranks));
        finish(w.run([&](int r) {
            transport t(w, r);
            slots[static_cast<std::size_t>(r)].emplace(fn(t));
        }));
        std::vector<result> out;
        out.reserve(slots.size());
        for (auto& x : slots) out.push_back(std::move(*x));
        return out;
    }
}

}  // namespace detail

/// Runs `fn(transport&)` on every rank of the simulated machine `m` (or on `opt.ranks` of its
/// nodes) and returns what each returned, indexed by rank (nothing when `fn` returns void).
/// If ranks failed, rethrows the failure of the lowest-numbered one (not counting ranks merely
/// stopped because another failed): `deadlock_error` if the ranks deadlocked, `aborted` if one
/// called `abort`.
/// @throws invalid_argument for a bad machine (naming the parameter), a rank count that does
///         not fit it, or a stack outside 16 KiB..1 GiB; error for a run this host cannot hold (a
///         machine too large or too many ranks: refused before it starts, naming the estimate)
///         or one that runs out of memory.
/// @code
///   auto r = comet::nx2::run(comet::nx2::ipsc860(4), [](comet::nx2::transport& t) {
///       return comet::kernels::echo(t, {.sizes = {0, 8, 4096}});
///   });
///   // r[0]: the records measured on the test node, in virtual time
/// @endcode
template <class F>
auto run(const machine& m, F&& fn, const run_options& opt = {}) {
    validate(m);
    const int ranks = opt.ranks == 0 ? m.nodes() : opt.ranks;
    if (ranks < 1 || ranks > m.nodes())
        raise<invalid_argument>(-1, "nx2::run: ", ranks, " ranks do not fit the ", m.nodes(), "-node machine ", m.name);
    if (opt.stack_size < 16 * 1024 || opt.stack_size > max_stack_size)
        raise<invalid_argument>(-1, "nx2::run: stack_size = ", opt.stack_size, " bytes is outside ", 16 * 1024, "..",
                                max_stack_size);
    detail::check_memory_for(m, ranks, detail::available_memory());
    try {
        return detail::run_world(m, ranks, std::forward<F>(fn), opt);
    } catch (const std::bad_alloc&) {
        raise<error>(-1, "nx2::run: out of memory simulating ", ranks, " ranks (", detail::available_memory() >> 20,
                     " MiB available now)");
    }
}


}  // namespace comet::nx2
