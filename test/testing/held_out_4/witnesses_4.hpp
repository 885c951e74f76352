// held_out_4/witnesses_4.hpp — the witness scenarios written for this set's defects (defects.hpp):
// core scenarios (both models) and full-model scenarios, run after those of witnesses.hpp and
// witnesses_full.hpp by `run_witnesses`. Like those, they know what each mutant does and where
// to look; they are not a conformance suite.
#pragma once

#include "witnesses.hpp"

#include <cstdint>

namespace held_out_4::witness {

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
std::vector<scenario<Runner>> core_scenarios_4() {
    using comet::any_source, comet::any_tag;
    std::vector<scenario<Runner>> s;
    s.push_back({"oneself", [](const Runner& run) {
        run(1, [](auto& t) {
            std::vector<std::byte> in(64);
            auto out = bytes(5, 4);
            auto r = t.isend(0, 4, out);
            expect_status(t, finish(t, r, "isend to oneself"), 0, 4, 5, "completed isend to oneself");
            const auto p = t.iprobe(0, 4);
            if (!p) fail(0, "iprobe(0, 4) saw nothing after an isend to oneself completed");
            expect_status(t, *p, 0, 4, 5, "iprobe of a message to oneself");
            expect_status(t, receive(t, any_source, 4, in, "any_source receive in a group of one"), 0, 4, 5, "any_source receive in a group of one");
            std::vector<std::byte> posted(8);
            auto pr = t.irecv(0, 8, posted);
            send(t, 0, 8, bytes(6, 8));
            expect_status(t, finish(t, pr, "posted receive, then a message to oneself"), 0, 8, 6, "posted receive of a message to oneself");
            send(t, 0, 9, bytes(3, 9));
            if (!t.iprobe(any_source, 9)) fail(0, "iprobe(any_source, 9) saw nothing");
            expect_status(t, receive(t, 0, 9, in, "probed message"), 0, 9, 3, "probed message");
            if (const auto left = t.iprobe(any_source, any_tag)) fail(0, "a message of tag ", left->tag, " is still queued after its receive");
            send(t, 0, 10, comet::const_bytes());
            expect_status(t, receive(t, 0, 10, in, "zero-length"), 0, 10, 0, "zero-length message");
            std::vector<std::byte> room(8);
            auto er = t.irecv(0, 11, room);
            send(t, 0, 11, comet::const_bytes());
            expect_status(t, finish(t, er, "posted receive of a zero-length message"), 0, 11, 0, "zero-length message into a posted receive");
        });
    }});
    s.push_back({"order and payload", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "go 1");
                send(t, 1, 7, bytes(1, 1));
                send(t, 1, 7, bytes(2, 2));
                send(t, 1, 50, one());
                send(t, 1, 99, one());
                receive(t, 1, 91, in, "go 2");
                for (std::uint32_t i = 0; i < 10; ++i) send_u32(t, 1, 12, i);
                send(t, 1, 13, bytes(3, 13));
                receive(t, 1, 92, in, "go 3");
                send(t, 1, 20, bytes(100, 20));
                send(t, 1, 14, bytes(8192, 14));
                send(t, 1, 15, bytes(2049, 15));
                send(t, 1, 16, bytes(16384, 16));
                send(t, 1, 17, bytes(20, 17));
                for (std::uint32_t i = 0; i < 150; ++i) send_u32(t, 1, 18, i);
                send(t, 1, 99, one());
                return;
            }
            using request = request_of<decltype(t)>;
            // 1: messages arriving while only a non-matching receive is posted keep their order
            std::vector<std::byte> b50(8);
            auto r50 = t.irecv(0, 50, b50);
            send(t, 0, 90, one());
            finish(t, r50, "tag 50");
            arrived(t, 0, 99, "marker");
            expect_status(t, receive(t, 0, 7, in, "first tag 7"), 0, 7, 1, "first of two tag-7 messages");
            expect_status(t, receive(t, 0, 7, in, "second tag 7"), 0, 7, 2, "second of two tag-7 messages");
            receive(t, 0, 99, in, "marker");
            // 2: ten posted receives of one tag, then a posted any_tag receive
            std::vector<std::vector<std::byte>> bufs(10, std::vector<std::byte>(4));
            std::vector<request> rs;
            for (auto& b : bufs) rs.push_back(t.irecv(0, 12, b));
            std::vector<std::byte> bany(8);
            auto rany = t.irecv(0, any_tag, bany);
            send(t, 0, 91, one());
            for (std::uint32_t i = 0; i < 10; ++i) {
                expect_status(t, finish(t, rs[i], "one of ten posted receives"), 0, 12, 4, "one of ten posted receives");
                if (u32(bufs[i]) != i) fail(1, "posted receive ", i, " of ten got message ", u32(bufs[i]));
                if (t.test(rs[i]) != std::optional<comet::status>(comet::status{})) fail(1, "test of a completed request is not a default status");
            }
            expect_status(t, finish(t, rany, "posted any_tag"), 0, 13, 3, "posted any_tag receive");
            // 3: a pending receive into a large buffer, then payloads
            std::vector<std::byte> large(std::size_t{1} << 20);
            auto rl = t.irecv(0, 20, large);
            within(1, 0.25, "test of a pending receive into 1 MiB", [&] {
                if (t.test(rl)) fail(1, "a receive completed before its message was sent");
            });
            send(t, 0, 92, one());
            expect_status(t, finish(t, rl, "100 bytes into 1 MiB"), 0, 20, 100, "100 bytes into a 1 MiB buffer");
            expect_bytes(t, large, 100, 20, "100 bytes into a 1 MiB buffer");
            arrived(t, 0, 99, "marker");
            std::vector<std::byte> big(20000);
            expect_status(t, receive(t, 0, 14, big, "8192 bytes"), 0, 14, 8192, "8192-byte message");
            expect_bytes(t, big, 8192, 14, "8192 bytes from rank 0 to rank 1");
            expect_status(t, receive(t, 0, 15, big, "2049 bytes"), 0, 15, 2049, "2049-byte message");
            expect_bytes(t, big, 2049, 15, "2049 bytes");
            expect_status(t, receive(t, 0, 16, big, "16384 bytes"), 0, 16, 16384, "16384-byte message");
            std::fill(big.begin(), big.end(), std::byte{0});  // completed: the buffer is ours
            (void)t.iprobe(0, 99);
            for (std::size_t i = 0; i < big.size(); ++i)
                if (big[i] != std::byte{0}) fail(1, "the buffer of a completed receive was written after completion (byte ", i, ")");
            std::vector<std::byte> small(8);
            auto rt = t.irecv(any_source, 17, small);
            expect_raise<comet::truncation_error>(1, [&] { finish(t, rt, "20 bytes into 8 (any_source)"); }, "20", "20 bytes into 8 with any_source");
            for (std::uint32_t i = 0; i < 150; ++i) {
                receive(t, 0, 18, in, "one of 150");
                if (u32(in) != i) fail(1, "message ", i, " of 150 arrived as ", u32(in));
            }
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"groups", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 1) {
                send_u32(t, 2, 6, 0);
                send_u32(t, 2, 6, 1);
                send(t, 0, 90, one());
                return;
            }
            if (t.rank() == 0) {
                receive(t, 1, 90, in, "go");
                send_u32(t, 2, 6, 7);
                send(t, 2, 97, one());
                return;
            }
            arrived(t, 0, 97, "marker");
            std::uint32_t next_from_1 = 0;
            bool from_0 = false;
            for (int k = 0; k < 3; ++k) {
                const comet::status st = receive(t, any_source, 6, in, "any_source tag 6");
                if (st.source == 1) {
                    if (u32(in) != next_from_1) fail(2, "rank 1's messages out of order: got ", u32(in), ", expected ", next_from_1);
                    ++next_from_1;
                } else if (st.source == 0) {
                    from_0 = true;
                } else {
                    fail(2, "any_source receive from rank ", st.source);
                }
            }
            if (!from_0 || next_from_1 != 2) fail(2, "three any_source receives did not take the three messages");
        });
        run(10, [](auto& t) {
            if (t.size() != 10) fail(t.rank(), "size() is ", t.size(), " in a group of 10");
            std::vector<std::byte> in(8);
            if (t.rank() == 9) send(t, 8, 1, bytes(4, 9));
            if (t.rank() == 8) expect_status(t, receive(t, 9, 1, in, "rank 9's message"), 9, 1, 4, "message from rank 9 to rank 8");
            if (t.rank() == 0) {
                pause(0.2);
                if (const auto p = t.iprobe(any_source, any_tag)) fail(0, "rank 0 got a message of rank ", p->source, " nobody sent it");
            }
        });
    }});
    s.push_back({"arguments and tags", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> b(8);
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.irecv(0, -2, b); }, "-2", "irecv of tag -2");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.iprobe(-3, 1); }, "-3", "iprobe from source -3");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.isend(1 - t.rank(), -5, comet::const_bytes()); }, "-5", "empty isend of tag -5");
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                send(t, 1, comet::first_reserved_tag + 5, bytes(3, 1));
                send(t, 1, 5, bytes(4, 2));
                send(t, 1, comet::max_tag, bytes(6, 3));
                auto r = t.isend(1, comet::first_reserved_tag + 7, bytes(2, 4));
                expect_status(t, finish(t, r, "isend of a reserved tag"), 1, comet::first_reserved_tag + 7, 2, "completed isend of tag first_reserved_tag + 7");
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            expect_status(t, receive(t, 0, 5, in, "tag 5"), 0, 5, 4, "receive naming tag 5 with first_reserved_tag + 5 waiting first");
            expect_status(t, receive(t, 0, comet::first_reserved_tag + 5, in, "reserved tag"), 0, comet::first_reserved_tag + 5, 3, "reserved tag");
            expect_status(t, receive(t, 0, comet::max_tag, in, "max_tag"), 0, comet::max_tag, 6, "message of tag max_tag");
            receive(t, 0, comet::first_reserved_tag + 7, in, "reserved tag + 7");
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"clock", [](const Runner& run) {
        run(2, [](auto& t) {
            const double t0 = t.now();
            pause(0.4);
            const double d = t.now() - t0;
            if (d < 0.39 || d > 0.47) fail(t.rank(), "0.4 s of sleep measured ", d, " by now()");
        });
        run(1, [](auto& t) {
            double last = t.now();
            const auto b = one();
            for (int i = 0; i < 40; ++i) {
                auto r = t.isend(0, 3, b);
                finish(t, r, "isend to oneself");
                const double x = t.now();
                if (x < last) fail(0, "now() went back from ", last, " to ", x, " after isend ", i + 1);
                last = x;
            }
        });
    }});
    return s;
}

