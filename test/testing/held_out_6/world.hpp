// held_out_6/world.hpp — the shared mailboxes of an in-process group of ranks and the matching
// engine behind the sixth held-out transport (mailbox.hpp). Adapted from the fifth held-out
// set's world.hpp, with its defects taken out; the only defects here are the ones of
// defects.hpp switched on.
//
// MPI's model: each rank has a queue of posted receives (in posting order) and a queue of arrived
// messages nobody asked for yet (in arrival order). One lock guards the world, so for each pair
// of ranks "arrived first" is "sent first". Sends copy their bytes at once. The nonblocking
// collectives meet in "rounds": a rank's k-th nonblocking collective joins round k, and the last
// rank to join performs it for everyone (every buffer still belongs to the transport then).
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
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

namespace held_out_6 {

/// The size where an eager protocol would end and a rendezvous begin (the defects' threshold).
inline constexpr std::size_t threshold = 65536;

struct operation {
    bool receive = false;
    bool done = false;
    bool reported = false;  ///< its completion was returned by a test (completed_request_slot_reused)
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
    bool ready = false;                      ///< sent by rsend/irsend
    std::shared_ptr<operation> synchronous;  ///< marked done once the message is matched
    comet::const_bytes bytes() const { return comet::const_bytes(copy); }
    std::size_t size() const { return copy.size(); }
};

struct mailbox {
    std::deque<message> arrived;
    std::deque<std::shared_ptr<operation>> posted;
    std::uint64_t arrivals = 0;
    std::size_t cursor = 0;           ///< scan_cursor_not_reset
    int last_queued_source = -1;      ///< interleaved_sender_tail_stale
};

/// A nonblocking collective in progress.
struct round {
    enum class kind { barrier, broadcast, allreduce_sum } what = kind::barrier;
    int root = 0;
    int entered = 0;
    std::vector<std::shared_ptr<operation>> ops;
    std::vector<std::byte*> data;
    std::vector<std::size_t> sizes;
};

class world {
public:
    world(int size, defect d)
        : defect_(d), size_(size), boxes_(static_cast<std::size_t>(size)), slots_(static_cast<std::size_t>(size), nullptr),
          nbc_count_(static_cast<std::size_t>(size), 0), barriers_(static_cast<std::size_t>(size), 0),
          sent_(static_cast<std::size_t>(size) * static_cast<std::size_t>(size), 0), latest_allreduce_(static_cast<std::size_t>(size), nullptr) {}

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
    void send(int from, int to, message msg) {
        std::uint64_t& n = sent_[static_cast<std::size_t>(from) * static_cast<std::size_t>(size_) + static_cast<std::size_t>(to)];
        ++n;
        if (is(defect::window_boundary_duplicate) && n == 1000) arrive(to, msg);  // retransmitted at the window's end
        arrive(to, std::move(msg));
    }

    std::uint64_t arrivals(int me) const { return boxes_[static_cast<std::size_t>(me)].arrivals; }

    void post(int me, const std::shared_ptr<operation>& op) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        const auto fits = [&](const message& m) { return matches(op->source, op->tag, m); };
        auto it = box.arrived.end();
        if (is(defect::scan_cursor_not_reset) && box.cursor < box.arrived.size())
            it = std::find_if(box.arrived.begin() + static_cast<std::ptrdiff_t>(box.cursor), box.arrived.end(), fits);
        if (it == box.arrived.end()) it = std::find_if(box.arrived.begin(), box.arrived.end(), fits);
        if (it == box.arrived.end()) {
            box.posted.push_back(op);
            return;
        }
        box.cursor = static_cast<std::size_t>(it - box.arrived.begin());
        message msg = std::move(*it);
        box.arrived.erase(it);
        deliver(me, msg, op, false);
    }

    void withdraw(int me, const std::shared_ptr<operation>& op) {
        auto& posted = boxes_[static_cast<std::size_t>(me)].posted;
        posted.erase(std::remove(posted.begin(), posted.end(), op), posted.end());
    }

    std::optional<comet::status> probe(int me, int source, int tag) const {
        const mailbox& box = boxes_[static_cast<std::size_t>(me)];
        int only = source;
        if (is(defect::iprobe_any_source_first_nonempty) && source == comet::any_source && !box.arrived.empty()) {
            only = box.arrived.front().source;
            for (const message& m : box.arrived) only = std::min(only, m.source);
        }
        auto it = std::find_if(box.arrived.begin(), box.arrived.end(), [&](const message& m) { return matches(only, tag, m); });
        if (it == box.arrived.end()) return std::nullopt;
        return comet::status{it->source, it->tag, it->size()};
    }

