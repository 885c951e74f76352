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
/// to the model running on it (the network's, network.hpp, through NX/2's kernel.hpp).
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
};

struct event {
    vtime time;
    std::uint64_t seq;
    event_kind kind;
    int node;
    void* item;          ///< the transmission (or interrupt) concerned, if any
    std::uint64_t tag;   ///< a generation number, for events that may have gone stale
};

/// Min-heap of events by (time, seq).
class event_queue {
public:
    bool empty() const noexcept { return heap_.empty(); }
    std::size_t size() const noexcept { return heap_.size(); }
    /// The time of the earliest event. @pre !empty()
    vtime next_time() const noexcept { return heap_.front().time; }

    void push(vtime time, event_kind kind, int node, void* item = nullptr, std::uint64_t tag = 0) {
        heap_.push_back(event{time, seq_++, kind, node, item, tag});
        std::push_heap(heap_.begin(), heap_.end(), later);
    }

    /// Removes and returns the earliest event. @pre !empty()
    event pop() {
        std::pop_heap(heap_.begin(), heap_.end(), later);
        event e = heap_.back();
        heap_.pop_back();
        return e;
    }

    /// Events pushed so far (a measure of the work a run did).
    std::uint64_t pushed() const noexcept { return seq_; }

private:
    static bool later(const event& a, const event& b) noexcept {
        return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
    std::vector<event> heap_;
    std::uint64_t seq_ = 0;
};

}  // namespace comet::nx2::detail
