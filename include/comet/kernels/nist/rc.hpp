// comet/kernels/nist/rc.hpp — the NIST random communication (RC) application: low dependencies
// (seed 003, section 3.2, figure 2; settings CM-RC and CP-RC of table I and tables A5-A6).
//
// A pool of nodes, each starting with the same amount of work: `initial_items` data items (32-bit
// values drawn from a seeded hash). A node processes its items in order; some values are
// "special" (one in `dispatch_frequency`, on average), and a node meeting one yields part of its
// work to another node chosen from that value ("randomly chooses (based upon data values) a
// destination node and determines how much to dispatch"): a share of its pool the value also
// decides, up to `dispatch_share` of it (or, with a share of 0, `items_per_chunk` items). Work
// travels as ranges of items (the node that created them, the first index, the count: the
// values follow from them), so a message's length does not grow with the work it carries; it is
// `message_bytes` long, or longer when it holds more ranges than fit. While it works, a node
// checks its message queue with `iprobe` every `check_interval` items (and after every special
// value), receiving new work, which it appends to its pool, and acknowledgements. Flow control:
// at most `window` work messages of a node are unacknowledged at once; a dispatch that finds the
// window full waits, while the node goes on processing, until an acknowledgement frees it; one
// that finds no work left to give sends nothing. A node whose pool is empty waits for a message.
// Work messages are acknowledged as soon as they are received.
//
// Termination detection is Safra's token algorithm (Dijkstra, EWD 998): every node counts work
// messages sent minus received and turns black when it receives one; a token goes round the ring
// 0 -> 1 -> ... -> P-1 -> 0, held by a node until it is passive (no work left and every work
// message it sent acknowledged), collecting the counts and the colours. Rank 0 concludes that
// the whole pool is idle with no work in flight when the token comes back white to a white rank
// 0 and the counts sum to zero; it then tells every other node to stop. Correct for any message
// delays and orders; a round that fails starts another.
#pragma once

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_NIST_RC

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/hash.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/kernels/nist/common.hpp>
#include <comet/ops/ops.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace comet::kernels::nist {

/// Configuration of `rc`. All ranks pass the same values (@pre; checked).
/// The defaults are the CM-RC setting (`rc_setting(setting::cm)`).
struct rc_config {
    /// Data items each node starts with. 320,000 on 16 nodes with a special value every 383
    /// items makes about 13,370 work messages, the seed's CM-RC count (table A5: 13,374).
    std::uint64_t initial_items = 320000;
    /// The most a dispatch yields, as a share of the dispatching node's pool (0 < share <= 1): each
    /// dispatch yields u x share of it, u in (0, 1] drawn from the special value that asked for
    /// it (at least 1 item). The seed says a node "determines how much to dispatch" from its
    /// data, not how; 1, any share of what it has alike, is the reading that adds nothing to
    /// it (an assumption; docs/nist.md gives the study at 0, 0.25, 0.5 and 1). 0: every
    /// dispatch yields `items_per_chunk` items instead.
    double dispatch_share = 1.0;
    /// Data items a dispatch yields when `dispatch_share` is 0 (fewer when the pool holds fewer).
    std::uint64_t items_per_chunk = 64;
    /// Length of a work message: a 32-byte header and 20 bytes per range of items it carries (at
    /// most `rc_ranges_per_message`), padded to this. The default is what 64 items of 4 bytes
    /// and the header take.
    std::size_t message_bytes = 32 + 4 * 64;
    /// One value in this many is special and asks for a dispatch (>= 1; 1: every item).
    std::uint64_t dispatch_frequency = 383;
    /// Flops (the seed's integer multiplications) per data item processed.
    std::uint64_t work_per_datum = 1;
    /// Flops a data item costs besides (common.hpp: not in the grain, charged as computation):
    /// in the seed's program, drawing the value that decides whether the item is dispatched and
    /// where, and taking it from and keeping the pool.
    std::uint64_t bookkeeping_per_datum = 16;
    /// Work messages a node may have unacknowledged at once.
    std::uint64_t window = 4;
    /// Items processed between two checks of the message queue (iprobe).
    std::uint64_t check_interval = 1000;
    /// Seed of the data values (each node's are drawn from (seed, rank, index)).
    std::uint64_t seed = 1;
    /// The message tag (work, acknowledgements, token, stop), in comet's reserved range.
    int tag = rc_tag;
};

