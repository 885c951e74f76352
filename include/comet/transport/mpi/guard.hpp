// comet/transport/mpi/guard.hpp — the MPI transport's opt-in truncation guard
// (`comet::mpi::options::guard_truncation`): receives that learn a message's size before MPI
// writes any of it, so that a message longer than its buffer is never written into it.
//
// Why it exists. MPI says a receive buffer is the `count` elements the caller gave (MPI-3.1
// §3.2.4) and that a longer message is an error (MPI_ERR_TRUNCATE, §3.2.5). Open MPI 4.1's ob1
// layer nevertheless writes a rendezvous message whole, past the end of a shorter buffer, and
// only then reports MPI_ERR_TRUNCATE: through vader's single-copy path (CMA), the `self` path
// (a message to oneself) and tcp's RDMA emulation alike (docs/transports.md, "Truncation and
// Open MPI 4.1", says what was measured). The only way around it is to know the size first: a matched probe
// (MPI_Mprobe / MPI_Improbe, MPI-3.1 §3.8.2) hands out the message's envelope without
// receiving it, and MPI_Mrecv / MPI_Imrecv (§3.8.3) then receive exactly that message — into
// the caller's buffer if it fits, into scratch storage (then dropped) if not.
//
// Matching order. A matched probe takes a message out of MPI's queues, so the guard, not MPI,
// decides which receive gets which message, and it must decide as MPI would: receives match in
// the order they were posted (MPI-3.1 §3.5). Receives waiting for their message stay in post
// order; each pass over them probes for each in turn. A receive that an earlier waiting one
// overlaps (same or wildcard source and tag) first looks at its message's envelope without
// taking it (MPI_Iprobe), and leaves it to the earlier receive if that one would take it too (it
// arrived after the earlier one looked). Matched receives leave the queue, their MPI_Imrecv
// completing like any MPI receive. A probe of the transport's own (iprobe) likewise never
// reports a message a waiting receive would take: MPI's posted receives take theirs on arrival.
//
// Part of the MPI transport; not meant to be used on its own.
#pragma once

#include <comet/core/types.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace comet::mpi::detail {

/// One receive of a guarded transport, from its post until its message is received.
struct guarded_recv {
    int source = MPI_ANY_SOURCE;  ///< as MPI spells it
    int tag = MPI_ANY_TAG;
    std::byte* buffer = nullptr;
    std::size_t capacity = 0;
    bool matched = false;
    MPI_Request request = MPI_REQUEST_NULL;  ///< MPI_Imrecv into `buffer`, once matched (if it fits)
    int message_source = 0;                  ///< the matched message's envelope and size
    int message_tag = 0;
    std::size_t size = 0;
    int error = MPI_SUCCESS;  ///< MPI's error receiving it

    bool truncated() const noexcept { return matched && size > capacity; }
};

/// The receives of a guarded transport that wait for their message, in post order.
class receive_guard {
public:
    /// The communicator the guarded receives receive on (the transport's duplicate).
    void bind(MPI_Comm comm) noexcept { comm_ = comm; }

    bool idle() const noexcept { return waiting_.empty(); }

    /// Posts `g` after every waiting receive, and matches at once if it can.
    void post(guarded_recv& g) {
        waiting_.push_back(&g);
        match();
    }

    /// Takes `g` out of the queue (a receive dropped before its message came).
    void withdraw(const guarded_recv& g) noexcept {
        waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), &g), waiting_.end());
    }

    /// One pass in post order: every waiting receive whose message has arrived, and that no
    /// earlier waiting receive would take instead, is matched (and leaves the queue).
    void match() {
        for (std::size_t i = 0; i < waiting_.size();) {
            guarded_recv& g = *waiting_[i];
            bool overlapped = false;
            for (std::size_t j = 0; j < i && !overlapped; ++j) overlapped = overlap(*waiting_[j], g);
            if (overlapped ? try_match_unclaimed(g, i) : try_match(g, g.source, g.tag, comm_)) {
                waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(i));
                continue;
            }
            ++i;
        }
    }

    /// Whether a waiting receive would take a message from `source` with `tag` (MPI's ranks and
    /// tags, as a status gives them).
    bool would_take(int source, int tag) const noexcept { return claimed(source, tag, waiting_.size()); }

    /// Blocks in MPI_Mprobe until `g`'s message arrives, then receives it (MPI_Mrecv). Only for
    /// a receive no waiting receive precedes (the guard is idle).
    static void receive_now(guarded_recv& g, MPI_Comm comm) {
        MPI_Message m = MPI_MESSAGE_NULL;
        MPI_Status st;
        g.error = MPI_Mprobe(g.source, g.tag, comm, &m, &st);
        if (g.error != MPI_SUCCESS) return;
        note(g, st);
        if (!g.truncated())
            g.error = MPI_Mrecv(g.buffer, count(g.size), MPI_BYTE, &m, MPI_STATUS_IGNORE);
        else
            drop(g, m);
    }

