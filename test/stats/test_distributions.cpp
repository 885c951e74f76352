// Tests of comet/stats/distributions.hpp against Boost.Math (used here only, as the reference:
// the header itself stays free of it for compile time), against textbook table values, and at
// the edges: infinite and tiny tails, symmetry, quantiles that invert the CDFs, and the errors.
#include <comet/stats/distributions.hpp>

#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

namespace distributions_test {

namespace tt = boost::test_tools;
namespace bm = boost::math;

/// |a − b| within `rel` of |b|, or both below 1e-300 (an underflowed tail).
inline bool close(double a, double b, double rel) {
    if (std::fabs(b) < 1e-300) return std::fabs(a) < 1e-300;
    return std::fabs(a - b) <= rel * std::fabs(b);
}

}  // namespace distributions_test

BOOST_AUTO_TEST_SUITE(distributions)

using distributions_test::close;
namespace bm = distributions_test::bm;

BOOST_AUTO_TEST_CASE(textbook_table_values) {
    using distributions_test::tt::tolerance;
    // Student's t, 97.5% points (any statistics table).
    BOOST_TEST(comet::student_t_quantile(0.975, 1) == 12.706205, tolerance(1e-6));
    BOOST_TEST(comet::student_t_quantile(0.975, 5) == 2.570582, tolerance(1e-6));
    BOOST_TEST(comet::student_t_quantile(0.975, 30) == 2.042272, tolerance(1e-6));
    BOOST_TEST(comet::student_t_quantile(0.975, 1e7) == 1.959964, tolerance(1e-6));  // the normal
    // F, 95% points.
    BOOST_TEST(comet::f_quantile(0.95, 1, 10) == 4.964603, tolerance(1e-6));
    BOOST_TEST(comet::f_quantile(0.95, 2, 20) == 3.492828, tolerance(1e-6));
    BOOST_TEST(comet::f_quantile(0.95, 3, 30) == 2.922277, tolerance(1e-6));
    // F(1, ν) is t(ν) squared.
    const double t = comet::student_t_quantile(0.975, 7);
    BOOST_TEST(comet::f_quantile(0.95, 1, 7) == t * t, tolerance(1e-11));
}

BOOST_AUTO_TEST_CASE(incomplete_beta_matches_boost) {
    for (double a : {0.5, 1.0, 2.5, 10.0, 250.0, 5000.0})
        for (double b : {0.5, 1.0, 3.0, 40.0, 5000.0})
            for (double x : {0.0, 1e-8, 0.01, 0.3, 0.5, 0.77, 0.999, 1.0}) {
                const double mine = comet::incomplete_beta(a, b, x);
                const double ref = bm::ibeta(a, b, x);
                BOOST_TEST_CONTEXT("a = " << a << ", b = " << b << ", x = " << x) {
                    BOOST_TEST(close(mine, ref, 1e-10), mine << " vs " << ref);
                }
            }
}

