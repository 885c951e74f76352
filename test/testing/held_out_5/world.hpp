// held_out_5/world.hpp — the shared mailboxes of an in-process group of ranks and the matching
// engine behind the fifth held-out transport (mailbox.hpp). Adapted from the fourth held-out
// set's world.hpp, with its defects taken out; the only defects here are the ones of
// defects.hpp switched on.
//
// MPI's model: each rank has a queue of posted receives (in posting order) and a queue of arrived
// messages nobody asked for yet (in arrival order). One lock guards the world, so for each pair
// of ranks "arrived first" is "sent first". Sends copy their bytes at once (the correct transport
// has no rendezvous; the defects that need one add it). The nonblocking collectives meet in
// "rounds": a rank's k-th nonblocking collective joins round k, and the last rank to join
// performs it for everyone (every buffer still belongs to the transport then).
#pragma once

#include "defects.hpp"

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
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

namespace held_out_5 {

/// The size where an eager protocol would end and a rendezvous begin (the defects' threshold).
inline constexpr std::size_t threshold = 65536;

struct rendezvous;

struct operation {
    bool receive = false;
    bool done = false;
    bool nbc_barrier = false;  ///< the request of an ibarrier
    bool at_post = false;      ///< a receive whose message was waiting when it was posted
    bool swallowed = false;    ///< progress_completes_requests: completed by progress()
    bool claimed = false;      ///< test_completion_by_key: its completion was reported to another request
    int source = 0;
    int tag = 0;
    comet::mutable_bytes buffer;
    comet::status result;
    bool truncated = false;
    std::size_t overflow = 0;
    std::shared_ptr<rendezvous> rdv;  ///< rendezvous_progress_own_request: a send whose bytes wait
};

/// rendezvous_progress_own_request: a large message whose bytes stay with the sender until it
/// tests its send request.
struct rendezvous {
    const std::byte* from = nullptr;
    std::size_t size = 0;
    bool matched = false;
    std::size_t copied = 0;
    std::shared_ptr<operation> receive;
};

struct message {
    int source = 0;
    int tag = 0;
    std::vector<std::byte> copy;
    std::shared_ptr<std::vector<std::byte>> shared;  ///< staged bytes (eager_staging_shared, bsend_ring_overwrites)
    std::size_t offset = 0;
    std::size_t n = 0;
    bool from_bsend = false;
    bool ready = false;                      ///< sent by rsend/irsend
    std::shared_ptr<operation> synchronous;  ///< marked done once the message is matched
    std::shared_ptr<rendezvous> rdv;
    comet::const_bytes bytes() const {
        if (shared) return comet::const_bytes(shared->data() + offset, n);
        return comet::const_bytes(copy);
    }
    std::size_t size() const { return shared ? n : rdv ? rdv->size : copy.size(); }
};

struct mailbox {
    std::deque<message> arrived;
    std::deque<std::shared_ptr<operation>> posted;
    std::uint64_t arrivals = 0;
    int last_any_tag = -1;                                   ///< any_tag_round_robin
    int sticky = -1;                                         ///< any_source_sticky_after_probe
    std::map<int, int> skip;                                 ///< truncation_drops_next
    std::map<const std::byte*, std::size_t> high_water;      ///< size_high_water_by_buffer
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
          nbc_count_(static_cast<std::size_t>(size), 0), barriers_(static_cast<std::size_t>(size), 0), staging_(static_cast<std::size_t>(size)),
          rings_(static_cast<std::size_t>(size)), ring_head_(static_cast<std::size_t>(size), 0), issends_(static_cast<std::size_t>(size)) {}

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

    /// Under the lock: the staging buffer of `sender`'s small messages (eager_staging_shared).
    std::shared_ptr<std::vector<std::byte>> staging(int sender) {
        auto& s = staging_[static_cast<std::size_t>(sender)];
        if (!s) s = std::make_shared<std::vector<std::byte>>(64);
        return s;
    }
    /// Under the lock: `n` bytes of `sender`'s bsend ring, at the returned offset (bsend_ring_overwrites).
    std::pair<std::shared_ptr<std::vector<std::byte>>, std::size_t> ring(int sender, std::size_t n) {
        constexpr std::size_t capacity = 256 * 1024;
        auto& r = rings_[static_cast<std::size_t>(sender)];
        if (!r) r = std::make_shared<std::vector<std::byte>>(capacity);
        std::size_t& head = ring_head_[static_cast<std::size_t>(sender)];
        const std::size_t at = head + n <= capacity ? head : 0;
        head = at + n;
        return {r, at};
    }
    /// Under the lock: an issend of `sender` to `dest` is outstanding (issend_ack_completes_oldest).
    void outstanding_issend(int sender, int dest, const std::shared_ptr<operation>& op) {
        issends_[static_cast<std::size_t>(sender)].push_back({dest, op});
    }

    std::uint64_t arrivals(int me) const { return boxes_[static_cast<std::size_t>(me)].arrivals; }

