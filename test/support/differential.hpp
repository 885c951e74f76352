// The randomized differential test of the transports: a generator of random message-passing
// programs from a seed, and the per-rank interpreter that runs one on any Transport and checks
// every byte, source, tag, size and the order of what it received.
//
// A program is a function of (seed, group size, what the transport offers) only, so every rank
// generates the same one. It is a sequence of steps:
//   - a point-to-point phase: a random set of messages (source, destination, tag, size on the
//     transports' protocol edges, a send form) and, on each destination, a receive for each of
//     them, by exact source and tag or by any_source / any_tag / both, each in a form (posted
//     before any send, blocking, irecv + wait, irecv + polled test, iprobe then receive, irecv
//     completed at the end), sends to self among them;
//   - a both-send-first exchange between disjoint pairs of ranks;
//   - a collective through comet::ops (barrier, broadcast, the allreduces, the reductions to a
//     root, gather, alltoall), its result checked on every rank.
// The payload of every message is a pattern derived from (seed, message), so the receiver checks
// every byte, and the bytes a receive buffer holds past the message are checked untouched.
//
// Why the programs cannot deadlock on a correct transport (the Transport concept's rules,
// core/concepts.hpp; MPI's):
//   - a phase runs in four stages on every rank: (a) post the receives chosen to go first,
//     (b) send, in order, (c) the other receives, in order, (d) complete what is pending. A send
//     that completes in stage (b) (a blocking `send`, or an isend waited for at once) is one
//     whose matching receive is posted in stage (a) ("pre-matched"), or, on a transport whose
//     sends never wait for the receiver (`buffering_transport`), the first message to its
//     destination in the phase or one to itself: the concept promises that two ranks that both
//     send once and then receive complete, and no more (the simulator's eager buffers run out).
//   - receives are classes that leave no choice to matching: all the messages of one tag at a
//     destination are received by any_source receives or by none; all those of one source by
//     any_tag receives or by none; all of a destination's by (any_source, any_tag) receives or by
//     none. The receives of a class are as many as its messages, so every receive gets one of
//     them whatever the arrival order. A tag received by any_source at a rank is not sent to that
//     rank again before a fence; a phase with (any_source, any_tag) receives ends with a barrier
//     that sends no message of the user's (the transports' native ones), so no later message
//     can be taken by them.
//   - the checker: a receive's message must be the next one sent in its stream, the messages of
//     its class from the source its status names (with its tag, unless the class is any_tag):
//     non-overtaking, per (source, tag) and, for any_tag receives, per source.
// A failure is a comet::verification_error naming the seed, the group size, the step, the rank
// and what differed; the transports' own deadlock reports (threads, simulator) name the step the
// rank was in through `where`.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/hash.hpp>
#include <comet/core/types.hpp>
#include <comet/ops/ops.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace comet_test::differential {

// ---- randomness: a deterministic generator, the same on every rank and every platform ----

/// splitmix64 (core/hash.hpp): the seed mixer and the stream.
inline std::uint64_t mix(std::uint64_t x) noexcept { return comet::detail::splitmix64(x); }

class rng {
public:
    explicit rng(std::uint64_t seed) noexcept : s_(mix(seed)) {}
    std::uint64_t next() noexcept { return mix(s_++); }
    /// Uniform in [lo, hi] (hi - lo small: the modulo's bias does not matter here).
    int between(int lo, int hi) noexcept { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
    bool one_in(int n) noexcept { return next() % static_cast<std::uint64_t>(n) == 0; }
    template <class V>
    void shuffle(V& v) noexcept {
        for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[next() % i]);
    }

private:
    std::uint64_t s_;
};

/// The payload of the message (or collective block) named by `key`: a xorshift stream.
inline void fill(std::span<std::byte> out, std::uint64_t key) noexcept {
    std::uint64_t x = mix(key) | 1;
    std::size_t i = 0;
    for (; i + 8 <= out.size(); i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        std::memcpy(out.data() + i, &x, 8);
    }
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    for (unsigned k = 0; i < out.size(); ++i, ++k) out[i] = static_cast<std::byte>(x >> (8 * k));
}

/// What a receive buffer holds where nothing may be written.
inline constexpr std::byte sentinel{0xa5};

/// The offset of the first byte of `got` that differs from the pattern of `key`, if any.
inline std::optional<std::size_t> differs(std::span<const std::byte> got, std::uint64_t key) {
    std::vector<std::byte> want(got.size());
    fill(want, key);
    if (got.empty() || std::memcmp(got.data(), want.data(), got.size()) == 0) return std::nullopt;
    std::size_t i = 0;
    while (got[i] == want[i]) ++i;
    return i;
}

// ---- what a program may use ----

/// Sizes on the transports' protocol edges: the threads transport's 16-byte cache-line half, its
/// 48-byte unexpected cell and its 1000-byte eager limit; NX/2's 100-byte eager limit; the
/// common 4 KiB eager limit of MPI's shared-memory path; a page, 64 KiB, 1 MiB.
inline constexpr std::size_t edge_sizes[] = {0,    1,    16,   17,   48,   49,   100,   101,
                                             1000, 1001, 1024, 1025, 4096, 4097, 65536, std::size_t{1} << 20};

/// What the transport offers that changes which programs are safe (see the top of this file).
struct features {
    bool buffering = false;     ///< `ops::send` never waits for the receiver (buffering_transport)
    bool bsend = false;         ///< `t.bsend` (buffered_send_transport)
    bool sendrecv = false;      ///< `t.sendrecv` (sendrecv_transport)
    bool quiet_barrier = false; ///< `ops::barrier` is native: it sends none of the user's messages
};

template <comet::transport T>
constexpr features features_of() noexcept {
    return {comet::buffering_transport<T>, comet::buffered_send_transport<T>, comet::sendrecv_transport<T>,
            comet::ops::barrier.implementation_for<T>() == comet::ops::implementation::native};
}

