// comet/testing/checks/completion.hpp — the conformance checks of completion, probing,
// progress, delivery, arguments and time (core/concepts.hpp: "Matching" for buffer sizes,
// "Completion", "Probe", "Progress", "Failure", "Time"), on the point-to-point core alone.
#pragma once

#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/testing/checks/matching.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <time.h>

namespace comet::testing::checks {

/// A shorter message fills a prefix and the status says how much; a longer one, by a single
/// byte too, even into an empty buffer, raises truncation_error from the `test` that completes
/// its receive (not from the `irecv` that matched it, even when the message was already there;
/// as much when the receive was posted first), and the transport goes on.
template <class Runner>
void receive_buffer_sizes(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "receive_buffer_sizes", l, [](auto& t, session& s) {
        if (t.rank() > 1) return;
        const std::size_t sizes[] = {10, 100, 100000, 11, 12, 8}, huge = (std::size_t{16} << 20) + 3;
        const auto tag_of = [](std::size_t i) { return 1 + static_cast<int>(i); };
        if (t.rank() == 0) {
            std::vector<std::vector<std::byte>> m;
            for (std::size_t i = 0; i < std::size(sizes); ++i) m.push_back(detail::pattern(sizes[i], static_cast<std::uint32_t>(i + 1)));
            auto rs = detail::isend_all(t, s, 1, m, tag_of);
            detail::wait_sends(t, s, rs, 1, tag_of);
            // Rank 1's receives are posted before these arrive.
            s.recv(t, 1, 20, mutable_bytes{});
            std::vector<std::vector<std::byte>> late{detail::pattern(11, 7), detail::pattern(100000, 8), detail::pattern(10, 9),
                                                     detail::pattern(1, 10)};
            const auto late_tag = [](std::size_t i) { return 7 + static_cast<int>(i); };
            auto ls = detail::isend_all(t, s, 1, late, late_tag);
            detail::wait_sends(t, s, ls, 1, late_tag);
            s.send(t, 1, 11, detail::pattern(huge, 11));
            return;
        }
        std::vector<std::byte> in(64, std::byte{0xEE});
        s.expect_status(s.recv(t, 0, 1, in), 0, 1, 10, "short message");
        s.expect_pattern(in, 10, 1, "short message");
        for (std::size_t i = 10; i < in.size(); ++i)
            s.expect(in[i] == std::byte{0xEE}, "a 10-byte message wrote byte ", i, " of the 64-byte receive buffer");
        for (int tag : {2, 3, 4})
            s.expect_throw<truncation_error>([&] { s.recv(t, tag == 3 ? any_source : 0, tag == 4 ? any_tag : tag, std::span(in.data(), 10)); },
                                             {tag == 2 ? "100" : tag == 3 ? "100000" : "11"},
                                             tag == 2 ? "a message longer than the buffer" : tag == 3 ? "a message longer than the buffer of an any_source receive"
                                                                                                   : "a message longer than the buffer of an any_tag receive");
        // Already arrived when its receive is posted: irecv only matches, the test reports.
        s.probe(t, 0, 5);
        typename std::remove_cvref_t<decltype(t)>::request r;
        try {
            r = s.call("irecv", [&] { return t.irecv(0, 5, std::span(in.data(), 10)); });
        } catch (const truncation_error& e) {
            s.fail("irecv raised truncation_error (\"", e.what(), "\") for a 12-byte message already queued; the test that completes the receive must");
        }
        s.expect_throw<truncation_error>([&] { s.wait_recv(t, r, 0, 5); }, {"12"}, "a queued message longer than the buffer");
        s.expect_status(s.recv(t, 0, 6, in), 0, 6, 8, "message after a truncation");
        s.expect_pattern(in, 8, 6, "message after a truncation");
        // Receives posted before their messages are sent: too long by one byte, by 99,990 bytes,
        // and exactly the buffer's size (which fits).
        std::vector<std::vector<std::byte>> posted(3, std::vector<std::byte>(10));
        posted.emplace_back();  // an empty buffer: a 1-byte message does not fit it either
        std::vector<typename std::remove_cvref_t<decltype(t)>::request> pr;
        for (int i = 0; i < 4; ++i) pr.push_back(s.call("irecv", [&] { return t.irecv(0, 7 + i, posted[static_cast<std::size_t>(i)]); }));
        s.send(t, 0, 20, const_bytes{});
        s.expect_throw<truncation_error>([&] { s.wait_recv(t, pr[0], 0, 7); }, {"11"}, "a message longer than the buffer of a posted receive");
        s.expect_throw<truncation_error>([&] { s.wait_recv(t, pr[1], 0, 8); }, {"100000"},
                                         "a message longer than the buffer of a posted receive");
        s.expect_status(s.wait_recv(t, pr[2], 0, 9), 0, 9, 10, "a message exactly the size of the posted buffer");
        s.expect_pattern(posted[2], 10, 9, "a message exactly the size of the posted buffer");
        s.expect_throw<truncation_error>([&] { s.wait_recv(t, pr[3], 0, 10); }, {"1"}, "a 1-byte message into an empty buffer");
        // Any size up to max_message_size is a message: one past 16 MiB, whole.
        std::vector<std::byte> whole(huge);
        s.expect_status(s.recv(t, 0, 11, whole), 0, 11, huge, "a message of 16 MiB + 3 bytes");
        s.expect_pattern(whole, huge, 11, "a message of 16 MiB + 3 bytes");
    });
}

