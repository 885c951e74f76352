// Tests of comet/transport/nx2/fibers.hpp: fibers run until they suspend, resume where they
// left off, and finish; thousands of them fit in little memory; exceptions stay on their fiber.
#include <comet/transport/nx2/fibers.hpp>

#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(nx2_fibers)

using comet::nx2::detail::fiber_set;

BOOST_AUTO_TEST_CASE(round_robin) {
    fiber_set f(3, 64 * 1024);
    std::vector<int> trace;
    for (int i = 0; i < 3; ++i)
        f.spawn(i, [&, i] {
            for (int step = 0; step < 2; ++step) {
                trace.push_back(i * 10 + step);
                f.suspend();
            }
            trace.push_back(i * 10 + 9);
        });
    for (int round = 0; round < 3; ++round)
        for (int i = 0; i < 3; ++i) {
            BOOST_TEST(!f.finished(i));
            f.resume(i);
        }
    for (int i = 0; i < 3; ++i) BOOST_TEST(f.finished(i));
    BOOST_TEST(trace == (std::vector<int>{0, 10, 20, 1, 11, 21, 9, 19, 29}), boost::test_tools::per_element());
    BOOST_TEST(f.running() == -1);
}

BOOST_AUTO_TEST_CASE(exceptions_unwind_on_their_fiber) {
    fiber_set f(1, 64 * 1024);
    std::string caught;
    f.spawn(0, [&] {
        try {
            std::string keep = "kept across a switch";
            f.suspend();
            throw std::runtime_error(keep);
        } catch (const std::exception& e) {
            caught = e.what();
        }
    });
    f.resume(0);
    f.resume(0);
    BOOST_TEST(caught == "kept across a switch");
    BOOST_TEST(f.finished(0));
}

BOOST_AUTO_TEST_CASE(thousands_of_fibers) {
#ifdef COMET_NX2_TSAN
    const int n = 256;  // ThreadSanitizer's state per fiber takes ~10 ms to create
#else
    const int n = 4096;
#endif
    fiber_set f(n, 64 * 1024);
    long sum = 0;
    for (int i = 0; i < n; ++i)
        f.spawn(i, [&, i] {
            f.suspend();
            sum += i;
        });
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < n; ++i) f.resume(i);
    BOOST_TEST(sum == long{n} * (n - 1) / 2);
}

BOOST_AUTO_TEST_SUITE_END()
