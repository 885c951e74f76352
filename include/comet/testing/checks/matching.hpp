// comet/testing/checks/matching.hpp — the conformance checks of the point-to-point core's
// matching rules (core/concepts.hpp, "Matching"): who a message comes from, its tag, the order
// messages are taken in, the size a receive reports and what happens to a receive buffer.
//
// Each check uses the core alone (isend, irecv, test, iprobe) and waits only through its
// `session` (deadlines, watchdog: comet/testing/session.hpp). Sends are all started before the
// receiver is asked to take them out of order and completed afterwards, since the concept does
// not require buffering: an isend may stay incomplete until its receive is posted.
#pragma once

#include <comet/testing/session.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace comet::testing::checks {

namespace detail {
using testing::detail::pattern;

/// Message `seq` of `n` >= 4 bytes: the pattern of `seed`, with `seq` in its first four bytes.
inline std::vector<std::byte> numbered(std::size_t n, std::uint32_t seq, std::uint32_t seed) {
    auto v = pattern(n, seed);
    std::memcpy(v.data(), &seq, 4);
    return v;
}
inline std::uint32_t number_of(std::span<const std::byte> b) {
    std::uint32_t x;
    std::memcpy(&x, b.data(), 4);
    return x;
}

/// The first of a check's failures, kept until every rank has made every blocking call the
/// check makes, so that no rank is left inside one (it has no deadline) because a peer stopped.
struct first_failure {
    std::string what;
    template <class... Parts>
    void expect(bool ok, const Parts&... parts) {
        if (!ok && what.empty()) what = comet::detail::concat(parts...);
    }
    void expect_status(const status& s, int source, int tag, std::size_t size, std::string_view w) {
        expect(s.source == source && s.tag == tag && s.size == size, w, ": status {source ", s.source, ", tag ", s.tag, ", size ",
               s.size, "}, expected {", source, ", ", tag, ", ", size, "}");
    }
    void expect_pattern(std::span<const std::byte> got, std::size_t n, std::uint32_t seed, std::string_view w) {
        const auto want = pattern(n, seed);
        expect(got.size() >= n && std::equal(want.begin(), want.end(), got.begin()), w, ": the ", n, " bytes differ from what was sent");
    }
    /// At the end of the check: fails with the first failure, if any.
    void settle(const session& s) const { s.expect(what.empty(), what); }
};

/// Starts an isend of each of `messages` to `dest` with the tag `tag_of(i)`.
template <class T, class TagOf>
std::vector<typename T::request> isend_all(T& t, session& s, int dest, const std::vector<std::vector<std::byte>>& messages, TagOf tag_of) {
    std::vector<typename T::request> rs;
    for (std::size_t i = 0; i < messages.size(); ++i)
        rs.push_back(s.call("isend", [&] { return t.isend(dest, tag_of(i), const_bytes(messages[i])); }));
    return rs;
}
template <class T, class TagOf>
void wait_sends(T& t, session& s, std::vector<typename T::request>& rs, int dest, TagOf tag_of) {
    for (std::size_t i = 0; i < rs.size(); ++i) s.wait_send(t, rs[i], dest, tag_of(i));
}
}  // namespace detail

/// rank() and size() describe one group: every rank hears from every other, each naming
/// itself, so sizes agree and ranks are distinct and dense (groups of 1 to 5, 8, 9 and 16), and a
/// receive naming a source takes only that source's message.
template <class Runner>
void identity(const Runner& run, const limits& l) {
    for (int wanted : {1, 2, 3, 4, 5, 8, 9, 16}) {
        const int p = testing::detail::group_size(run, wanted);
        testing::detail::run_check(run, p, "identity", l, [p](auto& t, session& s) {
            s.expect(t.size() == p, "size() is ", t.size(), ", expected ", p);
            s.expect(t.rank() >= 0 && t.rank() < t.size(), "rank() ", t.rank(), " outside 0..", t.size() - 1);
            const int me[2] = {t.rank(), t.size()};
            std::vector<typename std::remove_cvref_t<decltype(t)>::request> out;
            for (int r = 0; r < p; ++r)
                if (r != t.rank()) out.push_back(s.call("isend", [&] { return t.isend(r, 1, std::as_bytes(std::span(me))); }));
            for (int r = 0; r < p; ++r) {
                if (r == t.rank()) continue;
                int got[2] = {-1, -1};
                s.expect_status(s.recv(t, r, 1, std::as_writable_bytes(std::span(got))), r, 1, sizeof got, "identity message");
                s.expect(got[0] == r && got[1] == p, "the message from rank ", r, " says it comes from rank ", got[0], " of ", got[1]);
            }
            for (int r = 0, i = 0; r < p; ++r)
                if (r != t.rank()) s.wait_send(t, out[static_cast<std::size_t>(i++)], r, 1);
        });
    }
}

