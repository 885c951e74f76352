// held_out_6/witnesses_6.hpp — the witness scenarios written for this set's defects (defects.hpp):
// core scenarios (both models) and full-model scenarios, run before those of witnesses.hpp and
// witnesses_full.hpp by `run_witnesses`. Like those, they know what each mutant does and where
// to look; they are not a conformance suite. Each is named after the defect it is aimed at.
#pragma once

#include "witnesses.hpp"

#include <cmath>
#include <cstdint>

namespace held_out_6::witness {

template <class T>
comet::const_bytes as_bytes_of(const T& v) {
    return comet::const_bytes(reinterpret_cast<const std::byte*>(&v), sizeof v);
}

template <class Runner>
std::vector<scenario<Runner>> core_scenarios_6() {
    using comet::any_source, comet::any_tag;
    std::vector<scenario<Runner>> s;
    s.push_back({"posted_tag_bucket_64", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "go");
                send(t, 1, 69, bytes(3, 69));
                send(t, 1, 5, bytes(4, 5));
                return;
            }
            auto r = t.irecv(0, 5, in);
            send(t, 0, 90, one());
            expect_status(t, finish(t, r, "posted receive of tag 5"), 0, 5, 4, "posted tag-5 receive, a tag-69 message arriving first");
            std::vector<std::byte> other(16);
            expect_status(t, receive(t, 0, 69, other, "tag 69"), 0, 69, 3, "the tag-69 message");
        });
    }});
    s.push_back({"posted_source_last_is_any", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 1) {
                receive(t, 0, 90, in, "go");
                send(t, 0, 7, bytes(3, 1));
                send(t, 2, 91, one());
                return;
            }
            if (t.rank() == 2) {
                receive(t, 1, 91, in, "go");
                send(t, 0, 7, bytes(5, 2));
                return;
            }
            auto r = t.irecv(2, 7, in);
            send(t, 1, 90, one());
            expect_status(t, finish(t, r, "posted receive naming rank 2"), 2, 7, 5, "posted receive naming rank 2, rank 1's message arriving first");
            std::vector<std::byte> other(16);
            expect_status(t, receive(t, 1, 7, other, "rank 1's message"), 1, 7, 3, "rank 1's message");
        });
    }});
    s.push_back({"posted_scan_stops_at_source", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> a(16), b(16);
            if (t.rank() == 0) {
                receive(t, 1, 90, a, "go");
                send(t, 1, 2, bytes(4, 2));
                send(t, 1, 1, bytes(3, 1));
                return;
            }
            auto ra = t.irecv(0, 1, a);
            auto rb = t.irecv(0, 2, b);
            send(t, 0, 90, one());
            expect_status(t, finish(t, rb, "second posted receive (tag 2), its message first"), 0, 2, 4, "second posted receive");
            expect_status(t, finish(t, ra, "first posted receive (tag 1)"), 0, 1, 3, "first posted receive");
        });
    }});
    s.push_back({"empty_bypasses_posted_wildcard", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> a(8), b(8);
            if (t.rank() == 0) {
                receive(t, 1, 90, a, "go");
                send(t, 1, 4, comet::const_bytes());
                send(t, 1, 6, comet::const_bytes());
                return;
            }
            auto ra = t.irecv(any_source, 4, a);
            auto rb = t.irecv(0, any_tag, b);
            send(t, 0, 90, one());
            expect_status(t, finish(t, ra, "posted any_source receive of an empty message"), 0, 4, 0, "posted any_source receive");
            expect_status(t, finish(t, rb, "posted any_tag receive of an empty message"), 0, 6, 0, "posted any_tag receive");
        });
    }});
    s.push_back({"rendezvous_posted_any_source_stalls", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(100000);
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "go");
                send(t, 1, 5, bytes(100000, 5));
                return;
            }
            auto r = t.irecv(any_source, 5, in);
            send(t, 0, 90, one());
            expect_status(t, finish(t, r, "posted any_source receive of 100000 bytes"), 0, 5, 100000, "posted any_source receive of 100000 bytes");
            expect_bytes(t, in, 100000, 5, "100000 bytes into a posted any_source receive");
        });
    }});
    s.push_back({"interleaved_sender_tail_stale", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 2, 1, bytes(4, 1));
                send(t, 1, 90, one());
                receive(t, 1, 91, in, "rank 1 sent");
                send(t, 2, 1, bytes(5, 2));
                send(t, 2, 99, one());
                return;
            }
            if (t.rank() == 1) {
                receive(t, 0, 90, in, "go");
                send(t, 2, 1, bytes(6, 3));
                send(t, 0, 91, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            arrived(t, 1, 1, "rank 1's message");
            expect_status(t, receive(t, 0, 1, in, "first of rank 0"), 0, 1, 4, "rank 0's first message (rank 1's queued between)");
            expect_status(t, receive(t, 0, 1, in, "second of rank 0"), 0, 1, 5, "rank 0's second message");
            expect_status(t, receive(t, 1, 1, in, "rank 1's"), 1, 1, 6, "rank 1's message");
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"scan_cursor_not_reset", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 1, 1, bytes(4, 1));
                send(t, 1, 2, bytes(5, 2));
                send(t, 1, 1, bytes(6, 3));
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            expect_status(t, receive(t, 0, 2, in, "tag 2"), 0, 2, 5, "tag 2, between two tag-1 messages");
            expect_status(t, receive(t, 0, 1, in, "first tag 1"), 0, 1, 4, "first tag-1 message after the tag-2 receive");
            expect_status(t, receive(t, 0, 1, in, "second tag 1"), 0, 1, 6, "second tag-1 message");
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"reserved_tags_priority_lane", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 1, 5, bytes(3, 1));
                send(t, 1, 32005, bytes(4, 2));
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            expect_status(t, receive(t, 0, any_tag, in, "any_tag"), 0, 5, 3, "any_tag receive: the application message was sent first");
            expect_status(t, receive(t, 0, any_tag, in, "any_tag"), 0, 32005, 4, "second any_tag receive");
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"probe_slot_status_reused", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                send(t, 1, 1, bytes(10, 1));
                send(t, 1, 2, bytes(20, 2));
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            const auto p = t.iprobe(0, 1);
            if (!p) fail(1, "iprobe(0, 1) saw nothing");
            expect_status(t, *p, 0, 1, 10, "iprobe of tag 1");
            expect_status(t, receive(t, 0, 2, in, "tag 2 after probing tag 1"), 0, 2, 20, "receive of tag 2 after an iprobe of tag 1");
            expect_status(t, receive(t, 0, 1, in, "tag 1"), 0, 1, 10, "receive of tag 1");
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"send_status_stale_tag", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                const auto a = bytes(4, 3), b = bytes(5, 4);
                auto r1 = t.isend(1, 3, a);
                expect_status(t, finish(t, r1, "isend tag 3"), 1, 3, 4, "completed isend of tag 3");
                auto r2 = t.isend(1, 4, b);
                expect_status(t, finish(t, r2, "isend tag 4"), 1, 4, 5, "completed isend of tag 4 after one of tag 3");
                return;
            }
            receive(t, 0, 3, in, "tag 3");
            receive(t, 0, 4, in, "tag 4");
        });
    }});
    s.push_back({"posted_status_size_last_chunk", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(200000);
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "go");
                send(t, 1, 8, bytes(150000, 8));
                return;
            }
            auto r = t.irecv(0, 8, in);
            send(t, 0, 90, one());
            expect_status(t, finish(t, r, "posted receive of 150000 bytes"), 0, 8, 150000, "150000 bytes into a posted 200000-byte receive");
            expect_bytes(t, in, 150000, 8, "150000 bytes into a posted receive");
        });
    }});
    s.push_back({"relay_opposite_status_source", [](const Runner& run) {
        run(4, [](auto& t) {
            std::vector<std::byte> in(16);
            const int me = t.rank();
            if (me >= 2) {
                send(t, me - 2, 3, bytes(5u + me, 3));
                return;
            }
            expect_status(t, receive(t, me + 2, 3, in, "from two ranks away"), me + 2, 3, 7u + me, "message from the rank size()/2 away");
        });
    }});
    s.push_back({"iprobe_any_source_first_nonempty", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() < 2) {
                send(t, 2, 5 + t.rank(), bytes(3u + t.rank(), 1));
                return;
            }
            arrived(t, 0, 5, "rank 0's tag 5");
            arrived(t, 1, 6, "rank 1's tag 6");
            const auto p = t.iprobe(any_source, 6);
            if (!p) fail(2, "iprobe(any_source, 6) saw nothing while rank 1's tag-6 message waits (and rank 0's tag-5 one)");
            expect_status(t, *p, 1, 6, 4, "iprobe(any_source, 6)");
            receive(t, 0, 5, in, "tag 5");
            receive(t, 1, 6, in, "tag 6");
        });
    }});
    s.push_back({"iprobe_result_cached", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 1, 5, bytes(3, 5));
                return;
            }
            arrived(t, 0, 5, "tag 5");
            receive(t, 0, 5, in, "tag 5");
            if (const auto p = t.iprobe(0, 5)) fail(1, "iprobe(0, 5) reports a message of ", p->size, " bytes after the only one was received");
        });
    }});
    s.push_back({"iprobe_singleton_short_circuit", [](const Runner& run) {
        run(1, [](auto& t) {
            std::vector<std::byte> in(16);
            send(t, 0, 3, bytes(4, 3));
            expect_status(t, arrived(t, 0, 3, "own message in a group of one", 1.0), 0, 3, 4, "iprobe of one's own message in a group of one");
            receive(t, 0, 3, in, "own message");
        });
    }});
    s.push_back({"truncation_checked_in_words", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send(t, 1, 1, bytes(12, 1));
                send(t, 1, 99, one());
                return;
            }
            std::vector<std::byte> in(10);
            arrived(t, 0, 99, "marker");
            auto r = t.irecv(0, 1, in);
            expect_raise<comet::truncation_error>(1, [&] { finish(t, r, "12 bytes into 10"); }, "12", "12 bytes into a 10-byte buffer");
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"truncation_loopback_silent", [](const Runner& run) {
        run(1, [](auto& t) {
            send(t, 0, 2, bytes(20, 2));
            std::vector<std::byte> in(8);
            auto r = t.irecv(0, 2, in);
            expect_raise<comet::truncation_error>(0, [&] { finish(t, r, "20 bytes to oneself into 8"); }, "20", "20 bytes to oneself into an 8-byte buffer");
        });
    }});
    s.push_back({"unaligned_tail_dropped", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send(t, 1, 4, bytes(13, 5));
                return;
            }
            std::vector<std::byte> store(32);
            comet::mutable_bytes in(store.data() + 1, 20);
            expect_status(t, receive(t, 0, 4, in, "13 bytes, unaligned buffer"), 0, 4, 13, "13 bytes into an unaligned buffer");
            std::vector<std::byte> got(store.begin() + 1, store.begin() + 14);
            expect_bytes(t, got, 13, 5, "13 bytes into a buffer at an odd address");
        });
    }});
    s.push_back({"page_multiple_short_last_page", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send(t, 1, 4, bytes(8192, 6));
                return;
            }
            std::vector<std::byte> in(10000);
            expect_status(t, receive(t, 0, 4, in, "8192 bytes into 10000"), 0, 4, 8192, "8192 bytes into 10000");
            expect_bytes(t, in, 8192, 6, "8192 bytes (two pages) into a 10000-byte buffer");
        });
    }});
    s.push_back({"window_boundary_duplicate", [](const Runner& run) {
        run(2, [](auto& t) {
            constexpr std::uint32_t n = 1001;
            if (t.rank() == 0) {
                for (std::uint32_t i = 0; i < n; ++i) send(t, 1, 9, as_bytes_of(i));
                send(t, 1, 99, one());
                return;
            }
            std::vector<std::byte> in(8);
            for (std::uint32_t i = 0; i < n; ++i) {
                receive(t, 0, 9, in, "one of 1001");
                std::uint32_t seq;
                std::memcpy(&seq, in.data(), 4);
                if (seq != i) fail(1, "message ", i, " of 1001 arrived as ", seq);
            }
            receive(t, 0, 99, in, "marker");
            if (const auto p = t.iprobe(any_source, any_tag)) fail(1, "a message of tag ", p->tag, " is left over after all were received");
        });
    }});
    s.push_back({"empty_recv_completes_unmatched", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> go(1);
            if (t.rank() == 0) {
                receive(t, 1, 90, go, "go");
                send(t, 1, 3, comet::const_bytes());
                send(t, 1, 4, comet::const_bytes());
                return;
            }
            auto r = t.irecv(0, 3, comet::mutable_bytes());
            send(t, 0, 90, one());
            expect_status(t, finish(t, r, "empty receive of tag 3"), 0, 3, 0, "empty receive of an empty message");
            auto w = t.irecv(any_source, any_tag, comet::mutable_bytes());
            expect_status(t, finish(t, w, "empty wildcard receive"), 0, 4, 0, "empty any_source/any_tag receive of the next empty message");
            if (const auto p = t.iprobe(any_source, any_tag)) fail(1, "a message of tag ", p->tag, " is left over after both were received");
        });
    }});
    s.push_back({"completed_request_slot_reused", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> a(8), b(8);
            if (t.rank() == 0) {
                receive(t, 1, 90, a, "go");
                send(t, 1, 1, bytes(4, 1));
                receive(t, 1, 91, a, "go 2");
                send(t, 1, 2, bytes(5, 2));
                return;
            }
            auto r1 = t.irecv(0, 1, a);
            send(t, 0, 90, one());
            expect_status(t, finish(t, r1, "tag 1"), 0, 1, 4, "first receive");
            auto r2 = t.irecv(0, 2, b);
            const auto again = t.test(r1);
            if (!again) fail(1, "test of a completed request returned nothing (pending) while another receive is pending");
            if (*again != comet::status{}) fail(1, "test of a completed request returned a non-default status");
            send(t, 0, 91, one());
            expect_status(t, finish(t, r2, "tag 2"), 0, 2, 5, "second receive");
        });
    }});
    s.push_back({"now_cached_at_last_call", [](const Runner& run) {
        run(1, [](auto& t) {
            (void)t.iprobe(0, 1);
            const double t0 = t.now();
            pause(0.1);
            const double d = t.now() - t0;
            if (d < 0.09 || d > 1.0) fail(0, "0.1 s of sleep without transport calls measured ", d, " by now()");
        });
    }});
    s.push_back({"error_tag_printed_unsigned", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> b(8);
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.isend(1 - t.rank(), -5, b); }, "-5", "isend of tag -5");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.irecv(1 - t.rank(), -7, b); }, "-7", "irecv of tag -7");
        });
    }});
    return s;
}