/// A send's buffer is the transport's until a `test` completes the send, and the caller's from
/// then on: every send of rank 0 (to itself and to rank 1; 8 B to 1 MiB) whose `test` completes
/// before its receive is posted has its buffer overwritten at once, and its receiver must still
/// get what was sent. A send that stays incomplete until its receive is posted (as the concept
/// allows) is completed after it and not overwritten. Rank 1 sends too, so both directions count.
template <class Runner>
void buffers_after_completion(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "buffers_after_completion", l, [](auto& t, session& s) {
        using request = typename std::remove_cvref_t<decltype(t)>::request;
        if (t.rank() > 1) return;
        const int me = t.rank(), peer = 1 - me;
        const std::size_t sizes[] = {8, 300, 5000, 70000, std::size_t{1} << 20};
        const auto seed_of = [](int from, int to, std::size_t i) { return static_cast<std::uint32_t>(500 + 100 * from + 10 * to + i); };
        // Tags 40 + i to oneself, 50 + i to the peer.
        std::vector<std::vector<std::byte>> out;
        std::vector<request> rs;
        std::vector<bool> done;
        for (int dest : {me, peer})
            for (std::size_t i = 0; i < std::size(sizes); ++i) {
                out.push_back(detail::pattern(sizes[i], seed_of(me, dest, i)));
                const int tag = (dest == me ? 40 : 50) + static_cast<int>(i);
                rs.push_back(s.call("isend", [&] { return t.isend(dest, tag, const_bytes(out.back())); }));
                done.push_back(false);
            }
        s.for_a_while(std::chrono::milliseconds(20), [&] {
            for (std::size_t k = 0; k < rs.size(); ++k)
                if (!done[k] && s.call("test", [&] { return t.test(rs[k]); }).has_value()) {
                    done[k] = true;
                    std::fill(out[k].begin(), out[k].end(), std::byte{0xA5});
                }
        });
        // "Post your receives", both ways (nonblocking: a send may wait for its receive).
        auto go = s.call("isend", [&] { return t.isend(peer, 59, const_bytes{}); });
        s.recv(t, peer, 59, mutable_bytes{});
        s.wait_send(t, go, peer, 59);
        std::vector<std::byte> in(std::size_t{1} << 20);
        for (int source : {me, peer})
            for (std::size_t i = 0; i < std::size(sizes); ++i) {
                const int tag = (source == me ? 40 : 50) + static_cast<int>(i);
                s.expect_status(s.recv(t, source, tag, in), source, tag, sizes[i], "a message whose send completed before its receive");
                s.expect_pattern(in, sizes[i], seed_of(source, me, i),
                                 comet::detail::concat("a ", sizes[i], "-byte message from rank ", source, " (its buffer overwritten once a test had completed its send)"));
                // The completed receive's buffer is the caller's: the transport writes it no more.
                std::fill(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(sizes[i]), std::byte{0x3C});
                for (int n = 0; n < 5; ++n) (void)s.iprobe(t, any_source, 58);
                s.expect(std::all_of(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(sizes[i]), [](std::byte b) { return b == std::byte{0x3C}; }),
                         "the transport wrote into the buffer of a ", sizes[i], "-byte receive after a test had completed it");
            }
        for (std::size_t k = 0; k < rs.size(); ++k)
            if (!done[k]) s.wait_send(t, rs[k], k < std::size(sizes) ? me : peer, (k < std::size(sizes) ? 40 : 50) + static_cast<int>(k % std::size(sizes)));
    });
}

