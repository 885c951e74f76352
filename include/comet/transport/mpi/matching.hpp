// comet/transport/mpi/matching.hpp — the MPI transport's wire format and matching state.
//
// Wire format. A message of up to `whole_limit` bytes travels whole: one MPI message with the
// comet tag. A larger one travels as a head — its first whole_limit + 1 bytes, with the comet
// tag — and a tail — the rest, with tag tail_base + tag — sent right after it. Receivers tell a
// head by its size, which no whole message has. Every MPI message with a comet tag is thus at
// most whole_limit + 1 bytes, a size every MPI library sends eagerly; a receive posted to MPI
// with a comet tag never meets a large message, and tails are received only once probed, with
// their exact size. (Open MPI 4.1's shared-memory single copy writes a large message whole
// into a smaller receive buffer, past its end, before it reports MPI_ERR_TRUNCATE; comet never
// lets MPI truncate.) A blocked sender's ask has tag ask_base + tag and no bytes.
//
// Matching state: the messages taken out of MPI before any receive asked for them (held), the
// receives posted with irecv that no message has matched yet (posted), and the receives that
// have a head and wait for its tail (awaiting), all in MPI's order. How they are used, and why
// that order is MPI's, is explained in comet/transport/mpi.hpp.
#pragma once

#include <comet/core/types.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

namespace comet::mpi::detail {

/// Messages up to this many bytes travel as one MPI message; larger ones as head and tail.
/// Small enough that every MPI sends it eagerly (Open MPI's shared memory: 4 KiB), so that a
/// receive posted to MPI never meets a rendezvous message; large enough that the head's cost,
/// one more eager message, is small next to the rest of the transfer.
inline constexpr std::size_t whole_limit = 1024;
inline constexpr std::size_t head_size = whole_limit + 1;

/// Asks travel with tag ask_base + tag, tails with tail_base + tag: above every comet tag.
inline constexpr int ask_base = max_tag + 1;
inline constexpr int tail_base = 2 * (max_tag + 1);
/// The largest MPI tag the transport uses (MPI_TAG_UB must be at least this).
inline constexpr int largest_tag = tail_base + max_tag;

/// The comet tag an MPI tag belongs to.
inline int comet_tag(int mpi_tag) noexcept { return mpi_tag % (max_tag + 1); }

/// True if a receive for (want_source, want_tag) takes a message from `source` with `tag`.
inline bool matches(int want_source, int want_tag, int source, int tag) noexcept {
    return (want_source == any_source || want_source == source) && (want_tag == any_tag || want_tag == tag);
}

/// One part of a message taken out of MPI: a matched handle (MPI_Message: matched, not
/// received, so its sender's send of it is still incomplete) or its bytes in comet's storage.
struct part {
    std::size_t size = 0;
    MPI_Message handle = MPI_MESSAGE_NULL;
    std::unique_ptr<std::byte[]> data;

    bool stored() const noexcept { return handle == MPI_MESSAGE_NULL; }

    /// Receives the part into comet-owned storage (MPI_Mrecv), which completes its sender's
    /// send of it. Returns the MPI error code.
    int store() {
        if (stored()) return MPI_SUCCESS;
        data = std::make_unique_for_overwrite<std::byte[]>(std::max<std::size_t>(size, 1));
        return MPI_Mrecv(data.get(), static_cast<int>(size), MPI_BYTE, &handle, MPI_STATUS_IGNORE);
    }
};

/// A message taken out of MPI before a receive asked for it: its first part (the whole message,
/// or the head) and, for a split message, its tail once that has arrived.
struct held_message {
    int source = 0;
    int tag = 0;
    part first;
    bool split = false;
    bool tail_arrived = false;
    part tail;

    /// The message's size (a split message's only once its tail has arrived).
    std::size_t size() const noexcept { return first.size + (split ? tail.size : 0); }
};

/// The held messages, oldest first. Per sender they are a prefix of what it sent, in the order
/// sent, older than anything of that sender MPI still holds.
class held_queue {
public:
    using iterator = std::deque<held_message>::iterator;

    bool empty() const noexcept { return messages_.empty(); }
    iterator end() noexcept { return messages_.end(); }

    void push(held_message m) { messages_.push_back(std::move(m)); }

    /// The oldest held message a receive for (source, tag) takes, or end().
    iterator find(int source, int tag) noexcept {
        return std::find_if(messages_.begin(), messages_.end(),
                            [&](const held_message& m) { return matches(source, tag, m.source, m.tag); });
    }

    /// The newest held message from `source` with `tag`, or end().
    iterator newest(int source, int tag) noexcept {
        for (auto it = messages_.end(); it != messages_.begin();) {
            --it;
            if (it->source == source && it->tag == tag) return it;
        }
        return messages_.end();
    }

