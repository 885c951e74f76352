// Tests of comet/ops/point_to_point.hpp: what `implementation_for` reports is what runs. A
// transport whose blocking members have another signature than the one comet calls them by (a
// `wait` returning nothing, a `recv` returning a byte count) gets the polling loop, and is
// reported portable; one whose members match is reported native and they are called.
#include <comet/ops/point_to_point.hpp>
#include <comet/transport/threads.hpp>

#include "../support/minimal_transport.hpp"

#include <boost/test/unit_test.hpp>

#include <array>
#include <atomic>
#include <cstddef>

namespace p2p_test {

using comet::ops::implementation;

std::atomic<int> member_calls{0};

/// Blocking members comet cannot call as its own: `wait` returns nothing, `recv` a count.
class odd_members : public comet_test::minimal_transport {
public:
    using minimal_transport::minimal_transport;
    void wait(request&) { ++member_calls; }
    std::size_t recv(int, int, comet::mutable_bytes) {
        ++member_calls;
        return 0;
    }
};

/// The same members with the signatures comet calls: each counts and does the work.
class matching_members : public comet_test::minimal_transport {
public:
    using minimal_transport::minimal_transport;
    comet::status wait(request& r) {
        ++member_calls;
        for (;;)
            if (auto s = test(r)) return *s;
    }
    comet::status recv(int source, int tag, comet::mutable_bytes b) {
        ++member_calls;
        request r = irecv(source, tag, b);
        return wait(r);
    }
};

/// Rank 0 sends 8 bytes to rank 1, which receives them with ops::recv; rank 0 completes its
/// send with ops::wait; `got` holds what rank 1 received.
template <class T>
void exchange_on(comet::threads::transport& inner, std::array<std::byte, 8>& got) {
    T t(inner);
    std::array<std::byte, 8> out{};
    out.fill(std::byte{0x5a});
    if (t.rank() == 0) {
        auto r = t.isend(1, 3, out);
        comet::ops::wait(t, r);
    } else {
        const comet::status s = comet::ops::recv(t, 0, 3, got);
        BOOST_TEST(s.size == 8u);
    }
}

}  // namespace p2p_test

BOOST_AUTO_TEST_SUITE(point_to_point)

using namespace p2p_test;

BOOST_AUTO_TEST_CASE(members_of_another_signature_are_not_native_and_are_not_called) {
    static_assert(comet::ops::wait.implementation_for<odd_members>() == implementation::portable);
    static_assert(comet::ops::recv.implementation_for<odd_members>() == implementation::portable);
    static_assert(comet::ops::wait.implementation_for<matching_members>() == implementation::native);
    static_assert(comet::ops::recv.implementation_for<matching_members>() == implementation::native);
    std::array<std::byte, 8> got{};
    member_calls = 0;
    comet::threads::run(2, [&](comet::threads::transport& inner) { exchange_on<odd_members>(inner, got); });
    BOOST_TEST(member_calls.load() == 0);  // the polling loop ran, as reported
    BOOST_TEST(std::to_integer<int>(got[7]) == 0x5a);
    got = {};
    comet::threads::run(2, [&](comet::threads::transport& inner) { exchange_on<matching_members>(inner, got); });
    BOOST_TEST(member_calls.load() >= 2);  // the members ran, as reported
    BOOST_TEST(std::to_integer<int>(got[7]) == 0x5a);
}

BOOST_AUTO_TEST_SUITE_END()
