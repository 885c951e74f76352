// held_out_3/world.hpp — the shared mailboxes of an in-process group of ranks and the matching
// engine behind the third held-out transport (mailbox.hpp). Adapted from the second held-out
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
#include <vector>

namespace held_out_3 {

struct operation {
    bool receive = false;
    bool done = false;
    int source = 0;
    int tag = 0;
    comet::mutable_bytes buffer;
    comet::status result;
    bool truncated = false;
    std::size_t overflow = 0;
    std::vector<std::byte> deferred;  ///< test_before_copy: the bytes, copied at the call after completion
    bool has_deferred = false;
};

struct message {
    int source = 0;
    int tag = 0;
    std::vector<std::byte> copy;
    comet::const_bytes borrowed;
    bool is_borrowed = false;
    bool ready = false;                      ///< sent by rsend/irsend
    bool from_issend = false;                ///< sent by ssend/issend
    bool probed = false;                     ///< iprobe_once: reported once already
    std::shared_ptr<operation> synchronous;  ///< marked done once the message is matched
    comet::const_bytes bytes() const { return is_borrowed ? borrowed : comet::const_bytes(copy); }
    std::size_t size() const { return bytes().size(); }
};

struct mailbox {
    std::deque<message> arrived;
    std::deque<std::shared_ptr<operation>> posted;
    std::vector<std::shared_ptr<operation>> late;  ///< test_before_copy: completed, bytes not yet copied
    std::vector<std::uint64_t> from;               ///< messages that arrived from each rank
    std::uint64_t arrivals = 0;
    int last_source = comet::any_source;  ///< the sender of the message that arrived last
    int last_tag = comet::any_tag;        ///< the tag of the message this rank last received
};

/// A nonblocking collective in progress.
struct round {
    enum class kind { barrier, broadcast, allreduce_sum } what = kind::barrier;
    int root = 0;
    int entered = 0;
    bool root_entered = false;
    std::vector<std::shared_ptr<operation>> ops;
    std::vector<std::byte*> data;
    std::vector<std::size_t> sizes;
};

class world {
public:
    world(int size, defect d) : defect_(d), size_(size), boxes_(static_cast<std::size_t>(size)), slots_(static_cast<std::size_t>(size), nullptr),
                                nbc_count_(static_cast<std::size_t>(size), 0) {
        for (mailbox& b : boxes_) b.from.assign(static_cast<std::size_t>(size), 0);
    }

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

    /// Under the lock: `me` called into the transport; receives completed earlier get the bytes
    /// they were owed (only ever under test_before_copy).
    void tick(int me) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        for (const std::shared_ptr<operation>& op : box.late)
            if (!op->deferred.empty()) std::memcpy(op->buffer.data(), op->deferred.data(), op->deferred.size());
        box.late.clear();
    }
    /// Under the lock: `op` was reported complete before its bytes were copied.
    void owe(int me, const std::shared_ptr<operation>& op) { boxes_[static_cast<std::size_t>(me)].late.push_back(op); }

    std::uint64_t arrivals(int me) const { return boxes_[static_cast<std::size_t>(me)].arrivals; }

    void post(int me, const std::shared_ptr<operation>& op) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        const auto fits = [&](const message& m) { return matches(op->source, op->tag, m); };
        auto it = std::find_if(box.arrived.begin(), box.arrived.end(), fits);
        if (it != box.arrived.end() && is(defect::any_tag_repeats_last_tag) && op->tag == comet::any_tag) {
            auto same = std::find_if(it, box.arrived.end(), [&](const message& m) { return fits(m) && m.tag == box.last_tag; });
            if (same != box.arrived.end()) it = same;
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
    }

    std::optional<comet::status> probe(int me, int source, int tag) {
        mailbox& box = boxes_[static_cast<std::size_t>(me)];
        auto it = std::find_if(box.arrived.begin(), box.arrived.end(), [&](const message& m) {
            if (is(defect::iprobe_once) && m.probed) return false;
            if (is(defect::iprobe_skips_over_1mib) && m.size() > (std::size_t{1} << 20)) return false;
            return matches(source, tag, m);
        });
        if (it == box.arrived.end()) return std::nullopt;
        it->probed = true;
        return comet::status{it->source, it->tag, it->size()};
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
        if (is(defect::ibarrier_rank0_at_once) && what == round::kind::barrier && rank == 0) op->done = true;
        if (is(defect::ibroadcast_complete_before_data) && what == round::kind::broadcast) {
            if (rank == r.root) {
                r.root_entered = true;
                for (const auto& o : r.ops)
                    if (o && o != op) o->done = true;
            } else if (r.root_entered) {
                op->done = true;
            }
        }
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
        if (is(defect::source_mod_4) && source != comet::any_source && size_ >= 5) source_ok = source % 4 == m.source % 4;
        if (is(defect::any_tag_skips_tag_zero) && tag == comet::any_tag && m.tag == 0) tag_ok = false;
        if (is(defect::reserved_tags_alias) && tag >= comet::first_reserved_tag && m.tag >= comet::first_reserved_tag) tag_ok = (tag >> 1) == (m.tag >> 1);
        if (is(defect::max_tag_is_any) && tag == comet::max_tag) tag_ok = true;
        return source_ok && tag_ok;
    }

