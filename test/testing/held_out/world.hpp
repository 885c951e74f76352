// held_out/world.hpp — the shared mailboxes of an in-process group of ranks, and the matching
// engine behind the held-out transport (mailbox.hpp). Written for the held-out evaluation from
// the rules of comet/core/concepts.hpp alone, so that its only defects are the ones switched on.
//
// The model is MPI's: every rank has a queue of posted receives (in the order posted) and a
// queue of arrived messages nobody has asked for yet (in the order they arrived). A message
// arriving goes to the first posted receive it matches, or joins the arrived queue; a receive
// being posted takes the first arrived message it matches, or joins the posted queue. One lock
// guards the whole world, so "arrived first" is "sent first" for every pair of ranks, which is
// what makes non-overtaking hold. Sends copy their bytes at once (the transport buffers every
// message), so a send completes when it is started.
//
// A few defects need messages that have been sent but not yet arrived: those wait in the
// receiver's `in_flight` list until the receiver has called into the transport often enough
// (`calls`), which is how a slower protocol path looks from outside.
#pragma once

#include "defects.hpp"

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace held_out {

/// One operation's state, shared by the request that owns it and the mailbox that completes it.
struct operation {
    bool receive = false;
    bool done = false;
    int source = 0;  ///< what a receive asks for (or any_source)
    int tag = 0;     ///< what a receive asks for (or any_tag)
    comet::mutable_bytes buffer;
    comet::status result;
    bool truncated = false;    ///< the message did not fit: the test that completes this raises
    std::size_t overflow = 0;  ///< the size of the message that did not fit
};

/// A message between ranks. Its bytes are a copy made when it was sent, except under
/// `send_buffer_borrowed`, where they are still the sender's.
struct message {
    int source = 0;
    int tag = 0;
    std::vector<std::byte> copy;
    comet::const_bytes borrowed;
    bool is_borrowed = false;
    std::shared_ptr<operation> synchronous;  ///< a synchronous send, complete once matched
    comet::const_bytes bytes() const { return is_borrowed ? borrowed : comet::const_bytes(copy); }
    std::size_t size() const { return bytes().size(); }
};

struct delayed {
    message msg;
    std::uint64_t due;  ///< arrives when the receiver's call count reaches this
};

struct mailbox {
    std::deque<message> arrived;
    std::deque<std::shared_ptr<operation>> posted;
    std::deque<delayed> in_flight;
    std::uint64_t calls = 0;
};

class world {
public:
    world(int size, defect d)
        : defect_(d), size_(size), boxes_(static_cast<std::size_t>(size)),
          sent_(static_cast<std::size_t>(size) * static_cast<std::size_t>(size), 0),
          slots_(static_cast<std::size_t>(size), nullptr) {}

    defect flaw() const noexcept { return defect_; }
    bool is(defect d) const noexcept { return defect_ == d; }
    int size() const noexcept { return size_; }
    std::chrono::steady_clock::time_point epoch() const noexcept { return epoch_; }

    /// Another rank failed: every rank raises `comet::stopped` at its next call, so that the
    /// runner can join them all.
    void stop() {
        stopped_ = true;
        std::lock_guard l(m_);
        cv_.notify_all();
    }
    bool stopped() const noexcept { return stopped_; }
    void raise_if_stopped(int rank) const {
        if (stopped_) comet::raise<comet::stopped>(rank, "stopped because another rank failed");
    }

    std::mutex& lock() noexcept { return m_; }
    std::condition_variable& changed() noexcept { return cv_; }

    /// Number `n` (from 1) of the messages `from` has sent to `to`; under the lock.
    std::uint64_t count_send(int from, int to) {
        return ++sent_[static_cast<std::size_t>(from) * static_cast<std::size_t>(size_) + static_cast<std::size_t>(to)];
    }

    /// The message is on its way to `to`: it arrives now, or later under a delaying defect.
    void send(int to, message msg) {
        mailbox& box = boxes_[static_cast<std::size_t>(to)];
        const std::uint64_t n = count_send(msg.source, to);
        if (is(defect::zero_length_lost) && msg.size() == 0) return;
        if (is(defect::every_100th_lost) && n % 100 == 0) return;
        if (is(defect::tag_zero_lost) && msg.tag == 0) return;
        if (is(defect::large_overtaken) && msg.size() > 16 * 1024) return box.in_flight.push_back({std::move(msg), box.calls + 200});
        if (is(defect::iprobe_does_not_progress)) return box.in_flight.push_back({std::move(msg), box.calls + 1});
        if (is(defect::third_message_late) && n == 3) return box.in_flight.push_back({std::move(msg), box.calls + 200});
        const int source = msg.source;
        arrive(to, std::move(msg));
        // The held third message follows the fourth.
        if (is(defect::third_message_late) && n == 4)
            for (auto it = box.in_flight.begin(); it != box.in_flight.end(); ++it)
                if (it->msg.source == source) {
                    message held = std::move(it->msg);
                    box.in_flight.erase(it);
                    arrive(to, std::move(held));
                    break;
                }
    }

    /// `me` called into the transport: delayed messages whose time has come arrive, in order.
    void tick(int me) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        ++box.calls;
        while (!box.in_flight.empty() && box.in_flight.front().due <= box.calls) {
            message msg = std::move(box.in_flight.front().msg);
            box.in_flight.pop_front();
            arrive(me, std::move(msg));
        }
    }

    /// Posts the receive `op` of rank `me`: it takes an arrived message or waits in the queue.
    void post(int me, const std::shared_ptr<operation>& op) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        auto it = box.arrived.end();
        if (is(defect::latest_first)) {
            for (auto r = box.arrived.rbegin(); r != box.arrived.rend(); ++r)
                if (matches(me, op->source, op->tag, *r)) {
                    it = std::prev(r.base());
                    break;
                }
        } else if (is(defect::any_tag_by_tag_order) && op->tag == comet::any_tag) {
            for (auto c = box.arrived.begin(); c != box.arrived.end(); ++c)
                if (matches(me, op->source, op->tag, *c) && (it == box.arrived.end() || c->tag < it->tag)) it = c;
        } else {
            it = std::find_if(box.arrived.begin(), box.arrived.end(),
                              [&](const message& m) { return matches(me, op->source, op->tag, m); });
        }
        if (it == box.arrived.end()) {
            box.posted.push_back(op);
            return;
        }
        message msg = std::move(*it);
        box.arrived.erase(it);
        if (is(defect::truncation_from_irecv) && msg.size() > op->buffer.size())
            comet::raise<comet::truncation_error>(me, "irecv: a message of ", msg.size(), " bytes from rank ", msg.source,
                                                  " is longer than the buffer of ", op->buffer.size(), " bytes");
        deliver(msg, *op, false);
    }

    /// Takes the receive `op` back out of the posted queue (its request was dropped).
    void withdraw(int me, const std::shared_ptr<operation>& op) {
        auto& posted = boxes_[static_cast<std::size_t>(me)].posted;
        posted.erase(std::remove(posted.begin(), posted.end(), op), posted.end());
    }

    /// The earliest arrived message `me` could receive from `source` with `tag`; under the lock.
    std::optional<comet::status> probe(int me, int source, int tag) {
        auto& arrived = boxes_[static_cast<std::size_t>(me)].arrived;
        const int want_source = is(defect::iprobe_ignores_source) ? comet::any_source : source;
        auto it = arrived.end();
        if (is(defect::iprobe_latest)) {
            for (auto r = arrived.rbegin(); r != arrived.rend(); ++r)
                if (matches(me, want_source, tag, *r)) {
                    it = std::prev(r.base());
                    break;
                }
        } else {
            it = std::find_if(arrived.begin(), arrived.end(), [&](const message& m) { return matches(me, want_source, tag, m); });
        }
        if (it == arrived.end()) return std::nullopt;
        comet::status s{it->source, it->tag, it->size()};
        if (is(defect::iprobe_size_zero_large) && s.size > 64 * 1024) s.size = 0;
        if (is(defect::iprobe_tag_wildcard) && tag == comet::any_tag) s.tag = comet::any_tag;
        if (is(defect::iprobe_consumes) || (is(defect::iprobe_consumes_any_tag) && tag == comet::any_tag)) arrived.erase(it);
        return s;
    }

    // The board the native collectives of `full_endpoint` meet at: each rank leaves a pointer
    // to its data in its slot, and `meet` is a barrier over the group.
    const void*& slot(int rank) { return slots_[static_cast<std::size_t>(rank)]; }
    const void* slot_of(int rank) const { return slots_[static_cast<std::size_t>(rank)]; }

    /// Returns once every rank has called `meet` as often as this one (raises `stopped` when
    /// another rank failed meanwhile).
    void meet(int rank) {
        std::unique_lock l(m_);
        const std::uint64_t generation = generation_;
        if (++meeting_ == size_) {
            meeting_ = 0;
            ++generation_;
            cv_.notify_all();
            return;
        }
        while (generation_ == generation) {
            if (stopped_) comet::raise<comet::stopped>(rank, "stopped because another rank failed");
            cv_.wait_for(l, std::chrono::milliseconds(5));
        }
    }

    /// The `barrier_early` defect's barrier: the `n`th call returns once all but one rank made it.
    void leaky_meet(int rank, std::uint64_t n) {
        std::unique_lock l(m_);
        if (leaky_counts_.size() < n) leaky_counts_.resize(n, 0);
        ++leaky_counts_[n - 1];
        cv_.notify_all();
        while (leaky_counts_[n - 1] < size_ - 1) {
            if (stopped_) comet::raise<comet::stopped>(rank, "stopped because another rank failed");
            cv_.wait_for(l, std::chrono::milliseconds(5));
        }
    }

