// comet/timing/sync.hpp — clock offsets between ranks: the two-rank timestamp ping-pong and the
// group schemes that give every rank its offset to rank 0's clock (SPEC 5; Hoefler, Schneider,
// Lumsdaine, seed 002, section 3). `comet/timing/global_clock.hpp` turns the result into a clock.
//
//   comet::sync_result r = comet::sync_clocks(t, {.scheme = comet::sync_scheme::log_p});
//   double global = t.now() + r.offset;      // rank 0's time, to within r.error (at r.reference)
//
// Two ranks (section 3.1). The client sends a ping, the server answers with its clock's
// reading `ts`, and the client reads its clock before (t1) and after (t2): the server
// read `ts` somewhere within [t1, t2] of the client's time, so ts − (t1 + t2)/2 is the offset
// to within half the round trip t2 − t1. Round trips vary with an asymmetric, long-tailed
// distribution, so the mean or median of many offsets is no good; the offset of the exchange
// with the smallest round trip is. How many exchanges find it cannot be known in advance; the
// seed's rule: stop once N consecutive exchanges bring no new minimum (N = `patience`, 100 by
// default: under 10% above the true minimum on the seed's networks, for about 180 exchanges),
// and `max_exchanges` caps a pair whatever happens. The first `warmup` exchanges (2) are made
// but never kept: they meet a server that was idle, and are unlike the steady ones (on the
// threads transport sometimes the fastest of all, and lopsided). A round trip counts as a new
// minimum only if it beats the old one by more than the rounding of the clock readings, so a
// clock whose round trips are all equal (virtual time) stops after warmup + N + 1 exchanges
// instead of chasing last-bit noise. The client then ends the pair with one message that tells
// the server what was found.
//
// What no ping-pong can see: a difference between the two directions' times that every exchange
// shares. Half the round trip bounds it, and `error` says so; on the threads transport with more
// ranks than cores, a rank that sleeps while it waits is woken more slowly than one that spins,
// and offsets come out a few µs off, within their bounds.
//
// A group (section 3.2). Rank 0's clock is the global time base.
//   linear   rank 0 runs the pair scheme with rank 1, 2, ..., P−1 in turn: P − 1 steps, each
//            rank's error is half its own smallest round trip with rank 0;
//   log_p    the seed's tree. t is the largest power of two ≤ P. Ranks 0..t−1 pair up in
//            log2 t rounds (rank c is the client of c + h when c is a multiple of 2h); ranks
//            t..P−1 then each pair with r − t. ⌈log2 P⌉ steps for any P, P = 1 included (no
//            step). The pairs of a round run in parallel.
// The seed's tree runs bottom-up (h = 1, 2, 4, ...): servers report the offsets of their
// subtrees to their clients, rank 0 ends up knowing every offset and scatters them. comet runs
// the same pairs top-down (h = t/2, ..., 2, 1, then the ranks beyond t): a client then already
// knows its own offset to rank 0 when it finishes with a server, so the message that ends the
// pair carries the server's offset to rank 0 (the client's plus the pair's), and no gather and
// scatter of P offsets is needed — the same ⌈log2 P⌉ steps, with fixed-size messages.
//
// Error. A rank's `error` bounds how far its offset is off at its reference time: the half
// round trips along its path to rank 0, plus, for each hop after the first, `assumed_drift` ×
// the time the client's own offset had aged (offsets are taken as constant during a sync; the
// rank's clock and rank 0's may drift apart meanwhile by up to that rate). Later, the clock
// drifts on: `global_clock` estimates the drift from two syncs and says when to resync.
//
// Every rank calls these with the same configuration (@pre). Bad configurations raise
// invalid_argument on every rank before any message is sent. On a transport whose clock is
// global (`ops::clock_is_global`), `sync_clocks` sends nothing and returns offset 0, error 0.
//
// Messages. The pairs travel on one reserved tag, `sync_config::tag` (default `max_tag − 16`,
// below the portable collectives' and the sampling engine's tags, above the kernels' default
// tags), by `ops::send` / `ops::recv`: an 8-byte ping, an 8-byte answer, a 48-byte end message.
// The ping is as long as the answer although the server needs nothing in it: the offset is
// only right if both directions take equally long, and a message's time may grow with its
// length (the simulated iPSC/860 charges a copy per byte), so an empty ping would bias every
// offset by half the difference. A sync opens with `ops::barrier` and closes with `ops::allreduce_sum` and
// `ops::allreduce_max` (the totals every rank reports); neither counts in the sync time.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/ops/ops.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string_view>

