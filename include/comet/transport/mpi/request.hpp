// comet/transport/mpi/request.hpp — a nonblocking operation of the MPI transport: one
// MPI_Request (or, on a guarded transport, a receive matched by probe: guard.hpp), move-only;
// what completing it reports, and what dropping it while it is pending does.
//
// Completing. `test`/`wait` on a default or completed request return a default status at once;
// a completed send reports {destination, tag, size}, a receive what MPI_Status says, a
// collective a default status. A request that MPI completes in error is over (MPI frees it) and
// the error is raised.
//
// Dropping one while pending: a receive is cancelled (MPI_Cancel, then MPI_Wait: if a message
// had matched it already, it is received into the buffer first); a send or nonblocking
// collective is completed (MPI_Wait: the buffer is the caller's, and MPI may still read it) —
// except while an exception unwinds, when a send is handed to MPI (MPI_Request_free) and a
// collective left as it is, since `run` then ends the job.
//
// Part of the MPI transport (comet/transport/mpi.hpp): the transport makes the requests.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/transport/mpi/environment.hpp>
#include <comet/transport/mpi/guard.hpp>
#include <comet/transport/mpi/status.hpp>

#include <mpi.h>

#include <cstddef>
#include <exception>
#include <memory>
#include <utility>

namespace comet::mpi {

class transport;
namespace detail {
class endpoint;
class collectives;
}  // namespace detail

/// A nonblocking operation of the MPI transport: one MPI_Request. Move-only. Dropped while
/// pending, a receive is cancelled and a send or collective completed (see the top of this
/// header).
class request {
public:
    request() = default;
    request(request&& o) noexcept { take(o); }
    request& operator=(request&& o) noexcept {
        if (this != &o) {
            release();
            take(o);
        }
        return *this;
    }
    request(const request&) = delete;
    request& operator=(const request&) = delete;
    ~request() { release(); }

    /// True while the operation has started and its completion has not been collected.
    bool pending() const noexcept { return kind_ != kind::none; }

private:
    // The transport and its bases start requests (detail::endpoint::started) and complete them.
    friend class transport;
    friend class detail::endpoint;
    friend class detail::collectives;
    enum class kind : unsigned char { none, send, recv, collective, guarded };

    void take(request& o) noexcept {
        mpi_ = std::exchange(o.mpi_, MPI_REQUEST_NULL);
        kind_ = std::exchange(o.kind_, kind::none);
        peer_ = o.peer_;
        tag_ = o.tag_;
        size_ = o.size_;
        guarded_ = std::move(o.guarded_);
        guard_ = std::exchange(o.guard_, nullptr);
    }
    inline void release() noexcept;

    /// The status of this request, which MPI has just completed with `st`; it is then empty.
    status completed(const MPI_Status& st) noexcept {
        const kind k = std::exchange(kind_, kind::none);
        if (k == kind::send) return status{peer_, tag_, size_};
        if (k == kind::recv) return detail::status_of(st);
        return status{};
    }

    /// This request failed with MPI error `rc` (in `how`, on rank `rank`): it is over (MPI frees
    /// a request that completes in error), and the error is raised — truncation_error for a
    /// receive's MPI_ERR_TRUNCATE.
    [[noreturn]] void failed(int rank, int rc, const MPI_Status& st, const char* how) {
        const kind k = std::exchange(kind_, kind::none);
        if (mpi_ != MPI_REQUEST_NULL) MPI_Request_free(&mpi_);  // not completed by MPI: let it go
        if (k == kind::recv) detail::receive_failed(rank, "irecv", peer_, tag_, size_, rc, st);
        if (k == kind::send)
            raise<error>(rank, how, ": send to rank ", peer_, " (tag ", tag_, ", ", size_, " bytes): ", detail::error_text(rc));
        raise<error>(rank, how, ": nonblocking collective: ", detail::error_text(rc));
    }

    MPI_Request mpi_ = MPI_REQUEST_NULL;
    kind kind_ = kind::none;
    int peer_ = 0;          ///< a send's destination, a receive's source (as the caller gave them)
    int tag_ = 0;           ///< its tag
    std::size_t size_ = 0;  ///< a send's size, a receive's buffer size
    std::unique_ptr<detail::guarded_recv> guarded_;  ///< a receive of a guarded transport
    detail::receive_guard* guard_ = nullptr;         ///< ... and the queue it waits in
};

inline void request::release() noexcept {
    if (kind_ == kind::none) return;
    if (kind_ == kind::guarded) {
        if (!guarded_->matched)
            guard_->withdraw(*guarded_);  // not matched: cancelled
        else if (guarded_->request != MPI_REQUEST_NULL && detail::mpi_running())
            MPI_Wait(&guarded_->request, MPI_STATUS_IGNORE);  // matched: its data is on the way
        guarded_.reset();
    } else if (mpi_ != MPI_REQUEST_NULL && detail::mpi_running()) {
        if (kind_ == kind::recv) {
            MPI_Cancel(&mpi_);  // MPI-3.1 §3.8.4: either cancelled or, if matched already, received
            MPI_Wait(&mpi_, MPI_STATUS_IGNORE);
        } else if (std::uncaught_exceptions() == 0) {
            // The caller's buffer: MPI may still read it. A guarded transport's waiting receives
            // keep matching meanwhile (see detail::endpoint::guard_waiting).
            for (int done = 0; guard_ && !guard_->idle() && !done;) {
                if (MPI_Test(&mpi_, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
                if (!done) guard_->match();
            }
            if (mpi_ != MPI_REQUEST_NULL) MPI_Wait(&mpi_, MPI_STATUS_IGNORE);
        } else if (kind_ == kind::send) {
            MPI_Request_free(&mpi_);  // unwinding: run ends the job next; don't wait for a peer
        }
        // A collective abandoned while an exception unwinds: MPI forbids freeing it; the job is
        // about to end (run aborts it), so it is left as it is.
    }
    mpi_ = MPI_REQUEST_NULL;
    kind_ = kind::none;
    guard_ = nullptr;
}

}  // namespace comet::mpi
