// held_out/witnesses.hpp — proof that every mutant is really broken: short scenarios, written
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

namespace held_out::witness {

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

template <class Runner>
std::vector<scenario<Runner>> core_scenarios() {
    using comet::any_source, comet::any_tag;
    std::vector<scenario<Runner>> s;
    s.push_back({"identity", [](const Runner& run) {
        for (int p : {1, 2, 3, 4})
            run(p, [p](auto& t) {
                if (t.size() != p) fail(t.rank(), "size() ", t.size(), " in a group of ", p);
                const int me = t.rank();
                if (me != 0) return send(t, 0, 1, comet::const_bytes(reinterpret_cast<const std::byte*>(&me), sizeof me));
                for (int from = 1; from < p; ++from) {
                    int said = -1;
                    receive(t, from, 1, comet::mutable_bytes(reinterpret_cast<std::byte*>(&said), sizeof said), "rank's own number");
                    if (said != from) fail(0, "rank ", from, " says it is rank ", said);
                }
            });
    }});
    s.push_back({"completion", [](const Runner& run) {
        run(2, [](auto& t) {
            using request = typename std::remove_cvref_t<decltype(t)>::request;
            request none;
            if (!t.test(none)) fail(t.rank(), "test of a default request is not complete");
            std::vector<std::byte> in(16);
            if (t.rank() == 1) {
                pause(0.5);
                for (int tag : {7, 8, 9}) send(t, 0, tag, bytes(4, 0));
                return;
            }
            request named = t.irecv(1, 7, in), wildcard = t.irecv(any_source, 8, in);
            for (request* r : {&named, &wildcard}) {
                const auto t0 = std::chrono::steady_clock::now();
                if (t.test(*r)) fail(0, "test completed a receive whose message was not sent");
                if (seconds_since(t0) > 0.2) fail(0, "test took ", seconds_since(t0), " s");
            }
            const auto t0 = std::chrono::steady_clock::now();
            if (t.iprobe(1, 9)) fail(0, "iprobe saw a message not sent");
            if (seconds_since(t0) > 0.2) fail(0, "iprobe took ", seconds_since(t0), " s");
            finish(t, named, "named receive");
            finish(t, wildcard, "wildcard receive");
            if (t.test(wildcard) != std::optional<comet::status>(comet::status{})) fail(0, "test of a completed request is not a default status");
            receive(t, 1, 9, in, "tag 9");
        });
    }});
    s.push_back({"matching", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(64);
            if (t.rank() == 1) {
                send(t, 0, 5, bytes(10, 1));
                send(t, 0, 300, bytes(11, 2));
                send(t, 2, 9, bytes(1, 0));  // rank 2 sends only now, so ours arrive first
            } else if (t.rank() == 2) {
                receive(t, 1, 9, in, "go");
                send(t, 0, 7, bytes(20, 3));
                send(t, 0, 44, bytes(21, 4));
            } else {
                arrived(t, 2, 44, "last message");
                expect_status(t, receive(t, 2, any_tag, in, "any_tag from 2"), 2, 7, 20, "any_tag receive from rank 2");
                expect_status(t, receive(t, any_source, 44, in, "any_source tag 44"), 2, 44, 21, "any_source receive of tag 44");
                if (t.iprobe(1, 44)) fail(0, "a probe for tag 44 matched a message of tag 300");
                expect_status(t, receive(t, 1, 300, in, "tag 300"), 1, 300, 11, "receive of tag 300");
                expect_status(t, receive(t, 1, 5, in, "tag 5"), 1, 5, 10, "receive of tag 5");
                for (int tag : {10000, comet::max_tag}) {
                    send(t, 0, tag, bytes(3, 5));
                    expect_status(t, receive(t, any_source, tag, in, "self message"), 0, tag, 3, "any_source receive of a self message");
                }
                if (t.iprobe(any_source, any_tag)) fail(0, "a message is left over after every one was received");
            }
        });
    }});
    s.push_back({"ordering", [](const Runner& run) {
        run(2, [](auto& t) {
            const std::size_t sizes[] = {100, 70000, 10, 20, 30, 40};
            std::vector<std::byte> in(70000);
            if (t.rank() == 0) {
                for (std::uint32_t i = 0; i < 6; ++i) {
                    auto out = bytes(sizes[i], i);
                    std::memcpy(out.data(), &i, 4);
                    send(t, 1, 1, out);
                }
                for (int tag : {9, 4, 6}) send(t, 1, tag, bytes(4, 0));
            } else {
                pause(0.2);  // everything has been sent, and nothing of this rank has run since
                for (std::uint32_t i = 0; i < 6; ++i) {
                    const auto st = receive(t, 0, 1, in, "ordered message");
                    std::uint32_t seq;
                    std::memcpy(&seq, in.data(), 4);
                    if (seq != i || st.size != sizes[i]) fail(1, "message ", i, " arrived as number ", seq);
                }
                expect_status(t, receive(t, 0, any_tag, in, "any_tag"), 0, 9, 4, "any_tag takes the earliest sent");
            }
        });
    }});
    s.push_back({"posted_order", [](const Runner& run) {
        run(2, [](auto& t) {
            using request = typename std::remove_cvref_t<decltype(t)>::request;
            if (t.rank() == 0) {
                std::vector<std::byte> go(1);
                receive(t, 1, 99, go, "ready");
                for (unsigned i = 1; i <= 3; ++i) send(t, 1, 5, bytes(8, i));
                return;
            }
            std::vector<std::byte> a(8), b(8), c(8);
            request r[3];
            r[0] = t.irecv(any_source, 5, a);  // assigned, not initialised: a request is moved
            r[1] = t.irecv(0, 5, b);
            r[2] = t.irecv(0, 5, c);
            send(t, 0, 99, bytes(1, 0));
            for (int i = 0; i < 3; ++i) expect_status(t, finish(t, r[i], "posted receive"), 0, 5, 8, "posted receive");
            expect_bytes(t, a, 8, 1, "first posted receive");
            expect_bytes(t, b, 8, 2, "second posted receive");
            expect_bytes(t, c, 8, 3, "third posted receive");
            pause(0.05);
            if (t.iprobe(any_source, any_tag)) fail(1, "a message is left over after every one was received");
        });
    }});
    s.push_back({"probe", [](const Runner& run) {
        run(3, [](auto& t) {
            std::vector<std::byte> in(100000);
            if (t.rank() == 2) {
                send(t, 1, 3, bytes(10, 7));
                send(t, 0, 98, bytes(1, 0));
            } else if (t.rank() == 0) {
                receive(t, 2, 98, in, "go");
                send(t, 1, 3, bytes(100000, 8));
                send(t, 1, 3, bytes(50, 9));
                send(t, 1, 97, bytes(1, 0));
            } else {
                arrived(t, 0, 97, "marker");
                for (int round = 0; round < 2; ++round) {
                    expect_status(t, *t.iprobe(0, 3), 0, 3, 100000, "probe of rank 0 tag 3");
                    expect_status(t, *t.iprobe(0, any_tag), 0, 3, 100000, "any_tag probe of rank 0");
                }
                if (t.iprobe(1, 3) || t.iprobe(0, 4)) fail(1, "a probe matched a message nobody sent");
                expect_status(t, receive(t, 0, 3, in, "after probe"), 0, 3, 100000, "receive after probe");
                expect_status(t, receive(t, 0, 3, in, "after probe"), 0, 3, 50, "second receive after probe");
                expect_status(t, receive(t, 2, 3, in, "after probe"), 2, 3, 10, "receive from rank 2");
                receive(t, 0, 97, in, "marker");
            }
        });
    }});
    s.push_back({"buffer_sizes", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                const std::size_t sizes[] = {10, 65, 64, 100, 0};
                for (int tag = 1; tag <= 5; ++tag) send(t, 1, tag, bytes(sizes[tag - 1], static_cast<unsigned>(tag)));
                send(t, 1, 97, bytes(1, 0));
                return;
            }
            arrived(t, 0, 97, "marker");
            std::vector<std::byte> in(64, std::byte{0xEE});
            expect_status(t, receive(t, 0, 1, in, "short"), 0, 1, 10, "shorter message");
            expect_bytes(t, in, 10, 1, "shorter message");
            if (in[10] != std::byte{0xEE} || in[63] != std::byte{0xEE}) fail(1, "a shorter message changed the rest of the buffer");
            for (int tag : {2, 4}) {
                auto r = t.irecv(0, tag, in);  // outside the check: irecv itself must not raise
                expect_raise<comet::truncation_error>(1, [&] { finish(t, r, "longer message"); }, tag == 2 ? "65" : "100",
                                                      "message longer than the buffer");
            }
            expect_status(t, receive(t, 0, 3, in, "exact fit"), 0, 3, 64, "message exactly the buffer's size");
            expect_status(t, receive(t, 0, 5, comet::mutable_bytes(), "empty"), 0, 5, 0, "zero-length message");
            receive(t, 0, 97, in, "marker");
        });
    }});
    s.push_back({"payload_and_status", [](const Runner& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                std::vector<std::byte> go(1);
                receive(t, 1, 99, go, "ready");
                send(t, 1, 1, bytes(200000, 1));
                send(t, 1, 2, bytes(std::size_t{1} << 20, 2));
                auto out = bytes(5000, 3);
                auto r = t.isend(1, 3, out);
                expect_status(t, finish(t, r, "isend"), 1, 3, 5000, "completed send");
                std::fill(out.begin(), out.end(), std::byte{0});  // the send is complete: the bytes are ours
                send(t, 1, 97, bytes(1, 0));
                for (std::uint32_t i = 0; i < 150; ++i) send(t, 1, 4, comet::const_bytes(reinterpret_cast<const std::byte*>(&i), 4));
                send(t, 1, 0, bytes(6, 6));
                send(t, 1, 6, bytes(33, 6));
                return;
            }
            std::vector<std::byte> big(200000);
            auto r = t.irecv(0, 1, big);
            send(t, 0, 99, bytes(1, 0));
            expect_status(t, finish(t, r, "posted large receive"), 0, 1, 200000, "posted large receive");
            expect_bytes(t, big, 200000, 1, "message into a posted receive");
            std::vector<std::byte> in(std::size_t{1} << 20);
            expect_status(t, receive(t, 0, 2, in, "1 MiB"), 0, 2, std::size_t{1} << 20, "1 MiB message");
            arrived(t, 0, 97, "marker");
            expect_status(t, receive(t, 0, 3, in, "isend"), 0, 3, 5000, "message whose send completed");
            expect_bytes(t, in, 5000, 3, "message whose send buffer was reused after completion");
            receive(t, 0, 97, in, "marker");
            for (std::uint32_t i = 0; i < 150; ++i) {
                receive(t, 0, 4, in, "one of 150");
                std::uint32_t seq;
                std::memcpy(&seq, in.data(), 4);
                if (seq != i) fail(1, "message ", i, " of 150 arrived as ", seq);
            }
            expect_status(t, receive(t, 0, 0, in, "tag 0"), 0, 0, 6, "tag 0 message");
            expect_status(t, receive(t, any_source, any_tag, in, "wildcard"), 0, 6, 33, "wildcard receive");
        });
    }});
    s.push_back({"progress", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> in(8);
            if (t.rank() == 0) {
                receive(t, 1, 99, in, "ready");
                send(t, 1, 5, bytes(8, 5));
            } else {
                auto ready = t.isend(0, 99, bytes(1, 0));  // not tested until the message is seen
                arrived(t, 0, 5, "message seen by iprobe alone");
                finish(t, ready, "ready");
                receive(t, 0, 5, in, "message");
            }
        });
    }});
    s.push_back({"arguments", [](const Runner& run) {
        run(2, [](auto& t) {
            std::vector<std::byte> b(8);
            const std::string me = "rank " + std::to_string(t.rank());
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.isend(0, -5, b); }, "-5", "isend with tag -5");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.isend(2, 1, b); }, me, "isend to rank 2");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.irecv(2, 1, b); }, "2", "irecv from rank 2");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.iprobe(0, -5); }, "-5", "iprobe with tag -5");
            expect_raise<comet::invalid_argument>(t.rank(), [&] { (void)t.iprobe(3, 1); }, "3", "iprobe of rank 3");
        });
    }});
    s.push_back({"time", [](const Runner& run) {
        run(1, [](auto& t) {
            double last = t.now();
            for (int i = 0; i < 2000; ++i) {
                const double x = t.now();
                if (x < last) fail(0, "now() went back from ", last, " to ", x);
                last = x;
            }
            const double t0 = t.now();
            pause(0.1);
            const double d = t.now() - t0;
            if (d < 0.09 || d > 1.0) fail(0, "0.1 s of sleep measured ", d, " by now()");
        });
    }});
    return s;
}

}  // namespace held_out::witness
