// comet/transport/threads/channel.hpp — the one-way path from one rank to another in the
// threads transport, and the descriptor of a message too large to travel inline.
//
// A channel is a single-producer, single-consumer path with three lanes, and every message
// of the channel carries the next number of one counter, so the receiver always takes message
// `next` from whichever lane holds it and order is kept across lanes:
//
//   the slot: half of a 64-byte line that the two ranks of a pair share, one half for each
//     direction, for messages of up to 16 bytes when the previous one has been taken. A rank
//     that answers a message writes its answer into the line it has just read, which it now
//     owns, so a ping-pong moves one cache line per message: the floor bench/ compares with.
//     (With separate lines per direction every hand-off needs two coherence transactions: the
//     writer must take the line from the reader polling it, then the reader must fetch it.)
//   the ring: 64-byte cells; a message is written into consecutive cells (header + 36 bytes in
//     the first, 56 in each following) and published by storing its number into the first.
//   the overflow list (below).
//
// A large message travels as a pointer to a `large_message`: either "offered" (the receiver
// copies straight out of the sender's buffer: one copy in all) or "buffered" (the sender made
// a private copy and went on). Only the receiver matches messages, so matching needs no locks.
//
// When the ring is full the sender does not wait: it appends a buffered copy to an overflow
// list, and keeps doing so until the receiver has emptied it, which keeps per-channel order.
// A blocking send therefore never waits for ring space, the buffered semantics CoMet assumes.
#pragma once

#include <comet/core/types.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>

namespace comet::threads::detail {

inline constexpr std::size_t cache_line = 64;

/// Life of a large message. The sender creates it `offered` (or `buffered`). The receiver
/// either claims it (`offered`/`deferred` → `claimed` → `done`: it copied straight from the
/// sender's buffer, and the sender may free the descriptor once it reads `done`), or, finding
/// no receive posted for it, marks it `deferred` and tells the sender. A blocking send whose
/// message was deferred withdraws it (`withdrawing` → `buffered`: it copies the data into the
/// descriptor and returns; the descriptor now belongs to the receiver). A sender unwinding
/// from a stopped run marks it `abandoned` (no data; freed when the run is torn down).
enum class large_state : std::uint32_t { offered, deferred, claimed, done, withdrawing, buffered, abandoned };

struct large_message {
    std::atomic<large_state> state{large_state::offered};
    int source = 0;
    int tag = 0;
    std::size_t size = 0;
    const std::byte* data = nullptr;
    std::unique_ptr<std::byte[]> copy;

    static large_message* offered(int source, int tag, const_bytes bytes) {
        auto* m = new large_message;
        m->source = source;
        m->tag = tag;
        m->size = bytes.size();
        m->data = bytes.data();
        return m;
    }

    static large_message* buffered(int source, int tag, const_bytes bytes) {
        auto* m = offered(source, tag, bytes);
        m->take_copy();
        m->state.store(large_state::buffered, std::memory_order_relaxed);
        return m;
    }

    /// Copies the payload into the descriptor, so the sender's buffer is no longer needed.
    void take_copy() {
        copy = std::make_unique_for_overwrite<std::byte[]>(std::max<std::size_t>(size, 1));
        if (size) std::memcpy(copy.get(), data, size);
        data = copy.get();
    }
};

// Message numbers are 64-bit: a ring cell keeps the number of the last message written into
// it, possibly billions of slot messages ago, and must never be mistaken for the next one.
struct alignas(cache_line) cell {
    std::atomic<std::uint64_t> seq{0};  ///< number of the message whose first cell this is
    std::byte body[cache_line - sizeof(std::atomic<std::uint64_t>)];
};
static_assert(sizeof(cell) == cache_line);

// First cell of a message: tag (4 bytes), size (8), large_message* (8), then payload.
inline constexpr std::size_t head_header = 4 + 8 + 8;
inline constexpr std::size_t head_payload = sizeof(cell::body) - head_header;  // 36 bytes
inline constexpr std::size_t more_payload = sizeof(cell::body);                // 56 bytes

/// One direction's half of a pair's shared line: a message of up to 16 bytes, present while
/// `seq` holds its number, free again when the receiver has set `seq` back to 0.
struct slot_half {
    std::atomic<std::uint64_t> seq{0};
    std::int32_t tag = 0;
    std::uint32_t size = 0;
    std::byte payload[16];
};
inline constexpr std::size_t slot_payload = sizeof(slot_half::payload);

/// The line a pair of ranks shares: half[0] carries messages from the lower rank to the
/// higher, half[1] the other way (a rank's messages to itself use half[0] of its own line).
struct alignas(cache_line) pair_line {
    slot_half half[2];
};
static_assert(sizeof(pair_line) == cache_line);

/// Copies a few bytes without a call into the C library: most inline messages are a handful
/// of bytes, for which a `memcpy` call costs more than the copy.
inline void copy_small(std::byte* dst, const std::byte* src, std::size_t n) noexcept {
    if (n >= 8) {
        std::size_t i = 0;
        for (; i + 8 <= n; i += 8) std::memcpy(dst + i, src + i, 8);
        if (i < n) std::memcpy(dst + n - 8, src + n - 8, 8);  // overlaps the last full word
    } else {
        for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
    }
}

/// Copies at most 16 bytes (a slot's payload) as two overlapping words.
inline void copy_upto16(std::byte* dst, const std::byte* src, std::size_t n) noexcept {
    if (n >= 8) {
        std::memcpy(dst, src, 8);
        std::memcpy(dst + (n - 8), src + (n - 8), 8);
    } else if (n >= 4) {
        std::memcpy(dst, src, 4);
        std::memcpy(dst + (n - 4), src + (n - 4), 4);
    } else {
        for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
    }
}

/// Cells a message of `size` bytes occupies when it travels inline.
constexpr std::size_t cells_for(std::size_t size) noexcept {
    return size <= head_payload ? 1 : 1 + (size - head_payload + more_payload - 1) / more_payload;
}

/// A message as the receiver first sees it, before matching.
struct arrival {
    int tag = 0;
    std::size_t size = 0;
    large_message* large = nullptr;    ///< null: the payload is inline (slot or ring)
    const std::byte* slot = nullptr;   ///< the payload in a slot, if it came that way
    const cell* cells = nullptr;
    std::uint64_t first = 0;
    std::uint64_t mask = 0;