namespace comet {

/// How the ranks of a group find their offsets to rank 0's clock.
enum class sync_scheme : unsigned char {
    none,    ///< nothing to do: the transport's clock is global (only ever reported, never asked for)
    linear,  ///< rank 0 with each rank in turn: P − 1 steps
    log_p,   ///< the seed's tree: ⌈log2 P⌉ steps
};

constexpr std::string_view to_string(sync_scheme s) noexcept {
    return s == sync_scheme::linear ? "linear" : s == sync_scheme::log_p ? "log_p" : "none";
}

namespace detail {
/// The reserved tag of the clock synchronisation's messages.
inline constexpr int sync_tag = max_tag - 16;
}  // namespace detail

/// How to synchronise. Every rank passes the same values (@pre).
struct sync_config {
    sync_scheme scheme = sync_scheme::log_p;
    /// N: a pair stops after this many consecutive exchanges without a new smallest round trip.
    std::size_t patience = 100;
    /// The most exchanges one pair makes, whatever the round trips do (warm-up included).
    std::size_t max_exchanges = 10000;
    /// Exchanges at the start of each pair that are made but never kept. The first exchange
    /// meets a server that was idle (asleep, or spinning with its caches on other things) and
    /// is unlike the steady exchanges that follow: on the threads transport it is sometimes
    /// the fastest of all, and lopsided — its offset 0.2 µs off where the steady ones agree to
    /// 0.01 µs — so the smallest round trip would pick exactly the wrong one.
    std::size_t warmup = 2;
    /// The largest rate (seconds per second) at which any rank's clock may drift from rank 0's
    /// while nothing better is known: 200e-6, two clocks each within ±100 ppm. It widens the
    /// error of offsets composed along the tree and, in `global_clock`, the error of a clock
    /// synchronised once.
    double assumed_drift = 200e-6;
    /// The tag of the synchronisation's messages.
    int tag = detail::sync_tag;
};

/// What a two-rank ping-pong found: the exchange with the smallest round trip. Both ranks get
/// the same values.
struct clock_offset_estimate {
    double client_time = 0.0;   ///< the middle of that exchange, on the client's clock
    double server_time = 0.0;   ///< the server's reading in that exchange
    double round_trip = 0.0;    ///< its round trip, on the client's clock
    std::size_t exchanges = 0;  ///< how many exchanges the pair made

