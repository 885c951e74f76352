// Tests of comet/kernels/clock_sync.hpp (the kernel `sync`): on the threads transport (a global
// clock, so the kernel skews it) the records, their params and where they land, P = 1, a
// transport whose clocks are not global (synchronised as they are: skew "none", no true error),
// the on_point hook; on the simulated iPSC/860 in virtual time the true error within the
// estimate, the schedules' step counts, the tree faster than the linear scheme at 16 nodes, and
// the same run giving the same bits; every bad input.
//
// No timing assertions on the threads transport (a shared machine); the simulator's times follow
// from its model (test/nx2/test_sync.cpp pins what the schemes promise whatever those are). The
// simulator's cases are built where it is (COMET_TEST_HAS_NX2: Boost.Context found).
#include <comet/kernels/clock_sync.hpp>
#include <comet/stats/compare.hpp>
#include <comet/stats/validity.hpp>
#include <comet/transport/decorators/skewed_clock.hpp>
#if COMET_TEST_HAS_NX2
#include <comet/transport/nx2.hpp>
#endif

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <stop_token>
#include <string>
#include <vector>

namespace clock_sync_test {

using comet::sync_scheme;
using comet::threads::run;
using comet::threads::transport;
using comet_test::mentions;

/// Three repetitions, and pairs that stop after 20 exchanges without a new least round trip
/// (the default 100 makes a sync of 5 oversubscribed threads ranks needlessly long).
/// The round-trip study the kernel runs after the syncs when asked (round_trips) is tested in
/// test_rtt.cpp and, as part of the kernel, in `the_round_trip_study_follows_the_syncs` below.
inline const comet::kernels::clock_sync_config quick{.repetitions = 3, .sync = {.patience = 20}};

/// ⌈log2 p⌉.
inline int ceil_log2(int p) {
    int k = 0;
    while ((1 << k) < p) ++k;
    return k;
}

/// The records of `quick`-like runs have these on any transport: two records per scheme, in
/// order (the slowest rank's time, then rank 0's), with every param, `samples` one per
/// repetition, finite and not negative, rank 0's never above the slowest rank's.
inline void check_records(const comet::result_set& r, const comet::kernels::clock_sync_config& cfg, int nodes,
                          bool skewed) {
    BOOST_REQUIRE_EQUAL(r.size(), 2 * cfg.schemes.size());
    for (std::size_t j = 0; j < r.size(); ++j) {
        const comet::record& rec = r.records[j];
        const sync_scheme s = cfg.schemes[j / 2];
        const std::string reduction = j % 2 == 0 ? "max_over_ranks" : "rank_0";
        if (j % 2 == 1)
            for (std::size_t k = 0; k < rec.samples.size(); ++k) BOOST_TEST(rec.samples[k] <= r.records[j - 1].samples[k]);
        BOOST_TEST_CONTEXT(comet::to_string(s) << ", " << reduction << ", P = " << nodes) {
            BOOST_TEST(rec.kernel == "sync");
            BOOST_TEST(*rec.params.text("scheme") == std::string(comet::to_string(s)));
            BOOST_TEST(*rec.params.integer("nodes") == nodes);
            BOOST_TEST(*rec.params.text("skew") == (skewed ? "decorator" : "none"));
            BOOST_TEST(*rec.params.integer("steps") == (s == sync_scheme::linear ? nodes - 1 : ceil_log2(nodes)));
            // Every pair makes at least warmup + patience + 1 exchanges (the first kept one, then
            // `patience` without a new least round trip).
            const auto pairs = static_cast<std::int64_t>(nodes - 1);
            const auto least = static_cast<std::int64_t>(cfg.sync.warmup + cfg.sync.patience + 1);
            BOOST_TEST(*rec.values.integer("exchanges") >= pairs * least);
            BOOST_TEST_REQUIRE(rec.values.contains("estimated_error"));
            BOOST_TEST(!rec.values.integer("estimated_error").has_value());  // a time: a real number
            const double estimated = *rec.values.number("estimated_error");
            BOOST_TEST((std::isfinite(estimated) && estimated >= 0.0));
            if (nodes == 1) BOOST_TEST(estimated == 0.0);
            BOOST_TEST(rec.values.contains("true_error") == skewed);
            if (skewed) {
                const double truth = *rec.values.number("true_error");
                BOOST_TEST((std::isfinite(truth) && truth >= 0.0));
            }
            BOOST_TEST(*rec.params.text("reduction") == reduction);
            BOOST_TEST(*rec.params.integer("patience") == static_cast<std::int64_t>(cfg.sync.patience));
            BOOST_TEST(*rec.values.text("order") == "round_robin");
            // The point: scheme, nodes, skew, steps, patience, reduction; what was measured
            // there: exchanges, estimated_error, true_error (skewed), order.
            BOOST_TEST(rec.params.size() == 6u);
            BOOST_TEST(rec.values.size() == (skewed ? 4u : 3u));
            BOOST_TEST(comet::point_name(rec) == "sync/scheme:" + std::string(comet::to_string(s)) + "/nodes:" + std::to_string(nodes) +
                                                     "/skew:" + (skewed ? "decorator" : "none") + "/steps:" +
                                                     std::to_string(*rec.params.integer("steps")) + "/patience:" +
                                                     std::to_string(cfg.sync.patience) + "/reduction:" + reduction);
            // A sync during which a rank lost its CPU (the threads transport counts it) is kept,
            // marked, and out of every statistic.
            // One whose every sync was (on a loaded machine) is flagged as a whole, and says so.
            for (const auto& x : rec.invalid) BOOST_TEST(x.why == "preempted");
            BOOST_TEST(rec.dropped.empty());
            if (comet::valid_count(rec) > 0) {
                BOOST_TEST(rec.flags.empty());
            } else {
                BOOST_TEST_REQUIRE(rec.flags.size() == 1u);
                BOOST_TEST(rec.flags[0].what == "point");
            }
            BOOST_TEST(rec.samples.size() == cfg.repetitions);
            for (double x : rec.samples) BOOST_TEST((std::isfinite(x) && x >= 0.0 && x < 60.0), "sample " << x);
            BOOST_TEST(rec.overheads.empty());
            BOOST_TEST(rec.iterations == 1u);
            BOOST_TEST(rec.stop == "fixed");
        }
    }
}

/// Runs `f` (returning an exit code) in a child process and returns its wait status: a crash
/// there is a status to test, not the end of the test program.
template <class F>
int in_child(F&& f) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        // The test framework's handlers would catch a crash and go on with the next test case
        // in this process: a crash must end it.
        for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, SIG_DFL);
        int code = 2;
        try {
            code = f();
        } catch (...) {
            code = 2;
        }
        std::_Exit(code);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
}

