// held_out_11/witnesses_11.hpp — one short scenario per mutant of defects.hpp, aimed at its
// defect: it fails on that mutant and passes on both correct transports (`endpoint` and
// `full_endpoint`). The proof that each mutant is really broken, run by
// `held_out_11_conformance --witnesses`: a mutant runs its own witness; a correct transport runs
// every witness of its model (the full transport also every core one).
//
// Written against the rules of core/concepts.hpp and comet/ops/, not against the conformance
// suite. Where the defect is a lost message or a call that never returns, the witness waits a
// bounded time (a poll with a deadline, or the call on a thread of its own) and fails, so that no
// witness depends on the time limit of the driver. Delays are hundreds of milliseconds, enough
// on a loaded two-core machine: the correct transports never depend on them to pass, only the
// mutants' symptoms are timed.
#pragma once

#include "mailbox.hpp"

#include <comet/algorithms/point_to_point.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

namespace held_out_11::witness {

/// A witness saw the defect.
class witness_failure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline void expect(bool ok, const std::string& what) {
    if (!ok) throw witness_failure(what);
}

using clock = std::chrono::steady_clock;

inline void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

inline std::vector<std::byte> filled(std::size_t n, unsigned char v) { return std::vector<std::byte>(n, std::byte{v}); }

inline bool all_are(const std::vector<std::byte>& b, std::size_t from, std::size_t to, unsigned char v) {
    for (std::size_t i = from; i < to; ++i)
        if (b[i] != std::byte{v}) return false;
    return true;
}

inline std::string show(const comet::status& s) {
    return "{source " + std::to_string(s.source) + ", tag " + std::to_string(s.tag) + ", size " + std::to_string(s.size) + "}";
}

/// Polls `t.test(r)` for at most `seconds`.
template <class T>
std::optional<comet::status> poll(T& t, typename T::request& r, double seconds) {
    const auto until = clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds));
    for (unsigned polls = 1;; ++polls) {
        if (auto s = t.test(r)) return s;
        if (clock::now() > until) return std::nullopt;
        if (polls % 64 == 0) std::this_thread::yield();
    }
}

/// Polls `t.iprobe(source, tag)` for at most `seconds`.
template <class T>
std::optional<comet::status> probe_for(T& t, int source, int tag, double seconds) {
    const auto until = clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds));
    for (unsigned polls = 1;; ++polls) {
        if (auto s = t.iprobe(source, tag)) return s;
        if (clock::now() > until) return std::nullopt;
        if (polls % 64 == 0) std::this_thread::yield();
    }
}

/// Runs `fn` on a thread of its own and fails when it has not returned within `seconds`; the
/// thread is then left behind (the runner stops the world, so its next call raises). `fn` owns
/// everything it touches besides the endpoint. An exception of `fn` is rethrown here.
template <class F>
void within(double seconds, const std::string& what, F fn) {
    struct state {
        std::mutex m;
        std::condition_variable cv;
        bool done = false;
        std::exception_ptr error;
    };
    auto s = std::make_shared<state>();
    std::thread([s, fn = std::move(fn)]() mutable {
        std::exception_ptr e;
        try {
            fn();
        } catch (...) {
            e = std::current_exception();
        }
        std::lock_guard l(s->m);
        s->done = true;
        s->error = e;
        s->cv.notify_all();
    }).detach();
    std::unique_lock l(s->m);
    if (!s->cv.wait_for(l, std::chrono::duration<double>(seconds), [&] { return s->done; }))
        throw witness_failure(what + ": did not return within " + std::to_string(seconds) + " s");
    if (s->error) std::rethrow_exception(s->error);
}

template <class T>
using request_of = typename std::remove_cvref_t<T>::request;

namespace a = comet::algorithms;

// ---- core -----------------------------------------------------------------------------------

template <class R>
void tag_bucket_mod_4096_aliases(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            a::send(t, 1, 4101, comet::const_bytes(filled(1, 0xA)));
            a::send(t, 1, 5, comet::const_bytes(filled(1, 0xB)));
        } else {
            std::vector<std::byte> b(1), c(1);
            const comet::status s = a::recv(t, 0, 5, comet::mutable_bytes(b));
            expect(s.tag == 5 && b[0] == std::byte{0xB}, "recv(tag 5) took the message of tag 4101: " + show(s));
            a::recv(t, 0, 4101, comet::mutable_bytes(c));
            expect(c[0] == std::byte{0xA}, "recv(tag 4101) got the wrong message");
        }
    });
}

template <class R>
void max_tag_rejected(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            a::send(t, 1, comet::max_tag, comet::const_bytes(filled(3, 1)));
        } else {
            std::vector<std::byte> b(3);
            const comet::status s = a::recv(t, 0, comet::max_tag, comet::mutable_bytes(b));
            expect(s.tag == comet::max_tag && s.size == 3, "a message with tag max_tag: " + show(s));
        }
    });
}

