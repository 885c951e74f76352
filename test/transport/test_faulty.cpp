// Tests of comet/transport/decorators/faulty.hpp on the threads transport: with no faults the
// decorator is a conforming transport; each fault at its rate does what it says (a dropped
// message ends its receiver's wait in a timeout naming the rank, the peer and the tag; a
// duplicate arrives twice; a corrupted message differs in one byte; reordering swaps messages
// of one tag; a delay costs its time); the draws depend on the seed alone; bad settings are
// refused, naming the field and the value.
#include <comet/testing/conformance.hpp>
#include <comet/transport/decorators/faulty.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace faulty_test {

using threads_t = comet::threads::transport;
using faulty_t = comet::faulty<threads_t>;

/// Faults at rate 0: every message passes, through the decorator's own sends and waits.
struct runner {
    static constexpr bool catches_failures = true;
    // Its waits poll (so that a lost message times out): a deadlock is a timeout, not a report.
    static constexpr bool detects_deadlock = false;
    template <class F>
    void operator()(int ranks, F&& body) const {
        comet::threads::run(ranks, [&](threads_t& inner) {
            faulty_t t(inner, {});
            body(t);
        });
    }
};

/// Rank 0 sends `count` messages of 16 bytes with tag 5, each holding its number, through a
/// decorator with `rates`; rank 1 receives whatever comes within its limit and returns it.
struct delivery {
    std::vector<std::array<std::uint32_t, 4>> received;
    comet::fault_counts counts;
};
delivery deliver(const comet::fault_rates& rates, int count) {
    delivery d;
    comet::threads::run(2, [&](threads_t& inner) {
        faulty_t t(inner, rates);
        if (t.rank() == 0) {
            for (int i = 0; i < count; ++i) {
                const std::array<std::uint32_t, 4> m{static_cast<std::uint32_t>(i), 0xC0FFEEu, 0xBEEFu, 42u};
                comet::ops::send(t, 1, 5, std::as_bytes(std::span(m)));
            }
            std::uint32_t end = 0;
            comet::ops::send(inner, 1, 6, std::as_bytes(std::span(&end, 1)));  // untouched: straight to the inner transport
            d.counts = t.counts();
        } else {
            std::uint32_t end = 0;
            comet::ops::recv(inner, 0, 6, std::as_writable_bytes(std::span(&end, 1)));
            while (inner.iprobe(0, 5)) {
                std::array<std::uint32_t, 4> m{};
                comet::ops::recv(t, 0, 5, std::as_writable_bytes(std::span(m)));
                d.received.push_back(m);
            }
        }
        comet::ops::barrier(inner);
    });
    return d;
}

}  // namespace faulty_test

COMET_TRANSPORT_CONFORMANCE(faulty_conforms, faulty_test::runner{})

BOOST_AUTO_TEST_SUITE(faulty)

using namespace faulty_test;

/// A predicate for BOOST_CHECK_EXCEPTION: the message holds every word.
auto says(std::initializer_list<const char*> words) {
    return [words](const std::exception& e) { return comet_test::mentions(e, words); };
}

BOOST_AUTO_TEST_CASE(no_faults_deliver_every_message_as_sent) {
    const delivery d = deliver({}, 50);
    BOOST_REQUIRE_EQUAL(d.received.size(), 50u);
    for (std::uint32_t i = 0; i < 50; ++i) BOOST_TEST((d.received[i] == std::array<std::uint32_t, 4>{i, 0xC0FFEEu, 0xBEEFu, 42u}));
    BOOST_TEST(d.counts.messages == 50u);
    BOOST_TEST(d.counts.injected() == 0u);
}

BOOST_AUTO_TEST_CASE(a_dropped_message_never_arrives_and_its_receiver_times_out_naming_the_peer) {
    const delivery d = deliver({.drop = 1.0}, 10);
    BOOST_TEST(d.received.empty());
    BOOST_TEST(d.counts.dropped == 10u);
    BOOST_CHECK_EXCEPTION(comet::threads::run(2,
                                              [](threads_t& inner) {
                                                  faulty_t t(inner, {.drop = 1.0, .wait_timeout = 0.05});
                                                  std::uint64_t x = 7;
                                                  if (t.rank() == 0) comet::ops::send(t, 1, 9, std::as_bytes(std::span(&x, 1)));
                                                  else comet::ops::recv(t, 0, 9, std::as_writable_bytes(std::span(&x, 1)));
                                              }),
                          comet::timeout_error, says({"rank 1", "recv from rank 0 with tag 9", "0.05 s", "dropped"}));
}

BOOST_AUTO_TEST_CASE(a_duplicated_message_arrives_twice) {
    const delivery d = deliver({.duplicate = 1.0}, 10);
    BOOST_REQUIRE_EQUAL(d.received.size(), 20u);
    for (std::uint32_t i = 0; i < 10; ++i) {
        BOOST_TEST(d.received[2 * i][0] == i);
        BOOST_TEST(d.received[2 * i + 1][0] == i);
    }
    BOOST_TEST(d.counts.duplicated == 10u);
}

