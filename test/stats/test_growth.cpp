// Tests of comet/stats/growth.hpp on synthetic records with hand-computed golden values:
// log-P lines recovered exactly (powers of two and not), a noisy one against its hand-solved
// least squares, barrier read at its least sample when asked (the median otherwise); linear
// against quadratic growth told apart exactly, with noise and with a protocol kink; a curve
// flagged where a point's statistic is; and every
// error path. (Contention and overlap: test/analysis/.)
//
// The noisy golden values were solved exactly (rational arithmetic, normal equations) outside
// comet; they are quoted in the comments.
#include <comet/stats/growth.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/records.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace growth_test {

namespace tt = boost::test_tools;

using comet_test::around;
using comet_test::rec;
using comet_test::says;
using comet_test::us;

/// Records of `kernel` at x = `xs` (param `x_name`) with times `time(x)`, plus `extra` params.
template <class Time>
comet::result_set curve(std::string kernel, std::string x_name, const std::vector<std::int64_t>& xs, Time time,
                        comet::params extra = {}) {
    comet::result_set rs;
    for (auto x : xs) {
        comet::params p = extra;
        p.set(x_name, x);
        rs.records.push_back(rec(kernel, p, around(time(static_cast<double>(x)))));
    }
    return rs;
}

}  // namespace growth_test

BOOST_AUTO_TEST_SUITE(growth)

using namespace growth_test;

BOOST_AUTO_TEST_CASE(statistics_of_samples) {
    const std::vector<double> s{3.0, 1.0, 8.0};
    BOOST_TEST(comet::statistic_of(s, comet::statistic::median) == 3.0);
    BOOST_TEST(comet::statistic_of(s, comet::statistic::min) == 1.0);
    BOOST_TEST(comet::statistic_of(s, comet::statistic::mean) == 4.0);
    BOOST_TEST(std::isnan(comet::statistic_of(std::vector<double>{}, comet::statistic::min)));
    BOOST_TEST(std::string(comet::to_string(comet::statistic::min)) == "min");
    BOOST_TEST(std::string(comet::to_string(comet::growth_model::quadratic)) == "quadratic");
}

BOOST_AUTO_TEST_CASE(log_p_lines_are_recovered_exactly_per_size) {
    // Two broadcast curves: 20 µs + 7 µs per doubling (8 B) and 100 µs + 30 µs per doubling
    // (1024 B), at P = 2, 4, 8, 16; and an echo record the fit must ignore.
    comet::result_set rs;
    rs.records.push_back(rec("echo", {{"size", std::int64_t{8}}, {"nodes", std::int64_t{2}}}, {1.0}));
    for (std::int64_t p : {2, 4, 8, 16})
        for (auto [size, a, b] : {std::tuple{std::int64_t{8}, 20 * us, 7 * us}, {std::int64_t{1024}, 100 * us, 30 * us}})
            rs.records.push_back(rec("broadcast", {{"size", size}, {"nodes", p}}, around(a + b * std::log2(p))));
    const auto fits = comet::fit_log_p(rs, "broadcast");
    BOOST_TEST_REQUIRE(fits.size() == 2u);
    BOOST_TEST(fits[0].kernel == "broadcast");
    BOOST_TEST(*fits[0].group.integer("size") == 8);
    BOOST_TEST(!fits[0].group.contains("nodes"));
    BOOST_TEST((fits[0].stat == comet::statistic::median));
    BOOST_TEST(fits[0].intercept == 20 * us, tt::tolerance(1e-9));
    BOOST_TEST(fits[0].per_doubling == 7 * us, tt::tolerance(1e-9));
    BOOST_TEST(fits[1].intercept == 100 * us, tt::tolerance(1e-9));
    BOOST_TEST(fits[1].per_doubling == 30 * us, tt::tolerance(1e-9));
    for (const auto& f : fits) {
        BOOST_TEST(f.residual < 1e-15);
        BOOST_TEST(f.r_squared == 1.0, tt::tolerance(1e-12));
        // A straight line in P through points on a log-P line: R² = corr(log2 P, P)² = 23/25.
        BOOST_TEST(f.r_squared_linear_p == 0.92, tt::tolerance(1e-12));
        BOOST_TEST(f.logarithmic);
        BOOST_TEST(f.points == 4u);
        BOOST_TEST_REQUIRE(f.data.size() == 4u);
        BOOST_TEST(f.data[0].x == 2.0);
        BOOST_TEST(f.data[3].x == 16.0);
    }
}

