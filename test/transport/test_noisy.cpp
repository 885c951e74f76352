// Tests of comet/transport/decorators/noisy.hpp: the detour schedule (a function of seed, rank
// and source; random gaps of the stated mean; exact periods; phases per rank or aligned; sources
// merged in time order), the refusals (naming the rank, the source, the field and the value),
// the model at call boundaries with exact times on an inner transport whose clock the test
// drives, forwarding that keeps comet::ops' choices, and the decorator on real threads: the
// conformance suite with noise on, a computation lengthened by its detours, every byte of an
// echo delivered. (On the simulator: test/nx2/test_detours.cpp.)
#include <comet/kernels/echo.hpp>
#include <comet/testing/conformance.hpp>
#include <comet/transport/decorators/noisy.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>
#include <vector>

namespace noisy_test {

using threads_t = comet::threads::transport;
using timing = comet::detour_source::timing;

/// Noise on every rank at random, and more on rank 1 (if there is one) every 4 ms.
inline comet::noise some_noise(int ranks) {
    comet::noise n = {{.length = 20e-6, .share = 0.02, .seed = 5}};
    if (ranks > 1) n.push_back({.when = timing::periodic, .ranks = {1}, .length = 200e-6, .share = 0.05});
    return n;
}

struct runner {
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = true;
    template <class F>
    void operator()(int ranks, F&& body) const {
        comet::threads::run(ranks, [&](threads_t& inner) {
            comet::noisy t(inner, some_noise(ranks));
            body(t);
        });
    }
};

/// An inner transport whose clock the test drives: `recv` waits `wait_inside` seconds for its
/// message, `compute` takes exactly the busy seconds it is given (and records them).
struct manual {
    using request = int;
    int rank_ = 1, size_ = 2;
    double clock = 0.0;
    double wait_inside = 0.0;
    std::vector<double> computed;
    int rank() const { return rank_; }
    int size() const { return size_; }
    request isend(int, int, comet::const_bytes) { return 0; }
    request irecv(int, int, comet::mutable_bytes) { return 0; }
    std::optional<comet::status> test(request&) { return comet::status{}; }
    std::optional<comet::status> iprobe(int, int) { return std::nullopt; }
    double now() { return clock; }
    comet::status recv(int, int, comet::mutable_bytes) {
        clock += std::exchange(wait_inside, 0.0);
        return {};
    }
    void compute(const comet::work& w) {
        computed.push_back(w.seconds);
        clock += w.seconds;
    }
};

/// Only the core: every other operation is comet::ops' portable one.
struct core_only {
    using request = int;
    int rank() const { return 0; }
    int size() const { return 1; }
    request isend(int, int, comet::const_bytes) { return 0; }
    request irecv(int, int, comet::mutable_bytes) { return 0; }
    std::optional<comet::status> test(request&) { return comet::status{}; }
    std::optional<comet::status> iprobe(int, int) { return std::nullopt; }
    double now() { return 0.0; }
};

/// Whether comet::ops picks the same implementation of every operation for A as for B.
template <class A, class B>
constexpr bool same_implementations() {
    namespace ops = comet::ops;
    return ops::send.implementation_for<A>() == ops::send.implementation_for<B>() &&
           ops::recv.implementation_for<A>() == ops::recv.implementation_for<B>() &&
           ops::wait.implementation_for<A>() == ops::wait.implementation_for<B>() &&
           ops::wait_all.implementation_for<A>() == ops::wait_all.implementation_for<B>() &&
           ops::barrier.implementation_for<A>() == ops::barrier.implementation_for<B>() &&
           ops::broadcast.implementation_for<A>() == ops::broadcast.implementation_for<B>() &&
           ops::allreduce_sum.implementation_for<A>() == ops::allreduce_sum.implementation_for<B>() &&
           ops::allreduce_max.implementation_for<A>() == ops::allreduce_max.implementation_for<B>() &&
           ops::allreduce_min.implementation_for<A>() == ops::allreduce_min.implementation_for<B>() &&
           ops::reduce_sum.implementation_for<A>() == ops::reduce_sum.implementation_for<B>() &&
           ops::gather.implementation_for<A>() == ops::gather.implementation_for<B>() &&
           ops::alltoall.implementation_for<A>() == ops::alltoall.implementation_for<B>() &&
           ops::compute.implementation_for<A>() == ops::compute.implementation_for<B>() &&
           ops::clock_is_global.implementation_for<A>() == ops::clock_is_global.implementation_for<B>() &&
           comet::capabilities_of<A>() == comet::capabilities_of<B>();
}

template <class T>
concept has_retransmissions = requires(const T& t) { t.retransmissions(); };

/// The first `n` detours of `s`.
inline std::vector<comet::detour> first(comet::detour_schedule s, std::size_t n) {
    std::vector<comet::detour> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(s.next());
    return out;
}

}  // namespace noisy_test