/// Bounds on a program.
struct limits {
    int max_steps = 10;
    /// Messages of a phase: at most this many per rank (at least 1 in all).
    int messages_per_rank = 2;
    /// One message in this many is 1 MiB (when allowed), one in `large_one_in` is 64 KiB.
    int huge_one_in = 150;
    int large_one_in = 25;
    /// How long a polling loop (iprobe, test) may run, in seconds of the transport's clock.
    double poll_timeout = 60;
};

// ---- a program ----

enum class send_form : std::uint8_t { isend_later, isend_wait, isend_test, blocking, bsend };
enum class recv_form : std::uint8_t { early, blocking, irecv_wait, irecv_test, probe, irecv_later };
enum class recv_class : std::uint8_t { exact, any_source, any_tag, any };
enum class collective : std::uint8_t { barrier, broadcast, allreduce_sum, allreduce_max, allreduce_min, reduce_sum, reduce_max, reduce_min, gather, alltoall };
enum class exchange_form : std::uint8_t { bsend, send, isend_recv, irecv_send, sendrecv };

inline const char* name(send_form f) {
    constexpr const char* n[] = {"isend (waited at the end)", "isend+wait", "isend+test", "send", "bsend"};
    return n[static_cast<int>(f)];
}
inline const char* name(recv_form f) {
    constexpr const char* n[] = {"irecv posted first", "recv", "irecv+wait", "irecv+test", "iprobe then recv", "irecv (waited at the end)"};
    return n[static_cast<int>(f)];
}
inline const char* name(collective c) {
    constexpr const char* n[] = {"barrier",    "broadcast",  "allreduce_sum", "allreduce_max", "allreduce_min",
                                 "reduce_sum", "reduce_max", "reduce_min",    "gather",        "alltoall"};
    return n[static_cast<int>(c)];
}
inline const char* name(exchange_form f) {
    constexpr const char* n[] = {"bsend+recv", "send+recv", "isend+recv+wait", "irecv+send+wait", "sendrecv"};
    return n[static_cast<int>(f)];
}

struct message {
    int source = 0, dest = 0, tag = 0;
    std::size_t size = 0;
    std::uint32_t id = 0;  ///< unique in the program: names its payload
    int cls = 0;           ///< its receive class at the destination
    send_form form = send_form::isend_later;
};

struct receive {
    int source = comet::any_source, tag = comet::any_tag;  ///< the filter
    recv_class kind = recv_class::exact;
    int cls = 0;
    std::size_t capacity = 0;
    recv_form form = recv_form::blocking;
    int probe_polls = 0;  ///< probe: iprobes before falling back to the receive (0: until found)
    bool again = false;   ///< complete the request a second time: a default status at once
};

struct collective_step {
    collective kind = collective::barrier;
    int root = 0;
    std::size_t size = 0;  ///< bytes (broadcast; gather and alltoall per rank) or doubles
};

struct step {
    enum class kind : std::uint8_t { phase, exchange, collective } what = kind::phase;
    // phase
    std::vector<message> messages;               ///< in send order on each source
    std::vector<std::vector<receive>> receives;  ///< per destination, in post order
    bool fence = false;                          ///< ends with ops::barrier
    std::optional<collective_step> between;      ///< a collective between stages (b) and (c)
    // exchange
    std::vector<int> partner;  ///< -1: not in a pair
    std::vector<exchange_form> forms;
    int tag = 0;
    std::size_t size = 0;
    // collective
    collective_step coll;
    std::uint64_t key = 0;  ///< local choices and payloads
};

struct program {
    std::uint64_t seed = 0;
    int ranks = 0;
    std::vector<step> steps;
};

// ---- the generator ----

namespace detail {

inline std::size_t draw_size(rng& g, const limits& l, std::size_t cap) {
    std::size_t s;
    if (g.one_in(l.huge_one_in))
        s = std::size_t{1} << 20;
    else if (g.one_in(l.large_one_in))
        s = 65536;
    else if (g.one_in(10))
        s = static_cast<std::size_t>(g.between(0, 5000));
    else
        s = edge_sizes[g.next() % 14];  // the edges up to 4097
    return std::min(s, cap);
}

inline int draw_tag(rng& g) {
    if (g.one_in(10)) return 0;
    if (g.one_in(10)) return comet::first_reserved_tag - 1;
    return g.between(0, comet::first_reserved_tag - 1);
}

/// Slack past a receive's largest candidate: mostly none, sometimes a little or a lot.
inline std::size_t draw_slack(rng& g) {
    if (g.one_in(2)) return 0;
    if (g.one_in(2)) return static_cast<std::size_t>(g.between(1, 64));
    return static_cast<std::size_t>(g.between(65, 5000));
}

inline collective_step draw_collective(rng& g, int p) {
    collective_step c;
    c.kind = static_cast<collective>(g.between(0, 9));
    c.root = g.between(0, p - 1);
    switch (c.kind) {
    case collective::barrier: break;
    case collective::broadcast:
        c.size = g.one_in(40) && p <= 16 ? std::size_t{1} << 20 : edge_sizes[g.next() % 15];
        break;
    case collective::gather:
    case collective::alltoall: {
        // Keep a rank's buffers under 1 MiB: p blocks.
        std::size_t s = edge_sizes[g.next() % 15];
        while (s * static_cast<std::size_t>(p) > (std::size_t{1} << 20)) s /= 4;
        c.size = s;
        break;
    }
    default: {
        constexpr std::size_t counts[] = {1, 2, 3, 16, 100, 1000, 1025};
        c.size = counts[g.next() % 7];
    }
    }
    return c;
}

struct class_info {
    recv_class kind;
    int source, tag;  // filter
    std::vector<std::size_t> members;  // indices into messages, in send order
    std::size_t early = 0;             // receives of the class posted in stage (a)
    std::size_t receives = 0;
};

}  // namespace detail

