// comet/testing/checks/operations.hpp — the conformance checks whose subject is an operation
// of comet/ops/ (blocking send and receive, wait, wait_all, the collectives; the transport's
// own or the portable one over the core) or an optional capability (ssend, rsend, bsend,
// sendrecv, progress, nonblocking collectives).
//
// A blocking operation cannot be given a deadline from outside: each call is watched
// (session.hpp), so one that never returns ends the process naming the check, rank and call.
// So that a wrong result on one rank does not leave its peer inside such a call, the checks
// that exchange data by blocking operations finish every exchange and fail at their end
// (detail::first_failure).
// The suite runs these checks after those of the core (checks.hpp, `all`), so that a transport
// whose core is broken is reported by a check of the core, deadlined, first.
#pragma once

#include <comet/kernels/swap.hpp>
#include <comet/ops/ops.hpp>
#include <comet/testing/checks/matching.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace comet::testing::checks {

/// Blocking send/recv of every size from empty to four mebibytes arrives intact, both ways; the
/// sender's buffer is its own again once send returns (overwritten at once here); a receive
/// naming its source takes that source's message, not an earlier one of the same tag this rank
/// sent itself.
template <class Runner>
void blocking_round_trip(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "blocking_round_trip", l, [](auto& t, session& s) {
        if (t.rank() > 1) return;
        const int peer = 1 - t.rank();
        detail::first_failure f;
        std::uint32_t seed = 0;
        for (std::size_t n : {0, 1, 7, 8, 40, 41, 64, 100, 101, 1000, 1001, 4096, 65536, 1 << 20, (1 << 22) + 3}) {
            auto out = detail::pattern(n, ++seed);
            std::vector<std::byte> in(n + 8);
            if (t.rank() == 0) {
                s.call("ops::send", [&] { ops::send(t, peer, 5, out); });
                std::fill(out.begin(), out.end(), std::byte{0xA5});
                f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, peer, 6, in); }), peer, 6, n, "echoed message");
                f.expect_pattern(in, n, seed, "echoed message (overwritten by its sender once its send had returned?)");
            } else {
                // Large ones: this rank calls nothing for 20 ms first, so that a send returning
                // before its bytes are taken (or copied) is still overwritten before they are.
                if (n >= 65536) {
                    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
                    while (std::chrono::steady_clock::now() < until) {
                    }
                }
                f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, peer, 5, in); }), peer, 5, n, "message");
                f.expect_pattern(in, n, seed, "message (overwritten by its sender once its send had returned?)");
                s.call("ops::send", [&] { ops::send(t, peer, 6, std::span(in.data(), n)); });
                std::fill(in.begin(), in.end(), std::byte{0x5A});
            }
        }
        // Each rank sends itself a message, then its peer one of the same tag: the receive naming
        // the peer takes the peer's. Small messages, both sends nonblocking: a receive that takes
        // the wrong one leaves nothing waiting.
        const auto mine = detail::pattern(4, 99), theirs = detail::pattern(4, 98);
        auto to_self = s.call("isend", [&] { return t.isend(t.rank(), 7, const_bytes(mine)); });
        auto to_peer = s.call("isend", [&] { return t.isend(peer, 7, const_bytes(theirs)); });
        std::vector<std::byte> in(4);
        f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, peer, 7, in); }), peer, 7, 4,
                        "recv naming rank " + std::to_string(peer) + " with a message of the same tag from this rank queued before");
        f.expect_pattern(in, 4, 98, "recv naming the peer");
        f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, t.rank(), any_tag, in); }), t.rank(), 7, 4,
                        "recv(any_tag) of the message to oneself (the status gives the message's tag)");
        s.wait_send(t, to_self, t.rank(), 7);
        s.wait_send(t, to_peer, peer, 7);
        // recv of a message longer than its buffer raises truncation_error; the message sent
        // after it is the next receive's.
        if (t.rank() == 0) {
            const auto longer = detail::pattern(20, 8), after = detail::pattern(4, 9);
            auto r1 = s.call("isend", [&] { return t.isend(peer, 8, const_bytes(longer)); });
            auto r2 = s.call("isend", [&] { return t.isend(peer, 8, const_bytes(after)); });
            s.wait_send(t, r1, peer, 8);
            s.wait_send(t, r2, peer, 8);
        } else {
            std::vector<std::byte> small(10);
            s.expect_throw<truncation_error>([&] { s.call("ops::recv", [&] { (void)ops::recv(t, peer, 8, small); }); }, {"20"},
                                             "recv of a 20-byte message into a 10-byte buffer");
            f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, peer, 8, small); }), peer, 8, 4,
                            "recv of the message sent after one that raised truncation_error");
            f.expect_pattern(small, 4, 9, "recv of the message sent after one that raised truncation_error");
        }
        f.settle(s);
    });
}

