// comet/transport/loggops.hpp — a LogGOPS machine: every rank's real code runs on a fiber against
// the model of loggops/model.hpp, in virtual time, on the simulator's engine (the one the
// simulated iPSC/860 runs on: deterministic, deadlock reports, OS noise by detours).
//
//   comet::loggops::machine m = comet::loggops::read_machine_file("threads.machine");
//   m.nodes = 1024;
//   auto r = comet::loggops::run(m, [](comet::loggops::transport& t) {
//       return comet::kernels::collectives(t, {});
//   });
//
// A machine comes from `comet fit-machine` (the parametrised round trips of kernels/loggp.hpp,
// fitted by analysis/loggp.hpp), from a file, or from the struct's fields. SPEC 4.4.
//
// Operations: send, recv, isend, irecv, wait, test, iprobe as the model says (standard sends go
// eagerly up to S bytes, by rendezvous above); `bsend` always eagerly and complete at once, a
// mode of its own (as MPI_Bsend: `bsend_copies`); `ssend`/`issend` by rendezvous at every size;
// `sendrecv`; `progress`. The collectives are comet's portable ones over these messages
// (algorithms/collectives.hpp: dissemination barrier, binomial broadcast, recursive-doubling
// allreduce): LogGOPS says what a message costs, not how a library combines them, and the
// combining arithmetic costs no time. `compute` charges nx2's CPU model with the machine's
// CPU parameters.
#pragma once

#include <comet/core/checks.hpp>
#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/transport/loggops/machine.hpp>
#include <comet/transport/loggops/model.hpp>
#include <comet/transport/nx2/engine.hpp>
#include <comet/transport/nx2/fibers.hpp>
#include <comet/transport/nx2/memory.hpp>
#include <comet/transport/nx2/time.hpp>

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

namespace comet::loggops {

using nx2::detour_counters;
using nx2::to_seconds;

/// What a run did, filled in when it ends (run_options::statistics).
struct run_statistics {
    vtime end_time = 0;
    std::uint64_t events = 0;
    std::vector<node_counters> nodes;
    std::size_t messages_held = 0;  ///< sent and never received: still unexpected when the run ended
    node_counters total() const {
        node_counters t;
        for (const auto& n : nodes) t += n;
        return t;
    }
};

/// How `loggops::run` runs.
struct run_options {
    int ranks = 0;                        ///< 0: every node of the machine
    std::size_t stack_size = 256 * 1024;  ///< per rank, 16 KiB .. nx2::max_stack_size
    run_statistics* statistics = nullptr;
};

class transport;

/// A nonblocking operation. Move-only. Dropping it while pending cancels a receive (data that
/// still arrives is thrown away) and keeps a send's promise: its bytes are copied and delivered.
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
    bool pending() const noexcept { return op_ != nullptr; }

private:
    friend class transport;
    void take(request& o) noexcept {
        world_ = std::exchange(o.world_, nullptr);
        op_ = std::exchange(o.op_, nullptr);
        result_ = o.result_;
    }
    void release() noexcept {
        if (op_) world_->abandon(op_);
        op_ = nullptr;
        world_ = nullptr;
    }
    detail::world* world_ = nullptr;
    detail::op* op_ = nullptr;
    status result_;
};

/// One rank's endpoint on a LogGOPS machine. Created by `run`; used only by its rank.
class transport {
public:
    using request = loggops::request;
    static constexpr bool bsend_copies = true;
    static constexpr bool time_sliced_threads = true;

