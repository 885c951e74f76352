// held_out_10/world.hpp — the shared mailboxes of an in-process group of ranks and the matching
// engine behind the tenth held-out transport (mailbox.hpp). The infrastructure of the eighth
// set's world.hpp with every one of its defects taken out; the only defects here are the tenth
// set's own (defects.hpp), each behind its switch.
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

namespace held_out_10 {

struct operation {
    bool receive = false;
    bool collective = false;
    bool done = false;
    int source = 0;
    int tag = 0;
    int dest = 0;
    comet::mutable_bytes buffer;
    comet::status result;
    bool truncated = false;
    std::size_t overflow = 0;
};

struct message {
    int source = 0;
    int tag = 0;
    std::vector<std::byte> copy;
    const std::byte* borrowed = nullptr;     ///< send_zero_copy_large: the sender's buffer, read at match time
    std::size_t borrowed_size = 0;
    std::shared_ptr<operation> synchronous;  ///< marked done once the message is matched
    comet::const_bytes bytes() const { return borrowed ? comet::const_bytes(borrowed, borrowed_size) : comet::const_bytes(copy); }
    std::size_t size() const { return borrowed ? borrowed_size : copy.size(); }
};

struct mailbox {
    std::deque<message> arrived;
    std::deque<std::shared_ptr<operation>> posted;
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
    world(int size, defect d)
        : defect_(d), size_(size), boxes_(static_cast<std::size_t>(size) + 1), slots_(static_cast<std::size_t>(size), nullptr),
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

    /// Under the lock. `to` may be size() (dest_range_off_by_one): the spare box nobody reads.
    void send(int to, message msg) { arrive(to, std::move(msg)); }

    std::uint64_t arrivals(int me) const { return box(me).arrivals; }

    /// Under the lock: whether `me` has a posted receive naming exactly (source, tag)
    /// (rsend_wildcard_receive_not_found).
    bool posted_exactly(int me, int source, int tag) const {
        for (const auto& p : box(me).posted)
            if (p->source == source && p->tag == tag) return true;
        return false;
    }
    /// Under the lock: whether `me` has any receive pending (progress_waits_for_completion).
    bool has_posted(int me) const { return !box(me).posted.empty(); }

    void post(int me, const std::shared_ptr<operation>& op) {
        mailbox& b = box(me);
        const auto fits = [&](const message& m) { return matches(op->source, op->tag, m, me); };
        auto it = std::find_if(b.arrived.begin(), b.arrived.end(), fits);
        if (is(defect::any_tag_lowest_tag_first) && op->tag == comet::any_tag && it != b.arrived.end()) {
            // the queue is a map by tag: the first bucket that holds a match
            for (auto j = b.arrived.begin(); j != b.arrived.end(); ++j)
                if (fits(*j) && j->tag < it->tag) it = j;
        }
        if (it == b.arrived.end()) {
            b.posted.push_back(op);
            return;
        }
        message msg = std::move(*it);
        b.arrived.erase(it);
        deliver(me, msg, op);
    }

    void withdraw(int me, const std::shared_ptr<operation>& op) {
        auto& posted = box(me).posted;
        posted.erase(std::remove(posted.begin(), posted.end(), op), posted.end());
    }

