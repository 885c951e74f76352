// held_out_10/witnesses_10.hpp — one short scenario per mutant of defects.hpp, aimed at its
// defect: it fails on that mutant and passes on both correct transports. `--witnesses` runs a
// mutant's own witness, and every witness of its model on the correct rows (the core row runs
// the core witnesses; the full row runs them all, the core ones on the full endpoint).
//
// Ranks meet through shared atomics rather than the transport's collectives, so that a witness
// leans on nothing but the member it is aimed at; every wait has a time limit and fails with a
// message when it runs out (a deadlock is shown by a third rank that times out).
#pragma once

#include "defects.hpp"
#include "mailbox.hpp"

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace held_out_10::witness {

using clock = std::chrono::steady_clock;

struct failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
    std::ostringstream out;
    (out << ... << parts);
    throw failure(out.str());
}
template <class... Parts>
void expect(bool ok, const Parts&... parts) {
    if (!ok) fail(parts...);
}

inline double since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }
inline void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

/// Polls `test` until the request completes; fails after `limit` seconds.
template <class T>
comet::status complete(T& t, typename T::request& r, std::string_view what, double limit = 3.0) {
    const auto t0 = clock::now();
    for (unsigned polls = 1;; ++polls) {
        if (std::optional<comet::status> s = t.test(r)) return *s;
        if (since(t0) > limit) fail(what, ": not complete after ", limit, " s");
        if (polls % 64 == 0) std::this_thread::yield();
    }
}

/// Polls `iprobe` until a match is there; fails after `limit` seconds.
template <class T>
comet::status probe_for(T& t, int source, int tag, std::string_view what, double limit = 3.0) {
    const auto t0 = clock::now();
    for (unsigned polls = 1;; ++polls) {
        if (std::optional<comet::status> s = t.iprobe(source, tag)) return *s;
        if (since(t0) > limit) fail(what, ": no message from ", source, " tag ", tag, " after ", limit, " s");
        if (polls % 64 == 0) std::this_thread::yield();
    }
}

/// Waits for shared state between the ranks; fails after `limit` seconds.
inline void await(const std::function<bool()>& ready, std::string_view what, double limit = 5.0) {
    const auto t0 = clock::now();
    while (!ready()) {
        if (since(t0) > limit) fail(what, ": still waiting after ", limit, " s");
        std::this_thread::yield();
    }
}

inline std::vector<std::byte> filled(std::size_t n, unsigned char v) { return std::vector<std::byte>(n, std::byte{v}); }
inline bool all_are(comet::const_bytes b, unsigned char v) {
    for (std::byte x : b)
        if (x != std::byte{v}) return false;
    return true;
}
inline std::string show(const comet::status& s) {
    return "{source " + std::to_string(s.source) + ", tag " + std::to_string(s.tag) + ", size " + std::to_string(s.size) + "}";
}

// ---- core ------------------------------------------------------------------------------------

template <class R>
void any_tag_literal_on_posted(const R& run) {
    std::atomic<bool> posted{false};
    run(2, [&](auto& t) {
        if (t.rank() == 1) {
            auto buf = filled(16, 0);
            auto r = t.irecv(0, comet::any_tag, buf);
            posted = true;
            const comet::status s = complete(t, r, "irecv(0, any_tag) posted before the message");
            expect(s.tag == 5 && s.size == 3, "posted any_tag receive got ", show(s));
        } else {
            await([&] { return posted.load(); }, "rank 1 posting");
            const auto out = filled(3, 1);
            auto s = t.isend(1, 5, out);
            complete(t, s, "isend");
        }
    });
}

template <class R>
void any_source_skips_self(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() != 0) return;
        const auto out = filled(3, 7);
        auto s = t.isend(0, 4, out);
        complete(t, s, "isend to oneself");
        auto buf = filled(8, 0);
        auto r = t.irecv(comet::any_source, 4, buf);
        const comet::status got = complete(t, r, "irecv(any_source) of a message to oneself");
        expect(got.source == 0 && got.size == 3, "got ", show(got));
    });
}

template <class R>
void any_tag_lowest_tag_first(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto a = filled(1, 'a'), b = filled(2, 'b');
            auto s1 = t.isend(1, 9, a);
            auto s2 = t.isend(1, 2, b);
            complete(t, s1, "isend"), complete(t, s2, "isend");
        } else {
            probe_for(t, 0, 2, "the second message");
            auto buf = filled(16, 0);
            auto r = t.irecv(0, comet::any_tag, buf);
            const comet::status s = complete(t, r, "irecv(0, any_tag)");
            expect(s.tag == 9 && s.size == 1, "any_tag receive took ", show(s), ", not the earliest-sent (tag 9)");
            auto r2 = t.irecv(0, 2, buf);
            complete(t, r2, "irecv tag 2");
        }
    });
}