COMET_TRANSPORT_CONFORMANCE(noisy_conforms, noisy_test::runner{})

BOOST_AUTO_TEST_SUITE(noisy)

using namespace noisy_test;
using comet::detour_schedule;
using comet_test::mentions;

BOOST_AUTO_TEST_CASE(a_schedule_is_a_function_of_seed_rank_and_source) {
    const comet::noise random = {{.length = 1e-3, .share = 0.05, .seed = 9}};
    const auto a = first(detour_schedule(random, 2, 4, 0.0), 1000);
    BOOST_TEST((a == first(detour_schedule(random, 2, 4, 0.0), 1000)));  // the same seed, the same detours
    BOOST_TEST(!(a == first(detour_schedule(random, 3, 4, 0.0), 1000)));  // another rank
    BOOST_TEST(!(a == first(detour_schedule({{.length = 1e-3, .share = 0.05, .seed = 10}}, 2, 4, 0.0), 1000)));
    // The same source as source 1 (source 0 acts on another rank only): other detours.
    const comet::noise second = {{.ranks = {0}, .length = 1e-3, .share = 0.05}, random[0]};
    BOOST_TEST(!(a == first(detour_schedule(second, 2, 4, 0.0), 1000)));
    // Times count from the origin.
    const auto later = first(detour_schedule(random, 2, 4, 100.0), 3);
    BOOST_TEST(later[0].start == 100.0 + a[0].start);
    // A periodic phase involves no library function: pinned bit for bit (a seeded share of the
    // 100 ms period).
    const comet::noise periodic = {{.when = timing::periodic, .length = 1e-3, .share = 0.01, .seed = 42}};
    BOOST_TEST(detour_schedule(periodic, 0, 8, 0.0).peek().start == 0x1.3568431481609p-4);
    BOOST_TEST(detour_schedule(periodic, 3, 8, 0.0).peek().start == 0x1.19011c28f79a7p-7);
    // A rank no source acts on has no detours.
    const detour_schedule none({{.ranks = {1}, .length = 1e-3, .share = 0.05}}, 0, 4, 0.0);
    BOOST_TEST(none.empty());
    BOOST_TEST(std::isinf(none.peek().start));
}

BOOST_AUTO_TEST_CASE(random_gaps_average_length_over_share) {
    // Exponential gaps of mean 1 ms / 0.04 = 25 ms: over 10^5 the mean is within 0.32% (one
    // standard error) of it, so 2% is far beyond chance.
    detour_schedule s({{.length = 1e-3, .share = 0.04, .seed = 3}}, 5, 8, 10.0);
    double last = 10.0, smallest = 1.0, largest = 0.0;
    int out_of_order = 0, other_length = 0;
    const int n = 100'000;
    for (int i = 0; i < n; ++i) {
        const comet::detour d = s.next();
        out_of_order += d.start < last ? 1 : 0;
        other_length += d.length != 1e-3 ? 1 : 0;
        smallest = std::min(smallest, d.start - last);
        largest = std::max(largest, d.start - last);
        last = d.start;
    }
    BOOST_TEST(out_of_order == 0);
    BOOST_TEST(other_length == 0);
    const double mean = (last - 10.0) / n;
    BOOST_TEST(mean == 0.025, boost::test_tools::tolerance(0.02));
    BOOST_TEST(smallest < 0.001);  // exponential: short gaps happen
    BOOST_TEST(largest > 0.2);     // and long ones
}

