// Tests for comet/topology/hypercube.hpp: Gray codes, thesis figure 4.2 (hop_node), max_hops,
// and the hypercube's distances, neighbours and e-cube routes.
#include <comet/topology/hypercube.hpp>

#include <boost/test/unit_test.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace topology_hypercube_test {

/// A predicate for BOOST_CHECK_EXCEPTION: the message contains `part`.
inline auto says(std::string part) {
    return [part](const comet::invalid_argument& e) { return std::string(e.what()).find(part) != std::string::npos; };
}

/// A predicate for BOOST_CHECK_EXCEPTION: the message is exactly `text`.
inline auto says_exactly(std::string text) {
    return [text](const comet::invalid_argument& e) { return std::string(e.what()) == text; };
}

/// Thesis figure 4.2, transcribed (with `temp` starting at 1, and the figure's typo
/// `node = -= temp` read as `node -= temp`): the reference `hop_node` must agree with.
inline int figure_4_2(int node, int hop) {
    int temp = 1;
    for (int i = 0; i < hop; i++) {
        if (node & temp)
            node -= temp;
        else
            node += temp;
        temp = 2 * temp;
    }
    return node;
}

}  // namespace topology_hypercube_test

BOOST_AUTO_TEST_SUITE(hypercube)

using topology_hypercube_test::says;
using topology_hypercube_test::says_exactly;

BOOST_AUTO_TEST_CASE(is_power_of_two_accepts_exactly_single_bits) {
    static_assert(!comet::is_power_of_two(0));
    static_assert(comet::is_power_of_two(1));
    static_assert(comet::is_power_of_two(std::uint64_t{1} << 63));
    static_assert(!comet::is_power_of_two(6));
    for (std::uint64_t n = 0; n <= 4096; ++n) {
        bool single_bit = false;
        for (int b = 0; b < 64; ++b) single_bit = single_bit || n == (std::uint64_t{1} << b);
        BOOST_TEST(comet::is_power_of_two(n) == single_bit, "n = " << n);
    }
    BOOST_TEST(!comet::is_power_of_two((std::uint64_t{1} << 63) + 1));
    BOOST_TEST(!comet::is_power_of_two(~std::uint64_t{0}));
}

BOOST_AUTO_TEST_CASE(gray_code_table_by_hand) {
    // The 4-bit binary-reflected Gray code, written out.
    const std::uint32_t expected[16] = {0, 1, 3, 2, 6, 7, 5, 4, 12, 13, 15, 14, 10, 11, 9, 8};
    for (std::uint32_t i = 0; i < 16; ++i) BOOST_TEST(comet::gray(i) == expected[i], "i = " << i);
    static_assert(comet::gray(5) == 7);
    static_assert(comet::gray_inverse(7) == 5);
}

BOOST_AUTO_TEST_CASE(gray_neighbours_differ_in_one_bit_including_wrap) {
    for (std::uint32_t i = 0; i + 1 < (1u << 16); ++i)
        BOOST_TEST(std::popcount(comet::gray(i) ^ comet::gray(i + 1)) == 1, "i = " << i);
    // The first and last code of every aligned block of 2^k also differ in one bit: a Gray-coded
    // ring of 2^k nodes closes with a single hypercube link.
    for (int k = 1; k < 32; ++k) {
        const std::uint32_t last = (std::uint32_t{1} << k) - 1;
        BOOST_TEST(std::popcount(comet::gray(0) ^ comet::gray(last)) == 1, "k = " << k);
    }
}

BOOST_AUTO_TEST_CASE(gray_inverse_round_trips) {
    for (std::uint32_t i = 0; i < (1u << 16); ++i) {
        BOOST_TEST(comet::gray_inverse(comet::gray(i)) == i);
        BOOST_TEST(comet::gray(comet::gray_inverse(i)) == i);
    }
    for (std::uint32_t i : {0x7fffffffu, 0x80000000u, 0xdeadbeefu, 0xffffffffu, 0x55555555u, 0xaaaaaaaau}) {
        BOOST_TEST(comet::gray_inverse(comet::gray(i)) == i);
        BOOST_TEST(comet::gray(comet::gray_inverse(i)) == i);
    }
}