    /// The earliest waiting message that matches.
    std::optional<comet::status> probe(int me, int source, int tag) {
        mailbox& b = box(me);
        auto it = std::find_if(b.arrived.begin(), b.arrived.end(), [&](const message& m) { return matches(source, tag, m, me); });
        if (it == b.arrived.end()) return std::nullopt;
        const comet::status s{it->source, it->tag, it->size()};
        if (is(defect::iprobe_any_source_requeues_at_back) && source == comet::any_source) {
            // peeked by taking it out, then handed back to the queue
            message m = std::move(*it);
            b.arrived.erase(it);
            b.arrived.push_back(std::move(m));
        }
        return s;
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

    /// barrier_dissemination_floor_log2: round j signals rank + 2^j and waits for rank - 2^j,
    /// for floor(log2 size) rounds (ceil is right).
    void dissemination_barrier(int rank) {
        std::unique_lock l(m_);
        if (signals_.empty()) signals_.assign(32, std::vector<std::uint64_t>(static_cast<std::size_t>(size_), 0));
        const std::uint64_t k = ++dissemination_count_[rank];
        int rounds = 0;
        while ((2 << rounds) <= size_) ++rounds;  // floor(log2 size)
        for (int j = 0, d = 1; j < rounds; ++j, d *= 2) {
            ++signals_[static_cast<std::size_t>(j)][static_cast<std::size_t>((rank + d) % size_)];
            cv_.notify_all();
            while (signals_[static_cast<std::size_t>(j)][static_cast<std::size_t>(rank)] < k) {
                if (stopped_) comet::raise<comet::stopped>(rank, "stopped because another rank failed");
                cv_.wait_for(l, std::chrono::milliseconds(5));
            }
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
    mailbox& box(int rank) { return boxes_[static_cast<std::size_t>(rank)]; }
    const mailbox& box(int rank) const { return boxes_[static_cast<std::size_t>(rank)]; }

    bool matches(int source, int tag, const message& m, int me) const {
        if (is(defect::any_source_skips_self) && source == comet::any_source && m.source == me) return false;
        const bool source_ok = source == comet::any_source || source == m.source;
        bool tag_ok = tag == comet::any_tag || tag == m.tag;
        if (is(defect::tag_bucket_mod_4096) && tag != comet::any_tag) tag_ok = (tag & 4095) == (m.tag & 4095);
        return source_ok && tag_ok;
    }

    void arrive(int to, message msg) {
        mailbox& b = box(to);
        ++b.arrivals;
        cv_.notify_all();
        const auto fits = [&](const std::shared_ptr<operation>& p) {
            if (is(defect::any_tag_literal_on_posted))  // the posted list is searched by key
                return (p->source == comet::any_source || p->source == msg.source) && p->tag == msg.tag;
            return matches(p->source, p->tag, msg, to);
        };
        auto it = std::find_if(b.posted.begin(), b.posted.end(), fits);
        if (is(defect::posted_receives_lifo)) {
            auto rit = std::find_if(b.posted.rbegin(), b.posted.rend(), fits);
            it = rit == b.posted.rend() ? b.posted.end() : std::prev(rit.base());
        }
        if (it == b.posted.end()) {
            if (is(defect::issend_ack_on_arrival) && msg.synchronous) msg.synchronous->done = true;
            if (is(defect::small_overtakes_large) && msg.size() <= 1024) {
                // the eager queue is looked at before the rendezvous queue
                auto big = std::find_if(b.arrived.begin(), b.arrived.end(), [&](const message& m) {
                    return m.source == msg.source && m.tag == msg.tag && m.size() > 65536;
                });
                b.arrived.insert(big, std::move(msg));
                return;
            }
            b.arrived.push_back(std::move(msg));
            return;
        }
        const std::shared_ptr<operation> op = *it;
        b.posted.erase(it);
        deliver(to, msg, op);
    }

    void deliver(int to, message& msg, const std::shared_ptr<operation>& target) {
        operation& op = *target;
        const std::size_t n = msg.size(), room = op.buffer.size();
        std::size_t copied = std::min(n, room);
        bool truncated = n > room;
        if (is(defect::truncation_slack_8_bytes)) truncated = n > (room + 7) / 8 * 8;
        op.result = {msg.source, msg.tag, std::min(n, truncated ? n : room)};
        if (is(defect::short_recv_size_is_buffer) && n < room) op.result.size = room;
        if (truncated) op.truncated = true, op.overflow = n;
        if (msg.synchronous) msg.synchronous->done = true;
        if (is(defect::short_recv_zero_fills_tail) && room > 0) std::memset(op.buffer.data(), 0, room);
        if (copied > 0) std::memcpy(op.buffer.data(), msg.bytes().data(), copied);
        if (truncated && is(defect::truncated_message_requeued)) {
            // kept for a retry with a bigger buffer
            message again = msg;
            again.synchronous.reset();
            box(to).arrived.push_front(std::move(again));
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
            for (int i = 0; i < size_; ++i) {
                const auto at = static_cast<std::size_t>(i);
                if (i != r.root && r.sizes[at] > 0) std::memcpy(r.data[at], from, r.sizes[at]);
            }
            break;
        }
        case round::kind::allreduce_sum: {
            const std::size_t count = r.sizes[0] / sizeof(double);
            std::vector<double> sums(count, 0.0);
            for (std::size_t e = 0; e < count; ++e) {
                const auto value = [&](int rank) {
                    double v;
                    std::memcpy(&v, r.data[static_cast<std::size_t>(rank)] + e * sizeof(double), sizeof(double));
                    return v;
                };
                double acc = value(0);
                for (int i = 1; i < size_; ++i) acc += value(i);
                sums[e] = acc;
            }
            for (int i = 0; i < size_; ++i)
                if (count > 0) std::memcpy(r.data[static_cast<std::size_t>(i)], sums.data(), count * sizeof(double));
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
    std::vector<std::vector<std::uint64_t>> signals_;   ///< barrier_dissemination_floor_log2
    std::map<int, std::uint64_t> dissemination_count_;  ///< barrier_dissemination_floor_log2
};

}  // namespace held_out_10
