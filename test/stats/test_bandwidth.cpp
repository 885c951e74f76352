// Tests of comet/stats/bandwidth.hpp: bandwidth figures against hand interpolation, the first
// crossing of a non-monotone curve, the figures flagged where a median is, the closed form of a linear time model, and one entry per
// hop value with pooled records.
#include <comet/stats/bandwidth.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace bandwidth_test {

namespace tt = boost::test_tools;

/// Records of one hop value whose median times are t = size / bw, i.e. the given bandwidths.
inline comet::result_set with_bandwidths(const std::vector<std::pair<std::int64_t, double>>& size_bw,
                                         std::int64_t hops = 1) {
    comet::result_set rs;
    for (const auto& [size, bw] : size_bw) {
        const double t = static_cast<double>(size) / bw;
        rs.records.push_back({"echo", {{"size", size}, {"hops", hops}}, {t}});
    }
    return rs;
}

}  // namespace bandwidth_test

BOOST_AUTO_TEST_SUITE(bandwidth)

using bandwidth_test::tt::tolerance;

BOOST_AUTO_TEST_CASE(bandwidth_interpolates_between_measured_sizes) {
    // bandwidths 1, 2, 4 MB/s at 100, 200, 400 B: peak 4e6. 50% = 2e6 is reached exactly at 200
    // (interpolating from 100: 100 + (2e6 − 1e6)·100/1e6 = 200); 90% = 3.6e6 lies between 200
    // and 400: 200 + (3.6e6 − 2e6)·200/2e6 = 360.
    const auto rs = bandwidth_test::with_bandwidths({{100, 1e6}, {200, 2e6}, {400, 4e6}});
    const auto b = comet::bandwidth(rs, "echo");
    BOOST_TEST_REQUIRE(b.size() == 1u);
    BOOST_TEST(b[0].kernel == "echo");
    BOOST_TEST(b[0].hops == 1);
    BOOST_TEST(b[0].peak == 4e6, tolerance(1e-12));
    BOOST_TEST(b[0].n_half == 200.0, tolerance(1e-12));
    BOOST_TEST(b[0].n_90 == 360.0, tolerance(1e-12));
    BOOST_TEST(b[0].flags.empty());
}

