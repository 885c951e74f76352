// Tests of comet/stats/validity.hpp: invalid samples stay raw and reach no statistic, valid /
// total counts every measurement, the mean weighs samples by their iterations, and the flags a
// disturbed sample calls for.
#include <comet/stats/validity.hpp>

#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace {

comet::record point(std::vector<double> samples) { return comet::record{.kernel = "echo", .params = {{"size", 8}}, .samples = std::move(samples)}; }

bool flagged(const comet::assessment& a, const std::string& what) { return comet::find_flag(a.flags, what) != nullptr; }

}  // namespace

BOOST_AUTO_TEST_SUITE(validity)

BOOST_AUTO_TEST_CASE(a_negative_sample_stays_raw_and_reaches_no_statistic) {
    comet::record r = point({2e-6, -1e-7, 3e-6, 4e-6});
    comet::mark_negative(r);
    BOOST_TEST(r.samples.size() == 4u);  // raw, marked
    BOOST_TEST_REQUIRE(r.invalid.size() == 1u);
    BOOST_TEST(r.invalid[0].index == 1u);
    BOOST_TEST(r.invalid[0].why == "negative");
    BOOST_TEST(comet::valid_samples(r) == (std::vector<double>{2e-6, 3e-6, 4e-6}));
    const comet::summary s = comet::summarize(r);
    BOOST_TEST(s.n == 3u);
    BOOST_TEST(s.min == 2e-6);
    BOOST_TEST(s.median == 3e-6);
    comet::mark_negative(r);  // once
    BOOST_TEST(r.invalid.size() == 1u);
}

BOOST_AUTO_TEST_CASE(valid_and_total_count_every_measurement) {
    comet::record r = point({1e-6, -1e-6, 2e-6});
    comet::mark_negative(r);
    comet::add_dropped(r, "late_start", 5);
    comet::add_dropped(r, "late_start", 2);
    comet::add_dropped(r, "nothing", 0);  // no entry
    const comet::assessment a = comet::assess(r);
    BOOST_TEST(a.valid == 2u);
    BOOST_TEST(a.total == 10u);
    BOOST_TEST_REQUIRE(r.dropped.size() == 1u);
    BOOST_TEST(r.dropped[0].second == 7u);
}

