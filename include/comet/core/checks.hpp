// comet/core/checks.hpp — the argument checks every transport makes before it starts an
// operation, written once: a rank outside the group, a tag outside 0..max_tag (receives also take
// any_source / any_tag), a message over `max_message_size`. Each raises `invalid_argument` with
// one line naming this rank, the operation and the value ("rank 2: isend: tag -5 is outside
// 0..32767"). Kept out of line of the fast path: the checks are two compares on the good path.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>

#include <cstddef>
#include <string>

namespace comet::detail {

/// `r` must be a rank of a group of `size` (checked on rank `me`, for operation `what`).
inline void check_peer(int me, int size, int r, const char* what) {
    if (r < 0 || r >= size) [[unlikely]]
        raise<invalid_argument>(me, what, ": rank ", r, " is outside 0..", size - 1);
}

/// A send's destination, tag and size.
inline void check_send(int me, int size, int dest, int tag, std::size_t bytes, const char* what) {
    check_peer(me, size, dest, what);
    if (tag < 0 || tag > max_tag) [[unlikely]]
        raise<invalid_argument>(me, what, ": tag ", tag, " is outside 0..", max_tag);
    if (bytes > max_message_size) [[unlikely]]
        raise<invalid_argument>(me, what, ": message of ", bytes, " bytes exceeds the ", max_message_size, "-byte limit");
}

/// A receive's (or probe's) source and tag, either of which may be a wildcard.
inline void check_recv(int me, int size, int source, int tag, const char* what) {
    if (source != any_source) check_peer(me, size, source, what);
    if (tag != any_tag && (tag < 0 || tag > max_tag)) [[unlikely]]
        raise<invalid_argument>(me, what, ": tag ", tag, " is outside 0..", max_tag, " (or any_tag)");
}

/// The text of the truncation_error of a receive on rank `me` for (`want_source`, `want_tag`),
/// into `capacity` bytes, of the `size`-byte message from `source` with `tag`: the one line every
/// transport raises.
[[gnu::cold]] inline std::string truncated_text(int me, int want_source, int want_tag, std::size_t size, int source, int tag,
                                               std::size_t capacity) {
    return concat("rank ", me, ": recv from ", want_source == any_source ? "any rank" : "rank " + std::to_string(want_source),
                  " (", want_tag == any_tag ? "any tag" : "tag " + std::to_string(want_tag), "): the ", size,
                  "-byte message from rank ", source, " (tag ", tag, ") does not fit the ", capacity, "-byte buffer");
}

}  // namespace comet::detail