/// `test` never blocks: on a receive whose message cannot have been sent it returns at once
/// with nothing (a `test` that waits is stopped by the watchdog, naming this check); on a
/// default-constructed or completed request it returns an empty status.
template <class Runner>
void test_never_blocks(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "test_never_blocks", l, [](auto& t, session& s) {
        typename std::remove_cvref_t<decltype(t)>::request none;
        s.expect(s.call("test", [&] { return t.test(none); }) == std::optional<status>(status{}),
                 "test() of a default-constructed request must give an empty status at once");
        if (t.rank() > 1) return;
        const int peer = 1 - t.rank();
        std::vector<std::byte> in(100);
        if (t.rank() == 1) {
            auto r = s.call("irecv", [&] { return t.irecv(0, 22, in); });
            std::vector<std::byte> wild(100), big((std::size_t{1} << 21) + 1);
            auto w = s.call("irecv", [&] { return t.irecv(any_source, 24, wild); });
            auto g = s.call("irecv", [&] { return t.irecv(0, 25, big); });
            s.expect(!s.call("test", [&] { return t.test(g); }).has_value(), "test() completed a 2 MiB receive whose message was never sent");
            // Rank 0 sends only after the go below, so nothing can complete these receives yet
            // (named or any_source).
            s.expect(!s.call("test", [&] { return t.test(r); }).has_value(), "test() completed a receive whose message was never sent");
            s.expect(!s.call("test", [&] { return t.test(w); }).has_value(),
                     "test() completed an any_source receive whose message was never sent");
            // Nor does it wait a while for the message: of ten tests of each pending receive
            // (one naming this rank itself among them), the quickest returns within 20 ms, however
            // loaded the machine.
            std::vector<std::byte> own(4);
            auto self = s.call("irecv", [&] { return t.irecv(1, 26, own); });
            for (auto* pending : {&self, &r, &w}) {
                double quickest = 1e300;
                for (int k = 0; k < 10; ++k) {
                    const auto h0 = std::chrono::steady_clock::now();
                    s.expect(!s.call("test", [&] { return t.test(*pending); }).has_value(), "test() completed a receive whose message was never sent");
                    quickest = std::min(quickest, std::chrono::duration<double>(std::chrono::steady_clock::now() - h0).count());
                }
                s.expect(quickest < 0.02, "test() of a pending receive ", pending == &self ? "naming this rank itself" : pending == &r ? "naming rank 0" : "from any_source",
                         " took at least ", testing::detail::exact(quickest), " s each of 10 times: test never blocks");
            }
            const auto mine = detail::pattern(4, 26);
            s.send(t, 1, 26, mine);
            s.expect_status(s.wait_recv(t, self, 1, 26), 1, 26, 4, "test() status of a receive from this rank itself");
            s.send(t, peer, 23, const_bytes{});
            s.expect_status(s.wait_recv(t, w, 0, 24), 0, 24, 0, "test() status of the any_source receive");
            s.expect_status(s.wait_recv(t, g, 0, 25), 0, 25, 3, "test() status of the 2 MiB receive");
            s.expect_status(s.wait_recv(t, r, 0, 22), 0, 22, 100, "test() status");
            s.expect_pattern(in, 100, 22, "test() message");
            s.expect(s.call("test", [&] { return t.test(r); }) == std::optional<status>(status{}),
                     "test() of a completed receive must give an empty status");
            // Still once it is moved, constructed or assigned.
            auto moved = std::move(r);
            s.expect(s.call("test", [&] { return t.test(moved); }) == std::optional<status>(status{}),
                     "test() of a completed receive, moved (constructed), must give an empty status");
            r = std::move(moved);
            s.expect(s.call("test", [&] { return t.test(r); }) == std::optional<status>(status{}),
                     "test() of a completed receive, moved (assigned), must give an empty status");
        } else {
            s.recv(t, peer, 23, mutable_bytes{});
            s.send(t, peer, 24, const_bytes{});
            s.send(t, peer, 25, detail::pattern(3, 25));
            const auto out = detail::pattern(100, 22);
            auto r = s.call("isend", [&] { return t.isend(peer, 22, const_bytes(out)); });
            s.wait_send(t, r, peer, 22);
            s.expect(s.call("test", [&] { return t.test(r); }) == std::optional<status>(status{}),
                     "test() of a completed send must give an empty status");
            typename std::remove_cvref_t<decltype(t)>::request moved;
            moved = std::move(r);
            s.expect(s.call("test", [&] { return t.test(moved); }) == std::optional<status>(status{}),
                     "test() of a completed send, moved (assigned), must give an empty status");
        }
    });
}

