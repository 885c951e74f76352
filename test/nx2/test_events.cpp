// Tests of comet/transport/nx2/events.hpp: the queue orders by time, then by insertion.
#include <comet/transport/nx2/events.hpp>

#include <boost/test/unit_test.hpp>

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

BOOST_AUTO_TEST_SUITE_END()
