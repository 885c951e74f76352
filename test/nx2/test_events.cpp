// Tests of comet/transport/nx2/events.hpp: the queue orders by time, then by insertion.
#include <comet/transport/nx2/events.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

BOOST_AUTO_TEST_SUITE(nx2_events)

using namespace comet::nx2::detail;

BOOST_AUTO_TEST_CASE(time_then_insertion_order) {
    event_queue q;
    q.push(50, event_kind::net_done, 1);
    q.push(10, event_kind::resume_app, 2);
    q.push(50, event_kind::handler_end, 3);
    q.push(10, event_kind::net_step, 4);
    q.push(50, event_kind::resume_app, 5);
    std::vector<int> order;
    while (!q.empty()) order.push_back(q.pop().node);
    BOOST_TEST(order == (std::vector<int>{2, 4, 1, 3, 5}), boost::test_tools::per_element());
    BOOST_TEST(q.pushed() == 5u);
}

BOOST_AUTO_TEST_CASE(many_ties_stay_in_insertion_order) {
    event_queue q;
    for (int i = 0; i < 1000; ++i) q.push(i % 3, event_kind::resume_app, i);
    int last_time = -1, last_node = -1;
    while (!q.empty()) {
        const event e = q.pop();
        BOOST_TEST(e.time >= last_time);
        if (e.time == last_time) BOOST_TEST(e.node > last_node);
        last_time = static_cast<int>(e.time);
        last_node = e.node;
    }
}

// Pushes and pops interleaved, as a run does, over a heap deep enough for several levels: every
// pop is the earliest (time, insertion) of what is queued, checked against a plain scan.
BOOST_AUTO_TEST_CASE(interleaved_pushes_and_pops_come_out_earliest_first) {
    event_queue q;
    std::vector<std::tuple<comet::nx2::vtime, std::uint64_t, int>> queued;  // (time, seq, node)
    std::uint64_t x = 12345, seq = 0;
    const auto next = [&] { return x = x * 6364136223846793005u + 1442695040888963407u; };
    int node = 0;
    for (int round = 0; round < 20000; ++round) {
        const int pushes = static_cast<int>(next() >> 62);  // 0..3: the heap grows, then drains
        for (int i = 0; i < pushes + (round < 10000 ? 1 : 0); ++i) {
            const auto t = static_cast<comet::nx2::vtime>((next() >> 40) % 64);  // many ties
            q.push(t, event_kind::resume_app, node);
            queued.emplace_back(t, seq++, node++);
        }
        if (queued.empty()) continue;
        const auto earliest = std::min_element(queued.begin(), queued.end());
        const event e = q.pop();
        BOOST_TEST_REQUIRE(e.time == std::get<0>(*earliest));
        BOOST_TEST_REQUIRE(e.node == std::get<2>(*earliest));
        queued.erase(earliest);
    }
    BOOST_TEST(q.size() == queued.size());
}

BOOST_AUTO_TEST_SUITE_END()