private:
    bool matches(int me, int source, int tag, const message& m) const {
        bool source_ok = source == comet::any_source || source == m.source;
        bool tag_ok = tag == comet::any_tag || tag == m.tag;
        if (is(defect::any_tag_ignores_source) && tag == comet::any_tag) source_ok = true;
        if (is(defect::any_source_ignores_tag) && source == comet::any_source) tag_ok = true;
        if (is(defect::tag_low_byte) && tag != comet::any_tag) tag_ok = (tag & 0xff) == (m.tag & 0xff);
        if (is(defect::any_source_misses_self) && source == comet::any_source && m.source == me) source_ok = false;
        return source_ok && tag_ok;
    }

    /// `msg` has arrived at `to`: the first posted receive it matches takes it.
    void arrive(int to, message msg) {
        mailbox& box = boxes_[static_cast<std::size_t>(to)];
        const auto fits = [&](const std::shared_ptr<operation>& op) { return matches(to, op->source, op->tag, msg); };
        auto it = box.posted.end();
        if (is(defect::posted_lifo)) {
            auto r = std::find_if(box.posted.rbegin(), box.posted.rend(), fits);
            if (r != box.posted.rend()) it = std::prev(r.base());
        } else if (is(defect::named_before_wildcard)) {
            it = std::find_if(box.posted.begin(), box.posted.end(), [&](const std::shared_ptr<operation>& op) {
                return op->source != comet::any_source && op->tag != comet::any_tag && fits(op);
            });
            if (it == box.posted.end()) it = std::find_if(box.posted.begin(), box.posted.end(), fits);
        } else {
            it = std::find_if(box.posted.begin(), box.posted.end(), fits);
        }
        if (it == box.posted.end()) {
            box.arrived.push_back(std::move(msg));
            return;
        }
        const std::shared_ptr<operation> op = *it;
        box.posted.erase(it);
        if (is(defect::wildcard_duplicate) && op->source == comet::any_source) {
            message again = msg;
            again.synchronous.reset();
            box.arrived.push_back(std::move(again));
        }
        deliver(msg, *op, true);
    }

    /// Completes the receive `op` with `msg`: copies what fits and records the status.
    void deliver(const message& msg, operation& op, bool into_posted) {
        const comet::const_bytes in = msg.bytes();
        const std::size_t n = in.size(), room = op.buffer.size();
        std::size_t copied = std::min(n, room);
        if (is(defect::large_payload_cut) && into_posted) copied = std::min<std::size_t>(copied, 64 * 1024);
        if (copied > 0) std::memcpy(op.buffer.data(), in.data(), copied);
        if (is(defect::short_clears_tail) && n < room) std::memset(op.buffer.data() + n, 0, room - n);
        op.result = {msg.source, msg.tag, n};
        if (is(defect::short_status_buffer_size) && n < room) op.result.size = room;
        if (is(defect::recv_size_20_bits)) op.result.size = n & 0xFFFFF;
        if (is(defect::recv_source_wildcard) && op.source == comet::any_source) op.result.source = comet::any_source;
        if (is(defect::recv_tag_wildcard) && op.tag == comet::any_tag) op.result.tag = comet::any_tag;
        bool too_long = n > room;
        if (is(defect::truncation_one_over)) too_long = n > room + 1;
        if (is(defect::exact_fit_rejected)) too_long = n >= room;
        if (too_long) {
            if (is(defect::truncation_silent))
                op.result.size = room;
            else if (!is(defect::truncation_unreported))
                op.truncated = true, op.overflow = n;
        }
        op.done = true;
        if (msg.synchronous) msg.synchronous->done = true;
        cv_.notify_all();
    }

    const defect defect_;
    const int size_;
    const std::chrono::steady_clock::time_point epoch_ = std::chrono::steady_clock::now();
    std::atomic<bool> stopped_{false};
    std::mutex m_;
    std::condition_variable cv_;
    std::vector<mailbox> boxes_;
    std::vector<std::uint64_t> sent_;
    std::vector<const void*> slots_;
    std::uint64_t generation_ = 0;
    int meeting_ = 0;
    std::vector<int> leaky_counts_;
};

}  // namespace held_out