template <class R>
void any_source_skips_loopback(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() != 1) return;
        std::vector<std::byte> out = filled(4, 7), in(4);
        request_of<decltype(t)> s = t.isend(1, 3, comet::const_bytes(out));
        request_of<decltype(t)> r = t.irecv(comet::any_source, 3, comet::mutable_bytes(in));
        const auto got = poll(t, r, 1.0);
        expect(got.has_value(), "an any_source receive did not take a message this rank sent itself within 1 s");
        expect(got->source == 1 && got->size == 4, "any_source receive of a message to oneself: " + show(*got));
        a::wait(t, s);
    });
}

template <class R>
void large_queue_overtaken_by_eager(const R& run) {
    run(2, [](auto& t) {
        constexpr std::size_t big = 100000;
        if (t.rank() == 0) {
            std::vector<std::byte> large = filled(big, 1), small = filled(10, 2), go(1);
            request_of<decltype(t)> s1 = t.isend(1, 1, comet::const_bytes(large));
            request_of<decltype(t)> s2 = t.isend(1, 1, comet::const_bytes(small));
            a::send(t, 1, 2, comet::const_bytes(go));
            a::wait(t, s1);
            a::wait(t, s2);
        } else {
            std::vector<std::byte> go(1), b(big);
            a::recv(t, 0, 2, comet::mutable_bytes(go));
            const comet::status first = a::recv(t, 0, 1, comet::mutable_bytes(b));
            expect(first.size == big, "the first receive of tag 1 got the later, small message: " + show(first));
            const comet::status second = a::recv(t, 0, 1, comet::mutable_bytes(b));
            expect(second.size == 10, "the second receive: " + show(second));
        }
    });
}

/// Rank 1 posts `first` and `second` receives from rank 0, then lets rank 0 send two messages
/// of tag 7 (bytes 1, then 2); the first posted receive must take byte 1.
template <class R>
void posted_order(const R& run, int first_tag, int second_tag) {
    run(2, [=](auto& t) {
        if (t.rank() == 1) {
            std::vector<std::byte> x(1), y(1), go(1);
            request_of<decltype(t)> r1 = t.irecv(0, first_tag, comet::mutable_bytes(x));
            request_of<decltype(t)> r2 = t.irecv(0, second_tag, comet::mutable_bytes(y));
            a::send(t, 0, 9, comet::const_bytes(go));
            a::wait(t, r1);
            a::wait(t, r2);
            expect(x[0] == std::byte{1} && y[0] == std::byte{2},
                   "the receive posted first got message " + std::to_string(static_cast<int>(x[0])) + ", the second " +
                       std::to_string(static_cast<int>(y[0])));
        } else {
            std::vector<std::byte> go(1), one = filled(1, 1), two = filled(1, 2);
            a::recv(t, 1, 9, comet::mutable_bytes(go));
            a::send(t, 1, 7, comet::const_bytes(one));
            a::send(t, 1, 7, comet::const_bytes(two));
        }
    });
}

template <class R>
void posted_receives_matched_lifo(const R& run) {
    posted_order(run, 7, 7);
}

template <class R>
void posted_wildcard_tag_after_exact(const R& run) {
    posted_order(run, comet::any_tag, 7);
}

template <class R>
void eager_truncation_silent(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            a::send(t, 1, 4, comet::const_bytes(filled(100, 3)));
        } else {
            std::vector<std::byte> b(50);
            request_of<decltype(t)> r = t.irecv(0, 4, comet::mutable_bytes(b));
            bool raised = false;
            try {
                a::wait(t, r);
            } catch (const comet::truncation_error&) {
                raised = true;
            }
            expect(raised, "a 100-byte message into a 50-byte receive completed without truncation_error");
        }
    });
}

template <class R>
void truncation_raised_by_irecv(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            a::send(t, 1, 4, comet::const_bytes(filled(100, 3)));
            a::send(t, 1, 5, comet::const_bytes(filled(1, 0)));
        } else {
            std::vector<std::byte> go(1), b(50);
            a::recv(t, 0, 5, comet::mutable_bytes(go));  // the 100-byte message is there by now
            request_of<decltype(t)> r;
            try {
                r = t.irecv(0, 4, comet::mutable_bytes(b));
            } catch (const comet::truncation_error& e) {
                throw witness_failure(std::string("irecv raised the truncation itself, not the test completing it: ") + e.what());
            }
            bool raised = false;
            try {
                a::wait(t, r);
            } catch (const comet::truncation_error&) {
                raised = true;
            }
            expect(raised, "the test completing a truncated receive did not raise truncation_error");
        }
    });
}