BOOST_AUTO_TEST_CASE(student_t_matches_boost_tails_included) {
    for (double dof : {1.0, 2.0, 2.5, 5.0, 30.0, 1000.0}) {
        const bm::students_t d(dof);
        for (double t : {-1e4, -50.0, -3.0, -0.5, 0.0, 0.1, 2.0, 10.0, 1e3}) {
            BOOST_TEST_CONTEXT("dof = " << dof << ", t = " << t) {
                BOOST_TEST(close(comet::student_t_cdf(t, dof), bm::cdf(d, t), 1e-10));
                BOOST_TEST(close(comet::student_t_sf(t, dof), bm::cdf(bm::complement(d, t)), 1e-10));
            }
        }
        for (double p : {1e-9, 0.001, 0.05, 0.3, 0.5, 0.9, 0.975, 0.999999}) {
            BOOST_TEST_CONTEXT("dof = " << dof << ", p = " << p) {
                const double q = comet::student_t_quantile(p, dof);
                BOOST_TEST(close(q, bm::quantile(d, p), 1e-10), q << " vs " << bm::quantile(d, p));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(fisher_f_matches_boost_tails_included) {
    for (double d1 : {1.0, 2.0, 3.0, 7.5})
        for (double d2 : {1.0, 4.0, 20.0, 500.0}) {
            const bm::fisher_f d(d1, d2);
            for (double f : {1e-6, 0.01, 0.5, 1.0, 3.0, 20.0, 1e4, 1e12}) {
                BOOST_TEST_CONTEXT("F(" << d1 << ", " << d2 << ") at " << f) {
                    BOOST_TEST(close(comet::f_cdf(f, d1, d2), bm::cdf(d, f), 1e-10));
                    BOOST_TEST(close(comet::f_sf(f, d1, d2), bm::cdf(bm::complement(d, f)), 1e-10));
                }
            }
            for (double p : {1e-6, 0.05, 0.5, 0.95, 0.999}) {
                BOOST_TEST_CONTEXT("F(" << d1 << ", " << d2 << ") quantile " << p) {
                    BOOST_TEST(close(comet::f_quantile(p, d1, d2), bm::quantile(d, p), 1e-10));
                }
            }
        }
}

BOOST_AUTO_TEST_CASE(a_tiny_p_value_is_computed_not_rounded_to_zero) {
    // An F test of a real protocol break gives F in the thousands: its p-value must come out
    // as the tiny number it is (it is multiplied by the number of splits searched).
    const double p = comet::f_sf(5000.0, 3, 30);
    BOOST_TEST(p > 0.0);
    BOOST_TEST(close(p, bm::cdf(bm::complement(bm::fisher_f(3, 30), 5000.0)), 1e-10));
    BOOST_TEST(p < 1e-30);
}

BOOST_AUTO_TEST_CASE(edges_and_symmetry) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    BOOST_TEST(comet::student_t_cdf(0.0, 3) == 0.5);
    BOOST_TEST(comet::student_t_cdf(inf, 3) == 1.0);
    BOOST_TEST(comet::student_t_cdf(-inf, 3) == 0.0);
    BOOST_TEST(comet::student_t_quantile(0.5, 3) == 0.0);
    BOOST_TEST(comet::student_t_quantile(0.025, 9) == -comet::student_t_quantile(0.975, 9));
    BOOST_TEST(comet::student_t_quantile(1.0, 9) == inf);
    BOOST_TEST(comet::f_sf(inf, 2, 3) == 0.0);
    BOOST_TEST(comet::f_sf(0.0, 2, 3) == 1.0);
    BOOST_TEST(comet::f_sf(-1.0, 2, 3) == 1.0);
    BOOST_TEST(comet::f_cdf(0.0, 2, 3) == 0.0);
    BOOST_TEST(comet::f_quantile(0.0, 2, 3) == 0.0);
    BOOST_TEST(comet::f_quantile(1.0, 2, 3) == inf);
    BOOST_TEST(std::isnan(comet::f_sf(std::nan(""), 2, 3)));
    // quantile and CDF invert each other
    for (double p : {0.01, 0.5, 0.95})
        BOOST_TEST(comet::f_cdf(comet::f_quantile(p, 4, 11), 4, 11) == p, distributions_test::tt::tolerance(1e-11));
}

BOOST_AUTO_TEST_CASE(errors_name_the_value) {
    BOOST_CHECK_THROW(comet::student_t_cdf(1.0, 0.0), comet::invalid_argument);
    BOOST_CHECK_THROW(comet::student_t_quantile(1.5, 3), comet::invalid_argument);
    BOOST_CHECK_THROW(comet::f_sf(1.0, -1, 3), comet::invalid_argument);
    BOOST_CHECK_THROW(comet::f_quantile(std::nan(""), 1, 3), comet::invalid_argument);
    BOOST_CHECK_THROW(comet::incomplete_beta(1, 1, 1.5), comet::invalid_argument);
    BOOST_CHECK_THROW(comet::incomplete_beta(0, 1, 0.5), comet::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