BOOST_AUTO_TEST_CASE(hop_node_matches_figure_4_2_table) {
    // Worked by hand for a 16-node cube: flip bits 0..hops-1.
    //                      hops: 0   1   2   3   4
    const int from0[5] = {0, 1, 3, 7, 15};
    const int from5[5] = {5, 4, 6, 2, 10};    // 0101 -> 0100 -> 0110 -> 0010 -> 1010
    const int from10[5] = {10, 11, 9, 13, 5};  // 1010 -> 1011 -> 1001 -> 1101 -> 0101
    const int from15[5] = {15, 14, 12, 8, 0};
    for (int h = 0; h <= 4; ++h) {
        BOOST_TEST(comet::hop_node(0, h, 16) == from0[h]);
        BOOST_TEST(comet::hop_node(5, h, 16) == from5[h]);
        BOOST_TEST(comet::hop_node(10, h, 16) == from10[h]);
        BOOST_TEST(comet::hop_node(15, h, 16) == from15[h]);
    }
}

BOOST_AUTO_TEST_CASE(hop_node_agrees_with_the_figure_and_is_hops_links_away) {
    for (int d = 0; d <= 10; ++d) {
        const int nodes = 1 << d;
        const comet::hypercube cube(nodes);
        for (int node = 0; node < nodes; ++node)
            for (int h = 0; h <= d; ++h) {
                const int partner = comet::hop_node(node, h, nodes);
                BOOST_TEST(partner == topology_hypercube_test::figure_4_2(node, h));
                BOOST_TEST(cube.hop_node(node, h) == partner);
                BOOST_TEST(cube.distance(node, partner) == h);
                // Flipping the same bits twice comes back: echo's partner echoes to us.
                BOOST_TEST(comet::hop_node(partner, h, nodes) == node);
            }
    }
}

BOOST_AUTO_TEST_CASE(hop_node_in_groups_that_are_not_powers_of_two) {
    // 6 ranks (threads transport): 0 -> 1 -> 3 fine, 3 hops would be node 7.
    BOOST_TEST(comet::hop_node(0, 0, 6) == 0);
    BOOST_TEST(comet::hop_node(0, 1, 6) == 1);
    BOOST_TEST(comet::hop_node(0, 2, 6) == 3);
    BOOST_CHECK_EXCEPTION(comet::hop_node(0, 3, 6), comet::invalid_argument,
                          says_exactly("hop_node: 3 hops from node 0 reach node 7, outside the 6 nodes"));
    // Node 5 of 6: 1 and 3 hops land inside, 2 hops does not.
    BOOST_TEST(comet::hop_node(5, 1, 6) == 4);
    BOOST_CHECK_EXCEPTION(comet::hop_node(5, 2, 6), comet::invalid_argument,
                          says_exactly("hop_node: 2 hops from node 5 reach node 6, outside the 6 nodes"));
    BOOST_TEST(comet::hop_node(5, 3, 6) == 2);
    // 3 ranks.
    BOOST_TEST(comet::hop_node(1, 1, 3) == 0);
    BOOST_CHECK_EXCEPTION(comet::hop_node(2, 1, 3), comet::invalid_argument, says("reach node 3"));
    // 1 node: only 0 hops.
    BOOST_TEST(comet::hop_node(0, 0, 1) == 0);
    BOOST_CHECK_EXCEPTION(comet::hop_node(0, 1, 1), comet::invalid_argument, says("reach node 1, outside the 1 nodes"));
}

