// Tests of the simulator's detours (comet/transport/nx2/engine.hpp, registered by
// comet::noisy, transport/decorators/noisy.hpp): EXACT virtual times derived by hand from the
// preset's parameters (as test_world.cpp's, docs/nx2-model.md "Detours"):
//   C = call 25 us, I = interrupt 23.606666 us, R = resume 15.5 us, c = copy 0.11 us/B,
//   h = hop 8.333333 us, header 16 B, wire(n): n bytes at the DMA's 2,439,024 B/s, rounded up.
// A detour takes its node's CPU for its length as an interrupt handler would: it lengthens a
// computation, holds back handlers (and so the process they wake), delays a sender, and its
// delay propagates down a native broadcast's tree. Runs stay deterministic, end while detours
// are pending, and a deadlock under noise is still reported, polling or blocked. Then the
// conformance suite and a kernel on noisy<nx2::transport>.
#include <comet/kernels/echo.hpp>
#include <comet/testing/conformance.hpp>
#include <comet/transport/decorators/noisy.hpp>
#include <comet/transport/nx2.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <bit>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace detours_test {

using namespace comet::nx2;
using timing = comet::detour_source::timing;

constexpr vtime C = 25'000'000, I = 23'606'666, R = 15'500'000, c = 110'000, h = 8'333'333, H = 16;
constexpr vtime ms = milliseconds, us = microseconds;

/// One transmission of `n` bytes (header included) through the DMA.
constexpr vtime wire(vtime n) { return transfer_time(static_cast<std::uint64_t>(n), 2'439'024); }

/// From the start of a send of 8 bytes to a neighbour until its message lands there.
constexpr vtime flight = C + 8 * c + h + wire(H + 8);

/// 1 ms every 100 ms on `rank`, aligned: at the multiples of 100 ms of the virtual clock.
inline comet::noise every_100ms_on(int rank) {
    return {{.when = timing::periodic, .ranks = {rank}, .length = 1e-3, .share = 0.01, .aligned = true}};
}

/// Random noise everywhere, and periodic noise on rank 1 if there is one.
inline comet::noise some_noise(int ranks) {
    comet::noise n = {{.length = 30e-6, .share = 0.03, .seed = 2}};
    if (ranks > 1) n.push_back({.when = timing::periodic, .ranks = {1}, .length = 500e-6, .share = 0.05});
    return n;
}

/// The conformance checks on the smallest cube holding the ranks, every rank noisy.
struct runner {
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = true;
    template <class F>
    void operator()(int ranks, F&& body) const {
        const auto m = ipsc860(static_cast<int>(std::bit_width(static_cast<unsigned>(ranks - 1))));
        run(
            m,
            [&](transport& inner) {
                comet::noisy t(inner, some_noise(ranks));
                body(t);
            },
            {.ranks = ranks});
    }
};

/// When rank 1, waiting in recv from the start under `n`, has the 8 bytes rank 0 sends at `send_at`.
inline vtime received(const comet::noise& n, vtime send_at) {
    return run(ipsc860(1), [&](transport& inner) -> vtime {
        comet::noisy t(inner, n);
        std::vector<std::byte> b(8);
        if (t.rank() == 0) {
            comet::ops::compute(t, comet::work::busy(to_seconds(send_at)));
            t.send(1, 5, b);
        } else {
            t.recv(0, 5, b);
        }
        return inner.clock();
    })[1];
}

}  // namespace detours_test

COMET_TRANSPORT_CONFORMANCE(nx2_noisy_conformance, detours_test::runner{})

BOOST_AUTO_TEST_SUITE(nx2_detours)

using namespace detours_test;
using comet_test::mentions;

BOOST_AUTO_TEST_CASE(the_decorator_hands_its_detours_to_the_simulator) {
    using noisy_nx2 = comet::noisy<transport>;
    static_assert(comet::detail::runs_detours<transport>);
    static_assert(comet::capabilities_of<noisy_nx2>() == comet::capabilities_of<transport>());
    static_assert(comet::ops::broadcast.implementation_for<noisy_nx2>() == comet::ops::implementation::native);
    static_assert(comet::ops::compute.implementation_for<noisy_nx2>() == comet::ops::implementation::native);
    static_assert(requires(const noisy_nx2& t) { t.retransmissions(); });
    // Not forwarded: the schedule is in the simulator's own time base.
    static_assert(!comet::detail::runs_detours<noisy_nx2>);
}

BOOST_AUTO_TEST_CASE(golden_a_computation_lengthened_by_every_detour_in_it) {
    // compute(1 s) on rank 1 from 0: the detours at 0, 100, ..., 900 ms take it to 1.010 s, and
    // the one at 1 s falls in it too: 1.011 s. Rank 0 has no noise.
    const auto at = run(ipsc860(1), [](transport& inner) -> std::pair<vtime, comet::detour_counts> {
        comet::noisy t(inner, every_100ms_on(1));
        comet::ops::compute(t, comet::work::busy(1.0));
        return {inner.clock(), t.detours()};
    });
    BOOST_TEST(at[0].first == 1000 * ms);
    BOOST_TEST(at[0].second.count == 0u);
    BOOST_TEST(at[1].first == 1011 * ms);
    BOOST_TEST(at[1].second.count == 11u);
    BOOST_TEST(at[1].second.seconds == 0.011);
}