/// A completed send reports its destination, tag and size (core/types.hpp, `status`), to
/// another rank and to oneself, whatever the tag.
template <class Runner>
void send_status(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "send_status", l, [](auto& t, session& s) {
        if (t.rank() > 1) return;
        for (int tag : {0, 5, first_reserved_tag + 3, max_tag}) {
            const auto out = detail::pattern(12, 3);
            std::vector<std::byte> in(12);
            auto r = s.call("isend", [&] { return t.isend(t.rank(), tag, const_bytes(out)); });
            s.expect_status(s.recv(t, t.rank(), tag, in), t.rank(), tag, 12, "the receive of a message to oneself");
            s.expect_status(s.wait_send(t, r, t.rank(), tag), t.rank(), tag, 12, "the completed send's status (to oneself)");
        }
        const std::size_t sizes[] = {0, 40, 5000, std::size_t{1} << 20};
        if (t.rank() == 0) {
            std::vector<std::vector<std::byte>> m;
            for (std::size_t n : sizes) m.push_back(detail::pattern(n, static_cast<std::uint32_t>(n)));
            auto rs = detail::isend_all(t, s, 1, m, [](std::size_t i) { return 3 + static_cast<int>(i); });
            for (std::size_t i = 0; i < rs.size(); ++i) {
                s.expect_status(s.wait_send(t, rs[i], 1, 3 + static_cast<int>(i)), 1, 3 + static_cast<int>(i), sizes[i],
                                "the completed send's status");
                // The buffer is the caller's again: overwritten, and kept until the receiver has
                // the message (a transport still reading it delivers other bytes, not a crash).
                std::fill(m[i].begin(), m[i].end(), std::byte{0xA5});
            }
            const auto high = detail::pattern(8, 7);
            auto h = s.call("isend", [&] { return t.isend(1, max_tag - 1, const_bytes(high)); });
            s.expect_status(s.wait_send(t, h, 1, max_tag - 1), 1, max_tag - 1, 8, "the completed send's status (a reserved tag)");
            s.recv(t, 1, 2, mutable_bytes{});
        } else {
            std::vector<std::byte> in(std::size_t{1} << 20);
            for (std::size_t i = 0; i < std::size(sizes); ++i) {
                s.expect_status(s.recv(t, 0, 3 + static_cast<int>(i), in), 0, 3 + static_cast<int>(i), sizes[i], "the receive's status");
                s.expect_pattern(in, sizes[i], static_cast<std::uint32_t>(sizes[i]),
                                 "the message (its buffer overwritten by its sender once a test had completed its send)");
            }
            s.expect_status(s.recv(t, 0, max_tag - 1, in), 0, max_tag - 1, 8, "the receive's status (a reserved tag)");
            auto done = s.call("isend", [&] { return t.isend(0, 2, const_bytes{}); });
            s.wait_send(t, done, 0, 2);
        }
    });
}

