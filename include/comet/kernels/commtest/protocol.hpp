// comet/kernels/commtest/protocol.hpp — the SWAP protocols of PSTSWM that COMMTEST measures
// (Worley; the tables of seed 001): ten unordered ones, (0,0)..(0,9), in which both processors
// send at once ("ping-ping"), and eleven ordered ones, (1,0)..(1,10), in which the first
// processor sends, the second receives and answers ("ping-pong").
//
// Each protocol is the MPI calls its table names, as comet's operations: bsend, isend, irecv,
// send, recv, rsend, irsend, sendrecv, ssend, issend and their waits. What the tables leave out
// is said here, because it is part of what is measured:
// - ready sends ((0,4), (0,5), (1,4), (1,5)) need their receive posted before the send starts
//   (MPI-3.1 §3.4). The receiving side posts its receive (irecv, even where the table shows a
//   blocking RECV) and tells the sender so by a zero-byte message; the sender receives it before
//   its ready send. These handshakes are inside the timed exchange (records: `handshake` "yes").
// - (1,6) "synchronous" is drawn with the second processor's RECV before the first's SEND and
//   the second's SEND before the first's RECV: the second posts its receive and tells the first
//   by the same zero-byte handshake, the first then sends; the answer travels without one.
// A protocol needing an operation a transport does not offer (core/concepts.hpp: bsend, rsend,
// sendrecv, ssend) is never replaced by another: `supports<T>(p)` is false, the code calling
// that operation is not even instantiated for `T`, and the kernel reports "not supported".
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/concepts.hpp>

#include <array>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>