template <class R>
void unexpected_status_size_is_room(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            a::send(t, 1, 4, comet::const_bytes(filled(10, 3)));
            a::send(t, 1, 5, comet::const_bytes(filled(1, 0)));
        } else {
            std::vector<std::byte> go(1), b(100);
            a::recv(t, 0, 5, comet::mutable_bytes(go));
            const comet::status s = a::recv(t, 0, 4, comet::mutable_bytes(b));
            expect(s.size == 10, "a 10-byte message received into 100 bytes reports " + show(s));
        }
    });
}

template <class R>
void short_recv_clears_tail(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            a::send(t, 1, 4, comet::const_bytes(filled(10, 3)));
        } else {
            std::vector<std::byte> b = filled(100, 0xAA);
            const comet::status s = a::recv(t, 0, 4, comet::mutable_bytes(b));
            expect(s.size == 10 && all_are(b, 0, 10, 3), "the prefix of a short message: " + show(s));
            expect(all_are(b, 10, 100, 0xAA), "a 10-byte message changed the receive buffer beyond its 10 bytes");
        }
    });
}

template <class R>
void zero_length_message_lost(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            a::send(t, 1, 4, comet::const_bytes{});
        } else {
            request_of<decltype(t)> r = t.irecv(0, 4, comet::mutable_bytes{});
            const auto s = poll(t, r, 1.0);
            expect(s.has_value(), "a zero-length message never arrived (1 s)");
            expect(s->source == 0 && s->tag == 4 && s->size == 0, "zero-length message: " + show(*s));
        }
    });
}

template <class R>
void test_blocks_1s_on_pending(const R& run) {
    run(1, [](auto& t) {
        std::vector<std::byte> b(4);
        request_of<decltype(t)> r = t.irecv(0, 4, comet::mutable_bytes(b));
        const auto t0 = clock::now();
        const auto s = t.test(r);
        const double took = std::chrono::duration<double>(clock::now() - t0).count();
        expect(!s.has_value(), "test completed a receive nothing matches");
        expect(took < 0.5, "test on a pending receive took " + std::to_string(took) + " s");
    });
}

template <class R>
void send_status_source_is_self(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            std::vector<std::byte> out = filled(10, 1);
            request_of<decltype(t)> r = t.isend(1, 6, comet::const_bytes(out));
            const comet::status s = a::wait(t, r);
            expect(s.source == 1 && s.tag == 6 && s.size == 10, "a completed send to rank 1, tag 6, 10 bytes reports " + show(s));
        } else {
            std::vector<std::byte> b(10);
            a::recv(t, 0, 6, comet::mutable_bytes(b));
        }
    });
}

template <class R>
void completed_request_repeats_status(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            a::send(t, 1, 6, comet::const_bytes(filled(10, 1)));
        } else {
            std::vector<std::byte> b(10);
            request_of<decltype(t)> r = t.irecv(0, 6, comet::mutable_bytes(b));
            const comet::status first = a::wait(t, r);
            expect(first.source == 0 && first.size == 10, "the receive: " + show(first));
            const auto again = t.test(r);
            expect(again.has_value() && *again == comet::status{},
                   "test on a completed request: " + (again ? show(*again) : std::string("nothing")));
        }
    });
}

template <class R>
void any_source_loopback_not_erased(const R& run) {
    run(1, [](auto& t) {
        std::vector<std::byte> out = filled(4, 7), in(4);
        request_of<decltype(t)> s = t.isend(0, 3, comet::const_bytes(out));
        a::wait(t, s);
        a::recv(t, comet::any_source, 3, comet::mutable_bytes(in));
        const auto left = t.iprobe(comet::any_source, comet::any_tag);
        expect(!left.has_value(), "after the only message to oneself was received, iprobe still sees " + (left ? show(*left) : ""));
    });
}

template <class R>
void iprobe_any_source_stashes(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            a::send(t, 1, 3, comet::const_bytes(filled(4, 7)));
        } else {
            const auto seen = probe_for(t, comet::any_source, comet::any_tag, 2.0);
            expect(seen.has_value(), "iprobe(any_source, any_tag) never saw the message");
            std::vector<std::byte> in(4);
            request_of<decltype(t)> r = t.irecv(comet::any_source, comet::any_tag, comet::mutable_bytes(in));
            const auto got = poll(t, r, 1.0);
            expect(got.has_value(), "a message iprobe had seen was not received by irecv(any_source, any_tag) within 1 s");
        }
    });
}

template <class R>
void iprobe_returns_latest(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            a::send(t, 1, 3, comet::const_bytes(filled(10, 1)));
            a::send(t, 1, 3, comet::const_bytes(filled(20, 2)));
            a::send(t, 1, 4, comet::const_bytes(filled(1, 0)));
        } else {
            std::vector<std::byte> go(1), b(20);
            a::recv(t, 0, 4, comet::mutable_bytes(go));
            const auto s = t.iprobe(0, 3);
            expect(s.has_value() && s->size == 10, "iprobe with two messages of tag 3 queued: " + (s ? show(*s) : std::string("nothing")));
            a::recv(t, 0, 3, comet::mutable_bytes(b));
            a::recv(t, 0, 3, comet::mutable_bytes(b));
        }
    });
}