template <class R>
void tag_bucket_mod_4096(const R& run) {
    std::atomic<bool> sent{false};
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto x = filled(5, 'X'), y = filled(3, 'Y');
            auto s1 = t.isend(1, 4097, x);
            auto s2 = t.isend(1, 1, y);
            complete(t, s1, "isend"), complete(t, s2, "isend");
            sent = true;
        } else {
            await([&] { return sent.load(); }, "rank 0 sending");
            auto buf = filled(16, 0);
            auto r = t.irecv(0, 1, buf);
            const comet::status s = complete(t, r, "irecv tag 1");
            expect(s.tag == 1 && s.size == 3 && buf[0] == std::byte{'Y'}, "irecv(tag 1) got ", show(s));
            auto r2 = t.irecv(0, 4097, buf);
            const comet::status s2 = complete(t, r2, "irecv tag 4097");
            expect(s2.tag == 4097 && s2.size == 5, "irecv(tag 4097) got ", show(s2));
        }
    });
}

template <class R>
void max_tag_rejected(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(4, 1);
            auto s = t.isend(1, comet::max_tag, out);
            complete(t, s, "isend at max_tag");
        } else {
            auto buf = filled(8, 0);
            auto r = t.irecv(0, comet::max_tag, buf);
            const comet::status s = complete(t, r, "irecv at max_tag");
            expect(s.tag == comet::max_tag && s.size == 4, "got ", show(s));
        }
    });
}

template <class R>
void small_overtakes_large(const R& run) {
    std::atomic<bool> sent{false};
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto big = filled(100000, 'L'), small = filled(10, 'S');
            auto s1 = t.isend(1, 1, big);
            auto s2 = t.isend(1, 1, small);
            complete(t, s1, "isend"), complete(t, s2, "isend");
            sent = true;
        } else {
            await([&] { return sent.load(); }, "rank 0 sending");
            auto buf = filled(200000, 0);
            auto r = t.irecv(0, 1, buf);
            const comet::status s = complete(t, r, "first irecv");
            expect(s.size == 100000, "the first receive got ", show(s), ": the later small message overtook the large one");
            auto r2 = t.irecv(0, 1, buf);
            const comet::status s2 = complete(t, r2, "second irecv");
            expect(s2.size == 10, "the second receive got ", show(s2));
        }
    });
}

template <class R>
void posted_receives_lifo(const R& run) {
    std::atomic<bool> posted{false};
    run(2, [&](auto& t) {
        if (t.rank() == 1) {
            auto a = filled(16, 0), b = filled(16, 0);
            auto ra = t.irecv(0, 3, a);
            auto rb = t.irecv(0, 3, b);
            posted = true;
            const comet::status sa = complete(t, ra, "first posted irecv");
            const comet::status sb = complete(t, rb, "second posted irecv");
            expect(sa.size == 5 && sb.size == 6, "first posted got ", show(sa), ", second got ", show(sb));
        } else {
            await([&] { return posted.load(); }, "rank 1 posting");
            const auto first = filled(5, 'F'), second = filled(6, 'S');
            auto s1 = t.isend(1, 3, first);
            auto s2 = t.isend(1, 3, second);
            complete(t, s1, "isend"), complete(t, s2, "isend");
        }
    });
}

template <class R>
void truncation_slack_8_bytes(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(13, 1);
            auto s = t.isend(1, 1, out);
            complete(t, s, "isend");
        } else {
            auto buf = filled(10, 0);
            auto r = t.irecv(0, 1, buf);
            bool raised = false;
            try {
                const comet::status s = complete(t, r, "irecv of 13 bytes into 10");
                fail("13 bytes into a 10-byte buffer completed with ", show(s), " and no truncation_error");
            } catch (const comet::truncation_error&) {
                raised = true;
            }
            expect(raised, "no truncation_error");
        }
    });
}

template <class R>
void short_recv_size_is_buffer(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(5, 1);
            auto s = t.isend(1, 1, out);
            complete(t, s, "isend");
        } else {
            auto buf = filled(16, 0);
            auto r = t.irecv(0, 1, buf);
            const comet::status s = complete(t, r, "irecv");
            expect(s.size == 5, "a 5-byte message into 16 bytes reports ", show(s));
        }
    });
}

