// Tests of comet/kernels/echo.hpp on the threads transport: the records echo returns, and the
// messages every rank exchanges (the kernel's and the sampling engine's, counted by a decorator).
#include <comet/kernels/echo.hpp>
#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>

BOOST_AUTO_TEST_SUITE(echo)

using namespace transfer_test;

BOOST_AUTO_TEST_CASE(echo_records_every_hop_and_size_on_the_test_node) {
    const auto r = run(8, [](transport& t) { return comet::kernels::echo(t, quick); });
    for (int rank = 1; rank < 8; ++rank) BOOST_TEST(r[static_cast<std::size_t>(rank)].empty());
    const auto& records = r[0].records;
    BOOST_REQUIRE_EQUAL(records.size(), 3u * 4u);  // hops 1, 2, 3 of an 8-node cube, 4 sizes
    std::size_t i = 0;
    for (int h : {1, 2, 3})
        for (std::int64_t size : {0, 8, 100, 5000}) {
            const auto& rec = records[i++];
            BOOST_TEST(rec.kernel == "echo");
            // The point: size, hops, nodes, the buffer echoed back (the thesis' own: the one
            // received into), whose time a sample is (the test node's own) and the caches a
            // sample starts from; the points were visited round robin.
            const comet::params want{{"size", size}, {"hops", std::int64_t{h}}, {"nodes", std::int64_t{8}},
                                     {"buffer", "same"}, {"reduction", "test_node"}, {"cache", "warm"}};
            BOOST_TEST((rec.params == want));
            BOOST_TEST((rec.values == comet::params{{"order", "round_robin"}}));
            BOOST_REQUIRE_EQUAL(rec.samples.size(), 2u);
            for (double s : rec.samples) BOOST_TEST((std::isfinite(s) && s > -1e-6 && s < 1.0));
            // What the engine decided: quick's fixed 20 iterations, stopped after its 2 samples,
            // with the loop overhead of each sample kept beside it (non-negative, finite).
            BOOST_TEST(rec.iterations == 20u);
            BOOST_TEST(rec.stop == "fixed");
            BOOST_REQUIRE_EQUAL(rec.overheads.size(), 2u);
            for (double o : rec.overheads) BOOST_TEST((std::isfinite(o) && o >= 0.0 && o < 1.0));
        }
}

BOOST_AUTO_TEST_CASE(every_rank_exchanges_the_messages_the_engine_rule_gives) {
    using counting = kernel_counting::counting_transport<transport>;
    struct outcome {
        comet::result_set records;
        kernel_counting::counts counts;
    };
    const auto r = run(8, [](transport& t) {
        counting c(t);
        return outcome{comet::kernels::echo(c, quick), c.c};
    });
    // quick is fixed_sampling(2, 20): every point runs one untimed calibration run of 20
    // iterations, then before each of its 2 samples of 20 one untimed round trip (the point's
    // buffers warm), so 20 + 2 x 21 = 62 round trips per point (the test node's repeat loop runs
    // its body once per iteration; its empty loop sends nothing).
    const std::size_t per_point = kernel_counting::body_runs(2, 20);
    BOOST_TEST(per_point == 62u);
    // The points: hops 1, 2, 3 (partners hop_node(0, h) = 1, 3, 7) x 4 sizes. The engine's
    // decisions go from the test node to the three partners, per support.hpp's rule, and each
    // partner answers each one (after a "go", so that it is in its part of a sample before the
    // timing starts).
    const std::size_t decisions = kernel_counting::engine_decisions(3 * 4, 2);
    BOOST_TEST(decisions == 1u + 12u + 12u * 2u + 2u);
    const auto& test_node = r[0].counts;
    BOOST_TEST(test_node.sends == 12 * per_point);
    BOOST_TEST(test_node.recvs == 12 * per_point);
    BOOST_TEST(test_node.engine_sends == 3 * decisions);
    BOOST_TEST(test_node.engine_recvs == 3 * decisions);
    for (int partner : {1, 3, 7}) {
        BOOST_TEST_CONTEXT("partner " << partner) {
            const auto& c = r[static_cast<std::size_t>(partner)].counts;
            BOOST_TEST(c.recvs == 4 * per_point);  // its own hop distance's 4 sizes
            BOOST_TEST(c.sends == 4 * per_point);
            BOOST_TEST(c.engine_recvs == decisions);
            BOOST_TEST(c.engine_sends == decisions);
        }
    }
    for (int idle : {2, 4, 5, 6}) {
        BOOST_TEST(r[static_cast<std::size_t>(idle)].counts.messages_sent() == 0u);
        BOOST_TEST(r[static_cast<std::size_t>(idle)].counts.messages_received() == 0u);
    }
    for (int rank = 0; rank < 8; ++rank) BOOST_TEST(r[static_cast<std::size_t>(rank)].counts.barriers == 2u);
}

BOOST_AUTO_TEST_CASE(a_clean_buffer_is_a_point_of_its_own) {
    // buffer clean: the message goes out of a buffer no receive writes and comes back into
    // another, on both ranks; with verify on, every byte that arrives is checked (a wrong one
    // raises). The param names it: the same sizes with the buffer echoed are other points.
    auto cfg = quick;
    cfg.buffer = comet::kernels::echo_buffer::clean;
    cfg.verify = true;
    const auto r = run(2, [&](transport& t) { return comet::kernels::echo(t, cfg); });
    BOOST_REQUIRE_EQUAL(r[0].records.size(), 4u);
    for (const auto& rec : r[0].records) {
        BOOST_TEST(*rec.params.text("buffer") == "clean");
        BOOST_TEST(*rec.params.text("verify") == "payload");
        BOOST_TEST(rec.samples.size() == 2u);
    }
    // Concurrent links echo what they received: the buffer is the same whatever was asked.
    cfg.links = {{0, 1}};
    cfg.concurrent = true;
    cfg.verify = false;
    const auto c = run(2, [&](transport& t) { return comet::kernels::echo(t, cfg); });
    BOOST_REQUIRE(!c[0].records.empty());
    for (const auto& rec : c[0].records) BOOST_TEST(*rec.params.text("buffer") == "same");
}

BOOST_AUTO_TEST_CASE(the_default_sampling_calibrates_and_stops_by_its_rule) {
    // Nothing here depends on the machine's speed: only what the engine's rules promise.
    const auto r = run(2, [](transport& t) { return comet::kernels::echo(t, {.sizes = {0, 8}}); });
    BOOST_REQUIRE_EQUAL(r[0].records.size(), 2u);
    for (const auto& rec : r[0].records) {
        BOOST_TEST(rec.samples.size() >= 15u);   // min_samples
        BOOST_TEST(rec.samples.size() <= 101u);  // max_samples
        BOOST_TEST(rec.overheads.size() == rec.samples.size());
        BOOST_TEST(rec.iterations >= 1u);
        BOOST_TEST((rec.stop == "interval" || rec.stop == "budget" || rec.stop == "max_samples"));
        BOOST_TEST(rec.notes.empty());  // calibrated samples are never too short
    }
}

BOOST_AUTO_TEST_SUITE_END()