BOOST_AUTO_TEST_CASE(hop_node_error_paths_name_the_value) {
    BOOST_CHECK_EXCEPTION(comet::hop_node(0, 1, 0), comet::invalid_argument, says("not 0"));
    BOOST_CHECK_EXCEPTION(comet::hop_node(0, 1, -3), comet::invalid_argument, says("not -3"));
    BOOST_CHECK_EXCEPTION(comet::hop_node(-1, 1, 8), comet::invalid_argument,
                          says_exactly("hop_node: node -1 is outside the 8 nodes [0, 8)"));
    BOOST_CHECK_EXCEPTION(comet::hop_node(8, 1, 8), comet::invalid_argument, says("node 8 is outside the 8 nodes"));
    BOOST_CHECK_EXCEPTION(comet::hop_node(0, -2, 8), comet::invalid_argument,
                          says_exactly("hop_node: hop count -2 is negative"));
    BOOST_CHECK_EXCEPTION(comet::hop_node(0, 31, 8), comet::invalid_argument,
                          says("31 hops from node 0 reach node 2147483647"));
    BOOST_CHECK_EXCEPTION(comet::hop_node(0, 62, 8), comet::invalid_argument, says("62 hops from node 0 reach node"));
    BOOST_CHECK_EXCEPTION(comet::hop_node(3, 63, 8), comet::invalid_argument, says("63 hops from node 3"));
    BOOST_CHECK_EXCEPTION(comet::hop_node(3, 1000, 8), comet::invalid_argument, says("1000 hops"));
    // The largest int group still works at its top dimension.
    const int big = 1 << 30;
    BOOST_TEST(comet::hop_node(0, 30, big) == big - 1);
}

BOOST_AUTO_TEST_CASE(max_hops_is_the_largest_valid_hop_count) {
    for (int d = 0; d <= 10; ++d)
        for (int node = 0; node < (1 << d); ++node) BOOST_TEST(comet::max_hops(node, 1 << d) == d);
    // 6 nodes, worked by hand: node 0 reaches 3 with 2 hops but 7 with 3; node 4 reaches 3 with 3.
    const int six[6] = {2, 2, 3, 3, 3, 3};
    for (int node = 0; node < 6; ++node) BOOST_TEST(comet::max_hops(node, 6) == six[node], "node " << node);
    // Against brute force for every small group.
    for (int nodes = 1; nodes <= 70; ++nodes)
        for (int node = 0; node < nodes; ++node) {
            int largest = -1;
            for (int h = 0; h <= 40; ++h) try {
                    comet::hop_node(node, h, nodes);
                    largest = h;
                } catch (const comet::invalid_argument&) {
                }
            BOOST_TEST(comet::max_hops(node, nodes) == largest, nodes << " nodes, node " << node);
        }
}

BOOST_AUTO_TEST_CASE(max_hops_error_paths_name_the_value) {
    BOOST_CHECK_EXCEPTION(comet::max_hops(0, 0), comet::invalid_argument, says("max_hops: a group needs at least 1 node, not 0"));
    BOOST_CHECK_EXCEPTION(comet::max_hops(6, 6), comet::invalid_argument,
                          says_exactly("max_hops: node 6 is outside the 6 nodes [0, 6)"));
    BOOST_CHECK_EXCEPTION(comet::max_hops(-5, 6), comet::invalid_argument, says("node -5"));
}

BOOST_AUTO_TEST_CASE(constructor_and_dimension) {
    for (int d = 0; d <= 20; ++d) {
        const comet::hypercube cube(1 << d);
        BOOST_TEST(cube.nodes() == (1 << d));
        BOOST_TEST(cube.dimension() == d);
    }
    BOOST_TEST(comet::hypercube::max_nodes == (1 << 20));
    BOOST_TEST((comet::hypercube(8) == comet::hypercube(8)));
    BOOST_TEST((comet::hypercube(8) != comet::hypercube(16)));
}