#if COMET_TEST_HAS_NX2
/// The kernel on `nodes` ranks of an iPSC/860 cube (the smallest that holds them).
inline std::vector<comet::result_set> on_ipsc(int nodes, const comet::kernels::clock_sync_config& cfg) {
    return comet::nx2::run(comet::nx2::ipsc860(ceil_log2(nodes)),
                           [&](comet::nx2::transport& t) { return comet::kernels::clock_sync(t, cfg); }, {.ranks = nodes});
}
#endif

}  // namespace clock_sync_test

BOOST_AUTO_TEST_SUITE(clock_sync)

using namespace clock_sync_test;

BOOST_AUTO_TEST_CASE(threads_records_every_scheme_on_the_test_node) {
    for (int nodes : {2, 5}) {
        BOOST_TEST_CONTEXT("nodes " << nodes) {
            auto cfg = quick;
            cfg.test_node = nodes - 1;
            const auto r = run(nodes, [&](transport& t) { return comet::kernels::clock_sync(t, cfg); });
            // The threads transport's clock is global: the kernel skewed it, and knows the truth.
            check_records(r[static_cast<std::size_t>(nodes - 1)], cfg, nodes, true);
            for (int rank = 0; rank < nodes - 1; ++rank) BOOST_TEST(r[static_cast<std::size_t>(rank)].empty());
        }
    }
}

BOOST_AUTO_TEST_CASE(one_rank_syncs_in_no_step) {
    // One rank: no round trip to measure, whatever round_trips says.
    auto cfg = quick;
    cfg.round_trips = true;
    const auto r = run(1, [&](transport& t) { return comet::kernels::clock_sync(t, cfg); });
    BOOST_REQUIRE_EQUAL(r[0].size(), 4u);
    for (const auto& rec : r[0].records) {
        BOOST_TEST(*rec.params.integer("steps") == 0);
        BOOST_TEST(*rec.values.integer("exchanges") == 0);
        BOOST_TEST(*rec.values.number("estimated_error") == 0.0);
        // Zero but for the rounding of rank 0's mapping to true time and back (5.6e-17 s once).
        BOOST_TEST(*rec.values.number("true_error") <= 1e-12);
        BOOST_TEST(rec.samples.size() == 3u);
    }
}

