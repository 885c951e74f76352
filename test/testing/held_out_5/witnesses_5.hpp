// held_out_5/witnesses_5.hpp — the witness scenarios written for this set's defects (defects.hpp):
// core scenarios (both models) and full-model scenarios, run after those of witnesses.hpp and
// witnesses_full.hpp by `run_witnesses`. Like those, they know what each mutant does and where
// to look; they are not a conformance suite. Each names, in a comment, the defect it is aimed at.
#pragma once

#include "witnesses.hpp"

#include <cstdint>
#include <string>

namespace held_out_5::witness {

template <class T>
void send_u32(T& t, int dest, int tag, std::uint32_t v) {
    send(t, dest, tag, comet::const_bytes(reinterpret_cast<const std::byte*>(&v), 4));
}
inline std::uint32_t u32(const std::vector<std::byte>& b) {
    std::uint32_t v = 0;
    std::memcpy(&v, b.data(), 4);
    return v;
}

template <class Runner>
std::vector<scenario<Runner>> core_scenarios_5() {
    using comet::any_source, comet::any_tag;
    std::vector<scenario<Runner>> s;
    // empty_isend_default_status
    s.push_back({"status of an empty isend", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                auto r = t.isend(1, 5, comet::const_bytes());
                expect_status(t, finish(t, r, "empty isend"), 1, 5, 0, "completed isend of zero bytes");
                return;
            }
            expect_status(t, receive(t, 0, 5, in, "empty message"), 0, 5, 0, "zero-length message");
        });
    }});
    // iprobe_size_of_queue_head, iprobe_scan_starts_second
    s.push_back({"probe behind other messages", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                send(t, 1, 4, bytes(4, 1));
                send(t, 1, 4, bytes(5, 2));
                send(t, 1, 2, bytes(20, 3));
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            const auto a = t.iprobe(0, 4);
            if (!a) fail(1, "iprobe(0, 4) saw nothing");
            expect_status(t, *a, 0, 4, 4, "iprobe of the earliest of two tag-4 messages");
            const auto b = t.iprobe(0, 2);
            if (!b) fail(1, "iprobe(0, 2) saw nothing");
            expect_status(t, *b, 0, 2, 20, "iprobe of a tag-2 message behind two others");
            const auto c = t.iprobe(any_source, 2);
            if (!c) fail(1, "iprobe(any_source, 2) saw nothing");
            expect_status(t, *c, 0, 2, 20, "any_source iprobe of a tag-2 message behind two others");
            expect_status(t, receive(t, 0, 4, in, "tag 4"), 0, 4, 4, "first tag 4");
            expect_status(t, receive(t, 0, 4, in, "tag 4"), 0, 4, 5, "second tag 4");
            expect_status(t, receive(t, 0, 2, in, "tag 2"), 0, 2, 20, "tag 2");
            receive(t, 0, 99, in, "marker");
        });
    }});
    // rendezvous_size_page_rounded, segment_tail_from_previous, threshold_exact_size_lost
    s.push_back({"messages around 64 KiB", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send(t, 1, 3, bytes(70000, 3));
                send(t, 1, 4, bytes(150000, 4));
                send(t, 1, 5, bytes(65536, 5));
                send(t, 1, 6, bytes(65535, 6));
                return;
            }
            std::vector<std::byte> big(100000), huge(200000);
            expect_status(t, receive(t, 0, 3, big, "70000 bytes"), 0, 3, 70000, "70000 bytes into 100000");
            expect_bytes(t, big, 70000, 3, "70000 bytes");
            expect_status(t, receive(t, 0, 4, huge, "150000 bytes"), 0, 4, 150000, "150000 bytes into 200000");
            expect_bytes(t, huge, 150000, 4, "150000 bytes");
            expect_status(t, receive(t, 0, 5, big, "65536 bytes"), 0, 5, 65536, "exactly 64 KiB");
            expect_bytes(t, big, 65536, 5, "exactly 64 KiB");
            expect_status(t, receive(t, 0, 6, big, "65535 bytes"), 0, 6, 65535, "64 KiB less one");
        });
    }});
    // iprobe_moves_to_back
    s.push_back({"probe, then receive in order", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                for (unsigned k = 1; k <= 3; ++k) send(t, 1, 5, bytes(k, k));
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            for (unsigned k = 1; k <= 3; ++k) {
                const auto p = t.iprobe(0, 5);
                if (!p) fail(1, "iprobe(0, 5) saw nothing");
                expect_status(t, *p, 0, 5, k, "iprobe before each receive");
                expect_status(t, receive(t, 0, 5, in, "tag 5"), 0, 5, k, "receive after the iprobe");
            }
            receive(t, 0, 99, in, "marker");
        });
    }});
    // posted_skips_too_small
    s.push_back({"posted receive too small", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                receive(t, 1, 99, in, "ready");
                send(t, 1, 6, bytes(10, 1));
                send(t, 1, 6, bytes(3, 2));
                return;
            }
            std::vector<std::byte> small(4), large(64);
            auto a = t.irecv(0, 6, small);
            auto b = t.irecv(0, 6, large);
            send(t, 0, 99, one());
            expect_raise<comet::truncation_error>(1, [&] { finish(t, a, "10 bytes into the first posted (4 bytes)"); }, "10",
                                                  "10 bytes into the first posted receive, of 4 bytes");
            expect_status(t, finish(t, b, "second posted"), 0, 6, 3, "3 bytes into the second posted receive");
            expect_bytes(t, large, 3, 2, "second posted receive");
        });
    }});
    // any_tag_round_robin
    s.push_back({"any_tag receives in sending order", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                send(t, 1, 7, bytes(1, 1));
                send(t, 1, 3, bytes(2, 2));
                send(t, 1, 9, bytes(3, 3));
                send(t, 1, 3, bytes(4, 4));
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            expect_status(t, receive(t, 0, any_tag, in, "any_tag 1"), 0, 7, 1, "first any_tag receive");
            expect_status(t, receive(t, 0, any_tag, in, "any_tag 2"), 0, 3, 2, "second any_tag receive (tag 3 was sent before tag 9)");
            expect_status(t, receive(t, 0, any_tag, in, "any_tag 3"), 0, 9, 3, "third any_tag receive");
            expect_status(t, receive(t, 0, any_tag, in, "any_tag 4"), 0, 3, 4, "fourth any_tag receive");
            receive(t, 0, 99, in, "marker");
        });
    }});
    // truncated_requeued, truncation_flag_sticky
    s.push_back({"after a truncation", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                send(t, 1, 8, bytes(20, 1));
                send(t, 1, 8, bytes(5, 2));
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            std::vector<std::byte> small(8);
            auto r = t.irecv(0, 8, small);
            expect_raise<comet::truncation_error>(1, [&] { finish(t, r, "20 bytes into 8"); }, "20", "20 bytes into 8");
            expect_status(t, receive(t, 0, 8, in, "the next tag-8 message"), 0, 8, 5, "the receive after a truncation");
            expect_bytes(t, in, 5, 2, "the receive after a truncation");
            receive(t, 0, 99, in, "marker");
            if (t.iprobe(any_source, any_tag)) fail(1, "a message is left over after every one was received");
        });
    }});
    // truncation_drops_next
    s.push_back({"the message after a truncation", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                send(t, 1, 9, bytes(20, 1));
                receive(t, 1, 90, in, "truncated");
                send(t, 1, 10, bytes(5, 2));
                return;
            }
            std::vector<std::byte> small(8);
            auto r = t.irecv(0, 9, small);
            expect_raise<comet::truncation_error>(1, [&] { finish(t, r, "20 bytes into 8"); }, "20", "20 bytes into 8");
            send(t, 0, 90, one());
            expect_status(t, receive(t, 0, 10, in, "the message sent after the truncation"), 0, 10, 5, "message after a truncation");
        });
    }});
    // truncation_large_silent
    s.push_back({"large truncation", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send(t, 1, 10, bytes(100000, 1));
                return;
            }
            std::vector<std::byte> in(70000);
            auto r = t.irecv(0, 10, in);
            expect_raise<comet::truncation_error>(1, [&] { finish(t, r, "100000 bytes into 70000"); }, "100000", "100000 bytes into 70000");
        });
    }});
    // eager_staging_shared
    s.push_back({"small messages waiting", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                send(t, 1, 12, bytes(8, 1));
                send(t, 1, 12, bytes(8, 2));
                send(t, 1, 13, bytes(40, 3));
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            receive(t, 0, 12, in, "first small");
            expect_bytes(t, in, 8, 1, "first of three small messages waiting");
            receive(t, 0, 12, in, "second small");
            expect_bytes(t, in, 8, 2, "second of three small messages waiting");
            receive(t, 0, 13, in, "third small");
            expect_bytes(t, in, 40, 3, "third of three small messages waiting");
            receive(t, 0, 99, in, "marker");
        });
    }});
    // test_completion_by_key
    s.push_back({"two receives with one key", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "ready");
                send(t, 1, 14, bytes(8, 1));
                send(t, 1, 98, one());
                receive(t, 1, 91, in, "tested");
                send(t, 1, 14, bytes(8, 2));
                return;
            }
            std::vector<std::byte> a(8), b(8);
            auto ra = t.irecv(0, 14, a);
            auto rb = t.irecv(0, 14, b);
            send(t, 0, 90, one());
            arrived(t, 0, 98, "marker");  // the first tag-14 message is in by now, in the first receive
            for (int k = 0; k < 20; ++k)
                if (const auto x = t.test(rb)) fail(1, "the second receive completed with the only message sent (tag ", x->tag, ")");
            receive(t, 0, 98, in, "marker");
            send(t, 0, 91, one());
            expect_status(t, finish(t, ra, "first receive"), 0, 14, 8, "first receive");
            expect_bytes(t, a, 8, 1, "first receive");
            expect_status(t, finish(t, rb, "second receive"), 0, 14, 8, "second receive");
            expect_bytes(t, b, 8, 2, "second receive");
        });
    }});
    // test_backoff_sleep
    s.push_back({"test stays quick", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                pause(0.6);
                send(t, 1, 15, bytes(8, 1));
                return;
            }
            std::vector<std::byte> in(8);
            auto r = t.irecv(0, 15, in);
            int slow = 0;
            const auto t0 = std::chrono::steady_clock::now();
            for (;;) {
                const auto t1 = std::chrono::steady_clock::now();
                const auto x = t.test(r);
                if (seconds_since(t1) > 0.03) ++slow;
                if (x) break;
                if (seconds_since(t0) > 3) fail(1, "receive not complete after 3 s");
            }
            if (slow >= 3) fail(1, slow, " tests of a pending receive took more than 30 ms each");
        });
    }});
    // irecv_any_source_tag_unchecked, isend_self_tag_unchecked, error_rank_is_peer
    s.push_back({"arguments again", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank();
            std::vector<std::byte> b(8);
            const std::string rank = "rank " + std::to_string(me);
            expect_raise<comet::invalid_argument>(me, [&] { (void)t.irecv(any_source, -5, b); }, "-5", "irecv(any_source, -5)");
            expect_raise<comet::invalid_argument>(me, [&] { (void)t.isend(me, -3, b); }, "-3", "isend to oneself with tag -3");
            expect_raise<comet::invalid_argument>(me, [&] { (void)t.irecv(5, 1, b); }, rank, "irecv from source 5 names the calling rank");
            expect_raise<comet::invalid_argument>(me, [&] { (void)t.iprobe(-3, 1); }, rank, "iprobe of source -3 names the calling rank");
        });
    }});
    // rendezvous_progress_own_request
    s.push_back({"exchange of large messages", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank(), peer = 1 - me;
            const auto out = bytes(100000, static_cast<unsigned>(me));
            std::vector<std::byte> in(100000);
            auto r = t.irecv(peer, 19, in);
            auto s = t.isend(peer, 19, out);
            expect_status(t, finish(t, r, "receive of an exchange, polled before the send", 3.0), peer, 19, 100000, "exchange");
            expect_bytes(t, in, 100000, static_cast<unsigned>(peer), "exchange");
            finish(t, s, "send of an exchange");
        });
    }});
    // any_source_sticky_after_probe
    s.push_back({"any_source after a probe", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() != 0) {
                send(t, 0, 19 + t.rank(), bytes(4, 1));
                return;
            }
            arrived(t, 1, 20, "rank 1's message");
            arrived(t, 2, 21, "rank 2's message");
            const auto p = t.iprobe(any_source, 20);
            if (!p) fail(0, "iprobe(any_source, 20) saw nothing");
            expect_status(t, *p, 1, 20, 4, "any_source iprobe");
            expect_status(t, receive(t, 1, 20, in, "named receive"), 1, 20, 4, "named receive of the probed message");
            expect_status(t, receive(t, any_source, 21, in, "any_source receive of rank 2's message"), 2, 21, 4, "any_source receive after a probe");
        });
    }});
    // status_source_masked
    s.push_back({"sources in groups of 3 and 5", [](const Runner& run) {
        for (const int p : {3, 5})
            run(p, [](auto& t) {
                std::vector<std::byte> in(4);
                if (t.rank() != 0) {
                    send_u32(t, 0, 21, static_cast<std::uint32_t>(t.rank()));
                    return;
                }
                for (int k = 1; k < t.size(); ++k) {
                    const comet::status s = receive(t, any_source, 21, in, "any_source");
                    if (s.source != static_cast<int>(u32(in))) fail(0, "a message from rank ", u32(in), " reports source ", s.source);
                }
            });
    }});
    // posted_ring_32_overwrites
    s.push_back({"forty posted receives", [](const Runner& run) {
        run(2, [](auto& t) {
            using request = request_of<decltype(t)>;
            constexpr int n = 40;
            if (t.rank() == 0) {
                std::vector<std::byte> go(1);
                receive(t, 1, 90, go, "ready");
                for (std::uint32_t i = 0; i < n; ++i) send_u32(t, 1, 22, i);
                return;
            }
            std::vector<std::vector<std::byte>> in(n, std::vector<std::byte>(4));
            std::vector<request> rs;
            for (int i = 0; i < n; ++i) rs.push_back(t.irecv(0, 22, in[static_cast<std::size_t>(i)]));
            send(t, 0, 90, one());
            for (int i = 0; i < n; ++i) {
                finish(t, rs[static_cast<std::size_t>(i)], "one of 40 posted receives");
                if (u32(in[static_cast<std::size_t>(i)]) != static_cast<std::uint32_t>(i)) fail(1, "posted receive ", i, " got message ", u32(in[static_cast<std::size_t>(i)]));
            }
        });
    }});
    // size_high_water_by_buffer
    s.push_back({"one buffer, shorter messages", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send(t, 1, 23, bytes(50, 1));
                send(t, 1, 23, bytes(10, 2));
                send(t, 1, 23, comet::const_bytes());
                return;
            }
            std::vector<std::byte> in(64);
            expect_status(t, receive(t, 0, 23, in, "50 bytes"), 0, 23, 50, "50 bytes into a 64-byte buffer");
            expect_status(t, receive(t, 0, 23, in, "10 bytes"), 0, 23, 10, "10 bytes into the same buffer");
            expect_status(t, receive(t, 0, 23, in, "0 bytes"), 0, 23, 0, "0 bytes into the same buffer");
        });
    }});
    // irecv_skips_queue_when_posted
    s.push_back({"a waiting message while another receive is posted", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                send(t, 1, 24, bytes(6, 1));
                send(t, 1, 98, one());
                receive(t, 1, 90, in, "done");
                send(t, 1, 77, one());
                return;
            }
            std::vector<std::byte> late(8);
            auto pending = t.irecv(0, 77, late);
            arrived(t, 0, 98, "marker");
            expect_status(t, receive(t, 0, 24, in, "a waiting message, another receive posted", 1.0), 0, 24, 6, "waiting message");
            receive(t, 0, 98, in, "marker");
            send(t, 0, 90, one());
            finish(t, pending, "the receive posted first");
        });
    }});
    // iprobe_scan_limit_64
    s.push_back({"probe deep in the queue", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                for (std::uint32_t i = 0; i < 100; ++i) send_u32(t, 1, 25, i);
                send(t, 1, 26, bytes(7, 1));
                send(t, 1, 99, one());
                return;
            }
            receive(t, 0, 99, in, "marker");  // sent last: everything before it has arrived
            const auto p = t.iprobe(0, 26);
            if (!p) fail(1, "iprobe(0, 26) saw nothing behind 100 waiting messages");
            expect_status(t, *p, 0, 26, 7, "iprobe behind 100 waiting messages");
            for (int i = 0; i < 100; ++i) receive(t, 0, 25, in, "one of 100");
            receive(t, 0, 26, in, "tag 26");
        });
    }});
    // iprobe_any_source_bitmask_8
    s.push_back({"any_source probe in a group of 10", [](const Runner& run) {
        run(10, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 9) send(t, 0, 26, bytes(3, 9));
            if (t.rank() != 0) return;
            arrived(t, 9, 26, "rank 9's message");
            const auto p = t.iprobe(any_source, 26);
            if (!p) fail(0, "iprobe(any_source, 26) saw nothing though rank 9's message has arrived");
            expect_status(t, *p, 9, 26, 3, "any_source iprobe of rank 9's message");
            receive(t, 9, 26, in, "rank 9's message");
        });
    }});
    // empty_short_header_tag_8bit
    s.push_back({"empty messages with high tags", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                send(t, 1, 300, comet::const_bytes());
                send(t, 1, 31000, comet::const_bytes());
                return;
            }
            expect_status(t, receive(t, 0, any_tag, in, "empty message, any_tag", 1.0), 0, 300, 0, "empty message of tag 300");
            expect_status(t, receive(t, 0, 31000, in, "empty message of tag 31000", 1.0), 0, 31000, 0, "empty message of tag 31000");
        });
    }});
    return s;
}

