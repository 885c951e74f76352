// Tests of comet/timing/sync.hpp and comet/timing/global_clock.hpp on the simulated iPSC/860, in
// virtual time: the seed's claim (Hoefler et al., figure 8: the O(log P) scheme synchronises
// 128 processes more than 16 times faster than the linear one) checked on 128 simulated nodes
// whose clocks are skewed by comet::skewed_clock; every rank within its own error bound; any
// group size; the simulator's own (global) clock exact at no virtual cost; the same run, the
// same bits.
//
// No golden virtual times here: they follow from the model's message costs, which
// test_nx2.cpp pins; what this file pins is what the schemes promise whatever those costs are.
#include <comet/timing/global_clock.hpp>
#include <comet/transport/decorators/skewed_clock.hpp>
#include <comet/transport/nx2.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace nx2_sync_test {

using comet::sync_scheme;

/// What a rank reports after a sync on the simulator.
struct outcome {
    double sync_time = 0.0;    ///< virtual seconds, as the sync measured it (the same on every rank)
    double exchanges = 0.0;
    int steps = 0;
    double error = 0.0;        ///< true error of this rank's global time right after the sync
    double bound = 0.0;        ///< the clock's own bound at that instant
    double finished = 0.0;     ///< virtual time (inner clock) when the sync returned
};

/// Syncs `ranks` nodes of an iPSC/860 cube, every clock skewed (seed 7: ±1 s, ±100 ppm).
inline std::vector<outcome> sync_on(int ranks, sync_scheme s) {
    const int dimension = static_cast<int>(std::ceil(std::log2(std::max(ranks, 1))));
    return comet::nx2::run(
        comet::nx2::ipsc860(dimension),
        [&](comet::nx2::transport& inner) {
            comet::skewed_clock t(inner, comet::seeded_skew(7, inner.rank()), 0.0);
            comet::skew_mapping zero = t.mapping();
            comet::ops::broadcast(inner, 0, std::as_writable_bytes(std::span(&zero, 1)));
            comet::global_clock g(t, {.scheme = s});
            const double local = t.now();
            return outcome{.sync_time = g.sync_time(),
                           .exchanges = static_cast<double>(g.exchanges()),
                           .steps = g.steps(),
                           .error = g.global_time(local) - zero.local_time(t.true_time(local)),
                           .bound = g.error_bound_at(local),
                           .finished = inner.now()};
        },
        {.ranks = ranks});
}

inline void check_agreement_and_bounds(const std::vector<outcome>& v) {
    for (std::size_t r = 0; r < v.size(); ++r) {
        BOOST_TEST_CONTEXT("rank " << r << " of " << v.size()) {
            BOOST_TEST(v[r].sync_time == v[0].sync_time);
            BOOST_TEST(v[r].exchanges == v[0].exchanges);
            BOOST_TEST(v[r].steps == v[0].steps);
            BOOST_TEST(std::fabs(v[r].error) <= v[r].bound + 1e-9, "true error " << v[r].error << " s, bound " << v[r].bound);
        }
    }
}

}  // namespace nx2_sync_test

BOOST_AUTO_TEST_SUITE(nx2_clock_sync)

using namespace nx2_sync_test;

BOOST_AUTO_TEST_CASE(log_p_syncs_128_nodes_at_least_10_times_faster_than_linear) {
    const auto linear = sync_on(128, sync_scheme::linear);
    const auto log_p = sync_on(128, sync_scheme::log_p);
    check_agreement_and_bounds(linear);
    check_agreement_and_bounds(log_p);
    BOOST_TEST(linear[0].steps == 127);
    BOOST_TEST(log_p[0].steps == 7);
    const double speedup = linear[0].sync_time / log_p[0].sync_time;
    BOOST_TEST_MESSAGE("128 simulated nodes: linear sync " << linear[0].sync_time * 1e3 << " ms, log_p sync "
                                                          << log_p[0].sync_time * 1e3 << " ms (virtual): " << speedup
                                                          << " times faster; " << linear[0].exchanges << " and "
                                                          << log_p[0].exchanges << " exchanges");
    BOOST_TEST(speedup >= 10.0);
    // Both did about the same work (one pair sync per rank but rank 0); the tree did it in parallel.
    BOOST_TEST(log_p[0].exchanges >= 127 * 103.0);
    BOOST_TEST(linear[0].exchanges >= 127 * 103.0);
    // The sync time is what the sync took: no rank finished later than that after it began
    // (nor much sooner: the opening barrier and the closing reductions are not counted).
    double last = 0.0;
    for (const outcome& o : log_p) last = std::max(last, o.finished);
    BOOST_TEST(last >= log_p[0].sync_time);
    BOOST_TEST(last <= log_p[0].sync_time + 0.05);
}

BOOST_AUTO_TEST_CASE(the_same_sync_gives_the_same_bits) {
    const auto a = sync_on(16, sync_scheme::log_p);
    const auto b = sync_on(16, sync_scheme::log_p);
    for (std::size_t r = 0; r < a.size(); ++r) {
        BOOST_TEST(a[r].sync_time == b[r].sync_time);
        BOOST_TEST(a[r].error == b[r].error);
        BOOST_TEST(a[r].exchanges == b[r].exchanges);
    }
}

BOOST_AUTO_TEST_CASE(any_group_size) {
    for (sync_scheme s : {sync_scheme::linear, sync_scheme::log_p})
        for (int p : {1, 3, 5, 6, 7, 100}) {
            BOOST_TEST_CONTEXT(comet::to_string(s) << ", P = " << p) {
                const auto v = sync_on(p, s);
                check_agreement_and_bounds(v);
                int log2p = 0;
                while ((1 << log2p) < p) ++log2p;
                BOOST_TEST(v[0].steps == (s == sync_scheme::linear ? p - 1 : log2p));
                BOOST_TEST(v[0].exchanges >= (p - 1) * 103.0);
            }
        }
}

BOOST_AUTO_TEST_CASE(the_simulators_own_clock_is_exact_and_costs_no_virtual_time) {
    const auto r = comet::nx2::run(comet::nx2::ipsc860(3), [](comet::nx2::transport& t) {
        const double before = t.now();
        comet::global_clock g(t);
        const double after = t.now();
        return std::vector<double>{after - before, g.now() - t.now(), g.estimated_error(), g.sync_time(),
                                   static_cast<double>(g.exchanges()), g.exact() ? 1.0 : 0.0};
    });
    for (const auto& x : r) BOOST_TEST(x == (std::vector<double>{0.0, 0.0, 0.0, 0.0, 0.0, 1.0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
