// comet/testing/checks/traffic.hpp — the conformance check of the point-to-point rules together,
// on traffic nobody wrote by hand: seeded rounds of isend, irecv, test and iprobe between random
// pairs of a group (oneself included), with random tags (the range's edges among them), sizes
// (0 B to 1 MiB, each side of common protocol limits), receive buffers (larger, exact, too
// small), wildcards wherever the outcome is still determined, receives posted before the
// messages or after they are queued, and completions polled in random order. Every outcome is
// held against a model of core/concepts.hpp: which message each receive takes, its status, its
// bytes, the bytes past it, what iprobe reports, each send's status.
//
// The model. A round's messages from one sender to one receiver form a stream; the receiver's
// receives are a merge of its streams in the streams' order, each receive matching the message
// it was written for. A receive may name its source and tag, or leave one open, as long as no
// other sender's message in the round could match it (any_source only with a tag no other
// sender uses towards that rank; any_source with any_tag only on rank 0, with one sender,
// since the suite's own closing messages may reach other ranks early). Then whatever the
// timing, the rules (earliest match, receives matched in posting order, non-overtaking) give
// each receive exactly the message it was written for, and that is what is checked.
//
// A failure names the group, the round and the seed: COMET_CONFORMANCE_SEED=<seed> replays it
// (the default seed is fixed, so a run is repeatable; another seed draws other rounds).
#pragma once

#include <comet/ops/ops.hpp>
#include <comet/testing/checks/matching.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace comet::testing::checks {

namespace traffic {

/// The seed rounds are drawn from: COMET_CONFORMANCE_SEED, else a fixed one.
inline std::uint64_t seed() {
    if (const char* s = std::getenv("COMET_CONFORMANCE_SEED"); s && *s) return std::strtoull(s, nullptr, 0);
    return 0x636f6d6574ull;
}

/// splitmix64: the same numbers on every rank, whatever the platform's <random>.
struct dice {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
    bool percent(int p) { return below(100) < p; }
    template <class V>
    auto pick(const V& v) {
        return v[static_cast<std::size_t>(below(static_cast<int>(std::size(v))))];
    }
};

struct message {
    int source, dest, tag;
    std::size_t size;
    std::uint32_t seed;  ///< its bytes: pattern(size, seed)
};
/// What a rank posts for one message, and which message that is.
struct receive {
    int source, tag;     ///< as posted: a rank or any_source, a tag or any_tag
    std::size_t buffer;  ///< the receive buffer's size (smaller than the message: truncation)
    std::size_t m;       ///< index of its message in the round
};
struct round {
    std::vector<message> messages;               ///< in each sender's order of isends
    std::vector<std::vector<receive>> receives;  ///< per rank, in posting order
    std::vector<bool> posted_first;              ///< per rank: receives posted before its sends
    std::vector<bool> mixed;                     ///< per rank (not posted_first): half its receives posted before its sends
    std::vector<bool> late;                      ///< per rank: spins 200 µs before its sends
};

// Tags: the range's edges and neighbours of powers of two among ordinary ones (never the
// suite's own conformance_tag).
inline constexpr int tag_pool[] = {0, 1, 2, 3, 7, 8, 255, 256, 1023, 1024, 4095, 4096, 16383, 16384,
                                   first_reserved_tag - 1, first_reserved_tag, first_reserved_tag + 1, max_tag - 1, max_tag};
// Sizes: empty, tiny, each side of common eager limits and packet sizes, and large.
inline constexpr std::size_t size_pool[] = {0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 63, 64, 65, 100, 101, 127, 128, 129, 255, 256, 257,
                                            1000, 1023, 1024, 1025, 4095, 4096, 4097, 8192, 16384, 16385, 65535, 65536, 65537, 100000};

/// Draws round `k` of a group of `p` ranks.
inline round draw(int p, int k, std::uint64_t base) {
    dice d{base ^ (static_cast<std::uint64_t>(p) << 40) ^ (static_cast<std::uint64_t>(k) << 20)};
    round r;
    const auto P = static_cast<std::size_t>(p);
    r.receives.resize(P);
    r.posted_first.resize(P);
    r.late.resize(P);
    r.mixed.resize(P);
    for (std::size_t i = 0; i < P; ++i) r.posted_first[i] = d.percent(50), r.late[i] = d.percent(30);
    for (std::size_t i = 0; i < P; ++i) r.mixed[i] = !r.posted_first[i] && d.percent(40);
    // A third of the rounds have a hot rank every rank sends all it may: a deep queue.
    const int hot = d.percent(35) ? d.below(p) : -1;
    if (hot >= 0) r.posted_first[static_cast<std::size_t>(hot)] = false, r.mixed[static_cast<std::size_t>(hot)] = false;
    // A few tags per round, so that tags repeat within a stream and across streams.
    // Half the rounds have two tags one bit apart (a transport that drops or folds a bit of
    // the tag matches one with the other).
    std::vector<int> tags;
    for (int n = 2 + d.below(3); n > 0; --n) tags.push_back(d.percent(80) ? d.pick(tag_pool) : d.below(max_tag + 1));
    if (d.percent(50)) tags.push_back(tags.front() ^ (1 << d.below(15)));
    for (int& tag : tags)
        if (tag == conformance_tag) tag = 5;
    // Streams: 0 to 3 messages from each rank to each (a rank whose receives come after its
    // messages are queued is sent at most 3 per stream: no transport must hold more unreceived
    // for the sends to go out, core/concepts.hpp "Buffering"; posted first, up to 5); 3 from
    // every rank to the hot one.
    std::vector<std::vector<message>> by_sender(P);
    std::uint32_t next_seed = static_cast<std::uint32_t>(d.next());
    for (int s = 0; s < p; ++s)
        for (int t = 0; t < p; ++t) {
            if (t != hot && d.percent(40)) continue;
            const int most = r.posted_first[static_cast<std::size_t>(t)] ? 5 : 3;
            for (int n = t == hot ? most : 1 + d.below(most); n > 0; --n) {
                std::size_t size = d.percent(85) ? d.pick(size_pool) : static_cast<std::size_t>(d.below(70000));
                if (d.percent(2)) size = std::size_t{1} << 20;
                by_sender[static_cast<std::size_t>(s)].push_back({s, t, d.pick(tags), size, next_seed++});
            }
        }
    // Each sender interleaves its streams: shuffle its messages, keeping each stream in order
    // is not needed (the order drawn is the stream's order).
    for (auto& v : by_sender) {
        for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<std::size_t>(d.below(static_cast<int>(i)))]);
        r.messages.insert(r.messages.end(), v.begin(), v.end());
    }
    // Receives: each rank merges its streams at random; each receive's spec leaves open what
    // no other sender could fill.
    for (int t = 0; t < p; ++t) {
        std::vector<std::vector<std::size_t>> streams(P);
        for (std::size_t i = 0; i < r.messages.size(); ++i)
            if (r.messages[i].dest == t) streams[static_cast<std::size_t>(r.messages[i].source)].push_back(i);
        int senders = 0;
        for (const auto& st : streams) senders += !st.empty();
        const auto only_sender_of_tag = [&](int s, int tag) {
            for (int o = 0; o < p; ++o)
                if (o != s)
                    for (std::size_t i : streams[static_cast<std::size_t>(o)])
                        if (r.messages[i].tag == tag) return false;
            return true;
        };
        std::vector<std::size_t> at(P, 0);
        for (;;) {
            std::vector<int> open;
            for (int s = 0; s < p; ++s)
                if (at[static_cast<std::size_t>(s)] < streams[static_cast<std::size_t>(s)].size()) open.push_back(s);
            if (open.empty()) break;
            const int s = d.pick(open);
            const std::size_t i = streams[static_cast<std::size_t>(s)][at[static_cast<std::size_t>(s)]++];
            const message& m = r.messages[i];
            receive rcv{s, m.tag, m.size, i};
            const int form = d.below(100);
            if (form < 25)
                rcv.tag = any_tag;
            else if (form < 45 && only_sender_of_tag(s, m.tag))
                rcv.source = any_source;
            else if (form < 55 && t == 0 && senders == 1)
                rcv.source = any_source, rcv.tag = any_tag;
            const int room = d.below(100);
            if (room < 6 && m.size > 0)
                rcv.buffer = static_cast<std::size_t>(d.below(static_cast<int>(std::min<std::size_t>(m.size, 1 << 20))));
            else if (room < 40)
                rcv.buffer = m.size + 1 + static_cast<std::size_t>(d.below(d.percent(50) ? 16 : 5000));
            r.receives[static_cast<std::size_t>(t)].push_back(rcv);
        }
    }
    return r;
}