template <class R>
void iprobe_any_tag_literal(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            a::send(t, 1, 3, comet::const_bytes(filled(5, 1)));
        } else {
            const auto s = probe_for(t, 0, comet::any_tag, 1.0);
            expect(s.has_value(), "iprobe(0, any_tag) did not see a message of tag 3 within 1 s");
            expect(s->source == 0 && s->tag == 3 && s->size == 5, "iprobe(0, any_tag): " + show(*s));
            std::vector<std::byte> b(5);
            a::recv(t, 0, 3, comet::mutable_bytes(b));
        }
    });
}

template <class R>
void now_in_milliseconds(const R& run) {
    run(1, [](auto& t) {
        const double t0 = t.now();
        sleep_s(0.2);
        const double dt = t.now() - t0;
        expect(dt > 0.15 && dt < 5.0, "now() advanced by " + std::to_string(dt) + " over a 0.2 s sleep");
    });
}

template <class R>
void irecv_tag_unchecked(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() != 0) return;
        std::vector<std::byte> b(4);
        bool raised = false;
        try {
            request_of<decltype(t)> r = t.irecv(1, -5, comet::mutable_bytes(b));
        } catch (const comet::invalid_argument&) {
            raised = true;
        }
        expect(raised, "irecv with tag -5 did not raise invalid_argument");
    });
}

template <class R>
void dest_equal_size_wraps(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() != 0) return;
        std::vector<std::byte> out = filled(4, 1);
        bool raised = false;
        try {
            request_of<decltype(t)> r = t.isend(t.size(), 0, comet::const_bytes(out));
            a::wait(t, r);
        } catch (const comet::invalid_argument&) {
            raised = true;
        }
        expect(raised, "isend to rank size() did not raise invalid_argument");
    });
}

template <class R>
void iprobe_does_not_pull_rendezvous(const R& run) {
    run(2, [](auto& t) {
        constexpr std::size_t big = 100000;
        if (t.rank() == 0) {
            std::vector<std::byte> out = filled(big, 5);
            request_of<decltype(t)> s = t.isend(1, 5, comet::const_bytes(out));
            a::wait(t, s);
        } else {
            const auto seen = probe_for(t, 0, 5, 2.0);
            expect(seen.has_value() && seen->size == big, "rank 1 polling iprobe(0, 5) for 2 s never saw rank 0's large message");
            std::vector<std::byte> b(big);
            a::recv(t, 0, 5, comet::mutable_bytes(b));
        }
    });
}

template <class R>
void isend_large_zero_copy_completes_early(const R& run) {
    run(2, [](auto& t) {
        constexpr std::size_t big = 100000;
        if (t.rank() == 0) {
            std::vector<std::byte> out = filled(big, 1), go(1), done(1);
            request_of<decltype(t)> s = t.isend(1, 5, comet::const_bytes(out));
            a::wait(t, s);
            std::fill(out.begin(), out.end(), std::byte{2});  // the buffer is the caller's again
            a::send(t, 1, 6, comet::const_bytes(go));
            a::recv(t, 1, 7, comet::mutable_bytes(done));
        } else {
            std::vector<std::byte> go(1), b(big);
            a::recv(t, 0, 6, comet::mutable_bytes(go));
            a::recv(t, 0, 5, comet::mutable_bytes(b));
            const bool ok = all_are(b, 0, big, 1);
            a::send(t, 0, 7, comet::const_bytes(go));
            expect(ok, "the message carries bytes the sender wrote after its isend had completed");
        }
    });
}

// ---- full -----------------------------------------------------------------------------------

template <class R>
void send_native_tag_14_bits(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            t.send(1, comet::max_tag, comet::const_bytes(filled(3, 1)));
        } else {
            std::vector<std::byte> b(3);
            request_of<decltype(t)> r = t.irecv(0, comet::max_tag, comet::mutable_bytes(b));
            const auto s = poll(t, r, 1.0);
            expect(s.has_value(), "a native send with tag max_tag was not received with tag max_tag within 1 s");
        }
    });
}

template <class R>
void recv_native_status_requested_tag(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            t.send(1, 7, comet::const_bytes(filled(3, 1)));
        } else {
            std::vector<std::byte> b(10);
            const comet::status s = t.recv(0, comet::any_tag, comet::mutable_bytes(b));
            expect(s.source == 0 && s.tag == 7 && s.size == 3, "recv(0, any_tag) of a 3-byte message with tag 7: " + show(s));
        }
    });
}

