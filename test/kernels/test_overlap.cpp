// Tests of comet/kernels/overlap.hpp on the threads transport: the records of the DAXPY
// baseline and of both modes over the grid, that the DAXPY really goes through compute() and
// that the modes use blocking and nonblocking calls as figures 3.8 and 3.9 say (both counted
// by a decorator), exchanging with itself, and every bad input.
#include <comet/kernels/overlap.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace overlap_test {

using comet::threads::run;
using comet::threads::transport;
using comet_test::mentions;
using counting = kernel_counting::counting_transport<transport>;

inline const comet::kernels::overlap_config quick{
    .sizes = {0, 2536, 20000}, .vector_lengths = {0, 100, 5000}, .sampling = comet::fixed_sampling(2, 5)};

inline bool plausible(const std::vector<double>& samples) {
    for (double s : samples)
        if (!std::isfinite(s) || s < -1e-3 || s > 10.0) return false;
    return true;
}

struct outcome {
    comet::result_set records;
    kernel_counting::counts counts;
};

inline std::vector<outcome> run_counted(int nodes, const comet::kernels::overlap_config& cfg) {
    return run(nodes, [&](transport& t) {
        counting c(t);
        return outcome{comet::kernels::overlap(c, cfg), c.c};
    });
}

}  // namespace overlap_test

BOOST_AUTO_TEST_SUITE(overlap)

using namespace overlap_test;

BOOST_AUTO_TEST_CASE(records_for_the_baseline_and_both_modes_over_the_grid) {
    for (int nodes : {2, 4}) {
        BOOST_TEST_CONTEXT("nodes " << nodes) {
            const auto r = run_counted(nodes, quick);
            for (int rank = 1; rank < nodes; ++rank) BOOST_TEST(r[static_cast<std::size_t>(rank)].records.empty());
            const auto& records = r[0].records.records;
            BOOST_REQUIRE_EQUAL(records.size(), 3u + 3u * 3u * 2u);
            std::size_t i = 0;
            for (std::int64_t n : {0, 100, 5000}) {
                const auto& rec = records[i++];
                BOOST_TEST(rec.kernel == "overlap");
                BOOST_TEST(!rec.params.contains("size"));
                BOOST_TEST(*rec.params.integer("vector_length") == n);
                BOOST_TEST(*rec.params.text("mode") == "daxpy");
                BOOST_TEST(*rec.params.integer("nodes") == nodes);
                BOOST_TEST(*rec.params.integer("hops") == 1);
                BOOST_TEST(rec.params.size() == 6u);  // and the engine's reduction and cache
                BOOST_TEST(*rec.params.text("reduction") == "test_node");
                BOOST_TEST(*rec.params.text("cache") == "warm");
                BOOST_TEST((rec.values == comet::params{{"order", "round_robin"}}));
                BOOST_TEST(rec.samples.size() == 2u);
                BOOST_TEST(rec.iterations == 5u);
                BOOST_TEST(plausible(rec.samples));
            }
            for (std::int64_t size : {0, 2536, 20000})
                for (std::int64_t n : {0, 100, 5000})
                    for (const char* mode : {"sync", "async"}) {
                        const auto& rec = records[i++];
                        // {size, vector_length, mode, nodes, hops, reduction, cache}; the values
                        // say the sync mode's swap form (the threads transport's buffered sends)
                        // and the order of the sweep.
                        const bool sync = std::string_view(mode) == "sync";
                        BOOST_TEST(rec.params.size() == 7u);
                        BOOST_TEST(*rec.params.text("reduction") == "test_node");
                        BOOST_TEST(*rec.params.text("cache") == "warm");
                        if (sync)
                            BOOST_TEST((rec.values == comet::params{{"form", "send_recv"}, {"order", "round_robin"}}));
                        else
                            BOOST_TEST((rec.values == comet::params{{"order", "round_robin"}}));
                        BOOST_TEST(*rec.params.integer("size") == size);
                        BOOST_TEST(*rec.params.integer("vector_length") == n);
                        BOOST_TEST(*rec.params.text("mode") == mode);
                        BOOST_TEST(*rec.params.integer("nodes") == nodes);
                        BOOST_REQUIRE_EQUAL(rec.samples.size(), 2u);
                        BOOST_TEST(plausible(rec.samples));
                    }
        }
    }
}

