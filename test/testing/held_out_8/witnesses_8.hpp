// held_out_8/witnesses_8.hpp — the witness scenarios written for this set's defects (defects.hpp):
// core scenarios (both models) and full-model scenarios, run before those of witnesses.hpp and
// witnesses_full.hpp by `run_witnesses`. Like those, they know what each mutant does and where
// to look; they are not a conformance suite. Each is named after the defect it is aimed at.
#pragma once

#include "witnesses.hpp"

#include <time.h>

#include <cmath>
#include <cstdint>

namespace held_out_8::witness {

inline std::vector<std::byte> numbered(unsigned k) {
    std::vector<std::byte> v(4);
    std::memcpy(v.data(), &k, sizeof k);
    return v;
}
inline unsigned number_of(const std::vector<std::byte>& v) {
    unsigned k = 0;
    std::memcpy(&k, v.data(), sizeof k);
    return k;
}
inline std::vector<std::byte> double_bytes(double x) {
    std::vector<std::byte> v(sizeof x);
    std::memcpy(v.data(), &x, sizeof x);
    return v;
}
inline double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

template <class Runner>
std::vector<scenario<Runner>> core_scenarios_8() {
    using comet::any_source, comet::any_tag;
    std::vector<scenario<Runner>> s;
    s.push_back({"composite_key_off_by_one", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 1, comet::max_tag, bytes(5, 1));
                send(t, 1, 90, one());
                return;
            }
            arrived(t, 0, 90, "marker");
            send(t, 1, 0, bytes(3, 2));
            expect_status(t, receive(t, 1, 0, in, "own tag-0 message"), 1, 0, 3,
                          "receive naming (own rank 1, tag 0) while rank 0's max_tag message waits first");
            expect_status(t, receive(t, 0, comet::max_tag, in, "max_tag from rank 0"), 0, comet::max_tag, 5, "receive naming (0, max_tag)");
            receive(t, 0, 90, in, "marker");
        });
    }});
    s.push_back({"posted_any_tag_inherits_pending_tag", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> a(16), b(16);
            if (t.rank() == 0) {
                receive(t, 1, 90, a, "go");
                send(t, 1, 7, bytes(4, 7));
                send(t, 1, 5, bytes(6, 5));
                return;
            }
            auto ra = t.irecv(0, 5, a);
            auto rb = t.irecv(0, any_tag, b);
            send(t, 0, 90, one());
            expect_status(t, finish(t, rb, "posted irecv(0, any_tag) behind a posted irecv(0, 5), then a tag-7 message"), 0, 7, 4,
                          "posted any_tag receive");
            expect_status(t, finish(t, ra, "posted irecv(0, 5)"), 0, 5, 6, "posted tag-5 receive");
        });
    }});
    s.push_back({"any_source_ring_scan_misses_predecessor", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 1, 5, bytes(4, 1));
                send(t, 1, 90, one());
            } else if (t.rank() == 1) {
                arrived(t, 0, 90, "marker");
                expect_status(t, receive(t, any_source, 5, in, "any_source receive of rank 0's waiting message, on rank 1 of 3"), 0, 5, 4,
                              "any_source receive");
                receive(t, 0, 90, in, "marker");
            }
        });
    }});
    s.push_back({"isend_batch_flushed_backwards", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(4);
            if (t.rank() == 0) {
                const auto m1 = numbered(1), m2 = numbered(2), m3 = numbered(3);
                auto r1 = t.isend(1, 4, m1);
                auto r2 = t.isend(1, 4, m2);
                auto r3 = t.isend(1, 4, m3);
                finish(t, r1, "first isend");
                finish(t, r2, "second isend");
                finish(t, r3, "third isend");
                return;
            }
            for (unsigned k = 1; k <= 3; ++k) {
                receive(t, 0, 4, in, "one of three back-to-back isends");
                if (number_of(in) != k) fail(1, "back-to-back isend ", k, " of 3 (one pair, one tag) arrived as number ", number_of(in));
            }
        });
    }});
    s.push_back({"posted_by_tag_map_wildcard_first", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> a(16), b(16);
            if (t.rank() == 0) {
                receive(t, 1, 90, a, "go");
                send(t, 1, 5, bytes(4, 5));
                send(t, 1, 6, bytes(7, 6));
                return;
            }
            auto ra = t.irecv(0, 5, a);
            auto rb = t.irecv(0, any_tag, b);
            send(t, 0, 90, one());
            expect_status(t, finish(t, ra, "posted irecv(0, 5), posted before an irecv(0, any_tag)"), 0, 5, 4, "first-posted tag-5 receive");
            expect_status(t, finish(t, rb, "posted irecv(0, any_tag)"), 0, 6, 7, "later-posted any_tag receive");
        });
    }});
    s.push_back({"posted_move_to_front_on_test", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> a(8), b(8);
            if (t.rank() == 0) {
                receive(t, 1, 90, a, "go");
                send(t, 1, 5, bytes(8, 1));
                send(t, 1, 5, bytes(8, 2));
                send(t, 1, 91, one());
                return;
            }
            auto ra = t.irecv(0, 5, a);
            auto rb = t.irecv(0, 5, b);
            if (t.test(rb)) fail(1, "a receive completed before anything was sent");
            send(t, 0, 90, one());
            arrived(t, 0, 91, "marker sent after the two tag-5 messages");
            finish(t, ra, "first posted tag-5 receive");
            finish(t, rb, "second posted tag-5 receive");
            expect_bytes(t, a, 8, 1, "the first posted receive (the second one was tested once before) gets the first message");
            expect_bytes(t, b, 8, 2, "the second posted receive gets the second message");
            receive(t, 0, 91, a, "marker");
        });
    }});
    s.push_back({"iprobe_double_buffer_one_behind", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 1, 6, bytes(5, 6));
                send(t, 1, 90, one());
                return;
            }
            receive(t, 0, 90, in, "marker, sent after the tag-6 message");
            const auto p = t.iprobe(0, 6);
            if (!p) fail(1, "the first iprobe(0, 6) after a later message from rank 0 was received saw nothing");
            expect_status(t, *p, 0, 6, 5, "iprobe of the waiting tag-6 message");
            receive(t, 0, 6, in, "tag 6");
        });
    }});
    s.push_back({"iprobe_negative_cache_loopback", [](const Runner& run) {
        run(1, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.iprobe(0, 4)) fail(0, "iprobe saw a message before any was sent");
            send(t, 0, 4, bytes(3, 4));
            expect_status(t, arrived(t, 0, 4, "a message to oneself, after an iprobe with the same arguments saw nothing"), 0, 4, 3,
                          "iprobe of a message to oneself");
            receive(t, 0, 4, in, "own message");
        });
    }});
    s.push_back({"truncation_length_field_16_bits", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send(t, 1, 3, bytes(70000, 3));
                return;
            }
            std::vector<std::byte> in(8192);
            auto r = t.irecv(0, 3, in);
            expect_raise<comet::truncation_error>(1, [&] { finish(t, r, "70000 bytes into 8192"); }, "70000", "70000 bytes into an 8192-byte buffer");
        });
    }});
    s.push_back({"short_copy_rounded_to_cacheline", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send(t, 1, 1, bytes(64, 1));
                send(t, 1, 2, bytes(10, 2));
                return;
            }
            std::vector<std::byte> a(64), b(64, std::byte{0xAA});
            receive(t, 0, 1, a, "64 bytes");
            expect_status(t, receive(t, 0, 2, b, "10 bytes into 64"), 0, 2, 10, "10 bytes into a 64-byte buffer");
            expect_bytes(t, b, 10, 2, "10 bytes into a 64-byte buffer");
            for (std::size_t i = 10; i < b.size(); ++i)
                if (b[i] != std::byte{0xAA}) fail(1, "10 bytes into a 64-byte buffer changed byte ", i, " past the message");
        });
    }});
    s.push_back({"eager_trailer_clobbers_tail", [](const Runner& run) {
        run(2, [](auto& t) {
            constexpr std::size_t n = 65536;
            if (t.rank() == 0) {
                send(t, 1, 8, bytes(n, 8));
                return;
            }
            std::vector<std::byte> in(n);
            expect_status(t, receive(t, 0, 8, in, "64 KiB"), 0, 8, n, "a message of exactly 64 KiB");
            expect_bytes(t, in, n, 8, "a message of exactly 64 KiB");
        });
    }});
    s.push_back({"unmatched_past_posted_queued_twice", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> p(8), in(16);
            if (t.rank() == 0) {
                receive(t, 1, 90, p, "go");
                send(t, 1, 6, bytes(5, 6));
                send(t, 1, 50, bytes(8, 50));
                return;
            }
            auto rp = t.irecv(0, 50, p);
            send(t, 0, 90, one());
            finish(t, rp, "posted tag-50 receive");
            expect_status(t, receive(t, 0, 6, in, "tag 6, which arrived while a tag-50 receive was posted"), 0, 6, 5, "tag 6");
            if (const auto again = t.iprobe(0, 6)) fail(1, "a second tag-6 message is waiting, though one was sent");
        });
    }});
    s.push_back({"isend_rejects_over_16mib", [](const Runner& run) {
        run(2, [](auto& t) {
            constexpr std::size_t n = 17 * (std::size_t{1} << 20);
            if (t.rank() == 0) {
                const std::vector<std::byte> big(n, std::byte{7});
                auto r = t.isend(1, 2, big);
                finish(t, r, "isend of 17 MiB", 10.0);
                return;
            }
            std::vector<std::byte> in(n);
            expect_status(t, receive(t, 0, 2, in, "17 MiB", 10.0), 0, 2, n, "a message of 17 MiB");
        });
    }});
    s.push_back({"send_status_large_control_tag", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                const auto big = bytes(100000, 8);
                auto r = t.isend(1, 8, big);
                expect_status(t, finish(t, r, "isend of 100000 bytes"), 1, 8, 100000, "send status of an isend of 100000 bytes");
                return;
            }
            std::vector<std::byte> in(100000);
            receive(t, 0, 8, in, "100000 bytes");
        });
    }});
    s.push_back({"recv_size_read_after_erase", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 1, 1, bytes(4, 1));
                send(t, 1, 2, bytes(9, 2));
                send(t, 1, 90, one());
                return;
            }
            arrived(t, 0, 90, "marker");
            expect_status(t, receive(t, 0, 1, in, "tag 1"), 0, 1, 4, "the first waiting message, another waiting behind it");
            expect_status(t, receive(t, 0, 2, in, "tag 2"), 0, 2, 9, "the second");
            receive(t, 0, 90, in, "marker");
        });
    }});
    s.push_back({"completed_request_resets_with_own_rank", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() != 1) return;
            std::vector<std::byte> in(8);
            auto r = t.irecv(1, 3, in);
            send(t, 1, 3, bytes(4, 3));
            expect_status(t, finish(t, r, "receive from oneself"), 1, 3, 4, "receive from oneself");
            if (t.test(r) != std::optional<comet::status>(comet::status{})) fail(1, "test of an already completed request is not a default status");
        });
    }});
    s.push_back({"test_self_receive_waits_100ms", [](const Runner& run) {
        run(1, [](auto& t) {
            std::vector<std::byte> in(8);
            auto r = t.irecv(0, 3, in);
            double fastest = 1e9;
            for (int k = 0; k < 3; ++k) {
                const auto t1 = std::chrono::steady_clock::now();
                if (t.test(r)) fail(0, "a receive from oneself completed before the message was sent");
                fastest = std::min(fastest, seconds_since(t1));
            }
            if (fastest > 0.06) fail(0, "test of a pending receive naming the own rank took ", fastest, " s (the fastest of 3)");
            send(t, 0, 3, bytes(4, 3));
            finish(t, r, "receive from oneself");
        });
    }});
    s.push_back({"completed_recv_request_destructor_scrubs", [](const Runner& run) {
        run(1, [](auto& t) {
            std::vector<std::byte> in(8192);
            {
                auto r = t.irecv(0, 3, in);
                send(t, 0, 3, bytes(8192, 3));
                finish(t, r, "receive of 8192 bytes");
            }  // the completed request is destroyed here
            expect_bytes(t, in, 8192, 3, "8192 bytes, after the completed receive's request was destroyed");
        });
    }});
    s.push_back({"loopback_flushed_by_next_isend", [](const Runner& run) {
        run(1, [](auto& t) {
            std::vector<std::byte> in(16);
            send(t, 0, 4, bytes(6, 4));
            expect_status(t, receive(t, 0, 4, in, "a message to oneself, polled by test"), 0, 4, 6, "message to oneself");
        });
    }});
    s.push_back({"now_ns_counter_32bit_wraps", [](const Runner& run) {
        run(1, [](auto& t) {
            const auto t0 = std::chrono::steady_clock::now();
            double last = t.now();
            while (seconds_since(t0) < 4.6) {
                const double x = t.now();
                if (x < last) fail(0, "now() went back from ", last, " to ", x, " after ", seconds_since(t0), " s");
                last = x;
                pause(0.0005);
            }
        });
    }});
    s.push_back({"isend_negative_tag_queued_before_check", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                const auto b = bytes(4, 9);
                expect_raise<comet::invalid_argument>(0, [&] { (void)t.isend(1, -3, b); }, "-3", "isend with tag -3");
                send(t, 1, 5, bytes(4, 5));
                return;
            }
            expect_status(t, receive(t, 0, any_tag, in, "any_tag"), 0, 5, 4, "any_tag receive after a rejected isend with tag -3");
        });
    }});
    s.push_back({"rank_node_cyclic_odd_groups", [](const Runner& run) {
        run(3, [](auto& t) {
            if (t.size() != 3) fail(t.rank(), "size() is ", t.size(), " in a group of 3");
            std::vector<std::byte> in(4);
            if (t.rank() != 0) {
                const int me = t.rank();
                send(t, 0, 1, comet::const_bytes(reinterpret_cast<const std::byte*>(&me), sizeof me));
                return;
            }
            bool seen[3] = {false, false, false};
            for (int k = 0; k < 2; ++k) {
                const comet::status s = receive(t, any_source, 1, in, "rank()");
                int said = 0;
                std::memcpy(&said, in.data(), sizeof said);
                if (said < 1 || said > 2 || seen[said]) fail(0, "two endpoints of a group of 3 (or one outside it) say rank() is ", said);
                seen[said] = true;
                if (s.source != said) fail(0, "a message from rank ", s.source, " says its sender's rank() is ", said);
            }
        });
    }});
    return s;
}

