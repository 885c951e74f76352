// held_out_7/witnesses_7.hpp — the witness scenarios written for this set's defects (defects.hpp):
// core scenarios (both models) and full-model scenarios, run before those of witnesses.hpp and
// witnesses_full.hpp by `run_witnesses`. Like those, they know what each mutant does and where
// to look; they are not a conformance suite. Each is named after the defect it is aimed at.
#pragma once

#include "witnesses.hpp"

#include <cmath>
#include <cstdint>

namespace held_out_7::witness {

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

template <class Runner>
std::vector<scenario<Runner>> core_scenarios_7() {
    using comet::any_source, comet::any_tag;
    std::vector<scenario<Runner>> s;
    s.push_back({"any_tag_longest_queue_first", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 1, 1, bytes(4, 1));
                send(t, 1, 2, bytes(5, 2));
                send(t, 1, 2, bytes(6, 3));
                send(t, 1, 90, one());
                return;
            }
            receive(t, 0, 90, in, "marker");
            expect_status(t, receive(t, 0, any_tag, in, "any_tag"), 0, 1, 4, "any_tag receive: tag 1 was sent first, then two of tag 2");
        });
    }});
    s.push_back({"any_source_heads_only", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 1, 1, bytes(4, 1));
                send(t, 1, 2, bytes(5, 2));
                send(t, 1, 90, one());
                return;
            }
            receive(t, 0, 90, in, "marker");
            expect_status(t, receive(t, any_source, 2, in, "any_source receive of tag 2 behind a tag-1 message"), 0, 2, 5, "any_source, tag 2");
            expect_status(t, receive(t, 0, 1, in, "tag 1"), 0, 1, 4, "tag 1");
        });
    }});
    s.push_back({"posted_any_tag_named_self_missed", [](const Runner& run) {
        run(1, [](auto& t) {
            std::vector<std::byte> in(16);
            auto r = t.irecv(0, any_tag, in);
            send(t, 0, 5, bytes(3, 5));
            expect_status(t, finish(t, r, "posted irecv(own rank, any_tag), then a message to oneself"), 0, 5, 3, "posted any_tag receive from oneself");
        });
    }});
    s.push_back({"posted_swap_pop_erase", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> a(8), b(8), c(8), d(8), e(8);
            if (t.rank() == 0) {
                receive(t, 1, 90, a, "go");
                send(t, 1, 2, bytes(8, 2));
                send(t, 1, 1, bytes(8, 11));
                send(t, 1, 1, bytes(8, 12));
                send(t, 1, 1, bytes(8, 13));
                send(t, 1, 9, bytes(8, 9));
                return;
            }
            auto ra = t.irecv(0, 1, a);
            auto rb = t.irecv(0, 2, b);
            auto rc = t.irecv(0, 1, c);
            auto rd = t.irecv(0, 1, d);
            auto re = t.irecv(0, 9, e);
            send(t, 0, 90, one());
            finish(t, re, "tag 9");
            finish(t, rb, "tag 2");
            finish(t, ra, "first tag-1 receive");
            finish(t, rc, "second tag-1 receive");
            finish(t, rd, "third tag-1 receive");
            expect_bytes(t, a, 8, 11, "first posted tag-1 receive gets the first tag-1 message");
            expect_bytes(t, c, 8, 12, "second posted tag-1 receive gets the second (after the tag-2 receive between them completed)");
            expect_bytes(t, d, 8, 13, "third posted tag-1 receive gets the third");
        });
    }});
    s.push_back({"unexpected_swap_pop_erase", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                send(t, 1, 2, bytes(8, 2));
                send(t, 1, 1, bytes(8, 11));
                send(t, 1, 3, bytes(8, 3));
                send(t, 1, 1, bytes(8, 12));
                send(t, 1, 90, one());
                return;
            }
            receive(t, 0, 90, in, "marker");
            receive(t, 0, 2, in, "tag 2, the earliest waiting");
            receive(t, 0, 1, in, "tag 1");
            expect_bytes(t, in, 8, 11, "the first tag-1 message before the second");
            receive(t, 0, 1, in, "tag 1");
            expect_bytes(t, in, 8, 12, "the second tag-1 message");
        });
    }});
    s.push_back({"queue_growth_reverses", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(4);
            constexpr unsigned n = 300;
            if (t.rank() == 0) {
                for (unsigned k = 0; k < n; ++k) send(t, 1, 4, numbered(k));
                send(t, 1, 90, one());
                return;
            }
            receive(t, 0, 90, in, "marker after 300 messages");
            for (unsigned k = 0; k < n; ++k) {
                receive(t, 0, 4, in, "one of 300 waiting messages");
                if (number_of(in) != k) fail(1, "message ", k, " of 300 waiting ones from one sender with one tag is number ", number_of(in));
            }
        });
    }});
    s.push_back({"queue_compaction_drops_tail", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(4);
            constexpr unsigned n = 140;
            if (t.rank() == 0) {
                for (unsigned k = 0; k < n; ++k) send(t, 1, 3, numbered(k));
                send(t, 1, 90, numbered(999));
                return;
            }
            arrived(t, 0, 90, "marker after 140 messages");
            for (unsigned k = 0; k < n; ++k) {
                receive(t, 0, 3, in, "one of 140 waiting messages");
                if (number_of(in) != k) fail(1, "message ", k, " of 140 is number ", number_of(in));
            }
            receive(t, 0, 90, in, "the marker, sent after 140 messages and seen by iprobe");
        });
    }});
    s.push_back({"completed_send_request_drop_cancels", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                {
                    auto r = t.isend(1, 5, bytes(8, 5));
                    finish(t, r, "isend");
                }  // the completed request is destroyed here
                receive(t, 1, 91, in, "done", 5.0);
                return;
            }
            pause(0.05);
            receive(t, 0, 5, in, "a message whose completed isend request was destroyed before it was received");
            expect_bytes(t, in, 8, 5, "that message");
            send(t, 0, 91, one());
        });
    }});
    s.push_back({"any_tag_status_latest_queued_tag", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 0) {
                send(t, 1, 1, bytes(4, 1));
                send(t, 1, 2, bytes(5, 2));
                send(t, 1, 90, one());
                return;
            }
            arrived(t, 0, 90, "marker");
            expect_status(t, receive(t, 0, any_tag, in, "any_tag"), 0, 1, 4, "any_tag receive of the earliest waiting message");
            expect_status(t, receive(t, 0, any_tag, in, "any_tag"), 0, 2, 5, "any_tag receive of the second");
        });
    }});
    s.push_back({"coalesced_status_packet_size", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                send(t, 1, 4, bytes(10, 1));
                send(t, 1, 4, bytes(20, 2));
                send(t, 1, 90, one());
                return;
            }
            receive(t, 0, 90, in, "marker");
            expect_status(t, receive(t, 0, 4, in, "first small"), 0, 4, 10, "the first of two small waiting messages");
            expect_status(t, receive(t, 0, 4, in, "second small"), 0, 4, 20, "the second");
        });
    }});
    s.push_back({"send_status_dest_relative", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 1) {
                auto r = t.isend(2, 6, bytes(7, 6));
                expect_status(t, finish(t, r, "isend from rank 1 to rank 2"), 2, 6, 7, "send status of rank 1's isend to rank 2");
            } else if (t.rank() == 2) {
                receive(t, 1, 6, in, "from rank 1");
            }
        });
    }});
    s.push_back({"send_status_size_staging_rounded", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(128);
            if (t.rank() == 0) {
                auto r = t.isend(1, 6, bytes(100, 6));
                expect_status(t, finish(t, r, "isend of 100 bytes"), 1, 6, 100, "send status of 100 bytes");
                return;
            }
            receive(t, 0, 6, in, "100 bytes");
        });
    }});
    s.push_back({"iprobe_blind_while_posted", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> a(8), b(8);
            if (t.rank() == 0) {
                receive(t, 1, 90, a, "go");
                send(t, 1, 6, bytes(8, 6));
                receive(t, 1, 91, a, "saw", 5.0);
                send(t, 1, 5, bytes(8, 5));
                return;
            }
            auto r = t.irecv(0, 5, a);
            send(t, 0, 90, one());
            expect_status(t, arrived(t, 0, 6, "a tag-6 message while a tag-5 receive is posted"), 0, 6, 8, "iprobe while a receive is posted");
            send(t, 0, 91, one());
            receive(t, 0, 6, b, "tag 6");
            finish(t, r, "tag 5");
        });
    }});
    s.push_back({"iprobe_tag_bitmap_cleared_early", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                send(t, 1, 7, bytes(4, 1));
                send(t, 1, 7, bytes(6, 2));
                send(t, 1, 90, one());
                return;
            }
            receive(t, 0, 90, in, "marker");
            receive(t, 0, 7, in, "first tag 7");
            expect_status(t, arrived(t, 0, 7, "the second tag-7 message, still waiting"), 0, 7, 6, "iprobe after the first of two was received");
            expect_status(t, receive(t, 0, 7, in, "second tag 7"), 0, 7, 6, "second tag 7");
        });
    }});
    s.push_back({"iprobe_fair_cursor_no_wrap", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 2) {
                send(t, 0, 5, bytes(3, 2));
            } else if (t.rank() == 1) {
                receive(t, 0, 90, in, "go", 5.0);
                send(t, 0, 5, bytes(4, 1));
            } else {
                expect_status(t, arrived(t, any_source, 5, "rank 2's message"), 2, 5, 3, "any_source iprobe");
                receive(t, 2, 5, in, "rank 2's message");
                send(t, 1, 90, one());
                expect_status(t, arrived(t, any_source, 5, "rank 1's message, after one from rank 2 was probed"), 1, 5, 4, "any_source iprobe");
                receive(t, 1, 5, in, "rank 1's message");
            }
        });
    }});
    s.push_back({"truncation_checked_against_head_posted", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> a(64), b(8);
            if (t.rank() == 0) {
                receive(t, 1, 90, a, "go");
                send(t, 1, 2, bytes(32, 2));
                send(t, 1, 1, bytes(4, 1));
                return;
            }
            auto ra = t.irecv(0, 1, a);
            auto rb = t.irecv(0, 2, b);
            send(t, 0, 90, one());
            expect_raise<comet::truncation_error>(1, [&] { finish(t, rb, "8-byte receive posted second"); }, "32",
                                                  "32 bytes into the 8-byte receive posted behind a 64-byte one");
            expect_status(t, finish(t, ra, "64-byte receive"), 0, 1, 4, "64-byte receive");
        });
    }});
    s.push_back({"truncation_rendezvous_posted_never_completes", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(70000);
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "go");
                send(t, 1, 3, bytes(100000, 3));
                return;
            }
            auto r = t.irecv(0, 3, in);
            send(t, 0, 90, one());
            expect_raise<comet::truncation_error>(1, [&] { finish(t, r, "posted 70000-byte receive of 100000 bytes"); }, "100000",
                                                  "100000 bytes into a posted 70000-byte receive");
        });
    }});
    s.push_back({"payload_piece_boundary_repeats_byte", [](const Runner& run) {
        run(2, [](auto& t) {
            constexpr std::size_t n = 3 * (std::size_t{1} << 19);
            if (t.rank() == 0) {
                send(t, 1, 8, bytes(n, 9));
                return;
            }
            std::vector<std::byte> in(n);
            expect_status(t, receive(t, 0, 8, in, "1.5 MiB"), 0, 8, n, "1.5 MiB");
            expect_bytes(t, in, n, 9, "1.5 MiB message");
        });
    }});
    s.push_back({"default_request_zero_status", [](const Runner& run) {
        run(1, [](auto& t) {
            request_of<decltype(t)> r;
            const auto s = t.test(r);
            if (s != std::optional<comet::status>(comet::status{})) fail(0, "test of a default-constructed request is not a default status");
        });
    }});
    s.push_back({"moved_completed_request_repeats", [](const Runner& run) {
        run(1, [](auto& t) {
            std::vector<std::byte> in(8);
            auto r = t.irecv(0, 3, in);
            send(t, 0, 3, bytes(4, 3));
            expect_status(t, finish(t, r, "receive"), 0, 3, 4, "receive from oneself");
            request_of<decltype(t)> m(std::move(r));
            if (t.test(m) != std::optional<comet::status>(comet::status{})) fail(0, "test of a completed request, moved after completion, is not a default status");
            request_of<decltype(t)> n;
            n = std::move(m);
            if (t.test(n) != std::optional<comet::status>(comet::status{})) fail(0, "test of a completed request, move-assigned, is not a default status");
        });
    }});
    s.push_back({"rendezvous_moves_on_own_recv_test", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                auto big = t.isend(1, 1, bytes(100000, 1));
                finish(t, big, "isend of 100000 bytes", 3.0);
                send(t, 1, 2, bytes(4, 2));
                return;
            }
            std::vector<std::byte> big(100000), small(8);
            auto r1 = t.irecv(0, 1, big);
            auto r2 = t.irecv(0, 2, small);
            expect_status(t, finish(t, r2, "small receive, polled alone while a large one is posted"), 0, 2, 4, "small receive");
            finish(t, r1, "large receive");
            expect_bytes(t, big, 100000, 1, "large message");
        });
    }});
    s.push_back({"now_interpolation_steps_back", [](const Runner& run) {
        run(1, [](auto& t) {
            const auto t0 = std::chrono::steady_clock::now();
            double last = t.now();
            long calls = 0;
            while (seconds_since(t0) < 0.1) {
                const double x = t.now();
                ++calls;
                if (x < last) fail(0, "now() went back from ", last, " to ", x, " after ", calls, " calls");
                last = x;
            }
        });
    }});
    return s;
}