/// iprobe sees an arrived message without taking it, reports the earliest matching one with
/// its whole size (also of a message too large to have been sent eagerly), and finds nothing
/// once it is received, or when nothing was sent.
template <class Runner>
void probe(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "probe", l, [](auto& t, session& s) {
        if (t.rank() > 1) return;
        const std::size_t large = (std::size_t{1} << 22) + 1;
        const auto tag_of = [](std::size_t i) { return 31 + static_cast<int>(i); };
        if (t.rank() == 0) {
            s.recv(t, 1, 30, mutable_bytes{});
            std::vector<std::vector<std::byte>> m{detail::pattern(77, 31), detail::pattern(large, 32), detail::pattern(40, 33),
                                                  detail::pattern(40, 34), detail::pattern(5, 35),   detail::pattern(6, 35)};
            auto rs = detail::isend_all(t, s, 1, m, [&](std::size_t i) { return i < 4 ? tag_of(i) : 35; });
            detail::wait_sends(t, s, rs, 1, [&](std::size_t i) { return i < 4 ? tag_of(i) : 35; });
            s.recv(t, 1, 30, mutable_bytes{});  // the receive of tag 29 has watched every probe
            s.send(t, 1, 29, detail::pattern(3, 29));
            return;
        }
        s.expect(!s.iprobe(t, any_source, 31).has_value(), "iprobe found a message nobody sent");
        // An iprobe that found nothing says nothing of the next: a message this rank then sends
        // itself is seen (and no other rank's arrival is needed for that).
        s.expect(!s.iprobe(t, 1, 36).has_value(), "iprobe(1, 36) found a message nobody sent");
        {
            const auto own = detail::pattern(9, 36);
            auto r = s.call("isend", [&] { return t.isend(1, 36, const_bytes(own)); });
            s.expect_status(s.probe(t, 1, 36), 1, 36, 9, "probe of a message to oneself after an iprobe that found nothing");
            std::vector<std::byte> got(9);
            s.recv(t, 1, 36, got);
            s.wait_send(t, r, 1, 36);
        }
        // A receive stays posted for tag 29 (sent last) throughout: iprobe still reports every
        // arrived message that receive does not match.
        std::vector<std::byte> last(3);
        auto r29 = s.call("irecv", [&] { return t.irecv(0, 29, last); });
        // A message a posted receive has matched belongs to that receive: iprobe never reports it,
        // before or after the test that completes the receive.
        std::vector<std::byte> taken(40);
        auto r33 = s.call("irecv", [&] { return t.irecv(0, 33, taken); });
        s.send(t, 0, 30, const_bytes{});
        s.probe(t, 0, 34);
        s.expect_status(s.probe(t, 0, 35), 0, 35, 5, "probe of the first of two messages of tag 35, with a receive posted for tag 29");
        std::vector<std::byte> pair(6);
        s.expect_status(s.recv(t, 0, 35, pair), 0, 35, 5, "the first of two messages of tag 35");
        // Once received, a tag's earlier message hides nothing behind it (the probe waits for
        // the second to arrive, until the deadline).
        s.expect_status(s.probe(t, 0, 35), 0, 35, 6, "probe of the second of two messages of tag 35, after the first was received");
        s.expect_status(s.recv(t, any_source, 35, pair), 0, 35, 6, "the second of two messages of tag 35");
        for (int i = 0; i < 200; ++i)
            s.expect(!s.iprobe(t, 0, 33).has_value(), "iprobe(0, 33) reported the message a receive posted before it was sent has taken");
        s.expect_status(s.wait_recv(t, r33, 0, 33), 0, 33, 40, "the posted receive");
        s.expect_pattern(taken, 40, 33, "the posted receive");
        s.expect(!s.iprobe(t, 0, 33).has_value(), "iprobe(0, 33) reported a message after the receive posted for it completed");
        s.recv(t, 0, 34, taken);
        s.expect_status(s.probe(t, 0, 31), 0, 31, 77, "probe status");
        s.expect_status(s.probe(t, 0, any_tag), 0, 31, 77, "a second probe (any_tag)");
        s.expect_status(s.probe(t, any_source, 32), 0, 32, large, "probe of a 4 MiB message");
        std::vector<std::byte> in(large);
        s.expect_status(s.recv(t, 0, 31, in), 0, 31, 77, "receive after probe");
        s.expect_pattern(in, 77, 31, "receive after probe");
        s.expect(!s.iprobe(t, 0, 31).has_value(), "iprobe still sees the message after it was received");
        s.expect_status(s.recv(t, 0, 32, in), 0, 32, large, "receive of the 4 MiB message after probe");
        s.expect_pattern(in, large, 32, "receive of the 4 MiB message after probe");
        s.expect(!s.call("test", [&] { return t.test(r29); }).has_value(), "a receive of tag 29 completed before rank 0 sent that tag");
        s.send(t, 0, 30, const_bytes{});
        s.expect_status(s.wait_recv(t, r29, 0, 29), 0, 29, 3, "the receive posted for tag 29 through every probe");
    });
}