/// Bytes of an RC message's header (kind, sender, two fields, checksum); a work message adds 20
/// bytes per range of items (the creating rank: 4, the first index: 8, the count: 8).
inline constexpr std::size_t rc_header_bytes = 32;
inline constexpr std::size_t rc_range_bytes = 20;
/// The most ranges a work message carries: a dispatch that would need more yields less.
inline constexpr std::size_t rc_ranges_per_message = 16;

/// The seed's CM-RC and CP-RC. Each item is one datum operation in both; the grain (table I: 383
/// and 17,430 datum operations between communication points, averages) comes from how often a
/// value is special: about every `dispatch_frequency` items a work message goes out, so the
/// grain is about dispatch_frequency x work_per_datum, a little more where dispatches are
/// skipped. Both settings start every node with the same work, as the seed's user times (21.7 s
/// and 16.1 s) suggest it did; CP-RC so sends about 45 times fewer messages.
///
/// What a datum cost (common.hpp), at 3.875 us an operation, a node processing on average the
/// 320,000 items each starts with (items move between nodes; none is made or lost):
///   CM (table A5): U_1 = 21.65 s / 320,000 items = 67.66 us = 17.46 operations
///                  -> 17 a datum: the 1 of the grain + 16 of bookkeeping;
///   CP (table A6): U_1 = 16.11 s / 320,000 items = 50.34 us = 12.99 operations
///                  -> 13 a datum: the 1 of the grain + 12.
/// The tables do not say why CM's datum cost more than CP's; CM dispatches 45 times as often,
/// and what a dispatch cost the program (choosing a share, building the message) is in its U
/// too. Each setting takes its own table's figure, spread over the items.
COMET_DECL rc_config rc_setting(setting s);

namespace detail {

inline constexpr std::uint32_t rc_work = 0x43574f52;   // "CWOR"
inline constexpr std::uint32_t rc_ack = 0x4341434b;    // "CACK"
inline constexpr std::uint32_t rc_token = 0x43544f4b;  // "CTOK"
inline constexpr std::uint32_t rc_stop = 0x4353544f;   // "CSTO"

/// The checksum an RC message carries in bytes 24..31: of everything else in it, so that a changed
/// byte anywhere, in a work message or a control message, is noticed.
inline std::uint64_t rc_checksum(std::span<const std::byte> b) noexcept {
    return checksum(b.subspan(rc_header_bytes), checksum(b.first(24)));
}

/// The value of item `index` that node `rank` starts with.
constexpr std::uint32_t rc_item(std::uint64_t seed, int rank, std::uint64_t index) noexcept {
    return static_cast<std::uint32_t>(mix(seed, static_cast<std::uint64_t>(rank), index));
}

/// Items `first` .. `first + count - 1` that node `origin` started with.
struct rc_range {
    std::uint32_t origin = 0;
    std::uint64_t first = 0, count = 0;
};

/// The share u in (0, 1] of `dispatch_share` that special value `v` dispatches: from bits of the
/// value that neither its being special nor its choice of destination uses.
constexpr double rc_share(std::uint64_t seed, std::uint32_t v) noexcept {
    return static_cast<double>((mix(seed, v, 0x5348415245) >> 11) + 1) * 0x1p-53;
}

/// Sums of the low and high 16 bits of the values seen: with the count, a fingerprint of a
/// multiset of items that a lost, duplicated or changed item disturbs, and whose sums across
/// ranks stay exact in the doubles an allreduce carries (65535 x 2^37 < 2^53).
struct rc_tally {
    std::uint64_t count = 0, low = 0, high = 0;
    void add(std::uint32_t v) noexcept {
        ++count;
        low += v & 0xffffu;
        high += v >> 16;
    }
};

}  // namespace detail

