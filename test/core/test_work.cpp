// Tests of comet/core/work.hpp: descriptions compare by value, and perform() really does
// the work (results land in memory, busy waits as long as asked).
#include <comet/core/work.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <vector>

BOOST_AUTO_TEST_SUITE(work)

BOOST_AUTO_TEST_CASE(descriptions) {
    static_assert(comet::work::daxpy(10) == comet::work{comet::work_kind::daxpy, 10, 0.0});
    static_assert(comet::work::busy(0.5).seconds == 0.5);
    static_assert(!(comet::work::flops(3) == comet::work::daxpy(3)));
    static_assert(comet::work::copy(64, 8, 528) == comet::work{comet::work_kind::copy, 64, 0.0, 8, 528});
    static_assert(!(comet::work::copy(64, 8, 528) == comet::work::copy(64, 8, 8)));
    BOOST_TEST(true);
}

// A copy is data the caller moves itself: performing it touches nothing (a simulated machine
// charges it instead, test/nx2/test_machine.cpp).
BOOST_AUTO_TEST_CASE(copy_performs_nothing) {
    comet::perform(comet::work::daxpy(10));
    const std::vector<double> before = comet::detail::thread_daxpy_vectors().y;
    const auto t0 = std::chrono::steady_clock::now();
    comet::perform(comet::work::copy(std::size_t{1} << 40, 8, 4096));  // a terabyte, were it copied
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BOOST_TEST(s < 0.1);
    BOOST_TEST(comet::detail::thread_daxpy_vectors().y == before);
}

BOOST_AUTO_TEST_CASE(daxpy_updates_the_thread_vectors) {
    comet::perform(comet::work::daxpy(1000));
    const auto& v = comet::detail::thread_daxpy_vectors();
    BOOST_REQUIRE(v.y.size() >= 1000u);
    const double first = v.y[999];
    BOOST_TEST(first > 0.0);  // y = a*x + y with x = 1: grows with every call
    comet::perform(comet::work::daxpy(1000));
    BOOST_TEST(comet::detail::thread_daxpy_vectors().y[999] > first);
}

BOOST_AUTO_TEST_CASE(busy_waits_at_least_as_long_as_asked) {
    const auto t0 = std::chrono::steady_clock::now();
    comet::perform(comet::work::busy(0.002));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BOOST_TEST(s >= 0.002);
    comet::perform(comet::work::busy(-1.0));  // a negative duration is no wait, not a hang
    comet::perform(comet::work::flops(100000));
}

BOOST_AUTO_TEST_SUITE_END()