template <class R>
void short_recv_zero_fills_tail(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(4, 0xAA);
            auto s = t.isend(1, 1, out);
            complete(t, s, "isend");
        } else {
            auto buf = filled(16, 0x55);
            auto r = t.irecv(0, 1, buf);
            complete(t, r, "irecv");
            expect(all_are(comet::const_bytes(buf).first(4), 0xAA), "the prefix is not the message");
            expect(all_are(comet::const_bytes(buf).subspan(4), 0x55), "bytes past a 4-byte message in a 16-byte buffer were overwritten");
        }
    });
}

template <class R>
void test_waits_500ms(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() != 0) return;
        auto buf = filled(8, 0);
        auto r = t.irecv(1, 7, buf);  // nobody sends it
        for (int k = 0; k < 3; ++k) {
            const auto t0 = clock::now();
            const auto s = t.test(r);
            const double took = since(t0);
            expect(!s, "test completed a receive nobody sent");
            expect(took < 0.2, "test on a pending receive took ", took, " s");
        }
    });
}

template <class R>
void send_status_source_self(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(3, 1);
            auto s = t.isend(1, 6, out);
            const comet::status st = complete(t, s, "isend");
            expect(st.source == 1 && st.tag == 6 && st.size == 3, "completed send to 1 (tag 6, 3 bytes) reports ", show(st));
        } else {
            auto buf = filled(8, 0);
            auto r = t.irecv(0, 6, buf);
            complete(t, r, "irecv");
        }
    });
}

template <class R>
void test_default_request_nullopt(const R& run) {
    run(1, [&](auto& t) {
        typename std::remove_reference_t<decltype(t)>::request r;
        const auto s = t.test(r);
        expect(s.has_value(), "test on a default-constructed request returned nothing");
        expect(*s == comet::status{}, "test on a default-constructed request returned ", show(*s));
    });
}

template <class R>
void test_completed_request_stale(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(3, 1);
            auto s = t.isend(1, 2, out);
            complete(t, s, "isend");
            const auto again = t.test(s);
            expect(again && *again == comet::status{}, "test on a completed send did not return a default status");
        } else {
            auto buf = filled(8, 0);
            auto r = t.irecv(0, 2, buf);
            const comet::status s = complete(t, r, "irecv");
            expect(s.source == 0 && s.tag == 2 && s.size == 3, "got ", show(s));
            const auto again = t.test(r);
            expect(again.has_value(), "test on a completed receive returned nothing");
            expect(*again == comet::status{}, "test on a completed receive returned ", show(*again), " again");
        }
    });
}

template <class R>
void zero_length_isend_dropped(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            auto s = t.isend(1, 2, comet::const_bytes{});
            complete(t, s, "isend of 0 bytes");
        } else {
            auto buf = filled(8, 0);
            auto r = t.irecv(0, 2, buf);
            const comet::status s = complete(t, r, "irecv of a zero-length message");
            expect(s.source == 0 && s.tag == 2 && s.size == 0, "got ", show(s));
        }
    });
}

template <class R>
void truncated_message_requeued(const R& run) {
    std::atomic<bool> sent{false};
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto big = filled(100, 'B'), small = filled(5, 's');
            auto s1 = t.isend(1, 1, big);
            auto s2 = t.isend(1, 1, small);
            complete(t, s1, "isend"), complete(t, s2, "isend");
            sent = true;
        } else {
            await([&] { return sent.load(); }, "rank 0 sending");
            auto buf = filled(10, 0);
            auto r = t.irecv(0, 1, buf);
            bool raised = false;
            try {
                complete(t, r, "irecv of 100 bytes into 10");
            } catch (const comet::truncation_error&) {
                raised = true;
            }
            expect(raised, "no truncation_error");
            auto big = filled(200, 0);
            auto r2 = t.irecv(0, 1, big);
            const comet::status s = complete(t, r2, "the next irecv");
            expect(s.size == 5, "after the truncated one, the next receive got ", show(s), ": the message came twice");
        }
    });
}

