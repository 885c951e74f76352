// Tests of comet/transport/decorators/dilated.hpp: compute passes D times the work of every
// kind to the inner transport, everything else is forwarded untouched (the count of
// retransmissions too, only where the inner transport keeps one), and a factor below 1 or not a
// number is refused naming the rank and the value.
#include <comet/transport/decorators/dilated.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace dilated_test {

/// An inner transport that records the work it is asked to compute.
struct recording {
    using request = int;
    std::vector<comet::work> computed;
    int rank() const { return 2; }
    int size() const { return 4; }
    request isend(int, int, comet::const_bytes) { return 0; }
    request irecv(int, int, comet::mutable_bytes) { return 0; }
    std::optional<comet::status> test(request&) { return comet::status{}; }
    std::optional<comet::status> iprobe(int, int) { return std::nullopt; }
    double now() { return 0.0; }
    void compute(const comet::work& w) { computed.push_back(w); }
};

/// One that also counts retransmissions, as the simulator does.
struct counting : recording {
    std::uint64_t sent_again = 0;
    std::uint64_t retransmissions() const { return sent_again; }
};

template <class T>
concept has_retransmissions = requires(const T& t) { t.retransmissions(); };

}  // namespace dilated_test

BOOST_AUTO_TEST_SUITE(dilated)

using namespace dilated_test;

BOOST_AUTO_TEST_CASE(compute_does_d_times_the_work_of_every_kind) {
    recording inner;
    comet::dilated t(inner, 4.0);
    comet::ops::compute(t, comet::work::flops(1000));
    comet::ops::compute(t, comet::work::daxpy(3));
    comet::ops::compute(t, comet::work::busy(0.25));
    comet::ops::compute(t, comet::work::copy(10, 8, 64));
    BOOST_REQUIRE_EQUAL(inner.computed.size(), 4u);
    BOOST_TEST((inner.computed[0] == comet::work::flops(4000)));
    BOOST_TEST((inner.computed[1] == comet::work::daxpy(12)));
    BOOST_TEST(inner.computed[2].seconds == 1.0);
    BOOST_TEST((inner.computed[3] == comet::work::copy(40, 8, 64)));
    BOOST_TEST(t.factor() == 4.0);
    BOOST_TEST(t.rank() == 2);  // forwarded
}

BOOST_AUTO_TEST_CASE(the_count_of_retransmissions_is_forwarded_where_there_is_one) {
    counting inner;
    comet::dilated t(inner, 8.0);
    inner.sent_again = 17;
    BOOST_TEST(t.retransmissions() == 17u);
    inner.sent_again = 20;
    BOOST_TEST(t.retransmissions() == 20u);  // read through, not copied
    static_assert(has_retransmissions<comet::dilated<counting>>);
    static_assert(!has_retransmissions<comet::dilated<recording>>);
    static_assert(!has_retransmissions<comet::dilated<comet::threads::transport>>);
}

BOOST_AUTO_TEST_CASE(on_the_threads_transport_a_busy_wait_lasts_d_times_as_long) {
    comet::threads::run(1, [](comet::threads::transport& inner) {
        comet::dilated t(inner, 3.0);
        const double start = t.now();
        comet::ops::compute(t, comet::work::busy(2e-3));
        BOOST_TEST(t.now() - start >= 6e-3);
    });
}

BOOST_AUTO_TEST_CASE(a_factor_below_one_is_refused) {
    recording inner;
    for (double bad : {0.5, 0.0, -2.0, std::numeric_limits<double>::quiet_NaN(), 1e7})
        BOOST_CHECK_EXCEPTION(comet::dilated(inner, bad), comet::invalid_argument, [&](const std::exception& e) {
            return comet_test::mentions(e, {"rank 2", "dilation factor", "is outside 1..1e6"});
        });
}

BOOST_AUTO_TEST_SUITE_END()
