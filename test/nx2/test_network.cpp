// Tests of comet/transport/nx2/network.hpp: routes and distances. (Circuits and contention are
// tested end to end, with exact times, in test_world.cpp.)
#include <comet/topology/hypercube.hpp>
#include <comet/transport/nx2/network.hpp>

#include <boost/test/unit_test.hpp>

#include <vector>

BOOST_AUTO_TEST_SUITE(nx2_network)

using namespace comet::nx2;

BOOST_AUTO_TEST_CASE(ecube_routes_match_the_topology) {
    const machine m = ipsc860(4);
    const detail::router r(m);
    const comet::hypercube cube(16);
    std::vector<int> links;
    for (int a = 0; a < 16; ++a)
        for (int b = 0; b < 16; ++b) {
            r.route(a, b, links);
            BOOST_TEST(r.distance(a, b) == cube.distance(a, b));
            const auto dims = cube.route_dimensions(a, b);
            const auto nodes = cube.route(a, b);
            BOOST_REQUIRE(links.size() == dims.size());
            for (std::size_t i = 0; i < links.size(); ++i)
                BOOST_TEST(links[i] == nodes[i] * r.ports() + dims[i]);  // channel of that node, that dimension
        }
}

BOOST_AUTO_TEST_CASE(xy_routes_on_a_mesh) {
    const machine m = mesh(4, 3);  // node = row * 4 + column
    const detail::router r(m);
    std::vector<int> links;
    r.route(0, 11, links);  // (0,0) -> (col 3, row 2): east 3 times, then south twice
    BOOST_TEST(r.distance(0, 11) == 5);
    BOOST_TEST(links == (std::vector<int>{0 * 4 + 0, 1 * 4 + 0, 2 * 4 + 0, 3 * 4 + 2, 7 * 4 + 2}), boost::test_tools::per_element());
    r.route(11, 0, links);  // west, then north
    BOOST_TEST(links == (std::vector<int>{11 * 4 + 1, 10 * 4 + 1, 9 * 4 + 1, 8 * 4 + 3, 4 * 4 + 3}), boost::test_tools::per_element());
    r.route(5, 5, links);
    BOOST_TEST(links.empty());
}

BOOST_AUTO_TEST_CASE(counters_add_up) {
    node_counters a, b;
    a.messages_sent = 2;
    a.retransmissions = 1;
    b.messages_sent = 3;
    b.channel_wait_time = 7;
    b.system_buffer_landings = 4;
    a += b;
    BOOST_TEST(a.system_buffer_landings == 4u);
    BOOST_TEST(a.messages_sent == 5u);
    BOOST_TEST(a.retransmissions == 1u);
    BOOST_TEST(a.channel_wait_time == 7);
}

BOOST_AUTO_TEST_SUITE_END()