/// The program of `seed` for a group of `ranks` on a transport offering `f`.
inline program generate(std::uint64_t seed, int ranks, const features& f, const limits& l = {}) {
    rng g(seed * 0x100000001b3ull + static_cast<std::uint64_t>(ranks));
    program prog;
    prog.seed = seed;
    prog.ranks = ranks;
    const int p = ranks;
    // Tags received by any_source at each rank since the last fence: no other message to that
    // rank may carry them.
    std::vector<std::set<int>> taken(static_cast<std::size_t>(p));
    const auto free_tag = [&](int dest) {
        for (;;)
            if (int t = detail::draw_tag(g); !taken[static_cast<std::size_t>(dest)].contains(t)) return t;
    };
    std::uint32_t next_id = 0;
    const int steps = g.between(2, l.max_steps);
    for (int k = 0; k < steps; ++k) {
        step s;
        s.key = g.next();
        const int roll = g.between(0, 99);
        if (roll < 60) {
            s.what = step::kind::phase;
            const int n = g.between(1, std::max(2, l.messages_per_rank * p));
            std::vector<int> palette(static_cast<std::size_t>(g.between(1, 3)));
            for (int& t : palette) t = detail::draw_tag(g);
            std::size_t huge = 0;
            for (int i = 0; i < n; ++i) {
                message m;
                m.source = g.between(0, p - 1);
                m.dest = g.one_in(6) ? m.source : g.between(0, p - 1);
                m.tag = palette[g.next() % palette.size()];
                if (taken[static_cast<std::size_t>(m.dest)].contains(m.tag)) m.tag = free_tag(m.dest);
                // At most a few MiB in flight in one phase.
                m.size = detail::draw_size(g, l, huge < 2 ? std::size_t{1} << 20 : 65536);
                huge += m.size == (std::size_t{1} << 20);
                m.id = next_id++;
                s.messages.push_back(m);
            }
            // Receive classes, per destination.
            s.receives.resize(static_cast<std::size_t>(p));
            std::vector<detail::class_info> classes;
            bool any_any = false;
            for (int d = 0; d < p; ++d) {
                std::vector<std::size_t> mine;
                for (std::size_t i = 0; i < s.messages.size(); ++i)
                    if (s.messages[i].dest == d) mine.push_back(i);
                if (mine.empty()) continue;
                const auto add_class = [&](recv_class kind, int src, int tag) {
                    classes.push_back({kind, src, tag, {}, 0, 0});
                    return static_cast<int>(classes.size() - 1);
                };
                if (f.quiet_barrier && g.one_in(8)) {
                    const int c = add_class(recv_class::any, comet::any_source, comet::any_tag);
                    for (auto i : mine) s.messages[i].cls = c;
                    any_any = true;
                } else {
                    std::map<int, int> by_tag;     // tag -> class (any_source)
                    std::set<int> tags, sources;
                    for (auto i : mine) tags.insert(s.messages[i].tag), sources.insert(s.messages[i].source);
                    for (int t : tags)
                        if (g.one_in(3)) by_tag[t] = add_class(recv_class::any_source, comet::any_source, t);
                    std::map<int, int> by_source;  // source -> class (any_tag)
                    for (int src : sources) {
                        bool clash = false;
                        for (auto i : mine)
                            clash |= s.messages[i].source == src && by_tag.contains(s.messages[i].tag);
                        if (!clash && g.one_in(3)) by_source[src] = add_class(recv_class::any_tag, src, comet::any_tag);
                    }
                    std::map<std::pair<int, int>, int> exact;
                    for (auto i : mine) {
                        message& m = s.messages[i];
                        if (auto it = by_tag.find(m.tag); it != by_tag.end())
                            m.cls = it->second;
                        else if (auto jt = by_source.find(m.source); jt != by_source.end())
                            m.cls = jt->second;
                        else if (auto kt = exact.find({m.source, m.tag}); kt != exact.end())
                            m.cls = kt->second;
                        else
                            m.cls = exact[{m.source, m.tag}] = add_class(recv_class::exact, m.source, m.tag);
                    }
                    for (const auto& [t, c] : by_tag) taken[static_cast<std::size_t>(d)].insert(t);
                }
                // The receives: one per message, in a random post order.
                std::vector<int> order;
                for (auto i : mine) order.push_back(s.messages[i].cls);
                g.shuffle(order);
                const std::size_t early = static_cast<std::size_t>(g.between(0, static_cast<int>(order.size())));
                for (std::size_t j = 0; j < order.size(); ++j) {
                    detail::class_info& c = classes[static_cast<std::size_t>(order[j])];
                    receive r;
                    r.kind = c.kind;
                    r.source = c.source;
                    r.tag = c.tag;
                    r.cls = order[j];
                    r.form = j < early ? recv_form::early : static_cast<recv_form>(g.between(1, 5));
                    r.probe_polls = g.one_in(2) ? 0 : (g.one_in(2) ? 1 : 16);
                    r.again = g.one_in(5);
                    if (j < early) ++c.early;
                    ++c.receives;
                    s.receives[static_cast<std::size_t>(d)].push_back(r);
                }
            }
            for (std::size_t i = 0; i < s.messages.size(); ++i) classes[static_cast<std::size_t>(s.messages[i].cls)].members.push_back(i);
            // Capacities: the message a receive of a single-source stream gets is known (the
            // k-th receive of the class gets the k-th message); a receive that takes from
            // several sources gets room for the largest.
            for (int d = 0; d < p; ++d) {
                std::map<int, std::size_t> taken_in_class;
                for (receive& r : s.receives[static_cast<std::size_t>(d)]) {
                    const detail::class_info& c = classes[static_cast<std::size_t>(r.cls)];
                    std::size_t room = 0;
                    if (r.kind == recv_class::exact || r.kind == recv_class::any_tag)
                        room = s.messages[c.members[taken_in_class[r.cls]++]].size;
                    else
                        for (auto i : c.members) room = std::max(room, s.messages[i].size);
                    r.capacity = room + detail::draw_slack(g);
                }
            }
            // Send forms.
            std::set<std::pair<int, int>> sent_to;
            std::map<int, std::size_t> index_in_class;
            for (message& m : s.messages) {
                const detail::class_info& c = classes[static_cast<std::size_t>(m.cls)];
                const std::size_t nth = index_in_class[m.cls]++;
                const bool single = c.kind == recv_class::exact || c.kind == recv_class::any_tag;
                const bool prematched = single ? nth < c.early : c.early == c.receives;
                const bool first = sent_to.insert({m.source, m.dest}).second;
                std::vector<send_form> allowed{send_form::isend_later};
                if (prematched) allowed.insert(allowed.end(), {send_form::isend_wait, send_form::isend_test, send_form::blocking});
                if (f.buffering && (first || m.dest == m.source) && !prematched) allowed.push_back(send_form::blocking);
                if (f.bsend && (first || m.dest == m.source)) allowed.push_back(send_form::bsend);
                m.form = allowed[g.next() % allowed.size()];
            }
            s.fence = any_any;
            if (!any_any && g.one_in(6)) s.between = detail::draw_collective(g, p);
        } else if (roll < 75) {
            s.what = step::kind::exchange;
            std::vector<int> ranks_left(static_cast<std::size_t>(p));
            for (int r = 0; r < p; ++r) ranks_left[static_cast<std::size_t>(r)] = r;
            g.shuffle(ranks_left);
            s.partner.assign(static_cast<std::size_t>(p), -1);
            const int pairs = g.between(1, p / 2);
            for (int i = 0; i < pairs; ++i) {
                const int a = ranks_left[static_cast<std::size_t>(2 * i)], b = ranks_left[static_cast<std::size_t>(2 * i + 1)];
                s.partner[static_cast<std::size_t>(a)] = b;
                s.partner[static_cast<std::size_t>(b)] = a;
            }
            s.size = detail::draw_size(g, l, std::size_t{1} << 20);
            s.tag = detail::draw_tag(g);
            for (int r = 0; r < p; ++r)
                if (const int q = s.partner[static_cast<std::size_t>(r)];
                    q >= 0 && (taken[static_cast<std::size_t>(r)].contains(s.tag) || taken[static_cast<std::size_t>(q)].contains(s.tag)))
                    s.partner[static_cast<std::size_t>(r)] = -1, s.partner[static_cast<std::size_t>(q)] = -1;
            std::vector<exchange_form> allowed{exchange_form::isend_recv, exchange_form::irecv_send};
            if (f.bsend) allowed.push_back(exchange_form::bsend);
            if (f.buffering) allowed.push_back(exchange_form::send);
            if (f.sendrecv) allowed.push_back(exchange_form::sendrecv);
            for (int r = 0; r < p; ++r) s.forms.push_back(allowed[g.next() % allowed.size()]);
        } else {
            s.what = step::kind::collective;
            s.coll = detail::draw_collective(g, p);
            if (s.coll.kind == collective::barrier && f.quiet_barrier)
                for (auto& t : taken) t.clear();  // a fence
        }
        if (s.what == step::kind::phase && s.fence)
            for (auto& t : taken) t.clear();
        prog.steps.push_back(std::move(s));
    }
    return prog;
}