    /// The oldest held split message from `source` with `tag` whose tail has not arrived.
    iterator missing_tail(int source, int tag) noexcept {
        return std::find_if(messages_.begin(), messages_.end(), [&](const held_message& m) {
            return m.source == source && m.tag == tag && m.split && !m.tail_arrived;
        });
    }

    held_message take(iterator it) {
        held_message m = std::move(*it);
        messages_.erase(it);
        return m;
    }

    /// Receives and drops every part still held as a handle, so that no sender waits for a
    /// receive that will never come (the transport is going away). Errors are ignored.
    void discard() noexcept {
        for (auto& m : messages_) {
            (void)m.first.store();
            if (m.tail_arrived) (void)m.tail.store();
        }
        messages_.clear();
    }

private:
    std::deque<held_message> messages_;
};

/// A receive: posted with irecv (or a blocking recv that could not be posted to MPI), matched
/// to a message, receiving it. Lives in the transport's pool, so requests can move; a request
/// points to it until it is collected.
struct posted_recv {
    int source = any_source;
    int tag = any_tag;
    std::byte* buffer = nullptr;
    std::size_t capacity = 0;
    bool matched = false;
    bool awaiting_tail = false;          ///< has its head; the tail has not arrived
    MPI_Request first = MPI_REQUEST_NULL;  ///< MPI_Imrecv of the whole message or the head
    MPI_Request tail = MPI_REQUEST_NULL;   ///< MPI_Imrecv of the tail
    status result;                       ///< the matched message's source, tag and size
    std::size_t overflow = 0;            ///< matched a message larger than the buffer (dropped)
    int error = MPI_SUCCESS;             ///< an MPI error the receive met

    bool done() const noexcept { return matched && !awaiting_tail && first == MPI_REQUEST_NULL && tail == MPI_REQUEST_NULL; }
};

/// The posted receives not yet matched, in the order posted; the receives awaiting tails, in
/// the order their heads were sent; and the pool both live in.
class receive_lists {
public:
    bool nothing_posted() const noexcept { return posted_.empty(); }

    posted_recv* allocate() {
        if (free_.empty()) {
            pool_.push_back(std::make_unique<posted_recv>());
            return pool_.back().get();
        }
        posted_recv* r = free_.back();
        free_.pop_back();
        *r = posted_recv{};
        return r;
    }
    void release(posted_recv* r) { free_.push_back(r); }

    void post(posted_recv* r) { posted_.push_back(r); }
    /// Takes `r` off the posted list (its request dropped); false if it was not on it.
    bool unpost(posted_recv* r) noexcept {
        const auto it = std::find(posted_.begin(), posted_.end(), r);
        if (it == posted_.end()) return false;
        posted_.erase(it);
        return true;
    }
    /// True if a posted receive takes a message from `source` with `tag`.
    bool any_takes(int source, int tag) const noexcept {
        return std::any_of(posted_.begin(), posted_.end(),
                           [&](const posted_recv* r) { return matches(r->source, r->tag, source, tag); });
    }
    /// True if a posted receive could take a message a receive for (source, tag) takes.
    bool overlaps(int source, int tag) const noexcept {
        return std::any_of(posted_.begin(), posted_.end(), [&](const posted_recv* r) {
            return (source == any_source || r->source == any_source || r->source == source) &&
                   (tag == any_tag || r->tag == any_tag || r->tag == tag);
        });
    }
    /// The earliest-posted receive that takes a message from `source` with `tag`, taken off
    /// the list; nullptr if none.
    posted_recv* match(int source, int tag) noexcept {
        const auto it = std::find_if(posted_.begin(), posted_.end(),
                                     [&](const posted_recv* r) { return matches(r->source, r->tag, source, tag); });
        if (it == posted_.end()) return nullptr;
        posted_recv* r = *it;
        posted_.erase(it);
        return r;
    }

    void await_tail(posted_recv* r) { awaiting_.push_back(r); }
    /// The receive waiting longest for a tail from `source` with `tag`, taken off the list.
    posted_recv* awaiting(int source, int tag) noexcept {
        const auto it = std::find_if(awaiting_.begin(), awaiting_.end(),
                                     [&](const posted_recv* r) { return r->result.source == source && r->result.tag == tag; });
        if (it == awaiting_.end()) return nullptr;
        posted_recv* r = *it;
        awaiting_.erase(it);
        return r;
    }

private:
    std::vector<posted_recv*> posted_;
    std::deque<posted_recv*> awaiting_;
    std::vector<std::unique_ptr<posted_recv>> pool_;
    std::vector<posted_recv*> free_;
};

}  // namespace comet::mpi::detail