inline std::string spec(int source, int tag) {
    return "(" + (source == any_source ? std::string("any_source") : std::to_string(source)) + ", " +
           (tag == any_tag ? std::string("any_tag") : std::to_string(tag)) + ")";
}

inline constexpr std::byte untouched{0xC3};

/// Keeps the buffers of a round that failed until the process ends (reachable, not leaked).
inline void park(std::vector<std::vector<std::byte>>&& in, std::vector<std::vector<std::byte>>&& out) {
    static std::mutex m;
    static std::vector<std::vector<std::vector<std::byte>>> parked;
    std::lock_guard g(m);
    parked.push_back(std::move(in));
    parked.push_back(std::move(out));
}

}  // namespace traffic

/// The rules together, on seeded random traffic (traffic.hpp's model): groups of 1 to 9 ranks,
/// six rounds each. Every receive gets the message the model says, with its status, its bytes
/// and the bytes past it untouched; a message longer than its buffer raises truncation_error
/// from the test that completes it; iprobe reports the earliest message of a source and of a
/// tag while they are queued; every send completes with its status, and its buffer, the
/// caller's again, may be overwritten at once; a completed request tests as an empty status.
template <class Runner>
void random_traffic(const Runner& run, const limits& l) {
    const std::uint64_t base = traffic::seed();
    for (int wanted : {1, 2, 3, 4, 5, 7, 9})
    testing::detail::run_check(run, wanted, "random_traffic", l, [base](auto& t, session& s) {
        using request = typename std::remove_cvref_t<decltype(t)>::request;
        const int p = t.size(), me = t.rank();
        for (int k = 0; k < 6; ++k) {
            const traffic::round r = traffic::draw(p, k, base);
            const auto where = [&] {
                return "group of " + std::to_string(p) + ", round " + std::to_string(k) + " (COMET_CONFORMANCE_SEED=" + std::to_string(base) + ")";
            };
            const auto& mine = r.receives[static_cast<std::size_t>(me)];
            traffic::dice d{base ^ 0x5eedull ^ (static_cast<std::uint64_t>(me) << 8) ^ (static_cast<std::uint64_t>(k) << 32)};
            // Receive side: buffers filled with a mark, so the bytes past a message show.
            std::vector<std::vector<std::byte>> in(mine.size());
            for (std::size_t i = 0; i < mine.size(); ++i) in[i].assign(mine[i].buffer, traffic::untouched);
            std::vector<std::vector<std::byte>> out;
            // A failure leaves receives posted and sends pending: their buffers are parked, not
            // freed, so that a transport still writing or reading them fails no worse than the check.
            try {
                std::vector<request> recvs(mine.size());
                std::size_t posted = 0;
                const auto post = [&](std::size_t upto) {
                    for (; posted < upto; ++posted)
                        recvs[posted] = s.call("irecv", [&] { return t.irecv(mine[posted].source, mine[posted].tag, mutable_bytes(in[posted])); });
                };
                const bool mixed = r.mixed[static_cast<std::size_t>(me)];
                if (r.posted_first[static_cast<std::size_t>(me)]) post(mine.size());
                if (mixed) post(mine.size() / 2);
                // Send side.
                if (r.late[static_cast<std::size_t>(me)]) {
                    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
                    while (std::chrono::steady_clock::now() < until) {
                    }
                }
                std::vector<std::size_t> sent;
                std::vector<request> sends;
                for (std::size_t i = 0; i < r.messages.size(); ++i)
                    if (const auto& m = r.messages[i]; m.source == me) {
                        sent.push_back(i);
                        out.push_back(detail::pattern(m.size, m.seed));
                        sends.push_back(s.call("isend", [&] { return t.isend(m.dest, m.tag, const_bytes(out.back())); }));
                    }
                // Receives after the messages are queued: wait for the first of each tag of each
                // stream; then iprobe must report each source's and each tag's earliest.
                // Half posted, half not: the rest are posted after a while, progress() called
                // in between must leave a queued message for its own receive.
                if (mixed) {
                    s.for_a_while(std::chrono::milliseconds(1), [&] {
                        if constexpr (progress_transport<std::remove_cvref_t<decltype(t)>>)
                            s.call("progress", [&] { t.progress(); });
                        else
                            (void)s.iprobe(t, any_source, 6);
                    });
                    post(mine.size());
                }
                if (!r.posted_first[static_cast<std::size_t>(me)] && !mixed) {
                    for (int src = 0; src < p; ++src) {
                        std::vector<int> seen;
                        std::optional<std::size_t> first;
                        for (const auto& m : r.messages) {
                            if (m.source != src || m.dest != me) continue;
                            if (!first) first = static_cast<std::size_t>(&m - r.messages.data());
                            if (std::find(seen.begin(), seen.end(), m.tag) != seen.end()) continue;
                            seen.push_back(m.tag);
                            s.expect_status(s.probe(t, src, m.tag), src, m.tag, m.size,
                                            "iprobe" + traffic::spec(src, m.tag) + ", the earliest of its tag queued, " + where());
                        }
                        if (first) {
                            const auto& m = r.messages[*first];
                            const auto st = s.iprobe(t, src, any_tag);
                            s.expect(st.has_value(), "iprobe", traffic::spec(src, any_tag), " found nothing with messages of rank ", src,
                                     " queued, ", where());
                            s.expect_status(*st, src, m.tag, m.size, "iprobe" + traffic::spec(src, any_tag) + ", the earliest of its source queued, " + where());
                        }
                    }
                    // progress() keeps what has arrived as it was; any_source sees each sender's
                    // earliest of a tag nobody else sends here (and, on rank 0 with one sender, its
                    // earliest of all).
                    if constexpr (progress_transport<std::remove_cvref_t<decltype(t)>>)
                        for (int n = d.below(4); n > 0; --n) s.call("progress", [&] { t.progress(); });
                    std::vector<int> senders;
                    for (const auto& m : r.messages)
                        if (m.dest == me && std::find(senders.begin(), senders.end(), m.source) == senders.end()) senders.push_back(m.source);
                    for (const auto& m : r.messages) {
                        if (m.dest != me) continue;
                        const auto first_of_tag = std::find_if(r.messages.begin(), r.messages.end(), [&](const auto& x) { return x.dest == me && x.tag == m.tag; });
                        const bool one_sender = std::none_of(r.messages.begin(), r.messages.end(),
                                                             [&](const auto& x) { return x.dest == me && x.tag == m.tag && x.source != m.source; });
                        if (&*first_of_tag != &m || !one_sender) continue;
                        const auto st = s.iprobe(t, any_source, m.tag);
                        s.expect(st.has_value(), "iprobe", traffic::spec(any_source, m.tag), " found nothing with a message of rank ", m.source,
                                 " of that tag queued, ", where());
                        s.expect_status(*st, m.source, m.tag, m.size, "iprobe" + traffic::spec(any_source, m.tag) + ", only rank " +
                                                                          std::to_string(m.source) + " sending that tag, " + where());
                    }
                    if (me == 0 && senders.size() == 1) {
                        const auto& m = *std::find_if(r.messages.begin(), r.messages.end(), [&](const auto& x) { return x.dest == me; });
                        const auto st = s.iprobe(t, any_source, any_tag);
                        s.expect(st.has_value(), "iprobe(any_source, any_tag) found nothing with messages queued, ", where());
                        s.expect_status(*st, m.source, m.tag, m.size, "iprobe(any_source, any_tag), one sender, " + where());
                    }
                    // A tag nobody sent this round: nothing, from anyone.
                    int unused = 6 + d.below(900);
                    while (std::any_of(r.messages.begin(), r.messages.end(), [&](const auto& m) { return m.tag == unused; })) ++unused;
                    if (const auto st = s.iprobe(t, any_source, unused))
                        s.fail("iprobe", traffic::spec(any_source, unused), " reported {source ", st->source, ", tag ", st->tag, ", size ", st->size,
                               "}; nobody sent that tag, ", where());
                    post(mine.size());
                }
                // Every message of the round for this rank has a receive posted now, so iprobe finds
                // none of them (one a posted receive has taken is not queued).
                for (int n = 0; n < 3 && !r.messages.empty(); ++n) {
                    const auto& m = d.pick(r.messages);
                    const int src = d.percent(50) ? m.source : any_source;
                    if (const auto st = s.iprobe(t, src, m.tag))
                        s.fail("iprobe", traffic::spec(src, m.tag), " reported {source ", st->source, ", tag ", st->tag, ", size ", st->size,
                               "} with a receive posted for every message of the round to this rank, ", where());
                }
                // Complete everything, polling test in random order, each request checked as it completes.
                std::vector<bool> recv_done(recvs.size(), false), send_done(sends.size(), false);
                std::size_t left = recvs.size() + sends.size();
                const auto check_recv = [&](std::size_t i) {
                    const auto& rc = mine[i];
                    const auto& m = r.messages[rc.m];
                    const std::string what = "irecv" + traffic::spec(rc.source, rc.tag) + " of rank " + std::to_string(me) +
                                             "'s receive " + std::to_string(i + 1) + " of " + std::to_string(mine.size()) + ", written for the " +
                                             std::to_string(m.size) + "-byte message from rank " + std::to_string(m.source) + ", tag " +
                                             std::to_string(m.tag) + ", into " + std::to_string(rc.buffer) + " bytes, " + where();
                    std::optional<status> st;
                    bool truncated = false;
                    try {
                        st = s.call("test", [&] { return t.test(recvs[i]); });
                    } catch (const truncation_error& e) {
                        s.expect(m.size > rc.buffer, what, ": raised truncation_error (\"", e.what(), "\")");
                        truncated = true;
                    }
                    if (!truncated && !st) return false;
                    if (!truncated) {
                        s.expect(m.size <= rc.buffer, what, ": completed with status {source ", st->source, ", tag ", st->tag, ", size ", st->size,
                                 "} where the message is longer than the buffer (truncation_error expected)");
                        s.expect_status(*st, m.source, m.tag, m.size, what);
                        s.expect_pattern(in[i], m.size, m.seed, what);
                        for (std::size_t b = m.size; b < in[i].size(); ++b)
                            s.expect(in[i][b] == traffic::untouched, what, ": byte ", b, " of the buffer, past the message, was written");
                    }
                    if (!truncated && d.percent(20)) {
                        const auto again = s.call("test", [&] { return t.test(recvs[i]); });
                        s.expect(again && *again == status{}, what, ": test of the completed request must give an empty status at once");
                    }
                    return true;
                };
                const auto check_send = [&](std::size_t j) {
                    const auto st = s.call("test", [&] { return t.test(sends[j]); });
                    if (!st) return false;
                    const auto& m = r.messages[sent[j]];
                    s.expect_status(*st, m.dest, m.tag, m.size,
                                    "isend to rank " + std::to_string(m.dest) + ", tag " + std::to_string(m.tag) + ", " + std::to_string(m.size) +
                                        " bytes, " + where());
                    std::fill(out[j].begin(), out[j].end(), std::byte{0xA5});  // the caller's again
                    return true;
                };
                s.until(
                    [&]() -> std::optional<bool> {
                        const std::size_t n = recvs.size() + sends.size();
                        const std::size_t from = n ? static_cast<std::size_t>(d.below(static_cast<int>(n))) : 0;
                        for (std::size_t x = 0; x < n; ++x) {
                            const std::size_t y = (from + x) % n;
                            if (y < recvs.size()) {
                                if (!recv_done[y] && check_recv(y)) recv_done[y] = true, --left;
                            } else if (!send_done[y - recvs.size()] && check_send(y - recvs.size())) {
                                send_done[y - recvs.size()] = true, --left;
                            }
                        }
                        if (left == 0) return true;
                        return std::nullopt;
                    },
                    [&] {
                        std::string w;
                        for (std::size_t i = 0; i < recvs.size(); ++i)
                            if (!recv_done[i]) {
                                const auto& m = r.messages[mine[i].m];
                                w += (w.empty() ? "" : "; ") + std::string("irecv") + traffic::spec(mine[i].source, mine[i].tag) +
                                     " for the message from rank " + std::to_string(m.source) + ", tag " + std::to_string(m.tag);
                            }
                        for (std::size_t j = 0; j < sends.size(); ++j)
                            if (!send_done[j])
                                w += (w.empty() ? "" : "; ") + std::string("isend to rank ") + std::to_string(r.messages[sent[j]].dest) + ", tag " +
                                     std::to_string(r.messages[sent[j]].tag);
                        return w + " (" + where() + ")";
                    });
            } catch (...) {
                traffic::park(std::move(in), std::move(out));
                throw;
            }
            // Everything received: an iprobe for any of it, asked again, finds nothing.
            for (const auto& m : r.messages)
                if (m.dest == me)
                    if (const auto st = s.iprobe(t, d.percent(50) ? m.source : any_source, m.tag))
                        s.fail("iprobe(", m.source, " or any_source, ", m.tag, ") reported {source ", st->source, ", tag ", st->tag, ", size ",
                               st->size, "} after every message of the round was received, ", where());
            s.barrier(t);  // the next round's messages may not meet this round's receives
        }
    });
}