/// wait and wait_all complete isend/irecv requests; two receives for the same source and tag
/// complete in the order posted; wait on a completed or default request gives an empty status.
template <class Runner>
void nonblocking(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "nonblocking", l, [](auto& t, session& s) {
        using request = typename std::remove_cvref_t<decltype(t)>::request;
        if (t.rank() > 1) return;
        const int peer = 1 - t.rank();
        detail::first_failure f;
        for (std::size_t n : {std::size_t{0}, std::size_t{8}, std::size_t{3000}, std::size_t{1} << 20}) {
            std::vector<std::byte> a(n), b(n);
            const auto out = detail::pattern(n, static_cast<std::uint32_t>(t.rank() + 1)), second = detail::pattern(n, 9);
            request r[4];
            r[0] = s.call("irecv", [&] { return t.irecv(peer, 21, a); });
            r[1] = s.call("irecv", [&] { return t.irecv(peer, 21, b); });
            r[2] = s.call("isend", [&] { return t.isend(peer, 21, const_bytes(out)); });
            r[3] = s.call("isend", [&] { return t.isend(peer, 21, const_bytes(second)); });
            s.call("ops::wait_all", [&] { ops::wait_all(t, std::span<request>(r, 4)); });
            for (int k = 0; k < 4; ++k)
                f.expect(s.call("test", [&] { return t.test(r[k]); }) == std::optional<status>(status{}), "request ", k,
                         " of 4 was not complete after wait_all (test() on it must give an empty status at once)");
            f.expect_pattern(a, n, static_cast<std::uint32_t>(peer + 1), "first irecv");
            f.expect_pattern(b, n, 9, "second irecv");
            f.expect(s.call("ops::wait", [&] { return ops::wait(t, r[0]); }) == status{}, "wait() on a completed request must give an empty status");
        }
        std::vector<std::byte> in(100);
        // Pending requests moved (constructed, then assigned) keep their operation.
        request posted = s.call("irecv", [&] { return t.irecv(peer, 22, in); });
        request r(std::move(posted));
        const auto out = detail::pattern(100, 22);
        request w;
        w = s.call("isend", [&] { return t.isend(peer, 22, const_bytes(out)); });
        f.expect_status(s.call("ops::wait", [&] { return ops::wait(t, r); }), peer, 22, 100, "wait() on an irecv");
        f.expect_pattern(in, 100, 22, "wait() on an irecv");
        f.expect_status(s.call("ops::wait", [&] { return ops::wait(t, w); }), peer, 22, 100, "wait() on an isend");
        request none;
        f.expect(s.call("ops::wait", [&] { return ops::wait(t, none); }) == status{}, "wait() on a default request must give an empty status");
        s.call("ops::wait_all", [&] { ops::wait_all(t, std::span<request>{}); });  // of nothing: returns at once
        // wait waits as long as it takes: here a message sent 1.2 s (of the host's time) later.
        if (t.rank() == 0) {
            // Its clock watched meanwhile, every 10 ms (the message sent whatever that finds,
            // so that the peer's wait is not left to the watchdog).
            try {
                for (int k = 0; k < 120; ++k) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                    s.watch_clock(t);
                }
            } catch (const conformance_failure&) {
                s.send(t, peer, 24, detail::pattern(5, 24));
                throw;
            }
            s.send(t, peer, 24, detail::pattern(5, 24));
        } else {
            std::vector<std::byte> late(5);
            request q = s.call("irecv", [&] { return t.irecv(peer, 24, late); });
            f.expect_status(s.call("ops::wait", [&] { return ops::wait(t, q); }), peer, 24, 5, "wait() on a receive whose message was sent 1.2 s later");
            f.expect(s.call("test", [&] { return t.test(q); }) == std::optional<status>(status{}), "the receive was not complete after wait() returned");
        }
        // wait_all raises the truncation of a receive it completes.
        {
            const auto longer = detail::pattern(20, 23);
            std::vector<std::byte> small(10);
            request q[2];
            q[0] = s.call("irecv", [&] { return t.irecv(peer, 23, small); });
            q[1] = s.call("isend", [&] { return t.isend(peer, 23, const_bytes(longer)); });
            bool raised = false;
            try {
                s.call("ops::wait_all", [&] { ops::wait_all(t, std::span<request>(q, 2)); });
            } catch (const truncation_error&) {
                raised = true;
            }
            f.expect(raised, "wait_all completed a receive of a 20-byte message into a 10-byte buffer without truncation_error");
            s.wait_send(t, q[1], peer, 23);
        }
        f.settle(s);
    });
}

