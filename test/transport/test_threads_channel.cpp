// Tests of comet/transport/threads/channel.hpp: the layout, order across the slot, the ring and
// the overflow list, wrap-around, and a two-thread run that pushes and drains concurrently.
#include <comet/transport/threads/channel.hpp>

#include <boost/test/unit_test.hpp>

#include <cstring>
#include <thread>
#include <vector>

namespace channel_test {

using comet::threads::detail::arrival;
using comet::threads::detail::channel;
using comet::threads::detail::large_message;
using comet::threads::detail::pair_line;

/// A channel with a shared line of its own.
struct lone_channel {
    pair_line line;
    channel c;
    explicit lone_channel(std::size_t cells) : c(cells, line.half[0]) {}
};

struct received {
    int tag;
    std::vector<std::byte> data;
};

std::vector<received> drain(channel& c) {
    std::vector<received> out;
    c.drain([&](const arrival& a) {
        received r{a.tag, std::vector<std::byte>(a.size)};
        if (a.large) {
            if (a.size) std::memcpy(r.data.data(), a.large->data, a.size);
            delete a.large;  // buffered copies belong to the receiver
        } else {
            a.copy_inline(r.data.data());
        }
        out.push_back(std::move(r));
    });
    return out;
}

std::vector<std::byte> bytes(std::size_t n, int seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>(seed + static_cast<int>(i) * 7);
    return v;
}

}  // namespace channel_test

BOOST_AUTO_TEST_SUITE(threads_channel)

using namespace channel_test;
using comet::threads::detail::cells_for;

BOOST_AUTO_TEST_CASE(cells_per_message) {
    BOOST_TEST(cells_for(0) == 1u);
    BOOST_TEST(cells_for(36) == 1u);  // fits the first cell after the 8-byte number and 20-byte header
    BOOST_TEST(cells_for(37) == 2u);
    BOOST_TEST(cells_for(92) == 2u);  // 36 + 56
    BOOST_TEST(cells_for(93) == 3u);
    BOOST_TEST(cells_for(1000) == 19u);
}

BOOST_AUTO_TEST_CASE(slot_and_ring_keep_one_order) {
    lone_channel lc(16);
    channel& c = lc.c;
    // The first small message takes the slot; while it is there the next ones use the ring;
    // once the slot is drained a small message takes it again, after ring messages.
    for (int i = 0; i < 4; ++i) c.push_inline(0, i, bytes(8, i));
    BOOST_TEST(lc.line.half[0].seq.load() == 1u);  // message 1 in the slot
    auto got = drain(c);
    BOOST_REQUIRE(got.size() == 4u);
    for (int i = 0; i < 4; ++i) BOOST_TEST(got[static_cast<std::size_t>(i)].tag == i);
    BOOST_TEST(lc.line.half[0].seq.load() == 0u);  // freed
    c.push_inline(0, 10, bytes(100, 10));          // ring: too big for the slot
    c.push_inline(0, 11, bytes(16, 11));           // slot
    c.push_inline(0, 12, bytes(17, 12));           // ring: one byte too big
    c.push_inline(0, 13, bytes(0, 13));            // ring: the slot is taken
    got = drain(c);
    BOOST_REQUIRE(got.size() == 4u);
    for (int i = 0; i < 4; ++i) {
        BOOST_TEST(got[static_cast<std::size_t>(i)].tag == 10 + i);
        BOOST_TEST((got[static_cast<std::size_t>(i)].data == bytes(got[static_cast<std::size_t>(i)].data.size(), 10 + i)));
    }
}

BOOST_AUTO_TEST_CASE(inline_messages_wrap_around_the_ring) {
    lone_channel lc(16);
    channel& c = lc.c;
    int seed = 0;
    for (int round = 0; round < 50; ++round) {
        // A slot message, then ring messages of 2 and 5 cells: 7 cells a round, so the ring
        // wraps at varying offsets inside messages.
        for (std::size_t n : {std::size_t{8}, std::size_t{100}, std::size_t{280}}) {
            c.push_inline(0, seed, bytes(n, seed + 1));
            ++seed;
        }
        const auto got = drain(c);
        BOOST_REQUIRE(got.size() == 3u);
        for (int i = 0; i < 3; ++i) {
            const int s = seed - 3 + i;
            BOOST_TEST(got[static_cast<std::size_t>(i)].tag == s);
            BOOST_TEST((got[static_cast<std::size_t>(i)].data == bytes(got[static_cast<std::size_t>(i)].data.size(), s + 1)));
        }
    }
}

BOOST_AUTO_TEST_CASE(full_ring_overflows_in_order) {
    lone_channel lc(16);
    channel& c = lc.c;
    for (int i = 0; i < 40; ++i) c.push_inline(0, i, bytes(100, i));  // 2 cells each: 8 fit
    c.push_large(large_message::buffered(0, 40, bytes(5000, 40)));
    const auto got = drain(c);
    BOOST_REQUIRE(got.size() == 41u);
    for (int i = 0; i <= 40; ++i) BOOST_TEST(got[static_cast<std::size_t>(i)].tag == i);
    BOOST_TEST((got[40].data == bytes(5000, 40)));
    // After the overflow list is empty, messages use the ring again.
    c.push_inline(0, 41, bytes(8, 41));
    BOOST_TEST(c.ready());
    BOOST_TEST(drain(c).size() == 1u);
    BOOST_TEST(!c.ready());
}

BOOST_AUTO_TEST_CASE(concurrent_push_and_drain) {
    lone_channel lc(32);
    channel& c = lc.c;
    const int n = 100000;
    std::thread sender([&] {
        for (int i = 0; i < n; ++i) {
            const std::size_t size = static_cast<std::size_t>(i % 5) * 7;  // slot and ring sizes
            c.push_inline(0, i, bytes(size, i));
        }
    });
    int next = 0;
    bool ok = true;
    while (next < n)
        c.drain([&](const arrival& a) {
            std::vector<std::byte> d(a.size);
            if (a.large) {
                if (a.size) std::memcpy(d.data(), a.large->data, a.size);
                delete a.large;
            } else {
                a.copy_inline(d.data());
            }
            ok = ok && a.tag == next && d == bytes(static_cast<std::size_t>(next % 5) * 7, next);
            ++next;
        });
    sender.join();
    BOOST_TEST(ok);
}

BOOST_AUTO_TEST_SUITE_END()