    /// Under the lock: progress_rematch_source_only pairs waiting messages with posted receives.
    void rematch(int me) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        for (auto p = box.posted.begin(); p != box.posted.end();) {
            const std::shared_ptr<operation> op = *p;
            auto it = std::find_if(box.arrived.begin(), box.arrived.end(),
                                   [&](const message& m) { return op->source == comet::any_source || op->source == m.source; });
            if (it == box.arrived.end()) {
                ++p;
                continue;
            }
            message msg = std::move(*it);
            box.arrived.erase(it);
            p = box.posted.erase(p);
            deliver(me, msg, op, false);
        }
    }

    // The board of the native blocking collectives: each rank leaves a pointer in its slot;
    // `meet` is a barrier over the group.
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

    /// barrier_release_on_root_entry: rank 0 waits for every rank to enter; the others only for
    /// rank 0 to enter.
    void root_barrier(int rank) {
        std::unique_lock l(m_);
        const std::uint64_t mine = ++barriers_[static_cast<std::size_t>(rank)];
        cv_.notify_all();
        for (;;) {
            bool all = true;
            if (rank == 0) {
                for (int j = 0; j < size_; ++j)
                    if (barriers_[static_cast<std::size_t>(j)] < mine) all = false;
            } else {
                all = barriers_[0] >= mine;
            }
            if (all) return;
            if (stopped_) comet::raise<comet::stopped>(rank, "stopped because another rank failed");
            cv_.wait_for(l, std::chrono::milliseconds(5));
        }
    }

    /// Under the lock: `rank` starts its next nonblocking collective, completed through `op`.
    void join(int rank, round::kind what, int root, std::span<std::byte> data, const std::shared_ptr<operation>& op) {
        const std::uint64_t k = nbc_count_[static_cast<std::size_t>(rank)]++;
        if (what == round::kind::broadcast && is(defect::ibroadcast_root_cached)) {
            if (cached_root_ < 0) cached_root_ = root;
            root = cached_root_;
        }
        if (what == round::kind::allreduce_sum) latest_allreduce_[static_cast<std::size_t>(rank)] = data.data();
        round& r = rounds_[k];
        if (r.ops.empty()) {
            r.what = what;
            r.root = root;
            r.ops.resize(static_cast<std::size_t>(size_));
            r.data.resize(static_cast<std::size_t>(size_), nullptr);
            r.sizes.resize(static_cast<std::size_t>(size_), 0);
        }
        r.ops[static_cast<std::size_t>(rank)] = op;
        r.data[static_cast<std::size_t>(rank)] = data.data();
        r.sizes[static_cast<std::size_t>(rank)] = data.size();
        if (++r.entered < size_) {
            if (what == round::kind::barrier && is(defect::ibarrier_neighbours_only)) {
                const auto in = [&](int i) { return r.ops[static_cast<std::size_t>((i % size_ + size_) % size_)] != nullptr; };
                for (int i = 0; i < size_; ++i)
                    if (in(i) && in(i - 1) && in(i + 1)) r.ops[static_cast<std::size_t>(i)]->done = true;
                cv_.notify_all();
            }
            return;
        }
        perform(r);
        for (const auto& o : r.ops) o->done = true;
        rounds_.erase(k);
        cv_.notify_all();
    }