/// Nonblocking exchanges crossing between pairs, completed by wait_all and by waits in
/// another order than posted, many times over: nothing is lost, nothing hangs.
template <class Runner>
void crossing_exchanges(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 4, "crossing_exchanges", l, [](auto& t, session& s) {
        using request = typename std::remove_cvref_t<decltype(t)>::request;
        const int p = t.size();
        const int a = (t.rank() + 1) % p, b = (t.rank() + p - 1) % p;
        std::vector<std::byte> out1 = detail::pattern(1500, 1), out2 = detail::pattern(40, 2);
        std::vector<std::byte> in1(1500), in2(40), in3(1500), in4(40);
        detail::first_failure f;
        for (int i = 0; i < 200; ++i) {
            request q[6];
            q[0] = s.call("irecv", [&] { return t.irecv(b, 61, in1); });
            q[1] = s.call("irecv", [&] { return t.irecv(b, 62, in2); });
            q[2] = s.call("isend", [&] { return t.isend(a, 62, const_bytes(out2)); });
            q[3] = s.call("isend", [&] { return t.isend(a, 61, const_bytes(out1)); });
            q[4] = s.call("irecv", [&] { return t.irecv(a, 63, in3); });
            q[5] = s.call("isend", [&] { return t.isend(b, 63, const_bytes(out1)); });
            if (i % 2)
                s.call("ops::wait_all", [&] { ops::wait_all(t, std::span<request>(q, 6)); });
            else
                for (int k = 5; k >= 0; --k) s.call("ops::wait", [&] { ops::wait(t, q[k]); });
            s.call("ops::send", [&] { ops::send(t, b, 64, out2); });  // a blocking send between rounds
            s.call("ops::recv", [&] { ops::recv(t, a, 64, in4); });
            f.expect_pattern(in1, 1500, 1, "crossing exchange");
            f.expect_pattern(in2, 40, 2, "crossing exchange");
            f.expect_pattern(in3, 1500, 1, "crossing exchange");
        }
        f.settle(s);
    });
}

/// Two ranks that both send first and receive second complete (CoMet's pairwise exchange),
/// in the form kernels use on this transport (kernels/swap.hpp): the thesis' buffered send
/// then receive where the transport offers `bsend`, a form that cannot deadlock elsewhere.
/// Where `bsend` is how all sends behave (core/concepts.hpp, `buffering_transport`), the
/// ordinary blocking send then receive completes too, up to 4 MiB + 1 byte, to the peer and to
/// oneself.
template <class Runner>
void both_send_first(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "both_send_first", l, [](auto& t, session& s) {
        using T = std::remove_cvref_t<decltype(t)>;
        if (t.rank() > 1) return;
        const int peer = 1 - t.rank();
        detail::first_failure f;
        const std::string form = "pairwise exchange (" + std::string(kernels::to_string(kernels::swap_form_of<T>())) + ")";
        for (std::size_t n : {std::size_t{8}, std::size_t{5000}, std::size_t{1} << 20}) {
            std::vector<std::byte> in(n);
            for (std::uint32_t round = 0; round < 3; ++round) {
                const auto out = detail::pattern(n, round * 2 + static_cast<std::uint32_t>(t.rank()));
                f.expect_status(s.call("kernels::swap", [&] { return kernels::swap(t, peer, out, peer, in, 11); }), peer, 11, n, form);
                f.expect_pattern(in, n, round * 2 + static_cast<std::uint32_t>(peer), form);
            }
            if constexpr (buffering_transport<T>) {
                const char* plain = "ops::send then ops::recv on both ranks, where bsend is how all sends behave";
                const auto out = detail::pattern(n, 40 + static_cast<std::uint32_t>(t.rank()));
                s.call("ops::send", [&] { ops::send(t, peer, 12, out); });
                f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, peer, 12, in); }), peer, 12, n, plain);
                f.expect_pattern(in, n, 40 + static_cast<std::uint32_t>(peer), plain);
                // And to oneself: the send returns before its receive is posted.
                const auto own = detail::pattern(n, 50 + static_cast<std::uint32_t>(t.rank()));
                s.call("ops::send", [&] { ops::send(t, t.rank(), 13, own); });
                f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, t.rank(), 13, in); }), t.rank(), 13, n,
                                "ops::send to oneself then ops::recv, where bsend is how all sends behave");
                f.expect_pattern(in, n, 50 + static_cast<std::uint32_t>(t.rank()), "ops::send to oneself then ops::recv");
            }
        }
        if constexpr (buffering_transport<T>) {
            // Past any size where a protocol might switch: 4 MiB + 1 byte, both ranks sending first.
            const std::size_t n = (std::size_t{4} << 20) + 1;
            const auto out = detail::pattern(n, 60 + static_cast<std::uint32_t>(t.rank()));
            std::vector<std::byte> in(n);
            const char* plain = "a 4 MiB + 1 byte ops::send then ops::recv on both ranks, where bsend is how all sends behave";
            s.call("ops::send", [&] { ops::send(t, peer, 14, out); });
            f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, peer, 14, in); }), peer, 14, n, plain);
            f.expect_pattern(in, n, 60 + static_cast<std::uint32_t>(peer), plain);
        }
        f.settle(s);
    });
}

