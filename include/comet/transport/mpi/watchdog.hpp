// comet/transport/mpi/watchdog.hpp — the MPI transport's opt-in watchdog
// (`comet::mpi::options::watchdog_s`): a blocking operation that has not completed within the
// limit ends the job with one line naming the rank, the operation and its peer.
//
// Why it exists. MPI has no deadlock detection: a rank blocked in MPI_Recv for a message that
// will never come waits until the job is killed, and so do its peers. The threads transport
// and the simulator see every rank and report a global deadlock at once; an MPI process sees
// only itself. What it can tell is that one of its own operations has been blocked for longer
// than any correct run of the program would take — the limit the user gives.
//
// How. With the watchdog on, the transport runs each blocking operation as its nonblocking
// twin (MPI_Isend for MPI_Send, MPI_Ibcast for MPI_Bcast, ...) and polls it with MPI_Test,
// reading the clock every 64 polls. Past the limit the rank prints
//   comet: rank 0: watchdog: blocked for 1 s in recv from rank 1 (tag 4, up to 16 bytes); ending the job
// on stderr, waits a grace period (the limit, at most 2 s) so that the other blocked ranks,
// whose limits run out at about the same time, print their own lines, and calls MPI_Abort.
// Polling costs what MPI_Test costs over MPI_Wait, so the watchdog is off by default: a
// measurement's operations are MPI's own blocking calls.
//
// Watched: send, recv, wait, wait_all, sendrecv, ssend, rsend, the blocking collectives and
// run's closing barrier (the polling is endpoint.hpp's `complete`). Not watched:
// MPI_Buffer_detach in `reserve_bsend` (which waits for the messages buffered before), and a
// pending request's destructor.
//
// Part of the MPI transport; not meant to be used on its own.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace comet::mpi::detail {

/// What a blocking operation waits for, as the watchdog names it. Built only on the polled
/// path and formatted only when the watchdog fires.
struct blocked_op {
    /// How the peer is named: a send's destination, a receive's source, a collective's root,
    /// or none (every rank of the communicator).
    enum class shape : unsigned char { to, from, root, all };
    const char* what = "";      ///< "send", "recv", "wait for isend", "broadcast", ...
    shape form = shape::all;
    int peer = 0;               ///< destination, source (any_source too) or root
    int tag = 0;                ///< a point-to-point operation's tag (any_tag too)
    std::size_t size = 0;       ///< bytes, or doubles for a reduction
    const char* unit = nullptr; ///< a collective's unit ("bytes", "doubles", ...); none: no size

    std::string describe() const {
        const auto rank_name = [](int r) { return r == any_source ? std::string("any rank") : "rank " + std::to_string(r); };
        const auto tag_name = [](int t) { return t == any_tag ? std::string("any tag") : "tag " + std::to_string(t); };
        switch (form) {
        case shape::to:
            return comet::detail::concat(what, " to rank ", peer, " (tag ", tag, ", ", size, " bytes)");
        case shape::from:
            return comet::detail::concat(what, " from ", rank_name(peer), " (", tag_name(tag), ", up to ", size, " bytes)");
        case shape::root:
            return comet::detail::concat(what, " with root ", peer, " (", size, " ", unit ? unit : "bytes", ")");
        case shape::all:
            break;
        }
        return unit ? comet::detail::concat(what, " (", size, " ", unit, ")") : std::string(what);
    }
};

/// The clock of one polled operation: started when the operation starts, expired once the
/// limit has passed. A limit of 0 never expires.
class deadline {
public:
    explicit deadline(double limit_s) noexcept : limit_(limit_s) {
        if (limit_ > 0) start_ = std::chrono::steady_clock::now();
    }

    /// True once the limit has passed; reads the clock every 64th call (a clock read costs
    /// about as much as an MPI_Test, and a limit is seconds long).
    bool expired() noexcept {
        if (limit_ <= 0 || (++polls_ & 63u) != 0) return false;
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > limit_;
    }

    double limit() const noexcept { return limit_; }

private:
    double limit_;
    unsigned polls_ = 0;
    std::chrono::steady_clock::time_point start_{};
};

/// Ends the job for an operation blocked past its limit: prints the one line (see the top of
/// this header), gives the other ranks the grace period to print theirs, then MPI_Abort.
[[noreturn, gnu::cold]] inline void watchdog_fired(MPI_Comm comm, int rank, double limit_s, const blocked_op& op) {
    const std::string line =
        comet::detail::concat("comet: rank ", rank, ": watchdog: blocked for ", limit_s, " s in ", op.describe(), "; ending the job\n");
    std::fwrite(line.data(), 1, line.size(), stderr);  // one write: lines of ranks firing at once do not interleave
    std::fflush(stderr);
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(limit_s, 2.0)));
    MPI_Abort(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, 1);
    std::abort();  // MPI_Abort does not return
}

}  // namespace comet::mpi::detail