/// A receive names its tag: messages are taken by tag, not by arrival; any_tag takes one
/// (here a message to oneself).
template <class Runner>
void tag_matching(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "tag_matching", l, [](auto& t, session& s) {
        if (t.rank() > 1) return;
        const auto tag_of = [](std::size_t i) { return 1 + static_cast<int>(i); };
        if (t.rank() == 0) {
            std::vector<std::vector<std::byte>> m;
            for (int tag : {1, 2, 3}) m.push_back(detail::pattern(16, static_cast<std::uint32_t>(tag)));
            m.push_back(detail::pattern(5000, 4));
            auto rs = detail::isend_all(t, s, 1, m, tag_of);
            detail::wait_sends(t, s, rs, 1, tag_of);
        } else {
            std::vector<std::byte> in(5000);
            for (int tag : {4, 3, 1, 2}) {
                const std::size_t n = tag == 4 ? 5000 : 16;
                s.expect_status(s.recv(t, 0, tag, in), 0, tag, n, "receive by tag");
                s.expect_pattern(in, n, static_cast<std::uint32_t>(tag), "receive by tag");
            }
            const auto self = detail::pattern(3, 9);
            auto r = s.call("isend", [&] { return t.isend(1, 9, const_bytes(self)); });
            s.expect_status(s.recv(t, 1, any_tag, in), 1, 9, 3, "any_tag receive of a message to self");
            s.wait_send(t, r, 1, 9);
        }
        // Tag 0 is a tag like any other, not a wildcard; any_tag takes every tag up to max_tag
        // (0 and comet's own reserved ones too), in the order sent, whatever tag was taken last. Rank 1 sends, rank 0 receives (the
        // closing barrier sends nothing to rank 0 before it is done, so any_tag cannot take that).
        const std::vector<int> tags{5, 0, max_tag, first_reserved_tag, 16384, 0, 1};
        const auto high_tag_of = [&](std::size_t i) { return tags[i]; };
        if (t.rank() == 1) {
            s.recv(t, 0, 10, mutable_bytes{});
            std::vector<std::vector<std::byte>> m;
            for (std::size_t i = 0; i < tags.size(); ++i) m.push_back(detail::numbered(8, static_cast<std::uint32_t>(i), 11));
            auto rs = detail::isend_all(t, s, 0, m, high_tag_of);
            detail::wait_sends(t, s, rs, 0, high_tag_of);
        } else {
            std::vector<std::byte> in(8);
            s.send(t, 1, 10, const_bytes{});
            s.expect_status(s.recv(t, 1, 0, in), 1, 0, 8, "recv(1, tag 0) with tags 5 and 0 sent");
            s.expect(detail::number_of(in) == 1, "recv(1, tag 0) took message ", detail::number_of(in), ", sent with tag ",
                     tags[std::min<std::size_t>(detail::number_of(in), tags.size() - 1)]);
            for (std::size_t i : {0, 2, 3, 4, 5, 6}) {
                const status st = s.recv(t, 1, any_tag, in);
                s.expect(st.tag == tags[i] && detail::number_of(in) == i, "recv(1, any_tag) took {tag ", st.tag, ", message ",
                         detail::number_of(in), "}; the earliest left was {tag ", tags[i], ", message ", i, "}");
            }
        }
    });
}

