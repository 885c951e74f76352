// comet/transport/mpi/bsend.hpp — the buffer MPI_Bsend copies into (MPI_Buffer_attach,
// MPI-3.1 §3.6), as the MPI transport's `bsend` and `reserve_bsend` keep it.
//
// The transport attaches one on the first `bsend` (unless the program attached its own, which
// is then used) and never lets MPI_Bsend find it full. MPI does not say when a buffered message
// has left, so the transport counts every byte buffered since it attached (message,
// MPI_BSEND_OVERHEAD and alignment): a message that would not fit that count goes as a copy of
// its own instead (sent_copies.hpp), and `reserve_bsend` makes room beforehand by detaching —
// which waits until the messages buffered so far have been sent, as MPI says — and attaching
// again, larger if the messages need it. (A failed MPI_Bsend is not an error one can recover
// from: Open MPI 4.1's ob1 has then spent the message's sequence number, and the peer waits for
// it forever.)
//
// Part of the MPI transport (comet/transport/mpi.hpp); not meant to be used on its own.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/transport/mpi/environment.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <limits>

namespace comet::mpi::detail {

/// The buffer MPI_Bsend copies into, one per process (MPI attaches one per process, MPI-3.1
/// §3.6). Deliberately never freed: MPI_Finalize detaches it, after every static destructor a
/// program may run MPI_Finalize from.
struct bsend_buffer {
    std::byte* storage = nullptr;
    std::size_t capacity = 0;
    std::size_t used = 0;   ///< bytes buffered since comet attached it (an upper bound on those in it)
    bool ours = false;      ///< attached by comet (else the program attached its own, or none yet)
    bool looked = false;    ///< the first bsend has tried to attach one
};
inline bsend_buffer& the_bsend_buffer() {
    static bsend_buffer* b = new bsend_buffer;
    return *b;
}

/// What one buffered message of `bytes` takes of the attached buffer: MPI_BSEND_OVERHEAD
/// and, for the allocator's alignment, 64 bytes more.
inline std::size_t bsend_charge(std::size_t bytes) noexcept { return bytes + static_cast<std::size_t>(MPI_BSEND_OVERHEAD) + 64; }

/// Makes comet's attached buffer hold `messages` more messages totalling `bytes` beside
/// those buffered since it was attached: attaches one (at least 4 MiB) on the first call, or
/// detaches (waiting for the buffered messages to be sent) and attaches one large enough
/// when they would not fit. A buffer the program attached is left as it is. Errors name `rank`.
inline void make_bsend_room(int rank, std::size_t messages, std::size_t bytes) {
    bsend_buffer& b = the_bsend_buffer();
    const std::size_t need = bytes + messages * bsend_charge(0);
    if (b.looked && (!b.ours || b.used + need <= b.capacity)) return;
    if (b.ours) {
        void* old = nullptr;
        int size = 0;
        check(MPI_Buffer_detach(&old, &size), rank, "bsend: MPI_Buffer_detach");
        b.used = 0;
        if (need <= b.capacity) {  // empty now, and large enough: attach it again
            check(MPI_Buffer_attach(b.storage, static_cast<int>(b.capacity)), rank, "bsend: MPI_Buffer_attach");
            return;
        }
        delete[] b.storage;
        b.storage = nullptr;
        b.ours = false;
    }
    const std::size_t capacity = std::max({need, b.capacity, std::size_t{4} << 20});
    if (capacity > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        raise<invalid_argument>(rank, "bsend: ", messages, " messages of ", bytes, " bytes need a buffer of ", capacity,
                                " bytes, over MPI's int limit");
    auto* storage = new std::byte[capacity];
    b.looked = true;
    // An attach that fails (a buffer is attached already) is reported on MPI_COMM_WORLD,
    // whose handler ends the job by default: returned for this one call.
    MPI_Errhandler world = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int rc = MPI_Buffer_attach(storage, static_cast<int>(capacity));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, world);
    MPI_Errhandler_free(&world);
    if (rc != MPI_SUCCESS) {
        delete[] storage;  // the program attached its own: MPI_Bsend uses that one
        return;
    }
    b.storage = storage;
    b.capacity = capacity;
    b.used = 0;
    b.ours = true;
}

}  // namespace comet::mpi::detail
