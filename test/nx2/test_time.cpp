// Tests of comet/transport/nx2/time.hpp: integer virtual time and its conversions.
#include <comet/transport/nx2/time.hpp>

#include <boost/test/unit_test.hpp>

#include <limits>

BOOST_AUTO_TEST_SUITE(nx2_time)

using namespace comet::nx2;

BOOST_AUTO_TEST_CASE(units_are_picoseconds) {
    BOOST_TEST(nanoseconds == 1000);
    BOOST_TEST(microseconds == 1'000'000);
    BOOST_TEST(seconds == 1'000'000'000'000);
    BOOST_TEST(to_seconds(79 * microseconds) == 79e-6);
    BOOST_TEST(to_seconds(0) == 0.0);
}

BOOST_AUTO_TEST_CASE(transfer_time_rounds_up_exactly) {
    // The iPSC/860 channel: 2.8 MB/s is 357142.857... ps per byte.
    BOOST_TEST(transfer_time(1, 2'800'000) == 357'143);
    BOOST_TEST(transfer_time(7, 2'800'000) == 2'500'000);  // exactly 2.5 us: no rounding
    BOOST_TEST(transfer_time(100, 2'500'000) == 40'000'000);
    BOOST_TEST(transfer_time(0, 2'800'000) == 0);
    // No overflow for the largest message: 2^31 bytes at 1 kB/s; saturation beyond 106 days.
    BOOST_TEST(transfer_time(std::uint64_t{1} << 31, 1000) == (vtime{1} << 31) * milliseconds);
    BOOST_TEST(transfer_time(std::uint64_t{1} << 31, 1) == std::numeric_limits<vtime>::max());
    // Either side of the largest count whose product with 10^12 fits 64 bits (the fast path).
    BOOST_TEST(transfer_time(18'446'744, 2'800'000) == 6'588'122'857'143);
    BOOST_TEST(transfer_time(18'446'745, 2'800'000) == 6'588'123'214'286);
    BOOST_TEST(transfer_time(18'446'744, 3) == 6'148'914'666'666'666'667);
}

BOOST_AUTO_TEST_CASE(from_seconds_rounds_to_the_picosecond) {
    BOOST_TEST(from_seconds(0.005) == 5 * milliseconds);
    BOOST_TEST(from_seconds(1.5e-12) == 2);
    BOOST_TEST(from_seconds(-1.0) == 0);
    BOOST_TEST(from_seconds(std::numeric_limits<double>::quiet_NaN()) == 0);
    BOOST_CHECK_THROW(from_seconds(1e7), comet::invalid_argument);
}

BOOST_AUTO_TEST_CASE(times_saturates) {
    BOOST_TEST(times(115'000, 100) == 11'500'000);
    BOOST_TEST(times(-5, 3) == 0);
    BOOST_TEST(times(std::numeric_limits<vtime>::max(), 2) == std::numeric_limits<vtime>::max());
}

BOOST_AUTO_TEST_SUITE_END()