template <class R>
void isend_flushed_only_by_its_test(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(4, 1);
            auto s = t.isend(1, 3, out);  // not tested until the reply is there
            probe_for(t, 1, 4, "the reply (rank 0 polls iprobe meanwhile)", 4.0);
            auto buf = filled(4, 0);
            auto r = t.irecv(1, 4, buf);
            complete(t, r, "irecv of the reply");
            complete(t, s, "isend");
        } else {
            auto buf = filled(4, 0);
            auto r = t.irecv(0, 3, buf);
            complete(t, r, "irecv of rank 0's isend, while rank 0 polls iprobe", 3.0);
            const auto reply = filled(1, 2);
            auto s = t.isend(0, 4, reply);
            complete(t, s, "isend of the reply");
        }
    });
}

template <class R>
void iprobe_any_source_requeues_at_back(const R& run) {
    std::atomic<bool> sent{false};
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto a = filled(1, 'a'), b = filled(2, 'b');
            auto s1 = t.isend(1, 1, a);
            auto s2 = t.isend(1, 1, b);
            complete(t, s1, "isend"), complete(t, s2, "isend");
            sent = true;
        } else {
            await([&] { return sent.load(); }, "rank 0 sending");
            const auto p = t.iprobe(comet::any_source, 1);
            expect(p && p->size == 1, "iprobe(any_source) did not report the earliest message");
            auto buf = filled(8, 0);
            auto r = t.irecv(0, 1, buf);
            const comet::status s = complete(t, r, "irecv after the probe");
            expect(s.size == 1, "after iprobe(any_source), the receive got ", show(s), " (the earliest was 1 byte)");
        }
    });
}

template <class R>
void iprobe_positive_cache_stale(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(3, 1);
            auto s = t.isend(1, 1, out);
            complete(t, s, "isend");
        } else {
            probe_for(t, 0, 1, "the message");
            auto buf = filled(8, 0);
            auto r = t.irecv(0, 1, buf);
            complete(t, r, "irecv");
            const auto again = t.iprobe(0, 1);
            expect(!again, "iprobe still reports ", show(*again), " after it was received");
        }
    });
}

template <class R>
void now_milliseconds(const R& run) {
    run(1, [&](auto& t) {
        const double a = t.now();
        sleep_s(0.2);
        const double b = t.now();
        expect(b - a > 0.1 && b - a < 5.0, "now() advanced ", b - a, " over a 0.2 s sleep");
    });
}

template <class R>
void dest_range_off_by_one(const R& run) {
    run(2, [&](auto& t) {
        const auto out = filled(1, 1);
        bool raised = false;
        try {
            auto s = t.isend(t.size(), 0, out);
        } catch (const comet::invalid_argument&) {
            raised = true;
        }
        expect(raised, "isend to rank size() = ", t.size(), " did not raise invalid_argument");
    });
}

template <class R>
void rank_one_based(const R& run) {
    std::atomic<int> seen[3] = {0, 0, 0};
    run(3, [&](auto& t) {
        const int r = t.rank();
        expect(t.size() == 3, "size() is ", t.size());
        expect(r >= 0 && r < t.size(), "rank() is ", r, ", outside 0..", t.size() - 1);
        ++seen[r];
    });
    for (auto& s : seen) expect(s.load() == 1, "the ranks are not 0, 1, 2 once each");
}

template <class R>
void large_message_rejected(const R& run) {
    constexpr std::size_t n = 9 * (std::size_t{1} << 20);
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(n, 0x3C);
            auto s = t.isend(1, 1, out);
            complete(t, s, "isend of 9 MiB", 10.0);
        } else {
            auto buf = filled(n, 0);
            auto r = t.irecv(0, 1, buf);
            const comet::status s = complete(t, r, "irecv of 9 MiB", 10.0);
            expect(s.size == n && all_are(buf, 0x3C), "9 MiB message arrived as ", show(s));
        }
    });
}

// ---- full ------------------------------------------------------------------------------------

template <class R>
void send_zero_copy_large(const R& run) {
    std::atomic<bool> done{false};
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            auto buf = filled(300000, 'A');
            comet::ops::send(t, 1, 1, buf);
            std::fill(buf.begin(), buf.end(), std::byte{'B'});  // the send returned: the buffer is ours
            const auto go = filled(1, 1);
            comet::ops::send(t, 1, 2, go);
            await([&] { return done.load(); }, "rank 1 receiving");
        } else {
            auto one = filled(1, 0);
            comet::ops::recv(t, 0, 2, one);
            auto buf = filled(300000, 0);
            const comet::status s = comet::ops::recv(t, 0, 1, buf);
            done = true;
            expect(s.size == 300000 && all_are(buf, 'A'), "the message changed after send returned: ", show(s));
        }
    });
}

