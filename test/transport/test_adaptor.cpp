// Tests of comet/transport/adaptor.hpp: a decorator built on transport_adaptor forwards every
// optional capability and native operation of the transport it wraps, overrides only what it
// changes; one built on message_adaptor offers no operation on messages it did not write or
// bring in, so comet::ops builds it from the decorator's own sends; and either is itself a
// transport that passes the conformance suite (here the delaying decorator of
// examples/delayed.hpp, under 40 lines).
#include <comet/testing/conformance.hpp>
#include <comet/transport/adaptor.hpp>
#include <comet/transport/decorators/faulty.hpp>
#include <comet/transport/decorators/tracing.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include <array>
#include <vector>

#include "../../examples/delayed.hpp"
#include "../support/minimal_transport.hpp"

namespace adaptor_test {

using threads_t = comet::threads::transport;

/// The adaptor alone: forwards everything.
struct plain : comet::transport_adaptor<threads_t> {
    using comet::transport_adaptor<threads_t>::transport_adaptor;
};

/// Counts the bytes isend carries and changes nothing else.
template <comet::transport Inner>
struct counting : comet::transport_adaptor<Inner> {
    using comet::transport_adaptor<Inner>::transport_adaptor;
    typename Inner::request isend(int dest, int tag, comet::const_bytes b) {
        sent += b.size();
        return this->inner().isend(dest, tag, b);
    }
    std::size_t sent = 0;
};

/// Changes messages and writes nothing: every operation on messages is hidden.
struct hiding : comet::message_adaptor<threads_t> {
    using comet::message_adaptor<threads_t>::message_adaptor;
};

/// Brings in the inner barrier and nothing else.
struct with_barrier : comet::message_adaptor<threads_t> {
    using comet::message_adaptor<threads_t>::message_adaptor;
    using comet::message_adaptor<threads_t>::barrier;
};

struct delayed_runner {
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = true;
    template <class F>
    void operator()(int ranks, F&& body) const {
        comet::threads::run(ranks, [&](threads_t& inner) {
            delayed<threads_t> t(inner, 2e-6);
            body(t);
        });
    }
};

}  // namespace adaptor_test

COMET_TRANSPORT_CONFORMANCE(delaying_decorator_conforms, adaptor_test::delayed_runner{})

BOOST_AUTO_TEST_SUITE(adaptor)

using namespace adaptor_test;
using comet::ops::implementation;

BOOST_AUTO_TEST_CASE(forwards_every_capability_and_native_operation) {
    static_assert(comet::capabilities_of<plain>() == comet::capabilities_of<threads_t>());
    static_assert(comet::ops::barrier.implementation_for<plain>() == implementation::native);
    static_assert(comet::ops::send.implementation_for<plain>() == implementation::native);
    static_assert(comet::ops::clock_is_global.implementation_for<plain>() == implementation::native);
    // Around a core-only transport it forwards nothing it does not have.
    using around_minimal = counting<comet_test::minimal_transport>;
    static_assert(comet::transport<around_minimal>);
    static_assert(comet::capabilities_of<around_minimal>() == comet::capabilities{});
    static_assert(comet::ops::barrier.implementation_for<around_minimal>() == implementation::portable);
    BOOST_TEST(true);  // the checks above are compile-time
}

BOOST_AUTO_TEST_CASE(a_message_adaptor_offers_only_what_the_decorator_said) {
    // The inner transport has every capability; the decorator that writes nothing offers none.
    static_assert(comet::capabilities_of<threads_t>() != comet::capabilities{});
    static_assert(comet::transport<hiding>);
    // (Whether it may be called from a second thread is no operation on messages.)
    static_assert(comet::capabilities_of<hiding>() ==
                  comet::capabilities{.thread_serialized = comet::thread_serialized_transport<threads_t>});
    static_assert(comet::ops::send.implementation_for<hiding>() == implementation::portable);
    static_assert(comet::ops::recv.implementation_for<hiding>() == implementation::portable);
    static_assert(comet::ops::wait.implementation_for<hiding>() == implementation::portable);
    static_assert(comet::ops::wait_all.implementation_for<hiding>() == implementation::portable);
    static_assert(comet::ops::barrier.implementation_for<hiding>() == implementation::portable);
    static_assert(comet::ops::broadcast.implementation_for<hiding>() == implementation::portable);
    static_assert(comet::ops::allreduce_sum.implementation_for<hiding>() == implementation::portable);
    // What carries no message is still the inner transport's.
    static_assert(comet::ops::compute.implementation_for<hiding>() == implementation::native);
    static_assert(comet::ops::clock_is_global.implementation_for<hiding>() == implementation::native);
    // A using-declaration brings in one operation and no other.
    static_assert(comet::ops::barrier.implementation_for<with_barrier>() == implementation::native);
    static_assert(comet::ops::broadcast.implementation_for<with_barrier>() == implementation::portable);
    // The library's decorators that change messages offer the sends they do not cover to no one.
    using traced = comet::tracing<threads_t>;
    using faults = comet::faulty<threads_t>;
    static_assert(!comet::synchronous_send_transport<traced> && !comet::ready_send_transport<traced>);
    static_assert(!comet::sendrecv_transport<traced> && !comet::nonblocking_collective_transport<traced>);
    static_assert(!comet::synchronous_send_transport<faults> && !comet::ready_send_transport<faults>);
    static_assert(!comet::sendrecv_transport<faults>);
    // Their documented exceptions: the transport's own collectives pass untouched.
    static_assert(comet::ops::barrier.implementation_for<traced>() == implementation::native);
    static_assert(comet::ops::barrier.implementation_for<faults>() == implementation::native);
    BOOST_TEST(true);  // the checks above are compile-time
}

BOOST_AUTO_TEST_CASE(a_hidden_operation_goes_through_the_decorators_own_sends) {
    using slow = delayed<threads_t>;
    static_assert(!comet::sendrecv_transport<slow> && !comet::synchronous_send_transport<slow>);
    static_assert(comet::buffered_send_transport<slow>);
    // Collectives too: they are built from the delayed sends.
    static_assert(comet::ops::broadcast.implementation_for<slow>() == implementation::portable);
    // Boost.Test is not thread-safe: ranks record, the test thread checks.
    std::array<std::size_t, 2> sent{};
    comet::threads::run(2, [&](threads_t& inner) {
        counting<threads_t> t(inner);
        std::vector<std::byte> b(100);
        if (t.rank() == 0) {
            auto r = t.isend(1, 3, b);
            comet::ops::wait(t, r);
        } else {
            comet::ops::recv(t, 0, 3, b);
        }
        sent[t.rank()] = t.sent;
    });
    BOOST_TEST(sent[0] == 100u);
    BOOST_TEST(sent[1] == 0u);
}

BOOST_AUTO_TEST_CASE(the_delay_shows_in_the_time_a_message_takes) {
    double round_trip = 0;
    comet::threads::run(2, [&](threads_t& inner) {
        delayed<threads_t> t(inner, 0.002);
        std::vector<std::byte> b(8);
        comet::ops::barrier(t);
        const double start = t.now();
        if (t.rank() == 0) {
            comet::ops::send(t, 1, 4, b);
            comet::ops::recv(t, 1, 4, b);
            round_trip = t.now() - start;
        } else {
            comet::ops::recv(t, 0, 4, b);
            comet::ops::send(t, 0, 4, b);
        }
    });
    BOOST_TEST(round_trip >= 0.004);  // two messages, each held 2 ms
}

BOOST_AUTO_TEST_SUITE_END()