BOOST_AUTO_TEST_CASE(the_mean_is_total_time_over_total_iterations) {
    // Round 1: 2 samples of 1000 iterations at 1 us; round 2: one sample of 10 iterations at
    // 100 us (a short sample that caught a preemption). Per iteration: (2000 us + 1000 us) / 2010.
    comet::record r = point({1e-6, 1e-6, 100e-6});
    r.rounds = {{2, 1000}, {1, 10}};
    const comet::summary s = comet::summarize(r);
    BOOST_TEST(s.mean == (2000e-6 + 1000e-6) / 2010.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(s.median == 1e-6);  // order statistics are per sample
    r.rounds = {{2, 1000}, {2, 10}};
    BOOST_CHECK_THROW(comet::summarize(r), comet::invalid_argument);  // the rounds must hold the samples
}

BOOST_AUTO_TEST_CASE(one_disturbed_sample_flags_what_it_moves) {
    std::vector<double> samples(20, 10e-6);
    samples[7] = 40e-6;  // a preemption
    const comet::record r = point(samples);
    const comet::assessment a = comet::assess(r);
    BOOST_TEST(a.outliers == 1u);
    BOOST_TEST(a.fence == 10e-6 * (1 + 3 * comet::outlier_floor), boost::test_tools::tolerance(1e-12));  // MAD 0: the floor
    BOOST_TEST(flagged(a, "max"));
    BOOST_TEST(flagged(a, "stddev"));
    BOOST_TEST(flagged(a, "mean"));  // 11.5 us against 10: 15% over
    BOOST_TEST(!flagged(a, "median"));
    BOOST_TEST(!flagged(a, "min"));
    BOOST_TEST(!flagged(a, "point"));
    BOOST_TEST(comet::find_flag(a.flags, "max")->why.find("1 of 20 samples above median + 3 sigma") == 0u);
}

BOOST_AUTO_TEST_CASE(a_sample_far_below_the_rest_flags_the_minimum) {
    std::vector<double> samples(20, 10e-6);
    samples[4] = 7e-6;  // another state of the machine, or a clock's glitch
    const comet::assessment a = comet::assess(point(samples));
    BOOST_TEST(a.outliers == 1u);
    BOOST_TEST(flagged(a, "min"));
    BOOST_TEST(!flagged(a, "max"));
    BOOST_TEST(flagged(a, "mean"));  // 9.85 against 10: 1.5% under
    BOOST_TEST(comet::find_flag(a.flags, "min")->why.starts_with("1 of 20 samples below median - 3 sigma"));
}

BOOST_AUTO_TEST_CASE(samples_in_two_groups_or_spread_wide_flag_every_statistic) {
    // A machine moved between two steady states: 4 of 15 samples in the other (under 5% spread).
    std::vector<double> two(15, 34.2e-3);
    for (std::size_t i : {1u, 2u, 7u, 9u}) two[i] = 48.4e-3;
    const comet::assessment a = comet::assess(point(two));
    BOOST_TEST(flagged(a, "statistics"));
    BOOST_TEST(comet::find_flag(a.flags, "statistics")->why == "the samples fall in more than one group: 4 of 15 beyond median +- 3 sigma");
    // Samples that disagree as a whole: a spread over 5%.
    const comet::assessment wide = comet::assess(point({1e-6, 1.2e-6, 0.8e-6, 1.1e-6, 0.9e-6, 1.3e-6, 0.7e-6}));
    BOOST_TEST(flagged(wide, "statistics"));
    BOOST_TEST(comet::find_flag(wide.flags, "statistics")->why.starts_with("the samples disagree: spread (MAD/median) "));
    // One outlier in twenty is not a second group.
    std::vector<double> one(20, 10e-6);
    one[0] = 20e-6;
    BOOST_TEST(!flagged(comet::assess(point(one)), "statistics"));
}

BOOST_AUTO_TEST_CASE(a_small_outlier_does_not_flag_the_mean) {
    std::vector<double> samples(200, 10e-6);
    samples[3] = 10.2e-6;  // 2% above, above the fence (0.5% floor), moves the mean by 0.01%
    const comet::assessment a = comet::assess(point(samples));
    BOOST_TEST(a.outliers == 1u);
    BOOST_TEST(flagged(a, "max"));
    BOOST_TEST(!flagged(a, "mean"));
}

BOOST_AUTO_TEST_CASE(steady_samples_carry_no_flag) {
    const comet::assessment a = comet::assess(point({10e-6, 10.01e-6, 9.99e-6, 10.02e-6, 9.98e-6, 10e-6}));
    BOOST_TEST(a.outliers == 0u);
    BOOST_TEST(a.flags.empty());
}

BOOST_AUTO_TEST_CASE(a_point_without_a_valid_sample_is_flagged_and_unusable) {
    comet::record r = point({-1e-6, -2e-6});
    comet::mark_negative(r);
    const comet::assessment a = comet::assess(r);
    BOOST_TEST(a.valid == 0u);
    BOOST_TEST(flagged(a, "point"));
    BOOST_TEST(!comet::usable(r));
    BOOST_TEST(comet::unusable_why(r) == "no valid sample: all 2 invalid (2 negative)");
    BOOST_TEST(comet::unusable_why(point({})) == "no valid sample");

    comet::record windows = point({1e-6});
    comet::add_flag(windows, "point", "the windows kept failing");
    comet::add_flag(windows, "point", "another reason");  // the first reason stays
    BOOST_TEST(!comet::usable(windows));
    BOOST_TEST_REQUIRE(windows.flags.size() == 1u);
    BOOST_TEST(windows.flags[0].why == "the windows kept failing");
    BOOST_TEST(comet::unusable_why(windows) == "the windows kept failing");
    BOOST_TEST(comet::usable(point({1e-6})));
    BOOST_TEST(comet::unusable_why(point({1e-6})).empty());
    BOOST_TEST(!comet::usable(point({})));
}

BOOST_AUTO_TEST_CASE(marking_a_sample_that_is_not_there_is_an_error) {
    comet::record r = point({1e-6});
    BOOST_CHECK_THROW(comet::mark_invalid(r, 3, "late"), comet::invalid_argument);
    comet::mark_invalid(r, 0, "late");
    BOOST_TEST(!comet::is_valid_sample(r, 0));
}

BOOST_AUTO_TEST_SUITE_END()