template <class Runner>
std::vector<scenario<Runner>> full_scenarios_6() {
    using comet::any_source, comet::any_tag;
    std::vector<scenario<Runner>> s;
    s.push_back({"bsend_large_cut", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                t.bsend(1, 5, bytes(100000, 5));
                return;
            }
            std::vector<std::byte> in(100000);
            expect_status(t, t.recv(0, 5, in), 0, 5, 100000, "bsent 100000 bytes");
            expect_bytes(t, in, 100000, 5, "bsent 100000 bytes");
        });
    }});
    s.push_back({"bsend_pool_leak_1mib", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank(), peer = 1 - me;
            within(me, 4.0, "20 bsends of 64 KiB each way, then 20 receives", [&] {
                const auto out = bytes(65536, 7);
                for (int i = 0; i < 20; ++i) t.bsend(peer, 30, out);
                std::vector<std::byte> in(65536);
                for (int i = 0; i < 20; ++i) expect_status(t, t.recv(peer, 30, in), peer, 30, 65536, "one of 20 bsent messages");
            });
        });
    }});
    s.push_back({"issend_self_ack_lost", [](const Runner& run) {
        run(1, [](auto& t) {
            std::vector<std::byte> in(8);
            auto r = t.irecv(0, 5, in);
            auto s = t.issend(0, 5, bytes(8, 5));
            expect_status(t, finish(t, r, "receive of one's own issend"), 0, 5, 8, "receive of one's own issend");
            expect_status(t, finish(t, s, "issend to oneself, matched"), 0, 5, 8, "issend to oneself");
        });
    }});
    s.push_back({"issend_truncation_no_ack", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "go");
                auto s = t.issend(1, 3, bytes(20, 3));
                expect_status(t, finish(t, s, "issend matched by a receive too small"), 1, 3, 20, "issend matched by a truncating receive");
                send(t, 1, 98, one());
                return;
            }
            auto r = t.irecv(0, 3, in);
            send(t, 0, 90, one());
            expect_raise<comet::truncation_error>(1, [&] { finish(t, r, "20 bytes into 8"); }, "20", "20 issent bytes into 8");
            receive(t, 0, 98, in, "done");
        });
    }});
    s.push_back({"rsend_ignores_posted_source", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> a(16), b(16), go(1);
            if (t.rank() == 0) {
                receive(t, 2, 90, go, "go");
                t.rsend(2, 61, bytes(8, 1));
                send(t, 1, 91, one());
                return;
            }
            if (t.rank() == 1) {
                receive(t, 0, 91, go, "go");
                t.rsend(2, 61, bytes(9, 2));
                return;
            }
            auto ra = t.irecv(1, 61, a);
            auto rb = t.irecv(0, 61, b);
            send(t, 0, 90, one());
            expect_status(t, finish(t, rb, "receive naming rank 0"), 0, 61, 8, "posted receive naming rank 0 (one naming rank 1 posted first)");
            expect_status(t, finish(t, ra, "receive naming rank 1"), 1, 61, 9, "posted receive naming rank 1");
        });
    }});
    s.push_back({"sendrecv_recv_room_of_send", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank(), peer = 1 - me;
            std::vector<std::byte> in(64);
            within(me, 2.0, "sendrecv of 8 and 20 bytes", [&] {
                const std::size_t mine = me == 0 ? 8 : 20, theirs = me == 0 ? 20 : 8;
                expect_status(t, t.sendrecv(peer, 70 + me, bytes(mine, 1), peer, 70 + peer, in), peer, 70 + peer, theirs,
                              "sendrecv receiving more bytes than it sends (into 64)");
            });
        });
    }});
    s.push_back({"recv_native_probe_then_any_tag", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 1, 7, bytes(5, 7));
                send(t, 1, 8, bytes(6, 8));
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            expect_status(t, t.recv(any_source, 8, in), 0, 8, 6, "recv(any_source, 8) with a tag-7 message waiting first");
            expect_status(t, t.recv(0, 7, in), 0, 7, 5, "recv(0, 7)");
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"wait_send_status_latest", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(32);
            if (t.rank() == 0) {
                const auto a = bytes(12, 7), b = bytes(20, 8);
                auto r1 = t.isend(1, 7, a);
                auto r2 = t.isend(1, 8, b);
                expect_status(t, t.wait(r1), 1, 7, 12, "wait of the first of two isends");
                expect_status(t, t.wait(r2), 1, 8, 20, "wait of the second isend");
                return;
            }
            receive(t, 0, 7, in, "tag 7");
            receive(t, 0, 8, in, "tag 8");
        });
    }});
    s.push_back({"wait_all_batch_64", [](const Runner& run) {
        run(2, [](auto& t) {
            using request = request_of<decltype(t)>;
            constexpr int n = 70;
            if (t.rank() == 0) {
                std::vector<std::byte> go(1);
                receive(t, 1, 90, go, "go");
                for (int i = 0; i < n; ++i) send(t, 1, 100 + i, bytes(4, static_cast<unsigned>(i)));
                return;
            }
            std::vector<std::vector<std::byte>> in(n, std::vector<std::byte>(4));
            std::vector<request> rs;
            for (int i = 0; i < n; ++i) rs.push_back(t.irecv(0, 100 + i, in[static_cast<std::size_t>(i)]));
            send(t, 0, 90, one());
            within(1, 2.0, "wait_all of 70 receives", [&] { t.wait_all(std::span<request>(rs)); });
            for (int i = 0; i < n; ++i)
                if (t.test(rs[static_cast<std::size_t>(i)]) != std::optional<comet::status>(comet::status{}))
                    fail(1, "request ", i, " of 70 is not a completed (default) one after wait_all");
        });
    }});
    s.push_back({"barrier_release_on_root_entry", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            for (int k = 0; k < 2; ++k) {
                if (me == 2) pause(0.15);
                const auto t0 = std::chrono::steady_clock::now();
                t.barrier();
                if (me == 1 && seconds_since(t0) < 0.12) fail(1, "left barrier ", k + 1, " before rank 2 entered");
            }
        });
    }});
    s.push_back({"broadcast_tree_floor_pow2", [](const Runner& run) {
        for (const int p : {3, 5}) {
            run(p, [](auto& t) {
                const int root = 1;
                auto data = t.rank() == root ? bytes(100, 9) : std::vector<std::byte>(100);
                t.broadcast(root, data);
                expect_bytes(t, data, 100, 9, "broadcast of 100 bytes from rank 1");
            });
        }
    }});
    s.push_back({"allreduce_sum_chunk_seam", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<double> v(2100, t.rank() + 1.0);
            t.allreduce_sum(v);
            for (std::size_t i = 0; i < v.size(); ++i)
                if (v[i] != 6.0) fail(t.rank(), "allreduce_sum of 2100 elements: element ", i, " is ", v[i], ", not 6");
        });
    }});
    s.push_back({"allreduce_max_by_magnitude", [](const Runner& run) {
        run(3, [](auto& t) {
            const double mine[3] = {-10.0, 3.0, -1.0};
            std::vector<double> v{mine[t.rank()], 1.0 + t.rank()};
            t.allreduce_max(v);
            if (v[0] != 3.0 || v[1] != 3.0) fail(t.rank(), "allreduce_max of {-10, 3, -1} and {1, 2, 3} gave ", v[0], " and ", v[1]);
        });
    }});
    s.push_back({"reduce_sum_tree_partials_left", [](const Runner& run) {
        run(4, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{me + 1.0};
            t.reduce_sum(0, v);
            if (v[0] != (me == 0 ? 10.0 : me + 1.0)) fail(me, "reduce_sum to rank 0 left ", v[0]);
        });
    }});
    s.push_back({"reduce_max_ring_misses_predecessor", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{me == 0 ? 9.0 : 1.0 * me};
            t.reduce_max(1, v);
            if (me == 1 && v[0] != 9.0) fail(1, "reduce_max to rank 1 of {9, 1, 2} gave ", v[0]);
        });
    }});
    s.push_back({"reduce_min_rank0_keeps_result", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{10.0 - me};
            t.reduce_min(2, v);
            if (v[0] != (me == 2 ? 8.0 : 10.0 - me)) fail(me, "reduce_min to rank 2 left ", v[0]);
        });
    }});
    s.push_back({"gather_wrap_skips_rank0", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            const std::byte mine[2] = {std::byte(me + 1), std::byte(me + 41)};
            std::vector<std::byte> all(6, std::byte{0xee});
            t.gather(2, comet::const_bytes(mine, 2), all);
            for (int r = 0; me == 2 && r < 3; ++r)
                if (all[2 * r] != std::byte(r + 1) || all[2 * r + 1] != std::byte(r + 41)) fail(2, "gather to rank 2: rank ", r, "'s block is wrong");
        });
    }});
    s.push_back({"alltoall_half_distance_missing", [](const Runner& run) {
        for (const int p : {2, 4}) {
            run(p, [](auto& t) {
                const int me = t.rank(), n = t.size();
                std::vector<std::byte> out(3 * n), in(3 * n, std::byte{0xee});
                for (int r = 0; r < n; ++r) std::fill_n(out.begin() + 3 * r, 3, std::byte(me * 16 + r));
                t.alltoall(out, in);
                for (int r = 0; r < n; ++r)
                    if (in[3 * r] != std::byte(r * 16 + me) || in[3 * r + 2] != std::byte(r * 16 + me))
                        fail(me, "alltoall in a group of ", n, ": the block from rank ", r, " is wrong");
            });
        }
    }});
    s.push_back({"compute_busy_from_last_call", [](const Runner& run) {
        run(1, [](auto& t) {
            (void)t.iprobe(0, 1);
            pause(0.1);
            const auto t0 = std::chrono::steady_clock::now();
            t.compute(comet::work::busy(0.15));
            if (seconds_since(t0) < 0.14) fail(0, "compute(busy 150 ms), 0.1 s after the last transport call, took ", seconds_since(t0), " s");
        });
    }});
    s.push_back({"abort_first_line_only", [](const Runner& run) {
        try {
            run(2, [](auto& t) {
                if (t.rank() == 1) t.abort("witness abort\nsecond line 77");
                std::vector<std::byte> b(8);
                auto r = t.irecv(comet::any_source, 77, b);
                for (;;) (void)t.test(r);
            });
        } catch (const comet::aborted& e) {
            const std::string m = e.what();
            if (m.find("rank 1") == std::string::npos || m.find("second line 77") == std::string::npos)
                fail(-1, "abort: \"", m, "\" does not name rank 1 and the whole message");
            return;
        } catch (const std::exception& e) {
            fail(-1, "abort: raised something other than comet::aborted: ", e.what());
        }
        fail(-1, "abort: the run ended without comet::aborted");
    }});
    s.push_back({"ibarrier_neighbours_only", [](const Runner& run) {
        run(4, [](auto& t) {
            const int me = t.rank();
            if (me == 2) pause(0.15);
            const auto t0 = std::chrono::steady_clock::now();
            auto b = t.ibarrier();
            finish(t, b, "ibarrier");
            if (me == 0 && seconds_since(t0) < 0.12) fail(0, "ibarrier completed before rank 2 entered");
        });
    }});
    s.push_back({"ibroadcast_root_cached", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            for (const int root : {0, 2}) {
                auto data = me == root ? bytes(32, 10u + root) : std::vector<std::byte>(32);
                auto r = t.ibroadcast(root, data);
                finish(t, r, "ibroadcast");
                expect_bytes(t, data, 32, 10u + root, root == 0 ? "ibroadcast from rank 0" : "ibroadcast from rank 2 after one from rank 0");
            }
        });
    }});
    s.push_back({"iallreduce_two_outstanding_mixed", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank();
            if (me == 1) pause(0.1);
            std::vector<double> v1{me + 1.0}, v2{10.0 * (me + 1)};
            auto a = t.iallreduce_sum(v1);
            auto b = t.iallreduce_sum(v2);
            finish(t, a, "first iallreduce_sum");
            finish(t, b, "second iallreduce_sum");
            if (v1[0] != 3.0 || v2[0] != 30.0) fail(me, "two outstanding iallreduce_sum gave ", v1[0], " and ", v2[0], ", not 3 and 30");
        });
    }});
    s.push_back({"progress_rematch_source_only", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16), other(16);
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "go");
                send(t, 1, 6, bytes(3, 6));
                receive(t, 1, 91, in, "go 2");
                send(t, 1, 5, bytes(4, 5));
                return;
            }
            auto r = t.irecv(0, 5, in);
            send(t, 0, 90, one());
            arrived(t, 0, 6, "tag 6");
            t.progress();
            if (const auto s = t.test(r)) fail(1, "progress completed the posted tag-5 receive with a message of tag ", s->tag);
            if (!t.iprobe(0, 6)) fail(1, "after progress, the waiting tag-6 message is gone");
            send(t, 0, 91, one());
            expect_status(t, finish(t, r, "tag 5"), 0, 5, 4, "posted tag-5 receive");
            expect_status(t, receive(t, 0, 6, other, "tag 6"), 0, 6, 3, "tag-6 message");
        });
    }});
    return s;
}

}  // namespace held_out_6::witness