private:
    static int count(std::size_t n) noexcept { return static_cast<int>(std::min(n, max_message_size)); }

    static bool overlap(const guarded_recv& a, const guarded_recv& b) noexcept {
        const bool sources = a.source == MPI_ANY_SOURCE || b.source == MPI_ANY_SOURCE || a.source == b.source;
        const bool tags = a.tag == MPI_ANY_TAG || b.tag == MPI_ANY_TAG || a.tag == b.tag;
        return sources && tags;
    }

    static void note(guarded_recv& g, const MPI_Status& st) noexcept {
        int n = 0;
        MPI_Get_count(&st, MPI_BYTE, &n);
        g.matched = true;
        g.message_source = st.MPI_SOURCE;
        g.message_tag = st.MPI_TAG;
        g.size = static_cast<std::size_t>(n < 0 ? 0 : n);
    }

    /// Receives a message too long for its buffer into scratch storage and drops it, so that
    /// its sender completes and later messages arrive.
    static void drop(guarded_recv& g, MPI_Message& m) {
        std::vector<std::byte> scratch(g.size);
        g.error = MPI_Mrecv(scratch.data(), count(g.size), MPI_BYTE, &m, MPI_STATUS_IGNORE);
    }

    static bool accepts(const guarded_recv& g, int source, int tag) noexcept {
        return (g.source == MPI_ANY_SOURCE || g.source == source) && (g.tag == MPI_ANY_TAG || g.tag == tag);
    }

    /// Whether one of the first `n` waiting receives would take a message of this envelope.
    bool claimed(int source, int tag, std::size_t n) const noexcept {
        for (std::size_t j = 0; j < n; ++j)
            if (accepts(*waiting_[j], source, tag)) return true;
        return false;
    }

    /// Matches the i-th waiting receive `g` if its message has arrived and none of the receives
    /// before it would take that message.
    bool try_match_unclaimed(guarded_recv& g, std::size_t i) {
        int found = 0;
        MPI_Status st;
        g.error = MPI_Iprobe(g.source, g.tag, comm_, &found, &st);
        if (g.error != MPI_SUCCESS) {
            g.matched = true;  // failed: completes with the error
            return true;
        }
        if (!found || claimed(st.MPI_SOURCE, st.MPI_TAG, i)) return false;
        // The earliest message of exactly this envelope is the one just seen.
        return try_match(g, st.MPI_SOURCE, st.MPI_TAG, comm_);
    }

    /// Matches `g` with the earliest message from `source` with `tag` (g's own, or narrower), if
    /// one has arrived.
    static bool try_match(guarded_recv& g, int source, int tag, MPI_Comm comm) {
        int found = 0;
        MPI_Message m = MPI_MESSAGE_NULL;
        MPI_Status st;
        g.error = MPI_Improbe(source, tag, comm, &found, &m, &st);
        if (g.error != MPI_SUCCESS) {
            g.matched = true;  // failed: completes with the error
            return true;
        }
        if (!found) return false;
        note(g, st);
        if (!g.truncated())
            g.error = MPI_Imrecv(g.buffer, count(g.size), MPI_BYTE, &m, &g.request);
        else
            drop(g, m);
        return true;
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    std::vector<guarded_recv*> waiting_;
};

}  // namespace comet::mpi::detail
