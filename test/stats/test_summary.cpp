// Tests of comet/stats/summary.hpp against values computed by hand: odd and even counts, one
// sample, no sample, percentile interpolation and its edges, the order-statistic confidence
// interval of the median (checked against the binomial tables), and the error paths.
#include <comet/stats/summary.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace summary_test {

namespace tt = boost::test_tools;

/// 1, 2, ..., n in a fixed shuffled order, so nothing relies on sorted input.
inline std::vector<double> shuffled_iota(std::size_t n) {
    std::vector<double> v(n);
    std::iota(v.begin(), v.end(), 1.0);
    std::mt19937 rng(42);
    std::shuffle(v.begin(), v.end(), rng);
    return v;
}

inline auto says(std::string text) {
    return [text](const std::exception& e) { return std::string(e.what()).find(text) != std::string::npos; };
}

}  // namespace summary_test

BOOST_AUTO_TEST_SUITE(summary)

using summary_test::tt::tolerance;

BOOST_AUTO_TEST_CASE(odd_count) {
    const std::vector<double> v{5.0, 1.0, 3.0};
    const auto s = comet::summarize(v);
    BOOST_TEST(s.n == 3u);
    BOOST_TEST(s.min == 1.0);
    BOOST_TEST(s.max == 5.0);
    BOOST_TEST(s.mean == 3.0);
    BOOST_TEST(s.median == 3.0);
    BOOST_TEST(s.stddev == 2.0, tolerance(1e-15));  // sqrt((4 + 0 + 4) / 2)
    BOOST_TEST(s.p05 == 1.2, tolerance(1e-15));     // h = 0.1: 1 + 0.1·(3 − 1)
    BOOST_TEST(s.p95 == 4.8, tolerance(1e-15));     // h = 1.9: 3 + 0.9·(5 − 3)
    // n = 3 < 6: no 95% interval exists, so min/max
    BOOST_TEST(s.median_ci_low == 1.0);
    BOOST_TEST(s.median_ci_high == 5.0);
}

BOOST_AUTO_TEST_CASE(even_count_median_is_mean_of_middle_pair) {
    const std::vector<double> v{4.0, 1.0, 3.0, 2.0};
    const auto s = comet::summarize(v);
    BOOST_TEST(s.n == 4u);
    BOOST_TEST(s.median == 2.5);
    BOOST_TEST(s.mean == 2.5);
    BOOST_TEST(s.stddev == std::sqrt(5.0 / 3.0), tolerance(1e-15));  // (2.25 + 0.25 + 0.25 + 2.25) / 3
    BOOST_TEST(s.p05 == 1.15, tolerance(1e-14));                      // h = 0.15
    BOOST_TEST(s.p95 == 3.85, tolerance(1e-14));                      // h = 2.85
}

BOOST_AUTO_TEST_CASE(one_sample) {
    const std::vector<double> v{7e-6};
    const auto s = comet::summarize(v);
    BOOST_TEST(s.n == 1u);
    BOOST_TEST(s.min == 7e-6);
    BOOST_TEST(s.max == 7e-6);
    BOOST_TEST(s.mean == 7e-6);
    BOOST_TEST(s.median == 7e-6);
    BOOST_TEST(s.p05 == 7e-6);
    BOOST_TEST(s.p95 == 7e-6);
    BOOST_TEST(std::isnan(s.stddev));  // one sample has no spread
    BOOST_TEST(s.median_ci_low == 7e-6);
    BOOST_TEST(s.median_ci_high == 7e-6);
}

BOOST_AUTO_TEST_CASE(no_samples_gives_nan_everywhere) {
    const auto s = comet::summarize({});
    BOOST_TEST(s.n == 0u);
    for (double x : {s.min, s.max, s.mean, s.median, s.stddev, s.p05, s.p95, s.median_ci_low, s.median_ci_high})
        BOOST_TEST(std::isnan(x));
    BOOST_TEST(std::isnan(comet::percentile({}, 50.0)));
}

