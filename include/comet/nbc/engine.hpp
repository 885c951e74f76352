// comet/nbc/engine.hpp — nonblocking collectives on any transport: a schedule (nbc/schedule.hpp)
// started by one call that returns a request, advanced by `test` and `progress`, completed by
// `wait` (LibNBC's model; seed 002, section 4; SPEC 7.4).
//
//   comet::nbc::engine nb(t);
//   auto r = nb.iallreduce(values, comet::nbc::reduce_op::sum);   // round 0 posted
//   ... compute, calling nb.test(r) now and then ...
//   nb.wait(r);                                                   // every rank has the sum
//
// Progress. A schedule moves on only inside this engine's calls: `start` (and the one-shot
// operations) post round 0; `test(r)` completes what it can of r's current round and, when the
// round is over, begins the next (repeatedly, as far as it gets without waiting); `progress()`
// does that for every request this engine has started; `wait(r)` blocks in the transport's own
// wait on each pending operation of a round in turn. Between calls a round's messages move only
// as far as the transport moves them by itself (an interrupt-driven NX/2 completes a posted
// receive; nothing forwards it). That is the property the overhead benchmark measures
// (kernels/nbc.hpp): how much of a collective is left for `wait` when nobody calls `test`.
//
// Tags. Each start takes the next tag of the engine's own range of reserved tags
// (`first_tag` .. `first_tag + tag_count − 1`, in turn), the same on every rank because every rank
// starts the group's collectives in the same order (@pre, as MPI requires). Two collectives
// outstanding at once so never take each other's messages, nor a blocking collective's or a
// kernel's (their tags are elsewhere). At most `tag_count` may be outstanding on a rank, and a
// collective must complete before `tag_count` more have started (when the tags come back to its
// own): a start that breaks either rule raises `invalid_argument`.
//
// Native. A transport with MPI-3's nonblocking collectives (`nonblocking_collective_transport`:
// ibarrier, ibroadcast, iallreduce_sum) runs its own for those three unless the engine is told to
// prefer schedules; `request::implementation()` says which ran (`native` | `schedule`), and
// `algorithm()` which schedule ("native" for the transport's own).
//
// Persistent. `start(const schedule&)` runs a schedule the caller keeps, as often as wanted (one
// run at a time): build it once with nbc/schedules.hpp and start it every iteration, as LibNBC's
// persistent handles and MPI-4's persistent collectives do.
//
// Threads. The engine and its transport are one rank's: a progress thread may call `progress()`
// while the rank's own thread computes, as long as the two never call at the same time and hand
// over through a synchronising operation (nbc/progress_thread.hpp does that).
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/nbc/schedule.hpp>
#include <comet/nbc/schedules.hpp>
#include <comet/ops/point_to_point.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet::nbc {

/// The engine's reserved tags (core/types.hpp: comet's own range).
inline constexpr int first_tag = first_reserved_tag + 100;
inline constexpr int tag_count = 400;

/// Which implementation ran a nonblocking collective.
enum class implementation : unsigned char {
    native,    ///< the transport's own (MPI_Ibcast, ...)
    schedule,  ///< comet's schedule over the transport's isend/irecv/test
};

constexpr std::string_view to_string(implementation i) noexcept { return i == implementation::native ? "native" : "schedule"; }

/// How an engine runs. All ranks pass the same values (@pre).
struct engine_options {
    /// Run the transport's own nonblocking collective where it has one (else always a schedule).
    bool prefer_native = true;
    /// Where the schedules switch algorithm.
    schedule_options schedules = {};
};

template <transport T>
class engine;

/// A started nonblocking collective. Default-constructed: not started; `engine::test` of it
/// returns true at once.
template <transport T>
class request {
public:
    request() = default;

    /// Started and not yet completed.
    bool active() const noexcept { return state_ && !state_->done; }
    nbc::implementation implementation() const noexcept {
        return state_ && state_->native ? nbc::implementation::native : nbc::implementation::schedule;
    }
    /// The schedule's algorithm ("binomial", ...), "native" for the transport's own.
    std::string_view algorithm() const noexcept {
        if (!state_) return {};
        return state_->native ? std::string_view("native") : std::string_view(state_->plan->algorithm());
    }

private:
    friend class engine<T>;

    struct pending_op {
        typename T::request request;
        std::size_t expect = 0;  ///< a receive's size
        int peer = 0;
        bool recv = false;
    };
    struct state {
        const schedule* plan = nullptr;
        std::unique_ptr<schedule> owned;  ///< a one-shot operation's schedule
        std::size_t next_round = 0;
        std::vector<pending_op> pending;
        int tag = 0;
        bool native = false;
        typename T::request native_request{};
        bool done = false;
    };
    std::shared_ptr<state> state_;
};

