// held_out_11/world.hpp — the shared mailboxes of an in-process group of ranks and the matching
// engine behind the eleventh held-out transport (mailbox.hpp). Adapted from the eighth held-out
// set's world.hpp with all of its defects taken out; the only defects here are those of
// defects.hpp, each behind its switch.
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

namespace held_out_11 {

/// Where an eager protocol would end and a rendezvous begin (the defects' threshold).
inline constexpr std::size_t threshold = 65536;
/// The largest message of the defects' "eager short" path.
inline constexpr std::size_t eager_small = 4096;

struct operation {
    bool receive = false;
    bool collective = false;
    bool done = false;
    bool reaped = false;  ///< progress_reaps_completions
    int source = 0;
    int tag = 0;
    comet::mutable_bytes buffer;
    comet::status result;
    bool truncated = false;
    std::size_t overflow = 0;
    std::vector<double> reduced;  ///< an iallreduce's result, copied into `buffer` when completed
    bool has_reduced = false;
    bool has_reduced_expected = false;  ///< an iallreduce's (iallreduce_wait_skips_copy_out)
};

struct message {
    int source = 0;
    int tag = 0;
    std::vector<std::byte> copy;
    comet::const_bytes view;                 ///< isend_large_zero_copy_completes_early: the sender's bytes
    bool zero_copy = false;
    bool ready = false;                      ///< sent by rsend/irsend
    bool stashed = false;                    ///< iprobe_any_source_stashes
    std::shared_ptr<operation> synchronous;  ///< marked done once the message is matched
    std::shared_ptr<operation> pulled;       ///< iprobe_does_not_pull_rendezvous: done once pulled
    comet::const_bytes bytes() const { return zero_copy ? view : comet::const_bytes(copy); }
    std::size_t size() const { return bytes().size(); }
};

struct mailbox {
    std::deque<message> arrived;
    std::deque<std::shared_ptr<operation>> posted;
    std::deque<message> outstanding;  ///< iprobe_does_not_pull_rendezvous: announced, not yet pulled
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
    void send(int to, message msg) {
        if (is(defect::iprobe_does_not_pull_rendezvous) && msg.size() > threshold && msg.source != to) {
            box(to).outstanding.push_back(std::move(msg));  // only the announcement arrives
            return;
        }
        arrive(to, std::move(msg));
    }

    /// Under the lock: iprobe_does_not_pull_rendezvous, the receiver fetches what was announced.
    void pull(int me) {
        auto& q = box(me).outstanding;
        while (!q.empty()) {
            message msg = std::move(q.front());
            q.pop_front();
            if (msg.pulled) msg.pulled->done = true;
            arrive(me, std::move(msg));
        }
    }

    void post(int me, const std::shared_ptr<operation>& op) {
        mailbox& b = box(me);
        const auto fits = [&](const message& m) {
            if (!matches(op->source, op->tag, m)) return false;
            if (op->source == comet::any_source && m.source == me && is(defect::any_source_skips_loopback)) return false;
            if (op->source == comet::any_source && m.stashed && is(defect::iprobe_any_source_stashes)) return false;
            return true;
        };
        auto it = std::find_if(b.arrived.begin(), b.arrived.end(), fits);
        if (is(defect::large_queue_overtaken_by_eager)) {
            it = std::find_if(b.arrived.begin(), b.arrived.end(), [&](const message& m) { return m.size() <= threshold && fits(m); });
            if (it == b.arrived.end())
                it = std::find_if(b.arrived.begin(), b.arrived.end(), [&](const message& m) { return m.size() > threshold && fits(m); });
        }
        if (it == b.arrived.end()) {
            b.posted.push_back(op);
            return;
        }
        if (is(defect::any_source_loopback_not_erased) && op->source == comet::any_source && it->source == me) {
            deliver(me, *it, op, true);  // the loopback queue's tail is not advanced
            return;
        }
        message msg = std::move(*it);
        b.arrived.erase(it);
        deliver(me, msg, op, true);
    }

    void withdraw(int me, const std::shared_ptr<operation>& op) {
        auto& posted = box(me).posted;
        posted.erase(std::remove(posted.begin(), posted.end(), op), posted.end());
    }

    /// Under the lock: the earliest waiting message that matches.
    std::optional<comet::status> probe(int me, int source, int tag) {
        mailbox& b = box(me);
        const auto fits = [&](const message& m) {
            if (is(defect::iprobe_any_tag_literal)) return (source == comet::any_source || source == m.source) && tag == m.tag;
            return matches(source, tag, m);
        };
        message* found = nullptr;
        if (is(defect::iprobe_returns_latest)) {
            auto it = std::find_if(b.arrived.rbegin(), b.arrived.rend(), fits);
            if (it != b.arrived.rend()) found = &*it;
        } else {
            auto it = std::find_if(b.arrived.begin(), b.arrived.end(), fits);
            if (it != b.arrived.end()) found = &*it;
        }
        if (!found) return std::nullopt;
        if (is(defect::iprobe_any_source_stashes) && source == comet::any_source) found->stashed = true;
        return comet::status{found->source, found->tag, found->size()};
    }

