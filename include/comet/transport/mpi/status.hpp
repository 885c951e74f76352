// comet/transport/mpi/status.hpp — MPI's envelopes and receive errors in comet's terms: a
// status from an MPI_Status, comet's wildcards as MPI spells them, a buffer's size as an MPI
// count, and what a failed receive raises.
//
// A receive that MPI ends with MPI_ERR_TRUNCATE raises truncation_error naming this rank, the
// receive's source and tag, the message's size and the buffer's. Open MPI reports the whole
// message's size in the status; an MPI that reports only the bytes it received says nothing of
// the message's size, and the error says so. (Open MPI 4.1 writes such a message past the
// buffer's end before it reports the error on some paths: docs/transports.md, "Truncation and
// Open MPI 4.1"; the transport's guard, guard.hpp, avoids it.)
//
// Part of the MPI transport (comet/transport/mpi.hpp); not meant to be used on its own.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/transport/mpi/environment.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <ostream>
#include <string>

namespace comet::mpi::detail {

/// MPI counts are int; a receive buffer beyond that can only ever hold that much.
inline int count_of(std::size_t n) noexcept { return static_cast<int>(std::min(n, max_message_size)); }

inline int mpi_source(int source) noexcept { return source == any_source ? MPI_ANY_SOURCE : source; }
inline int mpi_tag(int tag) noexcept { return tag == any_tag ? MPI_ANY_TAG : tag; }

inline status status_of(const MPI_Status& st) noexcept {
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    return status{st.MPI_SOURCE, st.MPI_TAG, static_cast<std::size_t>(n < 0 ? 0 : n)};
}

/// "rank 3" or "any rank", "tag 7" or "any tag", formatted only when an error is printed.
struct source_name {
    int rank;
    friend std::ostream& operator<<(std::ostream& os, source_name n) {
        return n.rank == any_source ? os << "any rank" : os << "rank " << n.rank;
    }
};
struct tag_name {
    int tag;
    friend std::ostream& operator<<(std::ostream& os, tag_name n) { return n.tag == any_tag ? os << "any tag" : os << "tag " << n.tag; }
};

/// The text of the truncation_error of receive `what` on `rank` from `source` with `tag`, into
/// `capacity` bytes, of the message whose status is `got`.
inline std::string truncated(int rank, const char* what, int source, int tag, const status& got, std::size_t capacity) {
    // Open MPI's status counts the whole message; an MPI that counts only what it wrote
    // reports no more than the buffer, which says nothing of the message's size.
    if (got.size > capacity)
        return comet::detail::concat("rank ", rank, ": ", what, " from ", source_name{source}, " (", tag_name{tag}, "): the ",
                                     got.size, "-byte message from rank ", got.source, " (tag ", got.tag, ") does not fit the ",
                                     capacity, "-byte buffer");
    return comet::detail::concat("rank ", rank, ": ", what, " from ", source_name{source}, " (", tag_name{tag},
                                 "): a message from rank ", got.source, " (tag ", got.tag, ") is longer than the ", capacity,
                                 "-byte buffer (MPI_ERR_TRUNCATE; MPI did not report its size)");
}

/// A receive (what) on `rank` from `source` with `tag` into `capacity` bytes failed with `rc`:
/// raises truncation_error for MPI_ERR_TRUNCATE, comet::error with MPI's text otherwise.
[[noreturn]] inline void receive_failed(int rank, const char* what, int source, int tag, std::size_t capacity, int rc,
                                        const MPI_Status& st) {
    if (error_class(rc) == MPI_ERR_TRUNCATE) {
        const status got = status_of(st);
        throw truncation_error(truncated(rank, what, source, tag, got, capacity));
    }
    raise<error>(rank, what, " from ", source_name{source}, " (", tag_name{tag}, "): ", error_text(rc));
}

}  // namespace comet::mpi::detail