template <class R>
void send_rendezvous_past_1mib(const R& run) {
    constexpr std::size_t n = 2 * (std::size_t{1} << 20);
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto big = filled(n, 1), go = filled(1, 2);
            comet::ops::send(t, 1, 1, big);
            comet::ops::send(t, 1, 2, go);
        } else {
            probe_for(t, 0, 2, "the message sent after a 2 MiB send, before any receive is posted");
            auto buf = filled(n, 0);
            comet::ops::recv(t, 0, 1, buf);
            auto one = filled(1, 0);
            comet::ops::recv(t, 0, 2, one);
        }
    });
}

template <class R>
void recv_status_tag_as_requested(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(3, 1);
            comet::ops::send(t, 1, 7, out);
        } else {
            auto buf = filled(16, 0);
            const comet::status s = comet::ops::recv(t, comet::any_source, comet::any_tag, buf);
            expect(s.source == 0 && s.tag == 7 && s.size == 3, "recv(any_source, any_tag) returned ", show(s));
        }
    });
}

template <class R>
void recv_zero_length_fast_path(const R& run) {
    std::atomic<bool> sent{false};
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto four = filled(4, 4);
            comet::ops::send(t, 1, 3, comet::const_bytes{});
            comet::ops::send(t, 1, 3, four);
            sent = true;
        } else {
            await([&] { return sent.load(); }, "rank 0 sending");
            const comet::status s1 = comet::ops::recv(t, 0, 3, comet::mutable_bytes{});
            expect(s1.size == 0 && s1.tag == 3, "zero-length recv got ", show(s1));
            auto buf = filled(8, 0);
            const comet::status s2 = comet::ops::recv(t, 0, 3, buf);
            expect(s2.size == 4, "the recv after a zero-length one got ", show(s2), " (the zero-length message again?)");
            const auto left = t.iprobe(0, 3);
            expect(!left, "a message is still queued: ", show(*left));
        }
    });
}

template <class R>
void wait_completed_stale(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(3, 1);
            comet::ops::send(t, 1, 2, out);
        } else {
            auto buf = filled(8, 0);
            auto r = t.irecv(0, 2, buf);
            const comet::status s = comet::ops::wait(t, r);
            expect(s.source == 0 && s.tag == 2 && s.size == 3, "wait returned ", show(s));
            const comet::status again = comet::ops::wait(t, r);
            expect(again == comet::status{}, "wait on a completed request returned ", show(again));
        }
    });
}

template <class R>
void wait_all_skips_sends(const R& run) {
    std::atomic<bool> receiving{false};
    run(2, [&](auto& t) {
        using request = typename std::remove_reference_t<decltype(t)>::request;
        if (t.rank() == 0) {
            const auto out = filled(4, 1);
            std::vector<request> rs;
            rs.push_back(t.issend(1, 1, out));
            comet::ops::wait_all(t, std::span<request>(rs));
            expect(receiving.load(), "wait_all returned before the issend's receive was posted");
        } else {
            sleep_s(0.3);
            receiving = true;
            auto buf = filled(8, 0);
            comet::ops::recv(t, 0, 1, buf);
        }
    });
}

template <class R>
void bsend_pool_64k_falls_back(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto big = filled(128 * 1024, 1), go = filled(1, 2);
            t.bsend(1, 1, big);
            t.bsend(1, 2, go);
        } else {
            probe_for(t, 0, 2, "the message bsent after a 128 KiB bsend, before any receive is posted");
            auto buf = filled(128 * 1024, 0);
            comet::ops::recv(t, 0, 1, buf);
            auto one = filled(1, 0);
            comet::ops::recv(t, 0, 2, one);
        }
    });
}

template <class R>
void issend_ack_on_arrival(const R& run) {
    std::atomic<bool> receiving{false};
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            const auto out = filled(4, 1);
            auto r = t.issend(1, 1, out);
            comet::ops::wait(t, r);
            expect(receiving.load(), "issend completed before the receiver posted its receive");
        } else {
            sleep_s(0.3);
            receiving = true;
            auto buf = filled(8, 0);
            comet::ops::recv(t, 0, 1, buf);
        }
    });
}

template <class R>
void rsend_wildcard_receive_not_found(const R& run) {
    std::atomic<bool> posted{false};
    run(2, [&](auto& t) {
        if (t.rank() == 1) {
            auto buf = filled(16, 0);
            auto r = t.irecv(comet::any_source, 5, buf);
            posted = true;
            const comet::status s = complete(t, r, "the posted any_source receive");
            expect(s.source == 0 && s.size == 4 && all_are(comet::const_bytes(buf).first(4), 9), "got ", show(s));
        } else {
            await([&] { return posted.load(); }, "rank 1 posting");
            const auto out = filled(4, 9);
            t.rsend(1, 5, out);
        }
    });
}

