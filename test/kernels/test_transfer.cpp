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
        const auto r = run(nodes, [&](transport& t) { return comet::kernels::echo(t, cfg); });
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
    run(2, [&](transport& t) { comet::kernels::echo(t, cfg); });
    BOOST_TEST(seen == (std::vector<std::string>{"echo0", "echo8", "echo100", "echo5000"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_shuffled_order_is_recorded_with_its_seed_and_the_records_stay_in_point_order) {
    auto cfg = quick;
    cfg.sampling.order = comet::interleave::shuffle;
    cfg.sampling.seed = 7;
    const auto r = run(4, [&](transport& t) { return comet::kernels::echo(t, cfg); });
    const auto& records = r[0].records;
    BOOST_REQUIRE_EQUAL(records.size(), 2u * 4u);  // hops 1, 2 of 4 nodes, 4 sizes
    std::size_t i = 0;
    for (std::int64_t h : {1, 2})
        for (std::int64_t size : {0, 8, 100, 5000}) {
            const auto& rec = records[i++];
            BOOST_TEST(*rec.params.integer("hops") == h);
            BOOST_TEST(*rec.params.integer("size") == size);
            BOOST_TEST(*rec.params.text("order") == "shuffle");
            BOOST_TEST(*rec.params.integer("seed") == 7);
            BOOST_TEST(rec.samples.size() == 2u);
        }
    // Round robin records no seed: it would say nothing.
    const auto rr = run(2, [&](transport& t) { return comet::kernels::echo(t, quick); });
    BOOST_TEST(!rr[0].records.at(0).params.contains("seed"));
}

BOOST_AUTO_TEST_CASE(bad_inputs_name_the_value_and_rank) {
    const auto fails_with = [](int nodes, comet::kernels::transfer_config cfg, std::initializer_list<const char*> words) {
        BOOST_CHECK_EXCEPTION(run(nodes, [&](transport& t) { comet::kernels::echo(t, cfg); }), comet::invalid_argument,
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
    // Sampling values fail in check_sampling, which names the kernel, the field and its value.
    c = quick;
    c.sampling = {.max_samples = 2};  // below the default min_samples of 15
    fails_with(2, c, {"rank 0", "echo: sampling.max_samples = 2 is below min_samples = 15"});
    c = quick;
    c.sampling.min_samples = 0;
    fails_with(2, c, {"echo: sampling.min_samples must be at least 1, got 0"});
    c = quick;
    c.sampling.iterations = 2'000'000'000;
    fails_with(2, c, {"echo: sampling.iterations = 2000000000 is over 10^9"});
    c = quick;
    c.tag = 40000;
    fails_with(2, c, {"tag 40000"});
}

BOOST_AUTO_TEST_SUITE_END()