private:
    static bool matches(int source, int tag, const message& m) {
        const bool source_ok = source == comet::any_source || source == m.source;
        const bool tag_ok = tag == comet::any_tag || tag == m.tag;
        return source_ok && tag_ok;
    }

    /// Whether `msg`, arriving, completes the posted receive `op` (the posted path's own
    /// comparison, where several defects live).
    bool fits_posted(const operation& op, const message& msg) const {
        bool source_ok = op.source == comet::any_source || op.source == msg.source;
        bool tag_ok = op.tag == comet::any_tag || op.tag == msg.tag;
        if (is(defect::posted_tag_bucket_64) && op.tag != comet::any_tag) tag_ok = op.tag % 64 == msg.tag % 64;
        if (is(defect::posted_source_last_is_any) && op.source == size_ - 1) source_ok = true;
        if (is(defect::rsend_ignores_posted_source) && msg.ready) source_ok = true;
        if (is(defect::rendezvous_posted_any_source_stalls) && msg.size() > threshold && op.source == comet::any_source) return false;
        if (is(defect::empty_bypasses_posted_wildcard) && msg.size() == 0 && (op.source == comet::any_source || op.tag == comet::any_tag))
            return false;
        return source_ok && tag_ok;
    }

    void arrive(int to, message msg) {
        mailbox& box = boxes_[static_cast<std::size_t>(to)];
        ++box.arrivals;
        cv_.notify_all();
        auto it = box.posted.begin();
        for (; it != box.posted.end(); ++it) {
            if (fits_posted(**it, msg)) break;
            if (is(defect::posted_scan_stops_at_source) && (*it)->source == msg.source) {
                it = box.posted.end();
                break;
            }
        }
        if (it == box.posted.end()) {
            queue(box, std::move(msg));
            return;
        }
        const std::shared_ptr<operation> op = *it;
        box.posted.erase(it);
        deliver(to, msg, op, true);
    }

    /// A message nobody asked for yet joins the rank's queue.
    void queue(mailbox& box, message msg) {
        const int previous = box.last_queued_source;
        box.last_queued_source = msg.source;
        if (is(defect::interleaved_sender_tail_stale) && previous >= 0 && previous != msg.source) {
            auto last = box.arrived.end();
            for (auto c = box.arrived.begin(); c != box.arrived.end(); ++c)
                if (c->source == msg.source) last = c;
            if (last != box.arrived.end()) {
                box.arrived.insert(last, std::move(msg));
                return;
            }
        }
        if (is(defect::reserved_tags_priority_lane) && msg.tag >= comet::first_reserved_tag) {
            auto at = std::find_if(box.arrived.begin(), box.arrived.end(), [](const message& m) { return m.tag < comet::first_reserved_tag; });
            box.arrived.insert(at, std::move(msg));
            return;
        }
        box.arrived.push_back(std::move(msg));
    }

    void deliver(int to, const message& msg, const std::shared_ptr<operation>& target, bool posted) {
        operation& op = *target;
        const std::size_t n = msg.size(), room = op.buffer.size();
        const std::size_t copied = std::min(n, room);
        bool truncated = n > room;
        op.result = {msg.source, msg.tag, n};
        if (is(defect::truncation_checked_in_words)) truncated = (n + 7) / 8 > (room + 7) / 8;
        if (is(defect::truncation_loopback_silent) && truncated && msg.source == to) truncated = false, op.result.size = room;
        if (is(defect::relay_opposite_status_source) && size_ >= 4 && size_ % 2 == 0 && (to - msg.source + size_) % size_ == size_ / 2)
            op.result.source = (msg.source + 1) % size_;
        if (truncated) op.truncated = true, op.overflow = n;
        if (msg.synchronous && !(is(defect::issend_truncation_no_ack) && truncated)) msg.synchronous->done = true;
        std::size_t count = copied;
        if (is(defect::unaligned_tail_dropped) && n >= 9 && !truncated && reinterpret_cast<std::uintptr_t>(op.buffer.data()) % 8 != 0)
            count = copied - copied % 8;
        if (is(defect::page_multiple_short_last_page) && n >= 4096 && n % 4096 == 0 && room > n) count = n - 4096;
        if (count > 0) std::memcpy(op.buffer.data(), msg.bytes().data(), count);
        if (!truncated && posted && is(defect::posted_status_size_last_chunk) && n > threshold) op.result.size = n - (n - 1) / threshold * threshold;
        op.done = true;
        cv_.notify_all();
    }

    /// The last rank into a nonblocking collective performs it.
    void perform(round& r) {
        switch (r.what) {
        case round::kind::barrier: break;
        case round::kind::broadcast: {
            const std::byte* from = r.data[static_cast<std::size_t>(r.root)];
            for (int i = 0; i < size_; ++i) {
                const auto at = static_cast<std::size_t>(i);
                if (i != r.root && r.sizes[at] > 0) std::memcpy(r.data[at], from, r.sizes[at]);
            }
            break;
        }
        case round::kind::allreduce_sum: {
            const std::size_t count = r.sizes[0] / sizeof(double);
            std::vector<double> sum(count, 0.0);
            for (std::size_t e = 0; e < count; ++e) {
                double acc;
                std::memcpy(&acc, r.data[0] + e * sizeof(double), sizeof(double));
                for (int i = 1; i < size_; ++i) {
                    double v;
                    std::memcpy(&v, r.data[static_cast<std::size_t>(i)] + e * sizeof(double), sizeof(double));
                    acc += v;
                }
                sum[e] = acc;
            }
            for (int i = 0; i < size_; ++i) {
                std::byte* into = is(defect::iallreduce_two_outstanding_mixed) ? latest_allreduce_[static_cast<std::size_t>(i)]
                                                                                : r.data[static_cast<std::size_t>(i)];
                if (count > 0) std::memcpy(into, sum.data(), count * sizeof(double));
            }
            break;
        }
        }
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
    std::vector<std::uint64_t> nbc_count_;
    std::map<std::uint64_t, round> rounds_;
    std::vector<std::uint64_t> barriers_;
    std::vector<std::uint64_t> sent_;
    std::vector<std::byte*> latest_allreduce_;
    int cached_root_ = -1;
};

}  // namespace held_out_6
