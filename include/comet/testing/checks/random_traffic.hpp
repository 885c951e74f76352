// comet/testing/checks/random_traffic.hpp — the conformance check of the point-to-point rules
// together, on traffic nobody wrote by hand: seeded rounds of isend, irecv, test and iprobe
// between random pairs of a group (oneself included), with random tags (the range's edges among
// them), sizes (0 B to 1 MiB, each side of common protocol limits), receive buffers (larger,
// exact, too small), wildcards wherever the outcome is still determined, receives posted before
// the messages or after they are queued, and completions polled in random order. Every outcome
// is held against the model of checks/traffic_model.hpp (after core/concepts.hpp): which message
// each receive takes, its status, its bytes, the bytes past it, what iprobe reports, each send's
// status.
//
// A failure names the group, the round and the seed: COMET_CONFORMANCE_SEED=<seed> replays it
// (the default seed is fixed, so a run is repeatable; another seed draws other rounds).
#pragma once

#include <comet/testing/checks/matching.hpp>
#include <comet/testing/checks/traffic_model.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace comet::testing::checks {

namespace traffic {

/// A receive's source and tag as a failure names them: "(any_source, 7)".
inline std::string spec(int source, int tag) {
    return "(" + (source == any_source ? std::string("any_source") : std::to_string(source)) + ", " +
           (tag == any_tag ? std::string("any_tag") : std::to_string(tag)) + ")";
}

/// Keeps the buffers of a round that failed until the process ends (reachable, not leaked).
inline void park(std::vector<std::vector<std::byte>>&& in, std::vector<std::vector<std::byte>>&& out) {
    static std::mutex m;
    static std::vector<std::vector<std::vector<std::byte>>> parked;
    std::lock_guard g(m);
    parked.push_back(std::move(in));
    parked.push_back(std::move(out));
}

}  // namespace traffic

/// The rules together, on seeded random traffic (traffic_model.hpp's model): groups of 1 to 9
/// ranks, six rounds each. Every receive gets the message the model says, with its status, its bytes
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

}  // namespace comet::testing::checks
