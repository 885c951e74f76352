// comet/transport/nx2/node.hpp — one node's NX/2 state (its process and its kernel's CPU are the
// engine's, engine.hpp): its two receive queues — the receives posted and the messages that came
// before any receive took them — and the matching between them, what it knows of every other
// node (buffers, the order of messages), and its pool of operations.
//
// Matching is NX/2's (and MPI's): a receive names a source and a tag, either may be a wildcard,
// and takes the earliest message that fits; a message takes the earliest posted receive that
// fits. A collective's messages travel in a message space of their own (`system`), which only
// collective receives match.
#pragma once

#include <comet/core/types.hpp>
#include <comet/transport/nx2/message.hpp>
#include <comet/transport/nx2/network.hpp>
#include <comet/transport/nx2/waits.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace comet::nx2::detail {

/// Appends `x` to the doubly linked list (head, tail) through its `prev` and `next`.
template <class T>
void list_append(T*& head, T*& tail, T* x) noexcept {
    x->prev = tail;
    x->next = nullptr;
    (tail ? tail->next : head) = x;
    tail = x;
}

/// Takes `x` out of the doubly linked list (head, tail).
template <class T>
void list_remove(T*& head, T*& tail, T* x) noexcept {
    (x->prev ? x->prev->next : head) = x->next;
    (x->next ? x->next->prev : tail) = x->prev;
    x->prev = x->next = nullptr;
}

/// Whether a receive for (source, tag) in message space `system` takes message `m`.
inline bool matches(int source, int tag, bool system, const message& m) noexcept {
    return m.system == system && (source == any_source || source == m.source) && (tag == any_tag || tag == m.tag);
}

/// What a node knows about one other node.
struct peer_state {
    std::uint32_t credits = 0;  ///< free buffers of mine at that node (sender's count)
    std::uint32_t owed = 0;     ///< buffers of that node's, here, freed but not yet returned
    bool listed = false;        ///< in `owed_to`
    message* out_head = nullptr;  ///< messages to that node waiting for a buffer (in order)
    message* out_tail = nullptr;
    // Non-overtaking: messages are numbered per pair and message space (user, collective) when
    // sent, and matched in that order when they arrive (only retransmission reorders them).
    std::uint64_t next_seq[2] = {0, 0};  ///< the number of my next message to that node
    std::uint64_t expected[2] = {0, 0};  ///< the number of that node's next message to match here
    std::vector<transmission*> parked;   ///< that node's messages that arrived ahead of their turn
};

/// One node: what its process waits for, its receive queues, what it knows of other nodes.
struct node {
    wait_desc waiting;
    const char* collective = nullptr;  ///< the collective this rank is inside, for reports
    // matching
    op* posted_head = nullptr;
    op* posted_tail = nullptr;
    message* unexpected_head = nullptr;
    message* unexpected_tail = nullptr;
    std::unordered_map<int, peer_state> peers;
    // The two peers looked up last (kernel::peer): a message's path asks for the same peer
    // several times, and a hash lookup each time was a sixth of a ping-pong's host time. The
    // map's elements never move, so the pointers stay good.
    int recent_peer[2] = {-1, -1};
    peer_state* recent_state[2] = {nullptr, nullptr};
    std::vector<int> owed_to;  ///< peers with owed buffers, in the order they became owed
    std::vector<std::unique_ptr<op>> ops;
    std::vector<op*> free_ops;
    std::uint32_t collective_seq = 0;

    /// The earliest unexpected message a receive for (source, tag) in space `system` takes.
    message* find_unexpected(int source, int tag, bool system) const noexcept {
        message* msg = unexpected_head;
        while (msg && !matches(source, tag, system, *msg)) msg = msg->next;
        return msg;
    }

    /// Takes the earliest posted receive that a message from `source` with `tag` and `size`
    /// bytes in space `system` matches, and gives it the message's status; null if none.
    op* take_posted(int source, int tag, bool system, std::size_t size) noexcept {
        for (op* o = posted_head; o; o = o->next)
            if (o->system == system && (o->peer == any_source || o->peer == source) && (o->tag == any_tag || o->tag == tag)) {
                list_remove(posted_head, posted_tail, o);
                o->posted = false;
                o->result = status{source, tag, size};
                return o;
            }
        return nullptr;
    }

    /// A fresh operation of rank `owner` (this node's), from the pool.
    op* new_op(int owner, bool is_send, int peer_rank, int tag, bool system) {
        op* o;
        if (free_ops.empty()) {
            ops.push_back(std::make_unique<op>());
            o = ops.back().get();
        } else {
            o = free_ops.back();
            free_ops.pop_back();
        }
        o->is_send = is_send;
        o->done = o->abandoned = o->posted = false;
        o->owner = owner;
        o->peer = peer_rank;
        o->tag = tag;
        o->system = system;
        o->buffer = {};
        o->result = status{};
        o->overflow = 0;
        o->msg = nullptr;
        o->wire_time = o->wire_from = o->wire_to = 0;
        o->prev = o->next = nullptr;
        return o;
    }

    /// Gives a completed operation back to the pool.
    void free_op(op* o) {
        o->msg = nullptr;
        o->own.clear();
        o->own.shrink_to_fit();
        free_ops.push_back(o);
    }
};

}  // namespace comet::nx2::detail
