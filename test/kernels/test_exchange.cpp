// Tests of comet/kernels/exchange.hpp on the threads transport: the records pairwise returns.
#include <comet/kernels/exchange.hpp>
#include "support.hpp"

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(exchange)

using namespace transfer_test;

BOOST_AUTO_TEST_CASE(pairwise_records_and_other_test_node) {
    auto cfg = quick;
    cfg.test_node = 5;
    cfg.hops = {2, 0};
    const auto r = run(8, [&](transport& t) { return comet::kernels::pairwise(t, cfg); });
    BOOST_TEST(r[0].empty());
    const auto& records = r[5].records;
    BOOST_REQUIRE_EQUAL(records.size(), 2u * 4u);
    BOOST_TEST(records[0].kernel == "pairwise");
    BOOST_TEST(*records[0].params.integer("hops") == 2);
    BOOST_TEST(*records[4].params.integer("hops") == 0);  // exchange with itself
    for (const auto& rec : records) {
        // The threads transport buffers its sends: the thesis' send-then-receive form ran.
        // The point: size, hops, nodes, whose time and the caches; how it was measured (the
        // form, the order of the sweep) is a value.
        const comet::params want{{"size", *rec.params.integer("size")},
                                 {"hops", *rec.params.integer("hops")},
                                 {"nodes", std::int64_t{8}},
                                 {"reduction", "test_node"},
                                 {"cache", "warm"}};
        BOOST_TEST((rec.params == want));
        BOOST_TEST((rec.values == comet::params{{"form", "send_recv"}, {"order", "round_robin"}}));
        BOOST_TEST(rec.samples.size() == 2u);
        BOOST_TEST(rec.iterations == 20u);
        BOOST_TEST(rec.stop == "fixed");
    }
}

BOOST_AUTO_TEST_SUITE_END()