template <class Runner>
std::vector<scenario<Runner>> full_scenarios_4() {
    std::vector<scenario<Runner>> s;
    s.push_back({"bsend with receives posted", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank(), peer = 1 - me;
            std::vector<std::byte> pending(8);
            auto rp = t.irecv(peer, 30, pending);
            within(me, 3.0, "bsend while a receive is posted, then receive", [&] {
                t.bsend(peer, 31, bytes(8, 31));
                std::vector<std::byte> in(8);
                expect_status(t, t.recv(peer, 31, in), peer, 31, 8, "bsent message");
            });
            within(me, 3.0, "zero-length bsend, then receive", [&] {
                t.bsend(peer, 32, comet::const_bytes());
                std::vector<std::byte> in(8);
                expect_status(t, t.recv(peer, 32, in), peer, 32, 0, "zero-length bsend");
            });
            t.bsend(peer, 30, bytes(8, 30));
            finish(t, rp, "tag 30");
        });
    }});
    s.push_back({"synchronous and ready 4", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                auto r = t.issend(1, 40, bytes(8, 40));
                receive(t, 1, 90, in, "probed");
                if (t.test(r)) fail(0, "issend completed though its message was only probed");
                expect_status(t, finish(t, r, "issend"), 1, 40, 8, "completed issend");
                receive(t, 1, 91, in, "posted");
                auto q = t.irsend(1, 41, bytes(8, 41));
                expect_status(t, finish(t, q, "irsend"), 1, 41, 8, "completed irsend");
                return;
            }
            arrived(t, 0, 40, "issend message");
            send(t, 0, 90, one());
            pause(0.3);
            receive(t, 0, 40, in, "issend message");
            auto r41 = t.irecv(0, 41, in);
            send(t, 0, 91, one());
            finish(t, r41, "irsend message");
        });
    }});
    s.push_back({"sendrecv 4", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank(), next = (me + 1) % 3, prev = (me + 2) % 3;
            std::vector<std::byte> in(64);
            within(me, 2.0, "sendrecv round a ring with any_source", [&] {
                expect_status(t, t.sendrecv(next, 5, bytes(12, 5), comet::any_source, 5, in), prev, 5, 12, "sendrecv from any_source");
            });
        });
        run(2, [](auto& t) {
            const int me = t.rank(), peer = 1 - me;
            std::vector<std::byte> small(8);
            within(me, 2.0, "sendrecv into a short buffer", [&] {
                expect_raise<comet::truncation_error>(me, [&] { (void)t.sendrecv(peer, 6, bytes(20, 6), peer, 6, small); }, "20", "sendrecv of 20 bytes into 8");
            });
        });
    }});
    s.push_back({"blocking 4", [](const Runner& run) {
        run(2, [](auto& t) {
            using request = request_of<decltype(t)>;
            std::vector<std::byte> in(64);
            expect_raise<comet::invalid_argument>(t.rank(), [&] { t.send(2, 1, one()); }, "2", "native send to rank 2 of 2");
            if (t.rank() == 0) {
                t.send(1, 7, bytes(4, 7));
                t.send(1, 8, bytes(5, 8));
                t.send(1, 9, bytes(20, 9));
                receive(t, 1, 98, in, "done");
                return;
            }
            expect_status(t, t.recv(0, comet::any_tag, in), 0, 7, 4, "native recv with any_tag");
            arrived(t, 0, 8, "tag 8");
            auto r = t.irecv(0, 8, in);
            expect_status(t, t.wait(r), 0, 8, 5, "wait of a receive whose message was waiting");
            std::vector<std::byte> small(8);
            std::vector<request> rs;
            rs.push_back(t.irecv(0, 9, small));
            expect_raise<comet::truncation_error>(1, [&] { t.wait_all(std::span<request>(rs)); }, "20", "wait_all of 20 bytes into 8");
            send(t, 0, 98, one());
        });
    }});
    s.push_back({"collectives of 5", [](const Runner& run) {
        run(5, [](auto& t) {
            const int me = t.rank(), p = t.size();
            if (me == 0) pause(0.2);
            const auto t0 = std::chrono::steady_clock::now();
            t.barrier();
            if (me != 0 && seconds_since(t0) < 0.15) fail(me, "left the barrier before rank 0 entered");
            auto data = me == 3 ? bytes(101, 3) : std::vector<std::byte>(101);
            t.broadcast(3, data);
            expect_bytes(t, data, 101, 3, "broadcast of 101 bytes from rank 3");
            std::vector<double> mn{me + 2.0};
            t.allreduce_min(mn);
            if (mn[0] != 2.0) fail(me, "allreduce_min of rank + 2 gave ", mn[0]);
            std::vector<double> sum{1.0 * me, 1.0, 2.0};
            t.allreduce_sum(sum);
            if (sum[0] != 10.0 || sum[1] != 5.0 || sum[2] != 10.0) fail(me, "allreduce_sum of 3 elements gave ", sum[0], ", ", sum[1], ", ", sum[2]);
            std::vector<double> mx{1.0 * me};
            t.reduce_max(2, mx);
            if (mx[0] != (me == 2 ? 4.0 : 1.0 * me)) fail(me, "reduce_max to rank 2 left ", mx[0]);
            std::vector<double> many(300, 1.0);
            t.reduce_sum(1, many);
            for (std::size_t i = 0; i < many.size(); ++i)
                if (many[i] != (me == 1 ? 5.0 : 1.0)) fail(me, "reduce_sum of 300 elements to rank 1: element ", i, " is ", many[i]);
            const std::byte mine[3] = {std::byte(me + 1), std::byte(me + 11), std::byte(me + 21)};
            std::vector<std::byte> all(15);
            t.gather(0, comet::const_bytes(mine, 3), all);
            for (int r = 0; me == 0 && r < p; ++r)
                if (all[3 * r] != std::byte(r + 1) || all[3 * r + 2] != std::byte(r + 21)) fail(0, "gather to rank 0: rank ", r, "'s block is wrong");
            std::vector<std::byte> out(3 * 5), got(3 * 5);
            for (int r = 0; r < p; ++r) std::fill_n(out.begin() + 3 * r, 3, std::byte(me * 10 + r));
            t.alltoall(out, got);
            for (int r = 0; r < p; ++r)
                for (int j = 0; j < 3; ++j)
                    if (got[3 * r + j] != std::byte(r * 10 + me)) fail(me, "alltoall of 3-byte blocks: byte ", j, " of the block from rank ", r, " is wrong");
        });
    }});
    s.push_back({"nonblocking 4", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            auto data = me == 2 ? bytes(64, 7) : std::vector<std::byte>(64);
            auto r = t.ibroadcast(2, data);
            finish(t, r, "ibroadcast");
            expect_bytes(t, data, 64, 7, "ibroadcast from rank 2");
            std::vector<double> v{me + 1.0};
            auto a = t.iallreduce_sum(v);
            finish(t, a, "iallreduce_sum");
            if (v[0] != 6.0) fail(me, "iallreduce_sum gave ", v[0], ", not 6");
            if (me == 2) pause(0.3);
            auto b = t.ibarrier();
            if (me != 2) within(me, 0.15, "test of a pending ibarrier", [&] { (void)t.test(b); });
            finish(t, b, "ibarrier");
            std::vector<std::byte> in(8);
            if (me == 0) send(t, 1, 5, bytes(4, 5));
            if (me == 1) {
                arrived(t, 0, 5, "tag 5");
                t.progress();
                expect_status(t, receive(t, 0, 5, in, "message waiting across progress()"), 0, 5, 4, "message waiting across progress()");
            }
        });
    }});
    return s;
}

}  // namespace held_out_4::witness