    /// Under the lock: progress_sorts_by_tag files the waiting messages by tag.
    void file_by_tag(int me) {
        auto& a = boxes_[static_cast<std::size_t>(me)].arrived;
        std::stable_sort(a.begin(), a.end(), [](const message& x, const message& y) { return x.tag < y.tag; });
    }

    void post(int me, const std::shared_ptr<operation>& op) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        if (is(defect::irecv_skips_queue_when_posted) && !box.posted.empty()) {
            box.posted.push_back(op);
            return;
        }
        const auto fits = [&](const message& m) { return matches(box, op->source, op->tag, m); };
        auto it = std::find_if(box.arrived.begin(), box.arrived.end(), fits);
        if (it != box.arrived.end() && is(defect::any_tag_round_robin) && op->tag == comet::any_tag) {
            if (box.last_any_tag >= 0) {
                auto next = box.arrived.end();
                for (auto c = box.arrived.begin(); c != box.arrived.end(); ++c)
                    if (fits(*c) && c->tag > box.last_any_tag && (next == box.arrived.end() || c->tag < next->tag)) next = c;
                if (next != box.arrived.end()) it = next;
            }
            box.last_any_tag = it->tag;
        }
        if (it == box.arrived.end()) {
            if (is(defect::posted_ring_32_overwrites) && box.posted.size() >= 32) box.posted.pop_front();
            box.posted.push_back(op);
            return;
        }
        message msg = std::move(*it);
        box.arrived.erase(it);
        if (op->source == comet::any_source) box.sticky = -1;
        op->at_post = true;
        deliver(me, msg, op);
    }

    void withdraw(int me, const std::shared_ptr<operation>& op) {
        auto& posted = boxes_[static_cast<std::size_t>(me)].posted;
        posted.erase(std::remove(posted.begin(), posted.end(), op), posted.end());
    }