BOOST_AUTO_TEST_CASE(golden_a_detour_due_as_a_computation_ends_takes_the_cpu_first) {
    // compute(99 ms) on rank 1 from 0: the detour at 0 takes it to 100 ms, the very instant the
    // next one is due. The detour has the CPU first, as an interrupt handler beginning then
    // does, and the rank continues at 101 ms; 99.5 ms of work end inside that detour, at 101.5 ms.
    for (const auto& [work, ends] : {std::pair{0.099, 101 * ms}, std::pair{0.0995, 101 * ms + 500 * us}}) {
        const auto at = run(ipsc860(1), [work](transport& inner) -> vtime {
            comet::noisy t(inner, every_100ms_on(1));
            comet::ops::compute(t, comet::work::busy(work));
            return inner.clock();
        });
        BOOST_TEST(at[1] == ends);
    }
}

BOOST_AUTO_TEST_CASE(golden_a_blocked_receiver_wakes_late_only_if_its_message_came_during_a_detour) {
    BOOST_TEST(flight < 1 * ms);
    // Sent at 100 ms, the message lands during the detour of 100..101 ms: its handler begins when
    // the detour ends, and the rank resumes after it.
    BOOST_TEST(received(every_100ms_on(1), 100 * ms) == 101 * ms + I + 8 * c + R);
    BOOST_TEST(received({}, 100 * ms) == 100 * ms + flight + I + 8 * c + R);  // without noise
    // Sent at 102 ms, it lands after the detour: no delay at all.
    BOOST_TEST(received(every_100ms_on(1), 102 * ms) == 102 * ms + flight + I + 8 * c + R);
    // Landing 10 us before the detour, its handler (I + 8c, longer) runs first and wakes the rank;
    // the detour due meanwhile takes the CPU when the handler ends, and the rank resumes after it.
    const vtime lands = 100 * ms - 10 * us;
    BOOST_TEST(received(every_100ms_on(1), lands - flight) == lands + I + 8 * c + 1 * ms + R);
}

BOOST_AUTO_TEST_CASE(golden_a_detour_on_the_sender_delays_its_send) {
    // The decorators are made at 50 ms: rank 0's aligned detours come at 100, 200, ... ms. Its send
    // starts at 99.99 ms and meets the one at 100 ms during the call.
    const auto at = run(ipsc860(1), [](transport& inner) -> vtime {
        inner.compute(comet::work::busy(0.05));
        comet::noisy t(inner, every_100ms_on(0));
        std::vector<std::byte> b(8);
        if (t.rank() == 0) {
            comet::ops::compute(t, comet::work::busy(0.04999));
            t.send(1, 5, b);
        } else {
            t.recv(0, 5, b);
        }
        return inner.clock();
    });
    const vtime start = 99'990 * us;
    BOOST_TEST(at[0] == start + 1 * ms + C + 8 * c);
    BOOST_TEST(at[1] == at[0] + h + wire(H + 8) + I + 8 * c + R);
}

BOOST_AUTO_TEST_CASE(golden_a_detour_inside_a_native_broadcast_delays_the_subtree_below_it) {
    // 8 nodes; the root computes 100 ms and broadcasts 64 bytes; every other rank waits in the
    // broadcast from the start. The root serves node 4 first (the farthest subtree: 4 forwards to
    // 6 and 5, 6 to 7), and node 4's detour of 100..101 ms holds its message's handler back.
    const auto finish = [](const comet::noise& n) {
        return run(ipsc860(3), [&](transport& inner) -> vtime {
            comet::noisy t(inner, n);
            std::vector<std::byte> b(64);
            if (t.rank() == 0) comet::ops::compute(t, comet::work::busy(0.1));
            comet::ops::broadcast(t, 0, b);
            return inner.clock();
        });
    };
    const auto quiet = finish({}), noisy = finish(every_100ms_on(4));
    // Node 4 receives (handler I + 64c, resume R) and forwards twice (C + 64c each; eager, so
    // the sends return at once).
    const vtime forward = I + 64 * c + R + 2 * (C + 64 * c);
    BOOST_TEST(quiet[4] == 100 * ms + C + 64 * c + h + wire(H + 64) + forward);
    BOOST_TEST(noisy[4] == 101 * ms + forward);
    const vtime delay = noisy[4] - quiet[4];
    BOOST_TEST(delay > 900 * us);
    for (int r : {0, 1, 2, 3}) BOOST_TEST(noisy[static_cast<std::size_t>(r)] == quiet[static_cast<std::size_t>(r)], "rank " << r);
    for (int r : {5, 6, 7})
        BOOST_TEST(noisy[static_cast<std::size_t>(r)] - quiet[static_cast<std::size_t>(r)] == delay, "rank " << r);
}

