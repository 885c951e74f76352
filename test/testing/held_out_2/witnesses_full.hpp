// held_out_2/witnesses_full.hpp — the witness scenarios of the optional members (model::full):
// the core's scenarios, then the capabilities the full model claims; and `run_witnesses`.
#pragma once

#include "witnesses.hpp"

#include <cmath>
#include <future>

namespace held_out_2::witness {

template <class Runner>
std::vector<scenario<Runner>> full_scenarios() {
    std::vector<scenario<Runner>> s = core_scenarios<Runner>();
    s.push_back({"sends", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 2) {
                t.send(1, 5, bytes(20, 2));
                send(t, 0, 98, bytes(1, 0));
                return;
            }
            if (t.rank() == 0) {
                receive(t, 2, 98, in, "go");
                auto out = bytes(32, 1);
                t.bsend(1, 1, out);
                std::fill(out.begin(), out.end(), std::byte{0});  // bsend returned: the bytes are ours
                t.send(1, 5, bytes(10, 3));
                receive(t, 1, 42, in, "posted");
                auto r = t.issend(1, 41, bytes(8, 41));
                finish(t, r, "issend into a posted receive");
                t.ssend(1, 43, bytes(8, 43));
                t.rsend(1, 61, bytes(8, 61));
                send(t, 1, 97, bytes(1, 0));
                return;
            }
            auto posted = t.irecv(0, 41, in);
            std::vector<std::byte> b43(8), b61(8);
            auto p43 = t.irecv(0, 43, b43);
            auto p61 = t.irecv(comet::any_source, 61, b61);
            send(t, 0, 42, bytes(1, 0));
            expect_status(t, finish(t, posted, "issend message"), 0, 41, 8, "issend message");
            expect_status(t, finish(t, p43, "ssend message"), 0, 43, 8, "ssend message");
            expect_status(t, finish(t, p61, "rsend message"), 0, 61, 8, "rsend into a posted any_source receive");
            std::vector<std::byte> b(32);
            expect_status(t, t.recv(0, 1, b), 0, 1, 32, "bsend message");
            expect_bytes(t, b, 32, 1, "bsend message whose buffer was reused after bsend returned");
            arrived(t, 0, 5, "native send of tag 5");  // rank 2's tag 5 arrived before it
            expect_status(t, t.recv(0, 5, in), 0, 5, 10, "native recv naming rank 0");
            arrived(t, 2, 5, "native send of tag 5");
            expect_status(t, t.recv(2, 5, in), 2, 5, 20, "native recv naming rank 2");
            receive(t, 0, 97, in, "marker");
        });
    }});
    s.push_back({"sendrecv", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                send(t, 1, 80, bytes(4, 80));
                expect_status(t, t.sendrecv(1, 72, bytes(8, 72), 1, 71, in), 1, 71, 16, "sendrecv");
            } else {
                arrived(t, 0, 80, "tag 80");
                expect_status(t, t.sendrecv(0, 71, bytes(16, 71), 0, 72, in), 0, 72, 8, "sendrecv with a tag-80 message waiting");
                receive(t, 0, 80, in, "tag 80");
            }
        });
    }});
    s.push_back({"completion", [](const Runner& run) {
        run(2, [](auto& t) {
            using request = request_of<decltype(t)>;
            std::vector<std::byte> a(8), b(8), c(8);
            if (t.rank() == 0) {
                std::vector<std::byte> go(1);
                receive(t, 1, 99, go, "ready");
                for (int tag : {1, 2, 3}) t.send(1, tag, bytes(8, static_cast<unsigned>(tag)));
                return;
            }
            std::vector<request> rs;
            rs.push_back(t.irecv(0, 1, a));
            rs.push_back(t.irecv(0, 2, b));
            rs.push_back(t.irecv(0, 3, c));
            send(t, 0, 99, bytes(1, 0));
            t.wait_all(std::span<request>(rs));
            for (request& r : rs)
                if (t.test(r) != std::optional<comet::status>(comet::status{})) fail(1, "a request wait_all returned with is not complete");
            expect_bytes(t, c, 8, 3, "third request of wait_all");
            // A wait that never returns is seen from here, not waited for: the failure stops the
            // world and the blocked wait then raises `stopped`. The future is left behind on
            // purpose (its destructor would join a thread that ends only after the failure).
            auto* waited = new std::future<comet::status>(std::async(std::launch::async, [&t] {
                request none;
                return t.wait(none);
            }));
            if (waited->wait_for(std::chrono::seconds(2)) != std::future_status::ready) fail(1, "wait of a default request did not return in 2 s");
            const comet::status got = waited->get();
            delete waited;
            if (got != comet::status{}) fail(1, "wait of a default request is not a default status");
        });
    }});
    s.push_back({"collectives", [](const Runner& run) {
        run(4, [](auto& t) {
            const int me = t.rank(), p = t.size();
            for (int k = 0; k < 3; ++k) {
                if (me == p - 1) pause(0.1);
                const auto t0 = std::chrono::steady_clock::now();
                t.barrier();
                if (me != p - 1 && seconds_since(t0) < 0.08) fail(me, "left barrier ", k + 1, " before the last rank entered");
            }
            auto data = me == 1 ? bytes(1000, 2) : std::vector<std::byte>(1000);
            t.broadcast(1, data);
            expect_bytes(t, data, 1000, 2, "broadcast from rank 1");
            std::vector<double> mx{-1.0 - me};
            t.allreduce_max(mx);
            if (mx[0] != -1.0) fail(me, "allreduce_max of -1..-4 gave ", mx[0]);
            std::vector<double> sum{1.0 * me, 1.0 * me, 1.0 * me};
            t.allreduce_sum(sum);
            for (double x : sum)
                if (x != 6.0) fail(me, "allreduce_sum of 0..3 gave ", x);
            std::vector<double> rs{me + 1.0};
            t.reduce_sum(2, rs);
            if (rs[0] != (me == 2 ? 10.0 : me + 1.0)) fail(me, "reduce_sum to rank 2 left ", rs[0]);
            std::vector<double> rm{-1.0 * me};
            t.reduce_max(3, rm);
            if (rm[0] != (me == 3 ? 0.0 : -1.0 * me)) fail(me, "reduce_max to rank 3 left ", rm[0]);
            const std::byte mine[3] = {std::byte(me), std::byte(me + 10), std::byte(me + 20)};
            std::vector<std::byte> all(me == 0 ? 12 : 0);
            t.gather(0, comet::const_bytes(mine, 3), all);
            for (int r = 0; me == 0 && r < p; ++r)
                if (all[3 * r] != std::byte(r) || all[3 * r + 2] != std::byte(r + 20)) fail(0, "gather put rank ", r, "'s 3 bytes elsewhere");
            std::vector<std::byte> out(4 * 4), got(4 * 4);
            for (int r = 0; r < p; ++r) std::fill_n(out.begin() + 4 * r, 4, std::byte(me * 10 + r));
            t.alltoall(out, got);
            for (int r = 0; r < p; ++r)
                if (got[4 * r] != std::byte(r * 10 + me)) fail(me, "alltoall: block from rank ", r, " wrong");
            const auto t1 = std::chrono::steady_clock::now();
            t.compute(comet::work::busy(0.1));
            if (seconds_since(t1) < 0.09) fail(me, "compute(busy 100 ms) took ", seconds_since(t1), " s");
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

template <bool Full, class Runner>
void run_witnesses(const Runner& runner, const std::function<void(std::string_view)>& starting) {
    std::vector<scenario<Runner>> all;
    if constexpr (Full)
        all = full_scenarios<Runner>();
    else
        all = core_scenarios<Runner>();
    for (const auto& [name, body] : all) {
        starting(name);
        body(runner);
    }
}

}  // namespace held_out_2::witness
