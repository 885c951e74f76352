// held_out_2/world.hpp — the shared mailboxes of an in-process group of ranks and the matching
// engine behind the second held-out transport (mailbox.hpp). Adapted from the first held-out
// set's world.hpp; its only defects are the ones of defects.hpp switched on.
//
// MPI's model: each rank has a queue of posted receives (in posting order) and a queue of arrived
// messages nobody asked for yet (in arrival order). One lock guards the world, so for each pair
// of ranks "arrived first" is "sent first". Sends copy their bytes at once. Under
// `test_does_not_progress` every message waits in the receiver's `in_flight` list until the
// receiver's next progressing call.
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

namespace held_out_2 {

struct operation {
    bool receive = false;
    bool done = false;
    int source = 0;
    int tag = 0;
    comet::mutable_bytes buffer;
    comet::status result;
    bool truncated = false;
    std::size_t overflow = 0;
};

struct message {
    int source = 0;
    int tag = 0;
    std::vector<std::byte> copy;
    comet::const_bytes borrowed;
    bool is_borrowed = false;
    bool ready = false;                      ///< sent by rsend/irsend
    std::shared_ptr<operation> synchronous;  ///< a synchronous send, complete once matched
    comet::const_bytes bytes() const { return is_borrowed ? borrowed : comet::const_bytes(copy); }
    std::size_t size() const { return bytes().size(); }
};

/// A message a posted receive took, still visible to a defective probe until tested.
struct ghost {
    std::shared_ptr<operation> op;
    comet::status seen;
};

struct mailbox {
    std::deque<message> arrived;
    std::deque<std::shared_ptr<operation>> posted;
    std::deque<message> in_flight;
    std::vector<ghost> ghosts;
};

class world {
public:
    world(int size, defect d) : defect_(d), size_(size), boxes_(static_cast<std::size_t>(size)), slots_(static_cast<std::size_t>(size), nullptr) {}

    bool is(defect d) const noexcept { return defect_ == d; }
    int size() const noexcept { return size_; }
    std::chrono::steady_clock::time_point epoch() const noexcept { return epoch_; }

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

    /// Under the lock.
    void send(int to, message msg) {
        if (is(defect::test_does_not_progress)) return boxes_[static_cast<std::size_t>(to)].in_flight.push_back(std::move(msg));
        arrive(to, std::move(msg));
    }

    /// `me` made a progressing call: messages in flight to it arrive, in order.
    void tick(int me) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        while (!box.in_flight.empty()) {
            message msg = std::move(box.in_flight.front());
            box.in_flight.pop_front();
            arrive(me, std::move(msg));
        }
    }

    void post(int me, const std::shared_ptr<operation>& op) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        const auto fits = [&](const message& m) { return matches(me, op->source, op->tag, m); };
        auto it = std::find_if(box.arrived.begin(), box.arrived.end(), fits);
        if (it != box.arrived.end()) {
            if (is(defect::double_wildcard_latest) && op->source == comet::any_source && op->tag == comet::any_tag) {
                for (auto c = it; c != box.arrived.end(); ++c)
                    if (fits(*c)) it = c;
            } else if (is(defect::any_source_smallest_first) && op->source == comet::any_source) {
                for (auto c = it; c != box.arrived.end(); ++c)
                    if (fits(*c) && c->size() < it->size()) it = c;
            } else if (is(defect::self_lifo) && it->source == me) {
                for (auto c = it; c != box.arrived.end(); ++c)
                    if (fits(*c) && c->source == me) it = c;
            }
        }
        if (it == box.arrived.end()) {
            box.posted.push_back(op);
            return;
        }
        message msg = std::move(*it);
        box.arrived.erase(it);
        deliver(me, msg, *op, false);
    }

    void withdraw(int me, const std::shared_ptr<operation>& op) {
        auto& posted = boxes_[static_cast<std::size_t>(me)].posted;
        posted.erase(std::remove(posted.begin(), posted.end(), op), posted.end());
        forget(me, op);
    }

    /// The receive `op` was completed by a test: a defective probe stops reporting its message.
    void forget(int me, const std::shared_ptr<operation>& op) {
        auto& g = boxes_[static_cast<std::size_t>(me)].ghosts;
        g.erase(std::remove_if(g.begin(), g.end(), [&](const ghost& x) { return x.op == op; }), g.end());
    }

    std::optional<comet::status> probe(int me, int source, int tag) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        const int want_tag = is(defect::iprobe_ignores_tag) ? comet::any_tag : tag;
        if (is(defect::iprobe_sees_matched))
            for (const ghost& g : box.ghosts)
                if ((source == comet::any_source || source == g.seen.source) && (tag == comet::any_tag || tag == g.seen.tag)) return g.seen;
        auto it = std::find_if(box.arrived.begin(), box.arrived.end(), [&](const message& m) {
            if (is(defect::iprobe_misses_self) && m.source == me) return false;
            if (is(defect::iprobe_skips_empty) && m.size() == 0) return false;
            return matches(me, source, want_tag, m);
        });
        if (it == box.arrived.end()) return std::nullopt;
        comet::status s{it->source, it->tag, it->size()};
        if (is(defect::iprobe_source_wildcard) && source == comet::any_source) s.source = comet::any_source;
        if (is(defect::probe_size_header)) s.size += 8;
        return s;
    }

    // The board of the native collectives: each rank leaves a pointer in its slot; `meet` is a
    // barrier over the group.
    const void*& slot(int rank) { return slots_[static_cast<std::size_t>(rank)]; }
    const void* slot_of(int rank) const { return slots_[static_cast<std::size_t>(rank)]; }

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