BOOST_AUTO_TEST_CASE(a_corrupted_message_differs_in_exactly_one_byte) {
    const delivery d = deliver({.corrupt = 1.0}, 20);
    BOOST_REQUIRE_EQUAL(d.received.size(), 20u);
    for (std::uint32_t i = 0; i < 20; ++i) {
        const std::array<std::uint32_t, 4> sent{i, 0xC0FFEEu, 0xBEEFu, 42u};
        const auto a = std::as_bytes(std::span(sent));
        const auto b = std::as_bytes(std::span(d.received[i]));
        int differing = 0;
        for (std::size_t k = 0; k < a.size(); ++k) differing += a[k] != b[k];
        BOOST_TEST(differing == 1, "message " << i);
    }
    BOOST_TEST(d.counts.corrupted == 20u);
}

BOOST_AUTO_TEST_CASE(reordering_swaps_messages_of_one_tag_and_loses_none) {
    // Nonblocking sends back to back: a held message goes out after the next one.
    std::vector<std::uint32_t> order;
    comet::fault_counts counts;
    comet::threads::run(2, [&](threads_t& inner) {
        faulty_t t(inner, {.reorder = 0.3, .seed = 5});
        constexpr std::uint32_t n = 200;
        if (t.rank() == 0) {
            std::vector<std::uint32_t> values(n);
            std::vector<threads_t::request> rs;
            for (std::uint32_t i = 0; i < n; ++i) {
                values[i] = i;
                rs.push_back(t.isend(1, 5, std::as_bytes(std::span(&values[i], 1))));
            }
            comet::ops::wait_all(t, std::span(rs));
            counts = t.counts();
        } else {
            for (std::uint32_t i = 0; i < n; ++i) {
                std::uint32_t v = 0;
                comet::ops::recv(t, 0, 5, std::as_writable_bytes(std::span(&v, 1)));
                order.push_back(v);
            }
        }
    });
    BOOST_TEST(counts.reordered > 30u);
    BOOST_TEST(counts.reordered < 100u);
    std::vector<std::uint32_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (std::uint32_t i = 0; i < sorted.size(); ++i) BOOST_TEST(sorted[i] == i);  // every message, once
    std::size_t out_of_order = 0;
    for (std::size_t i = 1; i < order.size(); ++i) out_of_order += order[i] < order[i - 1];
    BOOST_TEST(out_of_order > 20u);
}

BOOST_AUTO_TEST_CASE(a_delayed_message_arrives_intact_and_late) {
    double elapsed = 0.0;
    delivery d;
    comet::threads::run(2, [&](threads_t& inner) {
        faulty_t t(inner, {.delay = 1.0, .delay_seconds = 2e-3});
        std::uint64_t x = 0x1234;
        if (t.rank() == 0) {
            const double start = t.now();
            for (int i = 0; i < 5; ++i) comet::ops::send(t, 1, 5, std::as_bytes(std::span(&x, 1)));
            elapsed = t.now() - start;
            d.counts = t.counts();
        } else {
            for (int i = 0; i < 5; ++i) {
                std::uint64_t y = 0;
                comet::ops::recv(t, 0, 5, std::as_writable_bytes(std::span(&y, 1)));
                BOOST_TEST(y == x);
            }
        }
    });
    BOOST_TEST(d.counts.delayed == 5u);
    BOOST_TEST(elapsed >= 5 * 2e-3);
}

BOOST_AUTO_TEST_CASE(the_draws_follow_the_seed_alone) {
    const comet::fault_rates rates{.drop = 0.1, .duplicate = 0.1, .corrupt = 0.1, .seed = 17};
    const delivery a = deliver(rates, 300), b = deliver(rates, 300);
    BOOST_TEST(a.counts.dropped == b.counts.dropped);
    BOOST_TEST(a.counts.duplicated == b.counts.duplicated);
    BOOST_TEST(a.counts.corrupted == b.counts.corrupted);
    BOOST_TEST((a.received == b.received));
    for (std::size_t n : {a.counts.dropped, a.counts.duplicated, a.counts.corrupted}) {
        BOOST_TEST(n > 10u);  // about 30 of 300 each
        BOOST_TEST(n < 60u);
    }
    auto other = rates;
    other.seed = 18;
    const delivery c = deliver(other, 300);
    BOOST_TEST(!(c.received == a.received));
}

BOOST_AUTO_TEST_CASE(tags_outside_the_range_pass_untouched) {
    const delivery d = deliver({.drop = 1.0, .min_tag = 6, .max_tag = 6}, 10);
    BOOST_TEST(d.received.size() == 10u);
    BOOST_TEST(d.counts.messages == 0u);
}

BOOST_AUTO_TEST_CASE(bad_settings_are_refused_naming_the_field_and_the_value) {
    const auto refuses = [](const comet::fault_rates& r, std::initializer_list<const char*> words) {
        comet::threads::run(1, [&](threads_t& inner) {
            BOOST_CHECK_EXCEPTION(faulty_t(inner, r), comet::invalid_argument, says(words));
        });
    };
    refuses({.drop = -0.1}, {"rank 0", "drop", "-0.1"});
    refuses({.corrupt = 1.5}, {"corrupt", "1.5"});
    refuses({.drop = 0.6, .duplicate = 0.6}, {"add up to 1.2"});
    refuses({.delay_seconds = -1.0}, {"delay_seconds", "-1"});
    refuses({.wait_timeout = 0.0}, {"wait_timeout", "0"});
    refuses({.min_tag = 9, .max_tag = 3}, {"tag range 9..3"});
}

BOOST_AUTO_TEST_SUITE_END()