    transport(detail::world& w, int rank) : world_(&w), rank_(rank), size_(w.ranks()) {}
    transport(const transport&) = delete;
    transport& operator=(const transport&) = delete;

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }

    // ---- point to point ----

    void send(int dest, int tag, const_bytes data) { blocking_send(dest, tag, data, "send", rendezvous(data.size()), false); }
    void bsend(int dest, int tag, const_bytes data) { blocking_send(dest, tag, data, "bsend", false, true); }
    void ssend(int dest, int tag, const_bytes data) { blocking_send(dest, tag, data, "ssend", true, false); }
    request isend(int dest, int tag, const_bytes data) { return start_send(dest, tag, data, "isend", rendezvous(data.size())); }
    request issend(int dest, int tag, const_bytes data) { return start_send(dest, tag, data, "issend", true); }

    status recv(int source, int tag, mutable_bytes buffer) {
        comet::detail::check_recv(rank_, size_, source, tag, "recv");
        world_->check_stop(rank_);
        detail::op* o = world_->start_recv(rank_, source, tag, buffer);
        guard g{world_, o};
        wait_for(o, {detail::wait_op::recv, source, tag, buffer.size()});
        return finish(g.take());
    }

    request irecv(int source, int tag, mutable_bytes buffer) {
        comet::detail::check_recv(rank_, size_, source, tag, "irecv");
        world_->check_stop(rank_);
        return wrap(world_->start_recv(rank_, source, tag, buffer));
    }

    status wait(request& r) {
        if (!r.op_) return std::exchange(r.result_, status{});
        world_->check_stop(rank_);
        detail::op* o = std::exchange(r.op_, nullptr);
        r.world_ = nullptr;
        guard g{world_, o};
        wait_for(o, o->is_send ? detail::wait_desc{detail::wait_op::wait_send, o->peer, o->tag, o->result.size}
                               : detail::wait_desc{detail::wait_op::wait_recv, o->peer, o->tag, o->buffer.size()});
        return finish(g.take());
    }

    std::optional<status> test(request& r) {
        if (!r.op_) return std::exchange(r.result_, status{});
        world_->check_stop(rank_);
        if (!r.op_->done) {
            const detail::op* o = r.op_;
            world_->idle(rank_, o->is_send ? detail::wait_desc{detail::wait_op::poll_send, o->peer, o->tag, o->result.size}
                                           : detail::wait_desc{detail::wait_op::poll_recv, o->peer, o->tag, o->buffer.size()});
            return std::nullopt;
        }
        detail::op* o = std::exchange(r.op_, nullptr);
        r.world_ = nullptr;
        return finish(o);
    }

    void wait_all(std::span<request> requests) {
        for (auto& r : requests) wait(r);
    }

    std::optional<status> iprobe(int source, int tag) {
        comet::detail::check_recv(rank_, size_, source, tag, "iprobe");
        world_->check_stop(rank_);
        if (const detail::message* m = world_->find_unexpected(rank_, source, tag)) return status{m->source, m->tag, m->size};
        world_->idle(rank_, {detail::wait_op::poll_probe, source, tag, 0});
        return std::nullopt;
    }

    status sendrecv(int dest, int send_tag, const_bytes out, int source, int recv_tag, mutable_bytes in) {
        request r = isend(dest, send_tag, out);
        const status s = recv(source, recv_tag, in);
        wait(r);
        return s;
    }

    /// Looks for nothing in particular: costs what a poll costs (the interfaces progress anyway).
    void progress() {
        world_->check_stop(rank_);
        world_->idle(rank_, {detail::wait_op::poll_progress, 0, 0, 0});
    }

    // ---- time, computation, failure ----

    double now() const noexcept { return to_seconds(world_->now()); }
    bool clock_is_global() const noexcept { return true; }
    void compute(const work& w) {
        world_->check_stop(rank_);
        world_->charge(rank_, nx2::compute_time(world_->config(), w));
    }
    [[noreturn]] void abort(std::string_view message) { raise<aborted>(rank_, message); }

    // ---- the simulator ----

    const loggops::machine& machine() const noexcept { return world_->config(); }
    vtime clock() const noexcept { return world_->now(); }
    const node_counters& counters() const noexcept { return world_->counters(rank_); }
    /// The last receive this rank completed: from its message's first packet leaving the sender
    /// to its last byte landing (0 for a message to oneself), in seconds of now()'s clock.
    wire_span last_received_wire() const noexcept { return last_wire_; }

    /// Detours (OS noise) on this rank's CPU, as on the simulated iPSC/860 (nx2.hpp).
    template <class Next>
        requires requires(Next& n) {
            { n().start } -> std::convertible_to<double>;
            { n().length } -> std::convertible_to<double>;
        }
    std::size_t add_detours(Next next) {
        return world_->add_detours(rank_, [next = std::move(next)]() mutable {
            const auto d = next();
            return nx2::detail::detour{nx2::from_seconds(d.start), nx2::from_seconds(d.length)};
        });
    }
    void remove_detours(std::size_t handle) noexcept { world_->remove_detours(handle); }
    const detour_counters& detours(std::size_t handle) const noexcept { return world_->detours(handle); }
    std::uint64_t disturbances() const noexcept { return world_->disturbances(rank_); }