// ---- describing a program (for failure reports and reproductions) ----

inline std::string filter(int source, int tag) {
    std::ostringstream os;
    os << (source == comet::any_source ? std::string("any source") : "from " + std::to_string(source)) << ", "
       << (tag == comet::any_tag ? std::string("any tag") : "tag " + std::to_string(tag));
    return os.str();
}

inline std::string describe(const collective_step& c) {
    std::ostringstream os;
    os << name(c.kind);
    switch (c.kind) {
    case collective::barrier: break;
    case collective::broadcast: os << " from " << c.root << ", " << c.size << " B"; break;
    case collective::gather: os << " to " << c.root << ", " << c.size << " B each"; break;
    case collective::alltoall: os << ", " << c.size << " B blocks"; break;
    case collective::reduce_sum:
    case collective::reduce_max:
    case collective::reduce_min: os << " to " << c.root << ", " << c.size << " doubles"; break;
    default: os << ", " << c.size << " doubles";
    }
    return os.str();
}

/// Step `k` of `prog`, a line per message and receive.
inline std::string describe(const program& prog, std::size_t k) {
    std::ostringstream os;
    const step& s = prog.steps[k];
    os << "step " << k << ": ";
    switch (s.what) {
    case step::kind::collective: os << describe(s.coll) << '\n'; break;
    case step::kind::exchange:
        os << "both-send-first exchange, tag " << s.tag << ", " << s.size << " B:";
        for (std::size_t r = 0; r < s.partner.size(); ++r)
            if (s.partner[r] > static_cast<int>(r))
                os << " " << r << " (" << name(s.forms[r]) << ") <-> " << s.partner[r] << " ("
                   << name(s.forms[static_cast<std::size_t>(s.partner[r])]) << ")";
        os << '\n';
        break;
    case step::kind::phase:
        os << "point-to-point phase" << (s.fence ? ", ending with a barrier" : "")
           << (s.between ? ", " + describe(*s.between) + " after the sends" : "") << '\n';
        for (const message& m : s.messages)
            os << "  message #" << m.id << ": " << m.source << " -> " << m.dest << ", tag " << m.tag << ", " << m.size
               << " B, " << name(m.form) << '\n';
        for (std::size_t d = 0; d < s.receives.size(); ++d)
            for (std::size_t j = 0; j < s.receives[d].size(); ++j) {
                const receive& r = s.receives[d][j];
                os << "  rank " << d << " receive " << j << ": " << filter(r.source, r.tag) << ", " << r.capacity << " B, "
                   << name(r.form);
                if (r.form == recv_form::probe)
                    os << (r.probe_polls ? " (" + std::to_string(r.probe_polls) + " polls)" : " (until found)");
                if (r.again) os << ", completed twice";
                os << '\n';
            }
    }
    return os.str();
}