/// The buffered send's promise (core/concepts.hpp, `buffered_send_transport`): two ranks that
/// both bsend and then receive always complete — here 64 messages each way, more than any
/// transport's eager buffers, received in ascending, descending and a shuffled order of tags.
/// A bsend that waits for the receiver never returns, and the watchdog names it.
template <class Runner>
void bsend_promise(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "bsend_promise", l, [](auto& t, session& s) {
        using T = std::remove_cvref_t<decltype(t)>;
        if constexpr (buffered_send_transport<T>) {
            if (t.rank() > 1) return;
            const int peer = 1 - t.rank();
            std::vector<int> order(64);
            std::iota(order.begin(), order.end(), 1);
            std::mt19937 shuffle(28);
            for (int round = 0; round < 3; ++round) {
                if (round == 1) std::reverse(order.begin(), order.end());
                if (round == 2) std::shuffle(order.begin(), order.end(), shuffle);
                for (std::size_t n : {std::size_t{0}, std::size_t{8}, std::size_t{5000}}) {
                    const auto seed = [&](int rank, int tag) { return static_cast<std::uint32_t>(1000 * rank + tag + 100 * round); };
                    // The buffer is the caller's again once bsend returns: overwritten at once.
                    std::vector<std::byte> out;
                    for (int tag = 1; tag <= 64; ++tag) {
                        out = detail::pattern(n, seed(t.rank(), tag));
                        s.call("bsend", [&] { t.bsend(peer, tag, out); });
                        std::fill(out.begin(), out.end(), std::byte{0xA5});
                    }
                    std::vector<std::byte> in(n);
                    for (int tag : order) {
                        s.expect_status(s.recv(t, peer, tag, in), peer, tag, n, "a message both ranks bsent before receiving");
                        s.expect_pattern(in, n, seed(peer, tag), "a message both ranks bsent before receiving");
                    }
                    // To oneself: three bsends before the receives.
                    for (int tag = 65; tag <= 67; ++tag) {
                        out = detail::pattern(n, seed(t.rank(), tag));
                        s.call("bsend", [&] { t.bsend(t.rank(), tag, out); });
                        std::fill(out.begin(), out.end(), std::byte{0xA5});
                    }
                    for (int tag = 67; tag >= 65; --tag) {
                        s.expect_status(s.recv(t, t.rank(), tag, in), t.rank(), tag, n, "a message this rank bsent itself");
                        s.expect_pattern(in, n, seed(t.rank(), tag), "a message this rank bsent itself");
                    }
                }
            }
            // Messages larger than any buffer a transport attaches by default (2 MiB + 5 bytes),
            // three each way, received last first.
            {
                const std::size_t n = (std::size_t{2} << 20) + 5;
                for (int tag = 69; tag <= 71; ++tag) {
                    auto out = detail::pattern(n, static_cast<std::uint32_t>(10 * t.rank() + tag));
                    s.call("bsend", [&] { t.bsend(peer, tag, out); });
                    std::fill(out.begin(), out.end(), std::byte{0xA5});
                }
                std::vector<std::byte> in(n);
                for (int tag = 71; tag >= 69; --tag) {
                    s.expect_status(s.recv(t, peer, tag, in), peer, tag, n, "a 2 MiB message both ranks bsent before receiving");
                    s.expect_pattern(in, n, static_cast<std::uint32_t>(10 * peer + tag), "a 2 MiB message both ranks bsent before receiving");
                }
            }
            // Small bsends on one tag stay messages of their own (none appended to one still
            // waiting), each received whole and in order.
            for (std::uint32_t k = 0; k < 6; ++k) s.call("bsend", [&] { t.bsend(peer, 68, detail::numbered(8 + k, k, 68)); });
            std::vector<std::byte> in(64);
            for (std::uint32_t k = 0; k < 6; ++k) {
                s.expect_status(s.recv(t, peer, 68, in), peer, 68, 8 + k, "one of six small messages bsent on one tag");
                s.expect(detail::number_of(in) == k, "the small message bsent as number ", k, " of 6 on one tag arrived as number ", detail::number_of(in));
            }
        }
    });
}

}  // namespace comet::testing::checks