BOOST_AUTO_TEST_CASE(bandwidth_from_a_flagged_median_is_flagged) {
    // 200 B's samples disagree (spread far above 5%): every figure rests on its bandwidth too.
    auto rs = bandwidth_test::with_bandwidths({{100, 1e6}, {400, 4e6}});
    rs.records.push_back({"echo", {{"size", std::int64_t{200}}, {"hops", std::int64_t{1}}}, {1e-4, 1.5e-4, 0.7e-4, 1.2e-4, 0.9e-4}});
    const auto b = comet::bandwidth(rs, "echo");
    BOOST_TEST_REQUIRE(b.size() == 1u);
    BOOST_TEST_REQUIRE(b[0].flags.size() == 1u);
    BOOST_TEST(b[0].flags[0].starts_with("the median is flagged at 1 of 3 sizes (200 B; at 200 B: the samples disagree"), b[0].flags[0]);
    // The figures are still computed (a reader sees them, marked).
    BOOST_TEST(b[0].peak == 4e6, tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(bandwidth_without_a_size_left_out_says_so) {
    // The largest size flagged as a whole (every sample preempted): the peak is the smaller
    // sizes', and the figures say which size they lack.
    auto rs = bandwidth_test::with_bandwidths({{100, 1e6}, {200, 2e6}, {400, 4e6}});
    for (auto& r : rs.records)
        if (r.params.integer("size") == 400) comet::add_flag(r, "point", "every sample preempted");
    const auto b = comet::bandwidth(rs, "echo");
    BOOST_TEST_REQUIRE(b.size() == 1u);
    BOOST_TEST(b[0].peak == 2e6, tolerance(1e-12));
    BOOST_TEST_REQUIRE(b[0].flags.size() == 1u);
    BOOST_TEST(b[0].flags[0] == "left out (a record not read) at 1 of 3 sizes (400 B; at 400 B: every sample preempted)");
}


BOOST_AUTO_TEST_CASE(bandwidth_first_crossing_of_a_non_monotone_curve) {
    // 1, 5, 3, 10 MB/s: 50% of peak (5e6) is first reached at the second size, 90% (9e6) only at
    // the last, interpolated from the dip before it: 300 + (9e6 − 3e6)·100/7e6.
    const auto rs = bandwidth_test::with_bandwidths({{100, 1e6}, {200, 5e6}, {300, 3e6}, {400, 10e6}});
    const auto b = comet::bandwidth(rs, "echo").at(0);
    BOOST_TEST(b.peak == 10e6, tolerance(1e-12));
    BOOST_TEST(b.n_half == 200.0, tolerance(1e-12));
    BOOST_TEST(b.n_90 == 300.0 + 6e6 * 100.0 / 7e6, tolerance(1e-12));
}


BOOST_AUTO_TEST_CASE(bandwidth_reached_at_the_smallest_size_is_that_size) {
    const auto rs = bandwidth_test::with_bandwidths({{1000, 9.5e6}, {2000, 10e6}});
    const auto b = comet::bandwidth(rs, "echo").at(0);
    BOOST_TEST(b.n_half == 1000.0);
    BOOST_TEST(b.n_90 == 1000.0);
}


BOOST_AUTO_TEST_CASE(bandwidth_of_linear_model_matches_closed_form) {
    // t(N) = a + b·N gives bandwidth N / (a + b·N), rising to 1/b. Over sizes up to N_max the
    // peak is P = N_max / (a + b·N_max); the level L is reached at N = L·a / (1 − L·b). On an
    // 8-byte grid linear interpolation of this gentle curve is accurate to well under 0.1%.
    const double a = 156e-6, b = 0.41e-6;
    comet::result_set rs;
    const std::int64_t n_max = 65536;
    for (std::int64_t n = 8; n <= n_max; n += 8) {
        const double t = a + b * static_cast<double>(n);
        rs.records.push_back({"echo", {{"size", n}, {"hops", std::int64_t{1}}}, {t}});
    }
    const auto f = comet::bandwidth(rs, "echo").at(0);
    const double peak = static_cast<double>(n_max) / (a + b * static_cast<double>(n_max));
    const auto reach = [&](double level) { return level * a / (1.0 - level * b); };
    BOOST_TEST(f.peak == peak, tolerance(1e-12));
    BOOST_TEST(f.n_half == reach(0.5 * peak), tolerance(1e-3));
    BOOST_TEST(f.n_90 == reach(0.9 * peak), tolerance(1e-3));
}


BOOST_AUTO_TEST_CASE(bandwidth_one_entry_per_hop_value_ascending) {
    comet::result_set rs;
    for (std::int64_t h : {4, 1}) {
        rs.records.push_back({"echo", {{"size", std::int64_t{0}}, {"hops", h}}, {1e-4}});  // size 0: no bandwidth
        rs.records.push_back(
            {"echo", {{"size", std::int64_t{1000}}, {"hops", h}}, {1e-3 * static_cast<double>(h)}});
    }
    // Two records of one size and hop value are pooled: median of {2e-3, 1e-3, 4e-3} is 2e-3.
    rs.records.push_back({"echo", {{"size", std::int64_t{2000}}, {"hops", std::int64_t{1}}}, {2e-3, 1e-3}});
    rs.records.push_back({"echo", {{"size", std::int64_t{2000}}, {"hops", std::int64_t{1}}}, {4e-3}});
    rs.records.push_back({"echo", {{"size", std::int64_t{0}}, {"hops", std::int64_t{7}}}, {1e-4}});  // no bandwidth at all

    const auto b = comet::bandwidth(rs, "echo");
    BOOST_TEST_REQUIRE(b.size() == 3u);
    BOOST_TEST(b[0].hops == 1);
    BOOST_TEST(b[0].peak == 1e6, tolerance(1e-12));  // 1000 B / 1 ms and 2000 B / 2 ms
    BOOST_TEST(b[1].hops == 4);
    BOOST_TEST(b[1].peak == 0.25e6, tolerance(1e-12));
    BOOST_TEST(b[2].hops == 7);
    BOOST_TEST(std::isnan(b[2].peak));
    BOOST_TEST(std::isnan(b[2].n_half));
    BOOST_TEST(std::isnan(b[2].n_90));
    BOOST_TEST(comet::bandwidth(rs, "nothing").empty());
}


BOOST_AUTO_TEST_SUITE_END()
