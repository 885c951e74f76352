// held_out_9/witnesses_9.hpp — one short scenario per mutant of defects.hpp, named after it: the
// proof that the mutant is really broken. Each fails (throws, or never returns) on its mutant
// and passes on both correct transports. They were written from the rules and the defects alone,
// without the conformance suite.
//
// A base row (correct_core, correct_full) runs every witness its model can run: the core
// witnesses on both, the full ones on correct_full. A mutant's row runs its own witness only.
// A witness whose defect's only symptom is a call that never returns (a deadlock) is ended by the
// watchdog here: it prints the driver's "caught" line and exits the child.
#pragma once

#include "defects.hpp"
#include "mailbox.hpp"

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace held_out_9::witness {

/// A witness saw the defect.
class failure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

template <class... Parts>
[[noreturn]] void fail(int rank, const Parts&... parts) {
    throw failure(comet::detail::format_parts(rank, {comet::detail::part(parts)...}));
}

/// How long a helper waits for an operation that must complete.
inline constexpr double patience = 3.0;
/// How long a whole witness may run before the watchdog calls it hung.
inline constexpr double watchdog_seconds = 10.0;

using clock = std::chrono::steady_clock;

inline double seconds_since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }
inline void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// ---- the watchdog ------------------------------------------------------------------------------

struct watchdog_state {
    std::atomic<long long> deadline{0};  ///< steady-clock nanoseconds; 0: disarmed
    std::atomic<const char*> name{""};
};
inline watchdog_state& watchdog() {
    static watchdog_state w;
    return w;
}
inline void arm(std::string_view name) {
    static std::vector<std::string> names;  // keeps the c_str alive
    names.emplace_back(name);
    watchdog().name = names.back().c_str();
    watchdog().deadline = (clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(watchdog_seconds)))
                              .time_since_epoch()
                              .count();
}
inline void disarm() { watchdog().deadline = 0; }
inline void start_watchdog() {
    static std::once_flag once;
    std::call_once(once, [] {
        std::thread([] {
            for (;;) {
                sleep_ms(50);
                const long long d = watchdog().deadline.load();
                if (d != 0 && clock::now().time_since_epoch().count() > d) {
                    std::fprintf(stdout, "caught witness watchdog\t%s: a call still had not returned after %g s (deadlock)\n",
                                 watchdog().name.load(), watchdog_seconds);
                    std::fflush(stdout);
                    _exit(0);
                }
            }
        }).detach();
    });
}

// ---- helpers over the core only ----------------------------------------------------------------

template <class T>
comet::status complete(T& t, typename T::request& r, std::string_view what, double seconds = patience) {
    const auto t0 = clock::now();
    for (unsigned polls = 1;; ++polls) {
        if (std::optional<comet::status> s = t.test(r)) return *s;
        if (seconds_since(t0) > seconds) fail(t.rank(), what, ": not complete after ", seconds, " s");
        if (polls % 64 == 0) std::this_thread::yield();
    }
}

template <class T>
void send(T& t, int dest, int tag, comet::const_bytes data) {
    typename T::request r = t.isend(dest, tag, data);
    (void)complete(t, r, "isend");
}

template <class T>
comet::status recv(T& t, int source, int tag, comet::mutable_bytes buffer) {
    typename T::request r = t.irecv(source, tag, buffer);
    return complete(t, r, "irecv");
}

template <class T>
void send_int(T& t, int dest, int tag, int value) {
    send(t, dest, tag, std::as_bytes(std::span<const int>(&value, 1)));
}

template <class T>
int recv_int(T& t, int source, int tag, comet::status* got = nullptr) {
    int value = -1;
    const comet::status s = recv(t, source, tag, std::as_writable_bytes(std::span<int>(&value, 1)));
    if (got) *got = s;
    return value;
}

inline comet::const_bytes one(const int& v) { return std::as_bytes(std::span<const int>(&v, 1)); }
inline comet::mutable_bytes one(int& v) { return std::as_writable_bytes(std::span<int>(&v, 1)); }

inline std::string show(const comet::status& s) {
    return "{source " + std::to_string(s.source) + ", tag " + std::to_string(s.tag) + ", size " + std::to_string(s.size) + "}";
}

