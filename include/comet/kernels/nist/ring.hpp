// comet/kernels/nist/ring.hpp — the NIST ring: high interdependencies (seed 003, section 3.1,
// figure 1; settings CM-Ring and CP-Ring of table I and tables A1-A2).
//
// Every node originates `messages` messages, one at a time; each circles the ring once, is
// processed by every node on its way (the originator computes on its data when it creates it,
// every other node when it arrives) and is removed by its originator when it comes back, which
// then sends its next. Every hop is acknowledged one to one, the seed's flow control: a node
// does not send its successor another message before the previous one was acknowledged, and a
// node acknowledges a message once it has processed it, so no more than one unprocessed message
// from its predecessor ever waits at a node. Data flows one way; on a power-of-two group the
// ring follows the binary-reflected Gray code, so that successive nodes are hypercube neighbours
// (the seed: "all communications are between physically neighboring nodes"); other group sizes
// use rank order.
#pragma once

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_NIST_RING

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/kernels/nist/common.hpp>
#include <comet/ops/ops.hpp>
#include <comet/topology/hypercube.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace comet::kernels::nist {

/// Configuration of `ring`. All ranks pass the same values (@pre; checked).
/// The defaults are the CM-Ring setting (`ring_setting(setting::cm)`).
struct ring_config {
    /// Messages each node originates. The seed's 16-node runs counted 35,808 (CM) and 5,088 (CP)
    /// user messages, within 32 of 16 nodes x 16 hops x 140 and x 20.
    std::uint64_t messages = 140;
    /// Length of a data message: a 40-byte header, then the data items (4 bytes each, the seed's
    /// integers), then padding. Must hold at least the header and the items.
    std::size_t message_bytes = 40 + 4 * 128;
    /// Flops (multiply-adds: the seed's integer multiplications) per data item processed.
    std::uint64_t work_per_datum = 1;
    /// Flops a data item costs besides (common.hpp: not in the grain, charged as computation).
    std::uint64_t bookkeeping_per_datum = 2;
    /// Data items a message carries; every node processes all of them.
    std::uint64_t items_per_message = 128;
    /// The message tag (data and acknowledgements), in comet's reserved range.
    int tag = ring_tag;
};

/// Bytes of a ring message's header (kind, originator, sequence, visits, signature, checksum).
inline constexpr std::size_t ring_header_bytes = 40;

/// The seed's CM-Ring and CP-Ring. The grain (table I: 128 and 12,800 datum operations between
/// communication points) is items_per_message x work_per_datum: both settings carry 128 items
/// in the same message, and CP computes 100 operations on each where CM computes one (the seed
/// adjusts granularity through the computation per datum). Message counts: see `messages`.
///
/// What a datum cost (common.hpp), at 3.875 us an operation, a node processing messages x 16
/// nodes x 128 items:
///   CM (table A1): U_1 = 3.05 s / (140 x 16 x 128 = 286,720 items) = 10.64 us = 2.75 operations
///                  -> 3 a datum: the 1 of the grain + 2 of bookkeeping;
///   CP (table A2): U_1 = 24.68 s / (20 x 16 x 128 = 40,960 items) = 602.5 us = 155.5 operations
///                  -> 155 a datum: the 100 of the grain + 55 (the seed's multiplications took
///                  about 6.0 us each, not 3.875; the difference is charged here).
COMET_DECL ring_config ring_setting(setting s);

namespace detail {

inline constexpr std::uint32_t ring_data = 0x52444154;  // "RDAT"
inline constexpr std::uint32_t ring_ack = 0x5241434b;   // "RACK"
inline constexpr std::size_t ring_ack_bytes = 16;

/// What a node adds to the signature of every message it processes; the originator expects the
/// sum over all nodes, so a node that skipped the message or processed it twice is noticed.
constexpr std::uint64_t ring_mark(int rank) noexcept { return mix(0x52494e47u, static_cast<std::uint64_t>(rank), 1); }

/// The position of `rank` on the ring and the rank at a position.
struct ring_order {
    int nodes;
    bool gray_ring;
    int position(int rank) const noexcept {
        return gray_ring ? static_cast<int>(gray_inverse(static_cast<std::uint32_t>(rank))) : rank;
    }
    int at(int position) const noexcept {
        return gray_ring ? static_cast<int>(gray(static_cast<std::uint32_t>(position))) : position;
    }
};

}  // namespace detail

