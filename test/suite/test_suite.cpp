// Tests of comet/suite/suite.hpp: the kernel list, checking a request, running a suite on
// the threads transport, and its analysis.
#include <comet/suite/suite.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

BOOST_AUTO_TEST_SUITE(suite)

BOOST_AUTO_TEST_CASE(kernel_list_follows_the_thesis) {
    const auto& all = comet::suite_kernels();
    BOOST_REQUIRE_EQUAL(all.size(), 12u);
    BOOST_TEST(all.front().name == "echo");
    BOOST_TEST(all.back().name == "col_broadcast");
    for (const auto& name : comet::implemented_kernels())
        BOOST_TEST(std::any_of(all.begin(), all.end(), [&](const auto& k) { return k.name == name && k.implemented; }));
}

BOOST_AUTO_TEST_CASE(unknown_and_unimplemented_kernels_are_named) {
    BOOST_CHECK_EXCEPTION(comet::check_suite({.kernels = {"echo", "teleport"}}), comet::invalid_argument,
                          [](const auto& e) { return comet_test::mentions(e, {"unknown kernel 'teleport'", "available: echo"}); });
    for (const auto& k : comet::suite_kernels())
        if (!k.implemented)
            BOOST_CHECK_EXCEPTION(comet::check_suite({.kernels = {std::string(k.name)}}), comet::invalid_argument,
                                  [](const auto& e) { return comet_test::mentions(e, {"is not implemented yet"}); });
}

BOOST_AUTO_TEST_CASE(points_count_hops_and_sizes) {
    comet::suite_config cfg{.kernels = {"echo", "pairwise"}};
    cfg.transfer.sizes = {0, 8, 100};
    BOOST_TEST(comet::suite_points(cfg, 16) == 2u * 4u * 3u);  // 4 hop distances in a 16-node cube
    cfg.transfer.hops = {1};
    BOOST_TEST(comet::suite_points(cfg, 16) == 2u * 3u);
}

BOOST_AUTO_TEST_CASE(run_and_analyse) {
    comet::suite_config cfg{.kernels = {"pairwise", "echo"}};
    cfg.transfer.sizes = {0, 8, 64, 100, 128, 1024, 2048, 4096};
    cfg.transfer.max_times = 20;
    cfg.transfer.samples = 1;
    std::size_t seen = 0;
    cfg.on_point = [&](const comet::record&) { ++seen; };
    const auto r = comet::threads::run(4, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg); });
    BOOST_TEST(seen == comet::suite_points(cfg, 4));
    BOOST_REQUIRE_EQUAL(r[0].size(), seen);
    BOOST_TEST(r[0].records.front().kernel == "pairwise");  // in the order asked
    BOOST_TEST(r[1].empty());

    comet::report rep;
    rep.results = r[0];
    const auto notes = comet::analyse(rep, {.break_size = 100});
    BOOST_TEST(notes.empty());
    BOOST_TEST(rep.fits.size() == 4u);       // small and large, for both kernels
    BOOST_TEST(rep.bandwidth.size() == 4u);  // hops 1 and 2, for both kernels

    comet::report few;
    few.results.records = {r[0].records.front()};  // one size: nothing to fit
    const auto why = comet::analyse(few);
    BOOST_REQUIRE_EQUAL(why.size(), 1u);
    BOOST_TEST(why[0].find("no fit for pairwise") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
