// Tests of comet/timing/delay.hpp: `calibrated_spin`. Only broad bounds on real time here (a
// 1 ms spin takes between 0.5 and 20 ms): how precisely a short spin hits its value is a
// performance figure, which bench/bench_timing.cpp reports.
#include <comet/timing/delay.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>
#include <string>

namespace test_delay_detail {

double fastest_of_five(const comet::calibrated_spin& spin) {
    // The fastest of a few calls: a preemption can only lengthen a call.
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < 5; ++i) {
        const auto start = std::chrono::steady_clock::now();
        spin();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

bool names(const comet::invalid_argument& e, const std::string& value) {
    return std::string(e.what()).find(value) != std::string::npos;
}

}  // namespace test_delay_detail

BOOST_AUTO_TEST_SUITE(delay)

using namespace test_delay_detail;

BOOST_AUTO_TEST_CASE(one_millisecond_spin_takes_about_a_millisecond) {
    const comet::calibrated_spin spin(1e-3);
    BOOST_TEST(spin.seconds() == 1e-3);
    BOOST_TEST(spin.steps() > 0u);
    const double took = fastest_of_five(spin);
    BOOST_TEST(took >= 0.5e-3);
    BOOST_TEST(took <= 20e-3);
}

BOOST_AUTO_TEST_CASE(zero_delay_runs_no_steps) {
    const comet::calibrated_spin spin(0.0, std::chrono::milliseconds(5));
    BOOST_TEST(spin.steps() == 0u);
    spin();
}

BOOST_AUTO_TEST_CASE(longer_delays_run_more_steps) {
    // Steps grow with the delay; a factor of 100 leaves room for any calibration noise.
    const comet::calibrated_spin short_spin(10e-6, std::chrono::milliseconds(10));
    const comet::calibrated_spin long_spin(1e-3, std::chrono::milliseconds(10));
    BOOST_TEST(long_spin.steps() > short_spin.steps());
}

BOOST_AUTO_TEST_CASE(invalid_delays_are_rejected_naming_the_value) {
    using comet::calibrated_spin;
    BOOST_CHECK_EXCEPTION(calibrated_spin{-1e-6}, comet::invalid_argument,
                          [](const auto& e) { return names(e, "-1e-06"); });
    BOOST_CHECK_EXCEPTION(calibrated_spin{std::numeric_limits<double>::quiet_NaN()}, comet::invalid_argument,
                          [](const auto& e) { return names(e, "nan"); });
    BOOST_CHECK_EXCEPTION(calibrated_spin{std::numeric_limits<double>::infinity()}, comet::invalid_argument,
                          [](const auto& e) { return names(e, "inf"); });
    BOOST_CHECK_THROW(calibrated_spin(1e-6, std::chrono::milliseconds(0)), comet::invalid_argument);
    BOOST_CHECK_THROW(calibrated_spin(1e-6, std::chrono::milliseconds(-1)), comet::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
