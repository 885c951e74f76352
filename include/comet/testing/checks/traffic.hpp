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
    for (std::size_t i = 0; i < P; ++i) r.posted_first[i] = d.percent(50), r.late[i] = d.percent(30);
    // A third of the rounds have a hot rank every rank sends all it may: a deep queue.
    const int hot = d.percent(35) ? d.below(p) : -1;
    if (hot >= 0) r.posted_first[static_cast<std::size_t>(hot)] = false;
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
                const auto post = [&] {
                    for (std::size_t i = 0; i < mine.size(); ++i)
                        recvs[i] = s.call("irecv", [&] { return t.irecv(mine[i].source, mine[i].tag, mutable_bytes(in[i])); });
                };
                if (r.posted_first[static_cast<std::size_t>(me)]) post();
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
                if (!r.posted_first[static_cast<std::size_t>(me)]) {
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
                    // A tag nobody sent this round: nothing, from anyone.
                    int unused = 6 + d.below(900);
                    while (std::any_of(r.messages.begin(), r.messages.end(), [&](const auto& m) { return m.tag == unused; })) ++unused;
                    if (const auto st = s.iprobe(t, any_source, unused))
                        s.fail("iprobe", traffic::spec(any_source, unused), " reported {source ", st->source, ", tag ", st->tag, ", size ", st->size,
                               "}; nobody sent that tag, ", where());
                    post();
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
            s.barrier(t);  // the next round's messages may not meet this round's receives
        }
    });
}

}  // namespace comet::testing::checks
