// comet/transport/decorators/tracing.hpp — `comet::tracing<T>`: a transport that records, for
// every message, when its send was issued, when the receiver waited for it and when it
// completed, and for every `compute` call how long it took — all in
// the global time base (SPEC 3, "tracing"; the NIST seed's event trace, section 4.2). From such
// a trace comet/analysis/delays.hpp splits each rank's elapsed time into user computation,
// logical delay, physical delay and overhead.
//
//   comet::threads::run(4, [](comet::threads::transport& inner) {
//       comet::tracing t(inner);
//       t.start();
//       run_my_application(t);                       // through t only
//       t.stop();
//       comet::message_trace trace = t.collect();    // collective: send times matched
//       comet::delay_decomposition d = comet::decompose(trace);
//   });
//
// What is recorded. Sends by `isend`, `send` or `bsend` (it is a message_adaptor: the sends it
// does not cover — ssend, rsend, sendrecv, the nonblocking collectives — are not brought in, so
// comet::ops builds them from `isend`), receives by `irecv` or `recv`, and their completion by
// `test`, `wait`, `wait_all` or `recv`. A wait for a receive is a `blocked` interval of it: from
// the call to the completion, the time the rank could do nothing else. Waits for sends are not
// timed: they are overhead, which is what is left. `compute` calls are timed (user computation),
// and where the inner transport says how much CPU time its interrupt handlers took from the rank
// (`counts_interrupt_time`: the simulator), the part of each call they took is recorded apart;
// where it says how long a received message was on the wire (`reports_wire_time`), each receive
// records that too.
// The transport's native collectives pass untraced (barrier, broadcast, reductions): an
// application measured through
// this decorator is expected to communicate by point-to-point messages, as the seed's do.
//
// Matching. Messages between one pair of ranks with one tag are not reordered, so the k-th
// message rank r receives from s with tag g is the k-th that s sent to r with g. `collect`
// sends each rank the issue times of the messages it was sent (after the run, untraced, on the
// inner transport) and fills in every completed receive's `send_issued`.
//
// Retransmissions. Where the inner transport counts its retransmissions (`retransmissions()`,
// the simulator's with machine::retry_timeout on; a decorator forwards it), the trace holds how
// many of this rank's transmissions were sent again between `start()` and `stop()`: the
// transport's count runs for its whole life, over several traced runs and the untraced work
// between them, so the decorator takes the difference. Elsewhere the trace says it does not know.
//
// Global time. On a transport whose clock is one clock for every rank (threads, the simulator)
// times are its readings; elsewhere (MPI) the decorator synchronises the clocks when it is made
// (collective) and records global times through comet::global_clock.
//
// Cost. A send reads the clock once, a receive twice (around its wait), and each appends a
// fixed-size record to a vector reserved and touched in advance; bench/bench_tracing.cpp
// measures it per event. Reading the clock is most of it (~35 ns on a virtual machine's
// kvm-clock), which is why the decorator reads it no more than the decomposition needs.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/message_trace.hpp>
#include <comet/timing/global_clock.hpp>
#include <comet/transport/adaptor.hpp>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace comet {

/// A transport that traces `Inner`'s messages and computation (see the file's comment).
template <transport Inner>
class tracing : public message_adaptor<Inner> {
    using base = message_adaptor<Inner>;

public:
    // The transport's own collectives pass untraced (see the file's comment); its other
    // operations on messages go through this decorator's isend, irecv and test, or are below.
    using base::barrier, base::broadcast, base::allreduce_sum, base::allreduce_max, base::allreduce_min;
    using base::reduce_sum, base::reduce_max, base::reduce_min, base::gather, base::alltoall;
    using base::reserve_bsend, base::progress;

    /// A request of the inner transport and the receive it belongs to (if it is one).
    struct request {
        typename Inner::request inner{};
        std::size_t receive = none;  ///< index into the receives, or `none` for a send
        static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
    };
    /// Its records are one thread's.
    static constexpr bool thread_serialized = false;

    /// Traces `inner`, with room for `expected_events` sends and as many receives before any
    /// vector grows (growth is counted in the cost, not hidden). On a transport whose clock is
    /// not global this synchronises the clocks: @pre collective then.
    explicit tracing(Inner& inner, std::size_t expected_events = 4096) : base(inner) {
        if (!ops::clock_is_global(inner)) clock_.emplace(inner);
        trace_.rank = inner.rank();
        trace_.size = inner.size();
        trace_.retransmissions_known = counts_retransmissions<Inner>;
        trace_.interrupts_known = counts_interrupt_time<Inner>;
        trace_.wire_known = reports_wire_time<Inner>;
        // Reserved and touched now, so that neither growth nor the first touch of a page
        // (a page fault, microseconds on a virtual machine) falls inside the traced run.
        trace_.sends.resize(expected_events);
        trace_.receives.resize(expected_events);
        trace_.sends.clear();
        trace_.receives.clear();
    }

