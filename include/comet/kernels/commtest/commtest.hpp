// comet/kernels/commtest/commtest.hpp — COMMTEST (Worley, seed 001): the time to swap a fixed
// volume of doubles between two ranks as 1, 2, 4, ... messages, for every PSTSWM SWAP protocol
// (protocol.hpp), in the seed's arrangements (exchange.hpp) and cache modes.
//
// One experiment, as the seed runs it (one sample of the sampling engine, timing/measure.hpp):
//   1. each rank initialises its send volume (a pattern naming the rank and the byte) and
//      clears its receive volume; with `flushed` it then evicts the caches by writing a buffer
//      larger than them;
//   2. with prepost, the first receive is posted;
//   3. the ranks of the experiment synchronise (the group's barrier when every rank takes part,
//      else zero-byte messages through the first rank of the pairs), twice (synchronise);
//   4. each rank reads its clock, runs the exchange, reads its clock: T = end − start;
//   5. the received volume is checked byte by byte against the partner's pattern.
// The sample is the largest T over the ranks (the seed: "the maximum execution time observed by
// a single processor"). Where the clock is global (ops::clock_is_global), the elapsed time from
// the first rank's start to the last rank's end is kept beside it (param `elapsed`, its least
// value), and a difference of more than 10% from the samples' least is noted on the record.
// With `repeat:K` each message is swapped K times in a row and T is divided by K.
//
// Records (on the test node), one per (pair set, protocol, volume, messages): params protocol
// "(0,3)", volume (bytes each rank sends), messages (N), size (bytes per message), pair ("0-1",
// "0-2+1-3"), cache ("warm", "flushed", "repeat:K"), prepost ("on"/"off"), nodes, handshake
// ("yes" where zero-byte ready handshakes are part of the protocol); samples in seconds per
// exchange of the whole volume. A protocol the transport cannot run is one record per volume
// with no samples and the note "not supported: ...". The statistics (a, b, latency, bandwidths,
// model error) are derived in stats/commtest.hpp.
#pragma once

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_COMMTEST

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/kernels/commtest/exchange.hpp>
#include <comet/kernels/commtest/protocol.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/record.hpp>
#include <comet/timing/measure.hpp>
#include <comet/timing/repeat.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