inline std::string describe(const program& prog) {
    std::string out;
    for (std::size_t k = 0; k < prog.steps.size(); ++k) out += describe(prog, k);
    return out;
}

// ---- the interpreter ----

namespace detail {

/// The payload key of message `id` / of a collective's block.
inline std::uint64_t message_key(std::uint64_t seed, std::uint32_t id) { return mix(seed ^ (std::uint64_t{id} << 20) ^ 0x5a5a); }
inline std::uint64_t block_key(std::uint64_t seed, std::uint64_t step_key, int from, int to) {
    return mix(seed ^ mix(step_key + static_cast<std::uint64_t>(from) * 65537 + static_cast<std::uint64_t>(to)));
}
/// A reduction's input: small integers, so every order of summing gives the same bits.
inline double value_of(std::uint64_t step_key, int rank, std::size_t i) {
    return static_cast<double>(static_cast<std::int64_t>(mix(step_key ^ (static_cast<std::uint64_t>(rank) << 32) ^ i) % 2001) - 1000);
}

template <comet::transport T>
class interpreter {
public:
    interpreter(T& t, const program& prog, const limits& l, std::atomic<int>* where)
        : t_(t), prog_(prog), l_(l), where_(where), me_(t.rank()) {}

    void run() {
        if (t_.size() != prog_.ranks)
            fail("the program is for ", prog_.ranks, " ranks, the transport has ", t_.size());
        for (step_ = 0; step_ < prog_.steps.size(); ++step_) {
            if (where_) where_->store(static_cast<int>(step_), std::memory_order_relaxed);
            const step& s = prog_.steps[step_];
            try {
                switch (s.what) {
                case step::kind::phase: phase(s); break;
                case step::kind::exchange: exchange(s); break;
                case step::kind::collective: run_collective(s.coll, s.key); break;
                }
            } catch (const comet::stopped&) {
                throw;
            } catch (const comet::verification_error&) {
                throw;
            } catch (const std::exception& e) {
                fail(e.what());
            }
        }
        if (where_) where_->store(static_cast<int>(prog_.steps.size()), std::memory_order_relaxed);
    }

private:
    using request = typename T::request;

    template <class... Parts>
    [[noreturn]] void fail(const Parts&... parts) const {
        comet::raise<comet::verification_error>(me_, "seed ", prog_.seed, ", ", prog_.ranks, " ranks, step ", step_, ": ", parts...);
    }

    /// Polls `t.test(r)` until it completes; a bound on the transport's clock, not a hang.
    comet::status poll(request& r, const char* what) {
        const double start = t_.now();
        for (;;) {
            if (auto s = t_.test(r)) return *s;
            if (t_.now() - start > l_.poll_timeout) fail(what, ": test found it incomplete for ", l_.poll_timeout, " s");
        }
    }

    /// A completed request completed again must give a default status at once.
    void check_again(request& r, const char* what) {
        const comet::status w = comet::ops::wait(t_, r);
        const std::optional<comet::status> s = t_.test(r);
        if (w != comet::status{} || !s || *s != comet::status{})
            fail(what, " completed a second time: wait gave {", w.source, ", ", w.tag, ", ", w.size, "}, test ",
                 s ? "{" + std::to_string(s->source) + ", " + std::to_string(s->tag) + ", " + std::to_string(s->size) + "}"
                   : std::string("nothing"),
                 ", expected a default status");
    }

    void check_send_status(const comet::status& s, const message& m) {
        if (s.source != m.dest || s.tag != m.tag || s.size != m.size)
            fail("message #", m.id, " (", m.source, " -> ", m.dest, ", tag ", m.tag, ", ", m.size, " B, ", name(m.form),
                 "): the completed send reports {", s.source, ", ", s.tag, ", ", s.size, "}, expected {", m.dest, ", ", m.tag,
                 ", ", m.size, "}");
    }

    // ---- a point-to-point phase ----

    struct pending {
        request r;
        bool is_send = false;
        std::size_t index = 0;  ///< into sends_ / the receives
    };