template <class R>
void sendrecv_large_send_first(const R& run) {
    std::atomic<int> done{0};
    run(3, [&](auto& t) {
        if (t.rank() == 2) {  // the watcher
            await([&] { return done.load() == 2; }, "ranks 0 and 1 both in sendrecv of 128 KiB (deadlock)", 5.0);
            return;
        }
        const int peer = 1 - t.rank();
        const auto out = filled(128 * 1024, static_cast<unsigned char>(t.rank() + 1));
        auto in = filled(128 * 1024, 0);
        const comet::status s = t.sendrecv(peer, 1, out, peer, 1, in);
        ++done;
        expect(s.source == peer && s.size == in.size() && all_are(in, static_cast<unsigned char>(peer + 1)), "sendrecv got ", show(s));
    });
}

template <class R>
void barrier_dissemination_floor_log2(const R& run) {
    std::atomic<bool> entered{false};
    run(3, [&](auto& t) {
        if (t.rank() == 2) {
            sleep_s(0.3);
            entered = true;
            comet::ops::barrier(t);
        } else {
            comet::ops::barrier(t);
            expect(entered.load(), "rank ", t.rank(), " left the barrier before rank 2 entered it");
        }
    });
}

template <class R>
void broadcast_root_zero_only(const R& run) {
    run(3, [&](auto& t) {
        auto data = filled(32, static_cast<unsigned char>(t.rank() == 1 ? 'R' : 'a' + t.rank()));
        comet::ops::broadcast(t, 1, data);
        expect(all_are(data, 'R'), "rank ", t.rank(), " does not hold root 1's bytes after broadcast");
    });
}

template <class R>
void broadcast_drops_partial_chunk(const R& run) {
    constexpr std::size_t n = 100000;
    run(2, [&](auto& t) {
        std::vector<std::byte> data(n, std::byte{0});
        if (t.rank() == 0)
            for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<std::byte>(i % 251 + 1);
        comet::ops::broadcast(t, 0, data);
        for (std::size_t i = 0; i < n; ++i)
            if (data[i] != static_cast<std::byte>(i % 251 + 1)) fail("rank ", t.rank(), ": broadcast byte ", i, " of ", n, " is wrong");
    });
}

template <class R>
void allreduce_sum_ring_own_first(const R& run) {
    double results[3] = {};
    std::atomic<int> written{0};
    run(3, [&](auto& t) {
        const double mine[3] = {1e16, 1.0, -1e16};
        std::vector<double> v{mine[t.rank()]};
        comet::ops::allreduce_sum(t, std::span<double>(v));
        results[t.rank()] = v[0];
        ++written;
        await([&] { return written.load() == 3; }, "every rank's result");
        for (int r = 0; r < 3; ++r)
            expect(std::memcmp(&results[r], &results[t.rank()], sizeof(double)) == 0, "allreduce_sum left ", results[r], " on rank ", r, " and ",
                   results[t.rank()], " on rank ", t.rank());
    });
}

template <class R>
void allreduce_max_init_numeric_min(const R& run) {
    run(3, [&](auto& t) {
        const double mine[3] = {-3.0, -1.0, -2.0};
        std::vector<double> v{mine[t.rank()], -5.0 - t.rank()};
        comet::ops::allreduce_max(t, std::span<double>(v));
        expect(v[0] == -1.0 && v[1] == -5.0, "allreduce_max of negative values gave ", v[0], ", ", v[1]);
    });
}

template <class R>
void allreduce_min_as_float(const R& run) {
    run(2, [&](auto& t) {
        const double small = 1.0 + 1e-12;
        std::vector<double> v{t.rank() == 0 ? small : 2.0};
        comet::ops::allreduce_min(t, std::span<double>(v));
        expect(v[0] == small, "allreduce_min gave ", v[0] - 1.0, " + 1, not 1e-12 + 1");
    });
}

template <class R>
void reduce_sum_nonroot_partial(const R& run) {
    run(3, [&](auto& t) {
        const double mine = t.rank() + 1.0;
        std::vector<double> v{mine};
        comet::ops::reduce_sum(t, 0, std::span<double>(v));
        if (t.rank() == 0)
            expect(v[0] == 6.0, "reduce_sum at the root gave ", v[0]);
        else
            expect(v[0] == mine, "reduce_sum changed non-root rank ", t.rank(), "'s values from ", mine, " to ", v[0]);
    });
}

