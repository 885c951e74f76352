// held_out_8/world.hpp — the shared mailboxes of an in-process group of ranks and the matching
// engine behind the eighth held-out transport (mailbox.hpp). Adapted from the seventh held-out
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

namespace held_out_8 {

/// The size where an eager protocol would end and a rendezvous begin (the defects' threshold).
inline constexpr std::size_t threshold = 65536;
/// The piece size of the large-message defects.
inline constexpr std::size_t mebibyte = std::size_t{1} << 20;

struct operation {
    bool receive = false;
    bool collective = false;
    bool barrier = false;  ///< an ibarrier's (ibarrier_timeout_100ms)
    bool done = false;
    int source = 0;
    int tag = 0;
    int dest = 0;
    comet::mutable_bytes buffer;
    comet::status result;
    bool truncated = false;
    std::size_t overflow = 0;
    std::chrono::steady_clock::time_point joined;  ///< ibarrier_timeout_100ms
};

struct message {
    int source = 0;
    int tag = 0;
    std::vector<std::byte> copy;
    bool ready = false;                      ///< sent by rsend/irsend
    bool bsent = false;                      ///< sent by bsend (bsend_nagle_coalesces)
    std::uint64_t seq = 0;                   ///< its arrival number at the receiver (iprobe_double_buffer_one_behind)
    std::shared_ptr<operation> synchronous;  ///< marked done once the message is matched
    comet::const_bytes bytes() const { return comet::const_bytes(copy); }
    std::size_t size() const { return copy.size(); }
};

struct mailbox {
    std::deque<message> arrived;
    std::deque<std::shared_ptr<operation>> posted;
    std::uint64_t arrivals = 0;
    std::uint64_t remote_arrivals = 0;  ///< from other ranks (iprobe_negative_cache_loopback)
    std::vector<std::byte> staging;     ///< short_copy_rounded_to_cacheline
};

/// A nonblocking collective in progress.
struct round {
    enum class kind { barrier, broadcast, allreduce_sum } what = kind::barrier;
    int root = 0;
    int entered = 0;
    std::vector<int> order;  ///< the ranks in the order they joined
    std::vector<std::shared_ptr<operation>> ops;
    std::vector<std::byte*> data;
    std::vector<std::size_t> sizes;
};

class world {
public:
    world(int size, defect d)
        : defect_(d), size_(size), boxes_(static_cast<std::size_t>(size)), slots_(static_cast<std::size_t>(size), nullptr),
          nbc_count_(static_cast<std::size_t>(size), 0), barriers_(static_cast<std::size_t>(size), 0) {}

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

    std::uint64_t arrivals(int me) const { return box(me).arrivals; }
    std::uint64_t remote_arrivals(int me) const { return box(me).remote_arrivals; }

    /// Under the lock: bsend_nagle_coalesces appends `data` to the newest message from `from`
    /// still waiting at `to` when it was bsent with `tag` and is small.
    bool coalesce(int to, int from, int tag, comet::const_bytes data) {
        auto& q = box(to).arrived;
        for (auto it = q.rbegin(); it != q.rend(); ++it) {
            if (it->source != from) continue;
            if (!it->bsent || it->tag != tag || it->size() > 64) return false;
            it->copy.insert(it->copy.end(), data.begin(), data.end());
            return true;
        }
        return false;
    }

    void post(int me, const std::shared_ptr<operation>& op) {
        mailbox& b = box(me);
        const auto fits = [&](const message& m) { return matches(op->source, op->tag, m); };
        auto it = std::find_if(b.arrived.begin(), b.arrived.end(), fits);
        if (is(defect::any_source_ring_scan_misses_predecessor) && op->source == comet::any_source) {
            // sources in ring order from this rank, one step short
            it = b.arrived.end();
            const int steps = size_ > 1 ? size_ - 1 : 1;
            for (int k = 0; k < steps && it == b.arrived.end(); ++k) {
                const int s = (me + k) % size_;
                it = std::find_if(b.arrived.begin(), b.arrived.end(), [&](const message& m) { return m.source == s && fits(m); });
            }
        }
        if (it == b.arrived.end()) {
            if (is(defect::posted_any_tag_inherits_pending_tag) && op->source != comet::any_source && op->tag == comet::any_tag)
                for (const auto& p : b.posted)
                    if (p->source == op->source && p->tag != comet::any_tag) {
                        op->tag = p->tag;  // the source's posted slot holds one tag
                        break;
                    }
            b.posted.push_back(op);
            return;
        }
        message msg = std::move(*it);
        const auto at = static_cast<std::size_t>(it - b.arrived.begin());
        b.arrived.erase(it);
        deliver(me, msg, op);
        if (is(defect::recv_size_read_after_erase) && at < b.arrived.size() && !op->truncated) op->result.size = b.arrived[at].size();
    }

