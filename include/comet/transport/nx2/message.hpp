// comet/transport/nx2/message.hpp — NX/2's records of what is in flight: a message from its send
// until both ends are done with it, a send or receive in progress on one rank, and the pool that
// recycles messages with the transmissions that carry them, so that a run allocates none per
// message once it has warmed up.
//
// What the protocol does with them is kernel.hpp's (handlers, buffers) and node.hpp's (matching).
#pragma once

#include <comet/core/types.hpp>
#include <comet/transport/nx2/buffers.hpp>
#include <comet/transport/nx2/network.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace comet::nx2::detail {

/// How a message travels.
enum class mode : std::uint8_t {
    eager,       ///< at most eager_limit bytes, into a reserved buffer
    rendezvous,  ///< longer: request, acknowledgement, circuit
    sync,        ///< synchronous send: request for every size, acknowledged at the match
    ready,       ///< ready send (force type): data at once, into a posted receive
    local,       ///< to the sending node itself: a copy, no network
};

struct op;
struct message;
/// Receive `o` completes with `m`: it keeps `m`'s time on the wire (`m` may be reused before
/// the process collects `o`).
void take_wire(op* o, const message* m) noexcept;

/// A message between two nodes, from its send until both ends are done with it.
struct message {
    int source = 0, dest = 0, tag = 0;
    std::uint64_t seq = 0;  ///< its place among `source`'s messages to `dest` in its message space
    bool system = false;  ///< sent by a collective: only collective receives match it
    std::size_t size = 0;
    mode how = mode::eager;
    op* sop = nullptr;                   ///< the send to complete (once the data is out)
    const std::byte* payload = nullptr;  ///< the sender's bytes, while the sender must keep them
    system_buffer sysbuf;                ///< a system buffer holding the message
    op* rop = nullptr;                   ///< the receive it was matched to
    bool via_sysbuf = false;  ///< the long data lands (landed) in sysbuf; copy it to `rop`
    bool data_arrived = false;
    bool dropped = false;     ///< refused (truncation): its data is thrown away
    bool released = false;    ///< waiting to be sent: the kernel sends it at its handler's end
    std::vector<std::byte> kept;  ///< a bsend's long message: its bytes, kept by the kernel while it waits
    bool sender_done = false, receiver_done = false;
    int refs = 0;             ///< transmissions and interrupts still using it
    /// Its packets' time on the wire so far (each: its hops' latency and its bytes' streaming,
    /// no waiting for channels), and the span from the first one's start to the last one's end.
    vtime wire_time = 0, wire_from = 0, wire_to = 0;
    message* prev = nullptr;  ///< in the receiver's unexpected list, or the sender's queue
    message* next = nullptr;
};

/// A send or receive in progress on one rank.
struct op {
    bool is_send = false;
    bool done = false;
    bool abandoned = false;  ///< its request was dropped while pending: free it when done
    bool posted = false;
    int owner = 0;
    int peer = 0, tag = 0;
    bool system = false;
    mutable_bytes buffer;
    status result;
    std::size_t overflow = 0;  ///< a matched message that did not fit: its size
    message* msg = nullptr;
    /// A receive: the message's wire time and span (message::wire_time) when it completed.
    vtime wire_time = 0, wire_from = 0, wire_to = 0;
    std::vector<std::byte> own;  ///< a send's bytes, copied when its request was dropped
    op* prev = nullptr;          ///< in the posted-receive list
    op* next = nullptr;
};

inline void take_wire(op* o, const message* m) noexcept {
    o->wire_time = m->wire_time, o->wire_from = m->wire_from, o->wire_to = m->wire_to;
}

/// The messages and transmissions of one run, and the system buffers they hold: each taken from
/// its free list, and given back once nothing uses it.
class message_pool {
public:
    message* new_message(int source, int dest, int tag, bool system, std::size_t size, mode how) {
        message* m;
        if (free_messages_.empty()) {
            messages_.push_back(std::make_unique<message>());
            m = messages_.back().get();
        } else {
            m = free_messages_.back();
            free_messages_.pop_back();
        }
        m->source = source;
        m->dest = dest;
        m->tag = tag;
        m->system = system;
        m->size = size;
        m->how = how;
        m->sop = m->rop = nullptr;
        m->payload = nullptr;
        buffers_.put(m->sysbuf);
        m->via_sysbuf = m->data_arrived = m->dropped = m->released = false;
        m->sender_done = m->receiver_done = false;
        m->refs = 0;
        m->wire_time = m->wire_from = m->wire_to = 0;
        m->prev = m->next = nullptr;
        return m;
    }

    /// Gives `m` back once both ends and every transmission are done with it.
    void maybe_free(message* m) {
        if (!m->sender_done || !m->receiver_done || m->refs > 0) return;
        buffers_.put(m->sysbuf);
        if (!m->kept.empty()) {
            m->kept.clear();
            m->kept.shrink_to_fit();
        }
        free_messages_.push_back(m);
    }

    /// A transmission of `kind` from `src` to `dst`, using `msg` (if any) until it is freed.
    transmission* make_tx(wire kind, int src, int dst, message* msg) {
        transmission* t = new_tx();
        t->kind = kind;
        t->discard = false;
        t->src = src;
        t->dst = dst;
        t->msg = msg;
        if (msg) ++msg->refs;
        t->credits = 0;
        t->bytes = 0;
        t->held = 0;
        t->waiting = false;
        t->attempts = 0;
        t->irq_next = nullptr;
        t->cost = 0;
        t->released = 0;
        return t;
    }

    void free_tx(transmission* t) {
        if (message* m = std::exchange(t->msg, nullptr)) {
            --m->refs;
            maybe_free(m);
        }
        free_tx_.push_back(t);
    }

    /// Copies `n` bytes into a system buffer taken from the pool.
    void fill(system_buffer& b, const std::byte* from, std::size_t n) {
        buffers_.get(b, n);
        if (n) std::memcpy(b.data(), from, n);
    }

    buffer_pool& buffers() noexcept { return buffers_; }

private:
    transmission* new_tx() {
        if (free_tx_.empty()) {
            txs_.push_back(std::make_unique<transmission>());
            return txs_.back().get();
        }
        transmission* t = free_tx_.back();
        free_tx_.pop_back();
        return t;
    }

    buffer_pool buffers_;  // before the messages: they give their buffers back to it
    std::vector<std::unique_ptr<message>> messages_;
    std::vector<message*> free_messages_;
    std::vector<std::unique_ptr<transmission>> txs_;
    std::vector<transmission*> free_tx_;
};

}  // namespace comet::nx2::detail