template <class Runner>
std::vector<scenario<Runner>> full_scenarios_8() {
    using comet::any_source, comet::any_tag;
    std::vector<scenario<Runner>> s;
    s.push_back({"bsend_nagle_coalesces", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                t.bsend(1, 20, bytes(8, 1));
                t.bsend(1, 20, bytes(8, 2));
                send(t, 1, 90, one());
                return;
            }
            arrived(t, 0, 90, "marker");
            within(1, 2.0, "two bsent messages", [&] {
                expect_status(t, t.recv(0, 20, in), 0, 20, 8, "the first of two small bsent messages");
                expect_bytes(t, in, 8, 1, "the first of two small bsent messages");
                expect_status(t, t.recv(0, 20, in), 0, 20, 8, "the second");
                expect_bytes(t, in, 8, 2, "the second");
            });
            receive(t, 0, 90, in, "marker");
        });
    }});
    s.push_back({"send_native_rendezvous_past_256k", [](const Runner& run) {
        run(2, [](auto& t) {
            constexpr std::size_t n = 300000;
            const int me = t.rank(), peer = 1 - me;
            within(me, 3.0, "both send 300000 bytes first, then receive", [&] {
                t.send(peer, 9, bytes(n, static_cast<unsigned>(me)));
                std::vector<std::byte> in(n);
                expect_status(t, t.recv(peer, 9, in), peer, 9, n, "300000 bytes");
                expect_bytes(t, in, n, static_cast<unsigned>(peer), "300000 bytes");
            });
        });
    }});
    s.push_back({"issend_ack_on_arrival_when_posted", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> p(8), in(8);
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "go");
                const auto t0 = std::chrono::steady_clock::now();
                const auto out = bytes(8, 5);
                auto r = t.issend(1, 5, out);
                finish(t, r, "issend", 3.0);
                if (seconds_since(t0) < 0.2) fail(0, "issend completed after ", seconds_since(t0), " s, before its receive was posted at 0.3 s");
                send(t, 1, 99, one());
                return;
            }
            auto rp = t.irecv(0, 99, p);  // posted, and not for the issend
            send(t, 0, 90, one());
            pause(0.3);
            receive(t, 0, 5, in, "issend's message");
            finish(t, rp, "tag 99", 3.0);
        });
    }});
    s.push_back({"rsend_truncation_silent", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 1) {
                auto r = t.irecv(0, 61, in);
                send(t, 0, 90, one());
                expect_raise<comet::truncation_error>(1, [&] { finish(t, r, "posted 8-byte receive of an rsend of 20"); }, "20",
                                                      "rsend of 20 bytes into a posted 8-byte receive");
                return;
            }
            receive(t, 1, 90, in, "ready");
            t.rsend(1, 61, bytes(20, 61));
        });
    }});
    s.push_back({"sendrecv_self_shortcut_on_same_peer", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank(), peer = 1 - me;
            std::vector<std::byte> in(64);
            within(me, 2.0, "pairwise sendrecv with one tag", [&] {
                expect_status(t, t.sendrecv(peer, 9, bytes(12, static_cast<unsigned>(me)), peer, 9, in), peer, 9, 12, "pairwise sendrecv");
                expect_bytes(t, in, 12, static_cast<unsigned>(peer), "pairwise sendrecv: the peer's bytes");
            });
        });
    }});
    s.push_back({"recv_native_returns_before_tail", [](const Runner& run) {
        run(2, [](auto& t) {
            constexpr std::size_t n = 200000;
            if (t.rank() == 0) {
                t.send(1, 3, bytes(n, 3));
                return;
            }
            std::vector<std::byte> in(n);
            expect_status(t, t.recv(0, 3, in), 0, 3, n, "native recv of 200000 bytes");
            expect_bytes(t, in, n, 3, "native recv of 200000 bytes, right after it returned");
        });
    }});
    s.push_back({"wait_gives_up_after_1s", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "go");
                pause(1.4);
                send(t, 1, 4, bytes(8, 4));
                return;
            }
            auto r = t.irecv(0, 4, in);
            send(t, 0, 90, one());
            expect_status(t, t.wait(r), 0, 4, 8, "wait of a receive whose message is sent 1.4 s later");
        });
    }});
    s.push_back({"wait_all_counts_completed_twice", [](const Runner& run) {
        run(2, [](auto& t) {
            using request = request_of<decltype(t)>;
            std::vector<std::byte> a(8), b(8), go(1);
            if (t.rank() == 0) {
                send(t, 1, 1, bytes(4, 1));
                send(t, 1, 90, one());
                receive(t, 1, 91, go, "go");
                pause(0.2);
                send(t, 1, 2, bytes(4, 2));
                return;
            }
            arrived(t, 0, 90, "marker");
            std::vector<request> rs;
            rs.push_back(t.irecv(0, 1, a));
            rs.push_back(t.irecv(0, 2, b));
            send(t, 0, 91, one());
            t.wait_all(std::span<request>(rs));
            for (request& r : rs)
                if (t.test(r) != std::optional<comet::status>(comet::status{})) fail(1, "a request wait_all returned from is not complete");
            expect_bytes(t, b, 4, 2, "the receive wait_all completed last");
            receive(t, 0, 90, go, "marker");
        });
    }});
    s.push_back({"barrier_chain_no_release", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            if (me == 0) pause(0.15);
            const auto t0 = std::chrono::steady_clock::now();
            t.barrier();
            if (me != 0 && seconds_since(t0) < 0.12) fail(me, "left a barrier of 3 before rank 0 entered");
        });
    }});
    s.push_back({"broadcast_virtual_rank_plus_root", [](const Runner& run) {
        run(3, [](auto& t) {
            auto data = t.rank() == 1 ? bytes(100, 7) : std::vector<std::byte>(100);
            t.broadcast(1, data);
            expect_bytes(t, data, 100, 7, "broadcast from rank 1 in a group of 3");
        });
    }});
    s.push_back({"allreduce_sum_rd_extra_not_unfolded", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<double> v{t.rank() + 1.0, 1.0};
            t.allreduce_sum(v);
            if (v[0] != 6.0 || v[1] != 3.0) fail(t.rank(), "allreduce_sum in a group of 3 gave ", v[0], " and ", v[1], ", not 6 and 3");
        });
    }});
    s.push_back({"allreduce_max_scratch_wraps_4096", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v(5000);
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i % 2) == me ? 1000.0 + i : -1.0 * i;
            t.allreduce_max(v);
            for (std::size_t i = 0; i < v.size(); ++i)
                if (v[i] != 1000.0 + i) fail(me, "allreduce_max of 5000 elements: element ", i, " is ", v[i]);
        });
    }});
    s.push_back({"allreduce_min_excludes_self", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{me == 1 ? -5.0 : 10.0 + me};
            t.allreduce_min(v);
            if (v[0] != -5.0) fail(me, "allreduce_min of 10, -5, 12 gave ", v[0]);
        });
    }});
    s.push_back({"reduce_sum_sparse_skip_root_zero", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{me == 0 ? 0.0 : 1.0 * me, 1.0};
            t.reduce_sum(0, v);
            if (me == 0 && (v[0] != 3.0 || v[1] != 3.0)) fail(0, "reduce_sum to rank 0 of {0, 1, 2} and {1, 1, 1} gave ", v[0], " and ", v[1]);
        });
    }});
    s.push_back({"reduce_max_halves_not_combined", [](const Runner& run) {
        run(4, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{me == 1 ? 50.0 : 1.0 * me};
            t.reduce_max(0, v);
            if (me == 0 && v[0] != 50.0) fail(0, "reduce_max to rank 0 of 0, 50, 2, 3 gave ", v[0]);
        });
    }});
    s.push_back({"reduce_min_last_root_as_all", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{5.0 + me};
            t.reduce_min(2, v);
            if (v[0] != (me == 2 ? 5.0 : 5.0 + me)) fail(me, "reduce_min to rank 2 of 3 left ", v[0]);
        });
    }});
    s.push_back({"gather_pair_shortcut_own_block_twice", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank();
            const std::byte mine[3] = {std::byte(me + 1), std::byte(me + 11), std::byte(me + 21)};
            std::vector<std::byte> all(6);
            t.gather(1, comet::const_bytes(mine, 3), all);
            for (int r = 0; me == 1 && r < 2; ++r)
                if (all[3 * r] != std::byte(r + 1) || all[3 * r + 2] != std::byte(r + 21)) fail(1, "gather of 2 to rank 1: rank ", r, "'s block is wrong");
        });
    }});
    s.push_back({"alltoall_ring_placement_mirrored", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank(), p = t.size();
            std::vector<std::byte> out(4 * p), got(4 * p);
            for (int r = 0; r < p; ++r) std::fill_n(out.begin() + 4 * r, 4, std::byte(me * 10 + r + 1));
            t.alltoall(out, got);
            for (int r = 0; r < p; ++r)
                if (got[4 * r] != std::byte(r * 10 + me + 1)) fail(me, "alltoall of 3: block ", r, " is not rank ", r, "'s");
        });
    }});
    s.push_back({"compute_busy_sleeps", [](const Runner& run) {
        run(1, [](auto& t) {
            const double cpu0 = thread_cpu_seconds();
            const auto t0 = std::chrono::steady_clock::now();
            t.compute(comet::work::busy(0.4));
            const double wall = seconds_since(t0), cpu = thread_cpu_seconds() - cpu0;
            if (wall < 0.39) fail(0, "compute(busy 400 ms) took ", wall, " s");
            if (cpu < 0.04) fail(0, "compute(busy 400 ms) kept the CPU busy for ", cpu, " s of its ", wall, " s");
        });
    }});
    s.push_back({"compute_charges_clock_twice", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank();
            if (!t.clock_is_global()) return;
            if (me == 1) t.compute(comet::work::busy(0.3));
            t.barrier();
            const double mine = t.now();
            if (me == 1) {
                send(t, 0, 44, double_bytes(mine));
                return;
            }
            std::vector<std::byte> in(8);
            receive(t, 1, 44, in, "rank 1's clock");
            double theirs = 0;
            std::memcpy(&theirs, in.data(), sizeof theirs);
            if (std::fabs(theirs - mine) > 0.15)
                fail(0, "clock_is_global() is true, yet right after a barrier rank 1's now() reads ", theirs, " and rank 0's ", mine);
        });
    }});
    s.push_back({"abort_empty_message_rejected", [](const Runner& run) {
        try {
            run(3, [](auto& t) {
                if (t.rank() == 1) t.abort("");
                std::vector<std::byte> b(8);
                auto r = t.irecv(comet::any_source, 77, b);
                for (;;) (void)t.test(r);
            });
        } catch (const comet::aborted& e) {
            const std::string m = e.what();
            if (m.find("rank 1") == std::string::npos) fail(-1, "abort: \"", m, "\" does not name rank 1");
            return;
        } catch (const std::exception& e) {
            fail(-1, "abort with an empty message raised something other than comet::aborted: ", e.what());
        }
        fail(-1, "abort: the run ended without comet::aborted");
    }});
    s.push_back({"ibarrier_timeout_100ms", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            if (me == 2) pause(0.4);
            const auto t0 = std::chrono::steady_clock::now();
            auto b = t.ibarrier();
            finish(t, b, "ibarrier", 3.0);
            if (me == 0 && seconds_since(t0) < 0.35) fail(0, "ibarrier completed after ", seconds_since(t0), " s, before rank 2 entered at 0.4 s");
        });
    }});
    s.push_back({"ibroadcast_late_joiner_staging_64k", [](const Runner& run) {
        run(3, [](auto& t) {
            constexpr std::size_t n = 100000;
            const int me = t.rank();
            auto data = me == 0 ? bytes(n, 31) : std::vector<std::byte>(n);
            if (me != 0) pause(0.1);
            auto r = t.ibroadcast(0, data);
            finish(t, r, "ibroadcast");
            expect_bytes(t, data, n, 31, "ibroadcast of 100000 bytes from rank 0, the others joining later");
        });
    }});
    s.push_back({"iallreduce_sum_own_first_order", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{me == 0 ? 1e16 : me == 1 ? 1.0 : -1e16};
            auto r = t.iallreduce_sum(v);
            finish(t, r, "iallreduce_sum");
            if (me != 0) {
                send(t, 0, 44, double_bytes(v[0]));
                return;
            }
            std::vector<std::byte> in(8);
            for (int k = 1; k < 3; ++k) {
                receive(t, k, 44, in, "another rank's sum");
                if (std::memcmp(in.data(), &v[0], sizeof(double)) != 0) {
                    double theirs = 0;
                    std::memcpy(&theirs, in.data(), sizeof theirs);
                    fail(0, "iallreduce_sum of 1e16, 1, -1e16: rank ", k, " got ", theirs, ", rank 0 ", v[0], " (not the same bits)");
                }
            }
        });
    }});
    s.push_back({"progress_raises_pending_truncation", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8), m(1);
            if (t.rank() == 0) {
                receive(t, 1, 90, m, "go");
                send(t, 1, 3, bytes(20, 3));
                send(t, 1, 91, one());
                return;
            }
            auto r = t.irecv(0, 3, in);
            send(t, 0, 90, one());
            arrived(t, 0, 91, "marker sent after the 20-byte message");
            try {
                t.progress();
            } catch (const comet::truncation_error& e) {
                fail(1, "progress raised a receive's truncation_error: ", e.what());
            }
            expect_raise<comet::truncation_error>(1, [&] { finish(t, r, "20 bytes into 8"); }, "20", "the test completing 20 bytes into 8");
            receive(t, 0, 91, m, "marker");
        });
    }});
    s.push_back({"nbc_request_move_detaches", [](const Runner& run) {
        run(3, [](auto& t) {
            using request = request_of<decltype(t)>;
            if (t.rank() == 2) pause(0.1);
            request r = t.ibarrier();
            request moved(std::move(r));
            finish(t, moved, "an ibarrier request moved while pending");
            std::vector<double> v{1.0};
            request a = t.iallreduce_sum(v);
            request b;
            b = std::move(a);
            finish(t, b, "an iallreduce_sum request move-assigned while pending");
            if (v[0] != 3.0) fail(t.rank(), "iallreduce_sum of 1, 1, 1 gave ", v[0]);
        });
    }});
    return s;
}

}  // namespace held_out_8::witness
