// Tests of comet/transport/decorators/skewed_clock.hpp: the decorator passes the conformance
// suite on the threads transport, reads the inner clock through exactly the mapping it states
// (offset at the reference point, drift in ppm), says its clock is not global, forwards
// everything else, draws the same skews from the same seed within the bounds asked for, and
// refuses skews no clock can have, naming the rank and the value.
#include <comet/testing/conformance.hpp>
#include <comet/transport/decorators/skewed_clock.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace skewed_clock_test {

using threads_t = comet::threads::transport;
using skewed = comet::skewed_clock<threads_t>;

/// Every rank a different skew: up to ±1 s and ±100 ppm.
struct runner {
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = true;
    template <class F>
    void operator()(int ranks, F&& body) const {
        comet::threads::run(ranks, [&](threads_t& inner) {
            skewed t(inner, comet::seeded_skew(11, inner.rank()));
            body(t);
        });
    }
};

/// A fake inner transport whose clock the test sets (messages are never used here).
struct set_clock {
    using request = int;
    double time = 0.0;
    int rank_ = 3;
    int rank() const { return rank_; }
    int size() const { return 8; }
    request isend(int, int, comet::const_bytes) { return 0; }
    request irecv(int, int, comet::mutable_bytes) { return 0; }
    std::optional<comet::status> test(request&) { return comet::status{}; }
    std::optional<comet::status> iprobe(int, int) { return std::nullopt; }
    double now() { return time; }
    bool clock_is_global() const { return true; }
};

}  // namespace skewed_clock_test

BOOST_TEST_DONT_PRINT_LOG_VALUE(comet::clock_skew)

COMET_TRANSPORT_CONFORMANCE(skewed_clock_conforms, skewed_clock_test::runner{})

BOOST_AUTO_TEST_SUITE(skewed_clock)

using namespace skewed_clock_test;
using comet::ops::implementation;
using comet_test::mentions;

BOOST_AUTO_TEST_CASE(forwards_everything_but_the_clock) {
    static_assert(comet::transport<skewed>);
    static_assert(comet::capabilities_of<skewed>() == comet::capabilities_of<threads_t>());
    static_assert(comet::ops::barrier.implementation_for<skewed>() == implementation::native);
    static_assert(comet::ops::send.implementation_for<skewed>() == implementation::native);
    static_assert(comet::ops::clock_is_global.implementation_for<skewed>() == implementation::native);
    std::array<int, 2> global{1, 1};
    comet::threads::run(2, [&](threads_t& inner) {
        skewed t(inner, {.offset = 0.5});
        global[static_cast<std::size_t>(t.rank())] = comet::ops::clock_is_global(t) ? 1 : 0;
    });
    BOOST_TEST(global[0] == 0);  // the threads transport's own clock is global; the skewed one is not
    BOOST_TEST(global[1] == 0);
}

