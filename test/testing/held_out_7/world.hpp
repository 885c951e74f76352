// held_out_7/world.hpp — the shared mailboxes of an in-process group of ranks and the matching
// engine behind the seventh held-out transport (mailbox.hpp). Adapted from the sixth held-out
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
#include <set>
#include <span>
#include <vector>

namespace held_out_7 {

/// The size where an eager protocol would end and a rendezvous begin (the defects' threshold).
inline constexpr std::size_t threshold = 65536;
/// The piece size of the large-message defects.
inline constexpr std::size_t mebibyte = std::size_t{1} << 20;

struct message;

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
    std::shared_ptr<message> deferred;  ///< rendezvous_moves_on_own_recv_test: matched, bytes not yet moved
};

struct message {
    int source = 0;
    int tag = 0;
    std::vector<std::byte> copy;
    bool ready = false;                      ///< sent by rsend/irsend
    std::shared_ptr<operation> synchronous;  ///< marked done once the message is matched
    std::shared_ptr<operation> rendezvous;   ///< rendezvous_moves_on_own_recv_test: the send, done once the bytes moved
    std::shared_ptr<operation> origin;       ///< the send that carried it
    comet::const_bytes bytes() const { return comet::const_bytes(copy); }
    std::size_t size() const { return copy.size(); }
};

struct mailbox {
    std::deque<message> arrived;
    std::deque<std::shared_ptr<operation>> posted;
    std::uint64_t arrivals = 0;
    std::uint64_t taken = 0;          ///< queue_compaction_drops_tail
    std::map<int, int> last_tag;      ///< any_tag_status_latest_queued_tag: per source
    std::set<int> cleared;            ///< iprobe_tag_bitmap_cleared_early
};

/// A nonblocking collective in progress.
struct round {
    enum class kind { barrier, broadcast, allreduce_sum } what = kind::barrier;
    int root = 0;
    int entered = 0;
    int first = -1;
    int last = -1;
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

    std::uint64_t arrivals(int me) const { return boxes_[static_cast<std::size_t>(me)].arrivals; }
    bool has_posted(int me) const { return !boxes_[static_cast<std::size_t>(me)].posted.empty(); }
    bool tag_cleared(int me, int tag) const { return boxes_[static_cast<std::size_t>(me)].cleared.count(tag) > 0; }

    /// Under the lock: completed_send_request_drop_cancels takes a still waiting message back.
    void cancel(const std::shared_ptr<operation>& send) {
        if (send->dest < 0 || send->dest >= size_) return;
        auto& q = boxes_[static_cast<std::size_t>(send->dest)].arrived;
        q.erase(std::remove_if(q.begin(), q.end(), [&](const message& m) { return m.origin == send; }), q.end());
    }