template <class R>
void wait_default_returns_last_status(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            t.send(1, 7, comet::const_bytes(filled(3, 1)));
        } else {
            std::vector<std::byte> b(3);
            request_of<decltype(t)> r = t.irecv(0, 7, comet::mutable_bytes(b));
            t.wait(r);
            request_of<decltype(t)> empty;
            const comet::status s = t.wait(empty);
            expect(s == comet::status{}, "wait on a default-constructed request: " + show(s));
        }
    });
}

template <class R>
void wait_all_stops_at_empty_request(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 1) {
            std::vector<std::byte> b(1), go(1);
            std::array<request_of<decltype(t)>, 2> rs;
            rs[1] = t.irecv(0, 7, comet::mutable_bytes(b));
            t.send(0, 9, comet::const_bytes(go));
            t.wait_all(std::span(rs));
            expect(b[0] == std::byte{5}, "wait_all returned before the receive after a default request completed");
            const auto s = t.test(rs[1]);
            expect(s.has_value() && *s == comet::status{}, "the receive was not completed by wait_all: test gives " + (s ? show(*s) : std::string("nothing")));
        } else {
            std::vector<std::byte> go(1);
            t.recv(1, 9, comet::mutable_bytes(go));
            sleep_s(0.1);
            t.send(1, 7, comet::const_bytes(filled(1, 5)));
        }
    });
}

template <class R>
void bsend_pool_64k_rendezvous(const R& run) {
    run(2, [](auto& t) {
        constexpr std::size_t big = 200000;
        if (t.rank() == 0) {
            std::vector<std::byte> out = filled(big, 1), done(1);
            t.bsend(1, 4, comet::const_bytes(out));
            t.send(1, 5, comet::const_bytes(done));
            t.recv(1, 6, comet::mutable_bytes(done));
        } else {
            const auto s = probe_for(t, 0, 5, 3.0);
            expect(s.has_value(), "rank 0's bsend of 200000 bytes did not return before its receive was posted (3 s)");
            std::vector<std::byte> b(big), one(1);
            t.recv(0, 4, comet::mutable_bytes(b));
            t.recv(0, 5, comet::mutable_bytes(one));
            t.send(0, 6, comet::const_bytes(one));
        }
    });
}

template <class R>
void issend_completes_on_arrival(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            std::vector<std::byte> out = filled(4, 1), go(1);
            request_of<decltype(t)> r = t.issend(1, 4, comet::const_bytes(out));
            const auto early = poll(t, r, 0.3);
            t.send(1, 5, comet::const_bytes(go));
            if (!early) t.wait(r);
            expect(!early.has_value(), "issend completed before rank 1 had posted a matching receive");
        } else {
            std::vector<std::byte> go(1), b(4);
            t.recv(0, 5, comet::mutable_bytes(go));
            t.recv(0, 4, comet::mutable_bytes(b));
        }
    });
}

template <class R>
void rsend_ignores_any_source_receive(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 1) {
            std::vector<std::byte> b(4), go(1);
            request_of<decltype(t)> r = t.irecv(comet::any_source, 4, comet::mutable_bytes(b));
            t.send(0, 1, comet::const_bytes(go));
            const auto s = poll(t, r, 2.0);
            expect(s.has_value(), "a ready send to a posted any_source receive never arrived (2 s)");
            expect(s->source == 0 && s->size == 4 && all_are(b, 0, 4, 9), "ready send: " + show(*s));
        } else {
            std::vector<std::byte> go(1);
            t.recv(1, 1, comet::mutable_bytes(go));
            t.rsend(1, 4, comet::const_bytes(filled(4, 9)));
        }
    });
}

template <class R>
void sendrecv_large_sends_first(const R& run) {
    run(2, [](auto& t) {
        constexpr std::size_t big = 200000;
        const int peer = 1 - t.rank();
        auto out = std::make_shared<std::vector<std::byte>>(filled(big, static_cast<unsigned char>(t.rank() + 1)));
        auto in = std::make_shared<std::vector<std::byte>>(big);
        auto got = std::make_shared<comet::status>();
        within(5.0, "two ranks' matching sendrecv of 200000 bytes", [&t, peer, out, in, got] {
            *got = t.sendrecv(peer, 3, comet::const_bytes(*out), peer, 3, comet::mutable_bytes(*in));
        });
        expect(got->source == peer && got->size == big && all_are(*in, 0, big, static_cast<unsigned char>(peer + 1)), "sendrecv: " + show(*got));
    });
}

template <class R>
void barrier_last_rank_skips_wait(const R& run) {
    std::atomic<int> entered{0};
    run(3, [&](auto& t) {
        if (t.rank() == 0) sleep_s(0.3);
        entered.fetch_add(1);
        t.barrier();
        expect(entered.load() == 3, "rank " + std::to_string(t.rank()) + " left the barrier before rank 0 had entered it");
    });
}

