// Tests of comet/analysis/overlap.hpp on hand-made records: sync against async per point, the
// hidden fraction against the DAXPY baseline, the summaries per size and for large messages,
// the flags of figures from a flagged statistic, and the error when no point has both modes.
#include <comet/analysis/overlap.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>

#include "../support/records.hpp"

namespace analysis_test {

using namespace comet_test;

inline comet::result_set overlap_records() {
    // Baseline DAXPY: 0 and 100 µs at 0 and 1000 doubles. Size 0: sync 10 / 110 µs, async
    // 12 / 112. Size 85000: sync 200 / 300, async 200 / 200 (the DAXPY fully hidden).
    comet::result_set rs;
    const auto base = [](comet::params p) {
        p.set("nodes", std::int64_t{4}).set("hops", std::int64_t{1});
        return p;
    };
    rs.records.push_back(rec("overlap", base({{"vector_length", std::int64_t{0}}, {"mode", "daxpy"}}), around(0)));
    rs.records.push_back(rec("overlap", base({{"vector_length", std::int64_t{1000}}, {"mode", "daxpy"}}), around(100 * us)));
    const auto add = [&](std::int64_t size, std::int64_t n, double sync, double async) {
        rs.records.push_back(rec("overlap", base({{"size", size}, {"vector_length", n}, {"mode", "sync"}}), around(sync)));
        rs.records.push_back(rec("overlap", base({{"size", size}, {"vector_length", n}, {"mode", "async"}}), around(async)));
    };
    add(0, 0, 10 * us, 12 * us);
    add(0, 1000, 110 * us, 112 * us);
    add(85000, 0, 200 * us, 200 * us);
    add(85000, 1000, 300 * us, 200 * us);
    return rs;
}

}  // namespace analysis_test

BOOST_AUTO_TEST_SUITE(overlap)

using namespace analysis_test;

BOOST_AUTO_TEST_CASE(figures_from_a_flagged_statistic_are_flagged) {
    // The async record at 85000 B and 1000 doubles with samples that disagree (spread far above
    // 5%): its point, its size's summary and the large-message summary say so; size 0 does not.
    comet::result_set rs = overlap_records();
    steady(rs);
    for (auto& r : rs.records)
        if (r.params.integer("size") == 85000 && r.params.integer("vector_length") == 1000 && r.params.text("mode") == "async")
            r.samples = {150 * us, 200 * us, 260 * us, 170 * us, 230 * us};
    const auto g = comet::overlap_gains(rs).at(0);
    BOOST_TEST(g.points[1].flags.empty());
    BOOST_TEST_REQUIRE(g.points[3].flags.size() == 1u);
    BOOST_TEST(g.points[3].flags[0].starts_with("async: the samples disagree"), g.points[3].flags[0]);
    BOOST_TEST(g.sizes[0].flags.empty());
    BOOST_TEST_REQUIRE(g.sizes[1].flags.size() == 1u);
    BOOST_TEST(g.sizes[1].flags[0].starts_with("from 1 of 1 points with a flagged sync or async statistic (size 85000, vector length 1000: async: "),
               g.sizes[1].flags[0]);
    BOOST_TEST(g.large_flags.size() == 1u);
    // The DAXPY baseline flagged: only the hidden fraction rests on it.
    comet::result_set daxpy = overlap_records();
    steady(daxpy);
    for (auto& r : daxpy.records)
        if (r.params.text("mode") == "daxpy" && r.params.integer("vector_length") == 1000) r.samples = {50 * us, 100 * us, 160 * us, 70 * us, 130 * us};
    const auto d = comet::overlap_gains(daxpy).at(0);
    BOOST_TEST_REQUIRE(d.points[3].flags.size() == 1u);
    BOOST_TEST(d.points[3].flags[0].starts_with("daxpy: "), d.points[3].flags[0]);
    BOOST_TEST(d.sizes[1].flags.empty());
    BOOST_TEST(d.large_flags.empty());
}