/// The NIST random communication application (seed 003, 3.2); see the file's comment for the
/// algorithm. Work goes through `ops::compute(work::flops(n x (work_per_datum +
/// bookkeeping_per_datum)))`, one call per slice of items processed between two checks of the queue.
///
/// Counts: the work messages a rank sends are the special values it met less the dispatches it
/// skipped; across the group, work messages sent = received = acknowledgements, and the items
/// processed = P x initial_items. Control messages: one acknowledgement per work message, P
/// token messages per round of the termination token, P - 1 stop notices from rank 0.
///
/// Verification: each message carries its sender and a checksum of all its bytes, and each work
/// message a per-destination sequence number; the receiver checks them (in order, once each,
/// unchanged), and an
/// acknowledgement must name the oldest unacknowledged message to its sender. At the end, one
/// allreduce (outside the timing) checks that the items processed, counted and fingerprinted,
/// are exactly the items created, and that work messages sent = received.
/// @pre every rank calls rc with the same config (checked: an allreduce before the start).
/// @throws invalid_argument (naming the field, the value and the rank) for fewer than 2 ranks, a
///         zero count, chunk, frequency, window or check interval, a frequency over 2^32, more
///         items than the fingerprint keeps exact, a bad tag, or ranks that disagree on the
///         config; comet::verification_error (naming the rank and what differed) when a check fails.
/// @code
///   auto r = comet::kernels::nist::rc(t, comet::kernels::nist::rc_setting(comet::kernels::nist::setting::cm));
///   // r.grain: about 383; r.messages_sent: this rank's work messages
/// @endcode
template <transport T>
application_result rc(T& t, const rc_config& cfg = {}) {
    using request = typename T::request;
    const int p = t.size();
    const int me = t.rank();
    constexpr std::string_view app = "rc";
    if (p < 2) raise<invalid_argument>(me, "rc: the group has ", p, " rank; random communication needs at least 2");
    if (cfg.initial_items == 0) raise<invalid_argument>(me, "rc: initial_items = 0; every node starts with some work");
    if (cfg.initial_items > (std::uint64_t{1} << 37) / static_cast<std::uint64_t>(p))
        raise<invalid_argument>(me, "rc: initial_items = ", cfg.initial_items, " on ", p,
                                " nodes is more than the 2^37 items whose fingerprint stays exact");
    if (!(cfg.dispatch_share >= 0.0 && cfg.dispatch_share <= 1.0))
        raise<invalid_argument>(me, "rc: dispatch_share = ", cfg.dispatch_share, " is outside 0..1");
    if (cfg.dispatch_share == 0.0 && cfg.items_per_chunk == 0)
        raise<invalid_argument>(me, "rc: items_per_chunk = 0 with dispatch_share = 0; a dispatch yields at least 1 item");
    if (cfg.message_bytes < rc_header_bytes + rc_range_bytes || cfg.message_bytes > max_message_size)
        raise<invalid_argument>(me, "rc: message_bytes = ", cfg.message_bytes, " is outside ", rc_header_bytes + rc_range_bytes,
                                "..", max_message_size, " (a header and one range of items at least)");
    if (cfg.dispatch_frequency == 0 || cfg.dispatch_frequency > (std::uint64_t{1} << 32))
        raise<invalid_argument>(me, "rc: dispatch_frequency = ", cfg.dispatch_frequency, " is outside 1..4294967296");
    if (cfg.window == 0) raise<invalid_argument>(me, "rc: window = 0; a node must be allowed 1 unacknowledged message");
    if (cfg.check_interval == 0) raise<invalid_argument>(me, "rc: check_interval = 0; a node processes at least 1 item between checks");
    if (cfg.work_per_datum > (std::uint64_t{1} << 24))
        raise<invalid_argument>(me, "rc: work_per_datum = ", cfg.work_per_datum, " is over 2^24 flops per item");
    if (cfg.bookkeeping_per_datum > (std::uint64_t{1} << 24))
        raise<invalid_argument>(me, "rc: bookkeeping_per_datum = ", cfg.bookkeeping_per_datum, " is over 2^24 flops per item");
    detail::check_tag(me, app, cfg.tag, 1);
    // The seed is compared in two 32-bit halves: a double holds 53 bits exactly, not 64.
    detail::check_same_config<T, 12>(
        t, app,
        {"initial_items", "items_per_chunk", "dispatch_frequency", "work_per_datum", "bookkeeping_per_datum", "window",
         "check_interval", "seed (high bits)", "seed (low bits)", "tag", "dispatch_share", "message_bytes"},
        {static_cast<double>(cfg.initial_items), static_cast<double>(cfg.items_per_chunk),
         static_cast<double>(cfg.dispatch_frequency), static_cast<double>(cfg.work_per_datum),
         static_cast<double>(cfg.bookkeeping_per_datum), static_cast<double>(cfg.window),
         static_cast<double>(cfg.check_interval), static_cast<double>(cfg.seed >> 32),
         static_cast<double>(cfg.seed & 0xffffffffu), static_cast<double>(cfg.tag), cfg.dispatch_share,
         static_cast<double>(cfg.message_bytes)});

    const auto up = static_cast<std::uint64_t>(p);
    const std::uint64_t f = cfg.dispatch_frequency;
    const std::size_t largest = std::max(cfg.message_bytes, rc_header_bytes + rc_range_bytes * rc_ranges_per_message);

    application_result res;
    res.application = "rc";
    res.rank = me;
    res.nodes = p;
    res.message_bytes = cfg.message_bytes;
    const auto fail = [&](auto&&... what) { raise<comet::verification_error>(me, "rc: ", what...); };

    // The pool: ranges of items, processed from the front, given away from the back; and the
    // fingerprints of what was created here and processed here.
    std::deque<detail::rc_range> pool{{static_cast<std::uint32_t>(me), 0, cfg.initial_items}};
    std::uint64_t pooled = cfg.initial_items;  // items in the pool
    detail::rc_tally created, processed;
    for (std::uint64_t i = 0; i < cfg.initial_items; ++i) created.add(detail::rc_item(cfg.seed, me, i));

    // Sends in flight, their buffers kept until they complete.
    struct pending {
        std::vector<std::byte> b;
        request r;
    };
    std::list<pending> sends;
    const auto send = [&](int dest, std::vector<std::byte> msg) {
        pending& s = sends.emplace_back();
        s.b = std::move(msg);
        s.r = t.isend(dest, cfg.tag, const_bytes(s.b));
    };
    const auto control = [&](int dest, std::uint32_t kind, std::uint64_t a, std::uint64_t b) {
        std::vector<std::byte> msg(rc_header_bytes);
        detail::put32(msg, 0, kind);
        detail::put32(msg, 4, static_cast<std::uint32_t>(me));
        detail::put64(msg, 8, a);
        detail::put64(msg, 16, b);
        detail::put64(msg, 24, detail::rc_checksum(msg));
        send(dest, std::move(msg));
        ++res.control_sent;
    };
    // Frees the buffers of sends already complete, oldest first, only once a few have gathered:
    // each test is a call into the transport (a system call on NX/2) and costs time, which a
    // test after every send would add to the application's.
    const auto reap = [&] {
        if (sends.size() < 32) return;
        while (!sends.empty() && t.test(sends.front().r)) sends.pop_front();
    };

    std::vector<std::uint64_t> seq_to(up, 0), seq_from(up, 0);
    std::vector<std::deque<std::uint64_t>> unacked_to(up);
    std::uint64_t unacked = 0;

    // Safra's termination detection.
    std::int64_t balance = 0;  // work messages sent - received
    bool black = false;
    bool token_held = me == 0, token_black = false, first_round = true;
    std::int64_t token_sum = 0;
    bool stopped = false;
    const int next = (me + 1) % p;
    const int prev = (me + p - 1) % p;

    const auto dispatch = [&](int dest, double share) {
        std::uint64_t n = cfg.dispatch_share > 0.0
                              ? static_cast<std::uint64_t>(std::ceil(share * cfg.dispatch_share * static_cast<double>(pooled)))
                              : cfg.items_per_chunk;
        n = std::clamp<std::uint64_t>(n, 1, pooled);
        // The last n items of the pool, from at most rc_ranges_per_message ranges.
        std::vector<detail::rc_range> given;
        while (n > 0 && given.size() < rc_ranges_per_message) {
            detail::rc_range& last = pool.back();
            const std::uint64_t k = std::min(n, last.count);
            given.push_back({last.origin, last.first + last.count - k, k});
            last.count -= k;
            if (last.count == 0) pool.pop_back();
            pooled -= k;
            n -= k;
        }
        std::vector<std::byte> msg(std::max(cfg.message_bytes, rc_header_bytes + rc_range_bytes * given.size()));
        const std::span<std::byte> b(msg);
        std::uint64_t items = 0;
        for (std::size_t i = 0; i < given.size(); ++i) {
            const std::size_t at = rc_header_bytes + rc_range_bytes * i;
            detail::put32(b, at, given[i].origin);
            detail::put64(b, at + 4, given[i].first);
            detail::put64(b, at + 12, given[i].count);
            items += given[i].count;
        }
        res.items_dispatched += items;
        const std::uint64_t seq = seq_to[static_cast<std::size_t>(dest)]++;
        detail::put32(b, 0, detail::rc_work);
        detail::put32(b, 4, static_cast<std::uint32_t>(me));
        detail::put64(b, 8, seq);
        detail::put64(b, 16, given.size());
        detail::put64(b, 24, detail::rc_checksum(b));
        send(dest, std::move(msg));
        unacked_to[static_cast<std::size_t>(dest)].push_back(seq);
        ++unacked;
        ++balance;
        ++res.messages_sent;
        ++res.communication_points;
    };

    // Dispatches asked for by special values, waiting for the window: sent as acknowledgements
    // free it, dropped when the pool has run dry (nothing left to give).
    struct owed_dispatch {
        int dest;
        double share;
    };
    std::deque<owed_dispatch> owed;
    const auto settle = [&] {
        while (!owed.empty() && unacked < cfg.window && !pool.empty()) {
            dispatch(owed.front().dest, owed.front().share);
            owed.pop_front();
        }
        if (pool.empty()) {
            res.dispatches_skipped += owed.size();
            owed.clear();
        }
    };

    std::vector<std::byte> rbuf(largest);
    const auto handle = [&](const status& st) {
        const std::span<const std::byte> b(rbuf.data(), st.size);
        if (st.size < rc_header_bytes) fail("a ", st.size, "-byte message from rank ", st.source, " is shorter than its header");
        if (detail::rc_checksum(b) != detail::get64(b, 24))
            fail("a message from rank ", st.source, " arrived changed (checksum differs)");
        const std::uint32_t kind = detail::get32(b, 0);
        const std::uint32_t sender = detail::get32(b, 4);
        const std::uint64_t a = detail::get64(b, 8), c = detail::get64(b, 16);
        if (sender != static_cast<std::uint32_t>(st.source))
            fail("message from rank ", st.source, " says it comes from rank ", sender);
        const auto src = static_cast<std::size_t>(st.source);
        if (kind == detail::rc_work) {
            ++res.messages_received;
            if (a != seq_from[src])
                fail("work message ", a, " from rank ", st.source, " arrived where message ", seq_from[src], " was due");
            ++seq_from[src];
            if (c == 0 || c > rc_ranges_per_message || st.size != std::max(cfg.message_bytes, rc_header_bytes + rc_range_bytes * c))
                fail("work message ", a, " from rank ", st.source, " says it holds ", c, " ranges in ", st.size, " bytes");
            for (std::uint64_t i = 0; i < c; ++i) {
                const std::size_t at = rc_header_bytes + rc_range_bytes * i;
                const detail::rc_range r{detail::get32(b, at), detail::get64(b, at + 4), detail::get64(b, at + 12)};
                if (r.count == 0 || r.origin >= static_cast<std::uint32_t>(p) || r.first > cfg.initial_items ||
                    r.count > cfg.initial_items - r.first)
                    fail("work message ", a, " from rank ", st.source, " holds items ", r.first, " + ", r.count, " of rank ", r.origin,
                         ", none of which exist");
                pool.push_back(r);
                pooled += r.count;
            }
            ++res.verified_messages;
            --balance;
            black = true;
            control(st.source, detail::rc_ack, a, 0);
        } else if (kind == detail::rc_ack) {
            ++res.control_received;
            auto& q = unacked_to[src];
            if (q.empty() || q.front() != a)
                fail("acknowledgement from rank ", st.source, " of work message ", a, " does not match the oldest unacknowledged (",
                     q.empty() ? std::string("none") : std::to_string(q.front()), ")");
            q.pop_front();
            --unacked;
        } else if (kind == detail::rc_token) {
            ++res.control_received;
            if (st.source != prev || token_held) fail("termination token from rank ", st.source, " (expected from rank ", prev, ", once)");
            token_held = true;
            token_sum = static_cast<std::int64_t>(a);
            token_black = c != 0;
        } else if (kind == detail::rc_stop) {
            ++res.control_received;
            if (st.source != 0 || stopped) fail("stop notice from rank ", st.source, " (expected once, from rank 0)");
            stopped = true;
        } else {
            fail("message from rank ", st.source, " has kind ", kind, ", none of RC's");
        }
    };
    const auto poll = [&] {
        while (const auto st = t.iprobe(any_source, cfg.tag)) handle(ops::recv(t, st->source, cfg.tag, mutable_bytes(rbuf)));
        reap();
    };

    const double t0 = detail::start_together(t);
    for (;;) {
        if (stopped) {
            if (!pool.empty()) fail("told to stop with ", pooled, " items still to process");
            if (unacked != 0) fail("told to stop with ", unacked, " work messages unacknowledged");
            break;
        }
        if (!pool.empty()) {
            // Process a slice: up to check_interval items, ending early at a special value.
            std::uint64_t n = 0;
            bool special = false;
            std::uint32_t v = 0;
            while (n < cfg.check_interval && !pool.empty()) {
                detail::rc_range& front = pool.front();
                v = detail::rc_item(cfg.seed, static_cast<int>(front.origin), front.first);
                ++front.first;
                if (--front.count == 0) pool.pop_front();
                --pooled;
                processed.add(v);
                ++n;
                if (v % f == 0) {
                    special = true;
                    break;
                }
            }
            if (n * (cfg.work_per_datum + cfg.bookkeeping_per_datum) != 0)
                ops::compute(t, work::flops(n * (cfg.work_per_datum + cfg.bookkeeping_per_datum)));
            res.data_items += n;
            res.work += n * cfg.work_per_datum;
            res.bookkeeping += n * cfg.bookkeeping_per_datum;
            if (special) {
                ++res.special_values;
                owed.push_back({static_cast<int>((static_cast<std::uint64_t>(me) + 1 + (v / f) % (up - 1)) % up),
                                detail::rc_share(cfg.seed, v)});
            }
            poll();
            settle();
            continue;
        }
        settle();
        if (unacked == 0 && token_held) {  // passive, holding the token
            if (me == 0) {
                if (!first_round && !token_black && !black && token_sum + balance == 0) {
                    for (int r = 1; r < p; ++r) control(r, detail::rc_stop, 0, 0);
                    break;
                }
                first_round = false;
                black = false;
                ++res.termination_rounds;
                control(next, detail::rc_token, 0, 0);
            } else {
                control(next, detail::rc_token, static_cast<std::uint64_t>(token_sum + balance), token_black || black ? 1 : 0);
                black = false;
            }
            token_held = false;
        }
        handle(ops::recv(t, any_source, cfg.tag, mutable_bytes(rbuf)));
    }
    for (pending& s : sends) ops::wait(t, s.r);
    res.elapsed = detail::stop_here(t) - t0;

    // Every item created was processed exactly once, every work message received.
    std::array<double, 9> totals{static_cast<double>(created.count),   static_cast<double>(created.low),
                                 static_cast<double>(created.high),    static_cast<double>(processed.count),
                                 static_cast<double>(processed.low),   static_cast<double>(processed.high),
                                 static_cast<double>(res.messages_sent), static_cast<double>(res.messages_received),
                                 static_cast<double>(res.work)};
    ops::allreduce_sum(t, std::span<double>(totals));
    if (totals[0] != totals[3] || totals[1] != totals[4] || totals[2] != totals[5])
        fail("the items processed across all nodes (", totals[3], ", fingerprint ", totals[4], "/", totals[5],
             ") are not the items created (", totals[0], ", fingerprint ", totals[1], "/", totals[2], ")");
    if (totals[6] != totals[7])
        fail(totals[6], " work messages were sent across all nodes but ", totals[7], " received");
    res.grain = totals[8] / std::max(1.0, totals[6]);  // with no dispatch at all, all the work is one grain
    return res;
}

}  // namespace comet::kernels::nist

#if !defined(COMET_COMPILED)
#include <comet/kernels/nist/rc.ipp>
#endif
