// Tests of comet/analysis/contention.hpp on hand-made records: slow-down ratios per load and
// size against idle, their summaries, their flags where a statistic is flagged, and the error when nothing is loaded beside idle.
#include <comet/analysis/contention.hpp>

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>

#include "../support/records.hpp"

namespace analysis_test {

using namespace comet_test;

inline comet::result_set contention_records() {
    // Idle 10 and 20 µs at 8 and 1024 bytes; the 50% load 12 and 30 µs (ratios 1.2, 1.5); the
    // 90% load 15 and 50 µs (1.5, 2.5); a size measured only under load is left out.
    comet::result_set rs;
    const auto add = [&](std::int64_t size, double load, std::int64_t cross, double t) {
        rs.records.push_back(rec("contention",
                                 {{"size", size}, {"hops", std::int64_t{1}}, {"nodes", std::int64_t{8}},
                                  {"load", load}, {"cross_size", cross}},
                                 around(t)));
    };
    add(8, 0.0, 0, 10 * us);
    add(1024, 0.0, 0, 20 * us);
    add(8, 0.5, 486, 12 * us);
    add(1024, 0.5, 486, 30 * us);
    add(4096, 0.5, 486, 99 * us);
    add(8, 0.9, 5000, 15 * us);
    add(1024, 0.9, 5000, 50 * us);
    return rs;
}

}  // namespace analysis_test

BOOST_AUTO_TEST_SUITE(contention)

using namespace analysis_test;

BOOST_AUTO_TEST_CASE(a_ratio_from_a_flagged_statistic_is_flagged) {
    // The 50% load at 1024 B with samples that disagree: its point and its load's summary are
    // flagged, the 90% load's are not.
    comet::result_set rs = contention_records();
    steady(rs);
    for (auto& r : rs.records)
        if (r.params.integer("size") == 1024 && r.params.number("load") == 0.5) r.samples = {20 * us, 30 * us, 45 * us, 25 * us, 38 * us};
    const auto s = comet::contention_slowdowns(rs);
    BOOST_TEST_REQUIRE(s.size() == 2u);
    BOOST_TEST_REQUIRE(s[0].points.size() == 2u);
    BOOST_TEST(s[0].points[0].flags.empty());
    BOOST_TEST_REQUIRE(s[0].points[1].flags.size() == 1u);
    BOOST_TEST(s[0].points[1].flags[0].starts_with("loaded: the samples disagree"), s[0].points[1].flags[0]);
    BOOST_TEST_REQUIRE(s[0].flags.size() == 1u);
    BOOST_TEST(s[0].flags[0].starts_with("from a flagged point (size 1024: loaded: "), s[0].flags[0]);
    BOOST_TEST(s[1].flags.empty());
}

BOOST_AUTO_TEST_CASE(contention_slowdown_ratios) {
    const auto s = comet::contention_slowdowns(contention_records());
    BOOST_TEST_REQUIRE(s.size() == 2u);
    BOOST_TEST(s[0].kernel == "contention");
    BOOST_TEST(*s[0].group.integer("nodes") == 8);
    BOOST_TEST(*s[0].group.integer("hops") == 1);
    BOOST_TEST(s[0].group.size() == 2u);
    BOOST_TEST(s[0].load == 0.5);
    BOOST_TEST(s[0].cross_size == 486);
    BOOST_TEST_REQUIRE(s[0].points.size() == 2u);
    BOOST_TEST(s[0].points[0].size == 8);
    BOOST_TEST(s[0].points[0].idle == 10 * us, tt::tolerance(1e-12));
    BOOST_TEST(s[0].points[0].loaded == 12 * us, tt::tolerance(1e-12));
    BOOST_TEST(s[0].points[0].ratio == 1.2, tt::tolerance(1e-12));
    BOOST_TEST(s[0].points[1].ratio == 1.5, tt::tolerance(1e-12));
    BOOST_TEST(s[0].median_ratio == 1.35, tt::tolerance(1e-12));
    BOOST_TEST(s[0].geometric_mean_ratio == std::sqrt(1.2 * 1.5), tt::tolerance(1e-12));
    BOOST_TEST(s[0].min_ratio == 1.2, tt::tolerance(1e-12));
    BOOST_TEST(s[0].max_ratio == 1.5, tt::tolerance(1e-12));
    BOOST_TEST(s[1].load == 0.9);
    BOOST_TEST(s[1].cross_size == 5000);
    BOOST_TEST(s[1].median_ratio == 2.0, tt::tolerance(1e-12));
    BOOST_TEST(s[1].geometric_mean_ratio == std::sqrt(1.5 * 2.5), tt::tolerance(1e-12));
    BOOST_TEST(s[1].max_ratio == 2.5, tt::tolerance(1e-12));

    comet::result_set no_idle;
    for (const auto& r : contention_records().records)
        if (*r.params.number("load") > 0) no_idle.records.push_back(r);
    BOOST_CHECK_EXCEPTION(comet::contention_slowdowns(no_idle), comet::invalid_argument,
                          says("contention_slowdowns: kernel 'contention' has no loaded record with an idle (load 0) "
                               "record of the same size, nodes and hops"));
}