    void phase(const step& s) {
        rng local(s.key ^ mix(static_cast<std::uint64_t>(me_) + 1));
        const std::vector<receive>& recvs = s.receives[static_cast<std::size_t>(me_)];
        std::vector<std::vector<std::byte>> in(recvs.size());
        std::vector<comet::status> got(recvs.size());
        std::vector<std::optional<comet::status>> probed(recvs.size());
        std::vector<const message*> sends;
        for (const message& m : s.messages)
            if (m.source == me_) sends.push_back(&m);
        std::vector<std::vector<std::byte>> out(sends.size());
        std::vector<pending> later;

        const auto buffer = [&](std::size_t j) {
            in[j].assign(recvs[j].capacity, sentinel);
            return comet::mutable_bytes(in[j]);
        };
        // (a) the receives posted before any send
        std::size_t j = 0;
        for (; j < recvs.size() && recvs[j].form == recv_form::early; ++j)
            later.push_back({t_.irecv(recvs[j].source, recvs[j].tag, buffer(j)), false, j});
        // (b) the sends, in order
        for (std::size_t i = 0; i < sends.size(); ++i) {
            const message& m = *sends[i];
            out[i].resize(m.size);
            fill(out[i], message_key(prog_.seed, m.id));
            const comet::const_bytes data(out[i]);
            switch (m.form) {
            case send_form::isend_later: later.push_back({t_.isend(m.dest, m.tag, data), true, i}); break;
            case send_form::isend_wait:
            case send_form::isend_test: {
                request r = t_.isend(m.dest, m.tag, data);
                check_send_status(m.form == send_form::isend_wait ? comet::ops::wait(t_, r) : poll(r, "isend"), m);
                if (local.one_in(4)) check_again(r, "an isend");
                break;
            }
            case send_form::blocking: comet::ops::send(t_, m.dest, m.tag, data); break;
            case send_form::bsend:
                if constexpr (comet::buffered_send_transport<T>)
                    t_.bsend(m.dest, m.tag, data);
                else
                    fail("bsend on a transport without it");
                break;
            }
        }
        if (s.between) run_collective(*s.between, s.key ^ 0xc011ec7);
        // (c) the other receives, in order
        for (; j < recvs.size(); ++j) {
            const receive& r = recvs[j];
            switch (r.form) {
            case recv_form::early: break;
            case recv_form::blocking: got[j] = comet::ops::recv(t_, r.source, r.tag, buffer(j)); break;
            case recv_form::irecv_wait:
            case recv_form::irecv_test: {
                request q = t_.irecv(r.source, r.tag, buffer(j));
                got[j] = r.form == recv_form::irecv_wait ? comet::ops::wait(t_, q) : poll(q, "irecv");
                if (r.again) check_again(q, "an irecv");
                break;
            }
            case recv_form::probe: {
                const double start = t_.now();
                for (int polls = 0; !probed[j] && (r.probe_polls == 0 || polls < r.probe_polls); ++polls) {
                    probed[j] = t_.iprobe(r.source, r.tag);
                    if (!probed[j] && t_.now() - start > l_.poll_timeout)
                        fail("receive ", j, " (", filter(r.source, r.tag), "): iprobe found nothing for ", l_.poll_timeout, " s");
                }
                if (probed[j]) {
                    const comet::status& ps = *probed[j];
                    const bool fits = (r.source == comet::any_source || ps.source == r.source) &&
                                      (r.tag == comet::any_tag || ps.tag == r.tag) && ps.source >= 0 && ps.source < prog_.ranks &&
                                      ps.tag >= 0;
                    if (!fits)
                        fail("receive ", j, ": iprobe (", filter(r.source, r.tag), ") reported {", ps.source, ", ", ps.tag, ", ",
                             ps.size, "}, which its filter does not match");
                    got[j] = comet::ops::recv(t_, ps.source, ps.tag, buffer(j));
                    if (got[j] != ps)
                        fail("receive ", j, ": iprobe (", filter(r.source, r.tag), ") reported {", ps.source, ", ", ps.tag, ", ",
                             ps.size, "}, the receive from its source and tag then got {", got[j].source, ", ", got[j].tag,
                             ", ", got[j].size, "}");
                } else {
                    got[j] = comet::ops::recv(t_, r.source, r.tag, buffer(j));
                }
                break;
            }
            case recv_form::irecv_later: later.push_back({t_.irecv(r.source, r.tag, buffer(j)), false, j}); break;
            }
        }
        // (d) what is pending, in a random order, by wait, test or (sends) wait_all
        local.shuffle(later);
        std::vector<request> batch;
        for (pending& x : later) {
            if (x.is_send && local.one_in(3)) {
                batch.push_back(std::move(x.r));
                continue;
            }
            const comet::status st = local.one_in(3) ? poll(x.r, x.is_send ? "isend" : "irecv") : comet::ops::wait(t_, x.r);
            if (x.is_send)
                check_send_status(st, *sends[x.index]);
            else
                got[x.index] = st;
            if (x.is_send ? local.one_in(4) : recvs[x.index].again) check_again(x.r, x.is_send ? "an isend" : "an irecv");
        }
        if (!batch.empty()) comet::ops::wait_all(t_, std::span<request>(batch));
        verify(s, recvs, in, got);
        if (s.fence) comet::ops::barrier(t_);
    }

    /// Every receive against the message its stream owed it.
    void verify(const step& s, const std::vector<receive>& recvs, const std::vector<std::vector<std::byte>>& in,
                const std::vector<comet::status>& got) {
        // The streams: (class, source) -> this rank's messages of that class from that source,
        // in send order.
        std::map<std::pair<int, int>, std::vector<const message*>> streams;
        for (const message& m : s.messages)
            if (m.dest == me_) streams[{m.cls, m.source}].push_back(&m);
        std::map<std::pair<int, int>, std::size_t> next;
        for (std::size_t j = 0; j < recvs.size(); ++j) {
            const receive& r = recvs[j];
            const comet::status& st = got[j];
            const std::string what = "receive " + std::to_string(j) + " (" + filter(r.source, r.tag) + ", " + name(r.form) + ")";
            if ((r.source != comet::any_source && st.source != r.source) || (r.tag != comet::any_tag && st.tag != r.tag) ||
                st.source < 0 || st.source >= prog_.ranks)
                fail(what, ": its status says {", st.source, ", ", st.tag, ", ", st.size, "}, which its filter does not match");
            const auto key = std::make_pair(r.cls, st.source);
            const auto it = streams.find(key);
            const std::size_t k = next[key]++;
            if (it == streams.end() || k >= it->second.size())
                fail(what, ": got {", st.source, ", ", st.tag, ", ", st.size, "}, but rank ", st.source,
                     " sent no more messages this receive may take");
            const message& m = *it->second[k];
            const std::string due = "message #" + std::to_string(m.id) + " (" + std::to_string(m.source) + " -> " +
                                    std::to_string(m.dest) + ", tag " + std::to_string(m.tag) + ", " + std::to_string(m.size) + " B, " +
                                    name(m.form) + ")";
            // Which message of the stream it got instead, if any: overtaking.
            const auto which = [&]() -> std::string {
                for (const message* o : it->second)
                    if (o != &m && o->size == st.size && o->tag == st.tag && o->size <= in[j].size() &&
                        !differs(std::span(in[j]).first(o->size), message_key(prog_.seed, o->id)))
                        return "; it holds message #" + std::to_string(o->id) + " of the same stream instead (order violated)";
                return "";
            };
            if (st.tag != m.tag || st.size != m.size)
                fail(what, ": got {", st.source, ", ", st.tag, ", ", st.size, "}, ", due, " was due", which());
            if (st.size > in[j].size()) fail(what, ": status size ", st.size, " exceeds the ", in[j].size(), "-byte buffer");
            if (auto at = differs(std::span(in[j]).first(m.size), message_key(prog_.seed, m.id))) {
                std::vector<std::byte> want(m.size);
                fill(want, message_key(prog_.seed, m.id));
                fail(what, ": ", due, ": byte ", *at, " of ", m.size, " is ", static_cast<int>(in[j][*at]), ", sent ",
                     static_cast<int>(want[*at]), which());
            }
            for (std::size_t b = m.size; b < in[j].size(); ++b)
                if (in[j][b] != sentinel)
                    fail(what, ": ", due, " landed in a ", in[j].size(), "-byte buffer, and byte ", b,
                         " past the message was written");
        }
    }