    /// Copies an inline payload (all `size` bytes) to `dst`.
    void copy_inline(std::byte* dst) const noexcept {
        if (slot) return copy_upto16(dst, slot, size);
        std::size_t left = size;
        std::size_t n = std::min(left, head_payload);
        copy_small(dst, cells[first & mask].body + head_header, n);
        dst += n;
        left -= n;
        for (std::uint64_t i = first + 1; left; ++i) {
            n = std::min(left, more_payload);
            std::memcpy(dst, cells[i & mask].body, n);
            dst += n;
            left -= n;
        }
    }
};

class channel {
public:
    /// A channel with a ring of `capacity` cells (a power of two) and the slot `slot`, one
    /// half of the line its pair of ranks shares.
    channel(std::size_t capacity, slot_half& slot) : cells_(new cell[capacity]), mask_(capacity - 1), slot_(&slot) {}
    channel(const channel&) = delete;
    channel& operator=(const channel&) = delete;
    ~channel() { dispose(); }

    // ---- sender side: only the sending rank's thread calls these ----

    /// Sends `data` inline (the caller keeps `data.size()` within the eager limit).
    void push_inline(int source, int tag, const_bytes data) {
        if (overflowing_.load(std::memory_order_acquire)) return to_overflow(large_message::buffered(source, tag, data));
        if (data.size() <= slot_payload && slot_->seq.load(std::memory_order_acquire) == 0) {
            slot_->tag = tag;
            slot_->size = static_cast<std::uint32_t>(data.size());
            copy_upto16(slot_->payload, data.data(), data.size());
            // seq_cst: ordered before the sender's following look at the receiver's sleep state.
            slot_->seq.store(tx_.next++, std::memory_order_seq_cst);
            return;
        }
        const std::size_t n = cells_for(data.size());
        if (!reserve(n)) return to_overflow(large_message::buffered(source, tag, data));
        const std::uint64_t first = tx_.head;
        cell& head = cells_[first & mask_];
        write_header(head, tag, data.size(), nullptr);
        std::size_t done = std::min(data.size(), head_payload);
        copy_small(head.body + head_header, data.data(), done);
        for (std::uint64_t i = first + 1; done < data.size(); ++i) {
            const std::size_t k = std::min(data.size() - done, more_payload);
            std::memcpy(cells_[i & mask_].body, data.data() + done, k);
            done += k;
        }
        publish(head, n);
    }

    /// Sends a large-message descriptor (offered or buffered).
    void push_large(large_message* m) {
        if (overflowing_.load(std::memory_order_acquire) || !reserve(1)) {
            to_overflow(m);
            return;
        }
        cell& head = cells_[tx_.head & mask_];
        write_header(head, m->tag, m->size, m);
        publish(head, 1);
    }

    // ---- receiver side: only the receiving rank's thread calls these ----

    /// True if a message may be waiting (cheap: a look at the slot and the next cell).
    bool ready() const noexcept {
        return slot_->seq.load(std::memory_order_acquire) == rx_.next ||
               cells_[rx_.tail & mask_].seq.load(std::memory_order_acquire) == rx_.next ||
               overflowing_.load(std::memory_order_relaxed);
    }

