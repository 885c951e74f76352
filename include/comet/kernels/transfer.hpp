// comet/kernels/transfer.hpp — what echo and pairwise exchange share: their configuration,
// its validation, and the loop over hop distances and message sizes in which the test node
// times a repeat loop while its partner mirrors it (CoMet thesis 3.3.1–3.3.2, figures 3.2–3.3).
//
// The kernels themselves are in echo.hpp and exchange.hpp.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/hash.hpp>
#include <comet/stats/record.hpp>
#include <comet/timing/measure.hpp>
#include <comet/timing/repeat.hpp>
#include <comet/topology/hypercube.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace comet::kernels {

/// Message sizes echo and pairwise exchange use by default: every 8 to 16 bytes up to NX/2's
/// 100-byte protocol change (so both regimes have points to fit), then steps to twice the
/// 4096-byte page (the thesis looks "at buffer lengths slightly exceeding the page size").
COMET_DECL std::vector<std::size_t> default_message_sizes();

/// One link an application uses: rank `from` times, rank `to` answers (echo) or exchanges with
/// it (pairwise). For a stencil code: a rank and one of its mesh neighbours.
struct link {
    int from = 0;
    int to = 0;
    friend bool operator==(const link&, const link&) = default;
};

/// The links from `rank` to each of its four mesh neighbours (top, bottom, pred, succ of
/// `processor_mesh::neighbours`, or any four ranks), without repeats: in a mesh two rows high
/// `top` and `bottom` are one rank, and a rank is no link to itself.
COMET_DECL std::vector<link> links_to(int rank, std::initializer_list<int> neighbours);

/// Which buffer echo's messages go out of.
enum class echo_buffer : unsigned char {
    same,   ///< the buffer the message was received into (the thesis: "echo the message back")
    clean,  ///< a buffer of its own that no receive writes, on both ranks (OSU's ping-pong)
};

constexpr std::string_view to_string(echo_buffer b) noexcept { return b == echo_buffer::same ? "same" : "clean"; }

/// Configuration of echo and pairwise exchange. All ranks pass the same values (@pre).
struct transfer_config {
    /// Message sizes in bytes, measured in this order.
    std::vector<std::size_t> sizes = default_message_sizes();
    /// Hop distances from the test node (the partner is `hop_node(test_node, h)`, the thesis'
    /// figure 4.2). Empty: every distance 1, 2, ... the group size allows.
    std::vector<int> hops = {};
    /// The rank that times (the thesis measures on one designated node: clocks need not agree)
    /// and, with `links`, the rank that returns every link's records.
    int test_node = 0;
    /// The links an application uses, measured instead of the test node and its hypercube
    /// partners (`hops` must then be empty). Each link's `from` rank times it; its records carry
    /// params `from`, `to` and `hops` (the two ranks' distance in the hypercube numbering,
    /// popcount(from ^ to): the iPSC/860's links; elsewhere just a label). No link may join a
    /// rank to itself or repeat another (in either direction).
    std::vector<link> links = {};
    /// With `links`: measure every link at once, each `from` rank timing its own (the pattern of
    /// a halo exchange, and of osu_mbw_mr), instead of one link at a time while the others
    /// wait. A rank in several links serves them all in each iteration, by nonblocking
    /// operations; records carry `mode` = "concurrent" (else "one_at_a_time"). The sampling
    /// engine's stop rule watches the first link; every link gets as many samples.
    bool concurrent = false;
    /// How each point is sampled (timing/measure.hpp): iterations per sample calibrated to the
    /// clock, at least 15 samples, interleaved over the points. The thesis' fixed loops are
    /// `comet::fixed_sampling(samples, 1000)`.
    comet::sampling sampling = {};
    /// Echo only: which buffer a message goes out of (the record's param `buffer`). Why it is a
    /// parameter: a buffer just received into is in the receiver's cache as the receive left it
    /// (on shared memory, partly the sender's lines), while a send buffer that no receive
    /// touches stays clean in the sender's cache, and on a 2-core machine the two differ 1.3 to
    /// 12 times at 64 KiB to 1 MiB. The default is the thesis'.
    echo_buffer buffer = echo_buffer::same;
    /// The message tag, in comet's reserved range (core/types.hpp) so that an application's
    /// messages and the kernel's never meet.
    int tag = first_reserved_tag + 1;
    /// Called on the test node after each point is measured (for progress displays).
    std::function<void(const record&)> on_point = {};
    /// Check every message: each is filled with a pattern of its sender and its number in the
    /// run, and every byte received is compared with what was sent; after the last point each
    /// rank looks for messages that arrived and were never received (duplicates). A
    /// difference raises `verification_error` naming the kernel, the rank, the peer, the size
    /// and the byte. The filling and checking run inside the timed loop, so the records say
    /// `verify` = "payload" and their times include them: for finding faults (comet::faulty),
    /// not for the fastest figures.
    bool verify = false;
};