template <class T>
void expect_status(T& t, const comet::status& got, comet::status want, std::string_view what) {
    if (!(got == want)) fail(t.rank(), what, ": status ", show(got), ", expected ", show(want));
}

inline std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed * 17 + i / 251) & 0xFF);
    return v;
}

template <class T>
void expect_bytes(T& t, comet::const_bytes got, comet::const_bytes want, std::string_view what) {
    if (got.size() != want.size()) fail(t.rank(), what, ": ", got.size(), " bytes, expected ", want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i])
            fail(t.rank(), what, ": byte ", i, " of ", got.size(), " is ", static_cast<int>(got[i]), ", expected ", static_cast<int>(want[i]));
}

// ---- the core witnesses -------------------------------------------------------------------------

template <class Go>
void core_witnesses(Go& go) {
    go("size_cached_from_first_world", [](const auto& run) {
        run(2, [](auto&) {});
        std::mutex m;
        std::vector<int> seen;
        run(3, [&](auto& t) {
            if (t.size() != 3) fail(t.rank(), "size() is ", t.size(), " in a group of 3 ranks");
            std::lock_guard l(m);
            seen.push_back(t.rank());
        });
        std::sort(seen.begin(), seen.end());
        if (seen != std::vector<int>{0, 1, 2}) throw failure("the ranks of a group of 3 are not 0, 1, 2");
    });

    go("match_scan_from_back_long_queue", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                for (int i = 0; i < 20; ++i) send_int(t, 1, 5, i);
                send_int(t, 1, 6, 0);
            } else {
                (void)recv_int(t, 0, 6);  // all 20 are waiting now
                for (int i = 0; i < 20; ++i)
                    if (const int v = recv_int(t, 0, 5); v != i) fail(t.rank(), "receive ", i, " from rank 0 (tag 5) got message ", v);
            }
        });
    });

    go("large_message_overtaken_by_small", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                const auto big = pattern(100000, 1);
                const auto small = pattern(8, 2);
                send(t, 1, 5, big);
                send(t, 1, 5, small);
                send_int(t, 1, 6, 0);
            } else {
                (void)recv_int(t, 0, 6);
                std::vector<std::byte> buffer(200000);
                const comet::status first = recv(t, 0, 5, buffer);
                expect_status(t, first, {0, 5, 100000}, "first receive of two same-tag messages (100000 then 8 bytes)");
                const comet::status second = recv(t, 0, 5, buffer);
                expect_status(t, second, {0, 5, 8}, "second receive");
            }
        });
    });

    go("any_source_posted_only_exact", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 1) {
                int v = -1;
                auto r = t.irecv(comet::any_source, 4, one(v));
                send_int(t, 0, 9, 0);  // posted: now send
                const comet::status s = complete(t, r, "irecv(any_source, 4) posted before the message");
                expect_status(t, s, {0, 4, sizeof(int)}, "irecv(any_source, 4)");
                if (v != 44) fail(t.rank(), "irecv(any_source, 4) got ", v);
            } else {
                (void)recv_int(t, 1, 9);
                send_int(t, 1, 4, 44);
            }
        });
    });

    go("tag_hashed_into_12_bits", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send_int(t, 1, 4097, 1);
                send_int(t, 1, 1, 2);
                send_int(t, 1, 6, 0);
            } else {
                (void)recv_int(t, 0, 6);
                comet::status s;
                const int v = recv_int(t, 0, 1, &s);
                if (v != 2 || s.tag != 1) fail(t.rank(), "receive with tag 1 got message ", v, " with tag ", s.tag, " (tag 4097 sent first)");
                (void)recv_int(t, 0, 4097);
            }
        });
    });

    go("posted_specific_list_before_wildcard", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 1) {
                int a = -1, b = -1;
                auto ra = t.irecv(comet::any_source, 7, one(a));
                auto rb = t.irecv(0, 7, one(b));
                send_int(t, 0, 9, 0);
                (void)complete(t, ra, "first posted receive");
                (void)complete(t, rb, "second posted receive");
                if (a != 1 || b != 2)
                    fail(t.rank(), "receives posted in the order irecv(any_source, 7), irecv(0, 7) got ", a, " and ", b, "; expected 1 and 2");
            } else {
                (void)recv_int(t, 1, 9);
                send_int(t, 1, 7, 1);
                send_int(t, 1, 7, 2);
            }
        });
    });

    go("self_message_truncation_unchecked", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() != 0) return;
            const auto out = pattern(16, 3);
            send(t, 0, 3, out);
            std::vector<std::byte> in(8);
            auto r = t.irecv(0, 3, in);
            try {
                const comet::status s = complete(t, r, "irecv of a 16-byte message to oneself into 8 bytes");
                fail(t.rank(), "a 16-byte message to oneself received into 8 bytes completed with ", show(s), ", no truncation_error");
            } catch (const comet::truncation_error&) {
            }
        });
    });

    go("posted_status_size_stale", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 1) {
                std::vector<std::byte> in(64);
                auto r = t.irecv(0, 3, in);
                send_int(t, 0, 9, 0);
                const comet::status s = complete(t, r, "posted irecv");
                expect_status(t, s, {0, 3, 10}, "a 10-byte message into a 64-byte receive posted first");
                expect_bytes(t, comet::const_bytes(in).first(10), pattern(10, 4), "the prefix");
            } else {
                (void)recv_int(t, 1, 9);
                send(t, 1, 3, pattern(10, 4));
            }
        });
    });

    go("isend_zero_copy_completes_early", [](const auto& run) {
        run(2, [](auto& t) {
            const std::size_t n = 128 * 1024;
            if (t.rank() == 0) {
                std::vector<std::byte> out(n, std::byte{'A'});
                auto r = t.isend(1, 5, out);
                (void)complete(t, r, "isend");
                std::fill(out.begin(), out.end(), std::byte{'B'});  // ours again after the test
                send_int(t, 1, 6, 0);
                (void)recv_int(t, 1, 7);  // keep `out` alive until rank 1 has its message
            } else {
                (void)recv_int(t, 0, 6);
                std::vector<std::byte> in(n);
                (void)recv(t, 0, 5, in);
                expect_bytes(t, in, std::vector<std::byte>(n, std::byte{'A'}), "128 KiB isent as 'A', overwritten with 'B' after its test");
                send_int(t, 0, 7, 0);
            }
        });
    });

    go("test_blocks_in_poll_when_idle", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 1) {
                int v = -1;
                auto r = t.irecv(0, 3, one(v));
                const auto t0 = clock::now();
                const bool done = t.test(r).has_value();
                const double took = seconds_since(t0);
                if (took > 0.5) fail(t.rank(), "test on a pending receive took ", took, " s (", done ? "completed" : "pending", ")");
                (void)complete(t, r, "irecv");
            } else {
                sleep_ms(1000);
                send_int(t, 1, 3, 33);
            }
        });
    });

    go("send_status_names_self", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                const auto out = pattern(8, 5);
                auto r = t.isend(1, 5, out);
                const comet::status s = complete(t, r, "isend");
                expect_status(t, s, {1, 5, 8}, "completed isend to rank 1, tag 5, 8 bytes");
            } else {
                std::vector<std::byte> in(8);
                (void)recv(t, 0, 5, in);
            }
        });
    });

    go("test_completed_request_returns_last_status", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                const auto out = pattern(8, 6);
                auto r = t.isend(1, 5, out);
                (void)complete(t, r, "isend");
                const std::optional<comet::status> again = t.test(r);
                if (!again) fail(t.rank(), "test on a completed request returned nothing");
                expect_status(t, *again, comet::status{}, "test on an already completed isend");
                typename std::remove_cvref_t<decltype(t)>::request none;
                const std::optional<comet::status> d = t.test(none);
                if (!d || !(*d == comet::status{})) fail(t.rank(), "test on a default-constructed request did not return a default status");
            } else {
                std::vector<std::byte> in(8);
                auto r = t.irecv(0, 5, in);
                (void)complete(t, r, "irecv");
                const std::optional<comet::status> again = t.test(r);
                if (!again) fail(t.rank(), "test on a completed request returned nothing");
                expect_status(t, *again, comet::status{}, "test on an already completed irecv");
            }
        });
    });

    go("zero_length_message_dropped", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send(t, 1, 2, comet::const_bytes{});
                send_int(t, 1, 6, 0);
            } else {
                (void)recv_int(t, 0, 6);  // sent after the empty message
                const comet::status s = recv(t, 0, 2, comet::mutable_bytes{});
                expect_status(t, s, {0, 2, 0}, "a zero-length message");
            }
        });
    });

    go("inbound_drained_only_by_irecv", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 1) {
                int v = -1;
                auto r = t.irecv(0, 5, one(v));
                send_int(t, 0, 9, 0);
                (void)complete(t, r, "irecv polled with test while rank 0 sends");
                if (v != 55) fail(t.rank(), "received ", v);
                // and iprobe alone must see a message arrive
                const auto t0 = clock::now();
                while (!t.iprobe(0, 6)) {
                    if (seconds_since(t0) > patience) fail(t.rank(), "iprobe polled for ", patience, " s never saw rank 0's message");
                    std::this_thread::yield();
                }
                (void)recv_int(t, 0, 6);
            } else {
                (void)recv_int(t, 1, 9);
                send_int(t, 1, 5, 55);
                send_int(t, 1, 6, 66);
            }
        });
    });

    go("iprobe_any_tag_unhandled", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send_int(t, 1, 3, 33);
            } else {
                const auto t0 = clock::now();
                std::optional<comet::status> s;
                while (!(s = t.iprobe(0, comet::any_tag))) {
                    if (seconds_since(t0) > patience) fail(t.rank(), "iprobe(0, any_tag) never saw rank 0's message with tag 3");
                    std::this_thread::yield();
                }
                expect_status(t, *s, {0, 3, sizeof(int)}, "iprobe(0, any_tag)");
                (void)recv_int(t, 0, 3);
            }
        });
    });

    go("iprobe_reports_newest", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send(t, 1, 5, pattern(1, 7));
                send(t, 1, 5, pattern(2, 7));
                send_int(t, 1, 6, 0);
            } else {
                (void)recv_int(t, 0, 6);  // both have arrived
                const std::optional<comet::status> s = t.iprobe(0, 5);
                if (!s) fail(t.rank(), "iprobe(0, 5) found nothing though two messages wait");
                expect_status(t, *s, {0, 5, 1}, "iprobe(0, 5) with a 1-byte then a 2-byte message waiting");
                std::vector<std::byte> in(2);
                (void)recv(t, 0, 5, in);
                (void)recv(t, 0, 5, in);
            }
        });
    });

    go("now_in_milliseconds", [](const auto& run) {
        run(1, [](auto& t) {
            const double a = t.now();
            sleep_ms(200);
            const double b = t.now();
            if (!(b - a >= 0.15 && b - a <= 10.0)) fail(t.rank(), "now() advanced by ", b - a, " over a 0.2 s sleep");
        });
    });

    go("irecv_source_bound_off_by_one", [](const auto& run) {
        run(2, [](auto& t) {
            int v = 0;
            try {
                [[maybe_unused]] auto r = t.irecv(t.size(), 0, one(v));
            } catch (const comet::invalid_argument&) {
                return;
            }
            fail(t.rank(), "irecv from rank ", t.size(), " (= size()) raised nothing");
        });
    });

    go("rejects_max_tag", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0)
                send_int(t, 1, comet::max_tag, 7);
            else if (const int v = recv_int(t, 0, comet::max_tag); v != 7)
                fail(t.rank(), "received ", v, " with tag max_tag");
        });
    });

    go("chunked_copy_drops_last_full_chunk", [](const auto& run) {
        run(2, [](auto& t) {
            const std::size_t n = 2 * mebibyte;
            if (t.rank() == 0) {
                send(t, 1, 5, pattern(n, 8));
            } else {
                std::vector<std::byte> in(n);
                const comet::status s = recv(t, 0, 5, in);
                expect_status(t, s, {0, 5, n}, "a 2 MiB message");
                expect_bytes(t, in, pattern(n, 8), "a 2 MiB message");
            }
        });
    });

    go("any_source_status_reports_wildcard", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                send_int(t, 1, 5, 1);
            } else {
                comet::status s;
                (void)recv_int(t, comet::any_source, 5, &s);
                expect_status(t, s, {0, 5, sizeof(int)}, "irecv(any_source, 5)");
            }
        });
    });

    go("request_move_assign_releases_after", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 1) {
                int v = -1;
                typename std::remove_cvref_t<decltype(t)>::request r;
                r = t.irecv(0, 5, one(v));  // move-assigned into a default request
                send_int(t, 0, 9, 0);
                const comet::status s = complete(t, r, "irecv move-assigned into a request");
                expect_status(t, s, {0, 5, sizeof(int)}, "irecv move-assigned into a request");
                if (v != 55) fail(t.rank(), "received ", v);
            } else {
                (void)recv_int(t, 1, 9);
                send_int(t, 1, 5, 55);
            }
        });
    });
}

