// comet/transport/decorators/buffered.hpp — `comet::buffered<T>`: adds a buffered send (NX/2's
// csend, MPI_Bsend's meaning) to any transport, for application code written for sends that
// never wait for the receiver.
//
//   comet::mpi::run([](comet::mpi::transport& t) {
//       comet::buffered b(t);                          // wraps t; b is a transport too
//       b.bsend(peer, 7, comet::bytes_of(out));        // returns at once, whatever the size
//       comet::ops::recv(b, peer, 7, comet::writable_bytes_of(in));
//   });
//
// `bsend` copies the message into storage the decorator owns, starts the inner transport's
// `isend` on that copy and returns: two ranks that both `bsend` and then receive always
// complete, which an MPI standard send does not promise (its `send` may wait for the matching
// receive). The blocking `send` is that `bsend` too, so that every send of a buffered
// transport buffers, as NX/2's csend did. The copy is the price, as it is MPI_Bsend's and NX/2's (the message is copied into
// a system buffer); a measurement on a buffered transport measures it, and its records say so
// through the `buffered_send` capability.
//
// Storage. A buffered send's copy lives until the inner send completes. Completed sends are
// collected (their requests tested, their storage freed) whenever the decorator is called
// again through `bsend`, the point-to-point core (`isend`, `irecv`, `test`, `iprobe`), the
// blocking point-to-point operations (`send`, `recv`, `wait`, `wait_all`, where the inner
// transport has them) and `progress`; collectives and `compute` are forwarded as they are (an
// MPI collective progresses the pending sends itself; their storage is freed at the next
// call above). `flush()` waits for every pending buffered send (in the inner `wait`, where the
// inner transport has one); so does the destructor — as
// MPI_Buffer_detach waits for the messages in the attached buffer (MPI-3.1 §3.6.1) — so the
// receivers must receive them. While an exception unwinds, the destructor does not wait: it
// leaves the pending sends and their storage to the inner transport (leaked, so that no send
// reads freed memory), since the runner is about to stop every rank.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/types.hpp>
#include <comet/transport/adaptor.hpp>

#include <cstddef>
#include <exception>
#include <list>
#include <optional>
#include <span>
#include <vector>

namespace comet {

/// A transport that adds `bsend` to `Inner` (and forwards everything else Inner has).
/// @code
///   comet::buffered b(t);
///   b.bsend(1 - b.rank(), 3, comet::bytes_of(mine));   // both ranks send first ...
///   comet::ops::recv(b, 1 - b.rank(), 3, comet::writable_bytes_of(theirs));   // ... then receive
/// @endcode
template <transport Inner>
class buffered : public transport_adaptor<Inner> {
    using base = transport_adaptor<Inner>;

public:
    using request = typename base::request;

    explicit buffered(Inner& inner) : base(inner) {}
    buffered(const buffered&) = delete;
    buffered& operator=(const buffered&) = delete;

    /// Waits for every pending buffered send (see the top of this header).
    ~buffered() {
        if (std::uncaught_exceptions() > 0) {
            if (!pending_.empty()) new std::list<slot>(std::move(pending_));  // deliberately leaked
            return;
        }
        try {
            flush();
        } catch (...) {  // a failing send at the end: the destructor cannot report it
        }
    }

    /// This decorator's `bsend` is what it is for: kernels whose ranks both send first use it
    /// (core/concepts.hpp, buffering_transport), whatever the inner transport's own bsend is.
    static constexpr bool bsend_copies = false;

    /// Copies `data` and sends the copy (the inner `isend`); returns at once.
    void bsend(int dest, int tag, const_bytes data) {
        collect();
        slot& s = pending_.emplace_back();
        s.bytes.assign(data.begin(), data.end());
        try {
            s.sending = this->inner().isend(dest, tag, const_bytes(s.bytes));
        } catch (...) {
            pending_.pop_back();
            throw;
        }
    }

    /// Buffered sends not yet known to be complete, and the bytes they hold.
    std::size_t pending_sends() const noexcept { return pending_.size(); }
    std::size_t pending_bytes() const noexcept {
        std::size_t n = 0;
        for (const slot& s : pending_) n += s.bytes.size();
        return n;
    }

    /// Waits until every buffered send has completed and frees their storage: in the inner
    /// transport's `wait` where it has one (so a send that never completes is reported as the
    /// inner transport reports a blocked wait: the threads transport's deadlock report, the MPI
    /// transport's watchdog), else by testing them in turn.
    void flush() {
        while (!pending_.empty()) {
            if constexpr (requires(Inner& i, request& r) { i.wait(r); }) {
                this->inner().wait(pending_.front().sending);
                pending_.pop_front();
            } else {
                collect();
            }
        }
    }

    // ---- the members that collect completed buffered sends first ----

    request isend(int dest, int tag, const_bytes data) {
        collect();
        return base::isend(dest, tag, data);
    }
    request irecv(int source, int tag, mutable_bytes data) {
        collect();
        return base::irecv(source, tag, data);
    }
    std::optional<status> test(request& r) {
        collect();
        return base::test(r);
    }
    std::optional<status> iprobe(int source, int tag) {
        collect();
        return base::iprobe(source, tag);
    }
    /// Every send buffers here (core/concepts.hpp, buffering_transport): the blocking send is
    /// this decorator's `bsend`, whatever the inner transport's send would wait for.
    void send(int dest, int tag, const_bytes data) { bsend(dest, tag, data); }
    status recv(int source, int tag, mutable_bytes data)
        requires requires(Inner& i) { i.recv(source, tag, data); }
    {
        collect();
        return base::recv(source, tag, data);
    }
    status wait(request& r)
        requires requires(Inner& i) { i.wait(r); }
    {
        collect();
        return base::wait(r);
    }
    void wait_all(std::span<request> rs)
        requires requires(Inner& i) { i.wait_all(rs); }
    {
        collect();
        base::wait_all(rs);
    }
    void progress()
        requires progress_transport<Inner>
    {
        collect();
        base::progress();
    }

private:
    struct slot {
        std::vector<std::byte> bytes;  ///< the copy the inner send reads
        request sending;               ///< the inner isend of `bytes`
    };

    /// Tests every pending buffered send once; frees the completed ones.
    void collect() {
        for (auto it = pending_.begin(); it != pending_.end();)
            it = this->inner().test(it->sending) ? pending_.erase(it) : std::next(it);
    }

    std::list<slot> pending_;  ///< a list: a slot never moves, so its bytes stay where the send reads them
};

}  // namespace comet
