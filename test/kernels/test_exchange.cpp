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
    const auto r = run(8, [&](transport& t) { return comet::pairwise(t, cfg); });
    BOOST_TEST(r[0].empty());
    const auto& records = r[5].records;
    BOOST_REQUIRE_EQUAL(records.size(), 2u * 4u);
    BOOST_TEST(records[0].kernel == "pairwise");
    BOOST_TEST(*records[0].params.integer("hops") == 2);
    BOOST_TEST(*records[4].params.integer("hops") == 0);  // exchange with itself
}

BOOST_AUTO_TEST_SUITE_END()