    // The board of the native blocking collectives: each rank leaves a pointer in its slot;
    // `meet` is a barrier over the group.
    const void*& slot(int rank) { return slots_[static_cast<std::size_t>(rank)]; }
    const void* slot_of(int rank) const { return slots_[static_cast<std::size_t>(rank)]; }

    /// A barrier over the group; `wait` false: counted in, without waiting for the others.
    void meet(int rank, bool wait = true) {
        std::unique_lock l(m_);
        const std::uint64_t generation = generation_;
        if (++meeting_ == size_) {
            meeting_ = 0;
            ++generation_;
            cv_.notify_all();
            return;
        }
        if (!wait) return;
        while (generation_ == generation) {
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
        if (is(defect::ibarrier_released_by_rank_0) && what == round::kind::barrier &&
            std::find(r.order.begin(), r.order.end(), 0) != r.order.end())
            for (const auto& o : r.ops)
                if (o) o->done = true;  // "the coordinator is in, so everyone is"
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
        const bool source_ok = source == comet::any_source || source == m.source;
        bool tag_ok = tag == comet::any_tag || tag == m.tag;
        if (is(defect::tag_bucket_mod_4096_aliases)) tag_ok = tag == comet::any_tag || (tag & 4095) == (m.tag & 4095);
        return source_ok && tag_ok;
    }

    void arrive(int to, message msg) {
        mailbox& b = box(to);
        if (is(defect::zero_length_message_lost) && msg.size() == 0) return;  // length 0: an empty slot
        if (is(defect::issend_completes_on_arrival) && msg.synchronous) msg.synchronous->done = true;
        cv_.notify_all();
        const auto fits = [&](const std::shared_ptr<operation>& p) {
            if (!matches(p->source, p->tag, msg)) return false;
            if (p->source == comet::any_source && msg.source == to && is(defect::any_source_skips_loopback)) return false;
            return true;
        };
        auto it = std::find_if(b.posted.begin(), b.posted.end(), fits);
        if (is(defect::posted_receives_matched_lifo)) {
            auto back = std::find_if(b.posted.rbegin(), b.posted.rend(), fits);
            it = back == b.posted.rend() ? b.posted.end() : std::next(back).base();
        }
        if (is(defect::posted_wildcard_tag_after_exact)) {
            it = std::find_if(b.posted.begin(), b.posted.end(), [&](const auto& p) { return p->tag != comet::any_tag && fits(p); });
            if (it == b.posted.end()) it = std::find_if(b.posted.begin(), b.posted.end(), fits);
        }
        if (is(defect::rsend_ignores_any_source_receive) && msg.ready) {
            it = std::find_if(b.posted.begin(), b.posted.end(), [&](const auto& p) { return p->source == msg.source && fits(p); });
            if (it == b.posted.end()) return;  // "the receive is posted": the ready slot is looked up by source
        }
        if (it == b.posted.end()) {
            b.arrived.push_back(std::move(msg));
            return;
        }
        const std::shared_ptr<operation> op = *it;
        b.posted.erase(it);
        deliver(to, msg, op, false);
    }

    void deliver(int /*to*/, const message& msg, const std::shared_ptr<operation>& target, bool unexpected) {
        operation& op = *target;
        const std::size_t n = msg.size(), room = op.buffer.size();
        const std::size_t copied = std::min(n, room);
        bool truncated = n > room;
        op.result = {msg.source, msg.tag, n};
        if (is(defect::eager_truncation_silent) && truncated && n <= eager_small) {
            truncated = false;
            op.result.size = room;
        }
        if (is(defect::unexpected_status_size_is_room) && unexpected && n < room) op.result.size = room;
        if (truncated) op.truncated = true, op.overflow = n;
        if (msg.synchronous) msg.synchronous->done = true;
        if (is(defect::short_recv_clears_tail) && n < room) std::memset(op.buffer.data(), 0, room);
        if (copied > 0) std::memcpy(op.buffer.data(), msg.bytes().data(), copied);
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
                const std::size_t n = r.sizes[at];
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
            std::vector<double> sums(count, 0.0);
            for (std::size_t e = 0; e < count; ++e) {
                double acc = value(0, e);
                for (int i = 1; i < size_; ++i) acc += value(i, e);
                sums[e] = acc;
            }
            for (const auto& o : r.ops) {
                o->reduced = sums;
                o->has_reduced = true;
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
};

}  // namespace held_out_11