BOOST_AUTO_TEST_CASE(a_record_left_out_flags_the_figures_that_needed_it) {
    // The sync record at 85000 B and 1000 doubles flagged as a whole: that point is gone, and
    // the large-message summary, which would have read it, says so (large_size is now 0: the
    // largest size with a point).
    comet::result_set rs = overlap_records();
    steady(rs);
    for (auto& r : rs.records)
        if (r.params.integer("size") == 85000 && r.params.integer("vector_length") == 1000 && r.params.text("mode") == "sync")
            comet::add_flag(r, "point", "every sample preempted");
    const auto g = comet::overlap_gains(rs).at(0);
    BOOST_TEST(g.points.size() == 3u);
    BOOST_TEST(g.sizes[0].flags.empty());
    BOOST_TEST_REQUIRE(g.large_flags.size() == 1u);
    BOOST_TEST(g.large_flags[0] == "1 sync or async records left out (sync, size 85000, vector length 1000: every sample preempted)");
    // The asynchronous exchange alone left out: the hidden fraction at its size is NaN, and says why.
    comet::result_set alone = overlap_records();
    steady(alone);
    for (auto& r : alone.records)
        if (r.params.integer("size") == 85000 && r.params.integer("vector_length") == 0 && r.params.text("mode") == "async") r.samples.clear();
    const auto a = comet::overlap_gains(alone).at(0);
    BOOST_TEST_REQUIRE(a.points.size() == 3u);
    BOOST_TEST(a.points[2].size == 85000);
    BOOST_TEST(std::isnan(a.points[2].hidden));
    BOOST_TEST_REQUIRE(a.points[2].flags.size() == 1u);
    BOOST_TEST(a.points[2].flags[0] == "async alone: left out: no valid sample");
    BOOST_TEST(a.sizes[1].flags.empty());  // vector length 0 is no point of the summaries
}

BOOST_AUTO_TEST_CASE(overlap_gains_per_point_per_size_and_for_large_messages) {
    const auto gains = comet::overlap_gains(overlap_records());
    BOOST_TEST_REQUIRE(gains.size() == 1u);
    const auto& g = gains[0];
    BOOST_TEST(*g.group.integer("nodes") == 4);
    BOOST_TEST(*g.group.integer("hops") == 1);
    BOOST_TEST_REQUIRE(g.points.size() == 4u);
    const auto& p = g.points;
    BOOST_TEST(p[0].size == 0);
    BOOST_TEST(p[0].vector_length == 0);
    BOOST_TEST(p[0].gain == 10.0 / 12.0, tt::tolerance(1e-12));
    BOOST_TEST(p[0].saved == -0.2, tt::tolerance(1e-12));
    BOOST_TEST(std::isnan(p[0].hidden));  // no computation to hide behind
    BOOST_TEST(p[1].gain == 110.0 / 112.0, tt::tolerance(1e-12));
    // (comm 12 + comp 100 − 112) / min(12, 100) = 0: the asynchronous exchange and the DAXPY
    // one after the other, nothing hidden.
    BOOST_TEST(std::abs(p[1].hidden) < 1e-9);
    BOOST_TEST(p[2].gain == 1.0, tt::tolerance(1e-12));
    BOOST_TEST(p[3].size == 85000);
    BOOST_TEST(p[3].vector_length == 1000);
    BOOST_TEST(p[3].sync == 300 * us, tt::tolerance(1e-12));
    BOOST_TEST(p[3].async == 200 * us, tt::tolerance(1e-12));
    BOOST_TEST(p[3].gain == 1.5, tt::tolerance(1e-12));
    BOOST_TEST(p[3].saved == 1.0 / 3.0, tt::tolerance(1e-12));
    // (comm 200 + comp 100 − 200) / min(200, 100) = 1: the whole DAXPY hidden.
    BOOST_TEST(std::isnan(p[2].hidden));  // vector length 0
    BOOST_TEST(p[3].hidden == 1.0, tt::tolerance(1e-12));

    BOOST_TEST_REQUIRE(g.sizes.size() == 2u);
    BOOST_TEST(g.sizes[0].size == 0);
    BOOST_TEST(g.sizes[0].points == 1u);
    BOOST_TEST(g.sizes[0].median_gain == 110.0 / 112.0, tt::tolerance(1e-12));
    BOOST_TEST(g.sizes[1].max_saved == 1.0 / 3.0, tt::tolerance(1e-12));

    BOOST_TEST(g.large_size == 85000);
    BOOST_TEST(g.large_points == 1u);
    BOOST_TEST(g.large_median_gain == 1.5, tt::tolerance(1e-12));
    BOOST_TEST(g.large_max_saved == 1.0 / 3.0, tt::tolerance(1e-12));

    const auto all = comet::overlap_gains(overlap_records(), {.large_size = 0}).at(0);
    BOOST_TEST(all.large_points == 2u);
    BOOST_TEST(all.large_median_gain == (110.0 / 112.0 + 1.5) / 2, tt::tolerance(1e-12));
    BOOST_TEST(all.large_max_gain == 1.5, tt::tolerance(1e-12));

    comet::result_set sync_only;
    for (const auto& r : overlap_records().records)
        if (*r.params.text("mode") != "async") sync_only.records.push_back(r);
    BOOST_CHECK_EXCEPTION(comet::overlap_gains(sync_only), comet::invalid_argument,
                          says("overlap_gains: kernel 'overlap' has no (size, vector_length) measured in both modes"));
}

BOOST_AUTO_TEST_SUITE_END()