/// Runs nonblocking collectives for one rank of a group (see the top of this header).
template <transport T>
class engine {
public:
    explicit engine(T& t, engine_options o = {}) : t_(&t), options_(o) {}
    engine(const engine&) = delete;
    engine& operator=(const engine&) = delete;

    T& transport() const noexcept { return *t_; }
    const engine_options& options() const noexcept { return options_; }
    /// Whether this engine runs `operation` ("ibarrier", "ibroadcast", "iallreduce_sum") natively.
    static constexpr bool has_native() noexcept { return nonblocking_collective_transport<T>; }

    /// Starts a schedule the caller keeps (persistent; it must outlive the request, and run once
    /// at a time). @pre every rank starts its part of the same collective at the same point.
    request<T> start(const schedule& s) { return begin(&s, nullptr); }
    /// Starts a schedule the request keeps.
    request<T> start(schedule&& s) {
        auto owned = std::make_unique<schedule>(std::move(s));
        const schedule* plan = owned.get();
        return begin(plan, std::move(owned));
    }

    /// Dissemination barrier (or the transport's ibarrier).
    request<T> ibarrier() {
        if constexpr (nonblocking_collective_transport<T>)
            if (options_.prefer_native) return native([&] { return t_->ibarrier(); });
        return start(barrier_schedule(t_->rank(), t_->size()));
    }
    /// `root`'s bytes into every rank's `data` (the same size everywhere).
    request<T> ibroadcast(int root, mutable_bytes data) {
        if constexpr (nonblocking_collective_transport<T>)
            if (options_.prefer_native) return native([&] { return t_->ibroadcast(root, data); });
        return start(broadcast_schedule(t_->rank(), t_->size(), root, data, options_.schedules));
    }
    /// The element-wise `op` over all ranks into every rank's `values`, the same bits everywhere.
    request<T> iallreduce(std::span<double> values, reduce_op op = reduce_op::sum) {
        if constexpr (nonblocking_collective_transport<T>)
            if (options_.prefer_native && op == reduce_op::sum) return native([&] { return t_->iallreduce_sum(values); });
        return start(allreduce_schedule(t_->rank(), t_->size(), values, op, options_.schedules));
    }
    /// Block r of `out` to rank r, block r of `in` from rank r.
    request<T> ialltoall(const_bytes out, mutable_bytes in) { return start(alltoall_schedule(t_->rank(), t_->size(), out, in)); }
    /// Every rank's `mine` into `all` on `root`, in rank order.
    request<T> igather(int root, const_bytes mine, mutable_bytes all) {
        return start(gather_schedule(t_->rank(), t_->size(), root, mine, all));
    }

    /// Advances `r` as far as it goes without waiting; true once it has completed (and on every
    /// call after). Raises what the transport raises, and `invalid_argument` when a peer sent a
    /// message of another size than this rank's part expects; a request that raised (here, in
    /// `wait` or in `progress`) is over, its operations dropped: `test` then returns true and
    /// `wait` returns at once, its buffers holding whatever had arrived.
    bool test(request<T>& r) { return !r.state_ || advance(*r.state_, false); }
    /// Completes `r`, blocking in the transport's own wait.
    void wait(request<T>& r) {
        if (r.state_) advance(*r.state_, true);
    }
    /// Advances every request this engine started and that has not completed (a test call without
    /// a request, as a progress thread or a computation loop makes).
    void progress() {
        for (auto& s : active_)
            if (!s->done) advance(*s, false);
        prune();
    }
    /// Requests started and not known to have completed.
    std::size_t outstanding() const noexcept {
        return static_cast<std::size_t>(std::count_if(active_.begin(), active_.end(), [](const auto& s) { return !s->done; }));
    }

private:
    using state = typename request<T>::state;

    void prune() {
        active_.erase(std::remove_if(active_.begin(), active_.end(), [](const auto& s) { return s->done; }), active_.end());
    }

    /// The tag of the next start: the tags go round in start order (the same on every rank), so
    /// the one they come back to may still be held by a collective started `tag_count` starts ago
    /// that has not completed here. Taking it again would let that collective's posted receives
    /// take the new one's messages: refused, as is a start with `tag_count` outstanding (which
    /// always holds the tag it comes back to).
    int next_tag() {
        prune();
        const int tag = first_tag + static_cast<int>(started_ % static_cast<unsigned long long>(tag_count));
        for (const auto& s : active_)
            if (!s->native && s->tag == tag)
                raise<invalid_argument>(t_->rank(), "nbc: ", active_.size(), " nonblocking collectives outstanding; at most ", tag_count,
                                        " may be, and each must complete before ", tag_count, " more start: the one started ",
                                        tag_count, " starts ago still holds tag ", tag, " (complete it first)");
        ++started_;
        return tag;
    }