/// Every tag from 0 to max_tag is its own: tags that differ in one bit never alias, whether the
/// message finds its receive posted (receives posted in the reverse order of the sends) or queued
/// (the last-sent taken first). A negative tag on a send
/// (or one other than any_tag on a receive) is rejected naming the value and the rank. Tags
/// above max_tag are not looked at: a transport may accept more (MPI's MPI_TAG_UB is often
/// far larger), and comet never sends them.
template <class Runner>
void tag_range(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "tag_range", l, [](auto& t, session& s) {
        std::vector<std::byte> b(8);
        const std::string me = "rank " + std::to_string(t.rank());
        for (int bad : {-1, -7}) {
            s.expect_throw<invalid_argument>([&] { (void)s.call("isend", [&] { return t.isend(0, bad, b); }); },
                                             {std::to_string(bad), me}, "isend with tag " + std::to_string(bad));
            s.expect_throw<invalid_argument>([&] { (void)s.call("irecv", [&] { return t.irecv(0, bad == -1 ? -2 : bad, b); }); },
                                             {std::to_string(bad == -1 ? -2 : bad), me}, "irecv with a tag out of range");
        }
        if (t.rank() > 1) return;
        // Tags 2^k and 2^k + 1 for every bit k below max_tag's: a transport that keeps only the
        // low bits of a tag (or folds the high ones) matches one of them with 0 or 1.
        // Neighbours t and t + 1 at the edges of the ranges too (comet's reserved tags, the top).
        std::vector<int> posted;
        // Queued: pairs, the second sent taken first (two at a time: no transport must hold more
        // unreceived small messages than that for their sends to go out).
        std::vector<std::vector<int>> queued{{0, 1}, {first_reserved_tag, first_reserved_tag + 1}, {max_tag - 1, max_tag}, {0, 16384}};
        const auto add = [&](int tag) {
            if (std::find(posted.begin(), posted.end(), tag) == posted.end()) posted.push_back(tag);
        };
        for (int base : {0, 255, 1023, 4095, 16383, 31999, first_reserved_tag, first_reserved_tag + 2, max_tag - 256, max_tag - 1})
            add(base), add(base + 1);
        for (int bit = 1; bit <= (max_tag + 1) / 2; bit *= 2) {
            add(bit), add(bit + 1);
            if (bit >= 2) queued.push_back({1, bit + 1});
        }
        const auto check = [&](std::span<const std::byte> got, const status& st, int tag, const char* how) {
            s.expect_status(st, 0, tag, 8, std::string("the message of tag ") + std::to_string(tag) + how);
            s.expect(detail::number_of(got) == static_cast<std::uint32_t>(tag), "a receive for tag ", tag, how,
                     " took the message sent with tag ", detail::number_of(got));
        };
        if (t.rank() == 0) {
            std::vector<const std::vector<int>*> rounds{&posted};
            for (const auto& q : queued) rounds.push_back(&q);
            for (const auto* tags : rounds) {
                const auto tag_of = [&](std::size_t i) { return (*tags)[i]; };
                if (tags == &posted) s.recv(t, 1, 2, mutable_bytes{});  // rank 1's receives are posted
                std::vector<std::vector<std::byte>> m;
                for (int tag : *tags) m.push_back(detail::numbered(8, static_cast<std::uint32_t>(tag), 0));
                auto rs = detail::isend_all(t, s, 1, m, tag_of);
                detail::wait_sends(t, s, rs, 1, tag_of);
            }
        } else {
            std::vector<std::vector<std::byte>> in(posted.size(), std::vector<std::byte>(8));
            std::vector<typename std::remove_cvref_t<decltype(t)>::request> rs(posted.size());
            for (std::size_t i = posted.size(); i-- > 0;) rs[i] = s.call("irecv", [&] { return t.irecv(0, posted[i], in[i]); });
            s.send(t, 0, 2, const_bytes{});
            for (std::size_t i = posted.size(); i-- > 0;) check(in[i], s.wait_recv(t, rs[i], 0, posted[i]), posted[i], " (posted)");
            for (const auto& q : queued) {
                s.probe(t, 0, q.back());
                for (auto it = q.rbegin(); it != q.rend(); ++it) check(b, s.recv(t, 0, *it, b), *it, " (queued)");
            }
        }
        // A source and a tag are two keys, not one number: with (1, tag 0) queued at rank 1 (sent
        // to itself), a receive and a probe of (0, max_tag) wait for rank 0's message, and take it.
        if (t.rank() == 1) {
            const auto own = detail::numbered(4, 0, 0);
            auto r = s.call("isend", [&] { return t.isend(1, 0, const_bytes(own)); });
            s.probe(t, 1, 0);
            s.expect(!s.iprobe(t, 0, max_tag).has_value(), "iprobe(0, max_tag) reported a message with only rank 1's own of tag 0 queued");
            s.send(t, 0, 2, const_bytes{});
            s.expect_status(s.probe(t, 0, max_tag), 0, max_tag, 8, "probe(0, max_tag) with (1, tag 0) queued before");
            s.expect_status(s.recv(t, 0, max_tag, b), 0, max_tag, 8, "recv(0, max_tag) with (1, tag 0) queued before");
            s.expect_status(s.recv(t, 1, 0, b), 1, 0, 4, "the message of tag 0 this rank sent itself");
            s.wait_send(t, r, 1, 0);
        } else {
            s.recv(t, 1, 2, mutable_bytes{});
            s.send(t, 1, max_tag, detail::numbered(8, max_tag, 0));
        }
    });
}