BOOST_AUTO_TEST_CASE(periodic_detours_come_every_period_with_a_phase_per_rank_unless_aligned) {
    const double period = 2e-3 / 0.1;
    std::set<double> phases;
    for (int r = 0; r < 16; ++r) {
        detour_schedule s({{.when = timing::periodic, .length = 2e-3, .share = 0.1, .seed = 8}}, r, 16, 3.0);
        const comet::detour d0 = s.next();
        BOOST_TEST(d0.start >= 3.0);
        BOOST_TEST(d0.start < 3.0 + period);
        phases.insert(d0.start);
        int off = 0;
        for (int k = 1; k < 1000; ++k) off += s.next().start == d0.start + k * period ? 0 : 1;  // exactly
        BOOST_TEST(off == 0, "rank " << r);
    }
    BOOST_TEST(phases.size() == 16u);  // every rank its own phase
    // Aligned: the multiples of the period on the inner clock, the same for every rank, whenever
    // each made its decorator.
    for (int r = 0; r < 16; ++r) {
        detour_schedule s({{.when = timing::periodic, .length = 1e-3, .share = 0.25, .aligned = true}}, r, 16,
                          0.0101 + r * 1e-4);
        BOOST_TEST(s.next().start == 0.012);
        BOOST_TEST(s.next().start == 0.016);
    }
}

BOOST_AUTO_TEST_CASE(sources_merge_in_time_order) {
    const comet::detour_source periodic{.when = timing::periodic, .length = 1e-3, .share = 0.1, .seed = 4};
    const comet::detour_source random{.length = 3e-4, .share = 0.05, .seed = 4};
    const auto merged = first(detour_schedule({periodic, random}, 1, 2, 0.0), 2000);
    // Each source alone, at the same index (a source on rank 0 only holds index 0 for the second).
    const auto a = first(detour_schedule({periodic}, 1, 2, 0.0), 2000);
    const auto b = first(detour_schedule({{.ranks = {0}, .length = 1e-3, .share = 0.1}, random}, 1, 2, 0.0), 2000);
    std::vector<comet::detour> expected;
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(expected),
               [](const comet::detour& x, const comet::detour& y) { return x.start < y.start; });
    expected.resize(merged.size());
    BOOST_TEST((merged == expected));
    std::size_t shorter = 0;
    for (const auto& d : merged) shorter += d.length == 3e-4 ? 1 : 0;
    BOOST_TEST(shorter > 500u);  // both sources are in it
    BOOST_TEST(shorter < 1500u);
}

BOOST_AUTO_TEST_CASE(bad_sources_are_refused_naming_rank_source_field_and_value) {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    const comet::detour_source fine{.length = 1e-3, .share = 0.1};
    struct bad {
        comet::noise sources;
        std::vector<const char*> words;
    };
    const std::vector<bad> cases = {
        {{{.length = 0.0, .share = 0.1}}, {"source 0", "length 0 s"}},
        {{fine, {.length = -1e-3, .share = 0.1}}, {"source 1", "length -0.001 s"}},
        {{{.length = nan, .share = 0.1}}, {"source 0", "length", "nan"}},
        {{{.length = inf, .share = 0.1}}, {"source 0", "length inf"}},
        {{{.length = 1e-10, .share = 0.1}}, {"source 0", "length 1e-10 s"}},
        {{{.length = 1e-3, .share = 0.0}}, {"source 0", "share 0 is outside (0, 0.5]"}},
        {{fine, fine, {.length = 1e-3, .share = 0.6}}, {"source 2", "share 0.6"}},
        {{{.length = 1e-3, .share = nan}}, {"source 0", "share", "nan"}},
        {{{.length = 1e-3, .share = 0.1, .aligned = true}}, {"source 0", "aligned", "random"}},
        {{{.ranks = {0, 4}, .length = 1e-3, .share = 0.1}}, {"source 0", "ranks[1] = 4", "outside 0..3"}},
        {{fine, {.ranks = {-1}, .length = 1e-3, .share = 0.1}}, {"source 1", "ranks[0] = -1"}},
        {{{.length = 1e-3, .share = 0.5}, {.ranks = {2}, .length = 1e-3, .share = 0.5}}, {"shares adding up to 1"}},
    };
    manual inner;
    inner.rank_ = 2;
    inner.size_ = 4;
    for (const bad& b : cases)
        BOOST_CHECK_EXCEPTION(comet::noisy(inner, b.sources), comet::invalid_argument, [&](const std::exception& e) {
            if (!mentions(e, {"rank 2: noisy: "})) return false;
            for (const char* w : b.words)
                if (!mentions(e, {w})) return false;
            return true;
        });
    // Shares adding up to less than 1 on a rank are fine, and so is a share of 0.5 elsewhere.
    BOOST_CHECK_NO_THROW(comet::noisy(inner, {{.length = 1e-3, .share = 0.5}, {.ranks = {1}, .length = 1e-3, .share = 0.5}}));
}