/// The hop distances echo and pairwise measure by default from `test_node` in a group of
/// `nodes`: 1, 2, ... as far as the thesis' hop_node (figure 4.2) stays inside the group.
COMET_DECL std::vector<int> default_hops(int test_node, int nodes);

/// The largest message size of `cfg`.
COMET_DECL std::size_t largest_size(const transfer_config& cfg);

namespace detail {

/// The byte `i` of message number `number` from rank `sender` when a kernel verifies: a hash of
/// both, so a message from another sender, an earlier message (a duplicate, or one that was
/// overtaken) and a flipped byte all read differently.
inline std::byte pattern_byte(int sender, std::uint64_t number, std::size_t i) noexcept {
    const std::uint64_t h = comet::detail::splitmix64(number * 4099u + static_cast<std::uint64_t>(sender) + 1);
    return static_cast<std::byte>((h >> (8 * (i & 7))) ^ (i >> 3));
}

/// Fills `message` with the pattern of (sender, number).
inline void fill_pattern(std::span<std::byte> message, int sender, std::uint64_t number) noexcept {
    for (std::size_t i = 0; i < message.size(); ++i) message[i] = pattern_byte(sender, number, i);
}

/// Throws verification_error unless `message` holds the pattern of (sender, number).
inline void check_pattern(std::string_view kernel, int rank, std::span<const std::byte> message, int sender,
                          std::uint64_t number) {
    for (std::size_t i = 0; i < message.size(); ++i)
        if (const std::byte want = pattern_byte(sender, number, i); message[i] != want)
            raise<verification_error>(rank, kernel, ": message ", number, " of ", message.size(), " bytes from rank ", sender,
                                      " differs at byte ", i, " (expected ", static_cast<unsigned>(want), ", got ",
                                      static_cast<unsigned>(message[i]), ")");
}

/// After a verified kernel: every rank waits for the others, then raises verification_error if
/// a message with the kernel's tag is still queued for it (a duplicate, or a message sent that
/// nobody received). Only messages that have arrived by then are seen.
template <transport T>
void check_nothing_left(T& t, std::string_view kernel, int tag) {
    ops::barrier(t);
    if (const auto left = t.iprobe(any_source, tag))
        raise<verification_error>(t.rank(), kernel, ": a message of ", left->size, " bytes from rank ", left->source,
                                  " with tag ", tag, " arrived that no receive took (a duplicate?)");
}

/// Message numbers of a verified kernel, per peer: each side of a pair counts the messages of
/// that pair alike, because both run the same iterations.
class message_numbers {
public:
    std::uint64_t next(int peer) {
        if (static_cast<std::size_t>(peer) >= counts_.size()) counts_.resize(static_cast<std::size_t>(peer) + 1, 0);
        return counts_[static_cast<std::size_t>(peer)]++;
    }

private:
    std::vector<std::uint64_t> counts_;
};

/// Checks `cfg` on rank `rank` of a group of `p` and returns the hop distances to measure (none
/// when it gives links). Every rank checks the same config, so a bad value fails on every rank
/// with the same message. Not a template (it needs only the rank and the group's size): one
/// copy serves echo and pairwise on every transport.
inline std::vector<int> check_transfer(int rank, int p, const transfer_config& cfg, std::string_view kernel) {
    if (p < 2) raise<invalid_argument>(rank, kernel, " needs at least 2 ranks; the group has ", p);
    if (cfg.test_node < 0 || cfg.test_node >= p)
        raise<invalid_argument>(rank, kernel, ": test node ", cfg.test_node, " is outside 0..", p - 1);
    check_sampling(rank, kernel, cfg.sampling);
    if (cfg.tag < 0 || cfg.tag > max_tag) raise<invalid_argument>(rank, kernel, ": tag ", cfg.tag, " is outside 0..", max_tag);
    for (std::size_t n : cfg.sizes)
        if (n > max_message_size)
            raise<invalid_argument>(rank, kernel, ": message size ", n, " exceeds the ", max_message_size, "-byte limit");
    if (!cfg.links.empty()) {
        if (!cfg.hops.empty())
            raise<invalid_argument>(rank, kernel, ": give links or hops, not both (", cfg.links.size(), " links, ",
                                    cfg.hops.size(), " hop distances)");
        for (std::size_t i = 0; i < cfg.links.size(); ++i) {
            const link& l = cfg.links[i];
            for (int r : {l.from, l.to})
                if (r < 0 || r >= p)
                    raise<invalid_argument>(rank, kernel, ": link ", l.from, " -> ", l.to, ": rank ", r, " is outside 0..", p - 1);
            if (l.from == l.to) raise<invalid_argument>(rank, kernel, ": link ", l.from, " -> ", l.to, " joins a rank to itself");
            for (std::size_t j = 0; j < i; ++j)
                if ((cfg.links[j].from == l.from && cfg.links[j].to == l.to) ||
                    (cfg.links[j].from == l.to && cfg.links[j].to == l.from))
                    raise<invalid_argument>(rank, kernel, ": link ", l.from, " -> ", l.to, " repeats link ",
                                            cfg.links[j].from, " -> ", cfg.links[j].to);
        }
        return {};
    }
    if (cfg.concurrent) raise<invalid_argument>(rank, kernel, ": concurrent needs links, and none are given");
    const std::vector<int> hops = cfg.hops.empty() ? default_hops(cfg.test_node, p) : cfg.hops;
    for (int h : hops) {
        if (h < 0) raise<invalid_argument>(rank, kernel, ": hop distance ", h, " is negative");
        try {
            (void)hop_node(cfg.test_node, h, p);
        } catch (const invalid_argument& e) {
            raise<invalid_argument>(rank, kernel, ": ", e.what());
        }
    }
    return hops;
}

/// `check_transfer` on `t`'s rank and group.
template <transport T>
std::vector<int> transfer_hops(const T& t, const transfer_config& cfg, std::string_view kernel) {
    return check_transfer(t.rank(), t.size(), cfg, kernel);
}

/// What a rank does in one iteration of the concurrent mode: echo's round trips, or pairwise
/// exchanges, with every link it is in.
enum class concurrent_pattern : unsigned char { echo, exchange };

/// A record of `kernel` at `size` over `hops` (and the params `more`, a link's), with the
/// kernel's `values` and what the sampling engine measured.
COMET_DECL record transfer_record(std::string_view kernel, std::size_t size, int hops, int nodes, const params& more,
                                  const params& values, sampled_point&& measured, const transfer_config& cfg, double scale);

/// The hypercube distance of a link (see `transfer_config::links`).
inline int link_hops(const link& l) noexcept { return std::popcount(static_cast<unsigned>(l.from ^ l.to)); }

/// `cfg.links`, one at a time: all ranks meet in a barrier, then the link's `from` rank times
/// repeat loops of `step(to, message)` while `to` runs `mirror(from, message)` as often, and
/// `from` hands its measurements to the test node.
template <transport T, class Step, class Mirror>
result_set links_one_at_a_time(T& t, const transfer_config& cfg, std::string_view kernel, double scale, Step& step,
                               Mirror& mirror, const params& values, const params& more) {
    const int me = t.rank();
    std::vector<std::byte> buffer(largest_size(cfg));
    result_set out;
    for (const link& l : cfg.links) {
        ops::barrier(t);  // the link before this one is done: this one has the machine to itself
        std::vector<sampled_point> measured;
        if (me == l.from || me == l.to) {
            const int ranks[2] = {l.from, l.to};
            measured = sample_points(t, cfg.sizes.size(), cfg.sampling, l.from, std::span<const int>(ranks),
                                     sample_reduction::decider,
                                     [&](std::size_t p, std::size_t iterations) -> std::optional<repeat_result> {
                                         const std::span<std::byte> message(buffer.data(), cfg.sizes[p]);
                                         if (me == l.from) return repeat(t, iterations, [&] { step(l.to, message); });
                                         for (std::size_t i = 0; i < iterations; ++i) mirror(l.from, message);
                                         return std::nullopt;
                                     });
        }
        measured = forward_points(t, l.from, cfg.test_node, cfg.tag, std::move(measured), cfg.sizes.size());
        if (me != cfg.test_node) continue;
        for (std::size_t p = 0; p < cfg.sizes.size(); ++p) {
            params ends;
            ends.set("from", l.from).set("to", l.to).set("mode", "one_at_a_time");
            for (const auto& [name, value] : more) ends.set(name, value);
            out.records.push_back(
                transfer_record(kernel, cfg.sizes[p], link_hops(l), t.size(), ends, values, std::move(measured[p]), cfg, scale));
            out.records.back().params.set("reduction", "from");  // the link's `from` rank timed
            if (cfg.on_point) cfg.on_point(out.records.back());
        }
    }
    return out;
}

/// `cfg.links`, all at once: in every iteration each rank serves every link it is in, by
/// nonblocking operations (so that a rank in several links, or a ring of links, cannot
/// deadlock), and every link's `from` rank times its own loop; the measurements then go to the
/// test node.
/// - echo: post a receive for each link's request that comes in; for each link going out, post
///   the reply's receive and send the request; answer each request as it arrives; wait for all.
/// - exchange: for each link, post the receive and the send; wait for all.
template <transport T>
result_set links_at_once(T& t, const transfer_config& cfg, std::string_view kernel, double scale,
                         concurrent_pattern pattern, const params& values, const params& more) {
    const int me = t.rank();
    const std::size_t largest = largest_size(cfg);
    std::vector<int> out_peers, in_peers, ranks;
    for (const link& l : cfg.links) {
        if (l.from == me) out_peers.push_back(l.to);
        if (l.to == me) in_peers.push_back(l.from);
        for (int r : {l.from, l.to})
            if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
    }
    // Per link a buffer for each direction: a message in flight is never read and written at
    // once (echo answers an incoming request from the buffer it arrived in, once it is in).
    const auto buffers = [&](std::size_t count) { return std::vector<std::vector<std::byte>>(count, std::vector<std::byte>(largest)); };
    auto outgoing = buffers(out_peers.size()), answers = buffers(out_peers.size()), incoming = buffers(in_peers.size()),
         returning = buffers(pattern == concurrent_pattern::exchange ? in_peers.size() : 0);
    std::vector<typename T::request> requests, pending(in_peers.size());
    requests.reserve(2 * (out_peers.size() + in_peers.size()));
    const int tag = cfg.tag;
    message_numbers numbers;  // with cfg.verify: each message's number, per peer
    std::vector<std::uint64_t> out_numbers(out_peers.size()), in_numbers(in_peers.size());
    const auto iteration = [&](std::size_t n) {
        requests.clear();
        if (cfg.verify) {
            for (std::size_t j = 0; j < out_peers.size(); ++j) {
                out_numbers[j] = numbers.next(out_peers[j]);
                fill_pattern(std::span(outgoing[j].data(), n), me, out_numbers[j]);
            }
            for (std::size_t k = 0; k < in_peers.size(); ++k) {
                in_numbers[k] = numbers.next(in_peers[k]);
                if (pattern == concurrent_pattern::exchange) fill_pattern(std::span(returning[k].data(), n), me, in_numbers[k]);
            }
        }
        if (pattern == concurrent_pattern::echo) {
            for (std::size_t k = 0; k < in_peers.size(); ++k) pending[k] = t.irecv(in_peers[k], tag, mutable_bytes(incoming[k].data(), n));
            for (std::size_t j = 0; j < out_peers.size(); ++j) {
                requests.push_back(t.irecv(out_peers[j], tag, mutable_bytes(answers[j].data(), n)));
                requests.push_back(t.isend(out_peers[j], tag, const_bytes(outgoing[j].data(), n)));
            }
            for (std::size_t k = 0; k < in_peers.size(); ++k) {
                ops::wait(t, pending[k]);
                if (cfg.verify) check_pattern(kernel, me, std::span(incoming[k].data(), n), in_peers[k], in_numbers[k]);
                requests.push_back(t.isend(in_peers[k], tag, const_bytes(incoming[k].data(), n)));
            }
        } else {
            for (std::size_t j = 0; j < out_peers.size(); ++j) {
                requests.push_back(t.irecv(out_peers[j], tag, mutable_bytes(answers[j].data(), n)));
                requests.push_back(t.isend(out_peers[j], tag, const_bytes(outgoing[j].data(), n)));
            }
            for (std::size_t k = 0; k < in_peers.size(); ++k) {
                requests.push_back(t.irecv(in_peers[k], tag, mutable_bytes(incoming[k].data(), n)));
                requests.push_back(t.isend(in_peers[k], tag, const_bytes(returning[k].data(), n)));
            }
        }
        ops::wait_all(t, std::span<typename T::request>(requests));
        if (!cfg.verify) return;
        // echo: each answer is this rank's own message back; exchange: the peer's.
        for (std::size_t j = 0; j < out_peers.size(); ++j)
            check_pattern(kernel, me, std::span(answers[j].data(), n), pattern == concurrent_pattern::echo ? me : out_peers[j],
                          out_numbers[j]);
        if (pattern == concurrent_pattern::exchange)
            for (std::size_t k = 0; k < in_peers.size(); ++k)
                check_pattern(kernel, me, std::span(incoming[k].data(), n), in_peers[k], in_numbers[k]);
    };

    const int decider = cfg.links.front().from;
    ops::barrier(t);
    std::vector<sampled_point> measured;
    if (std::find(ranks.begin(), ranks.end(), me) != ranks.end())
        measured = sample_points(t, cfg.sizes.size(), cfg.sampling, decider, std::span<const int>(ranks),
                                 sample_reduction::decider,
                                 [&](std::size_t p, std::size_t iterations) -> std::optional<repeat_result> {
                                     if (!out_peers.empty()) return repeat(t, iterations, [&] { iteration(cfg.sizes[p]); });
                                     for (std::size_t i = 0; i < iterations; ++i) iteration(cfg.sizes[p]);
                                     return std::nullopt;
                                 });
    // Every timing rank's measurements to the test node, the decider's first (its stop reasons
    // are every link's).
    std::vector<int> timers{decider};
    for (const link& l : cfg.links)
        if (std::find(timers.begin(), timers.end(), l.from) == timers.end()) timers.push_back(l.from);
    std::vector<std::vector<sampled_point>> by_timer;
    for (int r : timers) {
        auto got = forward_points(t, r, cfg.test_node, tag, r == me ? measured : std::vector<sampled_point>{}, cfg.sizes.size());
        if (me == cfg.test_node) by_timer.push_back(std::move(got));
    }
    result_set out;
    if (me == cfg.test_node)
        for (const link& l : cfg.links) {
            const auto at = static_cast<std::size_t>(std::find(timers.begin(), timers.end(), l.from) - timers.begin());
            for (std::size_t p = 0; p < cfg.sizes.size(); ++p) {
                sampled_point x = by_timer[at][p];
                x.stop = by_timer[0][p].stop;
                x.disturbed = by_timer[0][p].disturbed;  // the decider's: whether any rank of the pattern was disturbed
                params ends, v = values;
                ends.set("from", l.from).set("to", l.to).set("mode", "concurrent");
                for (const auto& [name, value] : more) ends.set(name, value);
                if (pattern == concurrent_pattern::exchange) v.set("form", "isend_irecv_wait_all");
                out.records.push_back(transfer_record(kernel, cfg.sizes[p], link_hops(l), t.size(), ends, v, std::move(x), cfg, scale));
                out.records.back().params.set("reduction", "from");
                if (cfg.on_point) cfg.on_point(out.records.back());
            }
        }
    ops::barrier(t);
    if (cfg.verify) check_nothing_left(t, kernel, tag);
    return out;
}

/// The points of echo and pairwise exchange, measured by the sampling engine: for every hop
/// distance and size, the test node times repeat loops of `step(partner, message)` while the
/// partner runs `mirror(test_node, message)` as often; each sample, times `scale`, is the
/// test node's time per iteration. Ranks that are no test node's partner wait at the closing
/// barrier. With `cfg.links`, the links instead (`links_one_at_a_time`, or `links_at_once` in
/// `pattern`). Returns the records on the test node, nothing elsewhere; each carries `values`,
/// and the params `more` after its own.
template <transport T, class Step, class Mirror>
result_set transfer_points(T& t, const transfer_config& cfg, std::string_view kernel, double scale, Step&& step,
                           Mirror&& mirror, concurrent_pattern pattern, const params& values = {}, const params& more = {}) {
    const std::vector<int> hops = transfer_hops(t, cfg, kernel);
    if (!cfg.links.empty()) {
        if (cfg.concurrent) return links_at_once(t, cfg, kernel, scale, pattern, values, more);
        result_set out = links_one_at_a_time(t, cfg, kernel, scale, step, mirror, values, more);
        ops::barrier(t);
        if (cfg.verify) check_nothing_left(t, kernel, cfg.tag);
        return out;
    }
    std::vector<std::byte> buffer(largest_size(cfg));
    struct point {
        int hops, partner;
        std::size_t size;
    };
    std::vector<point> points;
    std::vector<int> ranks{cfg.test_node};
    for (int h : hops) {
        const int partner = hop_node(cfg.test_node, h, t.size());
        if (std::find(ranks.begin(), ranks.end(), partner) == ranks.end()) ranks.push_back(partner);
        for (std::size_t size : cfg.sizes) points.push_back({h, partner, size});
    }
    const int me = t.rank();
    result_set out;
    ops::barrier(t);  // the thesis starts every kernel from a well-defined state
    if (std::find(ranks.begin(), ranks.end(), me) != ranks.end()) {
        auto measured = sample_points(t, points.size(), cfg.sampling, cfg.test_node, ranks, sample_reduction::decider,
                                      [&](std::size_t p, std::size_t iterations) -> std::optional<repeat_result> {
                                          const point& x = points[p];
                                          const std::span<std::byte> message(buffer.data(), x.size);
                                          if (me == cfg.test_node)
                                              return repeat(t, iterations, [&] { step(x.partner, message); });
                                          if (me == x.partner)
                                              for (std::size_t i = 0; i < iterations; ++i) mirror(cfg.test_node, message);
                                          return std::nullopt;
                                      });
        if (me == cfg.test_node)
            for (std::size_t p = 0; p < points.size(); ++p) {
                out.records.push_back(transfer_record(kernel, points[p].size, points[p].hops, t.size(), more, values,
                                                      std::move(measured[p]), cfg, scale));
                if (cfg.on_point) cfg.on_point(out.records.back());
            }
    }
    ops::barrier(t);
    if (cfg.verify) check_nothing_left(t, kernel, cfg.tag);
    return out;
}

}  // namespace detail
}  // namespace comet::kernels

#if !defined(COMET_COMPILED)
#include <comet/kernels/transfer.ipp>
#endif