BOOST_AUTO_TEST_CASE(now_is_the_stated_mapping_of_the_inner_clock) {
    set_clock inner;
    inner.time = 100.0;
    comet::skewed_clock t(inner, {.offset = 0.25, .drift_ppm = 50.0});  // reference: 100 s
    BOOST_TEST(t.reference() == 100.0);
    BOOST_TEST(t.now() == 100.25);                      // exactly the offset at the reference
    inner.time = 110.0;                                 // 10 s later: 50 ppm of it is 500 µs
    BOOST_TEST(t.now() == 110.0 + 0.25 + 500e-6, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(t.true_time(t.now()) == 110.0, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(t.local_time(110.0) == t.now());
    inner.time = 90.0;                                  // before the reference: slower by as much
    BOOST_TEST(t.now() == 90.0 + 0.25 - 500e-6, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(!t.clock_is_global());

    // An explicit reference; a slow clock.
    comet::skewed_clock s(inner, {.offset = -1.0, .drift_ppm = -100.0}, 0.0);
    inner.time = 1000.0;
    BOOST_TEST(s.now() == 1000.0 - 1.0 - 0.1, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(s.offset() == -1.0);
    BOOST_TEST(s.drift_ppm() == -100.0);
    // The mapping as a value gives the same readings (so another rank can evaluate this one's).
    const comet::skew_mapping m = s.mapping();
    BOOST_TEST(m.local_time(1000.0) == s.now());
    BOOST_TEST(m.true_time(m.local_time(1234.5)) == 1234.5, boost::test_tools::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(the_skewed_clock_runs_at_the_stated_rate_on_real_threads) {
    // 1000 ppm over 20 ms of the inner clock is 20 µs more on the skewed one. The skewed readings
    // fall between the inner ones (a thread may be preempted between two readings, so the inner
    // span only bounds the skewed one from above), and the true time between them, taken back
    // through the mapping, is at least the 20 ms computed.
    double inner_span = 0, skewed_span = 0, true_span = 0, truth_off = 1, truth_end = 1;
    comet::threads::run(1, [&](threads_t& inner) {
        skewed t(inner, {.offset = 3.0, .drift_ppm = 1000.0});
        const double i0 = inner.now(), s0 = t.now();
        comet::ops::compute(t, comet::work::busy(0.02));
        const double s1 = t.now(), i1 = inner.now();
        inner_span = i1 - i0;
        skewed_span = s1 - s0;
        true_span = t.true_time(s1) - t.true_time(s0);
        truth_off = t.true_time(s0) - i0;  // the reading s0 was taken just after i0
        truth_end = i1 - t.true_time(s1);  // and s1 just before i1
    });
    BOOST_TEST(truth_off >= 0.0);
    BOOST_TEST(truth_off < 1e-3);
    BOOST_TEST(truth_end >= 0.0);
    BOOST_TEST(true_span >= 0.02);
    BOOST_TEST(skewed_span == true_span * (1 + 1e-3), boost::test_tools::tolerance(1e-9));
    BOOST_TEST(skewed_span > true_span + 19e-6);  // the 20 µs the drift adds, seen on real threads
    BOOST_TEST(skewed_span < inner_span * (1 + 1e-3) + 2e-6);
}

BOOST_AUTO_TEST_CASE(seeded_skews_are_reproducible_and_within_their_bounds) {
    std::set<double> offsets;
    double largest_offset = 0, largest_drift = 0;
    for (int r = 0; r < 1000; ++r) {
        const comet::clock_skew s = comet::seeded_skew(5, r);
        BOOST_TEST(s == comet::seeded_skew(5, r));  // the same seed and rank, the same skew
        BOOST_TEST(std::fabs(s.offset) <= 1.0);
        BOOST_TEST(std::fabs(s.drift_ppm) <= 100.0);
        offsets.insert(s.offset);
        largest_offset = std::max(largest_offset, std::fabs(s.offset));
        largest_drift = std::max(largest_drift, std::fabs(s.drift_ppm));
    }
    BOOST_TEST(offsets.size() == 1000u);                      // every rank its own
    BOOST_TEST(largest_offset > 0.99);                        // spread over the whole range
    BOOST_TEST(largest_drift > 99.0);
    BOOST_TEST(!(comet::seeded_skew(6, 0) == comet::seeded_skew(5, 0)));  // another seed, another skew
    // The values do not depend on the platform's random library (integer hashing, an exact
    // conversion, one scaling): pinned here, bit for bit.
    BOOST_TEST(comet::seeded_skew(42, 0).offset == 0x1.b417712e71208p-2);
    BOOST_TEST(comet::seeded_skew(42, 0).drift_ppm == 0x1.24aa16fe98fb2p+6);
    BOOST_TEST(comet::seeded_skew(42, 7).offset == -0x1.1f0b3de764416p-1);
    BOOST_TEST(comet::seeded_skew(42, 7).drift_ppm == -0x1.9ea5fde0f8f82p+5);
    BOOST_TEST(comet::seeded_skew(42, 0, {.max_offset = 2.0}).offset == 2 * 0x1.b417712e71208p-2);
    const comet::clock_skew narrow = comet::seeded_skew(42, 7, {.max_offset = 1e-3, .max_drift_ppm = 0.0});
    BOOST_TEST(std::fabs(narrow.offset) <= 1e-3);
    BOOST_TEST(narrow.drift_ppm == 0.0);
}

BOOST_AUTO_TEST_CASE(impossible_skews_are_refused_naming_rank_and_value) {
    set_clock inner;  // rank 3
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto refuses = [&](comet::clock_skew s, std::initializer_list<const char*> words) {
        try {
            comet::skewed_clock t(inner, s);
        } catch (const comet::invalid_argument& e) {
            return mentions(e, words);
        }
        return false;
    };
    BOOST_TEST(refuses({.drift_ppm = 1e6}, {"rank 3: ", "skewed_clock", "drift 1e+06 ppm"}));
    BOOST_TEST(refuses({.drift_ppm = -2e6}, {"rank 3: ", "drift -2e+06 ppm"}));
    BOOST_TEST(refuses({.drift_ppm = nan}, {"rank 3: ", "drift nan ppm"}));
    BOOST_TEST(refuses({.offset = std::numeric_limits<double>::infinity()}, {"rank 3: ", "offset inf s"}));
    BOOST_TEST(!refuses({.drift_ppm = 999999.0}, {}));  // fast, but still a clock
    BOOST_CHECK_EXCEPTION(comet::skewed_clock(inner, {}, nan), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"rank 3: ", "reference nan"}); });
    BOOST_CHECK_EXCEPTION(comet::seeded_skew(1, 4, {.max_drift_ppm = 1e6}), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"rank 4: ", "max_drift_ppm 1e+06"}); });
    BOOST_CHECK_EXCEPTION(comet::seeded_skew(1, 2, {.max_offset = -1.0}), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"rank 2: ", "max_offset -1"}); });
    BOOST_CHECK_EXCEPTION(comet::seeded_skew(1, -1), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"rank -1"}); });
}

BOOST_AUTO_TEST_SUITE_END()
