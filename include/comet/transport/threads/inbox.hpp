// comet/transport/threads/inbox.hpp — one rank's receiving side in the threads transport: the
// channels from every rank to it, the receives it has posted, the messages that arrived before a
// receive was posted for them (unexpected), and the matching between them.
//
// Matching happens only on the receiving thread, when it drains its channels: a drained message
// completes the earliest matching posted receive (posted receives in post order), or else joins
// the unexpected queue, which a receive looks at before it posts. Any blocking call or
// `test`/`progress` drains; nothing progresses while a rank computes without calling the
// transport. A large message matched by a receive is copied straight out of the sender's
// buffer (handoff.hpp). One drained unexpected tells its blocking sender, who then takes a copy
// and moves on, but only once this rank shows it will not receive it now (`defer_unexpected`):
// at its next call into the transport unless that call receives it, or at a look of a wait that
// goes on, a test or probe that finds nothing. Told at once, the sender of an echo's reply,
// offered a moment before the test node posts its receive (while the node's own send
// completes), copied it a second time in one leg of five at 1 MiB.
//
// Part of the threads transport (comet/transport/threads.hpp); not meant to be used on its own.
#pragma once

#include <comet/core/checks.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/transport/threads/channel.hpp>
#include <comet/transport/threads/handoff.hpp>
#include <comet/transport/threads/world.hpp>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace comet::threads::detail {

/// A posted receive. Lives on the stack of a blocking recv or in the rank's pool for irecv.
struct recv_op {
    int source = any_source;
    int tag = any_tag;
    mutable_bytes buffer;
    bool done = false;
    status result;
    std::size_t overflow = 0;  ///< the size of a matched message that did not fit (else 0)
    bool abandoned = false;    ///< its sender gave it up while the run was stopping
    recv_op* prev = nullptr;
    recv_op* next = nullptr;
};

/// A message drained before any receive was posted for it.
struct unexpected_msg {
    int source = 0;
    int tag = 0;
    std::size_t size = 0;
    large_message* large = nullptr;
    bool deferred = false;  ///< large: its sender was told (inbox::defer_unexpected)
    std::byte small[48];
    std::unique_ptr<std::byte[]> big;
    const std::byte* bytes() const noexcept { return big ? big.get() : small; }
};

/// The receiving side of rank `rank` of world `w`. Called from that rank's thread only.
class inbox {
public:
    inbox(world& w, int rank) : world_(&w), rank_(rank), size_(w.ranks()) {
        in_.reserve(static_cast<std::size_t>(size_));
        for (int r = 0; r < size_; ++r) in_.push_back(&w.link(r, rank));
    }
    inbox(const inbox&) = delete;
    inbox& operator=(const inbox&) = delete;
    ~inbox() {
        // A sender may still withdraw an offer this rank drained but never received (it sees
        // this rank finish), so the descriptors outlive the rank: the world frees them.
        for (auto& u : unexpected_)
            if (u.large) world_->leave_behind(u.large);
    }

    static bool matches(int want_source, int want_tag, int source, int tag) noexcept {
        return (want_source == any_source || want_source == source) && (want_tag == any_tag || want_tag == tag);
    }

    // ---- posted receives ----

    void post(recv_op* op) noexcept {
        op->prev = posted_tail_;
        op->next = nullptr;
        (posted_tail_ ? posted_tail_->next : posted_head_) = op;
        posted_tail_ = op;
    }
    void unlink(recv_op* op) noexcept {
        (op->prev ? op->prev->next : posted_head_) = op->next;
        (op->next ? op->next->prev : posted_tail_) = op->prev;
        op->prev = op->next = nullptr;
    }

    /// A receive of the pool (for irecv), given back with `recycle`.
    recv_op* allocate_op() {
        if (free_ops_.empty()) {
            ops_.push_back(std::make_unique<recv_op>());
            return ops_.back().get();
        }
        auto* op = free_ops_.back();
        free_ops_.pop_back();
        return op;
    }
    void recycle(recv_op* op) { free_ops_.push_back(op); }

    /// The status of completed receive `op`, or what it raises: the run's stop if its sender
    /// abandoned the message, truncation_error if the message did not fit.
    status finish_recv(recv_op& op) {
        if (op.abandoned) world_->throw_stop(rank_);
        if (op.overflow) throw truncation_error(truncated(op.source, op.tag, op.result, op.buffer.size()));
        return op.result;
    }

    // ---- draining ----

    /// Drains the channel from `source` (every channel when `all` or any_source). Between
    /// drains, a waiting rank only looks at the one cell the next message will land in.
    void poll(int source, bool all) {
        if (all || source == any_source) return drain_all();
        if (in_[static_cast<std::size_t>(source)]->ready()) drain_from(source);
    }
    void drain_all() {
        for (int s = 0; s < size_; ++s) drain_from(s);
    }

