// held_out_4/world.hpp — the shared mailboxes of an in-process group of ranks and the matching
// engine behind the fourth held-out transport (mailbox.hpp). Adapted from the third held-out
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

namespace held_out_4 {

struct operation {
    bool receive = false;
    bool done = false;
    bool nbc_barrier = false;  ///< the request of an ibarrier
    bool at_post = false;      ///< a receive whose message was waiting when it was posted
    bool silent = false;       ///< sendrecv_truncation_silent: the receive of a sendrecv
    int source = 0;
    int tag = 0;
    comet::mutable_bytes buffer;
    comet::status result;
    bool truncated = false;
    std::size_t overflow = 0;
    std::vector<std::byte> again;  ///< completed_buffer_rewritten: written again at the next call
};

struct message {
    int source = 0;
    int tag = 0;
    std::vector<std::byte> copy;
    bool from_issend = false;                ///< sent by ssend/issend
    bool probed_any = false;                 ///< probed_delivered_twice: reported by an any_source iprobe
    std::shared_ptr<operation> synchronous;  ///< marked done once the message is matched
    comet::const_bytes bytes() const { return comet::const_bytes(copy); }
    std::size_t size() const { return copy.size(); }
};

struct mailbox {
    std::deque<message> arrived;
    std::deque<std::shared_ptr<operation>> posted;
    std::vector<std::shared_ptr<operation>> late;  ///< completed_buffer_rewritten: completed, bytes to write again
    std::uint64_t arrivals = 0;
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
    world(int size, defect d) : defect_(d), size_(size), boxes_(static_cast<std::size_t>(size)), slots_(static_cast<std::size_t>(size), nullptr),
                                nbc_count_(static_cast<std::size_t>(size), 0) {}

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
    void send(int to, message msg) { arrive(to, std::move(msg)); }

    /// Under the lock: `me` called into the transport (completed_buffer_rewritten writes the
    /// bytes of receives completed earlier once more).
    void tick(int me) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        for (const std::shared_ptr<operation>& op : box.late)
            if (!op->again.empty()) std::memcpy(op->buffer.data(), op->again.data(), op->again.size());
        box.late.clear();
    }
    /// Under the lock: `op` completed; its bytes are written again at the next call.
    void owe(int me, const std::shared_ptr<operation>& op) { boxes_[static_cast<std::size_t>(me)].late.push_back(op); }

    std::uint64_t arrivals(int me) const { return boxes_[static_cast<std::size_t>(me)].arrivals; }
    bool has_posted(int me) const { return !boxes_[static_cast<std::size_t>(me)].posted.empty(); }

    /// Under the lock: drops every arrived message nobody asked for yet (progress_drops_unexpected).
    void drop_unexpected(int me) { boxes_[static_cast<std::size_t>(me)].arrived.clear(); }

    void post(int me, const std::shared_ptr<operation>& op) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        const auto fits = [&](const message& m) {
            if (!matches(op->source, op->tag, m)) return false;
            if (is(defect::any_source_odd_group_skips_rank0) && op->source == comet::any_source && size_ >= 3 && size_ % 2 == 1 && m.source == 0)
                return false;
            return true;
        };
        auto it = std::find_if(box.arrived.begin(), box.arrived.end(), fits);
        if (it != box.arrived.end() && is(defect::any_source_multi_sender_latest) && op->source == comet::any_source) {
            const int chosen = it->source;
            bool others = false;
            for (auto c = box.arrived.begin(); c != box.arrived.end(); ++c)
                if (fits(*c) && c->source != chosen) others = true;
            if (others)
                for (auto c = it; c != box.arrived.end(); ++c)
                    if (fits(*c) && c->source == chosen) it = c;
        }
        if (it == box.arrived.end()) {
            box.posted.push_back(op);
            return;
        }
        message msg = std::move(*it);
        if (is(defect::probed_delivered_twice) && msg.probed_any) {
            *it = msg;  // the copy the probe looked at stays queued
            it->probed_any = false;
            it->synchronous.reset();
        } else {
            box.arrived.erase(it);
        }
        op->at_post = true;
        deliver(me, msg, *op, false);
    }

    void withdraw(int me, const std::shared_ptr<operation>& op) {
        auto& posted = boxes_[static_cast<std::size_t>(me)].posted;
        posted.erase(std::remove(posted.begin(), posted.end(), op), posted.end());
    }

    std::optional<comet::status> probe(int me, int source, int tag) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        auto it = std::find_if(box.arrived.begin(), box.arrived.end(), [&](const message& m) { return matches(source, tag, m); });
        if (it == box.arrived.end()) return std::nullopt;
        if (source == comet::any_source) it->probed_any = true;
        if (is(defect::issend_matched_by_iprobe) && it->synchronous && it->from_issend) it->synchronous->done = true, cv_.notify_all();
        comet::status s{it->source, it->tag, it->size()};
        if (is(defect::iprobe_self_size_zero) && it->source == me) s.size = 0;
        return s;
    }

    // The board of the native blocking collectives: each rank leaves a pointer in its slot;
    // `meet` is a barrier over the group (`wait` false: counted in, but leaves at once).
    const void*& slot(int rank) { return slots_[static_cast<std::size_t>(rank)]; }
    const void* slot_of(int rank) const { return slots_[static_cast<std::size_t>(rank)]; }

    void meet(int rank, bool wait = true) {
        std::unique_lock l(m_);
        const std::uint64_t generation = generation_;
        if (++meeting_ == size_) {
            meeting_ = 0;
            ++generation_;
            cv_.notify_all();
            return;
        }
        while (wait && generation_ == generation) {
            if (stopped_) comet::raise<comet::stopped>(rank, "stopped because another rank failed");
            cv_.wait_for(l, std::chrono::milliseconds(5));
        }
    }

    /// Under the lock: `rank` starts its next nonblocking collective, completed through `op`.
    void join(int rank, round::kind what, int root, std::span<std::byte> data, const std::shared_ptr<operation>& op) {
        const std::uint64_t k = nbc_count_[static_cast<std::size_t>(rank)]++;
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
        if (++r.entered < size_) return;
        perform(r);
        for (const auto& o : r.ops) o->done = true;
        rounds_.erase(k);
        cv_.notify_all();
    }

