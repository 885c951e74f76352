// Tests of comet/stats/summary.hpp against values computed by hand: odd and even counts, one
// sample, no sample, percentile interpolation and its edges, percentiles only where n supports
// them, the order-statistic confidence interval of the median (checked against the binomial
// tables), its stated coverage (exact numbers for known n, and a seeded simulation of skewed
// timings that checks the statement), no interval below 6 samples, the robust spread and the
// unstable verdict, and the error paths.
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

/// A standard normal draw by Box–Muller from the engine's raw bits: std::normal_distribution's
/// output differs between standard libraries, the engine's does not, so the seeded
/// simulations below give the same numbers everywhere.
inline double gaussian(std::mt19937_64& rng) {
    const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;          // [0, 1)
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
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
    // 3 samples do not support a 5th percentile: it would be the minimum renamed.
    BOOST_TEST(!s.p05.has_value());
    BOOST_TEST(!s.p95.has_value());
    // n = 3 < 6: no pair of order statistics covers the median with 95%
    BOOST_TEST(!s.median_ci_low.has_value());
    BOOST_TEST(!s.median_ci_high.has_value());
    BOOST_TEST(!s.ci_coverage.has_value());
    // deviations from 3: 2, 2, 0 → MAD 2, scaled 2·1.4826; relative to the median 3
    BOOST_TEST(s.mad == 2.0 * comet::mad_normal_scale, tolerance(1e-15));
    BOOST_TEST(*s.rel_spread == 2.0 * comet::mad_normal_scale / 3.0, tolerance(1e-15));
    BOOST_TEST(s.unstable);
}

BOOST_AUTO_TEST_CASE(even_count_median_is_mean_of_middle_pair) {
    const std::vector<double> v{4.0, 1.0, 3.0, 2.0};
    const auto s = comet::summarize(v);
    BOOST_TEST(s.n == 4u);
    BOOST_TEST(s.median == 2.5);
    BOOST_TEST(s.mean == 2.5);
    BOOST_TEST(s.stddev == std::sqrt(5.0 / 3.0), tolerance(1e-15));  // (2.25 + 0.25 + 0.25 + 2.25) / 3
    // The interpolation itself is `percentile`'s (tested below); the summary withholds it at n = 4.
    BOOST_TEST(comet::percentile(v, 5.0) == 1.15, tolerance(1e-14));   // h = 0.15
    BOOST_TEST(comet::percentile(v, 95.0) == 3.85, tolerance(1e-14));  // h = 2.85
    BOOST_TEST(!s.p05.has_value());
}

BOOST_AUTO_TEST_CASE(one_sample) {
    const std::vector<double> v{7e-6};
    const auto s = comet::summarize(v);
    BOOST_TEST(s.n == 1u);
    BOOST_TEST(s.min == 7e-6);
    BOOST_TEST(s.max == 7e-6);
    BOOST_TEST(s.mean == 7e-6);
    BOOST_TEST(s.median == 7e-6);
    BOOST_TEST(!s.p05.has_value());
    BOOST_TEST(!s.p95.has_value());
    BOOST_TEST(std::isnan(s.stddev));  // one sample has no spread
    BOOST_TEST(!s.median_ci_low.has_value());
    BOOST_TEST(!s.median_ci_high.has_value());
    BOOST_TEST(s.mad == 0.0);
    BOOST_TEST(!s.rel_spread.has_value());  // nor a relative one
    BOOST_TEST(!s.unstable);
}

BOOST_AUTO_TEST_CASE(no_samples_gives_nan_everywhere) {
    const auto s = comet::summarize({});
    BOOST_TEST(s.n == 0u);
    for (double x : {s.min, s.max, s.mean, s.median, s.stddev, s.mad}) BOOST_TEST(std::isnan(x));
    for (const auto& x : {s.p05, s.p95, s.median_ci_low, s.median_ci_high, s.ci_coverage, s.rel_spread})
        BOOST_TEST(!x.has_value());
    BOOST_TEST(!s.unstable);
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
    // n = 6: P(B ≤ 0) = 1/64 ≤ 0.025 < P(B ≤ 1) = 7/64 → j = 1.
    // n = 10: P(B ≤ 1) = 11/1024 ≤ 0.025 < P(B ≤ 2) = 56/1024 → j = 2.
    // n = 15: P(B ≤ 3) = 576/32768 ≤ 0.025 < P(B ≤ 4) = 1941/32768 → j = 4.
    // n = 20: P(B ≤ 5) = 0.0207 ≤ 0.025 < P(B ≤ 6) = 0.0577 → j = 6.
    // n = 100: P(B ≤ 39) = 0.0176 ≤ 0.025 < P(B ≤ 40) = 0.0284 → j = 40.
    for (const row r : {row{6, 1, 6}, row{10, 2, 9}, row{15, 4, 12}, row{20, 6, 15}, row{100, 40, 61}}) {
        const auto s = comet::summarize(summary_test::shuffled_iota(r.n));
        BOOST_TEST_CONTEXT("n = " << r.n) {
            BOOST_TEST(s.median_ci_low.value() == r.low);
            BOOST_TEST(s.median_ci_high.value() == r.high);
            const auto ci = comet::median_ci(summary_test::shuffled_iota(r.n));
            BOOST_TEST_REQUIRE(ci.has_value());
            BOOST_TEST(ci->rank == static_cast<std::size_t>(r.low));
            BOOST_TEST(ci->coverage == s.ci_coverage.value());
        }
    }
}