template <class R>
void reduce_max_root_excluded(const R& run) {
    run(3, [&](auto& t) {
        const double mine[3] = {1.0, 9.0, 3.0};
        std::vector<double> v{mine[t.rank()]};
        comet::ops::reduce_max(t, 1, std::span<double>(v));
        if (t.rank() == 1) expect(v[0] == 9.0, "reduce_max at root 1 gave ", v[0]);
    });
}

template <class R>
void gather_root_block_first(const R& run) {
    run(3, [&](auto& t) {
        const auto mine = filled(2, static_cast<unsigned char>(t.rank()));
        auto all = filled(6, 0xEE);
        comet::ops::gather(t, 2, mine, all);
        if (t.rank() == 2)
            for (int r = 0; r < 3; ++r)
                expect(all_are(comet::const_bytes(all).subspan(static_cast<std::size_t>(2 * r), 2), static_cast<unsigned char>(r)),
                       "gather at root 2: block ", r, " is not rank ", r, "'s");
    });
}

template <class R>
void alltoall_own_block_skipped(const R& run) {
    run(2, [&](auto& t) {
        std::vector<std::byte> out(8), in(8, std::byte{0xFF});
        for (int r = 0; r < 2; ++r)
            for (int k = 0; k < 4; ++k) out[static_cast<std::size_t>(4 * r + k)] = static_cast<std::byte>(10 * t.rank() + r);
        comet::ops::alltoall(t, out, in);
        for (int r = 0; r < 2; ++r)
            expect(all_are(comet::const_bytes(in).subspan(static_cast<std::size_t>(4 * r), 4), static_cast<unsigned char>(10 * r + t.rank())),
                   "rank ", t.rank(), ": alltoall block ", r, " is wrong");
    });
}

template <class R>
void ibarrier_completes_at_start(const R& run) {
    std::atomic<bool> entered{false};
    run(3, [&](auto& t) {
        if (t.rank() == 2) {
            sleep_s(0.3);
            entered = true;
            auto r = t.ibarrier();
            complete(t, r, "ibarrier");
        } else {
            auto r = t.ibarrier();
            complete(t, r, "ibarrier");
            expect(entered.load(), "rank ", t.rank(), "'s ibarrier completed before rank 2 entered it");
        }
    });
}

template <class R>
void progress_waits_for_completion(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() != 0) return;
        auto buf = filled(8, 0);
        auto r = t.irecv(1, 9, buf);  // nobody sends it
        for (int k = 0; k < 3; ++k) {
            const auto t0 = clock::now();
            t.progress();
            const double took = since(t0);
            expect(took < 0.2, "progress() with a pending receive took ", took, " s");
        }
        expect(!t.test(r), "a receive nobody sent completed");
    });
}

template <class R>
void compute_busy_skipped(const R& run) {
    run(1, [&](auto& t) {
        const auto t0 = clock::now();
        comet::ops::compute(t, comet::work::busy(0.2));
        const double took = since(t0);
        expect(took > 0.18, "compute(busy 0.2 s) took ", took, " s");
    });
}

template <class R>
void clock_epoch_first_call(const R& run) {
    std::atomic<int> ready{0}, written{0};
    double readings[2] = {};
    run(2, [&](auto& t) {
        if (t.rank() == 0)
            (void)t.now();
        else
            sleep_s(0.3);
        ++ready;
        await([&] { return ready.load() == 2; }, "both ranks");
        readings[t.rank()] = t.now();
        ++written;
        await([&] { return written.load() == 2; }, "both readings");
        if (t.rank() == 0 && comet::ops::clock_is_global(t))
            expect(std::abs(readings[0] - readings[1]) < 0.1, "clock_is_global() is true but simultaneous now() readings are ", readings[0], " and ",
                   readings[1]);
    });
}

template <class R>
void abort_message_64_bytes(const R& run) {
    run(2, [&](auto& t) {
        if (t.rank() != 0) return;
        const std::string message = "witness abort: a message well over sixty-four bytes long, ending here <END>";
        bool raised = false;
        try {
            comet::ops::abort(t, message);
        } catch (const comet::aborted& e) {
            raised = true;
            expect(std::string_view(e.what()).find(message) != std::string_view::npos, "abort reported \"", e.what(), "\"");
        }
        expect(raised, "abort did not raise comet::aborted");
    });
}

