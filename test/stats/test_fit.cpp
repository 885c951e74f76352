// Tests of comet/stats/fit.hpp: fit_line on exact and hand-solved noisy data; fit_transfers
// recovering the CoMet thesis' iPSC/860 figures (5.1) from synthetic records, with the break
// given and found; bandwidth figures against hand interpolation and the closed form of a
// linear time model; and every error path.
#include <comet/stats/fit.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace fit_test {

namespace tt = boost::test_tools;

inline auto says(std::string text) {
    return [text](const std::exception& e) { return std::string(e.what()).find(text) != std::string::npos; };
}

// The thesis' echo figures (section 5.1). The hop overhead of small messages is not in the
// thesis; 12 µs is made up, to show that each regime gets its own.
constexpr double small_startup = 79e-6, small_per_byte = 0.63e-6, small_hop = 12e-6;
constexpr double large_startup = 156e-6, large_per_byte = 0.41e-6, large_hop = 25e-6;

inline double model(std::int64_t size, std::int64_t hops) {
    const auto n = static_cast<double>(size);
    const auto extra = static_cast<double>(hops - 1);
    return size <= 100 ? small_startup + n * small_per_byte + extra * small_hop
                       : large_startup + n * large_per_byte + extra * large_hop;
}

/// Three samples per record whose median is the model time; the slow outlier (+50 µs) would
/// move a mean by 16.7 µs, so a fit that used means instead of medians would miss.
inline comet::record echo_record(std::int64_t size, std::int64_t hops) {
    const double t = model(size, hops);
    return {"echo", {{"size", size}, {"hops", hops}}, {t + 50e-6, t, t - 1e-7}};
}

inline const std::vector<std::int64_t> small_sizes{0, 8, 16, 32, 48, 64, 80, 96, 100};
inline const std::vector<std::int64_t> large_sizes{104, 128, 256, 512, 1024, 2048, 4096, 8192};

inline comet::result_set thesis_echo(std::vector<std::int64_t> hop_list) {
    comet::result_set rs;
    rs.records.push_back({"pairwise", {{"size", std::int64_t{8}}}, {1.0}});  // another kernel: ignored
    for (auto h : hop_list) {
        for (auto s : small_sizes) rs.records.push_back(echo_record(s, h));
        for (auto s : large_sizes) rs.records.push_back(echo_record(s, h));
    }
    return rs;
}

inline void check_thesis_fits(const std::vector<comet::transfer_fit>& fits, std::size_t hop_values) {
    BOOST_TEST_REQUIRE(fits.size() == 2u);
    const auto& s = fits[0];
    const auto& l = fits[1];
    BOOST_TEST(s.kernel == "echo");
    BOOST_TEST(s.regime == "small");
    BOOST_TEST(l.regime == "large");
    BOOST_TEST(s.break_size.value() == 100.0);
    BOOST_TEST(l.break_size.value() == 100.0);
    BOOST_TEST(s.points == small_sizes.size() * hop_values);
    BOOST_TEST(l.points == large_sizes.size() * hop_values);
    BOOST_TEST(s.t_startup == small_startup, tt::tolerance(1e-9));
    BOOST_TEST(s.t_per_byte == small_per_byte, tt::tolerance(1e-9));
    BOOST_TEST(l.t_startup == large_startup, tt::tolerance(1e-9));
    BOOST_TEST(l.t_per_byte == large_per_byte, tt::tolerance(1e-9));
    if (hop_values > 1) {
        BOOST_TEST(s.hop.value() == small_hop, tt::tolerance(1e-9));
        BOOST_TEST(l.hop.value() == large_hop, tt::tolerance(1e-9));
    } else {
        BOOST_TEST(!s.hop);
        BOOST_TEST(!l.hop);
    }
    BOOST_TEST(s.residual < 1e-15);  // noiseless medians: only rounding is left
    BOOST_TEST(l.residual < 1e-15);
}

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

}  // namespace fit_test

BOOST_AUTO_TEST_SUITE(fit)

using fit_test::says;
using fit_test::tt::tolerance;

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

BOOST_AUTO_TEST_CASE(fit_transfers_recovers_thesis_figures_with_given_break) {
    const auto rs = fit_test::thesis_echo({1, 2, 3, 4});
    fit_test::check_thesis_fits(comet::fit_transfers(rs, "echo", {.break_size = 100.0}), 4);
}

BOOST_AUTO_TEST_CASE(fit_transfers_finds_the_nx2_break_at_100_bytes) {
    const auto rs = fit_test::thesis_echo({1, 2, 3, 4});
    fit_test::check_thesis_fits(comet::fit_transfers(rs, "echo", {.break_size = std::nullopt, .find_break = true}), 4);
}