/// A rank polling iprobe, or test, lets another rank's operation progress: rank 0's 1 MiB send
/// to a receive rank 1 has posted completes while rank 1 calls nothing but iprobe, then nothing
/// but test on a receive of another message.
template <class Runner>
void progress(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "progress", l, [](auto& t, session& s) {
        if (t.rank() > 1) return;
        const std::size_t large = std::size_t{1} << 20;
        if (t.rank() == 1) {
            std::vector<std::byte> in(large);
            auto r = s.call("irecv", [&] { return t.irecv(0, 12, in); });
            s.send(t, 0, 11, const_bytes{});
            s.probe(t, 0, 13);  // rank 0's word that its send completed
            s.expect_status(s.wait_recv(t, r, 0, 12), 0, 12, large, "the 1 MiB message");
            s.expect_pattern(in, large, 12, "the 1 MiB message");
            s.recv(t, 0, 13, mutable_bytes{});
            // The same while this rank polls `test` on a receive of something else.
            std::vector<std::byte> other(8);
            auto word = s.call("irecv", [&] { return t.irecv(0, 15, other); });
            r = s.call("irecv", [&] { return t.irecv(0, 14, in); });
            s.send(t, 0, 11, const_bytes{});
            s.wait_recv(t, word, 0, 15);  // polls test; rank 0 says so once its send completed
            s.expect_status(s.wait_recv(t, r, 0, 14), 0, 14, large, "the 1 MiB message (progressed by test)");
            s.expect_pattern(in, large, 14, "the 1 MiB message (progressed by test)");
        } else {
            s.recv(t, 1, 11, mutable_bytes{});
            s.send(t, 1, 12, detail::pattern(large, 12));
            s.send(t, 1, 13, const_bytes{});
            s.recv(t, 1, 11, mutable_bytes{});
            s.send(t, 1, 14, detail::pattern(large, 14));
            s.send(t, 1, 15, const_bytes{});
        }
    });
}