BOOST_AUTO_TEST_CASE(forwards_everything_under_the_adaptors_constraints) {
    using noisy_threads = comet::noisy<threads_t>;
    static_assert(comet::transport<noisy_threads>);
    static_assert(same_implementations<noisy_threads, threads_t>());
    static_assert(same_implementations<comet::noisy<core_only>, core_only>());
    static_assert(same_implementations<comet::noisy<manual>, manual>());
    static_assert(comet::ops::compute.implementation_for<comet::noisy<manual>>() == comet::ops::implementation::native);
    static_assert(comet::thread_serialized_transport<noisy_threads>);
    static_assert(!has_retransmissions<noisy_threads>);
    manual inner;
    comet::noisy t(inner, {});
    inner.clock = 7.5;
    BOOST_TEST(t.now() == 7.5);  // no source: nothing happens
    BOOST_TEST(t.rank() == 1);
    BOOST_TEST(t.detours().count == 0u);
}

// The model at call boundaries, on a clock the test drives. Detours of 1 s every 4 s (share
// 0.25), aligned: at 4, 8, 12, ... (the decorator is made at 0.5).
BOOST_AUTO_TEST_CASE(detours_act_at_call_boundaries_exactly_as_the_model_says) {
    manual inner;
    inner.clock = 0.5;
    comet::noisy t(inner, {{.when = timing::periodic, .length = 1.0, .share = 0.25, .aligned = true}});
    std::byte b[8];
    // The rank's own code ran from 0.5 to 5: the detour at 4 made it 1 s longer.
    inner.clock = 5.0;
    BOOST_TEST(!t.iprobe(0, 1));
    BOOST_TEST(inner.clock == 6.0);
    // Its code ran to 11.5, through the detour at 8; catching up to 12.5 it meets the one at 12.
    inner.clock = 11.5;
    BOOST_TEST(!t.iprobe(0, 1));
    BOOST_TEST(inner.clock == 13.5);
    // Blocked in recv from 13.5 to 17.5: the detour at 16 ended at 17, before the message came.
    inner.wait_inside = 4.0;
    t.recv(0, 1, b);
    BOOST_TEST(inner.clock == 17.5);
    // Blocked to 20.5: the message came during the detour at 20, so the rank wakes at 21.
    inner.wait_inside = 3.0;
    t.recv(0, 1, b);
    BOOST_TEST(inner.clock == 21.0);
    // compute(6 s) from 21 ends at 27 with the detour at 24 in it, 28 with it, 29 with the one at 28.
    comet::ops::compute(t, comet::work::busy(6.0));
    BOOST_TEST(inner.clock == 29.0);
    // What was spent, through the inner compute: the detours' time, and the computation.
    BOOST_TEST((inner.computed == std::vector<double>{1.0, 2.0, 0.5, 6.0, 2.0}));
    BOOST_TEST(t.detours().count == 7u);  // at 4, 8, 12, 16, 20, 24, 28
    BOOST_TEST(t.detours().seconds == 7.0);
}

BOOST_AUTO_TEST_CASE(detours_during_a_wait_hold_the_cpu_one_after_the_other) {
    // Two sources with their detours at the same moments (4, 8, ...): the CPU runs them one after
    // the other, 4 to 5 and 5 to 6, so a rank whose message came at 4.5 runs again at 6.
    manual inner;
    inner.clock = 0.5;
    const comet::detour_source each{.when = timing::periodic, .length = 1.0, .share = 0.25, .aligned = true};
    comet::noisy t(inner, {each, each});
    std::byte b[8];
    inner.wait_inside = 4.0;
    t.recv(0, 1, b);
    BOOST_TEST(inner.clock == 6.0);
    BOOST_TEST(t.detours().count == 2u);
}

