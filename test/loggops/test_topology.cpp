// Tests of comet/transport/loggops/topology.hpp: the routes of a torus (by dimension, the short
// way) and of a fat tree (up to the lowest common switch and down, by the destination's
// digits), the sizes of a torus from its node count, the topology's text, and on the LogGOPS
// machine: a message's hops beyond the shortest route, packets queueing on a shared link and
// not on disjoint ones, the conformance suite, and a machine too big for the host refused.
#if COMET_TEST_HAS_NX2
#include <comet/testing/conformance.hpp>
#include <comet/transport/loggops.hpp>

#include "../support/loggops_machines.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace loggops_topology_test {

using namespace comet::loggops;

std::vector<std::uint64_t> route(const links& l, int from, int to) {
    std::vector<std::uint64_t> out;
    l.route(from, to, [&](std::uint64_t link) { out.push_back(link); });
    return out;
}

/// Runs a conformance check on a machine of as many nodes as ranks, on `network`.
struct runner {
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = true;
    shape network;
    int max_ranks() const { return 1024; }
    template <class F>
    void operator()(int ranks, F&& body) const {
        machine m;
        m.network = network;
        m.nodes = ranks;
        comet::loggops::run(m, std::forward<F>(body));
    }
};

/// When rank `to` finishes receiving 1000 bytes that rank 0 sends it at time 0 on `m` (every
/// other rank idle).
vtime received_at(const machine& m, int to) {
    const auto out = comet::loggops::run(m, [&](transport& t) {
        std::vector<std::byte> b(1000);
        if (t.rank() == 0) t.send(to, 0, b);
        if (t.rank() != to) return vtime{0};
        t.recv(0, 0, b);
        return t.clock();
    });
    return out[static_cast<std::size_t>(to)];
}

}  // namespace loggops_topology_test

COMET_TRANSPORT_CONFORMANCE(loggops_conformance_torus, (loggops_topology_test::runner{comet::loggops::parse_shape("torus 2")}))
COMET_TRANSPORT_CONFORMANCE(loggops_conformance_fat_tree, (loggops_topology_test::runner{comet::loggops::parse_shape("fat_tree 4")}))

BOOST_AUTO_TEST_SUITE(loggops_topology)

using namespace loggops_topology_test;

BOOST_AUTO_TEST_CASE(a_torus_routes_by_dimension_the_short_way_round) {
    const links t(parse_shape("torus 4x4"), 16);
    BOOST_TEST(t.count() == 64u);  // two directions of two dimensions per node
    BOOST_TEST(t.nearest() == 1);
    BOOST_TEST(route(t, 0, 1) == (std::vector<std::uint64_t>{0}));  // node 0, dimension 0, upwards
    BOOST_TEST(route(t, 0, 3) == (std::vector<std::uint64_t>{1}));  // downwards: round the ring
    BOOST_TEST(route(t, 0, 2) == (std::vector<std::uint64_t>{0, 4}));  // half way: upwards, through node 1
    BOOST_TEST(route(t, 0, 5) == (std::vector<std::uint64_t>{0, 6}));  // dimension 0 first, then 1 from node 1
    BOOST_TEST(route(t, 7, 7).empty());

    // Every pair of a 4 x 3 x 5 torus: as many links as the torus distance, each a link of
    // the torus, none twice.
    const std::vector<int> sizes{4, 3, 5};
    const links big(parse_shape("torus 4x3x5"), 60);
    for (int a = 0; a < 60; ++a)
        for (int b = 0; b < 60; ++b) {
            int distance = 0;
            for (int i = 0, stride = 1; i < 3; stride *= sizes[static_cast<std::size_t>(i)], ++i) {
                const int n = sizes[static_cast<std::size_t>(i)];
                const int d = std::abs((a / stride) % n - (b / stride) % n);
                distance += std::min(d, n - d);
            }
            const auto r = route(big, a, b);
            BOOST_TEST(r.size() == static_cast<std::size_t>(distance), a << " -> " << b);
            BOOST_TEST(std::set<std::uint64_t>(r.begin(), r.end()).size() == r.size());
            for (auto l : r) BOOST_TEST(l < big.count());
        }
}

