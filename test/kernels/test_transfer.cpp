// Tests of comet/kernels/transfer.hpp (through echo, the simplest kernel built on it): default
// hop distances, the on_point hook, and every bad input.
#include <comet/kernels/echo.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>


BOOST_AUTO_TEST_SUITE(transfer)

using namespace transfer_test;

BOOST_AUTO_TEST_CASE(default_hops_follow_the_group) {
    const auto hops_of = [](int nodes, int test_node) {
        auto cfg = quick;
        cfg.sizes = {8};
        cfg.test_node = test_node;
        const auto r = run(nodes, [&](transport& t) { return comet::echo(t, cfg); });
        std::vector<std::int64_t> hops;
        for (const auto& rec : r[static_cast<std::size_t>(test_node)].records) hops.push_back(*rec.params.integer("hops"));
        return hops;
    };
    BOOST_TEST(hops_of(2, 0) == (std::vector<std::int64_t>{1}), boost::test_tools::per_element());
    BOOST_TEST(hops_of(16, 0) == (std::vector<std::int64_t>{1, 2, 3, 4}), boost::test_tools::per_element());
    // Six ranks: from node 5, one hop reaches 4, two hops would reach 6 (outside), three reach 2.
    BOOST_TEST(hops_of(6, 5) == (std::vector<std::int64_t>{1, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(on_point_sees_each_record) {
    std::vector<std::string> seen;
    auto cfg = quick;
    cfg.on_point = [&](const comet::record& rec) { seen.push_back(rec.kernel + std::to_string(*rec.params.integer("size"))); };
    run(2, [&](transport& t) { comet::echo(t, cfg); });
    BOOST_TEST(seen == (std::vector<std::string>{"echo0", "echo8", "echo100", "echo5000"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bad_inputs_name_the_value_and_rank) {
    const auto fails_with = [](int nodes, comet::transfer_config cfg, std::initializer_list<const char*> words) {
        BOOST_CHECK_EXCEPTION(run(nodes, [&](transport& t) { comet::echo(t, cfg); }), comet::invalid_argument,
                              [&](const auto& e) { return mentions(e, words); });
    };
    fails_with(1, quick, {"rank 0", "echo needs at least 2 ranks; the group has 1"});
    auto c = quick;
    c.hops = {3};
    fails_with(4, c, {"echo", "3 hops from node 0 reach node 7, outside the 4 nodes"});
    c.hops = {-1};
    fails_with(4, c, {"echo: hop distance -1 is negative"});
    c = quick;
    c.sizes = {8, comet::max_message_size + 1};
    fails_with(2, c, {"message size 2147483648 exceeds"});
    c = quick;
    c.test_node = 2;
    fails_with(2, c, {"test node 2 is outside 0..1"});
    c = quick;
    c.max_times = 0;
    fails_with(2, c, {"max_times must be at least 1"});
    c = quick;
    c.samples = 0;
    fails_with(2, c, {"samples must be at least 1"});
    c = quick;
    c.tag = 40000;
    fails_with(2, c, {"tag 40000"});
}

BOOST_AUTO_TEST_SUITE_END()