BOOST_AUTO_TEST_CASE(only_reported_samples_reach_the_ratios) {
    // Two invalid slow samples at 8 bytes under the 50% load change nothing (without them
    // marked, its median would be 52 µs); the 90% load at 1024 bytes flagged as a whole is no
    // point, and its group keeps 8 bytes only.
    comet::result_set rs = contention_records();
    auto& loaded = rs.records[2];
    loaded.samples.insert(loaded.samples.end(), {1.0, 1.0});
    comet::mark_invalid(loaded, 3, "negative");
    comet::mark_invalid(loaded, 4, "negative");
    comet::add_flag(rs.records[6], "point", "its windows kept failing");
    const auto s = comet::contention_slowdowns(rs);
    BOOST_TEST_REQUIRE(s.size() == 2u);
    BOOST_TEST_REQUIRE(s[0].points.size() == 2u);
    BOOST_TEST(s[0].points[0].loaded == 12 * us, tt::tolerance(1e-12));
    BOOST_TEST(s[0].points[0].ratio == 1.2, tt::tolerance(1e-12));
    BOOST_TEST_REQUIRE(s[1].points.size() == 1u);
    BOOST_TEST(s[1].points[0].size == 8);
    BOOST_TEST(s[1].max_ratio == 1.5, tt::tolerance(1e-12));
    // Its ratios no longer cover 1024 bytes, and say so (after the flag of `around`'s samples,
    // which disagree at these medians).
    BOOST_TEST(s[0].flags.size() == 1u);
    BOOST_TEST_REQUIRE(s[1].flags.size() == 2u);
    BOOST_TEST(s[1].flags[1] == "left out (a record not read) at 1 of 2 sizes (1024 B; at 1024 B: loaded: its windows kept failing)");
}

BOOST_AUTO_TEST_CASE(an_idle_record_left_out_flags_every_load_that_needed_it) {
    comet::result_set rs = contention_records();
    steady(rs);
    comet::add_flag(rs.records[1], "point", "every sample preempted");  // idle, 1024 B
    const auto s = comet::contention_slowdowns(rs);
    BOOST_TEST_REQUIRE(s.size() == 2u);
    for (const auto& load : s) {
        BOOST_TEST(load.points.size() == 1u);
        BOOST_TEST_REQUIRE(load.flags.size() == 1u);
        BOOST_TEST(load.flags[0] == "left out (a record not read) at 1 of " + std::to_string(load.load == 0.5 ? 3 : 2) +
                                        " sizes (1024 B; at 1024 B: idle: every sample preempted)");
    }
    // With every idle record left out nothing compares, and the error says why.
    comet::add_flag(rs.records[0], "point", "every sample preempted");
    BOOST_CHECK_EXCEPTION(comet::contention_slowdowns(rs), comet::invalid_argument,
                          says("(2 records left out: flagged as a whole, or without a valid sample)"));
}

BOOST_AUTO_TEST_SUITE_END()
