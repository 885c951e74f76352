// comet/transport/mpi/sent_copies.hpp — messages the MPI transport sends as copies of their own,
// by MPI_Isend, each copy kept until MPI has sent it: a blocking `send` to the rank itself, and
// a `bsend` that the attached buffer has no room for (bsend.hpp).
//
// Sending to oneself. `send(rank(), ...)` followed by `recv(rank(), ...)` works for every size.
// MPI_Send to oneself returns only once MPI has buffered the message or the receive has matched
// it, and that receive can only be posted afterwards by the same caller: an "unsafe" program
// (MPI-3.1 §3.5) that works while MPI sends eagerly — Open MPI 4.1's `self` path up to 968
// bytes — and waits forever beyond. So the transport copies the message and starts MPI_Isend on
// the copy; it frees the copies sent so far at the next such send, and leaks, on purpose, any
// still unreceived when it is destroyed (MPI may still read them). The copy costs only such
// sends (one compare on every other); no kernel times a message to its own rank. `ssend` to
// oneself still needs a receive posted beforehand (irecv), as in MPI.
//
// Part of the MPI transport (comet/transport/mpi.hpp); not meant to be used on its own.
#pragma once

#include <comet/core/types.hpp>
#include <comet/transport/mpi/environment.hpp>

#include <mpi.h>

#include <cstddef>
#include <iterator>
#include <list>
#include <utility>
#include <vector>

namespace comet::mpi::detail {

/// The copies one transport has sent by MPI_Isend and MPI may still read.
class sent_copies {
public:
    /// Sends a copy of `data` to `dest` with `tag` on `comm` by MPI_Isend and returns; the copy
    /// is kept until MPI has sent it. An error names `rank` and the operation `what`.
    void send(MPI_Comm comm, int rank, int dest, int tag, const_bytes data, const char* what) {
        collect();
        copy& s = copies_.emplace_back();
        s.bytes.assign(data.begin(), data.end());
        const int rc = MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_BYTE, dest, tag, comm, &s.sending);
        if (rc != MPI_SUCCESS) [[unlikely]] {
            copies_.pop_back();
            check(rc, rank, what, " to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes): MPI_Isend of a copy");
        }
    }

    /// Frees the copies that MPI has sent.
    void collect() noexcept {
        for (auto it = copies_.begin(); it != copies_.end();) {
            int done = 0;
            if (MPI_Test(&it->sending, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) done = 1;  // failed: MPI is done with it
            it = done ? copies_.erase(it) : std::next(it);
        }
    }

    /// For the transport's destructor, while MPI runs: frees the copies sent, and leaks the
    /// rest — a message sent to this rank itself and never received: MPI may still read its copy.
    void leave() {
        collect();
        if (!copies_.empty()) new std::list<copy>(std::move(copies_));  // deliberately leaked
    }

private:
    /// A message sent as a copy: the copy MPI sends from, and its MPI_Isend.
    struct copy {
        std::vector<std::byte> bytes;
        MPI_Request sending = MPI_REQUEST_NULL;
    };
    std::list<copy> copies_;  ///< a list: a copy never moves while MPI reads it
};

}  // namespace comet::mpi::detail
