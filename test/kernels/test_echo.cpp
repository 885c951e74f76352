// Tests of comet/kernels/echo.hpp on the threads transport: the records echo returns.
#include <comet/kernels/echo.hpp>
#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>

BOOST_AUTO_TEST_SUITE(echo)

using namespace transfer_test;

BOOST_AUTO_TEST_CASE(echo_records_every_hop_and_size_on_the_test_node) {
    const auto r = run(8, [](transport& t) { return comet::echo(t, quick); });
    for (int rank = 1; rank < 8; ++rank) BOOST_TEST(r[static_cast<std::size_t>(rank)].empty());
    const auto& records = r[0].records;
    BOOST_REQUIRE_EQUAL(records.size(), 3u * 4u);  // hops 1, 2, 3 of an 8-node cube, 4 sizes
    std::size_t i = 0;
    for (int h : {1, 2, 3})
        for (std::int64_t size : {0, 8, 100, 5000}) {
            const auto& rec = records[i++];
            BOOST_TEST(rec.kernel == "echo");
            BOOST_TEST(*rec.params.integer("size") == size);
            BOOST_TEST(*rec.params.integer("hops") == h);
            BOOST_TEST(*rec.params.integer("nodes") == 8);
            BOOST_REQUIRE_EQUAL(rec.samples.size(), 2u);
            for (double s : rec.samples) BOOST_TEST((std::isfinite(s) && s > -1e-6 && s < 1.0));
        }
}

BOOST_AUTO_TEST_SUITE_END()