BOOST_AUTO_TEST_CASE(ci_coverage_is_the_exact_binomial_number) {
    // 1 − 2·P(B ≤ j − 1), by hand from the binomial coefficients:
    // n = 6, j = 1: 1 − 2/64; n = 11, j = 2: 1 − 2·12/2048; n = 15, j = 4: 1 − 2·576/32768;
    // n = 20, j = 6: 1 − 2·(1 + 20 + 190 + 1140 + 4845 + 15504)/2^20.
    struct row {
        std::size_t n;
        double coverage;
    };
    for (const row r : {row{6, 1.0 - 2.0 / 64}, row{11, 1.0 - 24.0 / 2048}, row{15, 1.0 - 1152.0 / 32768},
                        row{20, 1.0 - 43400.0 / 1048576}}) {
        BOOST_TEST_CONTEXT("n = " << r.n) {
            const auto s = comet::summarize(summary_test::shuffled_iota(r.n));
            BOOST_TEST(s.ci_coverage.value() == r.coverage, tolerance(1e-12));
            BOOST_TEST(*s.ci_coverage >= comet::median_ci_level);  // never below the promise
        }
    }
    // The numbers the docs quote.
    BOOST_TEST(comet::summarize(summary_test::shuffled_iota(15)).ci_coverage.value() == 0.96484375);
}

BOOST_AUTO_TEST_CASE(no_interval_below_six_samples) {
    // Even [min, max] covers only 1 − 2^(1−n) < 95% for n ≤ 5 (93.75% at 5): no interval at all.
    for (std::size_t n = 0; n <= 5; ++n) {
        BOOST_TEST_CONTEXT("n = " << n) {
            const auto s = comet::summarize(summary_test::shuffled_iota(n));
            BOOST_TEST(!s.median_ci_low.has_value());
            BOOST_TEST(!s.median_ci_high.has_value());
            BOOST_TEST(!s.ci_coverage.has_value());
            BOOST_TEST(!comet::median_ci(summary_test::shuffled_iota(n)).has_value());
        }
    }
    BOOST_TEST(comet::summarize(summary_test::shuffled_iota(6)).median_ci_low.has_value());
    // A lower level needs fewer samples: at 90%, [min, max] of 5 (93.75%) qualifies.
    BOOST_TEST(comet::median_ci(summary_test::shuffled_iota(5), 0.90).has_value());
    BOOST_TEST(!comet::median_ci(summary_test::shuffled_iota(4), 0.90).has_value());
}

BOOST_AUTO_TEST_CASE(stated_coverage_holds_for_skewed_timings) {
    // Seeded simulation: 4000 sets of 15 log-normal "timings" (right-skewed, as timings are).
    // The interval must cover the true median (exp(μ)) as often as it says: 0.9648, whose
    // binomial standard error over 4000 sets is 0.0029, so [0.952, 0.977] is ±4 of them.
    std::mt19937_64 rng(20240501);
    const double mu = std::log(80e-6);
    const auto timing = [&](std::mt19937_64& g) { return std::exp(mu + 0.3 * summary_test::gaussian(g)); };
    const std::size_t sets = 4000, n = 15;
    std::size_t covered = 0;
    double stated = 0.0;
    for (std::size_t k = 0; k < sets; ++k) {
        std::vector<double> v(n);
        for (auto& x : v) x = timing(rng);
        const auto ci = comet::median_ci(v).value();
        stated = ci.coverage;
        covered += ci.low <= std::exp(mu) && std::exp(mu) <= ci.high;
    }
    const double observed = static_cast<double>(covered) / static_cast<double>(sets);
    BOOST_TEST_MESSAGE("median CI, n = 15: stated coverage " << stated << ", observed " << observed);
    BOOST_TEST(observed >= 0.952);
    BOOST_TEST(observed <= 0.977);
}

