// held_out_9/world.hpp — the shared mailboxes of an in-process group of ranks and the matching
// engine behind the ninth held-out transport (mailbox.hpp). Adapted from the eighth held-out
// set's world.hpp with its defects taken out; the only defects here are the ones of defects.hpp
// switched on.
//
// MPI's model: each rank has a queue of posted receives (in posting order) and a queue of arrived
// messages nobody asked for yet (in arrival order). One lock guards the world, so for each pair
// of ranks "arrived first" is "sent first". Sends copy their bytes at once. The native barrier is
// a dissemination barrier over per-round signal counters. The nonblocking collectives meet in
// "rounds": a rank's k-th nonblocking collective joins round k, and the last rank to join
// performs it for everyone (every buffer still belongs to the transport then).
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

namespace held_out_9 {

/// Where an eager protocol would end and a rendezvous begin (the defects' threshold).
inline constexpr std::size_t threshold = 65536;
inline constexpr std::size_t mebibyte = std::size_t{1} << 20;

struct operation {
    bool receive = false;
    bool collective = false;
    bool done = false;
    bool reaped = false;  ///< progress_reaps_completed_receives
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
    const std::byte* borrowed = nullptr;  ///< isend_zero_copy_completes_early: the sender's own buffer
    std::size_t borrowed_size = 0;
    bool ready = false;                      ///< sent by rsend/irsend
    std::shared_ptr<operation> synchronous;  ///< marked done once the message is matched
    comet::const_bytes bytes() const { return borrowed ? comet::const_bytes(borrowed, borrowed_size) : comet::const_bytes(copy); }
    std::size_t size() const { return borrowed ? borrowed_size : copy.size(); }
};

struct mailbox {
    std::deque<message> arrived;
    std::deque<message> rendezvous;  ///< large_message_overtaken_by_small
    std::deque<message> inbound;     ///< inbound_drained_only_by_irecv
    std::deque<std::shared_ptr<operation>> posted;
    std::uint64_t arrivals = 0;
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
          nbc_count_(static_cast<std::size_t>(size), 0), signals_(static_cast<std::size_t>(32 * size * size), 0) {}

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
        if (is(defect::inbound_drained_only_by_irecv)) {
            box(to).inbound.push_back(std::move(msg));
            return;
        }
        arrive(to, std::move(msg));
    }

    /// Under the lock (inbound_drained_only_by_irecv): what waits in the inbound queue arrives.
    void drain(int me) {
        auto& in = box(me).inbound;
        while (!in.empty()) {
            message m = std::move(in.front());
            in.pop_front();
            arrive(me, std::move(m));
        }
    }

    std::uint64_t arrivals(int me) const { return box(me).arrivals; }
    bool nothing_queued(int me) const { return box(me).arrived.empty() && box(me).rendezvous.empty(); }

    /// Blocks (with the lock held by `l`) until a message arrives for `me`, `until` holds or the
    /// world stops.
    template <class Pred>
    void await_arrival(int me, std::unique_lock<std::mutex>& l, Pred until) {
        const std::uint64_t seen = box(me).arrivals;
        while (box(me).arrivals == seen && !until() && !stopped_) cv_.wait_for(l, std::chrono::milliseconds(5));
    }

    /// Under the lock: a receive is posted; it takes the earliest matching message waiting.
    void post(int me, const std::shared_ptr<operation>& op) {
        mailbox& b = box(me);
        const auto fits = [&](const message& m) { return matches(op->source, op->tag, m); };
        std::deque<message>* queue = &b.arrived;
        auto it = std::find_if(b.arrived.begin(), b.arrived.end(), fits);
        if (is(defect::match_scan_from_back_long_queue) && b.arrived.size() > 16) {
            auto rit = std::find_if(b.arrived.rbegin(), b.arrived.rend(), fits);  // "the newest is the likeliest"
            it = rit == b.arrived.rend() ? b.arrived.end() : std::prev(rit.base());
        }
        if (it == b.arrived.end() && !b.rendezvous.empty()) {
            queue = &b.rendezvous;
            it = std::find_if(b.rendezvous.begin(), b.rendezvous.end(), fits);
        }
        if (it == queue->end()) {
            b.posted.push_back(op);
            return;
        }
        message msg = std::move(*it);
        queue->erase(it);
        deliver(me, msg, op, false);
    }