/// Every message is delivered exactly once: 300 messages each way on five tags, of sizes from
/// 0 to 2 KB, received by (source, tag) in the order sent; then a stream of 2,100 small messages
/// each way on one tag, past the end of any acknowledgement or sequence window of up to 2,100
/// messages. A lost one runs into the deadline, one delivered twice is still queued when the
/// check ends (or is taken by the next receive, whose number then repeats).
template <class Runner>
void exactly_once(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "exactly_once", l, [](auto& t, session& s) {
        if (t.rank() > 1) return;
        const int peer = 1 - t.rank();
        const std::size_t count = 300;
        const auto tag_of = [](std::size_t i) { return 1 + static_cast<int>(i % 5); };
        const auto size_of = [](std::size_t i) { return 4 + (i * 37) % 2000; };
        std::vector<std::vector<std::byte>> m;
        for (std::size_t i = 0; i < count; ++i) m.push_back(detail::numbered(size_of(i), static_cast<std::uint32_t>(i), 90));
        // now() never goes back, whatever the transport did in between (here, 300 isends).
        std::vector<typename std::remove_cvref_t<decltype(t)>::request> rs;
        double last = t.now();
        for (std::size_t i = 0; i < count; ++i) {
            rs.push_back(s.call("isend", [&] { return t.isend(peer, tag_of(i), const_bytes(m[i])); }));
            const double x = t.now();
            s.expect(x >= last, "now() went back by ", testing::detail::exact(last - x), " s across isend ", i + 1);
            last = x;
        }
        std::vector<std::byte> in(2004);
        for (std::size_t i = 0; i < count; ++i) {
            const status st = s.recv(t, peer, tag_of(i), in);
            s.expect(detail::number_of(in) == i && st.size == size_of(i), "message ", i, " (tag ", tag_of(i), ") arrived as number ",
                     detail::number_of(in), " (", st.size, " bytes)");
        }
        detail::wait_sends(t, s, rs, peer, tag_of);
        const std::size_t stream = 2100;
        const auto stream_tag = [](std::size_t) { return 6; };
        const auto small = [](std::size_t i) { return 4 + i % 5; };
        m.clear();
        rs.clear();
        for (std::size_t i = 0; i < stream; ++i) m.push_back(detail::numbered(small(i), static_cast<std::uint32_t>(i), 91));
        for (std::size_t i = 0; i < stream; ++i) rs.push_back(s.call("isend", [&] { return t.isend(peer, 6, const_bytes(m[i])); }));
        for (std::size_t i = 0; i < stream; ++i) {
            const status st = s.recv(t, peer, 6, in);
            s.expect(detail::number_of(in) == i && st.size == small(i), "message ", i + 1, " of a stream of ", stream,
                     " on one tag arrived as number ", detail::number_of(in) + 1, " (", st.size, " bytes, expected ", small(i), ")");
        }
        detail::wait_sends(t, s, rs, peer, stream_tag);
    });
}

/// Out-of-range ranks and tags raise invalid_argument naming the value and the calling rank;
/// the transport stays usable afterwards (the closing barrier runs on it).
template <class Runner>
void bad_arguments(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "bad_arguments", l, [](auto& t, session& s) {
        std::vector<std::byte> b(8);
        const int p = t.size();
        const std::string me = "rank " + std::to_string(t.rank());
        const auto bad = [&](auto&& body, int value, const std::string& what) {
            s.expect_throw<invalid_argument>([&] { s.call("a call with a bad argument", body); }, {std::to_string(value), me}, what);
        };
        bad([&] { (void)t.isend(p, 1, b); }, p, "isend to rank size()");
        bad([&] { (void)t.isend(-3, 1, b); }, -3, "isend to rank -3");
        bad([&] { (void)t.isend(any_source, 1, b); }, any_source, "isend to any_source (a receive's wildcard, not a rank)");
        bad([&] { (void)t.irecv(p, 1, b); }, p, "irecv from rank size()");
        bad([&] { (void)t.irecv(p + 2, 1, b); }, p + 2, "irecv from rank size()+2");
        bad([&] { (void)t.irecv(-4, 1, b); }, -4, "irecv from rank -4");
        bad([&] { (void)t.irecv(0, -9, b); }, -9, "irecv with tag -9");
        bad([&] { (void)t.iprobe(p, 1); }, p, "iprobe of rank size()");
        bad([&] { (void)t.iprobe(-2, 1); }, -2, "iprobe of rank -2");
        bad([&] { (void)t.isend(0, -2, const_bytes{}); }, -2, "isend of 0 bytes with tag -2");
        bad([&] { (void)t.iprobe(0, -6); }, -6, "iprobe with tag -6");
        bad([&] { (void)t.irecv(any_source, -7, b); }, -7, "irecv(any_source) with tag -7");
        bad([&] { (void)t.iprobe(any_source, -8); }, -8, "iprobe(any_source) with tag -8");
        bad([&] { ops::send(t, p, 1, b); }, p, "send to rank size()");
        bad([&] { ops::send(t, 0, -5, b); }, -5, "send with tag -5");
        bad([&] { ops::recv(t, p + 2, 1, b); }, p + 2, "recv from rank size()+2");
        bad([&] { ops::broadcast(t, p, b); }, p, "broadcast from root size()");
        std::vector<double> v(2);
        bad([&] { ops::reduce_sum(t, p + 1, v); }, p + 1, "reduce_sum to root size()+1");
        std::vector<std::byte> all(8 * static_cast<std::size_t>(p));
        bad([&] { ops::gather(t, -2, b, all); }, -2, "gather to root -2");
    });
}