// ---- the table -------------------------------------------------------------------------------

/// Runs `name`'s witness (every witness of the model for a correct row); `starting` is told the
/// name of each as it begins. Throws on the first failure.
template <bool Full, class Runner, class Starting>
void run_witnesses(const Runner& run, Starting starting, std::string_view name) {
    const bool all = name == "correct_core" || name == "correct_full";
    bool found = false;
    const auto one = [&](std::string_view n, auto&& witness) {
        if (!all && n != name) return;
        found = true;
        starting(n);
        witness(run);
    };
#define HELD_OUT_10_WITNESS(w) one(#w, [](const auto& r) { w(r); })
    HELD_OUT_10_WITNESS(any_tag_literal_on_posted);
    HELD_OUT_10_WITNESS(any_source_skips_self);
    HELD_OUT_10_WITNESS(any_tag_lowest_tag_first);
    HELD_OUT_10_WITNESS(tag_bucket_mod_4096);
    HELD_OUT_10_WITNESS(max_tag_rejected);
    HELD_OUT_10_WITNESS(small_overtakes_large);
    HELD_OUT_10_WITNESS(posted_receives_lifo);
    HELD_OUT_10_WITNESS(truncation_slack_8_bytes);
    HELD_OUT_10_WITNESS(short_recv_size_is_buffer);
    HELD_OUT_10_WITNESS(short_recv_zero_fills_tail);
    HELD_OUT_10_WITNESS(test_waits_500ms);
    HELD_OUT_10_WITNESS(send_status_source_self);
    HELD_OUT_10_WITNESS(test_default_request_nullopt);
    HELD_OUT_10_WITNESS(test_completed_request_stale);
    HELD_OUT_10_WITNESS(zero_length_isend_dropped);
    HELD_OUT_10_WITNESS(truncated_message_requeued);
    HELD_OUT_10_WITNESS(isend_flushed_only_by_its_test);
    HELD_OUT_10_WITNESS(iprobe_any_source_requeues_at_back);
    HELD_OUT_10_WITNESS(iprobe_positive_cache_stale);
    HELD_OUT_10_WITNESS(now_milliseconds);
    HELD_OUT_10_WITNESS(dest_range_off_by_one);
    HELD_OUT_10_WITNESS(rank_one_based);
    HELD_OUT_10_WITNESS(large_message_rejected);
    if constexpr (Full) {
        HELD_OUT_10_WITNESS(send_zero_copy_large);
        HELD_OUT_10_WITNESS(send_rendezvous_past_1mib);
        HELD_OUT_10_WITNESS(recv_status_tag_as_requested);
        HELD_OUT_10_WITNESS(recv_zero_length_fast_path);
        HELD_OUT_10_WITNESS(wait_completed_stale);
        HELD_OUT_10_WITNESS(wait_all_skips_sends);
        HELD_OUT_10_WITNESS(bsend_pool_64k_falls_back);
        HELD_OUT_10_WITNESS(issend_ack_on_arrival);
        HELD_OUT_10_WITNESS(rsend_wildcard_receive_not_found);
        HELD_OUT_10_WITNESS(sendrecv_large_send_first);
        HELD_OUT_10_WITNESS(barrier_dissemination_floor_log2);
        HELD_OUT_10_WITNESS(broadcast_root_zero_only);
        HELD_OUT_10_WITNESS(broadcast_drops_partial_chunk);
        HELD_OUT_10_WITNESS(allreduce_sum_ring_own_first);
        HELD_OUT_10_WITNESS(allreduce_max_init_numeric_min);
        HELD_OUT_10_WITNESS(allreduce_min_as_float);
        HELD_OUT_10_WITNESS(reduce_sum_nonroot_partial);
        HELD_OUT_10_WITNESS(reduce_max_root_excluded);
        HELD_OUT_10_WITNESS(gather_root_block_first);
        HELD_OUT_10_WITNESS(alltoall_own_block_skipped);
        HELD_OUT_10_WITNESS(ibarrier_completes_at_start);
        HELD_OUT_10_WITNESS(progress_waits_for_completion);
        HELD_OUT_10_WITNESS(compute_busy_skipped);
        HELD_OUT_10_WITNESS(clock_epoch_first_call);
        HELD_OUT_10_WITNESS(abort_message_64_bytes);
    }
#undef HELD_OUT_10_WITNESS
    if (!found) throw failure("no witness named " + std::string(name) + " for this model");
}

}  // namespace held_out_10::witness