    void withdraw(int me, const std::shared_ptr<operation>& op) {
        auto& posted = box(me).posted;
        posted.erase(std::remove(posted.begin(), posted.end(), op), posted.end());
    }

    /// The earliest waiting message that matches.
    std::optional<comet::status> probe(int me, int source, int tag) const {
        const mailbox& b = box(me);
        const auto fits = [&](const message& m) {
            if (is(defect::iprobe_any_tag_unhandled)) return (source == comet::any_source || source == m.source) && tag == m.tag;
            return matches(source, tag, m);
        };
        const message* found = nullptr;
        if (is(defect::iprobe_reports_newest)) {
            auto rit = std::find_if(b.arrived.rbegin(), b.arrived.rend(), fits);
            if (rit != b.arrived.rend()) found = &*rit;
        } else {
            auto it = std::find_if(b.arrived.begin(), b.arrived.end(), fits);
            if (it != b.arrived.end()) found = &*it;
        }
        if (!found) {
            auto it = std::find_if(b.rendezvous.begin(), b.rendezvous.end(), fits);
            if (it != b.rendezvous.end()) found = &*it;
        }
        if (!found) return std::nullopt;
        return comet::status{found->source, found->tag, found->size()};
    }

    // The board of the native blocking collectives: each rank leaves a pointer in its slot;
    // `meet` is a barrier over the group (a central counter).
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