template <class Runner>
std::vector<scenario<Runner>> full_scenarios_5() {
    std::vector<scenario<Runner>> s;
    // bsend_ring_overwrites, bsend_overtakes_isend
    s.push_back({"bsends waiting", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(65536);
            if (t.rank() == 0) {
                auto r = t.isend(1, 82, bytes(8, 100));
                finish(t, r, "isend");
                t.bsend(1, 82, bytes(8, 101));
                for (unsigned k = 1; k <= 5; ++k) t.bsend(1, 81, bytes(60000, k));
                t.bsend(1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            receive(t, 0, 82, in, "first tag 82");
            expect_bytes(t, in, 8, 100, "the isend's message, sent before the bsend's");
            receive(t, 0, 82, in, "second tag 82");
            expect_bytes(t, in, 8, 101, "the bsend's message");
            for (unsigned k = 1; k <= 5; ++k) {
                receive(t, 0, 81, in, "one of 5 bsent 60000-byte messages");
                expect_bytes(t, in, 60000, k, "one of 5 bsent 60000-byte messages");
            }
            receive(t, 0, 99, in, "marker");
        });
    }});
    // issend_empty_early, issend_ack_completes_oldest
    s.push_back({"synchronous sends wait for their own match", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                auto e = t.issend(1, 32, comet::const_bytes());
                auto a = t.issend(1, 41, bytes(8, 1));
                auto b = t.issend(1, 42, bytes(8, 2));
                receive(t, 1, 91, in, "took 42");
                const auto t0 = std::chrono::steady_clock::now();
                while (seconds_since(t0) < 0.2) {
                    if (t.test(e)) fail(0, "an issend of zero bytes completed before any receive matched it");
                    if (t.test(a)) fail(0, "the issend of tag 41 completed when the one of tag 42 was matched");
                }
                send(t, 1, 92, one());
                finish(t, e, "empty issend");
                finish(t, a, "issend of tag 41");
                finish(t, b, "issend of tag 42");
                return;
            }
            receive(t, 0, 42, in, "tag 42");
            send(t, 0, 91, one());
            receive(t, 0, 92, in, "go");
            receive(t, 0, 41, in, "tag 41");
            receive(t, 0, 32, in, "tag 32");
        });
    }});
    // rsend_status_size_room
    s.push_back({"ready send into a larger buffer", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                receive(t, 1, 99, in, "ready");
                t.rsend(1, 61, bytes(8, 1));
                return;
            }
            auto r = t.irecv(0, 61, in);
            send(t, 0, 99, one());
            expect_status(t, finish(t, r, "rsend's message"), 0, 61, 8, "8-byte rsend into a 64-byte receive");
        });
    }});
    // sendrecv_send_to_source
    s.push_back({"sendrecv around a ring", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank(), p = t.size(), next = (me + 1) % p, prev = (me + p - 1) % p;
            std::vector<std::byte> in(16);
            within(me, 2.0, "sendrecv: to the next rank, from the previous one", [&] {
                expect_status(t, t.sendrecv(next, 50, bytes(16, static_cast<unsigned>(me)), prev, 50, in), prev, 50, 16, "ring sendrecv");
            });
            expect_bytes(t, in, 16, static_cast<unsigned>(prev), "ring sendrecv");
        });
    }});
    // recv_native_empty_stale_size
    s.push_back({"native recv of an empty message", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                t.send(1, 62, bytes(10, 1));
                t.send(1, 63, comet::const_bytes());
                return;
            }
            expect_status(t, t.recv(0, 62, in), 0, 62, 10, "native recv of 10 bytes");
            expect_status(t, t.recv(0, 63, in), 0, 63, 0, "native recv of 0 bytes after one of 10");
        });
    }});
    // wait_truncation_rewrapped
    s.push_back({"native wait of a truncated receive", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                t.send(1, 81, bytes(20, 1));
                return;
            }
            std::vector<std::byte> in(8);
            auto r = t.irecv(0, 81, in);
            expect_raise<comet::truncation_error>(1, [&] { (void)t.wait(r); }, "20", "wait of 20 bytes into 8");
        });
    }});
    // wait_all_stops_at_empty
    s.push_back({"wait_all past an empty request", [](const Runner& run) {
        run(2, [](auto& t) {
            using request = request_of<decltype(t)>;
            if (t.rank() == 0) {
                std::vector<std::byte> go(1);
                receive(t, 1, 99, go, "ready");
                t.send(1, 70, bytes(4, 1));
                pause(0.1);
                t.send(1, 71, bytes(4, 2));
                return;
            }
            std::vector<std::byte> a(4), b(4);
            std::vector<request> rs(3);
            rs[0] = t.irecv(0, 70, a);
            rs[2] = t.irecv(0, 71, b);
            send(t, 0, 99, one());
            t.wait_all(std::span<request>(rs));
            if (t.test(rs[2]) != std::optional<comet::status>(comet::status{})) fail(1, "wait_all left its last request (after an empty one) incomplete");
            expect_bytes(t, b, 4, 2, "the last request of wait_all");
        });
    }});
    // barrier_dissemination_floor_log2
    s.push_back({"barrier of 3 and 6", [](const Runner& run) {
        for (const int p : {3, 6})
            run(p, [](auto& t) {
                const int me = t.rank(), last = t.size() - 1;
                if (me == last) pause(0.2);
                const auto t0 = std::chrono::steady_clock::now();
                t.barrier();
                if (me != last && seconds_since(t0) < 0.15) fail(me, "left the barrier before rank ", last, " entered");
            });
    }});
    // broadcast_repeat_cached
    s.push_back({"broadcast twice into one buffer", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<std::byte> data = me == 1 ? bytes(100, 1) : std::vector<std::byte>(100);
            t.broadcast(1, data);
            expect_bytes(t, data, 100, 1, "first broadcast from rank 1");
            if (me == 1) data = bytes(100, 2);
            t.broadcast(1, data);
            expect_bytes(t, data, 100, 2, "second broadcast from rank 1 into the same buffers");
        });
    }});
    // allreduce_min_int_bits, reduce_min_from_root_up
    s.push_back({"minimum of negative values", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{-1.0 - me, 2.0 + me, -0.5 * me};
            t.allreduce_min(v);
            if (v[0] != -3.0 || v[1] != 2.0 || v[2] != -1.0) fail(me, "allreduce_min gave ", v[0], ", ", v[1], ", ", v[2], ", not -3, 2, -1");
            std::vector<double> m{5.0 + me};
            t.reduce_min(2, m);
            if (m[0] != (me == 2 ? 5.0 : 5.0 + me)) fail(me, "reduce_min to rank 2 left ", m[0]);
        });
    }});
    // gather_rotated_by_root, alltoall_xor_schedule_non_pow2
    s.push_back({"gather and alltoall in a group of 3", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank(), p = t.size();
            const std::byte mine[2] = {std::byte(me + 1), std::byte(me + 11)};
            std::vector<std::byte> all(6);
            t.gather(2, comet::const_bytes(mine, 2), all);
            for (int r = 0; me == 2 && r < p; ++r)
                if (all[2 * r] != std::byte(r + 1) || all[2 * r + 1] != std::byte(r + 11)) fail(2, "gather to rank 2: block ", r, " is wrong");
            std::vector<std::byte> out(3 * 4), got(3 * 4);
            for (int r = 0; r < p; ++r) std::fill_n(out.begin() + 4 * r, 4, std::byte(me * 10 + r));
            t.alltoall(out, got);
            for (int r = 0; r < p; ++r)
                if (got[4 * r] != std::byte(r * 10 + me)) fail(me, "alltoall: the block from rank ", r, " is wrong");
        });
    }});
    // abort_message_cut_64
    s.push_back({"abort with a long message", [](const Runner& run) {
        const std::string message = "witness abort with a message long enough to need more than sixty-four characters: end";
        try {
            run(2, [&](auto& t) {
                if (t.rank() == 1) t.abort(message);
                std::vector<std::byte> b(8);
                auto r = t.irecv(comet::any_source, 77, b);
                for (;;) (void)t.test(r);
            });
        } catch (const comet::aborted& e) {
            if (std::string(e.what()).find(message) == std::string::npos) fail(-1, "abort: \"", e.what(), "\" does not carry the whole message");
            return;
        } catch (const std::exception& e) {
            fail(-1, "abort: raised something other than comet::aborted: ", e.what());
        }
        fail(-1, "abort: the run ended without comet::aborted");
    }});
    // ibroadcast_root_early_borrowed, iallreduce_scratch_not_reset
    s.push_back({"nonblocking collectives again", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            auto data = me == 0 ? bytes(64, 30) : std::vector<std::byte>(64);
            if (me != 0) pause(0.2);
            auto r = t.ibroadcast(0, data);
            finish(t, r, "ibroadcast");
            if (me == 0) std::fill(data.begin(), data.end(), std::byte{0});  // completed: the bytes are the root's again
            if (me != 0) expect_bytes(t, data, 64, 30, "ibroadcast whose root reused its buffer after completion");
            for (int k = 0; k < 2; ++k) {
                std::vector<double> v{1.0, me + 0.5};
                auto a = t.iallreduce_sum(v);
                finish(t, a, "iallreduce_sum");
                if (v[0] != 3.0 || v[1] != 4.5) fail(me, "iallreduce_sum number ", k + 1, " gave ", v[0], " and ", v[1], ", not 3 and 4.5");
            }
        });
    }});
    // progress_completes_requests, progress_sorts_by_tag
    s.push_back({"progress, then test and receive", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "ready");
                send(t, 1, 80, bytes(8, 1));
                send(t, 1, 9, bytes(1, 9));
                send(t, 1, 3, bytes(1, 3));
                send(t, 1, 99, one());
                return;
            }
            std::vector<std::byte> a(8);
            auto r = t.irecv(0, 80, a);
            send(t, 0, 90, one());
            arrived(t, 0, 99, "marker");
            t.progress();
            expect_status(t, finish(t, r, "receive completed before progress()"), 0, 80, 8, "test after progress()");
            expect_status(t, receive(t, 0, comet::any_tag, in, "any_tag after progress()"), 0, 9, 1, "any_tag receive after progress()");
            expect_status(t, receive(t, 0, comet::any_tag, in, "any_tag"), 0, 3, 1, "second any_tag receive");
            receive(t, 0, 99, in, "marker");
        });
    }});
    return s;
}

}  // namespace held_out_5::witness
