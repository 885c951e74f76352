// held_out_2/witnesses.hpp — (helpers adapted from the first set) proof that every mutant is really broken: short scenarios, written
// from the rules like the mutants, each aimed at a few defects. The driver runs them with
// `--witnesses` instead of the suite; the correct transports must pass them all and every mutant
// must fail one (or hang, for the defects whose only symptom is a deadlock). Without this a
// "missed" row could be a mutant that never changes behaviour, and the catch rate would be
// measured against a defect that is not there.
//
// They are not a conformance suite: they know what each mutant does and where to look, and they
// rely on this transport's own timing (a sender that sends everything before the receiver looks).
#pragma once

#include "mailbox.hpp"

#include <comet/core/errors.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>

#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace held_out_2::witness {

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
    } catch (const std::exception& e) {
        fail(rank, what, ": raised the wrong type: ", e.what());
    }
    fail(rank, what, ": nothing raised");
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
    s.push_back({"matching", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 1) {
                send(t, 0, 5, bytes(10, 1));
                send(t, 0, 16389, bytes(11, 2));
                send(t, 0, 7, bytes(14, 3));
                send(t, 2, 9, bytes(1, 0));
            } else if (t.rank() == 2) {
                receive(t, 1, 9, in, "go");
                send(t, 0, 8, bytes(20, 4));
                send(t, 0, 32001, bytes(21, 5));
                send(t, 0, 3, bytes(22, 6));
            } else {
                arrived(t, 2, 3, "last message");
                expect_status(t, receive(t, any_source, 8, in, "any_source tag 8"), 2, 8, 20, "any_source receive of rank 2's tag 8");
                expect_status(t, receive(t, 1, 16389, in, "tag 16389"), 1, 16389, 11, "receive of tag 16389");
                expect_status(t, receive(t, 2, any_tag, in, "any_tag from 2"), 2, 32001, 21, "any_tag receive of a reserved tag");
                send(t, 0, 7, bytes(30, 7));
                send(t, 0, 0, bytes(5, 8));
                expect_status(t, receive(t, 0, 7, in, "own tag 7"), 0, 7, 30, "receive naming source 0");
                expect_status(t, receive(t, any_source, 0, in, "tag 0"), 0, 0, 5, "receive naming tag 0");
                expect_status(t, receive(t, 1, 7, in, "tag 7"), 1, 7, 14, "receive of rank 1's tag 7");
                expect_status(t, receive(t, 1, 5, in, "tag 5"), 1, 5, 10, "receive of tag 5");
                expect_status(t, receive(t, 2, 3, in, "tag 3"), 2, 3, 22, "receive of tag 3");
                if (t.iprobe(any_source, any_tag)) fail(0, "a message is left over after every one was received");
            }
        });
    }});
    s.push_back({"ordering", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 0) {
                send(t, 1, 4, bytes(4, 1));
                send(t, 1, 6, bytes(6, 2));
                send(t, 1, 2, bytes(50, 3));
                send(t, 1, 2, bytes(10, 4));
                for (std::uint32_t i = 0; i < 100; ++i) send(t, 1, 9, comet::const_bytes(reinterpret_cast<const std::byte*>(&i), 4));
                send(t, 1, 99, bytes(1, 0));
                return;
            }
            arrived(t, 0, 99, "marker");
            expect_status(t, receive(t, any_source, any_tag, in, "double wildcard"), 0, 4, 4, "any_source+any_tag takes the earliest");
            expect_status(t, receive(t, 0, 6, in, "tag 6"), 0, 6, 6, "tag 6");
            expect_status(t, receive(t, any_source, 2, in, "any_source tag 2"), 0, 2, 50, "any_source takes the earliest from one sender");
            expect_status(t, receive(t, 0, 2, in, "tag 2"), 0, 2, 10, "second tag 2");
            send(t, 1, 3, bytes(7, 5));
            send(t, 1, 3, bytes(8, 6));
            expect_status(t, receive(t, 1, 3, in, "own first"), 1, 3, 7, "first message to oneself");
            expect_status(t, receive(t, 1, 3, in, "own second"), 1, 3, 8, "second message to oneself");
            for (std::uint32_t i = 0; i < 100; ++i) {
                receive(t, 0, 9, in, "one of 100 waiting");
                std::uint32_t seq;
                std::memcpy(&seq, in.data(), 4);
                if (seq != i) fail(1, "message ", i, " of 100 arrived as ", seq);
            }
            receive(t, 0, 99, in, "marker");
        });
    }});
    s.push_back({"probe", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 2) {
                send(t, 1, 3, bytes(10, 7));
                send(t, 0, 98, bytes(1, 0));
            } else if (t.rank() == 0) {
                receive(t, 2, 98, in, "go");
                receive(t, 1, 96, in, "posted");
                send(t, 1, 3, comet::const_bytes());
                send(t, 1, 4, bytes(40, 8));
                send(t, 1, 6, bytes(16, 9));
                send(t, 1, 97, bytes(1, 0));
            } else {
                std::vector<std::byte> six(16);
                auto posted = t.irecv(0, 6, six);
                send(t, 0, 96, bytes(1, 0));
                send(t, 1, 5, bytes(9, 10));
                arrived(t, 0, 97, "marker");
                const auto a = t.iprobe(any_source, 3);
                if (!a) fail(1, "iprobe(any_source, 3) saw nothing");
                expect_status(t, *a, 2, 3, 10, "any_source probe of tag 3");
                const auto b = t.iprobe(0, 3);
                if (!b) fail(1, "iprobe(0, 3) missed a zero-length message");
                expect_status(t, *b, 0, 3, 0, "probe of a zero-length message");
                const auto c = t.iprobe(0, 4);
                if (!c) fail(1, "iprobe(0, 4) saw nothing");
                expect_status(t, *c, 0, 4, 40, "probe of tag 4");
                const auto d = t.iprobe(1, 5);
                if (!d) fail(1, "iprobe(1, 5) missed a message to oneself");
                expect_status(t, *d, 1, 5, 9, "probe of a message to oneself");
                if (t.iprobe(0, 6)) fail(1, "iprobe reported a message a posted receive already took");
                expect_status(t, finish(t, posted, "posted receive"), 0, 6, 16, "posted receive");
                receive(t, 2, 3, in, "tag 3");
                receive(t, 0, 3, in, "empty");
                receive(t, 0, 4, in, "tag 4");
                receive(t, 1, 5, in, "own");
                receive(t, 0, 97, in, "marker");
            }
        });
    }});
    s.push_back({"buffers", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                std::vector<std::byte> go(1);
                receive(t, 1, 99, go, "ready");
                send(t, 1, 1, bytes(100, 1));
                send(t, 1, 2, bytes(8, 2));
                send(t, 1, 4, bytes(8, 4));
                send(t, 1, 5, bytes(10, 5));
                send(t, 1, 3, bytes(40000, 3));
                send(t, 1, 50, bytes(8, 50));
                send(t, 1, 97, bytes(1, 0));
                return;
            }
            std::vector<std::byte> small(64), two(8), a(8), b(8), fifty(8);
            auto r1 = t.irecv(0, 1, small);
            auto r2 = t.irecv(0, 2, two);
            auto ra = t.irecv(0, 4, a);
            auto rb = t.irecv(0, 4, b);
            auto r50 = t.irecv(0, 50, fifty);
            send(t, 0, 99, bytes(1, 0));
            arrived(t, 0, 97, "marker");
            expect_raise<comet::truncation_error>(1, [&] { finish(t, r1, "longer message into a posted receive"); }, "100",
                                                  "longer message into a posted receive");
            expect_status(t, finish(t, r2, "posted receive"), 0, 2, 8, "posted receive");
            expect_bytes(t, two, 8, 2, "posted receive");
            expect_status(t, finish(t, ra, "first of two posted"), 0, 4, 8, "first of two posted receives");
            if (t.test(rb)) fail(1, "one message completed two posted receives");
            std::vector<std::byte> in(64, std::byte{0xEE});
            expect_status(t, receive(t, 0, 5, in, "short"), 0, 5, 10, "shorter message");
            expect_bytes(t, in, 10, 5, "shorter message");
            if (in[10] != std::byte{0xEE}) fail(1, "a shorter message changed the rest of the buffer");
            std::vector<std::byte> big(40000);
            expect_status(t, receive(t, 0, 3, big, "40000 bytes"), 0, 3, 40000, "40000-byte message");
            expect_bytes(t, big, 40000, 3, "40000-byte message that arrived first");
            expect_status(t, finish(t, r50, "tag 50"), 0, 50, 8, "tag 50");
            receive(t, 0, 97, in, "marker");
        });
    }});
    s.push_back({"requests", [](const Runner& run) {
        run(2, [](auto& t) {
            using request = request_of<decltype(t)>;
            request none;
            const auto d = t.test(none);
            if (d != std::optional<comet::status>(comet::status{})) fail(t.rank(), "test of a default request is not a default status");
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                const auto out = bytes(8, 12);
                auto r = t.isend(1, 12, out);
                expect_status(t, finish(t, r, "isend"), 1, 12, 8, "completed send");
                if (t.test(r) != std::optional<comet::status>(comet::status{})) fail(0, "test of a completed request is not a default status");
                receive(t, 1, 99, in, "ready");
                send(t, 1, 13, bytes(8, 13));
            } else {
                request r;
                r = t.irecv(0, 13, in);  // move assignment
                send(t, 0, 99, bytes(1, 0));
                receive(t, 0, 12, in, "tag 12");
                expect_status(t, finish(t, r, "move-assigned receive"), 0, 13, 8, "move-assigned receive");
                expect_bytes(t, in, 8, 13, "move-assigned receive");
            }
        });
    }});
    s.push_back({"progress", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                receive(t, 1, 99, in, "ready");
                send(t, 1, 5, bytes(8, 5));
            } else {
                auto r = t.irecv(0, 5, in);
                auto ready = t.isend(0, 99, bytes(1, 0));
                finish(t, ready, "ready");
                expect_status(t, finish(t, r, "receive polled by test alone"), 0, 5, 8, "receive polled by test alone");
            }
        });
    }});
    s.push_back({"arguments", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> b(8);
            const std::string me = "rank " + std::to_string(t.rank());
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.irecv(0, -5, b); }, "-5", "irecv with tag -5");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.isend(-3, 1, b); }, "-3", "isend to rank -3");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.isend(7, 1, b); }, me, "isend to rank 7 (names the rank)");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.isend(7, 1, b); }, "7", "isend to rank 7 (names the value)");
            send(t, t.rank(), comet::max_tag, bytes(3, 1));
            expect_status(t, receive(t, t.rank(), comet::max_tag, b, "max_tag"), t.rank(), comet::max_tag, 3, "message of tag max_tag");
        });
    }});
    s.push_back({"time", [](const Runner& run) {
        run(1, [](auto& t) {
            const double t0 = t.now();
            pause(0.1);
            const double d = t.now() - t0;
            if (d < 0.09 || d > 1.0) fail(0, "0.1 s of sleep measured ", d, " by now()");
        });
    }});
    return s;
}

}  // namespace held_out_2::witness