BOOST_AUTO_TEST_CASE(stddev_survives_a_large_offset) {
    // The one-pass formula E[x²] − E[x]² loses every digit here; two passes do not.
    const std::vector<double> v{1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0};
    BOOST_TEST(comet::summarize(v).stddev == 1.0, tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(percentile_interpolates_between_order_statistics) {
    const std::vector<double> v{4.0, 1.0, 3.0, 2.0};
    BOOST_TEST(comet::percentile(v, 0.0) == 1.0);
    BOOST_TEST(comet::percentile(v, 100.0) == 4.0);
    BOOST_TEST(comet::percentile(v, 50.0) == 2.5);
    BOOST_TEST(comet::percentile(v, 25.0) == 1.75);  // h = 0.75
    BOOST_TEST(comet::percentile(v, 100.0 / 3.0) == 2.0, tolerance(1e-15));  // h = 1 exactly: an order statistic
    const std::vector<double> one{3.5};
    BOOST_TEST(comet::percentile(one, 0.0) == 3.5);
    BOOST_TEST(comet::percentile(one, 100.0) == 3.5);
}

BOOST_AUTO_TEST_CASE(percentile_rejects_p_outside_0_100_naming_it) {
    const std::vector<double> v{1.0, 2.0};
    using summary_test::says;
    BOOST_CHECK_EXCEPTION(comet::percentile(v, -1.0), comet::invalid_argument, says("p = -1"));
    BOOST_CHECK_EXCEPTION(comet::percentile(v, 100.5), comet::invalid_argument, says("p = 100.5"));
    BOOST_CHECK_EXCEPTION(comet::percentile(v, std::numeric_limits<double>::quiet_NaN()), comet::invalid_argument,
                          says("p = nan"));
    BOOST_CHECK_THROW(comet::percentile({}, 101.0), comet::invalid_argument);  // even with no samples
}

BOOST_AUTO_TEST_CASE(nan_samples_are_rejected_naming_the_index) {
    const std::vector<double> v{1.0, std::numeric_limits<double>::quiet_NaN(), 2.0};
    using summary_test::says;
    BOOST_CHECK_EXCEPTION(comet::summarize(v), comet::invalid_argument, says("sample 1 is NaN"));
    BOOST_CHECK_EXCEPTION(comet::percentile(v, 50.0), comet::invalid_argument, says("sample 1 is NaN"));
}

BOOST_AUTO_TEST_CASE(median_ci_matches_binomial_tables) {
    // [x_(j), x_(n+1−j)] with the largest j such that P(Bin(n, ½) ≤ j − 1) ≤ 0.025.
    struct row {
        std::size_t n;
        double low, high;  // on the values 1..n, x_(j) = j
    };
    // n = 5: even min..max covers only 1 − 2/32 = 93.75%, so min/max is the fallback.
    // n = 6: P(B ≤ 0) = 1/64 ≤ 0.025 < P(B ≤ 1) = 7/64 → j = 1.
    // n = 10: P(B ≤ 1) = 11/1024 ≤ 0.025 < P(B ≤ 2) = 56/1024 → j = 2.
    // n = 20: P(B ≤ 5) = 0.0207 ≤ 0.025 < P(B ≤ 6) = 0.0577 → j = 6.
    // n = 100: P(B ≤ 39) = 0.0176 ≤ 0.025 < P(B ≤ 40) = 0.0284 → j = 40.
    for (const row r : {row{5, 1, 5}, row{6, 1, 6}, row{10, 2, 9}, row{20, 6, 15}, row{100, 40, 61}}) {
        const auto s = comet::summarize(summary_test::shuffled_iota(r.n));
        BOOST_TEST_CONTEXT("n = " << r.n) {
            BOOST_TEST(s.median_ci_low == r.low);
            BOOST_TEST(s.median_ci_high == r.high);
        }
    }
}

BOOST_AUTO_TEST_CASE(median_ci_for_large_n_is_near_the_normal_approximation) {
    // n = 100000: 2^-n underflows, the log-space sum must not. Normal approximation:
    // j ≈ n/2 − 1.96·√n/2 = 50000 − 309.9.
    const std::size_t n = 100000;
    const auto s = comet::summarize(summary_test::shuffled_iota(n));
    BOOST_TEST(s.median_ci_low >= 49688.0);
    BOOST_TEST(s.median_ci_low <= 49692.0);
    BOOST_TEST(s.median_ci_high == static_cast<double>(n) + 1.0 - s.median_ci_low);
    BOOST_TEST(s.median == 50000.5);
}

BOOST_AUTO_TEST_CASE(infinities_are_ordered_not_rejected) {
    const std::vector<double> v{1.0, std::numeric_limits<double>::infinity(), 2.0};
    const auto s = comet::summarize(v);
    BOOST_TEST(s.median == 2.0);
    BOOST_TEST(std::isinf(s.max));
}

BOOST_AUTO_TEST_SUITE_END()
