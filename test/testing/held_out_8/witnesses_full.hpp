// held_out_8/witnesses_full.hpp — the witness scenarios of the optional members (model::full):
// the core's scenarios, then the capabilities the full model claims; and `run_witnesses`.
#pragma once

#include "witnesses.hpp"
#include "witnesses_8.hpp"

#include <algorithm>
#include <cmath>

namespace held_out_8::witness {

template <class Runner>
std::vector<scenario<Runner>> full_scenarios() {
    std::vector<scenario<Runner>> s = core_scenarios<Runner>();
    s.push_back({"bsend", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank(), peer = 1 - me;
            within(me, 3.0, "20 bsends each way, then 20 receives", [&] {
                for (unsigned i = 0; i < 20; ++i) t.bsend(peer, 20, bytes(8, i));
                std::vector<std::byte> in(8);
                for (unsigned i = 0; i < 20; ++i) {
                    expect_status(t, t.recv(peer, 20, in), peer, 20, 8, "one of 20 bsent messages");
                    expect_bytes(t, in, 8, i, "one of 20 bsent messages");
                }
            });
            within(me, 2.0, "bsend to oneself, then its receive", [&] {
                t.bsend(me, 21, bytes(8, 21));
                std::vector<std::byte> in(8);
                expect_status(t, t.recv(me, 21, in), me, 21, 8, "bsend to oneself");
            });
        });
    }});
    s.push_back({"synchronous and ready", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                receive(t, 1, 99, in, "ready");
                auto r = t.issend(1, 41, bytes(8, 41));
                expect_status(t, finish(t, r, "issend into a posted any_source receive"), 1, 41, 8, "completed issend");
                t.rsend(1, 61, bytes(8, 1));
                t.rsend(1, 61, bytes(8, 2));
                return;
            }
            std::vector<std::byte> a(8), b(8);
            auto r41 = t.irecv(comet::any_source, 41, in);
            auto ra = t.irecv(0, 61, a);
            auto rb = t.irecv(0, 61, b);
            send(t, 0, 99, one());
            expect_status(t, finish(t, r41, "issend message"), 0, 41, 8, "issend message");
            expect_status(t, finish(t, ra, "first rsend"), 0, 61, 8, "first posted receive of two rsends");
            expect_bytes(t, a, 8, 1, "the first rsend goes to the first posted receive");
            expect_status(t, finish(t, rb, "second rsend"), 0, 61, 8, "second posted receive of two rsends");
            expect_bytes(t, b, 8, 2, "the second rsend goes to the second posted receive");
        });
    }});
    s.push_back({"sendrecv", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank(), peer = 1 - me;
            std::vector<std::byte> in(64);
            within(me, 2.0, "sendrecv to oneself", [&] {
                expect_status(t, t.sendrecv(me, 5, bytes(12, 5), me, 5, in), me, 5, 12, "sendrecv to oneself");
            });
            within(me, 2.0, "sendrecv with the peer", [&] {
                const int mine = 70 + me, theirs = 70 + peer;
                expect_status(t, t.sendrecv(peer, mine, bytes(8u + me, 1), peer, theirs, in), peer, theirs, 8u + peer, "sendrecv");
            });
        });
    }});
    s.push_back({"blocking and completion", [](const Runner& run) {
        run(2, [](auto& t) {
            using request = request_of<decltype(t)>;
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                auto big = bytes(100000, 3);
                t.send(1, 3, big);
                std::fill(big.begin(), big.end(), std::byte{0});  // send returned: the bytes are ours
                t.send(1, 6, bytes(10, 6));
                auto r = t.isend(1, 7, bytes(12, 7));
                expect_status(t, t.wait(r), 1, 7, 12, "wait of an isend");
                send(t, 1, 97, one());
                receive(t, 1, 98, in, "done");  // the bytes of a send that borrowed them stay alive till then
                return;
            }
            arrived(t, 0, 97, "marker");
            std::vector<std::byte> big(100000);
            expect_status(t, t.recv(0, 3, big), 0, 3, 100000, "native recv of 100000 bytes");
            expect_bytes(t, big, 100000, 3, "100000 bytes whose buffer was reused after send returned");
            expect_status(t, t.recv(0, 6, in), 0, 6, 10, "native recv of 10 bytes into 64");
            std::vector<std::byte> a(12), b(1);
            std::vector<request> rs;
            rs.push_back(request{});
            rs.back() = t.irecv(0, 7, a);
            rs.push_back(request{});
            rs.back() = t.irecv(0, 97, b);
            t.wait_all(std::span<request>(rs));
            for (request& r : rs)
                if (t.test(r) != std::optional<comet::status>(comet::status{})) fail(1, "a request wait_all completed is not a default one");
            within(1, 1.0, "wait_all of no requests", [&] { t.wait_all(std::span<request>()); });
            send(t, 0, 98, one());
        });
    }});
    s.push_back({"barrier of two", [](const Runner& run) {
        run(2, [](auto& t) {
            const int me = t.rank();
            for (int k = 0; k < 2; ++k) {
                if (me == 1 - k) pause(0.1);
                const auto t0 = std::chrono::steady_clock::now();
                t.barrier();
                if (me == k && seconds_since(t0) < 0.08) fail(me, "left barrier ", k + 1, " before the other rank entered");
            }
        });
    }});
    s.push_back({"collectives", [](const Runner& run) {
        run(4, [](auto& t) {
            const int me = t.rank(), p = t.size();
            t.barrier();
            auto data = me == 1 ? bytes(1001, 2) : std::vector<std::byte>(1001);
            t.broadcast(1, data);
            expect_bytes(t, data, 1001, 2, "broadcast of 1001 bytes from rank 1");
            std::vector<double> sum{1.0 + 1e-9 * me};
            t.allreduce_sum(sum);
            double want = 1.0;
            for (int r = 1; r < p; ++r) want += 1.0 + 1e-9 * r;
            if (sum[0] != want) fail(me, "allreduce_sum of 1 + 1e-9 * rank is off by ", sum[0] - want);
            std::vector<double> mx(2000);
            for (std::size_t i = 0; i < mx.size(); ++i) mx[i] = static_cast<int>(i % 4) == me ? 100.0 + i : -1.0 * i;
            t.allreduce_max(mx);
            for (std::size_t i = 0; i < mx.size(); ++i)
                if (mx[i] != 100.0 + i) fail(me, "allreduce_max element ", i, " is ", mx[i]);
            std::vector<double> mn{5.0 + me};
            t.reduce_min(1, mn);
            if (mn[0] != (me == 1 ? 5.0 : 5.0 + me)) fail(me, "reduce_min to rank 1 left ", mn[0]);
            std::vector<double> rs{me + 1.0};
            t.reduce_sum(2, rs);
            if (rs[0] != (me == 2 ? 10.0 : me + 1.0)) fail(me, "reduce_sum to rank 2 left ", rs[0]);
            const std::byte mine[3] = {std::byte(me + 1), std::byte(me + 11), std::byte(me + 21)};
            std::vector<std::byte> all(12);
            t.gather(1, comet::const_bytes(mine, 3), all);
            for (int r = 0; me == 1 && r < p; ++r)
                if (all[3 * r] != std::byte(r + 1) || all[3 * r + 2] != std::byte(r + 21)) fail(1, "gather to rank 1: rank ", r, "'s block is wrong");
            std::vector<std::byte> out(4 * 4), got(4 * 4);
            for (int r = 0; r < p; ++r) std::fill_n(out.begin() + 4 * r, 4, std::byte(me * 10 + r));
            t.alltoall(out, got);
            for (int r = 0; r < p; ++r)
                if (got[4 * r] != std::byte(r * 10 + me)) fail(me, "alltoall: the block from rank ", r, " is wrong");
            const auto t1 = std::chrono::steady_clock::now();
            t.compute(comet::work::busy(0.15));
            if (seconds_since(t1) < 0.14) fail(me, "compute(busy 150 ms) took ", seconds_since(t1), " s");
        });
    }});
    s.push_back({"nonblocking collectives", [](const Runner& run) {
        run(3, [](auto& t) {
            const int me = t.rank();
            if (me == 2) pause(0.15);
            const auto t0 = std::chrono::steady_clock::now();
            auto b = t.ibarrier();
            finish(t, b, "ibarrier");
            if (me == 0 && seconds_since(t0) < 0.12) fail(0, "ibarrier completed before rank 2 entered");
            auto data = me == 0 ? bytes(64, 30) : std::vector<std::byte>(64);
            if (me == 2) pause(0.15);
            auto r = t.ibroadcast(0, data);
            finish(t, r, "ibroadcast");
            expect_bytes(t, data, 64, 30, "ibroadcast from rank 0, right after its request completed");
            std::vector<double> v{me + 1.0, 2.0 * me};
            auto a = t.iallreduce_sum(v);
            finish(t, a, "iallreduce_sum");
            if (v[0] != 6.0 || v[1] != 6.0) fail(me, "iallreduce_sum gave ", v[0], " and ", v[1], ", not 6 and 6");
            within(me, 1.0, "progress with nothing to do", [&] { t.progress(); });
        });
    }});
    s.push_back({"abort", [](const Runner& run) {
        try {
            run(3, [](auto& t) {
                if (t.rank() == 1) t.abort("witness abort");
                std::vector<std::byte> b(8);
                auto r = t.irecv(comet::any_source, 77, b);
                for (;;) (void)t.test(r);
            });
        } catch (const comet::aborted& e) {
            const std::string m = e.what();
            if (m.find("rank 1") == std::string::npos || m.find("witness abort") == std::string::npos)
                fail(-1, "abort: \"", m, "\" does not name rank 1 and the message");
            return;
        } catch (const std::exception& e) {
            fail(-1, "abort: raised something other than comet::aborted: ", e.what());
        }
        fail(-1, "abort: the run ended without comet::aborted");
    }});
    return s;
}

/// The scenario named `aimed` (the one written for the mutant under test) first, so that a mutant's
/// row names the scenario written for its defect; then this set's other scenarios, then the
/// general ones taken over from the seventh set. The correct transports run them all.
template <bool Full, class Runner>
void run_witnesses(const Runner& runner, const std::function<void(std::string_view)>& starting, std::string_view aimed = {}) {
    std::vector<scenario<Runner>> all = core_scenarios_8<Runner>();
    if constexpr (Full)
        for (auto& x : full_scenarios_8<Runner>()) all.push_back(std::move(x));
    std::stable_partition(all.begin(), all.end(), [&](const scenario<Runner>& x) { return x.first == aimed; });
    std::vector<scenario<Runner>> general;
    if constexpr (Full)
        general = full_scenarios<Runner>();
    else
        general = core_scenarios<Runner>();
    for (auto& x : general) all.push_back(std::move(x));
    for (const auto& [name, body] : all) {
        starting(name);
        body(runner);
    }
}

}  // namespace held_out_8::witness