    template <class Start>
    request<T> native(Start&& start) {
        request<T> r;
        r.state_ = std::make_shared<state>();
        r.state_->native = true;
        r.state_->native_request = start();
        active_.push_back(r.state_);
        return r;
    }

    request<T> begin(const schedule* plan, std::unique_ptr<schedule> owned) {
        request<T> r;
        r.state_ = std::make_shared<state>();
        r.state_->plan = plan;
        r.state_->owned = std::move(owned);
        r.state_->tag = next_tag();
        active_.push_back(r.state_);
        advance(*r.state_, false);
        return r;
    }

    /// Runs round `s.next_round`: its local actions, then posts its sends and receives.
    void begin_round(state& s) {
        for (const action& a : s.plan->round(s.next_round++)) {
            switch (a.kind) {
            case action_kind::copy:
                if (a.bytes) std::memmove(a.target, a.source, a.bytes);
                break;
            case action_kind::combine: combine(a); break;
            case action_kind::send:
                s.pending.push_back({t_->isend(a.peer, s.tag, const_bytes(a.source, a.bytes)), 0, a.peer, false});
                break;
            case action_kind::recv:
                s.pending.push_back({t_->irecv(a.peer, s.tag, mutable_bytes(a.target, a.bytes)), a.bytes, a.peer, true});
                break;
            }
        }
    }

    static void combine(const action& a) {
        auto* into = reinterpret_cast<double*>(a.target);
        const auto* from = reinterpret_cast<const double*>(a.source);
        const std::size_t n = a.bytes / sizeof(double);
        switch (a.op) {
        case reduce_op::sum:
            for (std::size_t i = 0; i < n; ++i) into[i] = into[i] + from[i];
            break;
        case reduce_op::max:
            for (std::size_t i = 0; i < n; ++i) into[i] = std::max(into[i], from[i]);
            break;
        case reduce_op::min:
            for (std::size_t i = 0; i < n; ++i) into[i] = std::min(into[i], from[i]);
            break;
        }
    }

    void check(const state& s, const typename request<T>::pending_op& p, const status& got) const {
        if (p.recv && got.size != p.expect)
            raise<invalid_argument>(t_->rank(), "nbc ", s.plan->algorithm(), ": rank ", p.peer, " sent ", got.size,
                                    " bytes where this rank expects ", p.expect,
                                    " (every rank must start the same collective with the same root and sizes)");
    }

    /// Completes what it can of `s` (everything, blocking, when `block`); true once done. If that
    /// raises (a size mismatch, a truncation, the transport stopping this rank because another
    /// failed), `s` is over: its pending operations are dropped before the exception leaves the
    /// engine, while the caller's buffers still exist — the transport's rule for a dropped
    /// request then holds (a receive is cancelled, a send still delivered, from a copy), where
    /// otherwise they would stay posted on buffers the unwinding caller frees, as long as the
    /// engine lives. Nor is it advanced again (a progress thread would raise the same error on
    /// every call).
    bool advance(state& s, bool block) {
        if (s.done) return true;
        try {
            return run(s, block);
        } catch (...) {
            s.pending.clear();
            s.done = true;
            throw;
        }
    }

    bool run(state& s, bool block) {
        if (s.native) {
            if (block) {
                ops::wait(*t_, s.native_request);
                s.done = true;
            } else if (t_->test(s.native_request)) {
                s.done = true;
            }
            return s.done;
        }
        for (;;) {
            if (block) {
                for (auto& p : s.pending) check(s, p, ops::wait(*t_, p.request));
                s.pending.clear();
            } else {
                std::size_t left = 0;
                for (auto& p : s.pending) {
                    if (std::optional<status> got = t_->test(p.request)) {
                        check(s, p, *got);
                    } else {
                        if (&p != &s.pending[left]) s.pending[left] = std::move(p);
                        ++left;
                    }
                }
                s.pending.erase(s.pending.begin() + static_cast<std::ptrdiff_t>(left), s.pending.end());
                if (left) return false;
            }
            if (s.next_round == s.plan->rounds()) {
                s.done = true;
                return true;
            }
            begin_round(s);
        }
    }

    T* t_;
    engine_options options_;
    unsigned long long started_ = 0;
    std::vector<std::shared_ptr<state>> active_;
};

}  // namespace comet::nbc