BOOST_AUTO_TEST_CASE(clocks_that_are_not_global_are_synchronised_as_they_are) {
    // A transport whose clocks differ (as MPI's usually do): here the threads transport under a
    // skewed clock the test made. The kernel syncs those clocks, adds no skew, and cannot know
    // the true error.
    auto cfg = quick;
    cfg.schemes = {sync_scheme::log_p, sync_scheme::linear};
    const auto r = run(3, [&](transport& inner) {
        comet::skewed_clock t(inner, comet::seeded_skew(7, inner.rank()));
        return comet::kernels::clock_sync(t, cfg);
    });
    check_records(r[0], cfg, 3, false);
    BOOST_TEST(r[1].empty());
    BOOST_TEST(r[2].empty());
}

BOOST_AUTO_TEST_CASE(on_point_sees_each_record_on_the_test_node) {
    std::vector<std::string> seen;  // written by the test node's thread only
    auto cfg = quick;
    cfg.repetitions = 1;
    cfg.test_node = 1;
    cfg.on_point = [&](const comet::record& rec) { seen.push_back(rec.kernel + ":" + *rec.params.text("scheme")); };
    run(3, [&](transport& t) { comet::kernels::clock_sync(t, cfg); });
    BOOST_TEST(seen == (std::vector<std::string>{"sync:linear", "sync:linear", "sync:log_p", "sync:log_p"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_round_trip_study_follows_the_syncs) {
    // With round_trips (the default) the kernel measures listing 4's round trips after the
    // syncs, from the test node (here the last rank) to the first three others: their records
    // (kernel "rtt", test_rtt.cpp) follow the syncs' on the test node.
    auto cfg = quick;
    cfg.repetitions = 1;
    cfg.round_trips = true;
    cfg.rtt = {.measurements = 50, .patience = {1, 10}, .trials = 20};
    cfg.test_node = 4;
    const auto r = run(5, [&](transport& t) { return comet::kernels::clock_sync(t, cfg); });
    for (int rank = 0; rank < 4; ++rank) BOOST_TEST(r[static_cast<std::size_t>(rank)].empty());
    const comet::result_set& mine = r[4];
    BOOST_TEST_REQUIRE(mine.size() > 4u);
    for (std::size_t i = 0; i < 4; ++i) BOOST_TEST(mine.records[i].kernel == "sync");
    std::vector<std::int64_t> partners;
    for (std::size_t i = 4; i < mine.size(); ++i) {
        BOOST_TEST(mine.records[i].kernel == "rtt");
        if (mine.records[i].params.text("study") == "latency") partners.push_back(*mine.records[i].params.integer("partner"));
    }
    BOOST_TEST(partners == (std::vector<std::int64_t>{0, 1, 2}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_stop_request_ends_the_kernel_before_the_next_repetition) {
    // Requested before the kernel starts: the test node's answer reaches every rank before the
    // first repetition, so no sync is timed, on any rank; each scheme's record keeps the syncs
    // it timed (none) and says why it has fewer than asked for, as every kernel's do. Run in a
    // child process, so that a crash fails this case and not the whole test program.
    const int status = in_child([] {
        std::stop_source source;
        source.request_stop();
        auto cfg = quick;
        cfg.stop = source.get_token();
        const auto r = run(3, [&](transport& t) { return comet::kernels::clock_sync(t, cfg); });
        if (r[0].size() != 2 * cfg.schemes.size() || !r[1].empty() || !r[2].empty()) return 3;
        for (const auto& rec : r[0].records) {
            if (!rec.samples.empty()) return 4;
            if (rec.stop != "interrupted") return 5;
        }
        return 0;
    });
    if (WIFSIGNALED(status)) {
        BOOST_ERROR("the kernel crashed with signal " << WTERMSIG(status));
        return;
    }
    BOOST_TEST(WIFEXITED(status));
    const int code = WEXITSTATUS(status);
    BOOST_TEST(code != 3, "not one record per scheme on the test node, and none elsewhere");
    BOOST_TEST(code != 4, "a record has samples: a sync was timed after the stop");
    BOOST_TEST(code != 5, "a record that has fewer syncs than asked for does not say \"interrupted\"");
    BOOST_TEST((code == 0 || code == 3 || code == 4 || code == 5), "the child ended with " << code);
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(ipsc860_true_error_within_the_estimate_and_steps_by_scheme) {
    for (int nodes : {8, 16}) {
        BOOST_TEST_CONTEXT("nodes " << nodes) {
            auto cfg = quick;
            cfg.repetitions = 2;
            cfg.sync = {};  // the seed's N = 100: virtual time costs the host little
            const auto r = on_ipsc(nodes, cfg);
            check_records(r[0], cfg, nodes, true);
            for (std::size_t rank = 1; rank < r.size(); ++rank) BOOST_TEST(r[rank].empty());
            for (const auto& rec : r[0].records) {
                BOOST_TEST_CONTEXT(*rec.params.text("scheme")) {
                    // Virtual time: round trips are exactly symmetric, so the offsets are off only
                    // by the clocks' drift during an exchange, well within half a round trip.
                    const double truth = *rec.values.number("true_error");
                    const double estimated = *rec.values.number("estimated_error");
                    BOOST_TEST(truth <= estimated, "true error " << truth << " s, estimated " << estimated << " s");
                    BOOST_TEST(estimated > 0.0);
                    for (double x : rec.samples) BOOST_TEST(x > 0.0);
                }
            }
            if (nodes == 16) {
                const double linear = comet::summarize(r[0].records[0].samples).median;
                const double log_p = comet::summarize(r[0].records[2].samples).median;
                BOOST_TEST_MESSAGE("16 simulated nodes: linear " << linear * 1e3 << " ms, log_p " << log_p * 1e3
                                                                  << " ms (virtual)");
                // 15 steps against 4, each about one pair's sync.
                BOOST_TEST(log_p < linear);
                BOOST_TEST(linear / log_p > 2.0);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(ipsc860_the_same_run_gives_the_same_bits) {
    auto cfg = quick;
    cfg.repetitions = 2;
    const auto a = on_ipsc(8, cfg);
    const auto b = on_ipsc(8, cfg);
    BOOST_TEST((a[0] == b[0]));
    // Another seed skews the clocks otherwise: the same schedule, other offsets to find.
    cfg.seed = 43;
    const auto c = on_ipsc(8, cfg);
    BOOST_TEST(*c[0].records[0].params.integer("steps") == 7);
    BOOST_TEST(*c[0].records[2].params.integer("steps") == 3);
}
#endif

BOOST_AUTO_TEST_CASE(bad_inputs_name_the_value_and_rank) {
    const auto fails_with = [](int nodes, const comet::kernels::clock_sync_config& cfg,
                               std::initializer_list<const char*> words) {
        BOOST_CHECK_EXCEPTION(run(nodes, [&](transport& t) { comet::kernels::clock_sync(t, cfg); }), comet::invalid_argument,
                              [&](const auto& e) { return mentions(e, words); });
    };
    auto cfg = quick;
    cfg.schemes = {};
    fails_with(2, cfg, {"rank 0", "sync: no scheme to time (schemes is empty)"});
    cfg.schemes = {sync_scheme::log_p, sync_scheme::none};
    fails_with(2, cfg, {"rank 0", "sync: scheme none is not a synchronisation scheme"});
    cfg = quick;
    cfg.repetitions = 0;
    fails_with(3, cfg, {"rank 0", "sync: repetitions must be at least 1, got 0"});
    cfg = quick;
    cfg.test_node = 4;
    fails_with(4, cfg, {"rank 0", "sync: test node 4 is outside 0..3"});
    cfg.test_node = -1;
    fails_with(2, cfg, {"sync: test node -1 is outside 0..1"});
    cfg = quick;
    cfg.sync.patience = 0;
    fails_with(2, cfg, {"rank 0", "sync_clocks: patience (N) must be at least 1, got 0"});
    cfg = quick;
    cfg.sync.max_exchanges = 2;
    fails_with(2, cfg, {"sync_clocks: max_exchanges 2 leaves no exchange after the 2 of warm-up"});
    cfg = quick;
    cfg.skew.max_offset = -1.0;
    fails_with(2, cfg, {"rank 0", "seeded_skew: max_offset -1 s must be finite and at least 0"});
    cfg = quick;
    cfg.round_trips = true;
    cfg.rtt.measurements = 3;
    fails_with(2, cfg, {"rank 0", "sync: round-trip measurements = 3; at least 8 are needed for a drift"});
}

BOOST_AUTO_TEST_SUITE_END()