BOOST_AUTO_TEST_CASE(constructor_error_paths_name_the_value) {
    BOOST_CHECK_EXCEPTION(comet::hypercube(12), comet::invalid_argument,
                          says_exactly("hypercube: 12 nodes is not a power of two"));
    BOOST_CHECK_EXCEPTION(comet::hypercube(6), comet::invalid_argument, says("6 nodes is not a power of two"));
    BOOST_CHECK_EXCEPTION(comet::hypercube(0), comet::invalid_argument, says("not 0"));
    BOOST_CHECK_EXCEPTION(comet::hypercube(-4), comet::invalid_argument, says("not -4"));
    BOOST_CHECK_EXCEPTION(comet::hypercube(1 << 21), comet::invalid_argument,
                          says_exactly("hypercube: 2097152 nodes is more than the 1048576 supported"));
}

BOOST_AUTO_TEST_CASE(member_hop_node_limits_hops_to_the_dimension) {
    const comet::hypercube cube(16);
    BOOST_TEST(cube.hop_node(6, 0) == 6);
    BOOST_TEST(cube.hop_node(6, 4) == 9);
    BOOST_CHECK_EXCEPTION(cube.hop_node(0, 5), comet::invalid_argument,
                          says_exactly("hypercube::hop_node: 5 hops is outside [0, 4] for the dimension-4 cube"));
    BOOST_CHECK_EXCEPTION(cube.hop_node(0, -1), comet::invalid_argument, says("-1 hops"));
    BOOST_CHECK_EXCEPTION(cube.hop_node(16, 1), comet::invalid_argument,
                          says_exactly("hypercube::hop_node: node 16 is outside the 16 nodes [0, 16)"));
    BOOST_CHECK_EXCEPTION(comet::hypercube(1).hop_node(0, 1), comet::invalid_argument, says("1 hops is outside [0, 0]"));
}

BOOST_AUTO_TEST_CASE(distance_is_hamming_distance) {
    const comet::hypercube cube(32);
    BOOST_TEST(cube.distance(0, 31) == 5);
    BOOST_TEST(cube.distance(5, 10) == 4);
    BOOST_TEST(cube.distance(12, 13) == 1);
    BOOST_TEST(cube.distance(7, 7) == 0);
    for (int a = 0; a < 32; ++a)
        for (int b = 0; b < 32; ++b) {
            BOOST_TEST(cube.distance(a, b) == cube.distance(b, a));
            BOOST_TEST((cube.distance(a, b) == 0) == (a == b));
            for (int c = 0; c < 32; c += 7) BOOST_TEST(cube.distance(a, c) <= cube.distance(a, b) + cube.distance(b, c));
        }
    BOOST_CHECK_EXCEPTION(cube.distance(32, 0), comet::invalid_argument, says("node 32 is outside the 32 nodes"));
    BOOST_CHECK_EXCEPTION(cube.distance(0, -1), comet::invalid_argument, says("node -1"));
}

BOOST_AUTO_TEST_CASE(e_cube_routes_by_hand) {
    const comet::hypercube cube(16);
    BOOST_TEST(cube.route(0, 11) == (std::vector<int>{0, 1, 3, 11}));
    BOOST_TEST(cube.route_dimensions(0, 11) == (std::vector<int>{0, 1, 3}));
    BOOST_TEST(cube.route(11, 0) == (std::vector<int>{11, 10, 8, 0}));
    BOOST_TEST(cube.route(6, 9) == (std::vector<int>{6, 7, 5, 1, 9}));
    BOOST_TEST(cube.route(5, 5) == (std::vector<int>{5}));
    BOOST_TEST(cube.route_dimensions(5, 5).empty());
    // E-cube routes are not symmetric: 0 -> 3 goes through 1, 3 -> 0 through 2. Traffic in the
    // two directions uses different links, which the contention model must know.
    BOOST_TEST(cube.route(0, 3) == (std::vector<int>{0, 1, 3}));
    BOOST_TEST(cube.route(3, 0) == (std::vector<int>{3, 2, 0}));
    BOOST_TEST(comet::hypercube(1).route(0, 0) == (std::vector<int>{0}));
}

