// held_out/witnesses_full.hpp — the witness scenarios of the optional members (model::full):
// the core's scenarios of witnesses.hpp, then one per capability the full model claims; and
// `run_witnesses`, which the driver calls.
#pragma once

#include "witnesses.hpp"

#include <cmath>

namespace held_out::witness {

template <class Runner>
std::vector<scenario<Runner>> full_scenarios() {
    std::vector<scenario<Runner>> s = core_scenarios<Runner>();
    s.push_back({"buffered_sends", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(std::size_t{1} << 20);
            if (t.rank() == 0) {
                t.bsend(1, 1, bytes(std::size_t{1} << 20, 1));  // nobody receives until we say so
                auto r = t.isend(1, 2, bytes(std::size_t{1} << 20, 2));
                finish(t, r, "isend on a transport that buffers every send", 1.0);
                send(t, 1, 97, bytes(1, 0));
            } else {
                receive(t, 0, 97, in, "bsend and isend returned without a receive", 3.0);
                receive(t, 0, 1, in, "bsend message");
                receive(t, 0, 2, in, "isend message");
            }
        });
    }});
    s.push_back({"synchronous_sends", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                const auto out = bytes(64, 41);
                auto r = t.issend(1, 41, out);
                const auto t0 = std::chrono::steady_clock::now();
                while (seconds_since(t0) < 0.1)
                    if (t.test(r)) fail(0, "issend completed before the receive was posted");
                send(t, 1, 42, bytes(1, 0));
                finish(t, r, "issend");
                const auto t1 = std::chrono::steady_clock::now();
                t.ssend(1, 43, out);
                if (seconds_since(t1) < 0.25) fail(0, "ssend returned after ", seconds_since(t1), " s, before the receive was posted");
            } else {
                receive(t, 0, 42, in, "go");
                receive(t, 0, 41, in, "issend message");
                pause(0.3);
                receive(t, 0, 43, in, "ssend message");
            }
        });
    }});
    s.push_back({"sendrecv", [](const Runner& run) {
        run(2, [](auto& t) {
            const int peer = 1 - t.rank();
            const std::size_t mine = t.rank() == 0 ? 8 : 16, theirs = 24 - mine;
            std::vector<std::byte> in(std::size_t{1} << 20);
            const auto st = t.sendrecv(peer, 71 + t.rank(), bytes(mine, 1), peer, 72 - t.rank(), in);
            expect_status(t, st, peer, 72 - t.rank(), theirs, "sendrecv");
        });
    }});
    s.push_back({"collectives", [](const Runner& run) {
        run(4, [](auto& t) {
            const int me = t.rank(), p = t.size();
            if (me == p - 1) pause(0.1);
            const auto t0 = std::chrono::steady_clock::now();
            t.barrier();
            if (me != p - 1 && seconds_since(t0) < 0.08) fail(me, "left the barrier before the last rank entered");
            auto data = me == 2 ? bytes(100000, 2) : std::vector<std::byte>(100000);
            t.broadcast(2, data);
            expect_bytes(t, data, 100000, 2, "broadcast from rank 2");
            // The last element's sum depends on the order of the additions: 1 + 1e16 - 1e16 + 1
            // is 1 in one order and 2 in another.
            const double order_matters[] = {1.0, 1e16, -1e16, 1.0};
            std::vector<double> sum{0.1 * (me + 1), 1e16 + me, 1.0 / (me + 3), order_matters[me]}, low{me == 0 ? -5.0 : 1.0 * me};
            t.allreduce_sum(sum);
            t.allreduce_min(low);
            if (low[0] != -5.0) fail(me, "allreduce_min gave ", low[0]);
            std::vector<std::byte> all(me == 0 ? 4 * sizeof(double) * 4 : 0);
            t.gather(0, std::as_bytes(std::span<double>(sum)), all);
            if (me == 0)
                for (int r = 0; r < p; ++r)
                    if (std::memcmp(all.data() + r * 4 * sizeof(double), sum.data(), 4 * sizeof(double)) != 0)
                        fail(0, "rank ", r, "'s allreduce_sum has other bits than rank 0's");
            std::vector<double> ranks{static_cast<double>(me)};
            std::vector<std::byte> order(me == 0 ? 4 * sizeof(double) : 0);
            t.gather(0, std::as_bytes(std::span<double>(ranks)), order);
            for (int r = 0; me == 0 && r < p; ++r)
                if (reinterpret_cast<const double*>(order.data())[r] != r) fail(0, "gather put rank ", r, "'s block elsewhere");
            t.barrier();
            std::vector<double> when{t.now()};
            std::vector<std::byte> times(me == 0 ? 4 * sizeof(double) : 0);
            t.gather(0, std::as_bytes(std::span<double>(when)), times);
            const auto* w = reinterpret_cast<const double*>(times.data());
            for (int r = 1; me == 0 && r < p; ++r)
                if (std::abs(w[r] - w[0]) > 0.1) fail(0, "clocks said to be global differ by ", w[r] - w[0], " s after a barrier");
            const auto t1 = std::chrono::steady_clock::now();
            t.compute(comet::work::busy(0.05));
            if (seconds_since(t1) < 0.04) fail(me, "compute(busy 50 ms) took ", seconds_since(t1), " s");
        });
    }});
    s.push_back({"abort", [](const Runner& run) {
        try {
            run(3, [](auto& t) {
                if (t.rank() == 1) t.abort("witness abort");
                std::vector<std::byte> b(8);
                auto r = t.irecv(comet::any_source, 77, b);
                for (;;) (void)t.test(r);  // only the abort ends this
            });
        } catch (const comet::aborted& e) {
            if (std::string(e.what()).find("rank 1") == std::string::npos) fail(-1, "abort: \"", e.what(), "\" does not name rank 1");
            return;
        }
        fail(-1, "abort: the run ended without comet::aborted");
    }});
    return s;
}

/// Runs every scenario of `runner`'s model (`Full`: the optional members too), telling
/// `starting` each name; throws on the first scenario that fails.
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

}  // namespace held_out::witness