    /// The native barrier, `rank`'s `generation`-th: a dissemination barrier. In round k a rank
    /// signals rank + 2^k and waits for the signal of rank - 2^k (mod size()).
    void dissemination_barrier(int rank, std::uint64_t generation) {
        std::unique_lock l(m_);
        int rounds = 0;
        while ((1 << rounds) < size_) ++rounds;  // ceil(log2 size())
        if (is(defect::barrier_dissemination_floor_log2)) {
            rounds = 0;
            while ((2 << rounds) <= size_) ++rounds;  // floor(log2 size())
        }
        for (int k = 0; k < rounds; ++k) {
            const int step = (1 << k) % size_;
            const int to = (rank + step) % size_, from = (rank - step + size_) % size_;
            ++signal(k, rank, to);
            cv_.notify_all();
            while (signal(k, from, rank) < generation) {
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
        r.order.push_back(rank);
        ++r.entered;
        if (is(defect::ibarrier_done_on_count_minus_one) && r.what == round::kind::barrier && r.entered >= size_ - 1) {
            for (const auto& o : r.ops)  // "everyone else is in": its own join not counted
                if (o) o->done = true;
            cv_.notify_all();
        }
        if (r.entered < size_) return;
        perform(r);
        for (const auto& o : r.ops) o->done = true;
        rounds_.erase(k);
        cv_.notify_all();
    }

private:
    mailbox& box(int rank) { return boxes_[static_cast<std::size_t>(rank)]; }
    const mailbox& box(int rank) const { return boxes_[static_cast<std::size_t>(rank)]; }
    std::uint64_t& signal(int k, int from, int to) {
        return signals_[static_cast<std::size_t>((k * size_ + from) * size_ + to)];
    }

    bool matches(int source, int tag, const message& m) const {
        const bool source_ok = source == comet::any_source || source == m.source;
        bool tag_ok = tag == comet::any_tag || tag == m.tag;
        if (is(defect::tag_hashed_into_12_bits) && tag != comet::any_tag) tag_ok = (tag & 0xFFF) == (m.tag & 0xFFF);
        return source_ok && tag_ok;
    }

    /// Whether a posted receive takes an arriving message.
    bool takes(const operation& op, const message& m) const {
        if (is(defect::any_source_posted_only_exact))
            return op.source == m.source && (op.tag == comet::any_tag || op.tag == m.tag);  // the wildcard forgotten here
        return matches(op.source, op.tag, m);
    }

    void arrive(int to, message msg) {
        mailbox& b = box(to);
        ++b.arrivals;
        cv_.notify_all();
        auto it = std::find_if(b.posted.begin(), b.posted.end(), [&](const auto& p) { return takes(*p, msg); });
        if (is(defect::posted_specific_list_before_wildcard)) {
            // the list of receives naming this source first, then the any_source list
            auto named = std::find_if(b.posted.begin(), b.posted.end(),
                                      [&](const auto& p) { return p->source != comet::any_source && takes(*p, msg); });
            if (named != b.posted.end()) it = named;
        }
        if (is(defect::rsend_fills_first_posted) && msg.ready) {
            // "the receiver is ready": its first receive posted for this sender
            auto first = std::find_if(b.posted.begin(), b.posted.end(),
                                      [&](const auto& p) { return p->source == comet::any_source || p->source == msg.source; });
            if (first != b.posted.end()) it = first;
        }
        if (it == b.posted.end()) {
            if (is(defect::issend_acked_on_arrival) && msg.synchronous) msg.synchronous->done = true;
            if (is(defect::large_message_overtaken_by_small) && msg.size() > threshold)
                b.rendezvous.push_back(std::move(msg));
            else
                b.arrived.push_back(std::move(msg));
            return;
        }
        const std::shared_ptr<operation> op = *it;
        b.posted.erase(it);
        deliver(to, msg, op, true);
    }

    void copy_bytes(std::byte* to, const std::byte* from, std::size_t n) const {
        if (n == 0) return;
        if (!is(defect::chunked_copy_drops_last_full_chunk)) {
            std::memcpy(to, from, n);
            return;
        }
        std::size_t at = 0;
        while (n - at > mebibyte) {
            std::memcpy(to + at, from + at, mebibyte);
            at += mebibyte;
        }
        std::memcpy(to + at, from + at, n % mebibyte);
    }

    void deliver(int to, const message& msg, const std::shared_ptr<operation>& target, bool was_posted) {
        operation& op = *target;
        const std::size_t n = msg.size(), room = op.buffer.size();
        const std::size_t copied = std::min(n, room);
        bool truncated = n > room;
        if (is(defect::self_message_truncation_unchecked) && msg.source == to) truncated = false;  // loopback: copy what fits
        op.result = {msg.source, msg.tag, n};
        if (is(defect::any_source_status_reports_wildcard)) op.result.source = op.source;
        if (is(defect::posted_status_size_stale) && was_posted) op.result.size = room;  // set when posted
        if (truncated) op.truncated = true, op.overflow = n;
        if (msg.synchronous) msg.synchronous->done = true;
        copy_bytes(op.buffer.data(), msg.bytes().data(), copied);
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
                std::size_t n = r.sizes[at];
                if (is(defect::ibroadcast_segmented_tail_lost) && n > threshold) n = n / threshold * threshold;
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
            const int performer = r.order.back();
            std::vector<std::vector<double>> sums(static_cast<std::size_t>(size_), std::vector<double>(count, 0.0));
            for (std::size_t e = 0; e < count; ++e) {
                double acc = value(0, e);
                for (int i = 1; i < size_; ++i) acc += value(i, e);
                for (int i = 0; i < size_; ++i) sums[static_cast<std::size_t>(i)][e] = acc;
                if (is(defect::iallreduce_sum_performer_accumulates_in_own)) {
                    double own = value(performer, e);
                    for (int j = 0; j < size_; ++j)
                        if (j != performer) own += value(j, e);
                    sums[static_cast<std::size_t>(performer)][e] = own;
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
    std::vector<std::uint64_t> signals_;  ///< the dissemination barrier's [round][from][to] counters
};

}  // namespace held_out_9
