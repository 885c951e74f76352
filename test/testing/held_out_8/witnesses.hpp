// held_out_8/witnesses.hpp — proof that every mutant is really broken: the general scenarios,
// taken over from the seventh set (whose utilities came from the fifth), run after this set's own
// (witnesses_8.hpp). The driver runs them with `--witnesses` instead of the suite; the correct
// transports must pass them all and every mutant must fail one (or hang, for a defect whose only
// symptom is a deadlock). Without this a "missed" row could be a mutant that never changes
// behaviour, and the catch rate would be measured against a defect that is not there.
//
// They are not a conformance suite: they know what each mutant does and where to look, and they
// rely on this transport's own timing (a sender that sends everything before the receiver looks,
// a message that has arrived once iprobe saw it).
#pragma once

#include "mailbox.hpp"

#include <comet/core/errors.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>

#include <chrono>
#include <cstring>
#include <functional>
#include <future>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace held_out_8::witness {

class failure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

template <class... Parts>
[[noreturn]] void fail(int rank, const Parts&... parts) {
    throw failure(comet::detail::concat("rank ", rank, ": ", parts...));
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
inline void pause(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

inline std::vector<std::byte> bytes(std::size_t n, unsigned seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed * 17 + i / 251) & 0xff);
    return v;
}

/// Completes `r` within `limit` seconds of polling, or fails naming `what`.
template <class T>
comet::status finish(T& t, typename T::request& r, const char* what, double limit = 2.0) {
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        if (auto s = t.test(r)) return *s;
        if (seconds_since(t0) > limit) fail(t.rank(), what, ": not complete after ", limit, " s");
        std::this_thread::yield();
    }
}
template <class T>
comet::status receive(T& t, int source, int tag, comet::mutable_bytes in, const char* what, double limit = 2.0) {
    auto r = t.irecv(source, tag, in);
    return finish(t, r, what, limit);
}
template <class T>
void send(T& t, int dest, int tag, comet::const_bytes out) {
    auto r = t.isend(dest, tag, out);
    finish(t, r, "send");
}
inline std::vector<std::byte> one() { return std::vector<std::byte>(1); }
/// Waits until a message from `source` with `tag` has arrived, by iprobe alone.
template <class T>
comet::status arrived(T& t, int source, int tag, const char* what, double limit = 2.0) {
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        if (auto s = t.iprobe(source, tag)) return *s;
        if (seconds_since(t0) > limit) fail(t.rank(), what, ": iprobe saw nothing for ", limit, " s");
        std::this_thread::yield();
    }
}
template <class T>
void expect_status(T& t, const comet::status& s, int source, int tag, std::size_t size, const char* what) {
    if (s.source != source || s.tag != tag || s.size != size)
        fail(t.rank(), what, ": status {", s.source, ", ", s.tag, ", ", s.size, "}, expected {", source, ", ", tag, ", ", size, "}");
}
template <class T>
void expect_bytes(T& t, const std::vector<std::byte>& got, std::size_t n, unsigned seed, const char* what) {
    const auto want = bytes(n, seed);
    if (got.size() < n || !std::equal(want.begin(), want.end(), got.begin())) fail(t.rank(), what, ": bytes differ");
}
template <class E, class Body>
void expect_raise(int rank, Body&& body, const std::string& needle, const char* what) {
    try {
        body();
    } catch (const E& e) {
        const std::string m = e.what();
        if (m.find(needle) == std::string::npos) fail(rank, what, ": \"", m, "\" does not name ", needle);
        return;
    } catch (const failure&) {
        throw;
    } catch (const std::exception& e) {
        fail(rank, what, ": raised the wrong type: ", e.what());
    }
    fail(rank, what, ": nothing raised");
}

/// Runs `body` on a thread of its own and fails naming `what` unless it returns within `limit`
/// seconds. A call that never returns is left behind on purpose: the failure stops the world,
/// and the blocked call raises `stopped` at its next look at the transport (the runner keeps the
/// world and the endpoints; the future is never destroyed, as its destructor would wait).
template <class Body>
void within(int rank, double limit, const char* what, Body&& body) {
    auto* f = new std::future<void>(std::async(std::launch::async, std::forward<Body>(body)));
    if (f->wait_for(std::chrono::duration<double>(limit)) != std::future_status::ready) fail(rank, what, ": did not return in ", limit, " s");
    f->get();
    delete f;
}

/// One scenario: its name and a function of the runner.
template <class Runner>
using scenario = std::pair<std::string_view, std::function<void(const Runner&)>>;