BOOST_AUTO_TEST_CASE(log_p_line_of_groups_that_are_not_powers_of_two) {
    const auto rs = curve("global_sum", "nodes", {3, 6, 12, 24}, [](double p) { return 5 * us + 2 * us * std::log2(p); },
                          {{"vector_length", std::int64_t{1}}});
    const auto f = comet::fit_log_p(rs, "global_sum").at(0);
    BOOST_TEST(f.intercept == 5 * us, tt::tolerance(1e-9));
    BOOST_TEST(f.per_doubling == 2 * us, tt::tolerance(1e-9));
    BOOST_TEST(*f.group.integer("vector_length") == 1);
}

BOOST_AUTO_TEST_CASE(noisy_log_p_line_matches_the_hand_solution) {
    // log2 P = 1, 2, 3, 4 and times 1, 3, 2, 4 µs: slope 0.8, intercept 0.5, residuals
    // -0.3, 0.9, -0.9, 0.3 (SS 1.8, rms sqrt(0.45)), SS_tot 5, R² = 0.64. The line in P
    // (2, 4, 8, 16) explains less: R² = 361/575.
    comet::result_set rs;
    const double t[] = {1, 3, 2, 4};
    for (int i = 0; i < 4; ++i) rs.records.push_back(rec("global_sum", {{"nodes", std::int64_t{2} << i}}, {t[i] * us}));
    const auto f = comet::fit_log_p(rs, "global_sum").at(0);
    BOOST_TEST(f.group.empty());
    BOOST_TEST(f.intercept == 0.5 * us, tt::tolerance(1e-9));
    BOOST_TEST(f.per_doubling == 0.8 * us, tt::tolerance(1e-9));
    BOOST_TEST(f.residual == std::sqrt(0.45) * us, tt::tolerance(1e-9));
    BOOST_TEST(f.r_squared == 0.64, tt::tolerance(1e-9));
    BOOST_TEST(f.r_squared_linear_p == 361.0 / 575.0, tt::tolerance(1e-9));
    BOOST_TEST(f.logarithmic);
}