    void withdraw(int me, const std::shared_ptr<operation>& op) {
        auto& posted = box(me).posted;
        posted.erase(std::remove(posted.begin(), posted.end(), op), posted.end());
    }

    /// posted_move_to_front_on_test: a pending receive moves to the front of the posted list.
    void promote(int me, const std::shared_ptr<operation>& op) {
        auto& posted = box(me).posted;
        auto it = std::find(posted.begin(), posted.end(), op);
        if (it == posted.end() || it == posted.begin()) return;
        posted.erase(it);
        posted.push_front(op);
    }

    /// The earliest waiting message that matches; only those with an arrival number <= `upto`.
    std::optional<comet::status> probe(int me, int source, int tag, std::uint64_t upto = UINT64_MAX) const {
        const mailbox& b = box(me);
        auto it = std::find_if(b.arrived.begin(), b.arrived.end(), [&](const message& m) { return m.seq <= upto && matches(source, tag, m); });
        if (it == b.arrived.end()) return std::nullopt;
        return comet::status{it->source, it->tag, it->size()};
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

    /// barrier_chain_no_release: a rank waits for the ranks at and above it only.
    void chain_barrier(int rank) {
        std::unique_lock l(m_);
        const std::uint64_t mine = ++barriers_[static_cast<std::size_t>(rank)];
        cv_.notify_all();
        for (;;) {
            bool all = true;
            for (int j = rank; j < size_; ++j)
                if (barriers_[static_cast<std::size_t>(j)] < mine) all = false;
            if (all) return;
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
        r.order.push_back(rank);
        if (++r.entered < size_) return;
        perform(r);
        for (const auto& o : r.ops) o->done = true;
        rounds_.erase(k);
        cv_.notify_all();
    }

private:
    mailbox& box(int rank) { return boxes_[static_cast<std::size_t>(rank)]; }
    const mailbox& box(int rank) const { return boxes_[static_cast<std::size_t>(rank)]; }

    bool matches(int source, int tag, const message& m) const {
        if (is(defect::composite_key_off_by_one) && source != comet::any_source && tag != comet::any_tag)
            return source * comet::max_tag + tag == m.source * comet::max_tag + m.tag;  // should be max_tag + 1
        const bool source_ok = source == comet::any_source || source == m.source;
        const bool tag_ok = tag == comet::any_tag || tag == m.tag;
        return source_ok && tag_ok;
    }

    void arrive(int to, message msg) {
        mailbox& b = box(to);
        msg.seq = ++b.arrivals;
        if (msg.source != to) ++b.remote_arrivals;
        cv_.notify_all();
        auto it = b.posted.begin();
        for (; it != b.posted.end(); ++it)
            if (matches((*it)->source, (*it)->tag, msg)) break;
        if (is(defect::posted_by_tag_map_wildcard_first) && it != b.posted.end() && (*it)->tag != comet::any_tag) {
            // the map's any_tag bucket comes first
            auto wild = std::find_if(b.posted.begin(), b.posted.end(),
                                     [&](const auto& p) { return p->tag == comet::any_tag && matches(p->source, p->tag, msg); });
            if (wild != b.posted.end()) it = wild;
        }
        if (it == b.posted.end()) {
            if (is(defect::issend_ack_on_arrival_when_posted) && msg.synchronous && !b.posted.empty()) msg.synchronous->done = true;
            if (is(defect::unmatched_past_posted_queued_twice) && !b.posted.empty()) b.arrived.push_back(msg);  // falls through
            b.arrived.push_back(std::move(msg));
            return;
        }
        const std::shared_ptr<operation> op = *it;
        b.posted.erase(it);
        deliver(to, msg, op);
    }

    void deliver(int to, const message& msg, const std::shared_ptr<operation>& target) {
        operation& op = *target;
        const std::size_t n = msg.size(), room = op.buffer.size();
        std::size_t copied = std::min(n, room);
        bool truncated = n > room;
        if (is(defect::truncation_length_field_16_bits) && n >= threshold) truncated = (n & 0xFFFF) > room;
        op.result = {msg.source, msg.tag, n};
        if (is(defect::rsend_truncation_silent) && msg.ready && truncated) {
            truncated = false;
            op.result.size = copied;
        }
        if (truncated) op.truncated = true, op.overflow = n;
        if (msg.synchronous) msg.synchronous->done = true;
        if (is(defect::short_copy_rounded_to_cacheline)) {
            // every message passes through the rank's staging buffer, and a short one leaves it in
            // whole 64-byte lines
            std::vector<std::byte>& line = box(to).staging;
            const std::size_t lines = (n + 63) / 64 * 64;
            if (line.size() < lines) line.resize(lines);
            if (n > 0) std::memcpy(line.data(), msg.bytes().data(), n);
            if (n < room) copied = std::min(lines, room);
            if (copied > 0) std::memcpy(op.buffer.data(), line.data(), copied);
        } else if (copied > 0) {
            std::memcpy(op.buffer.data(), msg.bytes().data(), copied);
        }
        if (is(defect::eager_trailer_clobbers_tail) && n > threshold - 16 && n <= threshold) {
            // the eager slot's trailer: the length and a checksum, in its last 16 bytes
            std::uint64_t trailer[2] = {n, 0};
            for (std::byte b : msg.copy) trailer[1] = trailer[1] * 31 + static_cast<unsigned char>(b);
            for (std::size_t k = threshold - 16; k < copied; ++k)
                op.buffer[k] = reinterpret_cast<const std::byte*>(trailer)[k - (threshold - 16)];
        }
        op.done = true;
        cv_.notify_all();
    }

    /// The last rank into a nonblocking collective performs it.
    void perform(round& r) {
        switch (r.what) {
        case round::kind::barrier: break;
        case round::kind::broadcast: {
            const std::byte* from = r.data[static_cast<std::size_t>(r.root)];
            const auto root_at = std::find(r.order.begin(), r.order.end(), r.root) - r.order.begin();
            for (int i = 0; i < size_; ++i) {
                const auto at = static_cast<std::size_t>(i);
                std::size_t n = r.sizes[at];
                const auto joined_at = std::find(r.order.begin(), r.order.end(), i) - r.order.begin();
                if (is(defect::ibroadcast_late_joiner_staging_64k) && joined_at > root_at) n = std::min(n, threshold);
                if (i != r.root && n > 0) std::memcpy(r.data[at], from, n);
            }
            break;
        }
        case round::kind::allreduce_sum: {
            const std::size_t count = r.sizes[0] / sizeof(double);
            const auto value = [&](int rank, std::size_t e) {
                double v;
                std::memcpy(&v, r.data[static_cast<std::size_t>(rank)] + e * sizeof(double), sizeof(double));
                return v;
            };
            std::vector<std::vector<double>> sums(static_cast<std::size_t>(size_), std::vector<double>(count, 0.0));
            for (std::size_t e = 0; e < count; ++e) {
                double acc = value(0, e);
                for (int i = 1; i < size_; ++i) acc += value(i, e);
                for (int i = 0; i < size_; ++i) sums[static_cast<std::size_t>(i)][e] = acc;
                if (is(defect::iallreduce_sum_own_first_order))
                    for (int i = 0; i < size_; ++i) {
                        double own = value(i, e);
                        for (int j = 0; j < size_; ++j)
                            if (j != i) own += value(j, e);
                        sums[static_cast<std::size_t>(i)][e] = own;
                    }
            }
            for (int i = 0; i < size_; ++i)
                if (count > 0) std::memcpy(r.data[static_cast<std::size_t>(i)], sums[static_cast<std::size_t>(i)].data(), count * sizeof(double));
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
};

}  // namespace held_out_8