    /// The global time now.
    double now() { return clock_ ? clock_->now() : this->inner().now(); }
    /// Says the clock is not a shared one only where the inner's is not: times the decorator
    /// gives are global ones.
    bool clock_is_global() const { return true; }

    /// Marks the application's start / end: the trace `collect` returns holds what happened
    /// between them — the elapsed time, the sends issued and receives posted, the computation
    /// and the retransmissions — and nothing of what came before (a check of the configuration,
    /// a barrier) or after (a verification's reductions). A later `start` moves the start.
    void start() {
        if constexpr (counts_retransmissions<Inner>) retransmissions_at_start_ = this->inner().retransmissions();
        window_ = here();
        window_end_.reset();
        trace_.start = now();
    }
    void stop() {
        trace_.stop = now();
        if constexpr (counts_retransmissions<Inner>)
            trace_.retransmissions = this->inner().retransmissions() - retransmissions_at_start_;
        window_end_ = here();
    }

    // ---- sends ----
    request isend(int dest, int tag, const_bytes data) {
        trace_.sends.push_back({dest, tag, data.size(), now()});
        return {this->inner().isend(dest, tag, data)};
    }
    void send(int dest, int tag, const_bytes data) {
        trace_.sends.push_back({dest, tag, data.size(), now()});
        ops::send(this->inner(), dest, tag, data);
    }
    void bsend(int dest, int tag, const_bytes data)
        requires buffered_send_transport<Inner>
    {
        trace_.sends.push_back({dest, tag, data.size(), now()});
        this->inner().bsend(dest, tag, data);
    }

    // ---- receives and completion ----
    request irecv(int source, int tag, mutable_bytes data) {
        traced_receive r;
        r.source = source, r.tag = tag;
        trace_.receives.push_back(r);
        return {this->inner().irecv(source, tag, data), trace_.receives.size() - 1};
    }
    std::optional<status> test(request& r) {
        std::optional<status> s = this->inner().test(r.inner);
        if (s && r.receive != request::none) {
            const double t = now();
            complete(r, *s, t, t);
        }
        return s;
    }
    std::optional<status> iprobe(int source, int tag) { return this->inner().iprobe(source, tag); }
    status wait(request& r) {
        if (r.receive == request::none) return ops::wait(this->inner(), r.inner);  // a send: overhead, untimed
        const double from = now();
        const status s = ops::wait(this->inner(), r.inner);
        complete(r, s, from, now());
        return s;
    }
    void wait_all(std::span<request> rs) {
        for (request& r : rs) wait(r);
    }
    status recv(int source, int tag, mutable_bytes data) {
        request r = irecv(source, tag, data);
        return wait(r);
    }

    // ---- computation ----
    void compute(const work& w) {
        const double from = now();
        if constexpr (counts_interrupt_time<Inner>) {
            const double handlers = this->inner().interrupt_seconds();
            ops::compute(this->inner(), w);
            trace_.compute_interrupt_seconds += this->inner().interrupt_seconds() - handlers;
        } else {
            ops::compute(this->inner(), w);
        }
        trace_.compute_seconds += now() - from;
        ++trace_.compute_calls;
    }

    /// The trace so far (send times of received messages not yet matched).
    const message_trace& trace() const noexcept { return trace_; }