/// Messages from one sender with one tag arrive in the order sent, whatever their sizes
/// (200 messages from 4 bytes to 68 KB, all started before the first is received).
template <class Runner>
void non_overtaking(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "non_overtaking", l, [](auto& t, session& s) {
        if (t.rank() > 1) return;
        // Messages to oneself keep their order too, queued (three sent before any receive, the
        // first seen by iprobe) and posted (two receives posted before the sends).
        {
            const int me = t.rank();
            const std::vector<std::size_t> self_sizes{8, 5000, 16};
            std::vector<std::vector<std::byte>> m;
            for (std::size_t i = 0; i < self_sizes.size(); ++i) m.push_back(detail::numbered(self_sizes[i], static_cast<std::uint32_t>(i), 17));
            const auto self_tag = [](std::size_t) { return 17; };
            auto rs = detail::isend_all(t, s, me, m, self_tag);
            s.expect_status(s.probe(t, me, 17), me, 17, 8, "iprobe of three messages this rank sent itself");
            s.expect_status(s.probe(t, any_source, 17), me, 17, 8, "iprobe(any_source) of three messages this rank sent itself");
            std::vector<std::byte> in(5000);
            for (std::size_t i = 0; i < self_sizes.size(); ++i) {
                const status st = s.recv(t, me, 17, in);
                s.expect(st.size == self_sizes[i] && detail::number_of(in) == i, "message ", i, " to oneself arrived as number ",
                         detail::number_of(in), " (", st.size, " bytes)");
            }
            detail::wait_sends(t, s, rs, me, self_tag);
            std::vector<std::vector<std::byte>> posted_in(2, std::vector<std::byte>(5000));
            std::vector<typename std::remove_cvref_t<decltype(t)>::request> pr;
            for (auto& b : posted_in) pr.push_back(s.call("irecv", [&] { return t.irecv(me, 18, b); }));
            const std::vector<std::vector<std::byte>> first_two(m.begin(), m.begin() + 2);  // must outlive the sends
            auto ps = detail::isend_all(t, s, me, first_two, [](std::size_t) { return 18; });
            for (std::size_t i = 0; i < 2; ++i) {
                const status st = s.wait_recv(t, pr[i], me, 18);
                s.expect(st.size == self_sizes[i] && detail::number_of(posted_in[i]) == i, "receive ", i, " posted for messages to oneself took number ",
                         detail::number_of(posted_in[i]), " (", st.size, " bytes)");
            }
            detail::wait_sends(t, s, ps, me, [](std::size_t) { return 18; });
        }
        // Twelve receives posted for one tag before its messages are sent take them in post order.
        {
            const int peer = 1 - t.rank();
            std::vector<std::vector<std::byte>> in(12, std::vector<std::byte>(16));
            std::vector<typename std::remove_cvref_t<decltype(t)>::request> rs;
            for (auto& b : in) rs.push_back(s.call("irecv", [&] { return t.irecv(peer, 16, b); }));
            auto go = s.call("isend", [&] { return t.isend(peer, 15, const_bytes{}); });
            s.recv(t, peer, 15, mutable_bytes{});
            s.wait_send(t, go, peer, 15);
            std::vector<std::vector<std::byte>> m;
            for (std::uint32_t i = 0; i < 12; ++i) m.push_back(detail::numbered(16, i, 16));
            auto ss = detail::isend_all(t, s, peer, m, [](std::size_t) { return 16; });
            for (std::size_t i = 0; i < 12; ++i) {
                s.wait_recv(t, rs[i], peer, 16);
                s.expect(detail::number_of(in[i]) == i, "receive ", i + 1, " of 12 posted for one tag took message ", detail::number_of(in[i]));
            }
            detail::wait_sends(t, s, ss, peer, [](std::size_t) { return 16; });
        }
        const std::size_t count = 200;
        const std::size_t sizes[] = {0, 1, 7, 8, 40, 41, 64, 100, 101, 1000, 1001, 4096, 65536, 1u << 20};
        const auto size_of = [&](std::size_t i) { return sizes[i % std::size(sizes)] % 70000 + 4; };
        const auto tag_of = [](std::size_t) { return 7; };
        if (t.rank() == 0) {
            std::vector<std::vector<std::byte>> m;
            for (std::size_t i = 0; i < count; ++i) m.push_back(detail::numbered(size_of(i), static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i)));
            auto rs = detail::isend_all(t, s, 1, m, tag_of);
            detail::wait_sends(t, s, rs, 1, tag_of);
        } else {
            std::vector<std::byte> in(70004);
            for (std::size_t i = 0; i < count; ++i) {
                const status st = s.recv(t, 0, 7, in);
                s.expect(detail::number_of(in) == i && st.size == size_of(i), "message ", i, " arrived as number ",
                         detail::number_of(in), " (", st.size, " bytes)");
            }
        }
    });
}

