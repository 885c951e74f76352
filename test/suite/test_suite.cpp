// Tests of comet/suite/suite.hpp: the kernel list, checking a request, which groups a kernel
// runs on, the points a run measures, running a suite on the threads transport, and its
// analysis.
#include <comet/suite/suite.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"
#include "../support/suite_config.hpp"

namespace suite_test {

/// A small suite: a few sizes, few repetitions.
comet::suite_config small(std::vector<std::string> kernels) {
    comet::suite_config c{.kernels = std::move(kernels)};
    c.transfer.sizes = {0, 8, 64, 100, 128, 1024, 2048, 4096};
    c.transfer.max_times = c.broadcast.max_times = c.global_sum.max_times = c.barrier.max_times = 20;
    c.transfer.samples = c.broadcast.samples = c.global_sum.samples = c.barrier.samples = 1;
    c.broadcast.sizes = {8, 1024};
    c.global_sum.vector_lengths = {1, 100};
    c.matrix.dims = {2, 4, 8};
    c.matrix.max_times = 5;
    c.matrix.samples = 1;
    return c;
}

}  // namespace suite_test

BOOST_AUTO_TEST_SUITE(suite)

using suite_test::small;

BOOST_AUTO_TEST_CASE(kernel_list_follows_the_thesis) {
    const auto& all = comet::suite_kernels();
    BOOST_REQUIRE_EQUAL(all.size(), 12u);
    BOOST_TEST(all.front().name == "echo");
    BOOST_TEST(all.back().name == "col_broadcast");
    BOOST_TEST(comet::implemented_kernels().size() == 12u);
    BOOST_TEST(comet::is_matrix_kernel("transpose"));
    BOOST_TEST(!comet::is_matrix_kernel("barrier"));
}

BOOST_AUTO_TEST_CASE(unknown_kernels_are_named) {
    BOOST_CHECK_EXCEPTION(comet::check_suite({.kernels = {"echo", "teleport"}}), comet::invalid_argument,
                          [](const auto& e) { return comet_test::mentions(e, {"unknown kernel 'teleport'", "available: echo"}); });
}

BOOST_AUTO_TEST_CASE(kernels_skip_groups_too_small_for_them) {
    BOOST_TEST(!comet::suite_skip_reason("barrier", 1).has_value());
    BOOST_TEST(*comet::suite_skip_reason("echo", 1) == "needs at least 2 ranks");
    BOOST_TEST(*comet::suite_skip_reason("contention", 3) == "needs at least 4 ranks");
    BOOST_TEST(comet::suite_skip_reason("update_guard", 6)->find("processor mesh") != std::string::npos);
    BOOST_TEST(!comet::suite_skip_reason("update_guard", 8).has_value());
}

BOOST_AUTO_TEST_CASE(points_count_what_will_be_measured) {
    auto cfg = small({"echo", "pairwise"});
    cfg.transfer.sizes = {0, 8, 100};
    BOOST_TEST(comet::suite_points(cfg, 16) == 2u * 4u * 3u);  // 4 hop distances in a 16-node cube
    cfg.transfer.hops = {1};
    BOOST_TEST(comet::suite_points(cfg, 16) == 2u * 3u);
    cfg = small({"broadcast", "global_sum", "barrier", "contention"});
    BOOST_TEST(comet::suite_points(cfg, 2) == 2u + 2u + 1u);  // contention skipped on 2
    cfg = small({"update_guard", "shift_matrix"});
    BOOST_TEST(comet::suite_points(cfg, 4) == 3u + 2u * 3u);  // shift: north and east
    BOOST_TEST(comet::suite_points(cfg, 3) == 0u);
}

BOOST_AUTO_TEST_CASE(run_and_analyse_over_two_group_sizes) {
    const auto cfg_for = [](int) { return small({"pairwise", "echo", "barrier", "global_sum", "update_guard", "contention"}); };
    comet::report rep;
    std::size_t seen = 0;
    for (int p : {2, 4}) {
        auto cfg = cfg_for(p);
        cfg.contention.sizes = {8, 1024};
        cfg.contention.max_times = 5;
        cfg.contention.samples = 1;
        cfg.on_point = [&](const comet::record&) { ++seen; };
        const auto r = comet::threads::run(p, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg); });
        BOOST_TEST(r[1].empty());
        rep.results.append(r[0]);
        if (p == 4) BOOST_TEST(seen == comet::suite_points(cfg, 2) + comet::suite_points(cfg, 4));
    }
    BOOST_TEST(rep.results.records.front().kernel == "pairwise");  // in the order asked
    comet::analyse(rep, {.break_size = 100});
    BOOST_TEST(rep.notes.empty());
    // Transfer fits on the largest group only: small and large for both kernels.
    BOOST_TEST(rep.fits.size() == 4u);
    for (const auto& f : rep.fits) BOOST_TEST(f.hop.has_value());  // 4 nodes: hop distances 1 and 2
    BOOST_TEST(rep.log_p.size() == 1u + 2u);  // barrier; global_sum per vector length
    BOOST_TEST(rep.growth.size() == 1u);      // update_guard on 4 nodes
    BOOST_TEST(rep.contention.size() == 2u);  // loads 0.5 and 0.9 against idle
}

// The whole suite on 2, 4 and 8 threads (8: more ranks than cores), every kernel that fits the
// group recording on rank 0 and the matrix kernels verifying their results exactly.
BOOST_AUTO_TEST_CASE(the_whole_suite_runs_on_2_4_and_8_ranks) {
    for (int p : {2, 4, 8}) {
        const auto r = comet::threads::run(p, [](comet::threads::transport& t) {
            return comet::run_suite(t, comet_test::whole_suite_small());
        });
        comet_test::check_every_kernel_recorded(r[0], p);
        for (int rank = 1; rank < p; ++rank) BOOST_TEST(r[static_cast<std::size_t>(rank)].empty());
    }
}

BOOST_AUTO_TEST_CASE(what_cannot_be_derived_becomes_a_note) {
    auto cfg = small({"pairwise", "barrier"});
    cfg.transfer.sizes = {8};
    const auto r = comet::threads::run(2, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg); });
    comet::report rep;
    rep.results = r[0];
    comet::analyse(rep);
    BOOST_REQUIRE_EQUAL(rep.notes.size(), 2u);
    BOOST_TEST(rep.notes[0].find("no fit for pairwise") == 0u);
    BOOST_TEST(rep.notes[1].find("no growth with P for barrier") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