namespace comet::kernels::commtest {

/// A SWAP protocol: (ordered, variant), written "(0,3)".
struct protocol {
    int ordered = 0;  ///< 0: unordered (both send at once), 1: ordered (send, then answer)
    int variant = 0;  ///< 0..9 unordered, 0..10 ordered
    friend constexpr bool operator==(const protocol&, const protocol&) = default;
};

/// Every protocol of the seed, unordered first.
inline constexpr std::array<protocol, 21> all_protocols = {
    protocol{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}, {0, 8}, {0, 9},  //
    {1, 0},         {1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}, {1, 7}, {1, 8}, {1, 9}, {1, 10}};

constexpr bool is_valid(protocol p) noexcept {
    return (p.ordered == 0 && p.variant >= 0 && p.variant <= 9) || (p.ordered == 1 && p.variant >= 0 && p.variant <= 10);
}

COMET_DECL std::string to_string(protocol p);

/// "(0,3)" (spaces allowed around the numbers) to a protocol of the seed, or nothing.
COMET_DECL std::optional<protocol> parse_protocol(std::string_view text);

/// The seed's name of a protocol.
constexpr std::string_view name_of(protocol p) noexcept {
    constexpr std::array<std::string_view, 10> unordered = {
        "simple", "nonblocking send", "nonblocking receive", "nonblocking send and receive", "ready send",
        "nonblocking ready send", "native sendrecv", "nonblocking sync. send", "sync. send and nonblocking receive",
        "nonblocking sync. send and receive"};
    constexpr std::array<std::string_view, 11> ordered = {
        "simple", "nonblocking send", "nonblocking receive", "nonblocking send and receive", "ready send",
        "nonblocking ready send", "synchronous", "nonblocking sync. send", "sync. send and nonblocking receive",
        "nonblocking sync. send and receive", "sync. send"};
    if (!is_valid(p)) return "?";
    return p.ordered ? ordered[static_cast<std::size_t>(p.variant)] : unordered[static_cast<std::size_t>(p.variant)];
}

/// How one side of a protocol sends a message.
enum class send_op : unsigned char { send, bsend, isend, rsend, irsend, ssend, issend, sendrecv };

constexpr bool is_nonblocking(send_op s) noexcept { return s == send_op::isend || s == send_op::irsend || s == send_op::issend; }

/// What one processor of a protocol does for each message.
struct side {
    send_op send = send_op::send;
    bool recv_nonblocking = false;  ///< irecv before the send, waited after it (else a blocking recv)
    bool recv_first = false;        ///< the receive completes before the send starts (ordered, second processor)
    bool tells = false;             ///< posts its receive, then sends the partner a zero-byte handshake
    bool waits = false;             ///< receives the partner's handshake before its send
};

/// The side `first` (processor 1: the lower rank of the pair) or the second plays in `p`.
/// @pre is_valid(p)
constexpr side side_of(protocol p, bool first) noexcept {
    if (!p.ordered) {
        switch (p.variant) {
        case 0: return {send_op::bsend};
        case 1: return {send_op::isend};
        case 2: return {send_op::send, true};
        case 3: return {send_op::isend, true};
        case 4: return {send_op::rsend, true, false, true, true};
        case 5: return {send_op::irsend, true, false, true, true};
        case 6: return {send_op::sendrecv};
        case 7: return {send_op::issend};
        case 8: return {send_op::ssend, true};
        default: return {send_op::issend, true};
        }
    }
    // The second processor receives, then answers with the send its column of the table names.
    constexpr std::array<send_op, 11> answer = {send_op::send,  send_op::send,  send_op::send,  send_op::send,
                                                send_op::rsend, send_op::rsend, send_op::send,  send_op::ssend,
                                                send_op::ssend, send_op::ssend, send_op::ssend};
    const auto v = static_cast<std::size_t>(p.variant);
    const bool ready = p.variant == 4 || p.variant == 5;
    if (!first) return {answer[v], false, true, ready || p.variant == 6, ready};
    switch (p.variant) {
    case 0: return {send_op::send};
    case 1: return {send_op::isend};
    case 2: return {send_op::send, true};
    case 3: return {send_op::isend, true};
    case 4: return {send_op::rsend, true, false, true, true};
    case 5: return {send_op::irsend, true, false, true, true};
    case 6: return {send_op::send, false, false, false, true};
    case 7: return {send_op::issend};
    case 8: return {send_op::ssend, true};
    case 9: return {send_op::issend, true};
    default: return {send_op::ssend};
    }
}

/// Whether `p` exchanges zero-byte handshakes (ready sends, (1,6)).
constexpr bool has_handshake(protocol p) noexcept { return side_of(p, true).waits || side_of(p, false).waits; }

/// Whether transport type `T` offers `op`.
template <transport T>
constexpr bool offers(send_op op) noexcept {
    switch (op) {
    case send_op::bsend: return buffered_send_transport<T>;
    case send_op::rsend:
    case send_op::irsend: return ready_send_transport<T>;
    case send_op::ssend:
    case send_op::issend: return synchronous_send_transport<T>;
    case send_op::sendrecv: return sendrecv_transport<T>;
    default: return true;
    }
}

/// Whether transport type `T` runs protocol `p` as its table says.
template <transport T>
constexpr bool supports(protocol p) noexcept {
    return is_valid(p) && offers<T>(side_of(p, true).send) && offers<T>(side_of(p, false).send);
}

/// Why `T` cannot run `p` ("not supported: the transport has no ready send (rsend, irsend)"),
/// or an empty string.
template <transport T>
std::string unsupported_reason(protocol p) {
    for (bool first : {true, false}) {
        const send_op op = side_of(p, first).send;
        if (offers<T>(op)) continue;
        switch (op) {
        case send_op::bsend: return "not supported: the transport has no buffered send (bsend)";
        case send_op::rsend:
        case send_op::irsend: return "not supported: the transport has no ready send (rsend, irsend)";
        case send_op::ssend:
        case send_op::issend: return "not supported: the transport has no synchronous send (ssend, issend)";
        case send_op::sendrecv: return "not supported: the transport has no sendrecv";
        default: break;
        }
    }
    return {};
}

}  // namespace comet::kernels::commtest

#if !defined(COMET_COMPILED)
#include <comet/kernels/commtest/protocol.ipp>
#endif