    /// Hands every arrived message, in order, to `handle(const arrival&)`, which must copy what
    /// it needs before returning. Returns the number of messages handed over.
    template <class Handle>
    std::size_t drain(const Handle& handle) {
        std::size_t count = drain_lanes(handle);
        if (overflowing_.load(std::memory_order_acquire)) {
            // Under the lock the sender cannot add to the overflow list, and it only adds once
            // everything it put in the slot and ring before is published; while the list is
            // not empty it puts everything there. So: the other lanes first, then the list.
            std::lock_guard lock(overflow_mutex_);
            count += drain_lanes(handle);
            for (large_message* m : overflow_) {
                arrival a;
                a.tag = m->tag;
                a.size = m->size;
                a.large = m;
                handle(a);
                ++rx_.next;
                ++count;
            }
            overflow_.clear();
            overflowing_.store(false, std::memory_order_release);
        }
        return count;
    }

    /// After every rank's thread has ended: frees the buffered copies nobody received.
    void dispose() noexcept {
        if (!cells_) return;
        const auto free_large = [](const arrival& a) { dispose_large(a.large); };
        drain_lanes(free_large);
        for (large_message* m : overflow_) dispose_large(m);
        overflow_.clear();
    }

    /// Frees a large message that its receiver never took, if the message owns it.
    static void dispose_large(large_message* m) noexcept {
        if (!m) return;
        const auto s = m->state.load(std::memory_order_acquire);
        if (s == large_state::buffered || s == large_state::abandoned) delete m;
    }

private:
    static void write_header(cell& c, int tag, std::size_t size, large_message* m) noexcept {
        const std::int32_t t = tag;
        const std::uint64_t s = size;
        std::memcpy(c.body, &t, 4);
        std::memcpy(c.body + 4, &s, 8);
        std::memcpy(c.body + 12, &m, 8);
    }

    arrival read(std::uint64_t first) const noexcept {
        const cell& c = cells_[first & mask_];
        std::int32_t t;
        std::uint64_t s;
        arrival a;
        std::memcpy(&t, c.body, 4);
        std::memcpy(&s, c.body + 4, 8);
        std::memcpy(&a.large, c.body + 12, 8);
        a.tag = t;
        a.size = static_cast<std::size_t>(s);
        a.cells = cells_.get();
        a.first = first;
        a.mask = mask_;
        return a;
    }

    static std::size_t cells_for_arrival(const arrival& a) noexcept { return a.large ? 1 : cells_for(a.size); }

    bool reserve(std::size_t n) noexcept {
        const std::uint64_t capacity = mask_ + 1;
        if (capacity - (tx_.head - tx_.known_consumed) >= n) return true;
        tx_.known_consumed = consumed_.load(std::memory_order_acquire);
        return capacity - (tx_.head - tx_.known_consumed) >= n;
    }

    void publish(cell& head, std::size_t n) noexcept {
        tx_.head += n;
        // seq_cst: the store must be ordered before the sender's following load of the
        // receiver's sleep state (see world::ring), or a receiver going to sleep could miss it.
        head.seq.store(tx_.next++, std::memory_order_seq_cst);
    }

    void to_overflow(large_message* m) {
        std::lock_guard lock(overflow_mutex_);
        overflow_.push_back(m);
        ++tx_.next;
        overflowing_.store(true, std::memory_order_seq_cst);
    }

    /// Hands over messages from the slot and the ring, in number order, while the next one is
    /// in one of them.
    template <class Handle>
    std::size_t drain_lanes(const Handle& handle) {
        std::size_t count = 0;
        for (;;) {
            // The slot first: in a ping-pong that is where the next message is.
            if (slot_->seq.load(std::memory_order_acquire) == rx_.next) {
                arrival a;
                a.tag = slot_->tag;
                a.size = slot_->size;
                a.slot = slot_->payload;
                handle(a);
                slot_->seq.store(0, std::memory_order_release);  // free for the sender's next message
            } else if (cells_[rx_.tail & mask_].seq.load(std::memory_order_acquire) == rx_.next) {
                const arrival a = read(rx_.tail);
                handle(a);
                rx_.tail += cells_for_arrival(a);
                consumed_.store(rx_.tail, std::memory_order_release);
            } else {
                return count;
            }
            ++rx_.next;
            ++count;
        }
    }

    // The sender's and the receiver's private counters live on separate cache lines, and
    // apart from the two shared words, so neither side's bookkeeping disturbs the other.
    struct alignas(cache_line) sender_side {
        std::uint64_t head = 0;
        std::uint64_t known_consumed = 0;
        std::uint64_t next = 1;  ///< number of the next message sent, whatever its lane
    } tx_;
    struct alignas(cache_line) receiver_side {
        std::uint64_t tail = 0;
        std::uint64_t next = 1;  ///< number of the next message to take
    } rx_;
    alignas(cache_line) std::atomic<std::uint64_t> consumed_{0};
    alignas(cache_line) std::atomic<bool> overflowing_{false};
    std::mutex overflow_mutex_;
    std::deque<large_message*> overflow_;
    alignas(cache_line) std::unique_ptr<cell[]> cells_;
    std::uint64_t mask_;
    slot_half* slot_;
};

}  // namespace comet::threads::detail