    /// The server's clock minus the client's.
    double offset() const noexcept { return server_time - client_time; }
    /// The most the offset can be off: half the round trip.
    double error() const noexcept { return round_trip / 2; }
};

/// One rank's result of a group synchronisation. `offset`, `reference` and `error` are this
/// rank's; the rest is the same on every rank.
struct sync_result {
    sync_scheme scheme = sync_scheme::none;
    double offset = 0.0;     ///< rank 0's clock minus this rank's (0 on rank 0)
    double reference = 0.0;  ///< this rank's clock when `offset` was measured
    double error = 0.0;      ///< the most `offset` can be off at `reference` (0 on rank 0)
    double max_error = 0.0;  ///< the largest `error` of any rank
    /// How long the sync took: the longest any rank spent in it, from leaving the opening
    /// barrier to knowing its offset and having served its clients (its own clock).
    double duration = 0.0;
    /// This rank's own part of `duration` (its own clock): rank 0's is the time seed 002 reports.
    double own_duration = 0.0;
    std::size_t exchanges = 0;  ///< timestamp exchanges of every pair together
    int steps = 0;              ///< pair steps of the schedule: P − 1 (linear), ⌈log2 P⌉ (log_p)
};

namespace detail {

/// The message that ends a pair (client to server).
struct sync_end {
    double client_time;
    double server_time;
    double round_trip;
    double global_offset;  ///< the server's offset to rank 0's clock (group sync; else 0)
    double error;          ///< the most global_offset can be off at server_time
    std::uint64_t exchanges;
};

COMET_DECL void check_sync_config(int rank, const sync_config& c);

/// The client's half of a pair: ping-pong with `server` until the stopping rule holds.
template <transport T>
clock_offset_estimate measure_offset(T& t, int server, const sync_config& c) {
    clock_offset_estimate best;
    best.round_trip = std::numeric_limits<double>::infinity();
    double answer = 0.0;
    for (std::size_t since_best = 0; best.exchanges < c.max_exchanges && since_best < c.patience;) {
        const bool warming = best.exchanges < c.warmup;
        const double t1 = t.now();
        ops::send(t, server, c.tag, std::as_bytes(std::span(&t1, 1)));
        const status s = ops::recv(t, server, c.tag, std::as_writable_bytes(std::span(&answer, 1)));
        const double t2 = t.now();
        ++best.exchanges;
        if (s.size != sizeof answer)
            raise<error>(t.rank(), "sync_clocks: rank ", server, " answered a ping with ", s.size,
                         " bytes instead of ", sizeof answer, " (is another component using tag ", c.tag, "?)");
        // A new minimum must beat the old one by more than the rounding of the readings, so a
        // clock whose round trips are all equal does not restart the count on last-bit noise.
        const double rounding = 4 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(t1), std::fabs(t2));
        const double round_trip = t2 - t1;
        if (warming) continue;
        if (round_trip < best.round_trip - rounding) {
            best.round_trip = round_trip;
            best.client_time = t1 + round_trip / 2;
            best.server_time = answer;
            since_best = 0;
        } else {
            ++since_best;
        }
    }
    return best;
}

/// The server's half: answers pings with its clock until the client's end message arrives.
template <transport T>
sync_end serve_offset(T& t, int client, const sync_config& c) {
    sync_end end{};
    std::array<std::byte, sizeof(sync_end)> in{};
    for (;;) {
        const status s = ops::recv(t, client, c.tag, mutable_bytes(in));
        if (s.size == sizeof(double)) {
            // Read the clock as late as possible before answering, and nothing else between.
            const double now = t.now();
            ops::send(t, client, c.tag, std::as_bytes(std::span(&now, 1)));
        } else if (s.size == sizeof(sync_end)) {
            std::memcpy(&end, in.data(), sizeof end);
            return end;
        } else {
            raise<error>(t.rank(), "sync_clocks: rank ", client, " sent ", s.size,
                         " bytes where a ping (", sizeof(double), ") or the end of the pair (", sizeof(sync_end),
                         ") was due (is another component using tag ",
                         c.tag, "?)");
        }
    }
}

COMET_DECL clock_offset_estimate estimate_of(const sync_end& e);

/// This rank's part of a group sync so far.
struct sync_state {
    double offset = 0.0, reference = 0.0, error = 0.0;
    std::size_t exchanges = 0;  ///< of the pairs this rank was the client of
};

/// Runs one pair of a group sync as the client: measures `server`'s offset, sends it the
/// server's offset to rank 0 and its error.
template <transport T>
void client_step(T& t, int server, const sync_config& c, sync_state& me) {
    const clock_offset_estimate e = measure_offset(t, server, c);
    // The client's offset has aged since it was measured (rank 0's never does: it is the time base).
    const double aged = t.rank() == 0 ? 0.0 : c.assumed_drift * std::max(0.0, e.client_time - me.reference);
    const sync_end end{e.client_time, e.server_time, e.round_trip, me.offset - e.offset(), me.error + aged + e.error(),
                       static_cast<std::uint64_t>(e.exchanges)};
    ops::send(t, server, c.tag, std::as_bytes(std::span(&end, 1)));
    me.exchanges += e.exchanges;
}

template <transport T>
void server_step(T& t, int client, const sync_config& c, sync_state& me) {
    const sync_end end = serve_offset(t, client, c);
    me.offset = end.global_offset;
    me.reference = end.server_time;
    me.error = end.error;
}

/// The number of pair steps a scheme takes on `p` ranks.
constexpr int sync_steps(sync_scheme s, int p) noexcept {
    if (p <= 1 || s == sync_scheme::none) return 0;
    if (s == sync_scheme::linear) return p - 1;
    return static_cast<int>(std::bit_width(static_cast<unsigned>(p - 1)));  // ⌈log2 p⌉
}

}  // namespace detail