/// now() never goes back (a step back is printed with every digit, so it shows however small
/// it is); compute() takes the time it describes, short pieces of work included.
template <class Runner>
void time_and_compute(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "time_and_compute", l, [](auto& t, session& s) {
        const auto now = [&] { return s.call("now", [&] { return t.now(); }); };
        double last = now();
        for (int i = 0; i < 20000; ++i) {
            const double x = now();
            s.expect(x >= last, "now() went back from ", testing::detail::exact(last), " s to ", testing::detail::exact(x), " s (by ",
                     testing::detail::exact(last - x), " s)");
            last = x;
        }
        // A clock that follows the host while it computes is a wall clock, and so follows it while
        // it sleeps too (a process's or thread's CPU time does not); a virtual clock follows neither.
        const auto host_busy = [](double seconds) {
            const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
            while (std::chrono::steady_clock::now() < until) {
            }
        };
        // Three tries: a rank descheduled between reading the two clocks spoils one, not all.
        double busy_host = 0, host = 0;
        for (int attempt = 0; attempt < 3; ++attempt) {
            const auto h0 = std::chrono::steady_clock::now();
            const double b0 = now();
            host_busy(0.05);
            busy_host = now() - b0;
            host = std::chrono::duration<double>(std::chrono::steady_clock::now() - h0).count();
            if (busy_host < 0.01 || (busy_host > 0.9 * host && busy_host < 1.1 * host)) break;
        }
        const double s0 = now();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const double slept = now() - s0;
        s.expect(busy_host < 0.01 || (busy_host > 0.9 * host && busy_host < 1.1 * host), "now() advanced ", testing::detail::exact(busy_host),
                 " s while the host's steady clock advanced ", testing::detail::exact(host), " s: a clock that follows the host must count seconds");
        s.expect(busy_host < 0.01 || slept >= 0.01, "now() advanced ", testing::detail::exact(busy_host),
                 " s while this rank computed for 50 ms but ", testing::detail::exact(slept),
                 " s while it slept for 20 ms: it must be a wall clock (or a virtual one), not CPU time");
        const double t0 = now();
        s.call("ops::compute", [&] { ops::compute(t, work::busy(0.005)); });
        const double busy = now() - t0;
        s.expect(busy >= 0.004 && busy < 5.0, "compute(busy 5 ms) took ", testing::detail::exact(busy), " s");
        const auto cpu = [] {
            timespec ts{};
            ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
        };
        const double t_long = now(), cpu0 = cpu();
        s.call("ops::compute", [&] { ops::compute(t, work::busy(0.2)); });
        const double long_busy = now() - t_long, long_cpu = cpu() - cpu0;
        s.expect(long_busy >= 0.19 && long_busy < 20.0, "compute(busy 200 ms) took ", testing::detail::exact(long_busy), " s");
        // Busy work on a machine whose clock is the host's keeps the CPU busy (a rank that shares
        // its core with another still gets a part of it); on a simulated one it is only charged.
        s.expect(busy_host < 0.01 || long_cpu >= 0.02, "compute(busy 200 ms) used ", testing::detail::exact(long_cpu),
                 " s of this thread's CPU: busy work must keep the CPU busy, not sleep");
        // Short pieces of work take their time too, however far below a timer's resolution:
        // 100 of 500 µs and 200 of 20 µs, timed as a whole.
        for (const auto& [pieces, seconds] : {std::pair{100, 500e-6}, std::pair{200, 20e-6}}) {
            const double p0 = now();
            s.call("ops::compute", [&, pieces = pieces, seconds = seconds] {
                for (int k = 0; k < pieces; ++k) ops::compute(t, work::busy(seconds));
            });
            const double took = now() - p0;
            s.expect(took >= 0.8 * pieces * seconds, pieces, " computes of busy ", seconds * 1e6, " µs took ", testing::detail::exact(took),
                     " s in all, less than the ", pieces * seconds, " s they describe");
        }
        const double t1 = now();
        s.call("ops::compute", [&] {
            ops::compute(t, work::daxpy(100000));
            ops::compute(t, work::flops(100000));
        });
        const double t2 = now();
        s.expect(t2 >= t1, "now() went back across compute(), from ", testing::detail::exact(t1), " s to ", testing::detail::exact(t2), " s");
    });
}

}  // namespace comet::testing::checks
