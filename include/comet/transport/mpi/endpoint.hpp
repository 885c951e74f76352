// comet/transport/mpi/endpoint.hpp — what every operation of one rank's MPI transport shares:
// the duplicate communicator and the rank's place in it, the options that change how an
// operation completes (the truncation guard, the watchdog, the collective check), the one-line
// argument checks made before MPI is called, and how a blocking operation completes — MPI's
// blocking call, or its nonblocking twin polled while guarded receives wait or the watchdog
// watches.
//
// The transport is built on it: detail::collectives (collectives.hpp) derives from it, and
// comet::mpi::transport (transport.hpp) from that. It has no public members.
//
// Checks. Before MPI is called, a rank out of range, a tag outside 0..max_tag or a message over
// max_message_size raises invalid_argument naming the value and "rank R: " — a few integer
// compares, nothing measurable next to MPI.
//
// Part of the MPI transport (comet/transport/mpi.hpp); not meant to be used on its own.
#pragma once

#include <comet/core/checks.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/transport/mpi/guard.hpp>
#include <comet/transport/mpi/request.hpp>
#include <comet/transport/mpi/watchdog.hpp>

#include <mpi.h>

#include <cstddef>

namespace comet::mpi::detail {

/// One rank's place on the transport's duplicate communicator, and how its blocking operations
/// complete. Every member is called from the thread that drives MPI in this process.
class endpoint {
protected:
    endpoint(bool guard_truncation, bool check_collectives, double watchdog_s) noexcept
        : guarded_(guard_truncation), check_collectives_(check_collectives), watchdog_s_(watchdog_s) {}
    ~endpoint() = default;  // a base only: the transport owns the communicator and frees it

    // ---- argument checks: one-line errors naming the value and this rank, before MPI sees it ----

    void check_rank(int r, const char* what) const { comet::detail::check_peer(rank_, size_, r, what); }
    void check_size(std::size_t size, const char* what) const {
        if (size > max_message_size) [[unlikely]]
            raise<invalid_argument>(rank_, what, ": message of ", size, " bytes exceeds the ", max_message_size, "-byte limit");
    }
    void check_send(int dest, int tag, std::size_t size, const char* what) const {
        comet::detail::check_send(rank_, size_, dest, tag, size, what);
    }
    void check_recv(int source, int tag, const char* what) const {
        comet::detail::check_recv(rank_, size_, source, tag, what);
    }

    /// A request for an operation of kind `k` with `peer`, `tag` and `size`, not yet started.
    request started(request::kind k, int peer, int tag, std::size_t size) noexcept {
        request r;
        r.kind_ = k;
        r.peer_ = peer;
        r.tag_ = tag;
        r.size_ = size;
        if (guarded_) r.guard_ = &guard_;  // a dropped request keeps matching guarded receives while it waits
        return r;
    }

    // ---- how a blocking operation completes ----

    /// True while guarded receives wait for their messages. MPI cannot see them (they are not
    /// posted to it), so a peer blocked sending to one of them waits until this rank matches it:
    /// every blocking operation then runs as its nonblocking twin, polled, matching them in
    /// turn — as MPI_Irecv's receives would have taken those messages meanwhile.
    bool guard_waiting() const noexcept { return guarded_ && !guard_.idle(); }

    /// Whether blocking operations run as their nonblocking twins, polled: while guarded
    /// receives wait, or with the watchdog on.
    bool polls() const noexcept { return watched_ || guard_waiting(); }

    /// Whether collectives run as their nonblocking twins, polled. Not while guarded receives
    /// happen to wait on this rank, as point-to-point operations do: MPI never matches a blocking
    /// collective with a nonblocking one (MPI-3.1 §5.12), so every rank must choose alike, and
    /// decides from what all of them share: the guard and the watchdog are on for the whole job.
    bool collective_polls() const noexcept { return watched_ || guarded_; }

    /// Completes `r`, which is the operation `op`: polling it while guarded receives wait or
    /// the watchdog watches (which ends the job once `op` has waited past its limit), in
    /// MPI_Wait otherwise.
    int complete(MPI_Request& r, MPI_Status& st, const blocked_op& op) {
        deadline limit(watchdog_s_);
        for (;;) {
            if (!watched_ && guard_.idle()) return MPI_Wait(&r, &st);
            int done = 0;
            const int rc = MPI_Test(&r, &done, &st);
            if (rc != MPI_SUCCESS || done) return rc;
            if (!guard_.idle()) guard_.match();
            if (limit.expired()) [[unlikely]]
                watchdog_fired(comm_, rank_, watchdog_s_, op);
        }
    }

    /// A blocking operation `op` as its nonblocking twin (started into scratch_, with result
    /// `started`) and `complete`.
    int blocking(int started, const blocked_op& op) {
        if (started != MPI_SUCCESS) return started;
        MPI_Status st;
        return complete(scratch_, st, op);
    }

    MPI_Comm comm_ = MPI_COMM_NULL;  ///< the duplicate (MPI_Comm_dup) comet's messages travel on
    int rank_ = 0;
    int size_ = 0;
    bool guarded_ = false;            ///< options::guard_truncation
    bool check_collectives_ = false;  ///< options::check_collectives
    double watchdog_s_ = 0;           ///< options::watchdog_s
    bool watched_ = false;            ///< watchdog_s_ > 0
    receive_guard guard_;
    MPI_Request scratch_ = MPI_REQUEST_NULL;  ///< a guarded blocking operation's nonblocking twin
};

}  // namespace comet::mpi::detail