BOOST_AUTO_TEST_CASE(a_torus_takes_its_sizes_from_the_node_count_as_evenly_as_it_goes) {
    BOOST_TEST(balanced_sizes(1 << 20, 3) == (std::vector<int>{128, 128, 64}));
    BOOST_TEST(balanced_sizes(12, 2) == (std::vector<int>{4, 3}));
    BOOST_TEST(balanced_sizes(7, 3) == (std::vector<int>{7, 1, 1}));  // a prime: a ring
    BOOST_TEST(balanced_sizes(1, 2) == (std::vector<int>{1, 1}));
    BOOST_TEST(links(parse_shape("torus 3"), 64).describe() == "a 4 x 4 x 4 torus");
}

BOOST_AUTO_TEST_CASE(a_fat_tree_goes_up_to_the_lowest_common_switch_choosing_by_the_destination) {
    const links f(parse_shape("fat_tree 4"), 64);  // 3 levels of 4-port switches
    BOOST_TEST(f.describe() == "a 4-ary 3-tree fat tree (64 ports at the leaves)");
    BOOST_TEST(f.count() == 2u * 3u * 64u);
    BOOST_TEST(f.nearest() == 2);
    BOOST_TEST(route(f, 0, 1).size() == 2u);   // one leaf switch
    BOOST_TEST(route(f, 0, 5).size() == 4u);   // up to level 2
    BOOST_TEST(route(f, 0, 17).size() == 6u);  // up to the top
    for (int a = 0; a < 64; ++a)
        for (int b = 0; b < 64; ++b) {
            const auto r = route(f, a, b);
            if (a == b) {
                BOOST_TEST(r.empty());
                continue;
            }
            BOOST_TEST(r.front() == static_cast<std::uint64_t>(a));  // the node's own link up
            BOOST_TEST(r.back() == static_cast<std::uint64_t>(3 * 64 + b));  // the leaf's link down to it
            BOOST_TEST(std::set<std::uint64_t>(r.begin(), r.end()).size() == r.size());
            for (auto l : r) BOOST_TEST(l < f.count());
        }
    // d-mod-k: from one leaf, the way up is the destination's lowest digit. 0 -> 5 and 1 -> 9
    // (both ...1) share the leaf's up port 1; 0 -> 5 and 1 -> 6 share nothing.
    const auto shared = [&](int a, int b, int c, int d) {
        const auto x = route(f, a, b), y = route(f, c, d);
        std::set<std::uint64_t> both;
        for (auto l : x)
            if (std::find(y.begin(), y.end(), l) != y.end()) both.insert(l);
        return both.size();
    };
    BOOST_TEST(shared(0, 5, 1, 9) == 1u);
    BOOST_TEST(shared(0, 5, 1, 6) == 0u);
}

BOOST_AUTO_TEST_CASE(the_topology_reads_back_and_bad_ones_are_refused_naming_the_text) {
    for (const char* text : {"full", "torus 3", "torus 16x16x8", "fat_tree 16"})
        BOOST_TEST(to_string(parse_shape(text)) == text);
    const auto says = [](const std::string& text, const std::string& words) {
        try {
            parse_shape(text);
        } catch (const comet::invalid_argument& e) {
            const std::string w = e.what();
            BOOST_TEST(w.find(words) != std::string::npos, w);
            return;
        }
        BOOST_FAIL("not refused: " + text);
    };
    says("ring", "loggops topology 'ring': the kinds are 'full', 'torus D', 'torus AxBxC' and 'fat_tree K'");
    says("torus", "the number of dimensions '' is not a whole number of 1..8");
    says("torus 9", "the number of dimensions '9'");
    says("torus 4x0", "a dimension's size '0'");
    says("torus 4xx4", "a dimension's size ''");
    says("fat_tree 1", "the switches' radix K '1' is not a whole number of 2..1024");
    says("fat_tree 4 2", "more than a kind and one argument");
    BOOST_CHECK_EXCEPTION(links(parse_shape("torus 4x4"), 8), comet::invalid_argument, [](const auto& e) {
        return std::string(e.what()).find("'torus 4x4' has 16 nodes, not the machine's 8") != std::string::npos;
    });
}