    // ---- a both-send-first exchange ----

    void exchange(const step& s) {
        const int q = s.partner[static_cast<std::size_t>(me_)];
        if (q < 0) return;
        std::vector<std::byte> out(s.size), in(s.size + 16, sentinel);
        fill(out, block_key(prog_.seed, s.key, me_, q));
        const comet::mutable_bytes into(in.data(), s.size);
        comet::status st;
        switch (s.forms[static_cast<std::size_t>(me_)]) {
        case exchange_form::bsend:
            if constexpr (comet::buffered_send_transport<T>) t_.bsend(q, s.tag, out);
            st = comet::ops::recv(t_, q, s.tag, into);
            break;
        case exchange_form::send:
            comet::ops::send(t_, q, s.tag, out);
            st = comet::ops::recv(t_, q, s.tag, into);
            break;
        case exchange_form::isend_recv: {
            request r = t_.isend(q, s.tag, out);
            st = comet::ops::recv(t_, q, s.tag, into);
            comet::ops::wait(t_, r);
            break;
        }
        case exchange_form::irecv_send: {
            request r = t_.irecv(q, s.tag, into);
            comet::ops::send(t_, q, s.tag, out);
            st = comet::ops::wait(t_, r);
            break;
        }
        case exchange_form::sendrecv:
            if constexpr (comet::sendrecv_transport<T>) st = t_.sendrecv(q, s.tag, out, q, s.tag, into);
            break;
        }
        const std::string what = std::string("exchange with rank ") + std::to_string(q) + " (" +
                                 name(s.forms[static_cast<std::size_t>(me_)]) + ", tag " + std::to_string(s.tag) + ", " +
                                 std::to_string(s.size) + " B)";
        if (st.source != q || st.tag != s.tag || st.size != s.size)
            fail(what, ": status {", st.source, ", ", st.tag, ", ", st.size, "}");
        if (auto at = differs(std::span(in).first(s.size), block_key(prog_.seed, s.key, q, me_)))
            fail(what, ": byte ", *at, " differs from what was sent");
        for (std::size_t b = s.size; b < in.size(); ++b)
            if (in[b] != sentinel) fail(what, ": byte ", b, " past the message was written");
    }

    // ---- collectives ----

