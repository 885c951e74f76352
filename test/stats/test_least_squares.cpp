// Tests of comet/stats/least_squares.hpp: fit_line on exact and hand-solved noisy data, with
// standard errors by hand; timing scales 12 orders of magnitude apart; (XᵀX)⁻¹ from the QR
// factors against the explicit inverse of a pivoted, scaled design; and the error paths.
#include <comet/stats/least_squares.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace least_squares_test {

namespace tt = boost::test_tools;

inline auto says(std::string text) {
    return [text](const std::exception& e) { return std::string(e.what()).find(text) != std::string::npos; };
}

}  // namespace least_squares_test

BOOST_AUTO_TEST_SUITE(least_squares)

using least_squares_test::says;
using least_squares_test::tt::tolerance;

BOOST_AUTO_TEST_CASE(fit_line_is_exact_on_noiseless_data) {
    const std::vector<double> x{0, 1, 2, 3, 10};
    std::vector<double> y;
    for (double v : x) y.push_back(2.0 + 3.0 * v);
    const auto f = comet::fit_line(x, y);
    BOOST_TEST(f.intercept == 2.0, tolerance(1e-12));
    BOOST_TEST(f.slope == 3.0, tolerance(1e-12));
    BOOST_TEST(f.residual < 1e-12);
    BOOST_TEST(f.points == 5u);
}


BOOST_AUTO_TEST_CASE(fit_line_noisy_set_solved_by_hand) {
    // x̄ = 1.5, ȳ = 2.5, Sxy = 4, Sxx = 5: slope 0.8, intercept 1.3; residuals −0.3, 0.9, −0.9,
    // 0.3, so RMS = sqrt(1.8 / 4).
    const std::vector<double> x{0, 1, 2, 3};
    const std::vector<double> y{1, 3, 2, 4};
    const auto f = comet::fit_line(x, y);
    BOOST_TEST(f.slope == 0.8, tolerance(1e-12));
    BOOST_TEST(f.intercept == 1.3, tolerance(1e-12));
    BOOST_TEST(f.residual == std::sqrt(0.45), tolerance(1e-12));
    BOOST_TEST(f.points == 4u);
    // σ̂² = 1.8 / 2 = 0.9; se(slope) = sqrt(σ̂²/Sxx) = sqrt(0.18); se(intercept) =
    // sqrt(σ̂²·(1/n + x̄²/Sxx)) = sqrt(0.9·0.7).
    BOOST_TEST(f.dof == 2u);
    BOOST_TEST(f.slope_se.value() == std::sqrt(0.18), tolerance(1e-12));
    BOOST_TEST(f.intercept_se.value() == std::sqrt(0.63), tolerance(1e-12));
    // Two points: a line, but no error to give.
    const std::vector<double> two{0, 1};
    BOOST_TEST(!comet::fit_line(two, two).slope_se);
}


BOOST_AUTO_TEST_CASE(fit_line_on_timing_scales) {
    // Sizes up to 1 MB against times of microseconds: 12 orders of magnitude between columns.
    const std::vector<double> x{0, 1e3, 1e4, 1e5, 1e6};
    std::vector<double> y;
    for (double v : x) y.push_back(1.5e-6 + v * 2.5e-10);
    const auto f = comet::fit_line(x, y);
    BOOST_TEST(f.intercept == 1.5e-6, tolerance(1e-9));
    BOOST_TEST(f.slope == 2.5e-10, tolerance(1e-9));
}


BOOST_AUTO_TEST_CASE(fit_line_errors_name_the_counts) {
    const std::vector<double> three{1, 2, 3}, two{1, 2}, one{1}, same{4, 4, 4};
    BOOST_CHECK_EXCEPTION(comet::fit_line(three, two), comet::invalid_argument, says("3 x values but 2 y values"));
    BOOST_CHECK_EXCEPTION(comet::fit_line(one, one), comet::invalid_argument, says("1 points"));
    BOOST_CHECK_EXCEPTION(comet::fit_line(same, three), comet::invalid_argument, says("all 3 x values are 4"));
    const std::vector<double> bad{1, NAN, 3};
    BOOST_CHECK_EXCEPTION(comet::fit_line(three, bad), comet::invalid_argument, says("point 1"));
}


BOOST_AUTO_TEST_CASE(xtx_inverse_from_the_qr_factors_matches_the_explicit_inverse) {
    // Columns of very different scale, so the pivoting QR reorders them and the scaling and
    // permutation must both be undone.
    Eigen::MatrixXd x(7, 3);
    Eigen::VectorXd y(7);
    const double sizes[] = {0, 100, 1000, 4000, 8000, 500, 64};
    const double hops[] = {0, 1, 2, 0, 1, 3, 2};
    for (Eigen::Index i = 0; i < 7; ++i) {
        x(i, 0) = 1.0;
        x(i, 1) = sizes[i];
        x(i, 2) = hops[i];
        y(i) = 1e-4 + sizes[i] * 1e-9 + hops[i] * 1e-5 + (i % 2 ? 1e-7 : -1e-7);
    }
    const auto ls = comet::detail::fit_least_squares(x, y);
    BOOST_TEST_REQUIRE(ls.has_value());
    const Eigen::MatrixXd ref = (x.transpose() * x).inverse();
    for (Eigen::Index a = 0; a < 3; ++a)
        for (Eigen::Index b = 0; b < 3; ++b)
            BOOST_TEST(ls->xtx_inverse(a, b) == ref(a, b), tolerance(1e-8));
    const Eigen::VectorXd beta = ref * x.transpose() * y;
    for (Eigen::Index c = 0; c < 3; ++c) BOOST_TEST(ls->beta(c) == beta(c), tolerance(1e-8));
    BOOST_TEST(ls->ssr == (y - x * beta).squaredNorm(), tolerance(1e-6));
}


BOOST_AUTO_TEST_SUITE_END()