BOOST_AUTO_TEST_CASE(daxpy_goes_through_compute_and_the_modes_use_the_right_calls) {
    const auto r = run_counted(4, quick);
    // quick is fixed_sampling(2, 5): every point runs one untimed calibration run of 5
    // iterations, then 2 samples of 5, each after one untimed iteration (the test node's repeat
    // loop runs its body once per iteration, its empty loop never; the partner runs the body as
    // often).
    const std::size_t iterations = kernel_counting::body_runs(2, 5);  // per point: 5 + 2 x (1 + 5)
    const std::size_t grid = 3 * 3;              // sizes × vector lengths
    const std::size_t lengths = 0 + 100 + 5000;
    // The engine's decisions go from the test node to its partner: 3 baseline points and both
    // modes over the grid.
    const std::size_t decisions = kernel_counting::engine_decisions(3 + 2 * grid, 2);
    for (int rank : {0, 1}) {  // the test node and its partner, hop_node(0, 1) = 1
        BOOST_TEST_CONTEXT("rank " << rank) {
            const auto& c = r[static_cast<std::size_t>(rank)].counts;
            // One untimed first touch of the longest vector, the baseline, then both modes.
            BOOST_TEST(c.computes == 1 + 3 * iterations + 2 * grid * iterations);
            BOOST_TEST(c.daxpy_elements == 5000 + lengths * iterations + 2 * 3 * lengths * iterations);
            // Figure 3.9: the asynchronous mode posts a send and a receive per iteration ...
            BOOST_TEST(c.isends == grid * iterations);
            BOOST_TEST(c.irecvs == grid * iterations);
            // ... figure 3.8: the synchronous one sends (buffered) and receives. The baseline
            // sends nothing of its own: the two nodes start its samples on the engine's messages.
            BOOST_TEST(c.sends == grid * iterations);
            BOOST_TEST(c.recvs == grid * iterations);
            // Each decision goes from the test node to its partner, which answers each.
            BOOST_TEST(c.engine_sends == decisions);
            BOOST_TEST(c.engine_recvs == decisions);
        }
    }
    for (int rank : {2, 3}) {
        const auto& c = r[static_cast<std::size_t>(rank)].counts;
        BOOST_TEST(c.computes == 0u);
        BOOST_TEST(c.messages_sent() == 0u);
    }
}

BOOST_AUTO_TEST_CASE(without_baseline_and_with_another_pair) {
    auto cfg = quick;
    cfg.daxpy_baseline = false;
    cfg.test_node = 5;
    cfg.hops = 2;  // hop_node(5, 2) = 6
    const auto r = run_counted(8, cfg);
    BOOST_TEST(r[5].records.size() == 3u * 3u * 2u);
    BOOST_TEST(*r[5].records.records[0].params.integer("hops") == 2);
    // The first touch, then both modes over the 3 × 3 grid, 5 + 2 × (1 + 5) iterations each.
    BOOST_TEST(r[6].counts.computes == 1 + 2 * 9 * kernel_counting::body_runs(2, 5));
    BOOST_TEST(r[6].counts.engine_recvs == kernel_counting::engine_decisions(2 * 9, 2));
    BOOST_TEST(r[0].counts.computes == 0u);
}

BOOST_AUTO_TEST_CASE(exchanging_with_itself_runs_both_modes) {
    auto cfg = quick;
    cfg.hops = 0;
    const auto r = run_counted(2, cfg);
    BOOST_TEST(r[0].records.size() == 3u + 18u);
    BOOST_TEST(r[1].counts.computes == 0u);
}

BOOST_AUTO_TEST_CASE(on_point_sees_each_record) {
    std::vector<std::string> seen;
    auto cfg = quick;
    cfg.sizes = {8};
    cfg.vector_lengths = {10};
    cfg.on_point = [&](const comet::record& rec) { seen.push_back(*rec.params.text("mode")); };
    run(2, [&](transport& t) { comet::kernels::overlap(t, cfg); });
    BOOST_TEST(seen == (std::vector<std::string>{"daxpy", "sync", "async"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bad_inputs_name_the_value_and_rank) {
    const auto fails_with = [](int nodes, const comet::kernels::overlap_config& cfg, std::initializer_list<const char*> words) {
        BOOST_CHECK_EXCEPTION(run(nodes, [&](transport& t) { comet::kernels::overlap(t, cfg); }), comet::invalid_argument,
                              [&](const auto& e) { return mentions(e, words); });
    };
    fails_with(1, quick, {"rank 0", "overlap needs at least 2 ranks; the group has 1"});
    auto c = quick;
    c.vector_lengths = {10, 200001};
    fails_with(2, c, {"rank 0", "overlap: vector length 200001 exceeds max_vec_len 200000"});
    c = quick;
    c.sizes = {comet::max_message_size + 1};
    fails_with(2, c, {"overlap: message size 2147483648 exceeds"});
    c = quick;
    c.hops = 2;
    fails_with(2, c, {"overlap: hop_node: 2 hops from node 0 reach node 3, outside the 2 nodes"});
    c.hops = -1;
    fails_with(2, c, {"overlap: hop distance -1 is negative"});
    c = quick;
    c.test_node = 2;
    fails_with(2, c, {"overlap: test node 2 is outside 0..1"});
    c = quick;
    c.sampling = {.max_samples = 2};  // below the default min_samples of 15
    fails_with(2, c, {"overlap: sampling.max_samples = 2 is below min_samples = 15"});
    c = quick;
    c.sampling.min_samples = 0;
    fails_with(2, c, {"overlap: sampling.min_samples must be at least 1, got 0"});
    c = quick;
    c.sampling.warmup_seconds = -1.0;
    fails_with(2, c, {"overlap: sampling.warmup_seconds = -1 is not >= 0 seconds"});
    c = quick;
    c.tag = 32768;
    fails_with(2, c, {"overlap: tag 32768 is outside 0..32767"});
}

BOOST_AUTO_TEST_SUITE_END()