private:
    bool matches(int, int source, int tag, const message& m) const {
        bool source_ok = source == comet::any_source || source == m.source;
        bool tag_ok = tag == comet::any_tag || tag == m.tag;
        if (is(defect::tag_14_bits) && tag != comet::any_tag) tag_ok = (tag & 0x3fff) == (m.tag & 0x3fff);
        if (is(defect::any_tag_skips_reserved) && tag == comet::any_tag && m.tag >= comet::first_reserved_tag) tag_ok = false;
        if (is(defect::any_source_skips_last_rank) && source == comet::any_source && size_ >= 3 && m.source == size_ - 1) source_ok = false;
        if (is(defect::tag_zero_is_wildcard) && tag == 0) tag_ok = true;
        if (is(defect::source_zero_is_wildcard) && source == 0) source_ok = true;
        return source_ok && tag_ok;
    }

    void arrive(int to, message msg) {
        mailbox& box = boxes_[static_cast<std::size_t>(to)];
        const auto fits = [&](const std::shared_ptr<operation>& op) { return matches(to, op->source, op->tag, msg); };
        auto it = std::find_if(box.posted.begin(), box.posted.end(), fits);
        if (it == box.posted.end()) {
            if (is(defect::unexpected_overflow_lost) && box.arrived.size() >= 64) return;
            if (is(defect::lost_past_posted_mismatch) && !box.posted.empty()) return;
            box.arrived.push_back(std::move(msg));
            return;
        }
        const std::shared_ptr<operation> op = *it;
        if (is(defect::rsend_any_source_lost) && msg.ready && op->source == comet::any_source) return;
        box.posted.erase(it);
        if (is(defect::two_posted_both_complete)) {
            auto second = std::find_if(box.posted.begin(), box.posted.end(), fits);
            if (second != box.posted.end()) {
                const std::shared_ptr<operation> op2 = *second;
                box.posted.erase(second);
                deliver(to, msg, *op2, true);
            }
        }
        if (is(defect::iprobe_sees_matched)) box.ghosts.push_back({op, {msg.source, msg.tag, msg.size()}});
        deliver(to, msg, *op, true);
    }

    void deliver(int to, const message& msg, operation& op, bool into_posted) {
        const comet::const_bytes in = msg.bytes();
        const std::size_t n = in.size(), room = op.buffer.size();
        std::size_t copied = std::min(n, room);
        if (is(defect::short_prefix_one_less) && n < room && n > 0) copied = n - 1;
        if (copied > 0) std::memcpy(op.buffer.data(), in.data(), copied);
        if (is(defect::unexpected_tail_zeroed) && !into_posted && copied > 32 * 1024)
            std::memset(op.buffer.data() + 32 * 1024, 0, copied - 32 * 1024);
        op.result = {msg.source, msg.tag, n};
        if (is(defect::size_rounded_up_8)) op.result.size = (n + 7) / 8 * 8;
        if (is(defect::posted_status_own_rank) && into_posted) op.result.source = to;
        if (n > room) {
            if (is(defect::truncation_only_unexpected) && into_posted)
                op.result.size = room;
            else
                op.truncated = true, op.overflow = n;
        }
        op.done = true;
        if (msg.synchronous && !(is(defect::ssend_posted_never) && into_posted)) msg.synchronous->done = true;
        cv_.notify_all();
    }

    const defect defect_;
    const int size_;
    const std::chrono::steady_clock::time_point epoch_ = std::chrono::steady_clock::now();
    std::atomic<bool> stopped_{false};
    std::mutex m_;
    std::condition_variable cv_;
    std::vector<mailbox> boxes_;
    std::vector<const void*> slots_;
    std::uint64_t generation_ = 0;
    int meeting_ = 0;
};

}  // namespace held_out_2
