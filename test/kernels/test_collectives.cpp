// Tests of comet/kernels/collectives.hpp on the threads transport: the records broadcast,
// global_sum and barrier return at several group sizes, that every rank makes the number of
// collective calls the sampling engine's rule gives and receives its decisions (counted by a
// decorator), the on_point hook, and every bad input; on the simulated iPSC/860 (virtual time,
// every sample alike), the broadcast without its closing barrier from paired samples, and its
// flag where the pairs cannot tell the broadcast from the barrier (built where the simulator is:
// COMET_TEST_HAS_NX2, Boost.Context found); and those figures flagged where their samples
// disagree.
#include <comet/kernels/collectives.hpp>
#if COMET_TEST_HAS_NX2
#include <comet/transport/nx2.hpp>
#endif

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace collectives_test {

using comet::threads::run;
using comet::threads::transport;
using comet_test::mentions;
using counting = kernel_counting::counting_transport<transport>;

inline const comet::kernels::broadcast_config quick_broadcast{.sizes = {0, 8, 100, 5000}, .sampling = comet::fixed_sampling(2, 20)};
inline const comet::kernels::global_sum_config quick_sum{.vector_lengths = {0, 1, 13, 1000}, .sampling = comet::fixed_sampling(2, 20)};
inline const comet::kernels::barrier_config quick_barrier{.sampling = comet::fixed_sampling(4, 20)};

/// Samples a timing may give: finite and not absurd (no timing assertions on a shared machine).
inline bool plausible(const std::vector<double>& samples) {
    for (double s : samples)
        if (!std::isfinite(s) || s < -1e-3 || s > 10.0) return false;
    return true;
}

struct outcome {
    comet::result_set records;
    kernel_counting::counts counts;
};

}  // namespace collectives_test

BOOST_AUTO_TEST_SUITE(collectives)

using namespace collectives_test;

