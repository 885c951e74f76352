// comet/testing/checks/traffic_model.hpp — seeded random traffic, as the random checks draw it
// (checks/random_traffic.hpp, checks/random_operations.hpp): the seed, dice that give every
// rank the same numbers, the pools of tags and sizes worth drawing, the mark of bytes nobody
// wrote, and the model of one round of traffic between random pairs of a group.
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
// The default seed is fixed, so a run is repeatable; COMET_CONFORMANCE_SEED=<seed> replays a
// failure, or draws other rounds.
#pragma once

#include <comet/core/types.hpp>
#include <comet/testing/session.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
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

/// What a receive buffer is filled with before a message comes: the bytes nobody wrote show.
inline constexpr std::byte untouched{0xC3};

}  // namespace traffic

}  // namespace comet::testing::checks
