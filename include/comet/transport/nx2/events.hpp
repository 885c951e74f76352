// comet/transport/nx2/events.hpp — the simulator's one event queue: a binary heap ordered by
// (time, insertion sequence).
//
// Why the sequence number: many events fall on the same picosecond (a circuit releasing its
// channels, two handlers finishing together). Ordering ties by insertion order makes the whole
// run a function of its inputs — the same events in the same order on every host, whatever the
// heap's internal layout (LogGOPSim and SimGrid do the same).
//
// An event is plain data: what happens (`kind`), to which node, and one pointer of context. No
// std::function: the simulator handles millions of events per second and allocates none.
#pragma once

#include <comet/transport/nx2/time.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace comet::nx2::detail {

/// What an event is. The engine (engine.hpp) handles its own four kinds and hands every other
/// to the model running on it (the network's, network.hpp, through NX/2's kernel.hpp; or the
/// LogGOPS machine's).
enum class event_kind : std::uint8_t {
    // the engine's
    resume_app,    ///< a node's process continues (its charge of time ended, or it was woken)
    handler_end,   ///< an interrupt handler finished on `node`: its effects happen now
    detour,        ///< a detour (OS noise) of `node`'s CPU is due; `tag`: its schedule's handle
    detour_end,    ///< the detour running on `node`'s kernel ends
    // the network's
    net_step,      ///< a transmission's header reaches the next router and asks for its channel
    net_done,      ///< a transmission's last byte arrived: channels released, data landed
    net_timeout,   ///< a header waiting for a channel gives up (retransmission option)
    net_retry,     ///< a transmission that gave up is sent again
    // the LogGOPS model's (loggops/model.hpp); `tag`: which packet of its message
    lg_head,       ///< a packet's first byte reaches `node`'s interface
    lg_arrive,     ///< a packet's last byte landed at `node`
    lg_sent,       ///< a send's last byte left `node`'s interface
};

struct event {
    vtime time;
    std::uint64_t seq;
    event_kind kind;
    int node;
    void* item;          ///< the transmission (or interrupt) concerned, if any
    std::uint64_t tag;   ///< a generation number, for events that may have gone stale
};

/// Min-heap of events by (time, seq), four children a node: half the levels of a binary heap,
/// and a node's children in two or three neighbouring cache lines. With tens of thousands of
/// ranks the heap outgrows the caches, and every level of a removal is a cache miss: a binary
/// heap's sift-down was a quarter of a 16,384-rank barrier's host time.
class event_queue {
public:
    bool empty() const noexcept { return heap_.empty(); }
    std::size_t size() const noexcept { return heap_.size(); }
    /// The time of the earliest event. @pre !empty()
    vtime next_time() const noexcept { return heap_.front().time; }

    void push(vtime time, event_kind kind, int node, void* item = nullptr, std::uint64_t tag = 0) {
        // Sift up from a hole at the end: each parent that comes later moves down into it.
        const event e{time, seq_++, kind, node, item, tag};
        std::size_t hole = heap_.size();
        heap_.emplace_back();
        while (hole > 0) {
            const std::size_t parent = (hole - 1) / arity;
            if (!later(heap_[parent], e)) break;
            heap_[hole] = heap_[parent];
            hole = parent;
        }
        heap_[hole] = e;
    }

    /// Removes and returns the earliest event. @pre !empty()
    event pop() {
        const event top = heap_.front();
        const event last = heap_.back();
        heap_.pop_back();
        const std::size_t n = heap_.size();
        if (n == 0) return top;
        // Sift the last event down from the root's hole: the earliest of each hole's children
        // moves up into it until the last event comes no later than all of them.
        std::size_t hole = 0;
        for (;;) {
            const std::size_t first = hole * arity + 1;
            if (first >= n) break;
            std::size_t best = first;
            const std::size_t end = std::min(first + arity, n);
            for (std::size_t c = first + 1; c < end; ++c)
                if (later(heap_[best], heap_[c])) best = c;
            if (!later(last, heap_[best])) break;
            heap_[hole] = heap_[best];
            hole = best;
        }
        heap_[hole] = last;
        return top;
    }

    /// Events pushed so far (a measure of the work a run did).
    std::uint64_t pushed() const noexcept { return seq_; }

private:
    static bool later(const event& a, const event& b) noexcept {
        return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
    static constexpr std::size_t arity = 4;
    std::vector<event> heap_;
    std::uint64_t seq_ = 0;
};

}  // namespace comet::nx2::detail