template <class R>
void ibarrier_released_by_rank_0(const R& run) {
    std::atomic<int> entered{0};
    run(3, [&](auto& t) {
        if (t.rank() == 2) sleep_s(0.3);
        entered.fetch_add(1);
        request_of<decltype(t)> r = t.ibarrier();
        t.wait(r);
        expect(entered.load() == 3, "rank " + std::to_string(t.rank()) + "'s ibarrier completed before rank 2 had entered it");
    });
}

template <class R>
void broadcast_segments_floor(const R& run) {
    run(3, [](auto& t) {
        constexpr std::size_t n = 100000;
        std::vector<std::byte> b(n);
        if (t.rank() == 1)
            for (std::size_t i = 0; i < n; ++i) b[i] = std::byte(static_cast<unsigned char>(i % 251 + 1));
        t.broadcast(1, comet::mutable_bytes(b));
        for (std::size_t i = 0; i < n; ++i)
            if (b[i] != std::byte(static_cast<unsigned char>(i % 251 + 1)))
                throw witness_failure("broadcast of 100000 bytes from rank 1: rank " + std::to_string(t.rank()) + " differs at byte " +
                                      std::to_string(i));
    });
}

template <class R>
void ibroadcast_root_ignored(const R& run) {
    run(3, [](auto& t) {
        std::vector<std::byte> b = filled(16, t.rank() == 2 ? 7 : 0);
        request_of<decltype(t)> r = t.ibroadcast(2, comet::mutable_bytes(b));
        t.wait(r);
        expect(all_are(b, 0, 16, 7), "ibroadcast from rank 2: rank " + std::to_string(t.rank()) + " does not hold the root's bytes");
    });
}

template <class R>
void allreduce_sum_rotated_order(const R& run) {
    std::array<double, 3> results{};
    run(3, [&](auto& t) {
        const double mine[3] = {1e16, 1.0, -1e16};
        std::vector<double> v{mine[t.rank()]};
        t.allreduce_sum(std::span<double>(v));
        results[static_cast<std::size_t>(t.rank())] = v[0];
        t.barrier();
        for (double x : results)
            expect(std::memcmp(&x, &results[0], sizeof x) == 0, "allreduce_sum of {1e16, 1, -1e16} gave different bits on different ranks: " +
                                                                      std::to_string(results[0]) + ", " + std::to_string(results[1]) + ", " +
                                                                      std::to_string(results[2]));
    });
}

template <class R>
void allreduce_max_starts_at_zero(const R& run) {
    run(3, [](auto& t) {
        std::vector<double> v{-3.0 - t.rank(), -10.0};
        t.allreduce_max(std::span<double>(v));
        expect(v[0] == -3.0 && v[1] == -10.0, "allreduce_max of negative values gave " + std::to_string(v[0]) + ", " + std::to_string(v[1]));
    });
}

template <class R>
void allreduce_min_starts_at_dbl_min(const R& run) {
    run(3, [](auto& t) {
        std::vector<double> v{3.0 + t.rank(), 10.0};
        t.allreduce_min(std::span<double>(v));
        expect(v[0] == 3.0 && v[1] == 10.0, "allreduce_min of positive values gave " + std::to_string(v[0]) + ", " + std::to_string(v[1]));
    });
}

template <class R>
void reduce_sum_result_everywhere(const R& run) {
    run(3, [](auto& t) {
        std::vector<double> v{1.0 + t.rank()};
        t.reduce_sum(0, std::span<double>(v));
        const double want = t.rank() == 0 ? 6.0 : 1.0 + t.rank();
        expect(v[0] == want, "reduce_sum to rank 0: rank " + std::to_string(t.rank()) + " holds " + std::to_string(v[0]));
    });
}

template <class R>
void reduce_max_result_at_rank_0(const R& run) {
    run(3, [](auto& t) {
        std::vector<double> v{10.0 - t.rank()};
        t.reduce_max(2, std::span<double>(v));
        const double want = t.rank() == 2 ? 10.0 : 10.0 - t.rank();
        expect(v[0] == want, "reduce_max to rank 2: rank " + std::to_string(t.rank()) + " holds " + std::to_string(v[0]));
    });
}

template <class R>
void reduce_min_group_of_one_identity(const R& run) {
    run(1, [](auto& t) {
        std::vector<double> v{4.0, -2.0};
        t.reduce_min(0, std::span<double>(v));
        expect(v[0] == 4.0 && v[1] == -2.0, "reduce_min in a group of one gave " + std::to_string(v[0]) + ", " + std::to_string(v[1]));
    });
}