/// The NIST ring (seed 003, 3.1). Each rank originates `cfg.messages` messages, one at a time;
/// each circles the ring, processed by every node (`ops::compute(work::flops(items x
/// (work_per_datum + bookkeeping_per_datum)))`), and is checked and removed by its originator. Each hop is acknowledged.
///
/// Exact counts per rank (P ranks, M = messages): M x P data messages sent and as many received
/// (its own M come back, and it forwards the M x (P - 1) of the others), M x P acknowledgements
/// sent and as many received, M x P x items_per_message data items processed; in all
/// M x P^2 data messages.
///
/// Verification: each message carries (originator, sequence), the count of nodes that processed
/// it, the sum of their marks and a checksum of its data. Every node checks that a message comes
/// from its predecessor having been processed by exactly the nodes between its originator and
/// itself; the originator checks that its messages come back in order, processed by all P nodes
/// once each, data unchanged; acknowledgements must name the message last sent.
/// @pre every rank calls ring with the same config (checked: an allreduce before the start).
/// @throws invalid_argument (naming the field, the value and the rank) for fewer than 2 ranks,
///         zero messages or items, a message too short for its header and items or over
///         max_message_size, a bad tag, or ranks that disagree on the config;
///         comet::verification_error (naming the rank, the message and what differed) when a check fails.
/// @code
///   auto r = comet::kernels::nist::ring(t, comet::kernels::nist::ring_setting(comet::kernels::nist::setting::cp));
///   // r.elapsed: this rank's seconds; r.grain: 12800
/// @endcode
template <transport T>
application_result ring(T& t, const ring_config& cfg = {}) {
    using request = typename T::request;
    const int p = t.size();
    const int me = t.rank();
    constexpr std::string_view app = "ring";
    if (p < 2) raise<invalid_argument>(me, "ring: the group has ", p, " rank; a ring needs at least 2");
    if (cfg.messages == 0) raise<invalid_argument>(me, "ring: messages = 0; each node must originate at least 1");
    if (cfg.items_per_message == 0) raise<invalid_argument>(me, "ring: items_per_message = 0; a message carries at least 1 data item");
    if (cfg.items_per_message > (max_message_size - ring_header_bytes) / 4)
        raise<invalid_argument>(me, "ring: items_per_message = ", cfg.items_per_message, " do not fit a message of at most ",
                                max_message_size, " bytes");
    const std::size_t least = ring_header_bytes + 4 * static_cast<std::size_t>(cfg.items_per_message);
    if (cfg.message_bytes < least)
        raise<invalid_argument>(me, "ring: message_bytes = ", cfg.message_bytes, " cannot hold the ", ring_header_bytes,
                                "-byte header and ", cfg.items_per_message, " data items of 4 bytes (needs ", least, ")");
    if (cfg.message_bytes > max_message_size)
        raise<invalid_argument>(me, "ring: message_bytes = ", cfg.message_bytes, " exceeds the ", max_message_size, "-byte limit");
    detail::check_flops_per_slice(me, "ring", cfg.work_per_datum, cfg.bookkeeping_per_datum, "items_per_message", cfg.items_per_message);
    if (cfg.messages > (std::uint64_t{1} << 40) / static_cast<std::uint64_t>(p))
        raise<invalid_argument>(me, "ring: messages = ", cfg.messages, " is too many for ", p, " nodes");
    detail::check_tag(me, app, cfg.tag, 1);
    detail::check_same_config<T, 6>(
        t, app, {"messages", "message_bytes", "work_per_datum", "bookkeeping_per_datum", "items_per_message", "tag"},
        {static_cast<double>(cfg.messages), static_cast<double>(cfg.message_bytes), static_cast<double>(cfg.work_per_datum),
         static_cast<double>(cfg.bookkeeping_per_datum), static_cast<double>(cfg.items_per_message), static_cast<double>(cfg.tag)});

    const detail::ring_order order{p, is_power_of_two(static_cast<std::uint64_t>(p))};
    const int pos = order.position(me);
    const int succ = order.at((pos + 1) % p);
    const int pred = order.at((pos + p - 1) % p);
    const std::uint64_t m = cfg.messages;
    const std::uint64_t hops = m * static_cast<std::uint64_t>(p);  // data messages each way, and acks
    const std::uint64_t per_message = cfg.items_per_message * cfg.work_per_datum;
    const std::uint64_t bookkeeping = cfg.items_per_message * cfg.bookkeeping_per_datum;
    const std::size_t bytes = cfg.message_bytes;
    std::uint64_t all_marks = 0;
    for (int r = 0; r < p; ++r) all_marks += detail::ring_mark(r);

    application_result res;
    res.application = "ring";
    res.rank = me;
    res.nodes = p;
    res.message_bytes = bytes;

    const auto fail = [&](auto&&... what) { raise<comet::verification_error>(me, "ring: ", what...); };
    const auto process = [&] {
        if (per_message + bookkeeping != 0) ops::compute(t, work::flops(per_message + bookkeeping));
        res.data_items += cfg.items_per_message;
        res.work += per_message;
        res.bookkeeping += bookkeeping;
    };

    // Own messages: created one at a time (the next once the previous came back).
    std::uint64_t originated = 0, returned = 0;
    bool own_out = false;
    std::deque<std::vector<std::byte>> ready;  // processed, waiting for the link to the successor
    const auto originate = [&] {
        if (own_out || originated == m) return;
        std::vector<std::byte> msg(bytes);
        const std::span<std::byte> b(msg);
        const std::uint64_t seq = originated++;
        for (std::uint64_t i = 0; i < cfg.items_per_message; ++i)
            detail::put32(b, ring_header_bytes + 4 * i, static_cast<std::uint32_t>(detail::mix(static_cast<std::uint64_t>(me), seq, i)));
        detail::put32(b, 0, detail::ring_data);
        detail::put32(b, 4, static_cast<std::uint32_t>(me));
        detail::put64(b, 8, seq);
        detail::put64(b, 16, 1);                      // visits: the originator processes it first
        detail::put64(b, 24, detail::ring_mark(me));  // marks
        detail::put64(b, 32, detail::checksum(b.subspan(ring_header_bytes)));
        process();
        ready.push_back(std::move(msg));
        own_out = true;
    };

    // The link to the successor: one unacknowledged message at most.
    std::vector<std::byte> in_transit;
    request send_req;
    bool link_busy = false;
    std::uint32_t transit_origin = 0;
    std::uint64_t transit_seq = 0;

    // Acknowledgements sent, their buffers kept until the sends complete.
    struct ack_slot {
        std::array<std::byte, detail::ring_ack_bytes> b{};
        request r;
    };
    std::list<ack_slot> acks;
    const auto acknowledge = [&](std::uint32_t origin, std::uint64_t seq) {
        if (acks.size() >= 32) {  // bound the buffers kept: the oldest has long completed
            ops::wait(t, acks.front().r);
            acks.pop_front();
        }
        ack_slot& a = acks.emplace_back();
        detail::put32(a.b, 0, detail::ring_ack);
        detail::put32(a.b, 4, origin);
        detail::put64(a.b, 8, seq);
        a.r = t.isend(pred, cfg.tag, const_bytes(a.b));
        ++res.control_sent;
    };

    // A receive is started only when the node has nothing else to do, as the seed's programs
    // called their blocking receive: so the time from its start to the matching send is the time
    // the node waited (the seed's logical delay), not time it spent computing with a receive
    // posted.
    std::uint64_t data_in = 0, acks_in = 0;
    std::vector<std::byte> rbuf(bytes);

    const double t0 = detail::start_together(t);
    originate();
    for (;;) {
        if (!link_busy && !ready.empty()) {
            in_transit = std::move(ready.front());
            ready.pop_front();
            transit_origin = detail::get32(in_transit, 4);
            transit_seq = detail::get64(in_transit, 8);
            send_req = t.isend(succ, cfg.tag, const_bytes(in_transit));
            link_busy = true;
            ++res.messages_sent;
        }
        if (returned == m && data_in == hops && acks_in == hops && !link_busy && ready.empty()) break;
        if (data_in == hops && acks_in == hops)
            fail("waits for a message none is left to send it (", returned, " of its ", m, " messages came back, ",
                 ready.size(), " wait to be sent)");
        const status st = ops::recv(t, any_source, cfg.tag, mutable_bytes(rbuf));
        const std::span<const std::byte> b(rbuf.data(), st.size);
        if (st.size < 16) fail("a ", st.size, "-byte message from rank ", st.source, " is shorter than any ring message");
        const std::uint32_t kind = detail::get32(b, 0);
        if (kind == detail::ring_ack) {
            ++acks_in;
            ++res.control_received;
            const std::uint32_t origin = detail::get32(b, 4);
            const std::uint64_t seq = detail::get64(b, 8);
            if (st.source != succ || !link_busy || origin != transit_origin || seq != transit_seq)
                fail("acknowledgement from rank ", st.source, " of message ", seq, " of rank ", origin, " does not match the one ",
                     link_busy ? "sent" : "(none)", " to successor ", succ, " (message ", transit_seq, " of rank ", transit_origin, ")");
            ops::wait(t, send_req);
            link_busy = false;
            continue;
        }
        if (kind != detail::ring_data)
            fail("message from rank ", st.source, " has kind ", kind, ", neither data nor acknowledgement");
        ++data_in;
        ++res.messages_received;
        ++res.communication_points;
        if (st.source != pred) fail("data message from rank ", st.source, ", not from predecessor ", pred);
        if (st.size != bytes) fail("data message from rank ", st.source, " has ", st.size, " bytes, not ", bytes);
        const std::uint32_t origin = detail::get32(b, 4);
        const std::uint64_t seq = detail::get64(b, 8);
        const std::uint64_t visits = detail::get64(b, 16);
        const std::uint64_t marks = detail::get64(b, 24);
        if (origin >= static_cast<std::uint32_t>(p))
            fail("data message from rank ", st.source, " names originator ", origin, ", outside the ", p, " ranks");
        if (static_cast<int>(origin) == me) {
            ++res.verified_messages;
            if (seq != returned) fail("its message ", seq, " came back where message ", returned, " was due");
            if (visits != static_cast<std::uint64_t>(p))
                fail("its message ", seq, " came back processed ", visits, " times, not once by each of the ", p, " nodes");
            if (marks != all_marks)
                fail("its message ", seq, " came back processed ", p, " times but not once by each node (marks ", marks,
                     ", expected ", all_marks, ")");
            if (detail::checksum(b.subspan(ring_header_bytes)) != detail::get64(b, 32))
                fail("its message ", seq, " came back with its data changed (checksum differs)");
            ++returned;
            own_out = false;
            acknowledge(origin, seq);
            originate();
            continue;
        }
        const auto expected_visits = static_cast<std::uint64_t>((pos - order.position(static_cast<int>(origin)) + p) % p);
        if (visits != expected_visits || seq >= m)
            fail("message ", seq, " of rank ", origin, " arrived processed by ", visits, " nodes; the ", expected_visits,
                 " nodes from its originator to here should have processed it (and it sends ", m, ")");
        std::vector<std::byte> msg(rbuf.begin(), rbuf.begin() + static_cast<std::ptrdiff_t>(bytes));
        process();
        detail::put64(msg, 16, visits + 1);
        detail::put64(msg, 24, marks + detail::ring_mark(me));
        acknowledge(origin, seq);
        ready.push_back(std::move(msg));
    }
    for (ack_slot& a : acks) ops::wait(t, a.r);
    res.elapsed = detail::stop_here(t) - t0;
    res.control_received = acks_in;
    res.grain = res.communication_points ? static_cast<double>(res.work) / static_cast<double>(res.communication_points) : 0.0;
    return res;
}

}  // namespace comet::kernels::nist

#if !defined(COMET_COMPILED)
#include <comet/kernels/nist/ring.ipp>
#endif
