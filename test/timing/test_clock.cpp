// Tests of comet/timing/clock.hpp: the clock concept, the steady and TSC clocks, and
// `describe`. Real clocks are checked only for properties that no machine load can break
// (monotonic, positive, within broad bounds); the arithmetic of `describe` is checked exactly on
// scripted clocks.
#include <comet/timing/clock.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <string>
#include <thread>

namespace test_clock_detail {

// The fake clocks tick in powers of two of a second, so every sum of readings is exact.
constexpr double ns_60 = 1.0 / (1 << 24);  // 2^-24 s, about 60 ns
constexpr double us_1 = 1.0 / (1 << 20);   // 2^-20 s, about 0.95 µs

/// A clock that advances by `step` on every reading.
struct stepping_clock {
    double step = ns_60;
    double t = 0.0;
    std::size_t reads = 0;
    double now() {
        ++reads;
        return t += step;
    }
};

/// A coarse clock: advances by `tick` every `calls_per_tick` readings.
struct ticking_clock {
    double tick = us_1;
    std::size_t calls_per_tick = 4;
    std::size_t reads = 0;
    double now() {
        ++reads;
        return tick * static_cast<double>(reads / calls_per_tick);
    }
};

/// Virtual time that nothing advances.
struct frozen_clock {
    std::size_t reads = 0;
    double now() {
        ++reads;
        return 42.0;
    }
};

struct float_clock {
    float now() { return 0.0f; }
};
struct no_clock {};

/// Reads `c` 100000 times; returns how many readings were below the one before.
template <class C>
int backward_steps(C& c) {
    int backward = 0;
    double previous = c.now();
    for (int i = 0; i < 100000; ++i) {
        const double current = c.now();
        if (current < previous) ++backward;
        previous = current;
    }
    return backward;
}

}  // namespace test_clock_detail

// Named "clocks", not "clock": a suite is a namespace, and ::clock() (from <ctime>) is taken.
BOOST_AUTO_TEST_SUITE(clocks)

using namespace test_clock_detail;

BOOST_AUTO_TEST_CASE(concept_accepts_exactly_double_now) {
    static_assert(comet::clock<comet::steady_clock_source>);
    static_assert(comet::clock<const comet::steady_clock_source>);
    static_assert(comet::clock<comet::tsc_clock>);
    static_assert(comet::clock<stepping_clock>);
    static_assert(!comet::clock<float_clock>);
    static_assert(!comet::clock<no_clock>);
    static_assert(comet::steady_clock_source::name == "steady_clock");
    static_assert(comet::tsc_clock::name == "tsc");
    BOOST_TEST(comet::clock<stepping_clock>);
    BOOST_TEST(!comet::clock<float_clock>);
}

BOOST_AUTO_TEST_CASE(steady_clock_is_monotonic_and_in_seconds) {
    comet::steady_clock_source s;
    BOOST_TEST(backward_steps(s) == 0);
    // Seconds, not nanoseconds: a 20 ms sleep reads as at least 0.02 and far less than a minute.
    const double start = s.now();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const double elapsed = s.now() - start;
    BOOST_TEST(elapsed >= 0.02);
    BOOST_TEST(elapsed < 60.0);
}

BOOST_AUTO_TEST_CASE(tsc_is_monotonic_with_a_plausible_frequency) {
    if (!comet::tsc_clock::available()) {
        BOOST_CHECK_THROW(comet::tsc_clock{}, comet::not_supported);
        return;
    }
    comet::tsc_clock tsc;
    BOOST_TEST(tsc.frequency() >= 100e6);
    BOOST_TEST(tsc.frequency() <= 10e9);
    BOOST_TEST(tsc.now() >= -1e-3);  // seconds since calibration (a trailing core may read a hair below 0)
    BOOST_TEST(backward_steps(tsc) == 0);
}

BOOST_AUTO_TEST_CASE(tsc_agrees_with_the_steady_clock) {
    if (!comet::tsc_clock::available()) return;
    comet::tsc_clock tsc;
    comet::steady_clock_source steady;
    // Both clocks time the same 100 ms sleep. A preemption between the paired readings could
    // make one attempt disagree on a loaded machine; it cannot make three in a row.
    bool agreed = false;
    double ratio = 0.0;
    for (int attempt = 0; attempt < 3 && !agreed; ++attempt) {
        const double t0 = tsc.now(), s0 = steady.now();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const double t1 = tsc.now(), s1 = steady.now();
        ratio = (t1 - t0) / (s1 - s0);
        agreed = std::abs(ratio - 1.0) < 0.05;
    }
    BOOST_TEST(agreed, "tsc/steady elapsed ratio " << ratio);
}

BOOST_AUTO_TEST_CASE(tsc_rejects_a_non_positive_calibration) {
    if (!comet::tsc_clock::available()) return;
    BOOST_CHECK_THROW(comet::tsc_clock{std::chrono::nanoseconds(0)}, comet::invalid_argument);
    BOOST_CHECK_THROW(comet::tsc_clock{std::chrono::nanoseconds(-5)}, comet::invalid_argument);
}

BOOST_AUTO_TEST_CASE(describe_steady_clock_is_plausible) {
    comet::steady_clock_source s;
    const auto info = comet::describe(s, "steady_clock");
    BOOST_TEST(info.name == "steady_clock");
    BOOST_TEST(info.resolution > 0.0);
    BOOST_TEST(info.resolution <= 1e-3);
    BOOST_TEST(info.call_cost > 0.0);
    BOOST_TEST(info.call_cost < 10e-6);
}

BOOST_AUTO_TEST_CASE(describe_tsc_is_plausible) {
    if (!comet::tsc_clock::available()) return;
    comet::tsc_clock tsc;
    const auto info = comet::describe(tsc, std::string(comet::tsc_clock::name));
    BOOST_TEST(info.name == "tsc");
    BOOST_TEST(info.resolution > 0.0);
    BOOST_TEST(info.resolution <= 1e-3);
    BOOST_TEST(info.call_cost > 0.0);
    BOOST_TEST(info.call_cost < 10e-6);
}

BOOST_AUTO_TEST_CASE(describe_arithmetic_on_a_stepping_clock) {
    // Every reading advances one step: the resolution is the step, and so is each call, exactly.
    stepping_clock c{.step = ns_60};
    const auto info = comet::describe(c, "fake");
    BOOST_TEST(info.name == "fake");
    BOOST_TEST(info.resolution == ns_60);
    BOOST_TEST(info.call_cost == ns_60);
}

BOOST_AUTO_TEST_CASE(describe_arithmetic_on_a_coarse_clock) {
    // A tick every 4 readings: the resolution is the tick, not the call, and the call cost is a
    // quarter tick (to within the quantisation of runs of at least 1000 ticks).
    ticking_clock c{.tick = us_1, .calls_per_tick = 4};
    const auto info = comet::describe(c, "coarse");
    BOOST_TEST(info.resolution == us_1);
    BOOST_TEST(info.call_cost == us_1 / 4, boost::test_tools::tolerance(0.002));
}

BOOST_AUTO_TEST_CASE(describe_terminates_on_a_frozen_clock) {
    frozen_clock c;
    const auto info = comet::describe(c, "virtual");
    BOOST_TEST(info.resolution == 0.0);
    BOOST_TEST(info.call_cost == 0.0);
    BOOST_TEST(c.reads > 0u);
}

BOOST_AUTO_TEST_SUITE_END()