BOOST_AUTO_TEST_CASE(a_message_pays_a_hop_per_link_beyond_the_shortest_route) {
    machine m = comet_test::distinct_loggops_machine();
    m.hop = 150 * nanoseconds;
    m.nodes = 16;
    const vtime full = received_at(m, 1);
    m.network = parse_shape("torus 4x4");
    BOOST_TEST(received_at(m, 1) == full);                // a neighbour: L
    BOOST_TEST(received_at(m, 5) == full + m.hop);        // 2 links
    BOOST_TEST(received_at(m, 10) == full + 3 * m.hop);   // 4 links: (2, 2)
    m.network = parse_shape("fat_tree 4");
    BOOST_TEST(received_at(m, 1) == full);                // one leaf switch: L
    BOOST_TEST(received_at(m, 5) == full + 2 * m.hop);    // up to level 2 and down: 4 links
}

BOOST_AUTO_TEST_CASE(packets_that_meet_on_a_link_queue_and_packets_on_disjoint_routes_do_not) {
    // A binary fat tree of 8 nodes; 0 and 1 send 10,000 bytes at once. To 4 and 6 (both even)
    // they take the same port up from their leaf switch: the second waits there the first's
    // G·s. To 4 and 5 the routes share no link: both land at once, as fully connected.
    machine m = comet_test::distinct_loggops_machine();
    m.nodes = 8;
    m.S = no_rendezvous;
    const std::size_t s = 10'000;
    const auto landing = [&](int a, int b) {
        const auto out = comet::loggops::run(m, [&](transport& t) {
            std::vector<std::byte> buf(s);
            if (t.rank() == 0) t.send(a, 0, buf);
            if (t.rank() == 1) t.send(b, 0, buf);
            if (t.rank() != a && t.rank() != b) return vtime{0};
            t.recv(t.rank() == a ? 0 : 1, 0, buf);
            return t.clock();
        });
        return std::pair{out[static_cast<std::size_t>(a)], out[static_cast<std::size_t>(b)]};
    };
    const auto alone = landing(4, 5);
    BOOST_TEST(alone.first == alone.second);
    m.network = parse_shape("fat_tree 2");
    const auto disjoint = landing(4, 5);
    BOOST_TEST(disjoint.first == disjoint.second);
    BOOST_TEST(disjoint.first == alone.first + 4 * m.hop);  // 6 links, 2 of them the shortest route's
    const auto meeting = landing(4, 6);
    BOOST_TEST(meeting.first == disjoint.first);
    BOOST_TEST(meeting.second == meeting.first + bytes_time(m.G, s));
    // Fully connected, the same two messages never meet.
    m.network = shape{};
    const auto apart = landing(4, 6);
    BOOST_TEST(apart.first == apart.second);
}

BOOST_AUTO_TEST_CASE(a_topology_too_big_for_the_host_is_refused_before_it_starts) {
    machine m;
    m.network = parse_shape("fat_tree 2");
    m.nodes = 1 << 24;  // 24 levels: 805,306,368 links, 6 GiB of their state
    BOOST_CHECK_EXCEPTION(comet::loggops::detail::check_memory_for(m, 4, std::uint64_t{1} << 30), comet::error, [](const auto& e) {
        const std::string w = e.what();
        BOOST_TEST_MESSAGE(w);
        return w.find("4 ranks of 16777216 nodes on a 2-ary 24-tree fat tree (16777216 ports at the leaves) need at least 6144 MiB "
                      "(6144 MiB of it the links' state); this host has 1024 MiB available") != std::string::npos;
    });
    m.network = shape{};
    comet::loggops::detail::check_memory_for(m, 4, std::uint64_t{1} << 30);  // fully connected: no links
}

BOOST_AUTO_TEST_SUITE_END()
#endif