/// The offset between the clocks of `client` and `server` by timestamp ping-pong (see the top
/// of this header). Only those two ranks take part (others return a default estimate at once);
/// both get the same estimate. Runs even when the clock is global (then it measures how well
/// the readings agree).
/// @pre `client` and `server` call it with the same arguments.
/// @throws invalid_argument (on every rank that calls it, before any message) for a bad
///         configuration, a rank out of range, or client == server.
/// @code
///   auto e = comet::clock_offset(t, 0, 1);   // e.offset(): rank 1's clock minus rank 0's
/// @endcode
template <transport T>
clock_offset_estimate clock_offset(T& t, int client, int server, const sync_config& c = {}) {
    const int me = t.rank();
    detail::check_sync_config(me, c);
    if (client < 0 || client >= t.size() || server < 0 || server >= t.size() || client == server)
        raise<invalid_argument>(me, "clock_offset: client ", client, " and server ", server,
                                " must be two different ranks of 0..", t.size() - 1);
    if (me == client) {
        const clock_offset_estimate e = detail::measure_offset(t, server, c);
        const detail::sync_end end{e.client_time, e.server_time, e.round_trip, 0.0, e.error(), static_cast<std::uint64_t>(e.exchanges)};
        ops::send(t, server, c.tag, std::as_bytes(std::span(&end, 1)));
        return e;
    }
    if (me == server) return detail::estimate_of(detail::serve_offset(t, client, c));
    return {};
}

/// Synchronises every rank's clock to rank 0's by `c.scheme` (see the top of this header):
/// each rank learns its offset to rank 0's clock and how far it may be off. On a transport
/// whose clock is global, sends nothing and returns offset 0, error 0, scheme `none`.
/// @pre collective: every rank calls it with the same configuration.
/// @throws invalid_argument on every rank, before any message, for a bad configuration
///         (scheme none, patience 0, max_exchanges not above warmup, assumed_drift outside
///         [0, 1), a tag outside 0..max_tag).
/// @code
///   auto r = comet::sync_clocks(t, {.scheme = comet::sync_scheme::linear, .patience = 50});
/// @endcode
template <transport T>
sync_result sync_clocks(T& t, const sync_config& c = {}) {
    const int me = t.rank(), p = t.size();
    detail::check_sync_config(me, c);
    if (ops::clock_is_global(t)) return {.reference = t.now()};

    ops::barrier(t);
    const double start = t.now();
    detail::sync_state state{.reference = start};
    if (c.scheme == sync_scheme::linear) {
        if (me == 0)
            for (int r = 1; r < p; ++r) detail::client_step(t, r, c, state);
        else
            detail::server_step(t, 0, c, state);
    } else {
        const int full = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));  // t of the seed
        for (int h = full / 2; h >= 1; h /= 2) {
            if (me >= full) break;
            if (me % (2 * h) == 0)
                detail::client_step(t, me + h, c, state);
            else if (me % (2 * h) == h)
                detail::server_step(t, me - h, c, state);
        }
        if (me < p - full) detail::client_step(t, me + full, c, state);
        if (me >= full) detail::server_step(t, me - full, c, state);
    }
    const double elapsed = t.now() - start;

    // The totals every rank reports (not part of the sync's time).
    std::array<double, 1> sums{static_cast<double>(state.exchanges)};
    ops::allreduce_sum(t, std::span<double>(sums));
    std::array<double, 2> maxima{state.error, elapsed};
    ops::allreduce_max(t, std::span<double>(maxima));
    return {.scheme = c.scheme,
            .offset = state.offset,
            .reference = state.reference,
            .error = state.error,
            .max_error = maxima[0],
            .duration = maxima[1],
            .own_duration = elapsed,
            .exchanges = static_cast<std::size_t>(sums[0]),
            .steps = detail::sync_steps(c.scheme, p)};
}

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/timing/sync.ipp>
#endif