// ---- the full witnesses (native members) --------------------------------------------------------

template <class Go>
void full_witnesses(Go& go) {
    go("send_to_self_waits_for_receive", [](const auto& run) {
        run(1, [](auto& t) {
            int out = 17, in = 0;
            t.send(0, 4, one(out));  // buffering transport: returns before the receive is posted
            (void)t.recv(0, 4, one(in));
            if (in != 17) fail(t.rank(), "received ", in);
        });
    });

    go("send_large_reads_buffer_after_return", [](const auto& run) {
        run(2, [](auto& t) {
            const std::size_t n = 128 * 1024;
            if (t.rank() == 0) {
                std::vector<std::byte> out(n, std::byte{'A'});
                t.send(1, 5, out);
                std::fill(out.begin(), out.end(), std::byte{'B'});  // ours again once send returned
                int token = 1;
                t.send(1, 6, one(token));
            } else {
                std::vector<std::byte> in(n);
                (void)t.recv(0, 5, in);
                expect_bytes(t, in, std::vector<std::byte>(n, std::byte{'A'}), "128 KiB sent as 'A', overwritten with 'B' after send returned");
                int token = 0;
                (void)t.recv(0, 6, one(token));
            }
        });
    });

    go("recv_empty_buffer_shortcut", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                t.send(1, 3, comet::const_bytes{});
                int v = 4;
                t.send(1, 3, one(v));
            } else {
                const comet::status a = t.recv(0, 3, comet::mutable_bytes{});
                expect_status(t, a, {0, 3, 0}, "recv of a zero-length message");
                int v = 0;
                const comet::status b = t.recv(0, 3, one(v));
                expect_status(t, b, {0, 3, sizeof(int)}, "the recv after it");
            }
        });
    });

    go("wait_default_request_waits_for_arrival", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 1) {
                typename std::remove_cvref_t<decltype(t)>::request none;
                const auto t0 = clock::now();
                const comet::status s = t.wait(none);
                const double took = seconds_since(t0);
                if (took > 0.5) fail(t.rank(), "wait on a default-constructed request took ", took, " s");
                expect_status(t, s, comet::status{}, "wait on a default-constructed request");
                int v = 0;
                (void)t.recv(0, 3, one(v));
            } else {
                sleep_ms(1000);
                int v = 3;
                t.send(1, 3, one(v));
            }
        });
    });

    go("wait_all_skips_first", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 1) {
                int a = -1, b = -1;
                std::vector<typename std::remove_cvref_t<decltype(t)>::request> rs;
                rs.push_back(t.irecv(0, 1, one(a)));
                rs.push_back(t.irecv(0, 2, one(b)));
                t.wait_all(std::span(rs));
                if (a != 11 || b != 22) fail(t.rank(), "after wait_all the buffers hold ", a, " and ", b, "; expected 11 and 22");
                for (auto& r : rs) {
                    const std::optional<comet::status> s = t.test(r);
                    if (!s || !(*s == comet::status{})) fail(t.rank(), "a request wait_all completed is still pending or uncompleted");
                }
            } else {
                int b = 22, a = 11;
                t.send(1, 2, one(b));
                sleep_ms(300);
                t.send(1, 1, one(a));
            }
        });
    });

    go("bsend_over_buffer_falls_back_to_sync", [](const auto& run) {
        run(2, [](auto& t) {
            const int other = 1 - t.rank();
            const auto out = pattern(2 * mebibyte, static_cast<unsigned>(t.rank()));
            std::vector<std::byte> in(2 * mebibyte);
            t.bsend(other, 5, out);  // both bsend first: must complete
            (void)t.recv(other, 5, in);
            expect_bytes(t, in, pattern(2 * mebibyte, static_cast<unsigned>(other)), "2 MiB exchanged by bsend");
        });
    });

    go("issend_acked_on_arrival", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 0) {
                int v = 5;
                auto r = t.issend(1, 5, one(v));
                const auto t0 = clock::now();
                while (seconds_since(t0) < 0.3)
                    if (t.test(r)) fail(t.rank(), "issend completed before rank 1 posted any receive for it");
                int token = 1;
                t.send(1, 8, one(token));
                (void)t.wait(r);
            } else {
                int token = 0, v = 0;
                (void)t.recv(0, 8, one(token));
                (void)t.recv(0, 5, one(v));
            }
        });
    });

    go("rsend_fills_first_posted", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 1) {
                int a = -1, b = -1, token = 1;
                auto ra = t.irecv(0, 2, one(a));
                auto rb = t.irecv(0, 1, one(b));
                t.send(0, 9, one(token));
                const comet::status sb = t.wait(rb);
                const comet::status sa = t.wait(ra);
                expect_status(t, sb, {0, 1, sizeof(int)}, "the receive posted for tag 1");
                expect_status(t, sa, {0, 2, sizeof(int)}, "the receive posted for tag 2");
                if (b != 111 || a != 222) fail(t.rank(), "tag-1 receive got ", b, ", tag-2 receive got ", a);
            } else {
                int token = 0, x = 111, y = 222;
                (void)t.recv(1, 9, one(token));
                t.rsend(1, 1, one(x));
                t.rsend(1, 2, one(y));
            }
        });
    });

    go("sendrecv_receive_before_send", [](const auto& run) {
        run(2, [](auto& t) {
            const int other = 1 - t.rank();
            int out = 100 + t.rank(), in = -1;
            (void)t.sendrecv(other, 5, one(out), other, 5, one(in));
            if (in != 100 + other) fail(t.rank(), "sendrecv received ", in);
        });
    });

    go("barrier_dissemination_floor_log2", [](const auto& run) {
        std::atomic<bool> last_in{false};
        run(3, [&](auto& t) {
            if (t.rank() == 2) {
                sleep_ms(1000);
                last_in = true;
                t.barrier();
            } else {
                t.barrier();
                if (!last_in) fail(t.rank(), "left the barrier before rank 2 entered it");
            }
        });
    });

    go("broadcast_scatter_allgather_remainder_lost", [](const auto& run) {
        run(3, [](auto& t) {
            const std::size_t n = 100001;
            std::vector<std::byte> data = t.rank() == 1 ? pattern(n, 9) : std::vector<std::byte>(n);
            t.broadcast(1, data);
            expect_bytes(t, data, pattern(n, 9), "broadcast of 100001 bytes from rank 1");
        });
    });

    go("allreduce_sum_fold_counts_extra_twice", [](const auto& run) {
        run(3, [](auto& t) {
            std::vector<double> v{static_cast<double>(1 << t.rank()), 1.0};
            t.allreduce_sum(std::span(v));
            if (v[0] != 7.0 || v[1] != 3.0) fail(t.rank(), "allreduce_sum of {1, 2, 4} and {1, 1, 1} gave ", v[0], " and ", v[1]);
        });
    });

    go("allreduce_max_init_numeric_min", [](const auto& run) {
        run(3, [](auto& t) {
            std::vector<double> v{-1.0 - t.rank(), -5.0};
            t.allreduce_max(std::span(v));
            if (v[0] != -1.0 || v[1] != -5.0) fail(t.rank(), "allreduce_max of {-1, -2, -3} and {-5, -5, -5} gave ", v[0], " and ", v[1]);
        });
    });

    go("allreduce_min_abs_compare", [](const auto& run) {
        run(3, [](auto& t) {
            const double mine[] = {-5.0, 1.0, 3.0};
            std::vector<double> v{mine[t.rank()]};
            t.allreduce_min(std::span(v));
            if (v[0] != -5.0) fail(t.rank(), "allreduce_min of {-5, 1, 3} gave ", v[0]);
        });
    });

    go("reduce_sum_tree_partials_left_in_place", [](const auto& run) {
        run(4, [](auto& t) {
            std::vector<double> v{t.rank() + 1.0};
            t.reduce_sum(0, std::span(v));
            const double want = t.rank() == 0 ? 10.0 : t.rank() + 1.0;
            if (v[0] != want) fail(t.rank(), "after reduce_sum to rank 0 of {1, 2, 3, 4} this rank holds ", v[0], ", expected ", want);
        });
    });

    go("reduce_max_root_ignored", [](const auto& run) {
        run(3, [](auto& t) {
            const double mine[] = {5.0, 9.0, 1.0};
            std::vector<double> v{mine[t.rank()]};
            t.reduce_max(2, std::span(v));
            const double want = t.rank() == 2 ? 9.0 : mine[t.rank()];
            if (v[0] != want) fail(t.rank(), "after reduce_max to rank 2 of {5, 9, 1} this rank holds ", v[0], ", expected ", want);
        });
    });

    go("reduce_min_skips_last_rank", [](const auto& run) {
        run(3, [](auto& t) {
            const double mine[] = {5.0, 9.0, 1.0};
            std::vector<double> v{mine[t.rank()]};
            t.reduce_min(0, std::span(v));
            const double want = t.rank() == 0 ? 1.0 : mine[t.rank()];
            if (v[0] != want) fail(t.rank(), "after reduce_min to rank 0 of {5, 9, 1} this rank holds ", v[0], ", expected ", want);
        });
    });

    go("gather_root_block_first", [](const auto& run) {
        run(3, [](auto& t) {
            const int mine = 100 * t.rank() + 7;
            std::array<int, 3> all{-1, -1, -1};
            t.gather(1, one(mine), std::as_writable_bytes(std::span(all)));
            if (t.rank() == 1 && all != std::array<int, 3>{7, 107, 207})
                fail(t.rank(), "gather to rank 1 gave {", all[0], ", ", all[1], ", ", all[2], "}, expected {7, 107, 207}");
        });
    });

    go("alltoall_self_block_skipped", [](const auto& run) {
        run(3, [](auto& t) {
            std::array<int, 3> out{}, in{-1, -1, -1};
            for (int r = 0; r < 3; ++r) out[static_cast<std::size_t>(r)] = 10 * t.rank() + r;
            t.alltoall(std::as_bytes(std::span(out)), std::as_writable_bytes(std::span(in)));
            for (int r = 0; r < 3; ++r)
                if (in[static_cast<std::size_t>(r)] != 10 * r + t.rank())
                    fail(t.rank(), "alltoall: block ", r, " holds ", in[static_cast<std::size_t>(r)], ", expected ", 10 * r + t.rank());
        });
    });

    go("compute_busy_below_1ms_skipped", [](const auto& run) {
        run(1, [](auto& t) {
            const auto t0 = clock::now();
            for (int i = 0; i < 20; ++i) t.compute(comet::work::busy(0.0008));
            const double took = seconds_since(t0);
            if (took < 0.012) fail(t.rank(), "20 x compute(busy 0.8 ms) took ", took, " s");
        });
    });

    go("now_epoch_lazy_per_rank", [](const auto& run) {
        run(2, [](auto& t) {
            if (!t.clock_is_global()) return;
            if (t.rank() == 0) {
                (void)t.now();
                int token = 0;
                (void)t.recv(1, 1, one(token));
                const double ta = t.now();
                t.send(1, 2, std::as_bytes(std::span<const double>(&ta, 1)));
            } else {
                sleep_ms(400);
                (void)t.now();
                int token = 1;
                t.send(0, 1, one(token));
                double ta = 0;
                (void)t.recv(0, 2, std::as_writable_bytes(std::span<double>(&ta, 1)));
                const double tb = t.now();  // read after rank 0 read ta
                if (tb < ta - 0.1) fail(t.rank(), "clock_is_global() but this rank read ", tb, " after rank 0 read ", ta);
            }
        });
    });

    go("abort_message_dropped", [](const auto& run) {
        const std::string message = "witness abort 9x7";
        try {
            run(2, [&](auto& t) {
                if (t.rank() == 0) t.abort(message);
            });
        } catch (const comet::aborted& e) {
            const std::string what = e.what();
            if (what.find(message) == std::string::npos || what.find("rank 0") == std::string::npos)
                throw failure("abort(\"" + message + "\") on rank 0 raised aborted saying \"" + what + "\"");
            return;
        }
        throw failure("abort on rank 0 raised no comet::aborted out of the run");
    });

    go("ibarrier_done_on_count_minus_one", [](const auto& run) {
        std::atomic<bool> last_in{false};
        run(3, [&](auto& t) {
            if (t.rank() == 2) {
                sleep_ms(1000);
                last_in = true;
                auto r = t.ibarrier();
                (void)t.wait(r);
            } else {
                auto r = t.ibarrier();
                (void)t.wait(r);
                if (!last_in) fail(t.rank(), "the ibarrier completed before rank 2 entered it");
            }
        });
    });

    go("ibroadcast_segmented_tail_lost", [](const auto& run) {
        run(3, [](auto& t) {
            const std::size_t n = 100001;
            std::vector<std::byte> data = t.rank() == 1 ? pattern(n, 10) : std::vector<std::byte>(n);
            auto r = t.ibroadcast(1, data);
            (void)t.wait(r);
            expect_bytes(t, data, pattern(n, 10), "ibroadcast of 100001 bytes from rank 1");
        });
    });

    go("iallreduce_sum_performer_accumulates_in_own", [](const auto& run) {
        std::array<double, 3> results{};
        run(3, [&](auto& t) {
            const double mine[] = {1e17, 1.0, -1e17};  // an inexact sum: its bits depend on the order
            std::vector<double> v{mine[t.rank()]};
            int token = 1;
            if (t.rank() < 2) {
                auto r = t.iallreduce_sum(std::span(v));
                t.send(2, 9, one(token));  // rank 2 joins last
                (void)t.wait(r);
            } else {
                (void)t.recv(0, 9, one(token));
                (void)t.recv(1, 9, one(token));
                auto r = t.iallreduce_sum(std::span(v));
                (void)t.wait(r);
            }
            results[static_cast<std::size_t>(t.rank())] = v[0];
            t.barrier();
            if (std::memcmp(&results[static_cast<std::size_t>(t.rank())], &results[0], sizeof(double)) != 0)
                fail(t.rank(), "iallreduce_sum of {1e17, 1, -1e17} left ", results[static_cast<std::size_t>(t.rank())], " here and ", results[0],
                     " on rank 0");
        });
    });

    go("progress_reaps_completed_receives", [](const auto& run) {
        run(2, [](auto& t) {
            if (t.rank() == 1) {
                int v = -1, token = 0;
                auto r = t.irecv(0, 5, one(v));
                (void)t.recv(0, 6, one(token));  // sent after: r's message is in
                t.progress();
                const std::optional<comet::status> s = t.test(r);
                if (!s) fail(t.rank(), "the receive is pending though its message was sent before the token");
                expect_status(t, *s, {0, 5, sizeof(int)}, "test after progress() of a receive whose message arrived");
            } else {
                int v = 55, token = 1;
                t.send(1, 5, one(v));
                t.send(1, 6, one(token));
            }
        });
    });
}

// ---- the entry point of the driver --------------------------------------------------------------

/// Runs the witness named `name` (a mutant's), or every witness of the model for a base row.
template <bool Full, class Runner, class Starting>
void run_witnesses(const Runner& runner, const Starting& starting, std::string_view name) {
    start_watchdog();
    const bool base = name == "correct_core" || name == "correct_full";
    bool ran = false;
    auto go = [&](std::string_view witness, auto body) {
        if (!base && witness != name) return;
        starting(witness);
        arm(witness);
        body(runner);
        disarm();
        ran = true;
    };
    core_witnesses(go);
    if constexpr (Full) full_witnesses(go);
    if (!ran) throw failure("no witness named " + std::string(name));
}

}  // namespace held_out_9::witness