BOOST_AUTO_TEST_CASE(e_cube_route_properties_for_every_pair) {
    const comet::hypercube cube(64);
    for (int from = 0; from < 64; ++from)
        for (int to = 0; to < 64; ++to) {
            const auto path = cube.route(from, to);
            const auto dims = cube.route_dimensions(from, to);
            BOOST_TEST_REQUIRE(path.size() == static_cast<std::size_t>(cube.distance(from, to)) + 1);
            BOOST_TEST_REQUIRE(dims.size() + 1 == path.size());
            BOOST_TEST(path.front() == from);
            BOOST_TEST(path.back() == to);
            for (std::size_t i = 0; i + 1 < path.size(); ++i) {
                // One link per step, across the dimension route_dimensions names ...
                BOOST_TEST(cube.distance(path[i], path[i + 1]) == 1);
                BOOST_TEST((path[i] ^ path[i + 1]) == (1 << dims[i]));
                BOOST_TEST(cube.neighbour(path[i], dims[i]) == path[i + 1]);
                // ... lowest dimension first.
                if (i > 0) BOOST_TEST(dims[i - 1] < dims[i]);
            }
        }
}

BOOST_AUTO_TEST_CASE(route_error_paths_name_the_value) {
    const comet::hypercube cube(8);
    BOOST_CHECK_EXCEPTION(cube.route(8, 0), comet::invalid_argument,
                          says_exactly("hypercube::route: node 8 is outside the 8 nodes [0, 8)"));
    BOOST_CHECK_EXCEPTION(cube.route(0, -3), comet::invalid_argument, says("node -3"));
    BOOST_CHECK_EXCEPTION(cube.route_dimensions(0, 100), comet::invalid_argument,
                          says_exactly("hypercube::route_dimensions: node 100 is outside the 8 nodes [0, 8)"));
}

BOOST_AUTO_TEST_CASE(neighbours_one_per_dimension) {
    const comet::hypercube cube(16);
    BOOST_TEST(cube.neighbours(5) == (std::vector<int>{4, 7, 1, 13}));
    BOOST_TEST(cube.neighbours(0) == (std::vector<int>{1, 2, 4, 8}));
    for (int node = 0; node < 16; ++node) {
        const auto ns = cube.neighbours(node);
        BOOST_TEST_REQUIRE(ns.size() == 4u);
        for (int d = 0; d < 4; ++d) {
            const int across = ns[static_cast<std::size_t>(d)];
            BOOST_TEST(across == cube.neighbour(node, d));
            BOOST_TEST(cube.distance(node, across) == 1);
            BOOST_TEST(cube.neighbour(across, d) == node);
        }
    }
    BOOST_TEST(comet::hypercube(1).neighbours(0).empty());
}

BOOST_AUTO_TEST_CASE(neighbour_error_paths_name_the_value) {
    const comet::hypercube cube(16);
    BOOST_CHECK_EXCEPTION(cube.neighbour(0, 4), comet::invalid_argument,
                          says_exactly("hypercube::neighbour: dimension 4 is outside [0, 4) for the dimension-4 cube"));
    BOOST_CHECK_EXCEPTION(cube.neighbour(0, -1), comet::invalid_argument, says("dimension -1"));
    BOOST_CHECK_EXCEPTION(cube.neighbour(17, 0), comet::invalid_argument, says("node 17"));
    BOOST_CHECK_EXCEPTION(cube.neighbours(-1), comet::invalid_argument,
                          says_exactly("hypercube::neighbours: node -1 is outside the 16 nodes [0, 16)"));
    BOOST_CHECK_EXCEPTION(comet::hypercube(1).neighbour(0, 0), comet::invalid_argument, says("dimension 0"));
}

BOOST_AUTO_TEST_SUITE_END()