BOOST_AUTO_TEST_CASE(the_counts_are_the_schedules_detours_and_each_takes_its_whole_length) {
    // Random detours of 1 ms, 5% of the time, on rank 1 computing 1 s: each one due before the
    // computation ends lengthens it by 1 ms (overlapping ones run one after the other).
    const comet::noise random = {{.ranks = {1}, .length = 1e-3, .share = 0.05, .seed = 17}};
    const auto at = run(ipsc860(1), [&](transport& inner) -> std::pair<vtime, comet::detour_counts> {
        comet::noisy t(inner, random);
        comet::ops::compute(t, comet::work::busy(1.0));
        return {inner.clock(), t.detours()};
    });
    const vtime end = at[1].first;
    comet::detour_schedule s(random, 1, 2, 0.0);
    std::uint64_t due = 0;
    while (from_seconds(s.next().start) <= end) ++due;
    BOOST_TEST(due > 30u);
    BOOST_TEST(at[1].second.count == due);
    BOOST_TEST(end == 1000 * ms + static_cast<vtime>(due) * ms);
    BOOST_TEST(at[1].second.seconds == to_seconds(static_cast<vtime>(due) * ms));
}

BOOST_AUTO_TEST_CASE(the_detours_stop_with_the_decorator) {
    const auto took = run(ipsc860(0), [](transport& inner) -> std::pair<vtime, vtime> {
        {
            comet::noisy t(inner, every_100ms_on(0));
            comet::ops::compute(t, comet::work::busy(0.5));  // detours at 0, 100, ..., 500 ms
        }
        const vtime mid = inner.clock();
        inner.compute(comet::work::busy(1.0));
        return {mid, inner.clock() - mid};
    });
    BOOST_TEST(took[0].first == 506 * ms);
    BOOST_TEST(took[0].second == 1000 * ms);  // no detour at 600 ms and after
}

BOOST_AUTO_TEST_CASE(identical_noisy_runs_give_identical_times_and_a_kernel_runs) {
    const auto once = [](const comet::noise& n) {
        run_statistics stats;
        auto r = run(
            ipsc860(3),
            [&](transport& inner) {
                comet::noisy t(inner, n);
                return std::pair{comet::kernels::echo(t, {.sizes = {0, 64, 2048}, .sampling = comet::fixed_sampling(2, 10)}),
                                 t.detours().count};
            },
            {.statistics = &stats});
        return std::tuple{r, stats.end_time, stats.events};
    };
    const auto a = once(some_noise(8)), b = once(some_noise(8)), quiet = once({});
    BOOST_TEST((a == b));  // bit for bit: records, counts, end time, events
    const auto& records = std::get<0>(a)[0].first;
    BOOST_TEST(records.size() == 9u);  // 3 sizes x hops 1, 2, 3
    BOOST_TEST(!(records == std::get<0>(quiet)[0].first));  // the noise changed the times
    BOOST_TEST(std::get<0>(a)[1].second > 0u);
    BOOST_TEST(std::get<1>(a) > std::get<1>(quiet));
}

BOOST_AUTO_TEST_CASE(a_run_ends_when_its_ranks_do_with_detours_pending) {
    // A schedule registered for good, a detour every 2 us on every node: the run still ends with
    // the last rank, and nothing is handled after it.
    run_statistics stats;
    const auto at = run(
        ipsc860(2),
        [](transport& inner) -> vtime {
            inner.add_detours([s = comet::detour_schedule({{.when = timing::periodic, .length = 1e-6, .share = 0.5}},
                                                          inner.rank(), inner.size(), inner.now())]() mutable { return s.next(); });
            inner.compute(comet::work::busy(1e-3 * (inner.rank() + 1)));
            return inner.clock();
        },
        {.statistics = &stats});
    BOOST_TEST(at[3] > 7 * ms);  // 4 ms of work, about as much again of detours
    BOOST_TEST(stats.end_time == at[3]);
}

BOOST_AUTO_TEST_CASE(a_deadlock_under_noise_is_reported) {
    // Both ranks wait for each other.
    BOOST_CHECK_EXCEPTION(run(ipsc860(1),
                              [](transport& inner) {
                                  comet::noisy t(inner, some_noise(2));
                                  std::vector<std::byte> b(8);
                                  t.recv(1 - t.rank(), 5, b);
                              }),
                          comet::deadlock_error,
                          [](const std::exception& e) { return mentions(e, {"rank 0 waits in recv", "rank 1 waits in recv"}); });
    // Rank 0 polls for what cannot come, its own detours lengthening some of its calls.
    BOOST_CHECK_EXCEPTION(run(ipsc860(1),
                              [](transport& inner) {
                                  comet::noisy t(inner, {{.when = timing::periodic, .length = 1e-3, .share = 0.1}});
                                  std::vector<std::byte> b(8);
                                  if (t.rank() == 1) t.recv(0, 5, b);
                                  while (!t.iprobe(1, 5)) {
                                  }
                              }),
                          comet::deadlock_error, [](const std::exception& e) {
                              return mentions(e, {"rank 0 polls iprobe", "1000000 times in a row", "rank 1 waits in recv"});
                          });
}

BOOST_AUTO_TEST_SUITE_END()