BOOST_AUTO_TEST_CASE(broadcast_records_every_size_at_several_group_sizes) {
    for (int nodes : {1, 2, 4, 8}) {
        BOOST_TEST_CONTEXT("nodes " << nodes) {
            const auto r = run(nodes, [](transport& t) {
                counting c(t);
                return outcome{comet::kernels::broadcast(c, quick_broadcast), c.c};
            });
            const auto& records = r[0].records.records;
            BOOST_REQUIRE_EQUAL(records.size(), 4u);
            std::size_t i = 0;
            for (std::int64_t size : {0, 8, 100, 5000}) {
                const auto& rec = records[i++];
                BOOST_TEST(rec.kernel == "broadcast");
                // The point: size, nodes, whose time a sample is and the caches it starts from.
                const comet::params want{{"size", size}, {"nodes", std::int64_t{nodes}}, {"reduction", "test_node"}, {"cache", "warm"}};
                BOOST_TEST((rec.params == want));
                BOOST_TEST(*rec.values.text("implementation") == "native");
                // The median of the barrier alone, sampled beside the broadcast: a time, so a
                // real number (never an integer), finite and plausible. It is the median of the
                // barrier's valid samples: on one rank a barrier costs next to nothing, and both
                // its samples may come out below zero once the loop overhead is subtracted.
                if (rec.values.contains("closing_barrier")) {
                    BOOST_TEST(!rec.values.integer("closing_barrier").has_value());
                    BOOST_TEST(plausible({*rec.values.number("closing_barrier")}));
                } else {
                    BOOST_TEST(nodes == 1);
                }
                // Two pairs of samples give no 95% interval of their differences: the broadcast
                // without its barrier is not reported, but flagged, with why.
                BOOST_TEST(!rec.values.contains("without_barrier"));
                const comet::flag* f = comet::find_flag(rec.flags, "without_barrier");
                BOOST_TEST_REQUIRE(f != nullptr);
                BOOST_TEST(f->why.starts_with("too few paired samples for an interval ("), f->why);
                BOOST_TEST(*rec.values.text("order") == "round_robin");
                BOOST_TEST(rec.samples.size() == 2u);
                BOOST_TEST(rec.overheads.size() == 2u);
                BOOST_TEST(rec.iterations == 20u);
                BOOST_TEST(rec.stop == "fixed");
                BOOST_TEST(plausible(rec.samples));
            }
            // quick_broadcast is fixed_sampling(2, 20): every point runs one untimed calibration
            // run of 20 iterations, and before each of its 2 samples of 20 one untimed iteration,
            // so its body runs 20 + 2 x 21 = 62 times on every rank (the test node's repeat loop
            // calls it once per iteration, its empty loop never; the other ranks run it as
            // often). Two points per size: the broadcast with its closing barrier, and the
            // closing barrier alone.
            const std::size_t per_point = kernel_counting::body_runs(2, 20);
            // The engine's decisions for 8 points: every rank takes part, so they travel as the
            // group's own allreduces (one per decision), not as the engine's messages.
            const std::size_t decisions = kernel_counting::engine_decisions(2 * 4, 2);
            for (int rank = 0; rank < nodes; ++rank) {
                const auto& c = r[static_cast<std::size_t>(rank)].counts;
                BOOST_TEST(c.broadcasts == 4 * per_point);
                BOOST_TEST(c.allreduces == decisions);
                // Both points' barriers, plus the kernel's opening and closing ones.
                BOOST_TEST(c.barriers == 2 * 4 * per_point + 2);
                BOOST_TEST(c.sends + c.recvs == 0u);  // the transport's own broadcast: no messages
                BOOST_TEST(c.engine_sends + c.engine_recvs == 0u);
                if (rank > 0) BOOST_TEST(r[static_cast<std::size_t>(rank)].records.empty());
            }
        }
    }
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(broadcast_without_its_barrier_from_paired_samples_on_the_ipsc860) {
    // Virtual time: every sample of a point is the same, so each pair's difference is the
    // broadcast's median less the barrier's, and its interval is that one number. On one node
    // a broadcast and a barrier cost nothing: the differences are 0, and their interval does
    // not exclude 0, so the figure is flagged instead.
    const comet::kernels::broadcast_config cfg{.sizes = {0, 8, 1024}, .sampling = comet::fixed_sampling(8, 4)};
    for (int d : {0, 1, 2}) {
        BOOST_TEST_CONTEXT("nodes " << (1 << d)) {
            const auto r = comet::nx2::run(comet::nx2::ipsc860(d), [&](comet::nx2::transport& t) { return comet::kernels::broadcast(t, cfg); });
            BOOST_REQUIRE_EQUAL(r[0].size(), 3u);
            for (const auto& rec : r[0].records) {
                BOOST_TEST_CONTEXT("size " << *rec.params.integer("size")) {
                    // Alike to the last few bits of the virtual clock's doubles.
                    const auto tolerance = boost::test_tools::tolerance(1e-9);
                    BOOST_TEST_REQUIRE(rec.samples.size() == 8u);
                    for (double x : rec.samples) BOOST_TEST(x == rec.samples[0], tolerance);
                    const double barrier = *rec.values.number("closing_barrier");
                    if (d == 0) {
                        BOOST_TEST(rec.samples[0] == 0.0);
                        BOOST_TEST(barrier == 0.0);
                        BOOST_TEST(!rec.values.contains("without_barrier"));
                        const comet::flag* f = comet::find_flag(rec.flags, "without_barrier");
                        BOOST_TEST_REQUIRE(f != nullptr);
                        BOOST_TEST(f->why.starts_with("not resolved: the 95% interval of the paired differences ["), f->why);
                        continue;
                    }
                    BOOST_TEST(rec.flags.empty());
                    BOOST_TEST(barrier > 0.0);
                    const double without = *rec.values.number("without_barrier");
                    BOOST_TEST(without == comet::summarize(rec).median - barrier, tolerance);
                    BOOST_TEST(*rec.values.number("without_barrier_ci_low") == without, tolerance);
                    BOOST_TEST(*rec.values.number("without_barrier_ci_high") == without, tolerance);
                    BOOST_TEST(*rec.values.number("without_barrier_ci_low") <= without);
                    BOOST_TEST(*rec.values.number("without_barrier_ci_high") >= without);
                    BOOST_TEST(rec.values.size() == 6u);  // implementation, closing_barrier, without_barrier (3), order
                }
            }
        }
    }
}
#endif

BOOST_AUTO_TEST_CASE(figures_without_the_closing_barrier_are_flagged_where_their_samples_disagree) {
    using comet::kernels::detail::collectives::without_closing_barrier;
    const auto point = [](std::vector<double> s) { return comet::sampled_point{.samples = std::move(s), .iterations = 1}; };
    const auto flagged = [](const comet::record& r, const char* what) { return comet::find_flag(r.flags, what) != nullptr; };
    // Steady pairs: the broadcast 1 us above a barrier of 2 us, nothing flagged.
    const std::vector<double> barrier{2e-6, 2.01e-6, 1.99e-6, 2e-6, 2.02e-6, 1.98e-6, 2e-6, 2.01e-6, 1.99e-6, 2e-6, 2e-6, 2.01e-6};
    std::vector<double> with;
    for (double b : barrier) with.push_back(b + 1e-6);
    comet::record steady;
    without_closing_barrier(steady, point(with), point(barrier));
    BOOST_TEST(steady.flags.empty());
    BOOST_TEST(*steady.values.number("without_barrier") == 1e-6, boost::test_tools::tolerance(1e-9));
    // A busy machine: every other pair's broadcast took four times as long. The difference, its
    // interval and nothing else are flagged.
    for (std::size_t j = 0; j < with.size(); j += 2) with[j] = barrier[j] + 4e-6;
    comet::record busy;
    without_closing_barrier(busy, point(with), point(barrier));
    for (const char* what : {"without_barrier", "without_barrier_ci_low", "without_barrier_ci_high"})
        BOOST_TEST(flagged(busy, what), what);
    BOOST_TEST(!flagged(busy, "closing_barrier"));
    BOOST_TEST(comet::find_flag(busy.flags, "without_barrier_ci_high")->why.starts_with("the paired differences: "));
    // The barrier alone disturbed in half its samples: its median is flagged too.
    std::vector<double> slow_barrier = barrier;
    for (std::size_t j = 0; j < slow_barrier.size(); j += 2) slow_barrier[j] *= 3;
    comet::record shaky;
    without_closing_barrier(shaky, point(with), point(slow_barrier));
    BOOST_TEST_REQUIRE(flagged(shaky, "closing_barrier"));
    BOOST_TEST(comet::find_flag(shaky.flags, "closing_barrier")->why.starts_with("its samples: the samples disagree"),
               comet::find_flag(shaky.flags, "closing_barrier")->why);
}

BOOST_AUTO_TEST_CASE(broadcast_records_land_on_the_root_only) {
    // The test node is the root of every broadcast and the only rank with records.
    auto cfg = quick_broadcast;
    cfg.test_node = 3;
    const auto r = run(4, [&](transport& t) { return comet::kernels::broadcast(t, cfg); });
    for (int rank : {0, 1, 2}) BOOST_TEST(r[static_cast<std::size_t>(rank)].empty());
    BOOST_TEST(r[3].size() == 4u);
}

BOOST_AUTO_TEST_CASE(global_sum_records_every_vector_length) {
    for (int nodes : {2, 4, 8}) {
        BOOST_TEST_CONTEXT("nodes " << nodes) {
            const auto r = run(nodes, [](transport& t) {
                counting c(t);
                return outcome{comet::kernels::global_sum(c, quick_sum), c.c};
            });
            const auto& records = r[0].records.records;
            BOOST_REQUIRE_EQUAL(records.size(), 4u);
            std::size_t i = 0;
            for (std::int64_t n : {0, 1, 13, 1000}) {
                const auto& rec = records[i++];
                BOOST_TEST(rec.kernel == "global_sum");
                const comet::params want{{"vector_length", n}, {"nodes", std::int64_t{nodes}}, {"reduction", "test_node"}, {"cache", "warm"}};
                BOOST_TEST((rec.params == want));
                BOOST_TEST((rec.values == comet::params{{"implementation", "native"}, {"order", "round_robin"}}));
                BOOST_TEST(rec.samples.size() == 2u);
                BOOST_TEST(rec.iterations == 20u);
                BOOST_TEST(rec.stop == "fixed");
                BOOST_TEST(plausible(rec.samples));
            }
            // quick_sum is fixed_sampling(2, 20): 20 + 2 x (1 + 20) sums per vector length on
            // every rank (see the broadcast test), and the engine's decisions for 4 points, one
            // allreduce of the whole group each.
            const std::size_t decisions = kernel_counting::engine_decisions(4, 2);
            for (int rank = 0; rank < nodes; ++rank) {
                const auto& c = r[static_cast<std::size_t>(rank)].counts;
                BOOST_TEST(c.allreduces == 4u * kernel_counting::body_runs(2, 20) + decisions);
                BOOST_TEST(c.barriers == 2u);  // only the opening and closing ones: the sum synchronises itself
                BOOST_TEST(c.broadcasts == 0u);
                BOOST_TEST(c.engine_sends + c.engine_recvs == 0u);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(barrier_keeps_every_sample_of_the_least_time) {
    for (int nodes : {1, 2, 4, 8}) {
        BOOST_TEST_CONTEXT("nodes " << nodes) {
            auto cfg = quick_barrier;
            cfg.test_node = nodes - 1;
            const auto r = run(nodes, [&](transport& t) {
                counting c(t);
                return outcome{comet::kernels::barrier(c, cfg), c.c};
            });
            const auto& records = r[static_cast<std::size_t>(nodes - 1)].records.records;
            BOOST_REQUIRE_EQUAL(records.size(), 1u);
            BOOST_TEST(records[0].kernel == "barrier");
            const comet::params want{{"nodes", std::int64_t{nodes}}, {"reduction", "test_node"}, {"cache", "warm"}};
            BOOST_TEST((records[0].params == want));
            BOOST_TEST((records[0].values == comet::params{{"implementation", "native"}, {"order", "round_robin"}}));
            BOOST_TEST(records[0].samples.size() == 4u);
            BOOST_TEST(records[0].stop == "fixed");
            BOOST_TEST(plausible(records[0].samples));
            // quick_barrier is fixed_sampling(4, 20): one untimed run of 20 barriers, and 4
            // samples of 20 each after one untimed barrier, on every rank, plus the kernel's
            // opening and closing barriers. The test node is the last rank: the decider of the
            // engine's decisions (one point), which reach the whole group as its allreduces.
            const std::size_t decisions = kernel_counting::engine_decisions(1, 4);
            for (int rank = 0; rank < nodes; ++rank) {
                const auto& c = r[static_cast<std::size_t>(rank)].counts;
                BOOST_TEST(c.barriers == 2u + 20u + 4u * (1u + 20u));
                BOOST_TEST(c.allreduces == decisions);
                BOOST_TEST(c.engine_sends + c.engine_recvs == 0u);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(on_point_sees_each_record_on_the_test_node) {
    std::vector<std::string> seen;  // written by the test node's thread only
    auto b = quick_broadcast;
    b.sizes = {8, 64};
    b.on_point = [&](const comet::record& rec) { seen.push_back(rec.kernel + std::to_string(*rec.params.integer("size"))); };
    auto g = quick_sum;
    g.vector_lengths = {1};
    g.on_point = [&](const comet::record& rec) { seen.push_back(rec.kernel); };
    auto a = quick_barrier;
    a.on_point = [&](const comet::record& rec) { seen.push_back(rec.kernel); };
    run(4, [&](transport& t) {
        comet::kernels::broadcast(t, b);
        comet::kernels::global_sum(t, g);
        comet::kernels::barrier(t, a);
    });
    BOOST_TEST(seen == (std::vector<std::string>{"broadcast8", "broadcast64", "global_sum", "barrier"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bad_inputs_name_the_value_and_rank) {
    const auto fails_with = [](int nodes, auto kernel, std::initializer_list<const char*> words) {
        BOOST_CHECK_EXCEPTION(run(nodes, [&](transport& t) { kernel(t); }), comet::invalid_argument,
                              [&](const auto& e) { return mentions(e, words); });
    };
    auto b = quick_broadcast;
    b.test_node = 4;
    fails_with(4, [&](transport& t) { comet::kernels::broadcast(t, b); }, {"rank 0", "broadcast: test node 4 is outside 0..3"});
    b = quick_broadcast;
    b.sizes = {8, comet::max_message_size + 1};
    fails_with(2, [&](transport& t) { comet::kernels::broadcast(t, b); }, {"rank 0", "broadcast: message size 2147483648 exceeds"});
    b = quick_broadcast;
    b.sampling = {.max_samples = 2};  // below the default min_samples of 15
    fails_with(2, [&](transport& t) { comet::kernels::broadcast(t, b); }, {"broadcast: sampling.max_samples = 2 is below min_samples = 15"});

    auto g = quick_sum;
    g.vector_lengths = {1, 200001};
    fails_with(2, [&](transport& t) { comet::kernels::global_sum(t, g); },
               {"rank 0", "global_sum: vector length 200001 exceeds max_vec_len 200000"});
    g.max_vec_len = std::size_t{1} << 40;
    g.vector_lengths = {std::size_t{1} << 30};
    fails_with(2, [&](transport& t) { comet::kernels::global_sum(t, g); },
               {"global_sum: vector length 1073741824", "exceeds the 2147483647-byte message limit"});
    g = quick_sum;
    g.sampling.min_samples = 0;
    fails_with(2, [&](transport& t) { comet::kernels::global_sum(t, g); }, {"global_sum: sampling.min_samples must be at least 1, got 0"});
    g = quick_sum;
    g.sampling.target_ci = -0.5;
    fails_with(2, [&](transport& t) { comet::kernels::global_sum(t, g); },
               {"global_sum: sampling.target_ci = -0.5 is not a fraction >= 0"});
    g = quick_sum;
    g.test_node = -1;
    fails_with(3, [&](transport& t) { comet::kernels::global_sum(t, g); }, {"global_sum: test node -1 is outside 0..2"});

    auto a = quick_barrier;
    a.sampling.min_samples = 0;
    fails_with(2, [&](transport& t) { comet::kernels::barrier(t, a); }, {"rank 0", "barrier: sampling.min_samples must be at least 1, got 0"});
    a = quick_barrier;
    a.test_node = 2;
    fails_with(2, [&](transport& t) { comet::kernels::barrier(t, a); }, {"barrier: test node 2 is outside 0..1"});
    a = quick_barrier;
    a.sampling = {.max_samples = 2};
    fails_with(2, [&](transport& t) { comet::kernels::barrier(t, a); }, {"barrier: sampling.max_samples = 2 is below min_samples = 15"});
}

BOOST_AUTO_TEST_SUITE_END()