    void arrive(int to, message msg) {
        mailbox& box = boxes_[static_cast<std::size_t>(to)];
        const std::uint64_t sequence = box.from[static_cast<std::size_t>(msg.source)]++;
        ++box.arrivals;
        box.last_source = msg.source;
        cv_.notify_all();
        const auto fits = [&](const std::shared_ptr<operation>& op) {
            if (!matches(op->source, op->tag, msg)) return false;
            if (is(defect::posted_any_tag_low_tags) && op->tag == comet::any_tag && msg.tag >= 1024) return false;
            if (is(defect::posted_any_source_misses_self) && op->source == comet::any_source && msg.source == to) return false;
            return true;
        };
        auto it = std::find_if(box.posted.begin(), box.posted.end(), fits);
        if (it != box.posted.end() && is(defect::posted_largest_buffer_first)) {
            for (auto c = it; c != box.posted.end(); ++c)
                if (fits(*c) && (*c)->buffer.size() > (*it)->buffer.size()) it = c;
        }
        if (it != box.posted.end() && is(defect::rsend_last_posted) && msg.ready) {
            for (auto c = it; c != box.posted.end(); ++c)
                if (fits(*c)) it = c;
        }
        if (it == box.posted.end()) {
            if (is(defect::identical_deduplicated)) {
                for (auto c = box.arrived.rbegin(); c != box.arrived.rend(); ++c) {
                    if (c->source != msg.source) continue;
                    const comet::const_bytes a = c->bytes(), b = msg.bytes();
                    if (c->tag == msg.tag && std::equal(a.begin(), a.end(), b.begin(), b.end())) return;
                    break;
                }
            }
            if ((is(defect::empty_overtakes) && msg.size() == 0) || (is(defect::seq_wrap_256) && sequence == 256))
                box.arrived.push_front(std::move(msg));
            else
                box.arrived.push_back(std::move(msg));
            return;
        }
        const std::shared_ptr<operation> op = *it;
        box.posted.erase(it);
        deliver(to, msg, *op, true);
    }

    void deliver(int to, const message& msg, operation& op, bool into_posted) {
        mailbox& box = boxes_[static_cast<std::size_t>(to)];
        const comet::const_bytes in = msg.bytes();
        const std::size_t n = in.size(), room = op.buffer.size();
        const std::size_t copied = std::min(n, room);
        constexpr std::size_t piece = 64 * 1024;
        if (is(defect::test_before_copy) && into_posted && n >= 4096) {
            op.deferred.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(copied));
            op.has_deferred = true;
        } else if (is(defect::payload_chunks_swapped) && n > 256 * 1024 && copied == n) {
            const std::size_t a = n - 2 * piece, b = n - piece;
            std::memcpy(op.buffer.data(), in.data(), a);
            std::memcpy(op.buffer.data() + a, in.data() + b, piece);
            std::memcpy(op.buffer.data() + b, in.data() + a, piece);
        } else if (copied > 0) {
            std::memcpy(op.buffer.data(), in.data(), copied);
        }
        op.result = {msg.source, msg.tag, n};
        if (is(defect::self_recv_status_size_zero) && msg.source == to) op.result.size = 0;
        if (is(defect::any_source_status_last_sender) && op.source == comet::any_source) op.result.source = box.last_source;
        if (n > room && !(is(defect::truncation_empty_buffer_silent) && room == 0)) op.truncated = true, op.overflow = n;
        box.last_tag = msg.tag;
        op.done = true;
        if (msg.synchronous && !(is(defect::issend_any_source_never) && msg.from_issend && op.source == comet::any_source))
            msg.synchronous->done = true;
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
            const int contributors = is(defect::iallreduce_sum_skips_last_rank) && size_ > 1 ? size_ - 1 : size_;
            for (std::size_t e = 0; e < count; ++e) {
                double acc;
                std::memcpy(&acc, r.data[0] + e * sizeof(double), sizeof(double));
                for (int i = 1; i < contributors; ++i) {
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
};

}  // namespace held_out_3