/// Small messages behind large ones with the same tag (eager behind rendezvous, in most
/// transports' protocols), all sent nonblocking and queued before any receive is posted, are
/// still taken in the order sent; iprobe reports the size of the large message at the head.
/// At most three small messages are left unreceived at a time (two and the note "all
/// started"): no more is required of a transport's buffers for the sends to go out (the
/// simulated iPSC/860 reserves four per sender, and a send past them waits for one).
template <class Runner>
void non_overtaking_across_sizes(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "non_overtaking_across_sizes", l, [](auto& t, session& s) {
        if (t.rank() > 1) return;
        const std::vector<std::size_t> sizes{std::size_t{1} << 20, 8, 65536, 5000, std::size_t{1} << 20, 101, 12};
        const auto tag_of = [](std::size_t) { return 8; };
        if (t.rank() == 0) {
            std::vector<std::vector<std::byte>> m;
            for (std::size_t i = 0; i < sizes.size(); ++i) m.push_back(detail::numbered(sizes[i], static_cast<std::uint32_t>(i), 80));
            auto rs = detail::isend_all(t, s, 1, m, tag_of);
            const auto note = detail::pattern(1, 9);
            auto n = s.call("isend", [&] { return t.isend(1, 9, const_bytes(note)); });  // "all started"
            detail::wait_sends(t, s, rs, 1, tag_of);
            s.wait_send(t, n, 1, 9);
        } else {
            s.probe(t, 0, 9);
            for (int i = 0; i < 200; ++i) (void)s.iprobe(t, 0, 8);  // let stragglers land
            s.expect_status(s.probe(t, 0, 8), 0, 8, sizes[0], "iprobe of the large message at the head of the queue");
            std::vector<std::vector<std::byte>> in(sizes.size(), std::vector<std::byte>(std::size_t{1} << 20));
            std::vector<typename std::remove_cvref_t<decltype(t)>::request> rs;
            for (auto& b : in) rs.push_back(s.call("irecv", [&] { return t.irecv(0, 8, b); }));
            for (std::size_t i = 0; i < sizes.size(); ++i) {
                const status st = s.wait_recv(t, rs[i], 0, 8);
                // A number no message had: the bytes, not the order, are wrong (a sender that
                // reused its buffer too soon), and are said to be.
                const auto number = detail::number_of(in[i]);
                s.expect(st.size != sizes[i] || number < sizes.size(), "message ", i, " (", sizes[i],
                         " bytes) arrived with other bytes than were sent: its number reads ", number, ", which no message had");
                s.expect(st.size == sizes[i] && number == i, "receive ", i, " took message ", number, " (", st.size,
                         " bytes), expected message ", i, " (", sizes[i], " bytes)");
                const auto want = detail::numbered(sizes[i], static_cast<std::uint32_t>(i), 80);
                s.expect(std::equal(want.begin(), want.end(), in[i].begin()), "message ", i, " (", sizes[i], " bytes) arrived with other bytes than were sent");
            }
            std::vector<std::byte> note(1);
            s.recv(t, 0, 9, note);
        }
    });
}

}  // namespace comet::testing::checks