template <class Runner>
std::vector<scenario<Runner>> full_scenarios_7() {
    using comet::any_source, comet::any_tag;
    std::vector<scenario<Runner>> s;
    s.push_back({"bsend_fragments_reversed", [](const Runner& run) {
        run(2, [](auto& t) {
            constexpr std::size_t n = 200000;
            if (t.rank() == 0) {
                t.bsend(1, 4, bytes(n, 4));
                return;
            }
            std::vector<std::byte> in(n);
            expect_status(t, t.recv(0, 4, in), 0, 4, n, "bsend of 200000 bytes");
            expect_bytes(t, in, n, 4, "bsend of 200000 bytes");
        });
    }});
    s.push_back({"issend_status_from_ack", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 1) {
                auto r = t.irecv(0, any_tag, in);
                send(t, 0, 90, one());
                expect_status(t, finish(t, r, "any_tag receive"), 0, 41, 8, "any_tag receive of an issend");
                return;
            }
            receive(t, 1, 90, in, "go");
            auto r = t.issend(1, 41, bytes(8, 41));
            expect_status(t, finish(t, r, "issend into a posted any_tag receive"), 1, 41, 8, "completed issend");
        });
    }});
    s.push_back({"ssend_spin_timeout", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                const auto t0 = std::chrono::steady_clock::now();
                within(0, 3.0, "ssend", [&] { t.ssend(1, 5, bytes(8, 5)); });
                if (seconds_since(t0) < 0.25) fail(0, "ssend returned after ", seconds_since(t0), " s, before the receive was posted at 0.3 s");
                return;
            }
            pause(0.3);
            receive(t, 0, 5, in, "ssend's message");
        });
    }});
    s.push_back({"rsend_skips_posted_any_tag", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 1) {
                auto r = t.irecv(0, any_tag, in);
                send(t, 0, 90, one());
                expect_status(t, finish(t, r, "posted any_tag receive of an rsend"), 0, 61, 8, "rsend into a posted any_tag receive");
                return;
            }
            receive(t, 1, 90, in, "ready");
            t.rsend(1, 61, bytes(8, 61));
        });
    }});
    s.push_back({"sendrecv_any_tag_as_send_tag", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(16);
            if (t.rank() == 1) {
                send(t, 0, 6, bytes(9, 6));
                receive(t, 0, 5, in, "sendrecv's message", 5.0);
                return;
            }
            within(0, 2.0, "sendrecv with recv_tag any_tag", [&] {
                expect_status(t, t.sendrecv(1, 5, bytes(4, 5), 1, any_tag, in), 1, 6, 9, "sendrecv with any_tag");
            });
        });
    }});
    s.push_back({"sendrecv_any_source_as_dest", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank(), p = t.size();
            std::vector<std::byte> in(16);
            within(me, 2.0, "ring shift by sendrecv with any_source", [&] {
                expect_status(t, t.sendrecv((me + 1) % p, 7, bytes(5, 7), any_source, 7, in), (me + p - 1) % p, 7, 5, "ring shift");
            });
        });
    }});
    s.push_back({"send_native_fragments_as_messages", [](const Runner& run) {
        run(2, [](auto& t) {
            constexpr std::size_t n = 3 * (std::size_t{1} << 19);
            if (t.rank() == 0) {
                t.send(1, 4, bytes(n, 4));
                return;
            }
            std::vector<std::byte> in(2 * n);
            expect_status(t, t.recv(0, 4, in), 0, 4, n, "native send of 1.5 MiB into a 3 MiB buffer");
            expect_bytes(t, in, n, 4, "native send of 1.5 MiB");
        });
    }});
    s.push_back({"recv_native_retry_after_truncation", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(10);
            if (t.rank() == 0) {
                t.send(1, 3, bytes(100, 3));
                t.send(1, 3, bytes(5, 4));
                return;
            }
            arrived(t, 0, 3, "first message");
            expect_raise<comet::truncation_error>(1, [&] { (void)t.recv(0, 3, in); }, "100", "native recv of 100 bytes into 10");
            expect_status(t, t.recv(0, 3, in), 0, 3, 5, "the next message");
        });
    }});
    s.push_back({"wait_completed_returns_last_status", [](const Runner& run) {
        run(1, [](auto& t) {
            std::vector<std::byte> in(8);
            auto r = t.irecv(0, 3, in);
            send(t, 0, 3, bytes(4, 3));
            expect_status(t, t.wait(r), 0, 3, 4, "wait of a receive");
            if (t.wait(r) != comet::status{}) fail(0, "wait of an already completed request is not a default status");
        });
    }});
    s.push_back({"wait_all_treats_nonreceive_done", [](const Runner& run) {
        run(3, [](auto& t) {
            using request = request_of<decltype(t)>;
            const int me = t.rank();
            if (me == 2) pause(0.15);
            const auto t0 = std::chrono::steady_clock::now();
            std::vector<request> rs;
            rs.push_back(t.ibarrier());
            t.wait_all(std::span<request>(rs));
            if (me == 0 && seconds_since(t0) < 0.12) fail(0, "wait_all of an ibarrier returned before rank 2 entered");
        });
    }});
    s.push_back({"barrier_tree_fanin4_second_level", [](const Runner& run) {
        run(6, [](auto& t) {
            const int me = t.rank();
            if (me == 5) pause(0.15);
            const auto t0 = std::chrono::steady_clock::now();
            t.barrier();
            if (me != 5 && seconds_since(t0) < 0.12) fail(me, "left a barrier of 6 before rank 5 entered");
        });
    }});
    s.push_back({"broadcast_segments_floor", [](const Runner& run) {
        run(2, [](auto& t) {
            constexpr std::size_t n = 100000;
            auto data = t.rank() == 0 ? bytes(n, 5) : std::vector<std::byte>(n);
            t.broadcast(0, data);
            expect_bytes(t, data, n, 5, "broadcast of 100000 bytes");
        });
    }});
    s.push_back({"allreduce_sum_rank0_writes_early", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<double> v{t.rank() + 1.0, 2.0};
            t.allreduce_sum(v);
            if (v[0] != 6.0 || v[1] != 6.0) fail(t.rank(), "allreduce_sum gave ", v[0], " and ", v[1], ", not 6 and 6");
        });
    }});
    s.push_back({"allreduce_max_tail_of_4_unreduced", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v(6);
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i % 3) == me ? 100.0 + i : -1.0 * i;
            t.allreduce_max(v);
            for (std::size_t i = 0; i < v.size(); ++i)
                if (v[i] != 100.0 + i) fail(me, "allreduce_max of 6 elements: element ", i, " is ", v[i]);
        });
    }});
    s.push_back({"allreduce_min_init_flt_max", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<double> v{1e300 + t.rank() * 1e299};
            t.allreduce_min(v);
            if (v[0] != 1e300) fail(t.rank(), "allreduce_min of 1e300 and 1.1e300 gave ", v[0]);
        });
    }});
    s.push_back({"reduce_sum_root_twice_odd_group", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{me + 1.0};
            t.reduce_sum(1, v);
            if (v[0] != (me == 1 ? 6.0 : me + 1.0)) fail(me, "reduce_sum to rank 1 in a group of 3 left ", v[0]);
        });
    }});
    s.push_back({"reduce_max_float_compare", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{1.0 + 1e-12 * me};
            t.reduce_max(0, v);
            if (me == 0 && v[0] != 1.0 + 1e-12 * 2) fail(0, "reduce_max of 1, 1 + 1e-12, 1 + 2e-12 gave 1 + ", (v[0] - 1.0));
        });
    }});
    s.push_back({"reduce_min_plan_cache_ignores_root", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{5.0 + me};
            t.reduce_min(0, v);
            if (v[0] != 5.0 + (me == 0 ? 0 : me)) fail(me, "first reduce_min to rank 0 left ", v[0]);
            v[0] = 5.0 + me;
            t.reduce_min(2, v);
            if (v[0] != (me == 2 ? 5.0 : 5.0 + me)) fail(me, "second reduce_min, on the same buffer to rank 2, left ", v[0]);
        });
    }});
    s.push_back({"gather_partial_node_dropped", [](const Runner& run) {
        run(5, [](auto& t) {
            const int me = t.rank(), p = t.size();
            const std::byte mine[3] = {std::byte(me + 1), std::byte(me + 11), std::byte(me + 21)};
            std::vector<std::byte> all(3 * static_cast<std::size_t>(p));
            t.gather(0, comet::const_bytes(mine, 3), all);
            for (int r = 0; me == 0 && r < p; ++r)
                if (all[3 * r] != std::byte(r + 1) || all[3 * r + 2] != std::byte(r + 21)) fail(0, "gather of 5 to rank 0: rank ", r, "'s block is wrong");
        });
    }});
    s.push_back({"alltoall_ring_one_step_short", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank(), p = t.size();
            std::vector<std::byte> out(4 * p), got(4 * p);
            for (int r = 0; r < p; ++r) std::fill_n(out.begin() + 4 * r, 4, std::byte(me * 10 + r + 1));
            t.alltoall(out, got);
            for (int r = 0; r < p; ++r)
                if (got[4 * r] != std::byte(r * 10 + me + 1)) fail(me, "alltoall of 2: the block from rank ", r, " is wrong");
        });
    }});
    s.push_back({"compute_busy_whole_seconds", [](const Runner& run) {
        run(1, [](auto& t) {
            const auto t0 = std::chrono::steady_clock::now();
            t.compute(comet::work::busy(0.2));
            if (seconds_since(t0) < 0.19) fail(0, "compute(busy 200 ms) took ", seconds_since(t0), " s");
        });
    }});
    s.push_back({"abort_message_as_format", [](const Runner& run) {
        const std::string said = "witness 100% abort %s %d";
        try {
            run(2, [&](auto& t) {
                if (t.rank() == 1) t.abort(said);
                std::vector<std::byte> b(8);
                auto r = t.irecv(comet::any_source, 77, b);
                for (;;) (void)t.test(r);
            });
        } catch (const comet::aborted& e) {
            const std::string m = e.what();
            if (m.find("rank 1") == std::string::npos || m.find(said) == std::string::npos)
                fail(-1, "abort: \"", m, "\" does not name rank 1 and the message \"", said, "\"");
            return;
        } catch (const std::exception& e) {
            fail(-1, "abort: raised something other than comet::aborted: ", e.what());
        }
        fail(-1, "abort: the run ended without comet::aborted");
    }});
    s.push_back({"ibarrier_count_carried_over", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            auto first = t.ibarrier();
            finish(t, first, "first ibarrier");
            if (me == 2) pause(0.15);
            const auto t0 = std::chrono::steady_clock::now();
            auto second = t.ibarrier();
            finish(t, second, "second ibarrier");
            if (me == 0 && seconds_since(t0) < 0.12) fail(0, "the second ibarrier completed before rank 2 entered");
        });
    }});
    s.push_back({"ibroadcast_from_last_joiner", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            auto data = me == 0 ? bytes(64, 30) : std::vector<std::byte>(64);
            if (me == 2) pause(0.1);
            auto r = t.ibroadcast(0, data);
            finish(t, r, "ibroadcast");
            expect_bytes(t, data, 64, 30, "ibroadcast from rank 0, rank 2 joining last");
        });
    }});
    s.push_back({"iallreduce_sum_first_joiner_twice", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            std::vector<double> v{me + 1.0, 10.0 * me};
            if (me == 0) pause(0.1);
            auto r = t.iallreduce_sum(v);
            finish(t, r, "iallreduce_sum");
            if (v[0] != 6.0 || v[1] != 30.0) fail(me, "iallreduce_sum, rank 0 joining last, gave ", v[0], " and ", v[1], ", not 6 and 30");
        });
    }});
    s.push_back({"progress_completes_own_ibarrier", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            if (me == 2) pause(0.3);
            auto r = t.ibarrier();
            if (me == 0) {
                t.progress();
                if (t.test(r)) fail(0, "ibarrier complete after progress, while rank 2 had not entered");
            }
            finish(t, r, "ibarrier");
        });
    }});
    return s;
}

}  // namespace held_out_7::witness
