// Tests of comet/timing/repeat.hpp: the CoMet repeat loop (thesis 3.1.3) and `time_once`.
// The arithmetic is checked exactly with a scripted clock; real clocks only for properties no
// machine load can break. How close an empty body comes to zero, and a known delay to its
// value, are performance figures: bench/bench_timing.cpp measures them.
#include <comet/timing/repeat.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

namespace test_repeat_detail {

/// A clock that returns a programmed sequence of readings, and records how many times the
/// body had run at each reading (so the tests see which loop each reading brackets).
struct scripted_clock {
    std::vector<double> readings{};
    const std::size_t* body_calls = nullptr;
    std::vector<std::size_t> body_calls_at_read{};
    std::size_t next = 0;

    double now() {
        BOOST_REQUIRE_LT(next, readings.size());
        body_calls_at_read.push_back(body_calls ? *body_calls : 0);
        return readings[next++];
    }
};

/// Records every call of the dummy function, to check both loops call it with their index.
std::vector<std::size_t> dummy_calls;
void counting_dummy(std::size_t i) noexcept { dummy_calls.push_back(i); }

/// Points `comet::repeat_dummy` elsewhere for one scope.
struct dummy_swap {
    void (*saved)(std::size_t) noexcept;
    explicit dummy_swap(void (*replacement)(std::size_t) noexcept) : saved(comet::repeat_dummy) {
        comet::repeat_dummy = replacement;
    }
    ~dummy_swap() { comet::repeat_dummy = saved; }
    dummy_swap(const dummy_swap&) = delete;
    dummy_swap& operator=(const dummy_swap&) = delete;
};

}  // namespace test_repeat_detail

BOOST_AUTO_TEST_SUITE(repeat)

using namespace test_repeat_detail;

BOOST_AUTO_TEST_CASE(subtracts_the_empty_loop_and_divides_exactly) {
    // Body loop from 1.0 to 3.0 (2.0 s), empty loop from 10.0 to 10.5 (0.5 s), 4 iterations:
    // (2.0 - 0.5) / 4 = 0.375. All values are exact in binary floating point.
    std::size_t calls = 0;
    scripted_clock c{.readings = {1.0, 3.0, 10.0, 10.5}, .body_calls = &calls};
    const auto r = comet::repeat(c, 4, [&](std::size_t) { ++calls; });
    BOOST_TEST(r.loop_seconds == 2.0);
    BOOST_TEST(r.empty_seconds == 0.5);
    BOOST_TEST(r.iterations == 4u);
    BOOST_TEST(r.per_iteration == 0.375);
    // Exactly four readings: before and after the body loop, then before and after the empty
    // loop (which runs after the body loop, and without it).
    BOOST_TEST(c.next == 4u);
    const std::vector<std::size_t> expected{0, 4, 4, 4};
    BOOST_TEST(c.body_calls_at_read == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(result_is_not_clamped_when_the_empty_loop_is_slower) {
    scripted_clock c{.readings = {0.0, 1.0, 2.0, 4.0}};
    const auto r = comet::repeat(c, 2, [](std::size_t) {});
    BOOST_TEST(r.per_iteration == -0.5);
}

BOOST_AUTO_TEST_CASE(body_runs_once_per_iteration_with_indices_in_order) {
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{1000}}) {
        std::vector<std::size_t> seen;
        scripted_clock c{.readings = {0.0, 1.0, 1.0, 1.5}};
        comet::repeat(c, n, [&](std::size_t i) { seen.push_back(i); });
        BOOST_REQUIRE_EQUAL(seen.size(), n);
        for (std::size_t i = 0; i < n; ++i) BOOST_REQUIRE_EQUAL(seen[i], i);
    }
}

BOOST_AUTO_TEST_CASE(body_without_index_is_accepted) {
    std::size_t calls = 0;
    scripted_clock c{.readings = {0.0, 1.0, 1.0, 1.5}};
    comet::repeat(c, 7, [&] { ++calls; });
    BOOST_TEST(calls == 7u);
}

BOOST_AUTO_TEST_CASE(both_loops_call_the_dummy_with_the_loop_index) {
    dummy_calls.clear();
    {
        dummy_swap swap(&counting_dummy);
        scripted_clock c{.readings = {0.0, 1.0, 1.0, 1.5}};
        comet::repeat(c, 3, [](std::size_t) {});
    }
    const std::vector<std::size_t> expected{0, 1, 2, 0, 1, 2};
    BOOST_TEST(dummy_calls == expected, boost::test_tools::per_element());
    BOOST_TEST(comet::repeat_dummy == &comet::detail::repeat_dummy_impl);
}

BOOST_AUTO_TEST_CASE(zero_iterations_is_rejected_naming_the_value) {
    std::size_t calls = 0;
    scripted_clock c{.readings = {}};
    BOOST_CHECK_EXCEPTION(comet::repeat(c, 0, [&](std::size_t) { ++calls; }), comet::invalid_argument,
                          [](const comet::invalid_argument& e) {
                              const std::string what = e.what();
                              return what.find("iterations") != std::string::npos &&
                                     what.find("got 0") != std::string::npos;
                          });
    BOOST_TEST(calls == 0u);
    BOOST_TEST(c.next == 0u);
}

BOOST_AUTO_TEST_CASE(time_once_reads_twice_around_one_call) {
    std::size_t calls = 0;
    scripted_clock c{.readings = {2.0, 2.75}, .body_calls = &calls};
    const double t = comet::time_once(c, [&] { ++calls; });
    BOOST_TEST(t == 0.75);
    BOOST_TEST(calls == 1u);
    const std::vector<std::size_t> expected{0, 1};
    BOOST_TEST(c.body_calls_at_read == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(runs_on_the_steady_clock) {
    comet::steady_clock_source s;
    volatile std::size_t sink = 0;
    const auto r = comet::repeat(s, 1000, [&](std::size_t i) { sink = sink + i; });
    BOOST_TEST(sink == 999u * 1000u / 2u);
    BOOST_TEST(r.iterations == 1000u);
    BOOST_TEST(r.loop_seconds >= 0.0);
    BOOST_TEST(r.empty_seconds >= 0.0);
    BOOST_TEST(std::isfinite(r.per_iteration));
    BOOST_TEST(r.per_iteration == (r.loop_seconds - r.empty_seconds) / 1000.0);
    BOOST_TEST(comet::time_once(s, [] {}) >= 0.0);
}

BOOST_AUTO_TEST_SUITE_END()