BOOST_AUTO_TEST_CASE(the_counts_are_the_schedules_detours_so_far) {
    const comet::noise random = {{.length = 1e-3, .share = 0.05, .seed = 21}};
    manual inner;
    comet::noisy t(inner, random);
    std::byte b[8];
    inner.wait_inside = 10.0;  // a long wait: every detour in it ends before the message comes
    t.recv(0, 1, b);
    BOOST_TEST(inner.clock >= 10.0);  // later only if the message came during a detour
    detour_schedule s(random, 1, 2, 0.0);
    std::uint64_t expected = 0;
    while (s.next().start <= inner.clock) ++expected;
    BOOST_TEST(expected > 400u);  // ~500 of them
    BOOST_TEST(t.detours().count == expected);
    BOOST_TEST(t.detours().seconds == static_cast<double>(expected) * 1e-3, boost::test_tools::tolerance(1e-12));
}

// On real threads, only what a loaded machine cannot upset: lower bounds of elapsed time and
// counts from the schedule.
BOOST_AUTO_TEST_CASE(on_threads_a_computation_takes_at_least_its_detours_longer) {
    std::vector<double> took(2), counted(2), seconds(2);
    comet::threads::run(2, [&](threads_t& inner) {
        comet::noisy t(inner, {{.when = timing::periodic, .ranks = {1}, .length = 2e-3, .share = 0.1}});
        const auto r = static_cast<std::size_t>(t.rank());
        const double t0 = t.now();
        const comet::detour_counts c0 = t.detours();
        comet::ops::compute(t, comet::work::busy(0.1));
        took[r] = t.now() - t0;
        counted[r] = static_cast<double>(t.detours().count - c0.count);
        seconds[r] = t.detours().seconds - c0.seconds;
    });
    // Any 0.1 s holds at least 5 starts of a 20 ms period, each 2 ms longer.
    BOOST_TEST(took[1] >= 0.1 + 5 * 2e-3);
    BOOST_TEST(counted[1] >= 5.0);
    BOOST_TEST(seconds[1] == counted[1] * 2e-3, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(took[0] >= 0.1);
    BOOST_TEST(counted[0] == 0.0);  // rank 0 has no noise
}

BOOST_AUTO_TEST_CASE(on_threads_an_echo_under_noise_delivers_every_byte) {
    // Results are checked after the run: Boost.Test's checks are not for several threads.
    std::vector<std::size_t> records(2), detours(2), wrong(2);
    comet::threads::run(2, [&](threads_t& inner) {
        comet::noisy t(inner, some_noise(2));
        const auto r = static_cast<std::size_t>(t.rank());
        // Messages of growing size each way, every byte checked.
        for (std::size_t n = 1; n <= 65536; n *= 4) {
            std::vector<std::byte> out(n), in(n);
            for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::byte>((i * 7 + n + r) & 0xff);
            const int peer = 1 - t.rank();
            auto sent = t.isend(peer, 3, out);
            wrong[r] += comet::ops::recv(t, peer, 3, in).size == n ? 0 : 1;
            comet::ops::wait(t, sent);
            for (std::size_t i = 0; i < n; ++i) wrong[r] += in[i] == static_cast<std::byte>((i * 7 + n + (1 - r)) & 0xff) ? 0 : 1;
        }
        // A kernel, checking its payloads.
        const comet::result_set res =
            comet::kernels::echo(t, {.sizes = {0, 64, 4096}, .sampling = comet::fixed_sampling(2, 5), .verify = true});
        records[r] = res.size();
        comet::ops::compute(t, comet::work::busy(0.01));  // 10 ms: at least two of rank 1's 4 ms period
        detours[r] = t.detours().count;
    });
    BOOST_TEST(wrong[0] == 0u);
    BOOST_TEST(wrong[1] == 0u);
    BOOST_TEST(records[0] == 3u);  // the test node's records
    BOOST_TEST(detours[1] >= 2u);
}

BOOST_AUTO_TEST_SUITE_END()