BOOST_AUTO_TEST_CASE(barrier_read_at_its_least_sample_and_records_pool) {
    // Least samples 1, 2, 3 µs at P = 2, 4, 8: 1 µs per doubling from 0. The P = 8 samples come
    // in two records that pool. Read at the median instead (5, 7, 3.5 µs): the hand solution
    // is 20/3 µs - 0.75 µs per doubling.
    comet::result_set rs;
    rs.records.push_back(rec("barrier", {{"nodes", std::int64_t{2}}}, {5 * us, 1 * us, 9 * us}));
    rs.records.push_back(rec("barrier", {{"nodes", std::int64_t{4}}}, {2 * us, 8 * us, 7 * us}));
    rs.records.push_back(rec("barrier", {{"nodes", std::int64_t{8}}}, {3 * us, 4 * us}));
    rs.records.push_back(rec("barrier", {{"nodes", std::int64_t{8}}}, {3.5 * us}));
    const auto least = comet::fit_log_p(rs, "barrier", {.stat = comet::statistic::min}).at(0);
    BOOST_TEST((least.stat == comet::statistic::min));
    BOOST_TEST(least.points == 3u);
    BOOST_TEST(std::abs(least.intercept) < 1e-15);
    BOOST_TEST(least.per_doubling == 1 * us, tt::tolerance(1e-9));
    const auto median = comet::fit_log_p(rs, "barrier").at(0);  // the median unless told: stats knows no kernel
    BOOST_TEST(median.intercept == 20.0 / 3.0 * us, tt::tolerance(1e-9));
    BOOST_TEST(median.per_doubling == -0.75 * us, tt::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(a_curve_with_a_flagged_point_is_flagged) {
    // Steady samples at 2, 4, 8 and 16 nodes: no flag. Then the 4-node point's samples disagree
    // (spread far above 5%): the log-P line, and a growth curve in the same records, say where.
    comet::result_set rs;
    for (std::int64_t p : {2, 4, 8, 16}) {
        const double t = (10.0 + 5.0 * std::log2(static_cast<double>(p))) * us;
        rs.records.push_back(rec("broadcast", {{"nodes", p}, {"size", std::int64_t{8}}}, {t, t, t}));
    }
    BOOST_TEST(comet::fit_log_p(rs, "broadcast").at(0).flags.empty());
    BOOST_TEST(comet::compare_growth(rs, "broadcast", "nodes").at(0).flags.empty());
    rs.records[1].samples = {15 * us, 25 * us, 20 * us, 12 * us, 30 * us};
    const auto f = comet::fit_log_p(rs, "broadcast").at(0);
    BOOST_TEST_REQUIRE(f.flags.size() == 1u);
    BOOST_TEST(f.flags[0].starts_with("the median is flagged at 1 of 4 values of nodes (4; at 4: the samples disagree"), f.flags[0]);
    const auto g = comet::compare_growth(rs, "broadcast", "nodes").at(0);
    BOOST_TEST_REQUIRE(g.flags.size() == 1u);
    BOOST_TEST(g.flags[0].starts_with("the median is flagged at 1 of 4 values of nodes (4; "), g.flags[0]);
    // The 16-node point flagged as a whole: the line is fitted to the other three, and says so.
    comet::add_flag(rs.records[3], "point", "every sample preempted");
    const auto left = comet::fit_log_p(rs, "broadcast").at(0);
    BOOST_TEST(left.points == 3u);
    BOOST_TEST_REQUIRE(left.flags.size() == 2u);
    BOOST_TEST(left.flags[1] == "left out (a record not read) at 1 of 4 values of nodes (16; at 16: every sample preempted)");
}

BOOST_AUTO_TEST_CASE(log_p_needs_two_group_sizes) {
    comet::result_set rs;
    rs.records.push_back(rec("barrier", {{"nodes", std::int64_t{4}}}, {1 * us}));
    rs.records.push_back(rec("barrier", {{"nodes", std::int64_t{4}}}, {2 * us}));
    BOOST_CHECK_EXCEPTION(comet::fit_log_p(rs, "barrier"), comet::invalid_argument,
                          says("fit_log_p: kernel 'barrier' has no curve with records at 2 or more group sizes "
                               "(group sizes found: 4)"));
    BOOST_CHECK_EXCEPTION(comet::fit_log_p(rs, "broadcast"), comet::invalid_argument, says("(group sizes found: none)"));
    rs.records.push_back(rec("barrier", {{"nodes", std::int64_t{0}}}, {2 * us}));
    BOOST_CHECK_EXCEPTION(comet::fit_log_p(rs, "barrier"), comet::invalid_argument,
                          says("record at nodes = 0; a group has at least 1 node"));
}

BOOST_AUTO_TEST_CASE(exact_linear_and_quadratic_growth_are_told_apart) {
    const std::vector<std::int64_t> dims{16, 32, 64, 128, 256, 512};
    const auto line = curve("update_guard", "matrix_dim", dims, [](double n) { return 50 * us + 2 * us * n; },
                            {{"nodes", std::int64_t{16}}});
    const auto g = comet::compare_growth(line, "update_guard", "matrix_dim").at(0);
    BOOST_TEST((g.model == comet::growth_model::linear));
    BOOST_TEST(g.x == "matrix_dim");
    BOOST_TEST(*g.group.integer("nodes") == 16);
    BOOST_TEST(g.points == 6u);
    BOOST_TEST_REQUIRE(g.linear.coefficients.size() == 2u);
    BOOST_TEST(g.linear.coefficients[0] == 50 * us, tt::tolerance(1e-9));
    BOOST_TEST(g.linear.coefficients[1] == 2 * us, tt::tolerance(1e-9));
    BOOST_TEST(g.linear.r_squared == 1.0, tt::tolerance(1e-12));
    BOOST_TEST(std::abs(g.quadratic_share) < 1e-6);

    const auto square = curve("shift_matrix", "matrix_dim", dims,
                              [](double n) { return 50 * us + 0.1 * us * n + 0.001 * us * n * n; });
    const auto s = comet::compare_growth(square, "shift_matrix", "matrix_dim").at(0);
    BOOST_TEST((s.model == comet::growth_model::quadratic));
    BOOST_TEST_REQUIRE(s.quadratic.coefficients.size() == 3u);
    BOOST_TEST(s.quadratic.coefficients[0] == 50 * us, tt::tolerance(1e-7));
    BOOST_TEST(s.quadratic.coefficients[1] == 0.1 * us, tt::tolerance(1e-7));
    BOOST_TEST(s.quadratic.coefficients[2] == 0.001 * us, tt::tolerance(1e-7));
    BOOST_TEST(s.quadratic.r_squared == 1.0, tt::tolerance(1e-12));
    BOOST_TEST(s.linear.r_squared < 0.99);
    // Of the rise from 16 to 512, 0.001·(512² − 16²) = 261.888 µs comes from the square and
    // 0.1·496 = 49.6 µs from the line: share 261.888 / 311.488.
    BOOST_TEST(s.quadratic_share == 261.888 / 311.488, tt::tolerance(1e-6));
    BOOST_TEST(s.f_statistic > s.f_critical);
}

BOOST_AUTO_TEST_CASE(noisy_growth_matches_the_hand_solution) {
    // N = 100, 200, ..., 800 with noise 3, -2, 1, -3, 2, -1, 2, -2 µs.
    const std::vector<std::int64_t> dims{100, 200, 300, 400, 500, 600, 700, 800};
    const double noise[] = {3, -2, 1, -3, 2, -1, 2, -2};
    const auto with_noise = [&](auto f) {
        comet::result_set rs;
        for (std::size_t i = 0; i < dims.size(); ++i) {
            const auto n = static_cast<double>(dims[i]);
            rs.records.push_back(rec("transpose", {{"matrix_dim", dims[i]}}, {(f(n) + noise[i]) * us}));
        }
        return rs;
    };
    const double f_critical = 6.6078909737033662;  // F(1, 5) at 95% (Boost.Math; t(5) at 97.5%, squared)

    // 50 + 2N: line 50.857142857 + 1.998095238·N, quadratic 51.928571429 + 1.991666667·N +
    // 7.142857e-6·N², F = 0.12748 (far below 6.608), share 0.0032: linear.
    const auto lin = comet::compare_growth(with_noise([](double n) { return 50 + 2 * n; }), "transpose", "matrix_dim").at(0);
    BOOST_TEST(lin.linear.coefficients[0] == 50.857142857142854 * us, tt::tolerance(1e-9));
    BOOST_TEST(lin.linear.coefficients[1] == 1.9980952380952381 * us, tt::tolerance(1e-9));
    BOOST_TEST(lin.linear.residual == 2.07593925959403 * us, tt::tolerance(1e-9));
    BOOST_TEST(lin.quadratic.coefficients[2] == 7.142857142857143e-06 * us, tt::tolerance(1e-6));
    BOOST_TEST(lin.f_statistic == 0.1274787535410765, tt::tolerance(1e-6));
    BOOST_TEST(lin.f_critical == f_critical, tt::tolerance(1e-9));
    BOOST_TEST(lin.quadratic_share == 0.003217349857006673, tt::tolerance(1e-6));
    BOOST_TEST((lin.model == comet::growth_model::linear));

    // 50 + 0.5N + 0.002N²: quadratic 51.928571429 + 0.491666667·N + 0.002007142857·N²,
    // F = 10065.85, share 0.78605: quadratic.
    const auto quad = comet::compare_growth(with_noise([](double n) { return 50 + 0.5 * n + 0.002 * n * n; }),
                                            "transpose", "matrix_dim")
                          .at(0);
    BOOST_TEST(quad.quadratic.coefficients[0] == 51.92857142857143 * us, tt::tolerance(1e-8));
    BOOST_TEST(quad.quadratic.coefficients[1] == 0.49166666666666664 * us, tt::tolerance(1e-8));
    BOOST_TEST(quad.quadratic.coefficients[2] == 0.002007142857142857 * us, tt::tolerance(1e-8));
    BOOST_TEST(quad.quadratic.residual == 2.0499709637897197 * us, tt::tolerance(1e-8));
    BOOST_TEST(quad.f_statistic == 10065.84985835694, tt::tolerance(1e-6));
    BOOST_TEST(quad.quadratic_share == 0.7860547036883547, tt::tolerance(1e-8));
    BOOST_TEST((quad.model == comet::growth_model::quadratic));
}

BOOST_AUTO_TEST_CASE(a_protocol_kink_is_not_a_square) {
    // The thesis' echo line: 79 + 0.63N up to 100 bytes, 156 + 0.41N above. A quadratic bends
    // to follow the kink (F = 17.16 > 6.61), but its square term is negative (share -0.506):
    // the rise is the line's, so the verdict is linear.
    comet::result_set rs;
    for (std::int64_t n : {0, 25, 50, 75, 100, 200, 400, 800}) {
        const auto x = static_cast<double>(n);
        rs.records.push_back(rec("row_broadcast", {{"matrix_dim", n}}, {(n <= 100 ? 79 + 0.63 * x : 156 + 0.41 * x) * us}));
    }
    const auto g = comet::compare_growth(rs, "row_broadcast", "matrix_dim").at(0);
    BOOST_TEST(g.f_statistic == 17.161363409850136, tt::tolerance(1e-6));
    BOOST_TEST(g.quadratic_share == -0.5060094122398828, tt::tolerance(1e-6));
    BOOST_TEST((g.model == comet::growth_model::linear));
}

BOOST_AUTO_TEST_CASE(three_points_leave_the_verdict_to_the_share) {
    const auto rs = curve("shift_matrix", "matrix_dim", {10, 20, 40}, [](double n) { return 1 * us + 0.01 * us * n * n; });
    const auto g = comet::compare_growth(rs, "shift_matrix", "matrix_dim").at(0);
    BOOST_TEST(std::isnan(g.f_statistic));
    BOOST_TEST(std::isnan(g.f_critical));
    BOOST_TEST(g.quadratic_share == 1.0, tt::tolerance(1e-6));
    BOOST_TEST((g.model == comet::growth_model::quadratic));
}

BOOST_AUTO_TEST_CASE(growth_curves_are_grouped_by_the_other_params) {
    comet::result_set rs = curve("transpose", "matrix_dim", {8, 16, 32, 64}, [](double n) { return n * us; },
                                 {{"nodes", std::int64_t{4}}});
    rs.append(curve("transpose", "matrix_dim", {8, 16, 32, 64}, [](double n) { return n * n * us; },
                    {{"nodes", std::int64_t{16}}}));
    rs.append(curve("transpose", "matrix_dim", {8, 16}, [](double n) { return n * us; }, {{"nodes", std::int64_t{2}}}));
    const auto gs = comet::compare_growth(rs, "transpose", "matrix_dim");
    BOOST_TEST_REQUIRE(gs.size() == 2u);  // the 2-point curve is left out
    BOOST_TEST(*gs[0].group.integer("nodes") == 4);
    BOOST_TEST((gs[0].model == comet::growth_model::linear));
    BOOST_TEST(*gs[1].group.integer("nodes") == 16);
    BOOST_TEST((gs[1].model == comet::growth_model::quadratic));

    const auto few = curve("transpose", "matrix_dim", {8, 16}, [](double n) { return n * us; });
    BOOST_CHECK_EXCEPTION(comet::compare_growth(few, "transpose", "matrix_dim"), comet::invalid_argument,
                          says("compare_growth: kernel 'transpose' has no curve with 3 or more distinct 'matrix_dim' "
                               "values (the most found: 2)"));
}

BOOST_AUTO_TEST_SUITE_END()