template <class R>
void gather_root_block_first(const R& run) {
    run(3, [](auto& t) {
        std::vector<std::byte> mine = filled(4, static_cast<unsigned char>(t.rank() + 1)), all(12);
        t.gather(1, comet::const_bytes(mine), comet::mutable_bytes(all));
        if (t.rank() == 1)
            for (int r = 0; r < 3; ++r)
                expect(all_are(all, 4 * r, 4 * r + 4, static_cast<unsigned char>(r + 1)),
                       "gather to rank 1: block " + std::to_string(r) + " is not rank " + std::to_string(r) + "'s");
    });
}

template <class R>
void alltoall_own_block_skipped(const R& run) {
    run(3, [](auto& t) {
        std::vector<std::byte> out(6), in(6);
        for (int r = 0; r < 3; ++r) out[2 * r] = out[2 * r + 1] = std::byte(static_cast<unsigned char>(10 * t.rank() + r + 1));
        t.alltoall(comet::const_bytes(out), comet::mutable_bytes(in));
        for (int r = 0; r < 3; ++r)
            expect(in[2 * r] == std::byte(static_cast<unsigned char>(10 * r + t.rank() + 1)) && in[2 * r + 1] == in[2 * r],
                   "alltoall: rank " + std::to_string(t.rank()) + "'s block " + std::to_string(r) + " is wrong");
    });
}

template <class R>
void iallreduce_wait_skips_copy_out(const R& run) {
    run(3, [](auto& t) {
        std::vector<double> v{1.0 + t.rank(), 2.0};
        request_of<decltype(t)> r = t.iallreduce_sum(std::span<double>(v));
        t.wait(r);
        expect(v[0] == 6.0 && v[1] == 6.0, "iallreduce_sum completed by wait: rank " + std::to_string(t.rank()) + " holds " +
                                               std::to_string(v[0]) + ", " + std::to_string(v[1]));
    });
}

template <class R>
void progress_reaps_completions(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() == 0) {
            t.send(1, 7, comet::const_bytes(filled(10, 1)));
            t.send(1, 8, comet::const_bytes(filled(1, 0)));
        } else {
            std::vector<std::byte> go(1), b(10);
            t.recv(0, 8, comet::mutable_bytes(go));
            request_of<decltype(t)> r = t.irecv(0, 7, comet::mutable_bytes(b));
            t.progress();
            const comet::status s = t.wait(r);
            expect(s.source == 0 && s.tag == 7 && s.size == 10, "a receive completed after progress() reports " + show(s));
        }
    });
}

template <class R>
void compute_busy_capped_100ms(const R& run) {
    run(1, [](auto& t) {
        const auto t0 = clock::now();
        t.compute(comet::work::busy(0.3));
        const double took = std::chrono::duration<double>(clock::now() - t0).count();
        expect(took >= 0.28, "compute(busy 0.3 s) returned after " + std::to_string(took) + " s");
    });
}

template <class R>
void clock_epoch_at_first_now(const R& run) {
    std::array<double, 2> readings{};
    run(2, [&](auto& t) {
        if (t.rank() == 0) {
            (void)t.now();
            sleep_s(0.3);
        }
        t.barrier();
        readings[static_cast<std::size_t>(t.rank())] = t.now();
        t.barrier();
        if (t.clock_is_global())
            expect(std::abs(readings[0] - readings[1]) < 0.1, "clock_is_global() is true, but readings taken together differ: " +
                                                                  std::to_string(readings[0]) + " and " + std::to_string(readings[1]));
    });
}

template <class R>
void abort_message_truncated_32(const R& run) {
    run(2, [](auto& t) {
        if (t.rank() != 1) return;
        const std::string message = "witness: the reason is longer than thirty-two characters, ending here";
        bool raised = false;
        try {
            t.abort(message);
        } catch (const comet::aborted& e) {
            raised = true;
            const std::string what = e.what();
            expect(what.find(message) != std::string::npos && what.find('1') != std::string::npos,
                   "abort reported \"" + what + "\"");
        }
        expect(raised, "abort did not raise comet::aborted");
    });
}

// ---- the table --------------------------------------------------------------------------------

template <class Runner>
struct entry {
    std::string_view name;
    bool full;
    void (*run)(const Runner&);
};