private:
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

    bool rendezvous(std::size_t size) const noexcept { return size > world_->config().S; }

    void wait_for(detail::op* o, const detail::wait_desc& what) {
        auto ready = [o] { return o->done; };
        world_->block(rank_, ready, what);
    }

    void blocking_send(int dest, int tag, const_bytes data, const char* what, bool by_rendezvous, bool buffered) {
        comet::detail::check_send(rank_, size_, dest, tag, data.size(), what);
        world_->check_stop(rank_);
        detail::op* o = world_->start_send(rank_, dest, tag, data, by_rendezvous, buffered);
        guard g{world_, o};
        wait_for(o, {by_rendezvous ? detail::wait_op::ssend : detail::wait_op::send, dest, tag, data.size()});
        world_->free_op(g.take());
    }

    request start_send(int dest, int tag, const_bytes data, const char* what, bool by_rendezvous) {
        comet::detail::check_send(rank_, size_, dest, tag, data.size(), what);
        world_->check_stop(rank_);
        return wrap(world_->start_send(rank_, dest, tag, data, by_rendezvous, false));
    }

    /// A request for `o`: already complete (its status kept for the first wait or test, which
    /// also charges its cost) or pending. A receive that found its message too big stays with
    /// the request: the wait or test that completes it raises the truncation.
    request wrap(detail::op* o) {
        request r;
        r.world_ = world_;
        r.op_ = o;
        return r;
    }

    /// The status of completed op `o`, whose cost the process pays now; `o` goes back to the
    /// pool; raises its truncation.
    status finish(detail::op* o) {
        const status s = o->result;
        world_->collect(rank_, o);
        if (!o->is_send) last_wire_ = {to_seconds(o->wire_to - o->wire_from), to_seconds(o->wire_from), to_seconds(o->wire_to)};
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
    wire_span last_wire_{};
};

static_assert(comet::transport<transport>);
static_assert(synchronous_send_transport<transport> && sendrecv_transport<transport> && progress_transport<transport>);
static_assert(buffered_send_transport<transport> && !buffering_transport<transport>);

namespace detail {

/// Refuses a run the host cannot hold (`have` bytes available; 0: unknown) before it allocates:
/// the ranks' least memory and the state of the topology's links, in one line naming both.
inline void check_memory_for(const machine& m, int ranks, std::uint64_t have) {
    nx2::detail::check_memory_for(ranks, have);
    const links net(m.network, m.nodes);
    const std::uint64_t need = static_cast<std::uint64_t>(ranks) * nx2::detail::least_bytes_per_rank + net.bytes();
    if (have != 0 && need > have)
        raise<error>(-1, "loggops::run: ", ranks, " ranks of ", m.nodes, " nodes on ", net.describe(), " need at least ", need >> 20,
                     " MiB (", net.bytes() >> 20, " MiB of it the links' state); this host has ", have >> 20, " MiB available");
}

}  // namespace detail

/// Runs `fn(transport&)` on every rank of machine `m` (or on `opt.ranks` of its nodes) and returns
/// what each returned, indexed by rank (nothing when `fn` returns void). Failures as nx2::run.
/// @throws invalid_argument for a bad machine (naming the parameter), a rank count that does not
///         fit it, or a stack outside 16 KiB..1 GiB; error for a run this host cannot hold
///         (refused before it starts) or one that runs out of memory.
template <class F>
auto run(const machine& m, F&& fn, const run_options& opt = {}) {
    validate(m);
    const int ranks = opt.ranks == 0 ? m.nodes : opt.ranks;
    if (ranks < 1 || ranks > m.nodes)
        raise<invalid_argument>(-1, "loggops::run: ", ranks, " ranks do not fit the ", m.nodes, "-node machine ", m.name);
    if (opt.stack_size < 16 * 1024 || opt.stack_size > nx2::max_stack_size)
        raise<invalid_argument>(-1, "loggops::run: stack_size = ", opt.stack_size, " bytes is outside ", 16 * 1024, "..",
                                nx2::max_stack_size);
    detail::check_memory_for(m, ranks, nx2::detail::available_memory());
    using result = std::invoke_result_t<F&, transport&>;
    try {
        detail::world w(m, ranks, opt.stack_size);
        const auto finish = [&](std::exception_ptr e) {
            if (opt.statistics) {
                opt.statistics->end_time = w.now();
                opt.statistics->events = w.events_pushed();
                opt.statistics->nodes = w.all_counters();
                opt.statistics->messages_held = w.messages_held();
            }
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
    } catch (const std::bad_alloc&) {
        raise<error>(-1, "loggops::run: out of memory simulating ", ranks, " ranks (", nx2::detail::available_memory() >> 20,
                     " MiB available now)");
    }
}

}  // namespace comet::loggops
