// The randomized differential test (test/support/differential.hpp) on the simulated iPSC/860,
// 2 to 64 nodes (each group on the smallest cube that holds it), with retransmission off (the
// iPSC/860's DCM waits for a busy channel) and on (a header that waits 20 us for a channel gives
// its circuit up and is sent again, so messages between one pair of nodes travel again out of
// the order they were sent in, and NX/2 must still deliver them in order). Every byte, source,
// tag, size and the per-(source, tag) order are checked; the simulator reports a deadlock
// instead of hanging, and the report names the seed and the steps the ranks were in.
//
// The CI run is bounded (a few hundred seeds per configuration; fewer under the sanitizers);
// bench/bench_differential runs thousands.
#include <comet/transport/nx2.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/differential.hpp"

#include <bit>
#include <string>
#include <vector>

namespace nx2_differential {

namespace diff = comet_test::differential;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr std::uint64_t seeds = 40;
#else
constexpr std::uint64_t seeds = 300;
#endif

/// Runs `count` seeds on 2-64 simulated nodes; reports each failure (seed, step, what differed,
/// the program's step) and stops after three. Adds the run's retransmissions to `retransmitted`.
diff::tally run_seeds(std::uint64_t first, std::uint64_t count, bool retry, std::uint64_t& retransmitted) {
    const diff::features f = diff::features_of<comet::nx2::transport>();
    const diff::tally tally = diff::run_seeds(
        first, count,
        [&](std::uint64_t seed) {
            const diff::program prog = diff::generate(seed, diff::ranks_for(seed, 2, 64), f);
            auto e = diff::run_one(prog, [&](const diff::program& p, std::vector<std::atomic<int>>& where) {
                comet::nx2::machine m = comet::nx2::ipsc860(std::bit_width(static_cast<unsigned>(p.ranks - 1)));
                if (retry) m.retry_timeout = 20 * comet::nx2::microseconds;
                comet::nx2::run_statistics stats;
                comet::nx2::run(
                    m, [&](comet::nx2::transport& t) { diff::run_program(t, p, {}, &where[static_cast<std::size_t>(t.rank())]); },
                    {.ranks = p.ranks, .statistics = &stats});
                retransmitted += stats.total().retransmissions;
            });
            if (e)
                BOOST_ERROR("seed " << seed << " (" << prog.ranks << " nodes, retransmission " << (retry ? "on" : "off")
                                    << ") failed: " << *e);
            return e;
        },
        3);
    BOOST_TEST_MESSAGE(tally.seeds << " seeds, " << tally.failures << " failures, " << retransmitted << " retransmissions");
    return tally;
}

}  // namespace nx2_differential

BOOST_AUTO_TEST_SUITE(differential)

using namespace nx2_differential;

BOOST_AUTO_TEST_CASE(nx2_2_to_64_nodes_retransmission_off) {
    std::uint64_t retransmitted = 0;
    const diff::tally t = run_seeds(0, seeds, false, retransmitted);
    BOOST_TEST(t.seeds == seeds);
    BOOST_TEST(t.failures == 0u);
    BOOST_TEST(retransmitted == 0u);
}

BOOST_AUTO_TEST_CASE(nx2_2_to_64_nodes_retransmission_on) {
    std::uint64_t retransmitted = 0;
    const diff::tally t = run_seeds(0, seeds, true, retransmitted);
    BOOST_TEST(t.seeds == seeds);
    BOOST_TEST(t.failures == 0u);
    // The programs congest the network enough that headers give up and go again: the
    // configuration tests what it says it tests.
    BOOST_TEST(retransmitted > 0u);
}

BOOST_AUTO_TEST_SUITE_END()