    /// Matches every completed receive between `start` and `stop` with its send and returns
    /// that part of the trace. Collective: every rank of the group calls it once the
    /// application is done (no message of it in flight); the exchange goes over the inner
    /// transport, untraced.
    /// @throws verification_error when a rank received a message no rank says it sent.
    message_trace collect(int tag = first_reserved_tag + 620) {
        Inner& in = this->inner();
        const int p = in.size(), me = in.rank();
        const marks end = window_end_.value_or(here());
        message_trace out;
        out.rank = trace_.rank, out.size = trace_.size;
        out.start = trace_.start, out.stop = trace_.stop;
        out.compute_seconds = end.compute_seconds - window_.compute_seconds;
        out.compute_calls = end.compute_calls - window_.compute_calls;
        out.compute_interrupt_seconds = end.compute_interrupt_seconds - window_.compute_interrupt_seconds;
        out.interrupts_known = trace_.interrupts_known;
        out.wire_known = trace_.wire_known;
        out.retransmissions = trace_.retransmissions, out.retransmissions_known = trace_.retransmissions_known;
        const auto in_window = [](const auto& v, std::size_t from, std::size_t to) {
            return std::vector(v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(to));
        };
        out.sends = in_window(trace_.sends, window_.sends, end.sends);
        out.receives = in_window(trace_.receives, window_.receives, end.receives);
        // Every rank's application is done before any collection message is sent: one still
        // receiving with any_source and any_tag would take them.
        ops::barrier(in);
        // To each destination: the (tag, issue time) of every message sent to it, in order.
        std::vector<std::vector<double>> outgoing(static_cast<std::size_t>(p));
        for (const traced_send& s : out.sends) {
            auto& v = outgoing[static_cast<std::size_t>(s.dest)];
            v.push_back(static_cast<double>(s.tag));
            v.push_back(s.issued);
        }
        std::vector<std::vector<double>> incoming(static_cast<std::size_t>(p));
        for (int step = 1; step < p; ++step) {  // a ring of exchanges: no pair waits on another
            const int to = (me + step) % p, from = (me - step + p) % p;
            const std::uint64_t n_out = outgoing[static_cast<std::size_t>(to)].size();
            std::uint64_t n_in = 0;
            auto r = in.irecv(from, tag, std::as_writable_bytes(std::span(&n_in, 1)));
            auto s = in.isend(to, tag, std::as_bytes(std::span(&n_out, 1)));
            ops::wait(in, r);
            ops::wait(in, s);
            auto& v = incoming[static_cast<std::size_t>(from)];
            v.resize(static_cast<std::size_t>(n_in));
            r = in.irecv(from, tag, std::as_writable_bytes(std::span(v)));
            s = in.isend(to, tag, std::as_bytes(std::span(outgoing[static_cast<std::size_t>(to)])));
            ops::wait(in, r);
            ops::wait(in, s);
        }
        for (const traced_send& s : out.sends)  // messages to oneself
            if (s.dest == me) {
                incoming[static_cast<std::size_t>(me)].push_back(static_cast<double>(s.tag));
                incoming[static_cast<std::size_t>(me)].push_back(s.issued);
            }
        // The k-th receive completed from (source, tag) is the k-th send of (source, tag).
        std::vector<std::size_t> order(out.receives.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return out.receives[a].completed < out.receives[b].completed;
        });
        std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);  // position in incoming[source]
        for (std::size_t i : order) {
            traced_receive& r = out.receives[i];
            if (r.completed < 0.0) continue;
            auto& v = incoming[static_cast<std::size_t>(r.matched_source)];
            std::size_t& at = next[static_cast<std::size_t>(r.matched_source)];
            std::size_t k = at;  // the first message from that source with that tag not yet taken
            while (k < v.size() && (v[k] < 0.0 || static_cast<int>(v[k]) != r.matched_tag)) k += 2;
            if (k >= v.size())
                raise<verification_error>(me, "tracing: a message from rank ", r.matched_source, " with tag ", r.matched_tag,
                                          " was received that rank ", r.matched_source, " does not say it sent");
            r.send_issued = v[k + 1];
            v[k] = -1.0;  // taken
            while (at < v.size() && v[at] < 0.0) at += 2;
        }
        return out;
    }

private:
    void complete(request& r, const status& s, double from, double to) {
        traced_receive& x = trace_.receives[r.receive];
        x.matched_source = s.source, x.matched_tag = s.tag, x.size = s.size;
        x.blocked_from = from, x.blocked_to = to, x.completed = to;
        if constexpr (reports_wire_time<Inner>) {
            const wire_span w = this->inner().last_received_wire();
            x.wire_seconds = w.seconds, x.wire_from = w.from, x.wire_to = w.to;
        }
        r.receive = request::none;  // a second wait or test finds a completed request
    }

    /// Where the trace stood at `start` and at `stop`.
    struct marks {
        std::size_t sends = 0, receives = 0;
        double compute_seconds = 0.0;
        std::size_t compute_calls = 0;
        double compute_interrupt_seconds = 0.0;
    };
    /// Where the trace stands now.
    marks here() const {
        return {trace_.sends.size(), trace_.receives.size(), trace_.compute_seconds, trace_.compute_calls,
                trace_.compute_interrupt_seconds};
    }

    message_trace trace_;
    std::optional<global_clock<Inner>> clock_;
    std::uint64_t retransmissions_at_start_ = 0;
    marks window_{};
    std::optional<marks> window_end_;  // none until `stop`: then `collect` takes what is there
};

}  // namespace comet