namespace traffic {

/// An integer-valued double in [-10^6, 10^6] for element `i` of rank `r` at step `k`: sums of
/// a few are exact, so every rank can compute every result itself.
inline double value(std::uint64_t seed, int k, int r, std::size_t i) {
    dice d{seed ^ (static_cast<std::uint64_t>(k) << 24) ^ (static_cast<std::uint64_t>(r) << 48) ^ (i * 0x9E37ull)};
    return static_cast<double>(d.below(2'000'001) - 1'000'000);
}

inline constexpr std::size_t length_pool[] = {0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 255, 256, 1000, 1001, 4096, 5000};

}  // namespace traffic

/// The operations together, on seeded random steps (groups of 1 to 5 and 7, three rounds of
/// 30 steps): collectives from random roots over random lengths and values (negative ones
/// too), each kind always into the same buffer, so that a transport keeping state from one
/// call to the next (a cache, a scratch sum, a schedule) shows it; and between random pairs
/// of ranks the blocking operations and each capability the type claims — send and recv of
/// random sizes (0 B after larger ones too), wait on a receive too small (truncation_error),
/// wait_all over requests with default-constructed ones among them, sendrecv both ways and
/// around a ring shifted by a random distance, issend pairs matched in reverse order (only
/// the matched one completes), bsend behind an isend of the same tag (taken in the order
/// sent), rsend into a posted receive, progress before test (the status is the message's).
template <class Runner>
void random_operations(const Runner& run, const limits& l) {
    const std::uint64_t base = traffic::seed() ^ 0x6f7073ull;
    for (int wanted : {1, 2, 3, 4, 5, 7})
    testing::detail::run_check(run, wanted, "random_operations", l, [base](auto& t, session& s) {
        using T = std::remove_cvref_t<decltype(t)>;
        using request = typename T::request;
        const int p = t.size(), me = t.rank();
        // Each kind of collective into its own buffer, the same storage every time.
        std::vector<double> reduce_buf(5000), nb_buf(5000), nb_buf2(5000);
        std::vector<std::byte> bcast_buf(5000 * 8), gather_out(5000), gather_all(5000 * static_cast<std::size_t>(p)),
            a2a_out(5000 * static_cast<std::size_t>(p)), a2a_in(5000 * static_cast<std::size_t>(p));
        std::vector<std::byte> in((1 << 16) + 64), in2((1 << 16) + 64);
        for (int round = 0; round < 3; ++round) {
            detail::first_failure f;
            traffic::dice d{base ^ (static_cast<std::uint64_t>(p) << 40) ^ (static_cast<std::uint64_t>(round) << 20)};
            const auto where = [&](int k) {
                return comet::detail::concat(" (group of ", p, ", round ", round, ", step ", k, ", COMET_CONFORMANCE_SEED=", traffic::seed(), ")");
            };
            int last_kind = 0, last_root = 0;
            std::size_t last_n = 0;
            for (int k = 0; k < 30; ++k) {
                const std::uint64_t vs = base ^ (static_cast<std::uint64_t>(round) << 56);
                int kind = d.below(p >= 2 ? 16 : 10), root = d.below(p);
                std::size_t n = d.pick(traffic::length_pool);
                // A third of the collectives repeat the last one (its kind, root and length, into
                // the same buffer) with new values: a result kept from one call shows in the next.
                if (d.percent(33) && k > 0) kind = last_kind, root = last_root, n = last_n;
                if (kind <= 9) last_kind = kind, last_root = root, last_n = n;
                const auto value = [&](int r, std::size_t i) { return traffic::value(vs, k, r, i); };
                if (kind <= 2) {  // allreduce sum, max, min
                    std::span<double> v(reduce_buf.data(), n);
                    for (std::size_t i = 0; i < n; ++i) v[i] = value(me, i);
                    const char* name = kind == 0 ? "ops::allreduce_sum" : kind == 1 ? "ops::allreduce_max" : "ops::allreduce_min";
                    s.call(name, [&] { kind == 0 ? ops::allreduce_sum(t, v) : kind == 1 ? ops::allreduce_max(t, v) : ops::allreduce_min(t, v); });
                    for (std::size_t i = 0; i < n; ++i) {
                        double want = value(0, i);
                        for (int r = 1; r < p; ++r)
                            want = kind == 0 ? want + value(r, i) : kind == 1 ? std::max(want, value(r, i)) : std::min(want, value(r, i));
                        f.expect(v[i] == want, name, " of ", n, " elements: element ", i, " is ", v[i], ", expected ", want, where(k));
                    }
                } else if (kind <= 5) {  // reduce sum, max, min to a random root
                    std::span<double> v(reduce_buf.data(), n);
                    for (std::size_t i = 0; i < n; ++i) v[i] = value(me, i);
                    const char* name = kind == 3 ? "ops::reduce_sum" : kind == 4 ? "ops::reduce_max" : "ops::reduce_min";
                    s.call(name, [&] {
                        kind == 3 ? ops::reduce_sum(t, root, v) : kind == 4 ? ops::reduce_max(t, root, v) : ops::reduce_min(t, root, v);
                    });
                    for (std::size_t i = 0; i < n; ++i) {
                        double want = value(me, i);
                        if (me == root) {
                            want = value(0, i);
                            for (int r = 1; r < p; ++r)
                                want = kind == 3 ? want + value(r, i) : kind == 4 ? std::max(want, value(r, i)) : std::min(want, value(r, i));
                        }
                        f.expect(v[i] == want, name, " of ", n, " elements to root ", root, ": element ", i, " on rank ", me, " is ", v[i],
                                 ", expected ", want, me == root ? "" : " (left as it was)", where(k));
                    }
                } else if (kind == 6) {  // broadcast
                    const std::size_t bytes = n * 3;
                    const auto seed = static_cast<std::uint32_t>(vs + static_cast<std::uint64_t>(k));
                    std::span<std::byte> b(bcast_buf.data(), bytes);
                    if (me == root) {
                        const auto src = detail::pattern(bytes, seed);
                        std::copy(src.begin(), src.end(), b.begin());
                    }
                    s.call("ops::broadcast", [&] { ops::broadcast(t, root, b); });
                    f.expect(std::ranges::equal(b, detail::pattern(bytes, seed)), "broadcast of ", bytes, " bytes from root ", root,
                             " gave other bytes", where(k));
                } else if (kind == 7) {  // gather
                    const auto seed_of = [&](int r) { return static_cast<std::uint32_t>(vs + static_cast<std::uint64_t>(k) * 31 + static_cast<std::uint64_t>(r)); };
                    const auto mine = detail::pattern(n, seed_of(me));
                    std::copy(mine.begin(), mine.end(), gather_out.begin());
                    std::span<std::byte> all(gather_all.data(), me == root ? n * static_cast<std::size_t>(p) : 0);
                    s.call("ops::gather", [&] { ops::gather(t, root, const_bytes(gather_out.data(), n), all); });
                    if (me == root)
                        for (int r = 0; r < p; ++r)
                            f.expect(std::ranges::equal(all.subspan(n * static_cast<std::size_t>(r), n), detail::pattern(n, seed_of(r))),
                                     "gather of ", n, " bytes a rank to root ", root, ": the block of rank ", r, " differs", where(k));
                } else if (kind == 8) {  // alltoall
                    const auto seed_of = [&](int from, int to) {
                        return static_cast<std::uint32_t>(vs + static_cast<std::uint64_t>(k) * 977 + static_cast<std::uint64_t>(from) * 31 + static_cast<std::uint64_t>(to));
                    };
                    const std::size_t all = n * static_cast<std::size_t>(p);
                    for (int r = 0; r < p; ++r) {
                        const auto b = detail::pattern(n, seed_of(me, r));
                        std::copy(b.begin(), b.end(), a2a_out.begin() + static_cast<std::ptrdiff_t>(n) * r);
                    }
                    s.call("ops::alltoall", [&] { ops::alltoall(t, const_bytes(a2a_out.data(), all), mutable_bytes(a2a_in.data(), all)); });
                    for (int r = 0; r < p; ++r)
                        f.expect(std::equal(a2a_in.begin() + static_cast<std::ptrdiff_t>(n) * r, a2a_in.begin() + static_cast<std::ptrdiff_t>(n) * (r + 1),
                                            detail::pattern(n, seed_of(r, me)).begin()),
                                 "alltoall of ", n, "-byte blocks: the block from rank ", r, " differs", where(k));
                } else if (kind == 9) {  // nonblocking collectives, or a barrier
                    if constexpr (nonblocking_collective_transport<T>) {
                        std::span<double> v(nb_buf.data(), n);
                        for (std::size_t i = 0; i < n; ++i) v[i] = value(me, i);
                        // Two outstanding at once, waited for in either order.
                        std::span<double> w(nb_buf2.data(), n / 2 + 1);
                        for (std::size_t i = 0; i < w.size(); ++i) w[i] = -value(me, i);
                        const bool second_first = d.percent(50);
                        auto r = s.call("iallreduce_sum", [&] { return t.iallreduce_sum(v); });
                        auto r2 = s.call("iallreduce_sum", [&] { return t.iallreduce_sum(w); });
                        if constexpr (progress_transport<T>)
                            for (int x = d.below(4); x > 0; --x) s.call("progress", [&] { t.progress(); });
                        s.call("ops::wait", [&] { ops::wait(t, second_first ? r2 : r); });
                        s.call("ops::wait", [&] { ops::wait(t, second_first ? r : r2); });
                        for (std::size_t i = 0; i < n; ++i) {
                            double want = 0;
                            for (int q = 0; q < p; ++q) want += value(q, i);
                            f.expect(v[i] == want, "iallreduce_sum of ", n, " elements: element ", i, " is ", v[i], ", expected ", want,
                                     " (another iallreduce_sum outstanding)", where(k));
                        }
                        for (std::size_t i = 0; i < w.size(); ++i) {
                            double want = 0;
                            for (int q = 0; q < p; ++q) want -= value(q, i);
                            f.expect(w[i] == want, "the second of two outstanding iallreduce_sums, of ", w.size(), " elements: element ", i, " is ",
                                     w[i], ", expected ", want, where(k));
                        }
                        const std::size_t bytes = n * 3;
                        const auto seed = static_cast<std::uint32_t>(vs + static_cast<std::uint64_t>(k) * 7);
                        std::span<std::byte> b(bcast_buf.data(), bytes);
                        if (me == root) {
                            const auto src = detail::pattern(bytes, seed);
                            std::copy(src.begin(), src.end(), b.begin());
                        }
                        auto rb = s.call("ibroadcast", [&] { return t.ibroadcast(root, b); });
                        s.call("ops::wait", [&] { ops::wait(t, rb); });
                        f.expect(std::ranges::equal(b, detail::pattern(bytes, seed)), "ibroadcast of ", bytes, " bytes from root ", root,
                                 " gave other bytes", where(k));
                    } else {
                        s.call("ops::barrier", [&] { ops::barrier(t); });
                    }
                } else {  // between pairs of ranks
                    std::vector<int> order(static_cast<std::size_t>(p));
                    for (int r = 0; r < p; ++r) order[static_cast<std::size_t>(r)] = r;
                    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[static_cast<std::size_t>(d.below(static_cast<int>(i)))]);
                    const std::size_t n1 = d.percent(50) ? d.pick(traffic::length_pool) : static_cast<std::size_t>(d.below(1 << 16));
                    const std::size_t n2 = d.percent(30) ? 0 : d.pick(traffic::length_pool);
                    const int tag = std::min(d.percent(70) ? d.below(1000) : d.pick(traffic::tag_pool), first_reserved_tag + 500);
                    const int form = d.below(14);
                    const int shift = 1 + d.below(std::max(1, p - 1));
                    // Drawn here, by every rank alike, whether or not this rank uses them.
                    const int slot1 = d.below(2), slot2 = 2 + d.below(2), polls = 1 + d.below(50);
                    const bool one_by_one = d.percent(50);
                    if (form == 8) {  // sendrecv around a ring shifted by `shift`
                        if constexpr (sendrecv_transport<T>) {
                            const int to = (me + shift) % p, from = (me + p - shift) % p;
                            const auto out = detail::pattern(n1, static_cast<std::uint32_t>(tag * 131 + me));
                            const status st = s.call("sendrecv", [&] { return t.sendrecv(to, tag, out, from, tag, mutable_bytes(in.data(), n1)); });
                            f.expect_status(st, from, tag, n1, comet::detail::concat("sendrecv to rank ", to, " from rank ", from, where(k)));
                            f.expect_pattern(std::span(in.data(), n1), n1, static_cast<std::uint32_t>(tag * 131 + from),
                                             comet::detail::concat("sendrecv from rank ", from, where(k)));
                        }
                        continue;
                    }
                    // rsend where the type has it, else a standard send.
                    const auto ready_send = [&](int to, int tg, const_bytes m) {
                        if constexpr (ready_send_transport<T>)
                            s.call("rsend", [&] { t.rsend(to, tg, m); });
                        else
                            s.send(t, to, tg, m);
                    };
                    const auto at = std::find(order.begin(), order.end(), me) - order.begin();
                    if (static_cast<std::size_t>(at ^ 1) >= order.size()) continue;  // the odd one out
                    const int peer = order[static_cast<std::size_t>(at ^ 1)];
                    const bool first = (at % 2) == 0;
                    const auto seed1 = static_cast<std::uint32_t>(vs + static_cast<std::uint64_t>(k) * 13 + static_cast<std::uint64_t>(first ? me : peer));
                    const auto seed2 = seed1 ^ 0x5555u;
                    const std::string pair = comet::detail::concat(" between ranks ", first ? me : peer, " and ", first ? peer : me, where(k));
                    if (form <= 2) {  // send/recv of n1 one way, n2 the other (recv with any_tag when form 1)
                        const int want_tag = form == 1 ? any_tag : tag;
                        if (first) {
                            s.call("ops::send", [&] { ops::send(t, peer, tag, detail::pattern(n1, seed1)); });
                            const status st = s.call("ops::recv", [&] { return ops::recv(t, peer, want_tag, mutable_bytes(in.data(), n2 + 8)); });
                            f.expect_status(st, peer, tag, n2, "recv of the " + std::to_string(n2) + "-byte answer" + pair);
                            f.expect_pattern(std::span(in.data(), n2), n2, seed2, "recv of the answer" + pair);
                        } else {
                            const status st = s.call("ops::recv", [&] { return ops::recv(t, peer, want_tag, mutable_bytes(in.data(), n1 + 8)); });
                            f.expect_status(st, peer, tag, n1, "recv of a " + std::to_string(n1) + "-byte message" + pair);
                            f.expect_pattern(std::span(in.data(), n1), n1, seed1, "recv" + pair);
                            s.call("ops::send", [&] { ops::send(t, peer, tag, detail::pattern(n2, seed2)); });
                        }
                    } else if (form == 3) {  // wait on a receive too small: truncation_error
                        const std::size_t big = n1 + 1;
                        if (first) {
                            s.call("ops::send", [&] { ops::send(t, peer, tag, detail::pattern(big, seed1)); });
                        } else {
                            auto r = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in.data(), n1)); });
                            bool raised = false;
                            try {
                                s.call("ops::wait", [&] { return ops::wait(t, r); });
                            } catch (const truncation_error&) {
                                raised = true;
                            }
                            f.expect(raised, "ops::wait on a receive of ", n1, " bytes that matched a ", big,
                                     "-byte message: no truncation_error was raised", pair);
                        }
                    } else if (form == 4) {  // wait_all over requests, default-constructed ones among them
                        const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                        std::vector<request> rs(4);
                        if (first) {
                            rs[1] = s.call("isend", [&] { return t.isend(peer, tag, const_bytes(m1)); });
                            rs[3] = s.call("isend", [&] { return t.isend(peer, tag, const_bytes(m2)); });
                        } else {
                            rs[static_cast<std::size_t>(slot1)] = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in.data(), n1)); });
                            rs[static_cast<std::size_t>(slot2)] = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in2.data(), n2)); });
                        }
                        if (one_by_one) {  // ops::wait on each: its own operation's status
                            for (std::size_t i = 0; i < rs.size(); ++i) {
                                const bool empty = first ? (i == 0 || i == 2) : (i != static_cast<std::size_t>(slot1) && i != static_cast<std::size_t>(slot2));
                                const std::size_t size = first ? (i == 1 ? n1 : n2) : (i == static_cast<std::size_t>(slot1) ? n1 : n2);
                                const status st = s.call("ops::wait", [&] { return ops::wait(t, rs[i]); });
                                if (empty)
                                    f.expect(st == status{}, "ops::wait on a default-constructed request gave a status", pair);
                                else
                                    f.expect_status(st, peer, tag, size, comet::detail::concat("ops::wait on request ", i + 1, " of 4", pair));
                            }
                        } else {
                            s.call("ops::wait_all", [&] { ops::wait_all(t, std::span<request>(rs)); });
                        }
                        for (auto& r : rs) {
                            const auto st = s.call("test", [&] { return t.test(r); });
                            f.expect(st && *st == status{}, "a request wait_all completed tests as pending or not empty", pair);
                        }
                        if (!first) {
                            f.expect_pattern(std::span(in.data(), n1), n1, seed1, "the first message received by wait_all" + pair);
                            f.expect_pattern(std::span(in2.data(), n2), n2, seed2, "the second message received by wait_all" + pair);
                        }
                    } else if (form == 5) {  // two issends matched in reverse order
                        if constexpr (synchronous_send_transport<T>) {
                            const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                            if (first) {
                                auto r1 = s.call("issend", [&] { return t.issend(peer, tag, const_bytes(m1)); });
                                auto r2 = s.call("issend", [&] { return t.issend(peer, tag + 1, const_bytes(m2)); });
                                s.recv(t, peer, tag + 2, mutable_bytes{});  // "took the second"
                                s.expect_status(s.wait_send(t, r2, peer, tag + 1), peer, tag + 1, n2, "the issend matched first" + pair);
                                s.for_a_while(std::chrono::milliseconds(2), [&] {
                                    f.expect(!s.call("test", [&] { return t.test(r1); }).has_value(),
                                             "an issend completed before its message was received (the other one was)", pair);
                                });
                                s.send(t, peer, tag + 3, const_bytes{});  // "take the first"
                                s.expect_status(s.wait_send(t, r1, peer, tag), peer, tag, n1, "the issend matched second" + pair);
                            } else {
                                s.probe(t, peer, tag);
                                f.expect_status(s.recv(t, peer, tag + 1, mutable_bytes(in.data(), n2)), peer, tag + 1, n2, "the second issend's message" + pair);
                                s.send(t, peer, tag + 2, const_bytes{});
                                s.recv(t, peer, tag + 3, mutable_bytes{});
                                f.expect_status(s.recv(t, peer, tag, mutable_bytes(in.data(), n1)), peer, tag, n1, "the first issend's message" + pair);
                            }
                        }
                    } else if (form == 6) {  // bsend behind an isend of the same tag
                        if constexpr (buffered_send_transport<T>) {
                            const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                            if (first) {
                                auto r = s.call("isend", [&] { return t.isend(peer, tag, const_bytes(m1)); });
                                s.call("bsend", [&] { t.bsend(peer, tag, m2); });
                                s.wait_send(t, r, peer, tag);
                            } else {
                                s.probe(t, peer, tag);
                                f.expect_status(s.recv(t, peer, tag, mutable_bytes(in.data(), n1)), peer, tag, n1,
                                                "the isend's message, sent before a bsend of the same tag" + pair);
                                f.expect_status(s.recv(t, peer, tag, mutable_bytes(in.data(), n2)), peer, tag, n2, "the bsend's message" + pair);
                                f.expect_pattern(std::span(in.data(), n2), n2, seed2, "the bsend's message" + pair);
                            }
                        }
                    } else if (form == 9) {  // wait_all over many requests
                        const int many = 60 + static_cast<int>(n2 % 80);
                        std::vector<std::vector<std::byte>> ms;
                        std::vector<request> rs;
                        for (int i = 0; i < many; ++i) ms.push_back(detail::pattern(static_cast<std::size_t>(i % 17), seed1 + static_cast<std::uint32_t>(i)));
                        std::vector<std::vector<std::byte>> got(static_cast<std::size_t>(many), std::vector<std::byte>(17, traffic::untouched));
                        for (int i = 0; i < many; ++i)
                            rs.push_back(first ? s.call("isend", [&] { return t.isend(peer, tag, const_bytes(ms[static_cast<std::size_t>(i)])); })
                                               : s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(got[static_cast<std::size_t>(i)])); }));
                        s.call("ops::wait_all", [&] { ops::wait_all(t, std::span<request>(rs)); });
                        for (int i = 0; i < many; ++i) {
                            const auto st = s.call("test", [&] { return t.test(rs[static_cast<std::size_t>(i)]); });
                            f.expect(st && *st == status{}, "request ", i + 1, " of ", many, " was not complete after wait_all", pair);
                            if (!first)
                                f.expect_pattern(got[static_cast<std::size_t>(i)], static_cast<std::size_t>(i % 17), seed1 + static_cast<std::uint32_t>(i),
                                                 comet::detail::concat("message ", i + 1, " of ", many, " completed by one wait_all", pair));
                        }
                    } else if (form == 10) {  // recv(any_source, tag) past an earlier message of another tag
                        const int named = std::min(tag, first_reserved_tag - 2);  // no collective's own tag
                        if (first) {
                            const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                            auto r1 = s.call("isend", [&] { return t.isend(peer, named + 1, const_bytes(m1)); });
                            auto r2 = s.call("isend", [&] { return t.isend(peer, named, const_bytes(m2)); });
                            s.wait_send(t, r1, peer, named + 1);
                            s.wait_send(t, r2, peer, named);
                        } else {
                            s.probe(t, peer, named + 1);
                            f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, any_source, named, mutable_bytes(in.data(), n2)); }), peer, named,
                                            n2, "recv(any_source, " + std::to_string(named) + ") with a message of tag " + std::to_string(named + 1) +
                                                    " from the same rank queued before" + pair);
                            f.expect_pattern(std::span(in.data(), n2), n2, seed2, "recv(any_source, tag)" + pair);
                            f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, peer, named + 1, mutable_bytes(in.data(), n1)); }), peer,
                                            named + 1, n1, "recv of the earlier message" + pair);
                        }
                    } else if (form == 11) {  // issend to oneself; an issend matched by a receive too small
                        if constexpr (synchronous_send_transport<T>) {
                            const auto m1 = detail::pattern(n1, seed1);
                            auto r = s.call("issend", [&] { return t.issend(me, tag, const_bytes(m1)); });
                            f.expect_status(s.recv(t, me, tag, mutable_bytes(in.data(), n1)), me, tag, n1, "a message this rank issent itself" + pair);
                            f.expect_status(s.wait_send(t, r, me, tag), me, tag, n1, "an issend to oneself, once received" + pair);
                            const auto big = detail::pattern(n1 + 1, seed2);
                            if (first) {
                                auto rb = s.call("issend", [&] { return t.issend(peer, tag, const_bytes(big)); });
                                f.expect_status(s.wait_send(t, rb, peer, tag), peer, tag, n1 + 1, "an issend whose receive was too small" + pair);
                            } else {
                                auto rr = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in.data(), n1)); });
                                s.expect_throw<truncation_error>([&] { s.wait_recv(t, rr, peer, tag); }, {std::to_string(n1 + 1)},
                                                                 "an issend's message into a receive too small");
                            }
                        }
                    } else if (form == 12) {  // a ready message past an earlier posted receive naming another source
                        const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                        if (first) {
                            s.recv(t, peer, tag + 1, mutable_bytes{});  // "posted"
                            ready_send(peer, tag, m1);
                            std::byte again{};
                            s.recv(t, peer, tag + 2, mutable_bytes(&again, 1));
                            if (again == std::byte{1}) s.send(t, peer, tag, m1);  // the receive it was for still waits
                        } else {
                            // Posted first: a receive of the same tag naming this rank itself (room
                            // for any message: one that took the ready one must not raise).
                            auto own = s.call("irecv", [&] { return t.irecv(me, tag, mutable_bytes(in2)); });
                            auto r = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in.data(), n1)); });
                            s.send(t, peer, tag + 1, const_bytes{});
                            // Whichever completes first: a receive that took the wrong message
                            // is a failure of this round, and the ranks go on together.
                            const auto [which, st] = s.until(
                                [&]() -> std::optional<std::pair<int, status>> {
                                    if (auto x = s.call("test", [&] { return t.test(r); })) return std::pair{0, *x};
                                    if (auto x = s.call("test", [&] { return t.test(own); })) return std::pair{1, *x};
                                    return std::nullopt;
                                },
                                [&] { return comet::detail::concat("a ready message from rank ", peer, ", tag ", tag, pair); });
                            f.expect(which == 0, "a receive from rank ", me, " (itself), tag ", tag, " completed before rank ", me,
                                     " sent anything, with status {source ", st.source, ", tag ", st.tag, ", size ", st.size,
                                     "}: a ready message went into a receive naming another source", pair);
                            const std::byte again{static_cast<unsigned char>(which)};
                            s.send(t, peer, tag + 2, const_bytes(&again, 1));
                            if (which == 1) {
                                s.wait_recv(t, r, peer, tag);  // sent again, so that the ranks go on together
                            } else {
                                f.expect_status(st, peer, tag, n1, "a ready message, with a receive of its tag naming another source posted before its own" + pair);
                                f.expect_pattern(std::span(in.data(), n1), n1, seed1, "a ready message past a receive naming another source" + pair);
                                auto mine = s.call("isend", [&] { return t.isend(me, tag, const_bytes(m2)); });
                                f.expect_status(s.wait_recv(t, own, me, tag), me, tag, n2, "a message to oneself into the receive posted first" + pair);
                                s.wait_send(t, mine, me, tag);
                            }
                        }
                    } else if (form == 13) {  // progress() with a message of another tag queued and a receive posted
                        const int named = std::min(tag, first_reserved_tag - 3);  // no collective's own tag
                        const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                        if (first) {
                            auto r1 = s.call("isend", [&] { return t.isend(peer, named + 1, const_bytes(m1)); });
                            s.recv(t, peer, named + 2, mutable_bytes{});  // "posted, and progressed"
                            s.send(t, peer, named, m2);
                            s.wait_send(t, r1, peer, named + 1);
                        } else {
                            s.probe(t, peer, named + 1);
                            auto r = s.call("irecv", [&] { return t.irecv(peer, named, mutable_bytes(in.data(), n2)); });
                            if constexpr (progress_transport<T>)
                                for (int x = polls; x > 0; --x) s.call("progress", [&] { t.progress(); });
                            f.expect(!s.call("test", [&] { return t.test(r); }).has_value(), "a receive of tag ", named, " from rank ", peer,
                                     " completed before any message of that tag was sent (one of tag ", named + 1, " was queued)", pair);
                            s.send(t, peer, named + 2, const_bytes{});
                            f.expect_status(s.wait_recv(t, r, peer, named), peer, named, n2, "a receive posted beside a queued message of another tag" + pair);
                            f.expect_pattern(std::span(in.data(), n2), n2, seed2, "a receive posted beside a queued message of another tag" + pair);
                            f.expect_status(s.recv(t, peer, named + 1, mutable_bytes(in.data(), n1)), peer, named + 1, n1, "the queued message" + pair);
                            f.expect_pattern(std::span(in.data(), n1), n1, seed1, "the queued message" + pair);
                        }
                    } else {  // form 7: rsend into a posted receive, or progress before test
                        const auto m1 = detail::pattern(n1, seed1);
                        if (first) {
                            s.recv(t, peer, tag + 1, mutable_bytes{});  // "posted"
                            ready_send(peer, tag, m1);
                        } else {
                            auto r = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in.data(), n1)); });
                            s.send(t, peer, tag + 1, const_bytes{});
                            if constexpr (progress_transport<T>)
                                for (int x = polls; x > 0; --x) s.call("progress", [&] { t.progress(); });
                            f.expect_status(s.wait_recv(t, r, peer, tag), peer, tag, n1, "a ready message into a posted receive, after progress()" + pair);
                            f.expect_pattern(std::span(in.data(), n1), n1, seed1, "a ready message" + pair);
                        }
                    }
                }
            }
            f.settle(s);
            s.barrier(t);
        }
    });
}

}  // namespace comet::testing::checks
