// comet/core/types.hpp — the vocabulary every transport and kernel shares: ranks, tags,
// the status of a received message, and byte views of user data.
//
// Imports nothing of comet. Deliberately small: anything with behaviour lives elsewhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <ranges>
#include <span>
#include <type_traits>

namespace comet {

/// Matches a message from any sender in `recv`, `irecv` and `probe` (MPI_ANY_SOURCE, or
/// CoMet's "messages are matched by type only").
inline constexpr int any_source = -1;

/// Matches a message of any tag. CoMet itself always names the tag (its "message type").
inline constexpr int any_tag = -1;

/// The largest tag every transport must accept (MPI guarantees at least 32767 for MPI_TAG_UB).
inline constexpr int max_tag = 32767;
/// Tags from here to `max_tag` are comet's own message space: its kernels and the portable
/// collectives of `comet/algorithms/` use them, so an application that keeps its tags below
/// this never has a message taken by a kernel running beside it, nor takes one of theirs.
/// Within it (offsets from here): +1 .. +5 echo/pairwise, collectives, contention, overlap,
/// commtest (+5 .. +7); +100 .. +499 the nonblocking-collective engine (nbc/engine.hpp); +500 ..
/// +503 the matrix operations; +600 .. +619 the NIST applications; +620 the tracing decorator's
/// collection; the top of the range the portable collectives and the timing engine.
inline constexpr int first_reserved_tag = 32000;

/// The largest message every transport must accept: MPI counts are `int`.
inline constexpr std::size_t max_message_size = static_cast<std::size_t>(std::numeric_limits<int>::max());

/// What a completed receive (or a probe) reports: who sent it, with which tag, and how many
/// bytes it carried. A completed send reports its destination, tag and size.
struct status {
    int source = any_source;
    int tag = any_tag;
    std::size_t size = 0;

    friend bool operator==(const status&, const status&) = default;
};

/// A received message's time on the wire, where a transport knows it (the simulators): its
/// packets' time on the physical medium summed (no waiting for channels), and the span from the
/// first one's start to the last one's end, in seconds of the transport's clock.
struct wire_span {
    double seconds = 0.0;
    double from = 0.0, to = 0.0;

    friend bool operator==(const wire_span&, const wire_span&) = default;
};

/// Read-only bytes handed to a send.
using const_bytes = std::span<const std::byte>;
/// Writable bytes a receive fills.
using mutable_bytes = std::span<std::byte>;

/// The bytes of a contiguous range of trivially copyable values, for sending.
/// @code
///   std::vector<double> v(100);
///   t.send(1, 7, comet::bytes_of(v));
/// @endcode
template <class Range>
    requires std::is_trivially_copyable_v<std::ranges::range_value_t<Range>> &&
             std::ranges::contiguous_range<Range>
const_bytes bytes_of(const Range& r) noexcept {
    return std::as_bytes(std::span(std::ranges::data(r), std::ranges::size(r)));
}

/// The bytes of a contiguous range of trivially copyable values, for receiving into.
template <class Range>
    requires std::is_trivially_copyable_v<std::ranges::range_value_t<Range>> &&
             std::ranges::contiguous_range<Range>
mutable_bytes writable_bytes_of(Range& r) noexcept {
    return std::as_writable_bytes(std::span(std::ranges::data(r), std::ranges::size(r)));
}

}  // namespace comet