    void post(int me, const std::shared_ptr<operation>& op) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        const auto fits = [&](const message& m) { return matches(op->source, op->tag, m); };
        auto it = std::find_if(box.arrived.begin(), box.arrived.end(), fits);
        if (is(defect::any_tag_longest_queue_first) && it != box.arrived.end() && op->source != comet::any_source && op->tag == comet::any_tag) {
            std::map<int, int> counts;
            for (const message& m : box.arrived)
                if (m.source == op->source) ++counts[m.tag];
            int best = it->tag;
            for (const auto& [tag, count] : counts)
                if (count > counts[best]) best = tag;
            it = std::find_if(box.arrived.begin(), box.arrived.end(), [&](const message& m) { return m.source == op->source && m.tag == best; });
        }
        if (is(defect::any_source_heads_only) && op->source == comet::any_source && op->tag != comet::any_tag) {
            std::set<int> seen;
            it = box.arrived.end();
            for (auto c = box.arrived.begin(); c != box.arrived.end(); ++c)
                if (seen.insert(c->source).second && c->tag == op->tag) {
                    it = c;
                    break;
                }
        }
        if (it == box.arrived.end()) {
            box.posted.push_back(op);
            return;
        }
        std::size_t extra = 0;
        if (is(defect::coalesced_status_packet_size) && it->size() <= 64 && it + 1 != box.arrived.end() && (it + 1)->source == it->source &&
            (it + 1)->tag == it->tag && (it + 1)->size() <= 64)
            extra = (it + 1)->size();
        message msg = std::move(*it);
        take(box, it);
        deliver(me, msg, op, false, 0);
        if (is(defect::any_tag_status_latest_queued_tag) && op->tag == comet::any_tag) op->result.tag = box.last_tag[msg.source];
        if (!op->truncated) op->result.size += extra;
    }

    void withdraw(int me, const std::shared_ptr<operation>& op) {
        auto& posted = boxes_[static_cast<std::size_t>(me)].posted;
        posted.erase(std::remove(posted.begin(), posted.end(), op), posted.end());
    }

    /// The earliest waiting message that matches; `from`: only sources >= it (iprobe_fair_cursor_no_wrap).
    std::optional<comet::status> probe(int me, int source, int tag, int from = 0) const {
        const mailbox& box = boxes_[static_cast<std::size_t>(me)];
        auto it = std::find_if(box.arrived.begin(), box.arrived.end(), [&](const message& m) { return m.source >= from && matches(source, tag, m); });
        if (it == box.arrived.end()) return std::nullopt;
        return comet::status{it->source, it->tag, it->size()};
    }

    /// Under the lock: the bytes of a matched rendezvous message move (rendezvous_moves_on_own_recv_test).
    void complete_deferred(operation& op) {
        const message& msg = *op.deferred;
        const std::size_t count = std::min(msg.size(), op.buffer.size());
        if (count > 0) std::memcpy(op.buffer.data(), msg.bytes().data(), count);
        if (msg.rendezvous) msg.rendezvous->done = true;
        op.deferred.reset();
        op.done = true;
        cv_.notify_all();
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

    /// barrier_tree_fanin4_second_level: each rank waits for the ranks its tree waits for; in
    /// groups of 6+, ranks 5 and above are nobody's children.
    void tree_barrier(int rank) {
        std::unique_lock l(m_);
        const std::uint64_t mine = ++barriers_[static_cast<std::size_t>(rank)];
        cv_.notify_all();
        for (;;) {
            bool all = true;
            for (int j = 0; j < size_; ++j) {
                if (size_ >= 6 && j >= 5 && rank < 5) continue;
                if (barriers_[static_cast<std::size_t>(j)] < mine) all = false;
            }
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
            r.first = rank;
            r.ops.resize(static_cast<std::size_t>(size_));
            r.data.resize(static_cast<std::size_t>(size_), nullptr);
            r.sizes.resize(static_cast<std::size_t>(size_), 0);
        }
        r.ops[static_cast<std::size_t>(rank)] = op;
        r.data[static_cast<std::size_t>(rank)] = data.data();
        r.sizes[static_cast<std::size_t>(rank)] = data.size();
        r.last = rank;
        if (++r.entered < size_) {
            if (what == round::kind::barrier && is(defect::ibarrier_count_carried_over) && barrier_rounds_ > 0 && r.entered == size_ - 1) {
                for (const auto& o : r.ops)
                    if (o) o->done = true;
                cv_.notify_all();
            }
            return;
        }
        perform(r);
        if (what == round::kind::barrier) ++barrier_rounds_;
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

    /// Whether `msg`, arriving at `to`, completes the posted receive `op`.
    bool fits_posted(int to, const operation& op, const message& msg) const {
        const bool source_ok = op.source == comet::any_source || op.source == msg.source;
        const bool tag_ok = op.tag == comet::any_tag || op.tag == msg.tag;
        if (is(defect::rsend_skips_posted_any_tag) && msg.ready && op.tag == comet::any_tag) return false;
        if (is(defect::posted_any_tag_named_self_missed) && msg.source == to && op.source == to && op.tag != msg.tag) return false;
        return source_ok && tag_ok;
    }

    /// Takes the waiting message at `it` out of the rank's queue.
    void take(mailbox& box, std::deque<message>::iterator it) {
        ++box.taken;
        const bool last = it + 1 == box.arrived.end();
        const int tag = it->tag;
        if (is(defect::unexpected_swap_pop_erase) && !last) {
            *it = std::move(box.arrived.back());
            box.arrived.pop_back();
        } else {
            box.arrived.erase(it);
        }
        if (is(defect::queue_compaction_drops_tail) && box.taken % 128 == 0 && !last && !box.arrived.empty()) box.arrived.pop_back();
        box.cleared.insert(tag);
    }

    void arrive(int to, message msg) {
        mailbox& box = boxes_[static_cast<std::size_t>(to)];
        ++box.arrivals;
        cv_.notify_all();
        auto it = box.posted.begin();
        for (; it != box.posted.end(); ++it)
            if (fits_posted(to, **it, msg)) break;
        if (it == box.posted.end()) {
            queue(box, std::move(msg));
            return;
        }
        const std::size_t head_room = box.posted.front()->buffer.size();
        const std::shared_ptr<operation> op = *it;
        if (is(defect::posted_swap_pop_erase) && it + 1 != box.posted.end()) {
            *it = box.posted.back();
            box.posted.pop_back();
        } else {
            box.posted.erase(it);
        }
        box.cleared.insert(msg.tag);
        deliver(to, msg, op, true, head_room);
    }

    /// A message nobody asked for yet joins the rank's queue.
    void queue(mailbox& box, message msg) {
        if (is(defect::queue_growth_reverses) && box.arrived.size() == 256) std::reverse(box.arrived.begin(), box.arrived.end());
        box.cleared.erase(msg.tag);
        box.last_tag[msg.source] = msg.tag;
        box.arrived.push_back(std::move(msg));
    }

    void deliver(int to, const message& msg, const std::shared_ptr<operation>& target, bool posted, std::size_t head_room) {
        operation& op = *target;
        const std::size_t n = msg.size(), room = op.buffer.size();
        const std::size_t copied = std::min(n, room);
        bool truncated = n > room;
        if (is(defect::truncation_checked_against_head_posted) && posted) truncated = n > head_room;
        op.result = {msg.source, msg.tag, n};
        if (is(defect::truncation_rendezvous_posted_never_completes) && posted && truncated && n > threshold) return;  // the clear-to-send is refused
        if (truncated) op.truncated = true, op.overflow = n;
        if (msg.synchronous) {
            if (is(defect::issend_status_from_ack)) msg.synchronous->result.tag = op.tag;
            msg.synchronous->done = true;
        }
        if (is(defect::rendezvous_moves_on_own_recv_test) && msg.rendezvous) {
            op.deferred = std::make_shared<message>(msg);
            return;
        }
        if (copied > 0) std::memcpy(op.buffer.data(), msg.bytes().data(), copied);
        if (is(defect::payload_piece_boundary_repeats_byte))
            for (std::size_t k = mebibyte; k < copied; k += mebibyte) op.buffer[k] = msg.copy[k - 1];
        (void)to;
        op.done = true;
        cv_.notify_all();
    }

    /// The last rank into a nonblocking collective performs it.
    void perform(round& r) {
        switch (r.what) {
        case round::kind::barrier: break;
        case round::kind::broadcast: {
            const int from_rank = is(defect::ibroadcast_from_last_joiner) ? r.last : r.root;
            const std::byte* from = r.data[static_cast<std::size_t>(from_rank)];
            for (int i = 0; i < size_; ++i) {
                const auto at = static_cast<std::size_t>(i);
                if (i != from_rank && r.sizes[at] > 0) std::memcpy(r.data[at], from, r.sizes[at]);
            }
            break;
        }
        case round::kind::allreduce_sum: {
            const std::size_t count = r.sizes[0] / sizeof(double);
            std::vector<double> sum(count, 0.0);
            const int start = is(defect::iallreduce_sum_first_joiner_twice) ? r.first : 0;
            for (std::size_t e = 0; e < count; ++e) {
                double acc;
                std::memcpy(&acc, r.data[static_cast<std::size_t>(start)] + e * sizeof(double), sizeof(double));
                for (int i = 1; i < size_; ++i) {
                    double v;
                    std::memcpy(&v, r.data[static_cast<std::size_t>(i)] + e * sizeof(double), sizeof(double));
                    acc += v;
                }
                sum[e] = acc;
            }
            for (int i = 0; i < size_; ++i)
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
    std::vector<std::uint64_t> barriers_;
    std::uint64_t barrier_rounds_ = 0;
};

}  // namespace held_out_7