namespace comet::kernels::commtest {

/// The seed's cache modes: caches flushed before each timed exchange, warm (buffers initialised
/// just before, not flushed), or each message swapped `repeat` times in a row (time / repeat).
struct cache_setting {
    enum class mode : unsigned char { warm, flushed, repeat } kind = mode::warm;
    std::size_t repeat = 1;  ///< K of repeat:K
    friend bool operator==(const cache_setting&, const cache_setting&) = default;
};

COMET_DECL std::string to_string(const cache_setting& c);

/// "warm", "flushed" or "repeat:K" (K ≥ 1), or nothing.
COMET_DECL std::optional<cache_setting> parse_cache(std::string_view s);

/// Pairs of ranks that swap at the same time: {0-1}, {0-2}, or {0-2, 1-3} (the seed's
/// simultaneous swaps, contending for a node's network interface). The first rank named in a
/// pair is the protocol's processor 1 (the one that sends first in an ordered protocol).
using pair_set = std::vector<std::pair<int, int>>;

COMET_DECL std::string to_string(const pair_set& ps);

/// "0-2" or "0-2+1-3" to a pair set, or nothing (ranks are not checked against a group here).
COMET_DECL std::optional<pair_set> parse_pairs(std::string_view s);

/// The seed's volumes: 8 KB, 128 KB and 2 MB of doubles (1024, 16384, 262144 values).
COMET_DECL std::vector<std::size_t> default_volumes();
/// 1, 2, 4, ..., 1024 messages: in the 2 MB experiment, messages of 2 MB down to 2 KB.
COMET_DECL std::vector<std::size_t> default_message_counts();

/// How COMMTEST samples: one exchange per sample (the seed times each experiment once;
/// repeat:K is its way to longer samples), at least 15 of them.
COMET_DECL comet::sampling default_sampling();

/// Configuration of COMMTEST. All ranks pass the same values (@pre).
struct commtest_config {
    std::vector<protocol> protocols = {all_protocols.begin(), all_protocols.end()};
    /// Bytes each rank sends in an experiment (whole doubles).
    std::vector<std::size_t> volumes = default_volumes();
    /// Numbers of messages the volume is sent as (each must give whole doubles per message).
    std::vector<std::size_t> messages = default_message_counts();
    /// The pair sets measured, one after the other.
    std::vector<pair_set> pairs = {pair_set{{0, 1}}};
    cache_setting cache = {};
    /// The seed's reorganised loop (exchange.hpp).
    bool prepost = false;
    /// Bytes written to evict the caches in `flushed` mode; 0: twice the largest cache the
    /// system reports (sysconf), or 32 MiB if it reports none.
    std::size_t flush_bytes = 0;
    /// The rank that returns the records.
    int test_node = 0;
    /// Samples per point; `iterations` is always 1 here (one exchange per sample): any other
    /// value is replaced by 1, and the records say so.
    comet::sampling sampling = default_sampling();
    /// The data tag; the handshakes use tag + 1 and the synchronisation tag + 2.
    int tag = first_reserved_tag + 5;
    std::function<void(const record&)> on_point = {};
};

/// Points a run of `cfg` measures on a transport supporting every protocol.
COMET_DECL std::size_t commtest_points(const commtest_config& cfg);

namespace detail {

/// Byte `j` of rank `rank`'s send volume: differs between ranks and along the volume, so a
/// message from the wrong rank or into the wrong part shows.
inline std::byte pattern_byte(int rank, std::size_t j) noexcept {
    return static_cast<std::byte>((static_cast<std::size_t>(rank + 1) * 37u + j * 131u + (j >> 8) * 7u) & 0xffu);
}

/// Twice the largest cache sysconf reports, or 32 MiB.
COMET_DECL std::size_t default_flush_bytes();

/// Writes and reads `buffer` whole, evicting what the caches held.
COMET_DECL void flush_caches(std::vector<unsigned char>& buffer);

/// Synchronises the ranks of `ranks` (sorted, distinct): the group's barrier when all take part,
/// else every rank tells the first, which then releases them (zero-byte messages on `tag`).
/// Twice: a rank that arrived long before the others may have gone to sleep (the threads
/// transport sleeps after 100 µs of spinning), and leaves the first synchronisation a wake-up
/// later than the rank that released it, which then starts its clock and waits for the sleeper
/// inside the timed exchange. The second finds every rank awake and lets them go together. On
/// two threads, one rank arriving 300 µs after the other: the ranks' start times differed by
/// 15-19 µs (median of 200) after one barrier, by 0.06 µs after two.
template <transport T>
void synchronise(T& t, std::span<const int> ranks, int tag) {
    for (int round = 0; round < 2; ++round) {
        if (ranks.size() == static_cast<std::size_t>(t.size())) {
            ops::barrier(t);
            continue;
        }
        const int root = ranks.front();
        if (t.rank() == root) {
            for (int r : ranks)
                if (r != root) ops::recv(t, r, tag, mutable_bytes{});
            for (int r : ranks)
                if (r != root) ops::send(t, r, tag, const_bytes{});
        } else {
            ops::send(t, root, tag, const_bytes{});
            ops::recv(t, root, tag, mutable_bytes{});
        }
    }
}

/// Checks `cfg` on the calling rank (the same message on every rank).
template <transport T>
void check_config(const T& t, const commtest_config& cfg) {
    const int me = t.rank(), p = t.size();
    if (p < 2) raise<invalid_argument>(me, "commtest needs at least 2 ranks; the group has ", p);
    if (cfg.test_node < 0 || cfg.test_node >= p)
        raise<invalid_argument>(me, "commtest: test node ", cfg.test_node, " is outside 0..", p - 1);
    if (cfg.tag < 0 || cfg.tag > max_tag - 2) raise<invalid_argument>(me, "commtest: tag ", cfg.tag, " is outside 0..", max_tag - 2);
    check_sampling(me, "commtest", cfg.sampling);
    for (protocol x : cfg.protocols)
        if (!is_valid(x)) raise<invalid_argument>(me, "commtest: protocol ", to_string(x), " is not one of (0,0)..(0,9), (1,0)..(1,10)");
    if (cfg.cache.kind == cache_setting::mode::repeat && cfg.cache.repeat == 0)
        raise<invalid_argument>(me, "commtest: repeat:", cfg.cache.repeat, " must repeat each message at least once");
    for (std::size_t v : cfg.volumes) {
        if (v == 0 || v % sizeof(double) != 0)
            raise<invalid_argument>(me, "commtest: volume ", v, " bytes is not a positive whole number of doubles");
        if (v > max_message_size) raise<invalid_argument>(me, "commtest: volume ", v, " exceeds the ", max_message_size, "-byte limit");
        for (std::size_t n : cfg.messages)
            if (n == 0 || v % n != 0 || (v / n) % sizeof(double) != 0)
                raise<invalid_argument>(me, "commtest: ", n, " messages do not split the volume of ", v,
                                        " bytes into whole doubles each");
    }
    for (const pair_set& ps : cfg.pairs) {
        if (ps.empty()) raise<invalid_argument>(me, "commtest: an empty pair set");
        std::vector<int> seen;
        for (const auto& [a, b] : ps) {
            for (int r : {a, b})
                if (r < 0 || r >= p)
                    raise<invalid_argument>(me, "commtest: pair ", a, "-", b, ": rank ", r, " is outside 0..", p - 1);
            if (a == b) raise<invalid_argument>(me, "commtest: pair ", a, "-", b, " joins a rank to itself");
            for (int r : {a, b}) {
                if (std::find(seen.begin(), seen.end(), r) != seen.end())
                    raise<invalid_argument>(me, "commtest: pairs ", to_string(ps), ": rank ", r, " is in two pairs at once");
                seen.push_back(r);
            }
        }
    }
}

}  // namespace detail

/// Runs COMMTEST on every rank of `t`'s group and returns the records on the test node (see the
/// top of this header); other ranks return an empty set. Ranks in no pair of a pair set wait.
/// @pre every rank calls it with the same config
/// @code
///   auto r = comet::kernels::commtest::commtest(t, {.protocols = {{0, 3}, {1, 3}}, .volumes = {131072}});
/// @endcode
template <transport T>
result_set commtest(T& t, const commtest_config& given = {}) {
    detail::check_config(t, given);
    commtest_config cfg = given;
    const bool iterations_replaced = cfg.sampling.iterations != 1;
    cfg.sampling.iterations = 1;
    const int me = t.rank();
    const std::size_t repeat = cfg.cache.kind == cache_setting::mode::repeat ? cfg.cache.repeat : 1;
    const std::size_t largest = *std::max_element(cfg.volumes.begin(), cfg.volumes.end());
    const bool global = ops::clock_is_global(t);
    // The volumes a rank sends and receives, and (written once, copied from) its pattern and its
    // partner's: writing each byte's pattern afresh and checking the received volume byte by
    // byte before and after every exchange took 93% of a run's CPU (the default sweep on two
    // threads: 10 min 46 s for 47 s of exchanges).
    std::vector<std::byte> out, in, own_pattern, partner_pattern;
    int pattern_of = -1;
    std::vector<unsigned char> flush;
    exchange_state<T> state;
    result_set records;

    std::vector<protocol> runnable;
    for (protocol x : cfg.protocols)
        if (supports<T>(x)) runnable.push_back(x);

    for (const pair_set& ps : cfg.pairs) {
        std::vector<int> ranks;
        int partner = -1;
        bool first = false;
        for (const auto& [a, b] : ps) {
            ranks.push_back(a), ranks.push_back(b);
            if (me == a || me == b) partner = me == a ? b : a, first = me == a;
        }
        std::sort(ranks.begin(), ranks.end());
        const int decider = ps.front().first;
        struct point {
            protocol proto;
            std::size_t volume, messages;
        };
        std::vector<point> points;
        for (protocol x : runnable)
            for (std::size_t v : cfg.volumes)
                for (std::size_t n : cfg.messages) points.push_back({x, v, n});
        // The global elapsed times of each point, on the decider.
        std::vector<std::vector<double>> elapsed(points.size());

        ops::barrier(t);
        std::vector<sampled_point> measured;
        if (partner >= 0) {
            if (out.empty()) {
                out.resize(largest);
                in.resize(largest);
                own_pattern.resize(largest);
                partner_pattern.resize(largest);
                for (std::size_t j = 0; j < largest; ++j) own_pattern[j] = detail::pattern_byte(me, j);
                if (cfg.cache.kind == cache_setting::mode::flushed)
                    flush.assign(cfg.flush_bytes ? cfg.flush_bytes : detail::default_flush_bytes(), 0);
            }
            if (pattern_of != partner) {
                for (std::size_t j = 0; j < largest; ++j) partner_pattern[j] = detail::pattern_byte(partner, j);
                pattern_of = partner;
            }
            measured = sample_points(
                t, points.size(), cfg.sampling, decider, std::span<const int>(ranks), sample_reduction::max_over_ranks,
                [&](std::size_t p, std::size_t) -> std::optional<repeat_result> {
                    const point& x = points[p];
                    const exchange_plan plan{x.proto, first, partner, x.messages, x.volume / x.messages, repeat, cfg.prepost,
                                             cfg.tag, cfg.tag + 1};
                    const std::span<std::byte> sent(out.data(), x.volume), got(in.data(), x.volume);
                    if (x.volume) std::memcpy(sent.data(), own_pattern.data(), x.volume);
                    std::fill(got.begin(), got.end(), std::byte{0});
                    if (!flush.empty()) detail::flush_caches(flush);
                    prepare_exchange(t, plan, state, got);
                    detail::synchronise(t, std::span<const int>(ranks), cfg.tag + 2);
                    const double start = t.now();
                    run_exchange(t, plan, state, const_bytes(sent), got);
                    const double end = t.now();
                    if (x.volume && std::memcmp(got.data(), partner_pattern.data(), x.volume) != 0) {
                        std::size_t j = 0;
                        while (got[j] == partner_pattern[j]) ++j;
                        raise<verification_error>(me, "commtest ", to_string(x.proto), ": message ", j / plan.size, " of ", x.messages,
                                                  " from rank ", partner, " arrived wrong (byte ", j, " of the volume of ", x.volume, ")");
                    }
                    if (global) {
                        // Every rank's (start, end) to the decider: the first start and the last end.
                        double mine[2] = {start, end};
                        if (me != decider) {
                            ops::send(t, decider, cfg.tag + 2, std::as_bytes(std::span<double>(mine, 2)));
                        } else {
                            for (int r : ranks) {
                                if (r == decider) continue;
                                double theirs[2];
                                ops::recv(t, r, cfg.tag + 2, std::as_writable_bytes(std::span<double>(theirs, 2)));
                                mine[0] = std::min(mine[0], theirs[0]);
                                mine[1] = std::max(mine[1], theirs[1]);
                            }
                            elapsed[p].push_back((mine[1] - mine[0]) / static_cast<double>(repeat));
                        }
                    }
                    repeat_result r;
                    r.loop_seconds = end - start;
                    r.per_iteration = end - start;
                    r.iterations = 1;
                    return r;
                });
        }
        // The decider's measurements (and elapsed times) to the test node.
        measured = forward_points(t, decider, cfg.test_node, cfg.tag, std::move(measured), points.size());
        if (global) {
            std::vector<double> least(points.size(), 0.0);
            if (me == decider)
                for (std::size_t p = 0; p < points.size(); ++p) {
                    // The samples are the point's last exchanges (calibration comes first), each
                    // after an untimed one when the caches are warm (timing/measure.hpp): the
                    // least elapsed time of the samples no rank was disturbed in.
                    const sampled_point& m = measured[p];
                    const std::size_t per = cfg.sampling.cache == cache_state::warm ? 2 : 1, n = m.samples.size();
                    if (elapsed[p].size() < per * n) continue;
                    const std::size_t first_sample = elapsed[p].size() - per * n + per - 1;
                    for (std::size_t k = 0; k < n; ++k) {
                        if (k < m.disturbed.size() && m.disturbed[k]) continue;
                        const double e = elapsed[p][first_sample + per * k];
                        if (least[p] == 0.0 || e < least[p]) least[p] = e;
                    }
                }
            if (decider != cfg.test_node) {
                if (me == decider) ops::send(t, cfg.test_node, cfg.tag, std::as_bytes(std::span<double>(least)));
                if (me == cfg.test_node) ops::recv(t, decider, cfg.tag, std::as_writable_bytes(std::span<double>(least)));
            }
            if (me == cfg.test_node)
                for (std::size_t p = 0; p < points.size(); ++p) elapsed[p] = {least[p]};
        }
        if (me == cfg.test_node) {
            const std::string pair = to_string(ps);
            const auto common = [&](record& rec, protocol x, std::size_t volume) {
                rec.params.set("protocol", to_string(x)).set("volume", volume);
            };
            const auto tail = [&](record& rec, protocol x) {
                rec.params.set("pair", pair)
                    .set("cache", to_string(cfg.cache))
                    .set("prepost", cfg.prepost ? "on" : "off")
                    .set("nodes", t.size());
                rec.values.set("handshake", has_handshake(x) ? "yes" : "no");
            };
            for (std::size_t p = 0; p < points.size(); ++p) {
                const point& x = points[p];
                record rec{"commtest", {}, {}};
                common(rec, x.proto, x.volume);
                rec.params.set("messages", x.messages).set("size", x.volume / x.messages);
                tail(rec, x.proto);
                fill_record(rec, std::move(measured[p]), cfg.sampling, sample_reduction::max_over_ranks,
                            1.0 / static_cast<double>(repeat));
                // One exchange per sample is the method; a short sample is its nature, not a defect.
                std::erase_if(rec.notes, [](const std::string& n) { return n.starts_with("samples shorter"); });
                if (iterations_replaced)
                    rec.notes.push_back("one exchange per sample: the sampling's iterations (" +
                                        std::to_string(given.sampling.iterations) + ") do not apply to commtest");
                if (global && !elapsed[p].empty() && elapsed[p].front() > 0) {
                    rec.values.set("elapsed", elapsed[p].front());
                    const double slowest = rec.samples.empty() ? 0 : *std::min_element(rec.samples.begin(), rec.samples.end());
                    if (slowest > 0 && std::abs(elapsed[p].front() - slowest) > 0.1 * slowest)
                        rec.notes.push_back("first start to last end (" + std::to_string(elapsed[p].front() * 1e6) +
                                            " us) differs from the slowest rank's time (" + std::to_string(slowest * 1e6) +
                                            " us) by more than 10%");
                }
                records.records.push_back(std::move(rec));
                if (cfg.on_point) cfg.on_point(records.records.back());
            }
            for (protocol x : cfg.protocols) {
                if (supports<T>(x)) continue;
                for (std::size_t v : cfg.volumes) {
                    record rec{"commtest", {}, {}};
                    common(rec, x, v);
                    tail(rec, x);
                    rec.notes.push_back(unsupported_reason<T>(x));
                    records.records.push_back(std::move(rec));
                }
            }
        }
        ops::barrier(t);
    }
    // Every message was received and checked; one still queued was sent twice (or by nobody
    // comet knows), and the times above were taken with it in flight.
    for (int tag : {cfg.tag, cfg.tag + 1, cfg.tag + 2})
        if (const auto left = t.iprobe(any_source, tag))
            raise<verification_error>(me, "commtest: a message of ", left->size, " bytes from rank ", left->source, " with tag ", tag,
                                      " arrived that no receive took (a duplicate?)");
    return records;
}

}  // namespace comet::kernels::commtest

#if !defined(COMET_COMPILED)
#include <comet/kernels/commtest/commtest.ipp>
#endif