template <class T>
using request_of = typename std::remove_cvref_t<T>::request;

template <class Runner>
std::vector<scenario<Runner>> core_scenarios() {
    using comet::any_source, comet::any_tag;
    std::vector<scenario<Runner>> s;
    // rank() and size() first: every other scenario relies on them.
    s.push_back({"ranks", [](const Runner& run) {
        run(3, [](auto& t) {
            if (t.size() != 3) fail(t.rank(), "size() is ", t.size(), " in a group of 3");
            if (t.rank() < 0 || t.rank() >= 3) fail(t.rank(), "rank() is outside 0..2");
            std::vector<std::byte> in(4);
            if (t.rank() != 0) {
                const int me = t.rank();
                send(t, 0, 1, comet::const_bytes(reinterpret_cast<const std::byte*>(&me), sizeof me));
                return;
            }
            for (int k = 0; k < 2; ++k) {
                const comet::status s = receive(t, any_source, 1, in, "rank()");
                int said = 0;
                std::memcpy(&said, in.data(), sizeof said);
                if (s.source != said) fail(0, "a message from rank ", s.source, " says its sender's rank() is ", said);
            }
        });
        run(4, [](auto& t) {
            if (t.size() != 4 || t.rank() < 0 || t.rank() >= 4) fail(t.rank(), "rank()/size() wrong in a group of 4");
            std::vector<std::byte> in(4);
            if (t.rank() != 0) {
                const int me = t.rank();
                send(t, 0, 1, comet::const_bytes(reinterpret_cast<const std::byte*>(&me), sizeof me));
                return;
            }
            for (int k = 0; k < 3; ++k) {
                const comet::status s = receive(t, any_source, 1, in, "rank()");
                int said = 0;
                std::memcpy(&said, in.data(), sizeof said);
                if (s.source != said) fail(0, "a message from rank ", s.source, " says its sender's rank() is ", said);
            }
        });
    }});
    s.push_back({"matching", [](const Runner& run) {
        run(5, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 4) {
                send(t, 1, 3, bytes(6, 4));
                send(t, 0, 90, one());
            } else if (t.rank() == 0) {
                receive(t, 4, 90, in, "go");
                send(t, 1, 3, bytes(7, 0));
                send(t, 1, 0, bytes(9, 1));
                send(t, 1, 5, bytes(10, 2));
                send(t, 1, comet::max_tag, bytes(13, 3));
                send(t, 1, 32001, bytes(11, 3));
                send(t, 1, 32000, bytes(12, 4));
                send(t, 1, 97, one());
            } else if (t.rank() == 1) {
                arrived(t, 0, 97, "marker");
                expect_status(t, receive(t, 0, 3, in, "tag 3 from 0"), 0, 3, 7, "receive naming rank 0 with rank 4's message waiting first");
                expect_status(t, receive(t, 4, 3, in, "tag 3 from 4"), 4, 3, 6, "receive naming rank 4");
                expect_status(t, receive(t, 0, comet::max_tag, in, "max_tag"), 0, comet::max_tag, 13, "receive naming max_tag");
                expect_status(t, receive(t, 0, 32000, in, "32000"), 0, 32000, 12, "receive naming 32000 with 32001 waiting first");
                expect_status(t, receive(t, 0, any_tag, in, "any_tag"), 0, 0, 9, "any_tag receive with a tag-0 message waiting first");
                expect_status(t, receive(t, 0, any_tag, in, "any_tag"), 0, 5, 10, "second any_tag receive");
                expect_status(t, receive(t, 0, 32001, in, "32001"), 0, 32001, 11, "receive naming 32001");
                receive(t, 0, 97, in, "marker");
                if (t.iprobe(any_source, any_tag)) fail(1, "a message is left over after every one was received");
            }
        });
    }});
    s.push_back({"ordering", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                send(t, 1, 1, bytes(4, 1));
                send(t, 1, 2, bytes(5, 2));
                send(t, 1, 1, bytes(6, 3));
                send(t, 1, 3, bytes(5, 9));
                send(t, 1, 3, comet::const_bytes());
                for (std::uint32_t i = 0; i < 300; ++i) send(t, 1, 9, comet::const_bytes(reinterpret_cast<const std::byte*>(&i), 4));
                send(t, 1, 4, bytes(8, 4));
                send(t, 1, 4, bytes(8, 4));
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            expect_status(t, receive(t, 0, 1, in, "tag 1"), 0, 1, 4, "first tag 1");
            expect_status(t, receive(t, 0, any_tag, in, "any_tag"), 0, 2, 5, "any_tag receive after a tag-1 receive");
            expect_status(t, receive(t, 0, 1, in, "tag 1"), 0, 1, 6, "second tag 1");
            expect_status(t, receive(t, 0, 3, in, "tag 3"), 0, 3, 5, "first tag 3 (a zero-length one follows)");
            expect_status(t, receive(t, 0, 3, in, "tag 3"), 0, 3, 0, "zero-length tag 3");
            for (std::uint32_t i = 0; i < 300; ++i) {
                receive(t, 0, 9, in, "one of 300 waiting");
                std::uint32_t seq;
                std::memcpy(&seq, in.data(), 4);
                if (seq != i) fail(1, "message ", i, " of 300 arrived as ", seq);
            }
            expect_status(t, receive(t, 0, 4, in, "first of two identical"), 0, 4, 8, "first of two identical messages");
            expect_status(t, receive(t, 0, 4, in, "second of two identical", 1.0), 0, 4, 8, "second of two identical messages");
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"posted", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                std::vector<std::byte> go(1);
                receive(t, 1, 99, go, "ready");
                send(t, 1, 4, bytes(8, 1));
                send(t, 1, 4, bytes(8, 2));
                send(t, 1, 6, bytes(8000, 6));
                send(t, 1, 2000, bytes(3, 20));
                return;
            }
            std::vector<std::byte> a(8), b(16), big(8000), anyt(8), mine(8);
            auto ra = t.irecv(0, 4, a);
            auto rb = t.irecv(0, 4, b);
            auto rbig = t.irecv(0, 6, big);
            auto rany = t.irecv(0, any_tag, anyt);
            auto rself = t.irecv(any_source, 7, mine);
            send(t, 0, 99, one());
            expect_status(t, finish(t, ra, "first posted tag 4"), 0, 4, 8, "first posted tag-4 receive (8 bytes)");
            expect_bytes(t, a, 8, 1, "first posted receive gets the first message");
            expect_status(t, finish(t, rb, "second posted tag 4"), 0, 4, 8, "second posted tag-4 receive (16 bytes)");
            expect_bytes(t, b, 8, 2, "second posted receive gets the second message");
            expect_status(t, finish(t, rbig, "posted 8000 bytes"), 0, 6, 8000, "posted receive of 8000 bytes");
            expect_bytes(t, big, 8000, 6, "posted 8000-byte receive, right after its test");
            expect_status(t, finish(t, rany, "posted any_tag"), 0, 2000, 3, "posted any_tag receive of tag 2000");
            send(t, 1, 7, bytes(5, 7));
            expect_status(t, finish(t, rself, "posted any_source, then a message to oneself"), 1, 7, 5, "posted any_source receive of one's own message");
            expect_bytes(t, mine, 5, 7, "message to oneself");
        });
    }});
    s.push_back({"status", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 1) {
                send(t, 0, 1, bytes(5, 1));
                send(t, 2, 90, one());
                return;
            }
            if (t.rank() == 2) {
                receive(t, 1, 90, in, "go");
                send(t, 0, 2, bytes(6, 2));
                std::vector<std::byte> big(100000), huge(300000);
                expect_status(t, receive(t, 0, 8, big, "100000 bytes"), 0, 8, 100000, "100000-byte message");
                expect_status(t, receive(t, 0, 9, huge, "300000 bytes"), 0, 9, 300000, "300000-byte message");
                expect_bytes(t, huge, 300000, 9, "300000-byte message");
                return;
            }
            arrived(t, 2, 2, "rank 2's message");
            arrived(t, 1, 1, "rank 1's message");
            expect_status(t, receive(t, any_source, 1, in, "any_source tag 1"), 1, 1, 5, "any_source receive of rank 1's (earlier) message");
            expect_status(t, receive(t, 2, 2, in, "tag 2"), 2, 2, 6, "rank 2's message");
            const auto big = bytes(100000, 8);
            auto r = t.isend(2, 8, big);
            expect_status(t, finish(t, r, "isend of 100000 bytes"), 2, 8, 100000, "completed isend of 100000 bytes");
            send(t, 2, 9, bytes(300000, 9));
            auto out = bytes(16, 5);
            auto own = t.isend(0, 4, out);
            expect_status(t, finish(t, own, "isend to oneself"), 0, 4, 16, "completed isend to oneself");
            std::fill(out.begin(), out.end(), std::byte{0});  // the send completed: the bytes are ours
            std::vector<std::byte> back(16);
            expect_status(t, receive(t, 0, 4, back, "own message"), 0, 4, 16, "receive of a message to oneself");
            expect_bytes(t, back, 16, 5, "message to oneself whose buffer was reused after its send completed");
        });
    }});
    s.push_back({"probe", [](const Runner& run) {
        run(2, [](auto& t) {
            constexpr std::size_t large = 1536 * 1024;
            if (t.rank() == 0) {
                send(t, 1, 5, bytes(large, 5));
                send(t, 1, 5, bytes(3, 6));
                send(t, 1, 99, one());
                return;
            }
            arrived(t, 0, 99, "marker");
            const auto p = t.iprobe(0, 5);
            if (!p) fail(1, "iprobe(0, 5) saw nothing");
            expect_status(t, *p, 0, 5, large, "iprobe with a 1.5 MiB message waiting first");
            const auto q = t.iprobe(0, 5);
            if (!q) fail(1, "a second iprobe(0, 5) saw nothing");
            expect_status(t, *q, 0, 5, large, "second iprobe of the same message");
            std::vector<std::byte> in(large);
            expect_status(t, receive(t, 0, 5, in, "1.5 MiB"), 0, 5, large, "1.5 MiB message");
            expect_status(t, receive(t, 0, 5, in, "3 bytes"), 0, 5, 3, "3-byte message");
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"arguments", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> b(8);
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.irecv(-2, 1, b); }, "-2", "irecv from source -2");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.iprobe(0, -4); }, "-4", "iprobe of tag -4");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.isend(2, 1, b); }, "2", "isend to rank 2 of 2");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.isend(3, 1, b); }, "3", "isend to rank 3 of 2");
        });
    }});
    s.push_back({"truncation", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send(t, 1, 1, bytes(10, 1));
                send(t, 1, 2, bytes(20, 2));
                send(t, 1, 99, one());
                return;
            }
            std::vector<std::byte> in(8);
            arrived(t, 0, 99, "marker");
            auto r1 = t.irecv(0, 1, comet::mutable_bytes());
            expect_raise<comet::truncation_error>(1, [&] { finish(t, r1, "10 bytes into an empty buffer"); }, "10", "10 bytes into an empty buffer");
            auto r2 = t.irecv(0, 2, in);
            expect_raise<comet::truncation_error>(1, [&] { finish(t, r2, "20 bytes into 8"); }, "20", "20 bytes into an 8-byte buffer");
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"requests", [](const Runner& run) {
        run(2, [](auto& t) {
            using request = request_of<decltype(t)>;
            std::vector<std::byte> in(8), other(8);
            if (t.rank() == 0) {
                receive(t, 1, 99, in, "ready");
                send(t, 1, 13, bytes(8, 13));
                pause(0.5);
                send(t, 1, 15, bytes(8, 15));
                send(t, 1, 14, bytes(8, 14));
                return;
            }
            std::vector<request> rs;
            rs.push_back(t.irecv(0, 13, in));  // move construction
            request moved(std::move(rs.back()));
            auto pending = t.irecv(0, 14, other);
            send(t, 0, 99, one());
            expect_status(t, finish(t, moved, "move-constructed receive"), 0, 13, 8, "move-constructed receive");
            expect_bytes(t, in, 8, 13, "move-constructed receive");
            const auto t0 = std::chrono::steady_clock::now();
            for (;;) {
                const auto t1 = std::chrono::steady_clock::now();
                const auto s = t.test(pending);
                if (seconds_since(t1) > 0.25) fail(1, "test of a pending receive took ", seconds_since(t1), " s");
                if (s) {
                    expect_status(t, *s, 0, 14, 8, "receive polled by test");
                    break;
                }
                if (seconds_since(t0) > 2) fail(1, "receive of tag 14 not complete after 2 s");
            }
            receive(t, 0, 15, in, "tag 15");
        });
    }});
    s.push_back({"time", [](const Runner& run) {
        run(1, [](auto& t) {
            const double t0 = t.now();
            pause(0.1);
            const double d = t.now() - t0;
            if (d < 0.09 || d > 1.0) fail(0, "0.1 s of sleep measured ", d, " by now()");
            double last = t.now();
            for (int i = 0; i < 1500; ++i) {
                const double x = t.now();
                if (x < last) fail(0, "now() went back from ", last, " to ", x, " at call ", i + 4);
                last = x;
            }
        });
    }});
    return s;
}

}  // namespace held_out_8::witness