private:
    bool matches(int source, int tag, const message& m) const {
        bool source_ok = source == comet::any_source || source == m.source;
        bool tag_ok = tag == comet::any_tag || tag == m.tag;
        if (is(defect::tag_reserved_fold) && tag >= 0 && tag < 768 && m.tag == tag + comet::first_reserved_tag) tag_ok = true;
        if (is(defect::singleton_any_source_never) && source == comet::any_source && size_ == 1) source_ok = false;
        return source_ok && tag_ok;
    }

    void arrive(int to, message msg) {
        mailbox& box = boxes_[static_cast<std::size_t>(to)];
        if (is(defect::max_tag_lost) && msg.tag == comet::max_tag) return;
        ++box.arrivals;
        cv_.notify_all();
        const auto fits = [&](const std::shared_ptr<operation>& op) { return matches(op->source, op->tag, msg); };
        auto it = std::find_if(box.posted.begin(), box.posted.end(), fits);
        if (it != box.posted.end() && is(defect::posted_lifo_past_8) && box.posted.size() > 8) {
            for (auto c = it; c != box.posted.end(); ++c)
                if (fits(*c)) it = c;
        }
        if (it == box.posted.end()) {
            if (is(defect::unmatched_while_posted_front) && !box.posted.empty()) {
                box.arrived.push_front(std::move(msg));
                return;
            }
            if (is(defect::deep_queue_swaps)) {
                std::size_t waiting = 0;
                auto last = box.arrived.end();
                for (auto c = box.arrived.begin(); c != box.arrived.end(); ++c)
                    if (c->source == msg.source) ++waiting, last = c;
                if (waiting >= 100) {
                    box.arrived.insert(last, std::move(msg));
                    return;
                }
            }
            box.arrived.push_back(std::move(msg));
            return;
        }
        if (is(defect::self_posted_lost) && msg.source == to) return;
        const std::shared_ptr<operation> op = *it;
        box.posted.erase(it);
        deliver(to, msg, *op, true);
    }

    void deliver(int to, const message& msg, operation& op, bool into_posted) {
        const comet::const_bytes in = msg.bytes();
        const std::size_t n = in.size(), room = op.buffer.size();
        std::size_t copied = std::min(n, room);
        if (is(defect::odd_large_last_byte) && n > 1024 && n % 2 == 1 && copied == n) --copied;
        if (copied > 0) std::memcpy(op.buffer.data(), in.data(), copied);
        if (is(defect::cross_parity_byteswap_8k) && n >= 8192 && n % 8 == 0 && copied == n && (msg.source % 2) != (to % 2))
            for (std::size_t w = 0; w < n; w += 8) std::reverse(op.buffer.begin() + static_cast<std::ptrdiff_t>(w), op.buffer.begin() + static_cast<std::ptrdiff_t>(w + 8));
        if (is(defect::completed_buffer_rewritten) && copied >= 16384) op.again.assign(op.buffer.begin(), op.buffer.begin() + static_cast<std::ptrdiff_t>(copied));
        op.result = {msg.source, msg.tag, n};
        if (is(defect::empty_status_size_one) && n == 0) op.result.size = 1;
        if (is(defect::posted_any_tag_status_tag_zero) && into_posted && op.tag == comet::any_tag) op.result.tag = 0;
        const bool silent = (is(defect::truncation_any_source_silent) && op.source == comet::any_source) || op.silent;
        if (n > room && !silent) op.truncated = true, op.overflow = n;
        if (is(defect::short_large_buffer_raises) && room >= (std::size_t{1} << 20) && n < room) op.truncated = true, op.overflow = n;
        if (msg.synchronous) msg.synchronous->done = true;
        if (is(defect::empty_into_posted_pending) && into_posted && n == 0 && room > 0) return;  // consumed, never completed
        op.done = true;
        cv_.notify_all();
    }

    /// The last rank into a nonblocking collective performs it.
    void perform(round& r) {
        switch (r.what) {
        case round::kind::barrier: break;
        case round::kind::broadcast: {
            const int root = is(defect::ibroadcast_from_rank_zero) ? 0 : r.root;
            const std::byte* from = r.data[static_cast<std::size_t>(root)];
            for (int i = 0; i < size_; ++i) {
                const auto at = static_cast<std::size_t>(i);
                if (i != root && r.sizes[at] > 0) std::memcpy(r.data[at], from, r.sizes[at]);
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
            const int receivers = is(defect::iallreduce_sum_root_only) ? 1 : size_;
            for (int i = 0; i < receivers; ++i)
                if (count > 0) std::memcpy(r.data[static_cast<std::size_t>(i)], sum.data(), count * sizeof(double));
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
};

}  // namespace held_out_4