BOOST_AUTO_TEST_CASE(percentiles_only_where_n_supports_them) {
    // n·5% ≥ 1: at least one sample expected below the 5th percentile.
    BOOST_TEST(!comet::percentile_supported(19, 5.0));
    BOOST_TEST(comet::percentile_supported(20, 5.0));
    BOOST_TEST(comet::percentile_supported(20, 95.0));
    BOOST_TEST(comet::percentile_supported(1, 50.0) == false);  // n·50% = 0.5
    BOOST_TEST(comet::percentile_supported(2, 50.0));
    BOOST_TEST(!comet::summarize(summary_test::shuffled_iota(19)).p05.has_value());
    const auto s = comet::summarize(summary_test::shuffled_iota(20));
    // h = 19·0.05 = 0.95: 1 + 0.95·(2 − 1); h = 18.05: 19 + 0.05·(20 − 19)
    BOOST_TEST(s.p05.value() == 1.95, tolerance(1e-14));
    BOOST_TEST(s.p95.value() == 19.05, tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(robust_spread_ignores_an_outlier_and_flags_a_noisy_point) {
    // 15 samples within ±1% of 100 µs and one interrupt-hit sample at 900 µs: the standard
    // deviation explodes, the MAD does not, and the point is stable.
    std::vector<double> steady;
    for (int i = -7; i <= 7; ++i) steady.push_back(100e-6 * (1.0 + 0.001 * i));
    steady.push_back(900e-6);
    const auto s = comet::summarize(steady);
    BOOST_TEST(s.stddev > 100e-6);
    BOOST_TEST(*s.rel_spread < 0.01);
    BOOST_TEST(!s.unstable);

    // Samples spread ±20% around the median: MAD/median far above 5%.
    std::vector<double> noisy;
    for (int i = -7; i <= 7; ++i) noisy.push_back(100e-6 * (1.0 + 0.03 * i));
    const auto n = comet::summarize(noisy);
    // deviations 0, 3, 3, 6, 6, ... (%): their median is 12% → × 1.4826
    BOOST_TEST(*n.rel_spread == 0.12 * comet::mad_normal_scale, tolerance(1e-9));
    BOOST_TEST(n.unstable);

    // The spread is the scaled MAD over the median: deviations d, 0, d → MAD d.
    const double d = comet::unstable_spread / comet::mad_normal_scale;
    const std::vector<double> edge{1.0 - d, 1.0, 1.0 + d};
    BOOST_TEST(*comet::summarize(edge).rel_spread == comet::unstable_spread, tolerance(1e-12));

    // A median of zero (virtual time that did not advance) has no relative spread.
    const std::vector<double> zeros{0.0, 0.0, 1e-9};
    BOOST_TEST(!comet::summarize(zeros).rel_spread.has_value());
    BOOST_TEST(!comet::summarize(zeros).unstable);
}

BOOST_AUTO_TEST_CASE(median_ci_rejects_a_level_outside_0_1) {
    const std::vector<double> v{1, 2, 3, 4, 5, 6};
    BOOST_CHECK_THROW(comet::median_ci(v, 1.0), comet::invalid_argument);
    BOOST_CHECK_THROW(comet::median_ci(v, 0.0), comet::invalid_argument);
}

BOOST_AUTO_TEST_CASE(median_ci_for_large_n_is_near_the_normal_approximation) {
    // n = 100000: 2^-n underflows, the log-space sum must not. Normal approximation:
    // j ≈ n/2 − 1.96·√n/2 = 50000 − 309.9.
    const std::size_t n = 100000;
    const auto s = comet::summarize(summary_test::shuffled_iota(n));
    BOOST_TEST(s.median_ci_low.value() >= 49688.0);
    BOOST_TEST(s.median_ci_low.value() <= 49692.0);
    BOOST_TEST(s.median_ci_high.value() == static_cast<double>(n) + 1.0 - *s.median_ci_low);
    BOOST_TEST(s.ci_coverage.value() >= 0.95);
    BOOST_TEST(s.ci_coverage.value() < 0.951);  // large n: the steps are fine
    BOOST_TEST(s.median == 50000.5);
}

BOOST_AUTO_TEST_CASE(infinities_are_ordered_not_rejected) {
    const std::vector<double> v{1.0, std::numeric_limits<double>::infinity(), 2.0};
    const auto s = comet::summarize(v);
    BOOST_TEST(s.median == 2.0);
    BOOST_TEST(std::isinf(s.max));
}

BOOST_AUTO_TEST_SUITE_END()