    std::optional<comet::status> probe(int me, int source, int tag) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        auto first = box.arrived.begin(), last = box.arrived.end();
        if (is(defect::iprobe_scan_starts_second) && box.arrived.size() >= 2) ++first;
        if (is(defect::iprobe_scan_limit_64) && box.arrived.size() > 64) last = box.arrived.begin() + 64;
        auto it = std::find_if(first, last, [&](const message& m) {
            if (is(defect::iprobe_any_source_bitmask_8) && source == comet::any_source && m.source >= 8) return false;
            return matches(box, source, tag, m);
        });
        if (it == last) return std::nullopt;
        comet::status s{it->source, it->tag, it->size()};
        if (is(defect::iprobe_size_of_queue_head))
            for (const message& m : box.arrived)
                if (m.source == it->source) {
                    s.size = m.size();
                    break;
                }
        if (is(defect::any_source_sticky_after_probe) && source == comet::any_source) box.sticky = it->source;
        if (is(defect::iprobe_moves_to_back) && tag != comet::any_tag) {
            message m = std::move(*it);
            box.arrived.erase(it);
            box.arrived.push_back(std::move(m));
        }
        return s;
    }

    /// Under the lock: the sender of `r`'s rendezvous tests it; the bytes move if it was matched.
    bool push(const std::shared_ptr<rendezvous>& r) {
        if (!r->matched) return false;
        if (r->copied > 0) std::memcpy(r->receive->buffer.data(), r->from, r->copied);
        r->receive->done = true;
        cv_.notify_all();
        return true;
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

    /// barrier_dissemination_floor_log2: rank `rank` enters its next barrier and waits for the
    /// ranks a dissemination barrier of floor(log2 p) rounds hears from.
    void disseminate(int rank) {
        std::unique_lock l(m_);
        const std::uint64_t mine = ++barriers_[static_cast<std::size_t>(rank)];
        cv_.notify_all();
        const int rounds = std::bit_width(static_cast<unsigned>(size_)) - 1;
        const int heard = (1 << rounds) - 1;
        for (;;) {
            bool all = true;
            for (int j = 1; j <= heard; ++j)
                if (barriers_[static_cast<std::size_t>(((rank - j) % size_ + size_) % size_)] < mine) all = false;
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
        if (++r.entered < size_) return;
        perform(r);
        for (const auto& o : r.ops) o->done = true;
        rounds_.erase(k);
        cv_.notify_all();
    }

private:
    bool matches(const mailbox& box, int source, int tag, const message& m) const {
        const bool source_ok = source == comet::any_source || source == m.source;
        const bool tag_ok = tag == comet::any_tag || tag == m.tag;
        if (is(defect::any_source_sticky_after_probe) && source == comet::any_source && box.sticky >= 0 && m.source != box.sticky) return false;
        return source_ok && tag_ok;
    }

    void arrive(int to, message msg) {
        mailbox& box = boxes_[static_cast<std::size_t>(to)];
        if (is(defect::threshold_exact_size_lost) && msg.size() == threshold) return;
        if (is(defect::empty_short_header_tag_8bit) && msg.size() == 0) msg.tag &= 0xff;
        if (is(defect::truncation_drops_next)) {
            auto s = box.skip.find(msg.source);
            if (s != box.skip.end() && s->second > 0) {
                --s->second;
                return;
            }
        }
        ++box.arrivals;
        cv_.notify_all();
        const auto fits = [&](const std::shared_ptr<operation>& op) { return matches(box, op->source, op->tag, msg); };
        auto it = std::find_if(box.posted.begin(), box.posted.end(), fits);
        if (it != box.posted.end() && is(defect::posted_skips_too_small) && (*it)->buffer.size() < msg.size()) {
            for (auto c = it; c != box.posted.end(); ++c)
                if (fits(*c) && (*c)->buffer.size() >= msg.size()) {
                    it = c;
                    break;
                }
        }
        if (it == box.posted.end()) {
            if (is(defect::bsend_overtakes_isend) && msg.from_bsend) {
                auto at = std::find_if(box.arrived.begin(), box.arrived.end(), [&](const message& m) { return m.source == msg.source && !m.from_bsend; });
                box.arrived.insert(at, std::move(msg));
                return;
            }
            box.arrived.push_back(std::move(msg));
            return;
        }
        const std::shared_ptr<operation> op = *it;
        box.posted.erase(it);
        if (op->source == comet::any_source) box.sticky = -1;
        deliver(to, msg, op);
    }

    void deliver(int to, const message& msg, const std::shared_ptr<operation>& target) {
        operation& op = *target;
        mailbox& box = boxes_[static_cast<std::size_t>(to)];
        const std::size_t n = msg.size(), room = op.buffer.size();
        const std::size_t copied = std::min(n, room);
        bool truncated = n > room;
        op.result = {msg.source, msg.tag, n};
        if (is(defect::truncation_large_silent) && truncated && n > threshold) truncated = false, op.result.size = room;
        if (is(defect::status_source_masked) && !std::has_single_bit(static_cast<unsigned>(size_))) op.result.source = msg.source & (size_ - 1);
        if (truncated) {
            op.truncated = true, op.overflow = n;
            if (is(defect::truncated_requeued)) box.arrived.push_front(msg);
            if (is(defect::truncation_drops_next)) {
                auto w = std::find_if(box.arrived.begin(), box.arrived.end(), [&](const message& m) { return m.source == msg.source; });
                if (w != box.arrived.end())
                    box.arrived.erase(w);
                else
                    ++box.skip[msg.source];
            }
        }
        if (msg.synchronous) {
            if (is(defect::issend_ack_completes_oldest)) {
                auto& list = issends_[static_cast<std::size_t>(msg.source)];
                for (auto& [dest, o] : list)
                    if (dest == to && !o->done) {
                        o->done = true;
                        break;
                    }
                list.erase(std::remove_if(list.begin(), list.end(), [](const auto& e) { return e.second->done; }), list.end());
            } else {
                msg.synchronous->done = true;
            }
        }
        if (msg.rdv) {  // the bytes move when the sender tests its request
            msg.rdv->matched = true;
            msg.rdv->copied = copied;
            msg.rdv->receive = target;
            return;
        }
        const comet::const_bytes in = msg.bytes();
        if (copied > 0) std::memcpy(op.buffer.data(), in.data(), copied);
        if (is(defect::segment_tail_from_previous) && n > threshold && n % threshold != 0 && copied == n) {
            const std::size_t whole = n / threshold * threshold;
            std::memcpy(op.buffer.data() + whole, in.data() + whole - threshold, n - whole);
        }
        if (!truncated) {
            if (is(defect::rendezvous_size_page_rounded) && n > threshold && n < room) op.result.size = std::min(room, (n + 4095) / 4096 * 4096);
            if (is(defect::rsend_status_size_room) && msg.ready) op.result.size = room;
            if (is(defect::size_high_water_by_buffer) && room > 0) {
                std::size_t& hw = box.high_water[op.buffer.data()];
                hw = std::max(hw, n);
                op.result.size = std::min(hw, room);
            }
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
            std::vector<double> fresh(count, 0.0);
            if (scratch_.size() != count) scratch_.assign(count, 0.0);
            std::vector<double>& sum = is(defect::iallreduce_scratch_not_reset) ? scratch_ : fresh;
            for (std::size_t e = 0; e < count; ++e) {
                double acc;
                std::memcpy(&acc, r.data[0] + e * sizeof(double), sizeof(double));
                for (int i = 1; i < size_; ++i) {
                    double v;
                    std::memcpy(&v, r.data[static_cast<std::size_t>(i)] + e * sizeof(double), sizeof(double));
                    acc += v;
                }
                if (is(defect::iallreduce_scratch_not_reset))
                    sum[e] += acc;
                else
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
    std::vector<std::shared_ptr<std::vector<std::byte>>> staging_;
    std::vector<std::shared_ptr<std::vector<std::byte>>> rings_;
    std::vector<std::size_t> ring_head_;
    std::vector<std::vector<std::pair<int, std::shared_ptr<operation>>>> issends_;
    std::vector<double> scratch_;
};

}  // namespace held_out_5