    void run_collective(const collective_step& c, std::uint64_t key) {
        const int p = prog_.ranks;
        const auto n = c.size;
        const std::string what = describe(c);
        switch (c.kind) {
        case collective::barrier: comet::ops::barrier(t_); return;
        case collective::broadcast: {
            std::vector<std::byte> data(n, sentinel);
            if (me_ == c.root) fill(data, block_key(prog_.seed, key, c.root, -1));
            comet::ops::broadcast(t_, c.root, data);
            if (auto at = differs(data, block_key(prog_.seed, key, c.root, -1))) fail(what, ": byte ", *at, " differs from the root's");
            return;
        }
        case collective::gather: {
            std::vector<std::byte> mine(n), all(me_ == c.root ? n * static_cast<std::size_t>(p) : 0, sentinel);
            fill(mine, block_key(prog_.seed, key, me_, c.root));
            comet::ops::gather(t_, c.root, mine, all);
            if (me_ == c.root)
                for (int r = 0; r < p; ++r)
                    if (auto at = differs(std::span(all).subspan(static_cast<std::size_t>(r) * n, n), block_key(prog_.seed, key, r, c.root)))
                        fail(what, ": byte ", *at, " of rank ", r, "'s block differs from what it sent");
            return;
        }
        case collective::alltoall: {
            std::vector<std::byte> out(n * static_cast<std::size_t>(p)), in(out.size(), sentinel);
            for (int r = 0; r < p; ++r)
                fill(std::span(out).subspan(static_cast<std::size_t>(r) * n, n), block_key(prog_.seed, key, me_, r));
            comet::ops::alltoall(t_, out, in);
            for (int r = 0; r < p; ++r)
                if (auto at = differs(std::span(in).subspan(static_cast<std::size_t>(r) * n, n), block_key(prog_.seed, key, r, me_)))
                    fail(what, ": byte ", *at, " of the block from rank ", r, " differs from what it sent");
            return;
        }
        default: break;
        }
        // The reductions.
        std::vector<double> v(n), want(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = value_of(key, me_, i);
        const std::vector<double> before = v;
        for (std::size_t i = 0; i < n; ++i) {
            double acc = value_of(key, 0, i);
            for (int r = 1; r < p; ++r) {
                const double x = value_of(key, r, i);
                switch (c.kind) {
                case collective::allreduce_sum:
                case collective::reduce_sum: acc += x; break;
                case collective::allreduce_max:
                case collective::reduce_max: acc = std::max(acc, x); break;
                default: acc = std::min(acc, x);
                }
            }
            want[i] = acc;
        }
        bool rooted = true;
        switch (c.kind) {
        case collective::allreduce_sum: comet::ops::allreduce_sum(t_, std::span(v)), rooted = false; break;
        case collective::allreduce_max: comet::ops::allreduce_max(t_, std::span(v)), rooted = false; break;
        case collective::allreduce_min: comet::ops::allreduce_min(t_, std::span(v)), rooted = false; break;
        case collective::reduce_sum: comet::ops::reduce_sum(t_, c.root, std::span(v)); break;
        case collective::reduce_max: comet::ops::reduce_max(t_, c.root, std::span(v)); break;
        default: comet::ops::reduce_min(t_, c.root, std::span(v)); break;
        }
        const std::vector<double>& expect = (!rooted || me_ == c.root) ? want : before;
        for (std::size_t i = 0; i < n; ++i)
            if (v[i] != expect[i])
                fail(what, ": element ", i, " is ", v[i], ", expected ", expect[i],
                     rooted && me_ != c.root ? " (left as it was off the root)" : "");
    }

    T& t_;
    const program& prog_;
    const limits& l_;
    std::atomic<int>* where_;
    int me_;
    std::size_t step_ = 0;
};

}  // namespace detail

/// Runs `prog` on this rank of `t` and checks what it received; every rank of the group calls
/// it with the same program. `where`, if given, holds the step this rank is in (for a deadlock
/// report: the transport's names what the rank waits for, this names the step).
/// @throws comet::verification_error naming the seed, the group size, the step, the rank and
///         what differed; what the transport raises (deadlock_error, stopped) passes through.
template <comet::transport T>
void run_program(T& t, const program& prog, const limits& l = {}, std::atomic<int>* where = nullptr) {
    detail::interpreter<T>(t, prog, l, where).run();
}

/// The steps the ranks were in, for a report: "rank r in step k" for each rank not finished.
inline std::string where_ranks_were(const std::vector<std::atomic<int>>& where, const program& prog) {
    std::ostringstream os;
    for (std::size_t r = 0; r < where.size(); ++r)
        if (const int k = where[r].load(); k >= 0 && k < static_cast<int>(prog.steps.size()))
            os << (os.tellp() > 0 ? ", " : "") << "rank " << r << " in step " << k;
    return os.str();
}

/// True if `prog` keeps the rule that makes any_source receives unambiguous: no message to a
/// rank carries a tag that rank received by any_source in an earlier phase, unless a quiet
/// barrier came between. (Generated programs keep it; one with steps taken out may not.)
inline bool well_formed(const program& prog, const features& f) {
    std::vector<std::set<int>> taken(static_cast<std::size_t>(prog.ranks));
    for (const step& s : prog.steps) {
        if (s.what == step::kind::phase) {
            for (const message& m : s.messages)
                if (taken[static_cast<std::size_t>(m.dest)].contains(m.tag)) return false;
            for (std::size_t d = 0; d < s.receives.size(); ++d)
                for (const receive& r : s.receives[d])
                    if (r.kind == recv_class::any_source) taken[d].insert(r.tag);
            if (s.fence)
                for (auto& t : taken) t.clear();
        } else if (s.what == step::kind::exchange) {
            for (std::size_t r = 0; r < s.partner.size(); ++r)
                if (s.partner[r] >= 0 && taken[r].contains(s.tag)) return false;
        } else if (s.coll.kind == collective::barrier && f.quiet_barrier) {
            for (auto& t : taken) t.clear();
        }
    }
    return true;
}

/// The smallest program left of `prog` by taking whole steps out, one at a time, while
/// `fails(program)` still says it fails: a reproduction to read.
template <class Fails>
program shrink(program prog, const features& f, Fails&& fails) {
    for (bool progress = true; progress;) {
        progress = false;
        for (std::size_t k = prog.steps.size(); k-- > 0 && prog.steps.size() > 1;) {
            program smaller = prog;
            smaller.steps.erase(smaller.steps.begin() + static_cast<std::ptrdiff_t>(k));
            if (well_formed(smaller, f) && fails(smaller)) {
                prog = std::move(smaller);
                progress = true;
            }
        }
    }
    return prog;
}

/// Runs `prog` through `runner(prog, where)` (which runs it on every rank of a transport, rank
/// r passing `&where[r]` to run_program) and returns nothing if it passed, else the failure:
/// what was raised, the step each unfinished rank was in, and those steps' messages.
template <class Runner>
std::optional<std::string> run_one(const program& prog, Runner&& runner) {
    std::vector<std::atomic<int>> where(static_cast<std::size_t>(prog.ranks));
    for (auto& w : where) w.store(-1);
    try {
        runner(prog, where);
        return std::nullopt;
    } catch (const std::exception& e) {
        std::string out = e.what();
        std::set<int> steps;
        for (auto& w : where)
            if (const int k = w.load(); k >= 0 && k < static_cast<int>(prog.steps.size())) steps.insert(k);
        out += "\n  where: " + where_ranks_were(where, prog);
        for (int k : steps) out += "\n" + describe(prog, static_cast<std::size_t>(k));
        return out;
    }
}

/// The group size seed `seed` runs on, in lo..hi: mostly small groups (they are where pairs
/// collide), now and then the largest.
inline int ranks_for(std::uint64_t seed, int lo, int hi) {
    const std::uint64_t x = mix(seed ^ 0x72616e6b73ull);
    const int span = hi - lo + 1;
    const int small = std::min(span, 7);
    if (x % 10 < 6 || span == small) return lo + static_cast<int>((x >> 8) % static_cast<std::uint64_t>(small));
    return lo + static_cast<int>((x >> 8) % static_cast<std::uint64_t>(span));
}

/// How a run of many seeds went.
struct tally {
    std::uint64_t seeds = 0;
    std::uint64_t failures = 0;
    std::optional<std::uint64_t> first_failure;
    std::string first_message;
};

/// Runs seeds `first` .. `first + count - 1` through `one(seed)`, which returns the failure's
/// message, if any; stops early after `stop_after` failures.
template <class One>
tally run_seeds(std::uint64_t first, std::uint64_t count, One&& one, std::uint64_t stop_after = ~std::uint64_t{0}) {
    tally t;
    for (std::uint64_t seed = first; seed < first + count && t.failures < stop_after; ++seed) {
        ++t.seeds;
        if (std::optional<std::string> e = one(seed)) {
            if (!t.failures) t.first_failure = seed, t.first_message = *e;
            ++t.failures;
        }
    }
    return t;
}

}  // namespace comet_test::differential