    // ---- unexpected messages ----

    bool has_unexpected() const noexcept { return !unexpected_.empty(); }

    /// Tells the blocking senders of large messages drained unexpected since the last call
    /// that no receive is coming for them now: each takes a copy and moves on (a deferred
    /// message is still received straight out of the sender's buffer if its receive comes
    /// first). Called where this rank shows it will not receive them now: at the start of
    /// every call into the transport (a receive: once it has taken what it receives), and
    /// after a look of a wait that goes on, a test or probe that finds nothing. Left out of a
    /// call, a rank that keeps calling it (a server loop on probes, or on receives from any
    /// rank that always find a message) would keep a blocking sender waiting for ever.
    void defer_unexpected() {
        if (undeferred_ != 0) defer_each();
    }

    /// The envelope of the earliest unexpected message matching (source, tag), if any.
    std::optional<status> find_unexpected(int source, int tag) const noexcept {
        for (const auto& u : unexpected_)
            if (matches(source, tag, u.source, u.tag)) return status{u.source, u.tag, u.size};
        return std::nullopt;
    }

    /// Takes the earliest unexpected message matching (source, tag) into `buffer`. One too big
    /// for it raises truncation_error, or with `overflow` is given up and its size put there.
    [[gnu::noinline]] bool take_unexpected(int source, int tag, mutable_bytes buffer, status& s, std::size_t* overflow = nullptr) {
        for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
            if (!matches(source, tag, it->source, it->tag)) continue;
            s = status{it->source, it->tag, it->size};
            std::string error;
            bool abandoned = false;
            if (it->size > buffer.size()) {
                error = truncated(source, tag, s, buffer.size());
                if (it->large) discard_large(*world_, it->large);
            } else if (it->large) {
                abandoned = !take_large(*world_, it->large, buffer.data());
            } else if (it->size) {
                std::memcpy(buffer.data(), it->bytes(), it->size);
            }
            if (it->large && !it->deferred) --undeferred_;
            unexpected_.erase(it);
            if (abandoned) world_->throw_stop(rank_);
            if (!error.empty()) {
                if (!overflow) throw truncation_error(error);
                *overflow = s.size;
            }
            return true;
        }
        return false;
    }

private:
    [[gnu::noinline]] void defer_each() {
        for (auto& u : unexpected_) {
            if (!u.large || u.deferred) continue;
            u.deferred = true;
            auto s = large_state::offered;
            if (u.large->state.compare_exchange_strong(s, large_state::deferred, std::memory_order_seq_cst))
                world_->ring(u.large->source);
        }
        undeferred_ = 0;
    }

    void drain_from(int source) {
        in_[static_cast<std::size_t>(source)]->drain([&](const arrival& a) { arrive(source, a); });
    }

    /// A message has been drained: complete the earliest matching posted receive, or keep it.
    void arrive(int source, const arrival& a) {
        for (recv_op* op = posted_head_; op; op = op->next) {
            if (!matches(op->source, op->tag, source, a.tag)) continue;
            unlink(op);
            op->result = status{source, a.tag, a.size};
            if (a.size > op->buffer.size()) {
                op->overflow = a.size;
                if (a.large) discard_large(*world_, a.large);
            } else if (a.large) {
                op->abandoned = !take_large(*world_, a.large, op->buffer.data());
            } else {
                a.copy_inline(op->buffer.data());
            }
            op->done = true;
            return;
        }
        keep_unexpected(source, a);
    }

    [[gnu::noinline]] void keep_unexpected(int source, const arrival& a) {
        auto& u = unexpected_.emplace_back();
        u.source = source;
        u.tag = a.tag;
        u.size = a.size;
        u.large = a.large;
        if (a.large) {
            ++undeferred_;  // its sender is told by defer_unexpected, if no receive comes first
        } else if (a.size <= sizeof u.small) {
            a.copy_inline(u.small);
        } else {
            u.big = std::make_unique_for_overwrite<std::byte[]>(a.size);
            a.copy_inline(u.big.get());
        }
    }

    [[gnu::cold]] std::string truncated(int want_source, int want_tag, const status& got, std::size_t capacity) const {
        return comet::detail::truncated_text(rank_, want_source, want_tag, got.size, got.source, got.tag, capacity);
    }

    world* world_;
    int rank_;
    int size_;
    recv_op* posted_head_ = nullptr;
    recv_op* posted_tail_ = nullptr;
    std::deque<unexpected_msg> unexpected_;
    std::size_t undeferred_ = 0;  ///< large unexpected messages whose senders were not told yet
    std::vector<channel*> in_;  ///< channels from every rank to this one
    std::vector<std::unique_ptr<recv_op>> ops_;
    std::vector<recv_op*> free_ops_;
};

}  // namespace comet::threads::detail