BOOST_AUTO_TEST_CASE(fit_transfers_single_hop_value_has_no_hop_term) {
    const auto rs = fit_test::thesis_echo({1});
    fit_test::check_thesis_fits(comet::fit_transfers(rs, "echo", {.break_size = std::nullopt, .find_break = true}), 1);
}

BOOST_AUTO_TEST_CASE(fit_transfers_missing_hops_count_as_one) {
    comet::result_set rs;
    for (std::int64_t s : {0, 8, 64})
        rs.records.push_back({"echo", {{"size", s}}, {fit_test::model(s, 1)}});
    const auto fits = comet::fit_transfers(rs, "echo");
    BOOST_TEST_REQUIRE(fits.size() == 1u);
    BOOST_TEST(!fits[0].hop);
    BOOST_TEST(fits[0].t_startup == fit_test::small_startup, tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(fit_transfers_leaves_out_zero_hop_records) {
    // A rank echoing itself takes no network path: its (fast) times must not bend the line.
    auto rs = fit_test::thesis_echo({1, 2});
    for (auto s : fit_test::small_sizes) rs.records.push_back({"echo", {{"size", s}, {"hops", std::int64_t{0}}}, {1e-6}});
    fit_test::check_thesis_fits(comet::fit_transfers(rs, "echo", {.break_size = 100.0}), 2);
    // ... but it still has a bandwidth of its own
    const auto b = comet::bandwidth(rs, "echo");
    BOOST_TEST_REQUIRE(b.size() == 3u);
    BOOST_TEST(b[0].hops == 0);
}

BOOST_AUTO_TEST_CASE(fit_transfers_without_break_fits_everything_at_once) {
    const auto rs = fit_test::thesis_echo({1, 4});
    const auto fits = comet::fit_transfers(rs, "echo");
    BOOST_TEST_REQUIRE(fits.size() == 1u);
    const auto& f = fits[0];
    BOOST_TEST(f.regime == "all");
    BOOST_TEST(!f.break_size);
    BOOST_TEST(f.points == 2 * (fit_test::small_sizes.size() + fit_test::large_sizes.size()));
    BOOST_TEST(f.hop.has_value());
    // One line through two regimes cannot be exact: the protocol jump shows in the residual.
    BOOST_TEST(f.residual > 1e-6);
}

BOOST_AUTO_TEST_CASE(fit_transfers_uses_only_integer_sized_records_with_samples) {
    auto rs = fit_test::thesis_echo({1});
    rs.records.push_back({"echo", {{"size", 50.5}}, {1.0}});          // real size: not a point
    rs.records.push_back({"echo", {{"mode", "sync"}}, {1.0}});        // no size
    rs.records.push_back({"echo", {{"size", std::int64_t{64}}}, {}});  // no samples
    fit_test::check_thesis_fits(comet::fit_transfers(rs, "echo", {.break_size = 100.0}), 1);
}

BOOST_AUTO_TEST_CASE(fit_transfers_finds_break_despite_noise) {
    // ±0.5 µs alternating noise: the break at 100 B (a 77 µs jump) must still win.
    comet::result_set rs;
    int sign = 1;
    for (auto sizes : {fit_test::small_sizes, fit_test::large_sizes})
        for (auto s : sizes) {
            // params built with set(): GCC 12 with sanitizers warns (-Wmaybe-uninitialized, a
            // false positive in std::variant's copy) on the initializer-list form inside this loop.
            comet::record rec{"echo", {}, {fit_test::model(s, 1) + sign * 0.5e-6}};
            rec.params.set("size", s);
            rs.records.push_back(std::move(rec));
            sign = -sign;
        }
    const auto fits = comet::fit_transfers(rs, "echo", {.break_size = std::nullopt, .find_break = true});
    BOOST_TEST_REQUIRE(fits.size() == 2u);
    BOOST_TEST(fits[0].break_size.value() == 100.0);
    BOOST_TEST(fits[0].t_startup == fit_test::small_startup, tolerance(0.02));
    BOOST_TEST(fits[1].t_per_byte == fit_test::large_per_byte, tolerance(0.01));
    BOOST_TEST(fits[0].residual > 0.0);
    BOOST_TEST(fits[0].residual < 1e-6);
}

BOOST_AUTO_TEST_CASE(fit_transfers_errors) {
    const auto rs = fit_test::thesis_echo({1});
    BOOST_CHECK_EXCEPTION(comet::fit_transfers(rs, "echo", {.break_size = 100.0, .find_break = true}),
                          comet::invalid_argument, says("choose one"));
    BOOST_CHECK_EXCEPTION(comet::fit_transfers(rs, "echo", {.break_size = NAN}), comet::invalid_argument,
                          says("not finite"));
    // "pairwise" has one record: no line through one point
    BOOST_CHECK_EXCEPTION(comet::fit_transfers(rs, "pairwise"), comet::invalid_argument, says("has 1 records"));
    BOOST_CHECK_EXCEPTION(comet::fit_transfers(rs, "nothing"), comet::invalid_argument, says("has 0 records"));
    // every size ≤ 1e6: the large side is empty
    BOOST_CHECK_EXCEPTION(comet::fit_transfers(rs, "echo", {.break_size = 1e6}), comet::invalid_argument,
                          says("regime 'large' has 0 records"));

    comet::result_set few;
    for (std::int64_t s : {0, 8, 16, 32, 64})
        few.records.push_back({"echo", {{"size", s}}, {fit_test::model(s, 1)}});
    BOOST_CHECK_EXCEPTION(comet::fit_transfers(few, "echo", {.break_size = std::nullopt, .find_break = true}), comet::invalid_argument,
                          says("at least 3 fittable records on each side"));

    comet::result_set bad_hops;
    bad_hops.records.push_back({"echo", {{"size", std::int64_t{8}}, {"hops", std::int64_t{-1}}}, {1.0}});
    BOOST_CHECK_EXCEPTION(comet::fit_transfers(bad_hops, "echo"), comet::invalid_argument, says("'hops'"));
    bad_hops.records[0].params.set("hops", "two");
    BOOST_CHECK_EXCEPTION(comet::fit_transfers(bad_hops, "echo"), comet::invalid_argument, says("'hops'"));
    BOOST_CHECK_EXCEPTION(comet::bandwidth(bad_hops, "echo"), comet::invalid_argument, says("'hops'"));
}

BOOST_AUTO_TEST_CASE(fit_transfers_hop_term_needs_hops_spread_over_sizes) {
    // Two hop values, but hops and size move together: the hop column is a copy of the size
    // column (up to scale), so h cannot be told from t_per_byte.
    comet::result_set rs;
    rs.records.push_back({"echo", {{"size", std::int64_t{8}}, {"hops", std::int64_t{1}}}, {1e-4}});
    rs.records.push_back({"echo", {{"size", std::int64_t{16}}, {"hops", std::int64_t{2}}}, {2e-4}});
    rs.records.push_back({"echo", {{"size", std::int64_t{16}}, {"hops", std::int64_t{2}}}, {2e-4}});
    BOOST_CHECK_EXCEPTION(comet::fit_transfers(rs, "echo"), comet::invalid_argument, says("regime 'all'"));
}

BOOST_AUTO_TEST_CASE(bandwidth_interpolates_between_measured_sizes) {
    // bandwidths 1, 2, 4 MB/s at 100, 200, 400 B: peak 4e6. 50% = 2e6 is reached exactly at 200
    // (interpolating from 100: 100 + (2e6 − 1e6)·100/1e6 = 200); 90% = 3.6e6 lies between 200
    // and 400: 200 + (3.6e6 − 2e6)·200/2e6 = 360.
    const auto rs = fit_test::with_bandwidths({{100, 1e6}, {200, 2e6}, {400, 4e6}});
    const auto b = comet::bandwidth(rs, "echo");
    BOOST_TEST_REQUIRE(b.size() == 1u);
    BOOST_TEST(b[0].kernel == "echo");
    BOOST_TEST(b[0].hops == 1);
    BOOST_TEST(b[0].peak == 4e6, tolerance(1e-12));
    BOOST_TEST(b[0].n_half == 200.0, tolerance(1e-12));
    BOOST_TEST(b[0].n_90 == 360.0, tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(bandwidth_first_crossing_of_a_non_monotone_curve) {
    // 1, 5, 3, 10 MB/s: 50% of peak (5e6) is first reached at the second size, 90% (9e6) only at
    // the last, interpolated from the dip before it: 300 + (9e6 − 3e6)·100/7e6.
    const auto rs = fit_test::with_bandwidths({{100, 1e6}, {200, 5e6}, {300, 3e6}, {400, 10e6}});
    const auto b = comet::bandwidth(rs, "echo").at(0);
    BOOST_TEST(b.peak == 10e6, tolerance(1e-12));
    BOOST_TEST(b.n_half == 200.0, tolerance(1e-12));
    BOOST_TEST(b.n_90 == 300.0 + 6e6 * 100.0 / 7e6, tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(bandwidth_reached_at_the_smallest_size_is_that_size) {
    const auto rs = fit_test::with_bandwidths({{1000, 9.5e6}, {2000, 10e6}});
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