template <bool Full, class Runner>
std::vector<entry<Runner>> entries() {
    std::vector<entry<Runner>> e = {
        {"tag_bucket_mod_4096_aliases", false, &tag_bucket_mod_4096_aliases<Runner>},
        {"max_tag_rejected", false, &max_tag_rejected<Runner>},
        {"any_source_skips_loopback", false, &any_source_skips_loopback<Runner>},
        {"large_queue_overtaken_by_eager", false, &large_queue_overtaken_by_eager<Runner>},
        {"posted_receives_matched_lifo", false, &posted_receives_matched_lifo<Runner>},
        {"posted_wildcard_tag_after_exact", false, &posted_wildcard_tag_after_exact<Runner>},
        {"eager_truncation_silent", false, &eager_truncation_silent<Runner>},
        {"truncation_raised_by_irecv", false, &truncation_raised_by_irecv<Runner>},
        {"unexpected_status_size_is_room", false, &unexpected_status_size_is_room<Runner>},
        {"short_recv_clears_tail", false, &short_recv_clears_tail<Runner>},
        {"zero_length_message_lost", false, &zero_length_message_lost<Runner>},
        {"test_blocks_1s_on_pending", false, &test_blocks_1s_on_pending<Runner>},
        {"send_status_source_is_self", false, &send_status_source_is_self<Runner>},
        {"completed_request_repeats_status", false, &completed_request_repeats_status<Runner>},
        {"any_source_loopback_not_erased", false, &any_source_loopback_not_erased<Runner>},
        {"iprobe_any_source_stashes", false, &iprobe_any_source_stashes<Runner>},
        {"iprobe_returns_latest", false, &iprobe_returns_latest<Runner>},
        {"iprobe_any_tag_literal", false, &iprobe_any_tag_literal<Runner>},
        {"now_in_milliseconds", false, &now_in_milliseconds<Runner>},
        {"irecv_tag_unchecked", false, &irecv_tag_unchecked<Runner>},
        {"dest_equal_size_wraps", false, &dest_equal_size_wraps<Runner>},
        {"iprobe_does_not_pull_rendezvous", false, &iprobe_does_not_pull_rendezvous<Runner>},
        {"isend_large_zero_copy_completes_early", false, &isend_large_zero_copy_completes_early<Runner>},
    };
    if constexpr (Full) {
        const std::vector<entry<Runner>> full = {
            {"send_native_tag_14_bits", true, &send_native_tag_14_bits<Runner>},
            {"recv_native_status_requested_tag", true, &recv_native_status_requested_tag<Runner>},
            {"wait_default_returns_last_status", true, &wait_default_returns_last_status<Runner>},
            {"wait_all_stops_at_empty_request", true, &wait_all_stops_at_empty_request<Runner>},
            {"bsend_pool_64k_rendezvous", true, &bsend_pool_64k_rendezvous<Runner>},
            {"issend_completes_on_arrival", true, &issend_completes_on_arrival<Runner>},
            {"rsend_ignores_any_source_receive", true, &rsend_ignores_any_source_receive<Runner>},
            {"sendrecv_large_sends_first", true, &sendrecv_large_sends_first<Runner>},
            {"barrier_last_rank_skips_wait", true, &barrier_last_rank_skips_wait<Runner>},
            {"ibarrier_released_by_rank_0", true, &ibarrier_released_by_rank_0<Runner>},
            {"broadcast_segments_floor", true, &broadcast_segments_floor<Runner>},
            {"ibroadcast_root_ignored", true, &ibroadcast_root_ignored<Runner>},
            {"allreduce_sum_rotated_order", true, &allreduce_sum_rotated_order<Runner>},
            {"allreduce_max_starts_at_zero", true, &allreduce_max_starts_at_zero<Runner>},
            {"allreduce_min_starts_at_dbl_min", true, &allreduce_min_starts_at_dbl_min<Runner>},
            {"reduce_sum_result_everywhere", true, &reduce_sum_result_everywhere<Runner>},
            {"reduce_max_result_at_rank_0", true, &reduce_max_result_at_rank_0<Runner>},
            {"reduce_min_group_of_one_identity", true, &reduce_min_group_of_one_identity<Runner>},
            {"gather_root_block_first", true, &gather_root_block_first<Runner>},
            {"alltoall_own_block_skipped", true, &alltoall_own_block_skipped<Runner>},
            {"iallreduce_wait_skips_copy_out", true, &iallreduce_wait_skips_copy_out<Runner>},
            {"progress_reaps_completions", true, &progress_reaps_completions<Runner>},
            {"compute_busy_capped_100ms", true, &compute_busy_capped_100ms<Runner>},
            {"clock_epoch_at_first_now", true, &clock_epoch_at_first_now<Runner>},
            {"abort_message_truncated_32", true, &abort_message_truncated_32<Runner>},
        };
        e.insert(e.end(), full.begin(), full.end());
    }
    return e;
}

/// A mutant runs the witness of its name; a correct transport (`correct_core`, `correct_full`)
/// runs every witness of its model. `starting(name)` is told as each one begins. Throws on the
/// first failure.
template <bool Full, class Runner, class Starting>
void run_witnesses(const Runner& runner, Starting starting, std::string_view name) {
    const bool base = name == "correct_core" || name == "correct_full";
    bool found = false;
    for (const auto& e : entries<Full, Runner>()) {
        if (!base && e.name != name) continue;
        found = true;
        starting(e.name);
        e.run(runner);
    }
    if (!found) throw witness_failure("no witness named " + std::string(name));
}

}  // namespace held_out_11::witness
