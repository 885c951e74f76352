// comet/testing/checks.hpp — the conformance checks: does a type behave as the Transport concept
// says (comet/core/concepts.hpp)? Independent of any test framework; comet/testing/conformance.hpp
// turns them into Boost.Test cases.
//
//   #include <comet/testing/conformance.hpp>
//   struct my_runner {
//       static constexpr bool catches_failures = true;   // run rethrows a rank's exception
//       static constexpr bool detects_deadlock = true;   // a global deadlock raises deadlock_error
//       template <class F> void operator()(int ranks, F&& body) const { my::run(ranks, body); }
//   };
//   COMET_TRANSPORT_CONFORMANCE(my_transport_conforms, my_runner{})
//
// A runner runs `body(t)` on every rank of a group of `ranks` ranks of your transport. A
// runner bound to a fixed group (MPI: the size of the job) has `int ranks() const` and
// ignores the requested count; checks then use the ranks they need and let the rest watch.
// The concept itself is checked at compile time; at run time each check exercises one rule
// (matching, ordering, buffering, completion, collectives, time, errors) and the optional
// capabilities the type claims. Checks exchange data only through the transport, so they
// run the same for threads, processes and simulated nodes. A failed check throws
// `comet::testing::conformance_failure` naming the rank and what it saw.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/kernels/swap.hpp>
#include <comet/ops/ops.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>


#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace comet::testing {

/// A transport broke a rule of the concept.
class conformance_failure : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

namespace detail {

template <class R>
constexpr bool catches_failures() {
    if constexpr (requires { R::catches_failures; })
        return R::catches_failures;
    else
        return false;
}
template <class R>
constexpr bool detects_deadlock() {
    if constexpr (requires { R::detects_deadlock; })
        return R::detects_deadlock;
    else
        return false;
}

/// The group size a check gets when it asks for `wanted` ranks.
template <class R>
int group_size(const R& runner, int wanted) {
    if constexpr (requires { runner.ranks(); })
        return runner.ranks();
    else
        return wanted;
}

template <class... Parts>
[[noreturn]] void fail(int rank, const Parts&... parts) {
    throw conformance_failure(comet::detail::concat("rank ", rank, ": ", parts...));
}

template <class T, class... Parts>
void expect(const T& t, bool ok, const Parts&... parts) {
    if (!ok) fail(t.rank(), parts...);
}

/// Deterministic bytes for message `seed`, so a receiver can check every byte it got.
inline std::vector<std::byte> pattern(std::size_t n, std::uint32_t seed) {
    std::vector<std::byte> v(n);
    std::uint32_t x = seed * 2654435761u + 1u;
    for (auto& b : v) {
        x = x * 1664525u + 1013904223u;
        b = static_cast<std::byte>(x >> 24);
    }
    return v;
}

template <class T>
void expect_status(const T& t, const status& s, int source, int tag, std::size_t size, std::string_view what) {
    expect(t, s.source == source && s.tag == tag && s.size == size, what, ": status {source ", s.source, ", tag ", s.tag,
           ", size ", s.size, "}, expected {", source, ", ", tag, ", ", size, "}");
}

template <class T>
void expect_pattern(const T& t, const std::vector<std::byte>& got, std::size_t n, std::uint32_t seed, const char* what) {
    const auto want = pattern(n, seed);
    for (std::size_t i = 0; i < n; ++i)
        if (got[i] != want[i]) fail(t.rank(), what, ": byte ", i, " of ", n, " differs from what was sent");
}

/// Repeats `poll()` until it returns true; fails after `seconds` of wall time.
template <class T, class Poll>
void eventually(const T& t, Poll&& poll, const char* what, double seconds = 20.0) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!poll())
        if (std::chrono::steady_clock::now() > until) fail(t.rank(), what, ": still not true after ", seconds, " s");
}

/// Runs `body` expecting it to throw `E` whose message contains `needle`.
template <class E, class T, class Body>
void expect_throw(const T& t, Body&& body, const std::string& needle, const char* what) {
    try {
        body();
    } catch (const E& e) {
        if (std::string(e.what()).find(needle) == std::string::npos)
            fail(t.rank(), what, ": the error \"", e.what(), "\" does not name \"", needle, "\"");
        return;
    }
    fail(t.rank(), what, ": no error was raised");
}

inline const std::size_t sizes[] = {0, 1, 7, 8, 40, 41, 64, 100, 101, 1000, 1001, 4096, 65536, 1u << 20};

}  // namespace detail

/// The checks. Each takes a runner and throws `conformance_failure` (or whatever the
/// transport threw) when the transport misbehaves.
template <class Runner>
struct conformance {
    const Runner& run;

    /// rank() and size() describe one group: sizes agree, ranks are distinct and dense.
    void identity() const {
        for (int wanted : {1, 2, 3, 4}) {
            const int p = detail::group_size(run, wanted);
            run(p, [p](auto& t) {
                detail::expect(t, t.size() == p, "size() is ", t.size(), ", expected ", p);
                detail::expect(t, t.rank() >= 0 && t.rank() < t.size(), "rank() ", t.rank(), " outside 0..", t.size() - 1);
                std::vector<double> seen(static_cast<std::size_t>(t.size()), 0.0);
                seen[static_cast<std::size_t>(t.rank())] = 1.0;
                ops::allreduce_sum(t, seen);
                for (std::size_t r = 0; r < seen.size(); ++r)
                    detail::expect(t, seen[r] == 1.0, "rank ", r, " is claimed by ", seen[r], " ranks");
            });
        }
    }

    /// Blocking send/recv of every size from empty to a mebibyte arrives intact, both ways.
    void blocking_round_trip() const {
        run(detail::group_size(run, 2), [](auto& t) {
            if (t.rank() > 1) return;
            const int peer = 1 - t.rank();
            std::uint32_t seed = 0;
            for (std::size_t n : detail::sizes) {
                auto out = detail::pattern(n, ++seed);
                std::vector<std::byte> in(n + 8);
                if (t.rank() == 0) {
                    ops::send(t, peer, 5, out);
                    detail::expect_status(t, ops::recv(t, peer, 6, in), peer, 6, n, "echoed message");
                } else {
                    detail::expect_status(t, ops::recv(t, peer, 5, in), peer, 5, n, "message");
                    detail::expect_pattern(t, in, n, seed, "message");
                    ops::send(t, peer, 6, std::span(in.data(), n));
                    continue;
                }
                detail::expect_pattern(t, in, n, seed, "echoed message");
            }
        });
    }

    /// A receive names its tag: messages are taken by tag, not by arrival.
    void tag_matching() const {
        run(detail::group_size(run, 2), [](auto& t) {
            if (t.rank() > 1) return;
            if (t.rank() == 0) {
                for (int tag : {1, 2, 3}) ops::send(t, 1, tag, detail::pattern(16, static_cast<std::uint32_t>(tag)));
                ops::send(t, 1, 4, detail::pattern(5000, 4));
            } else {
                std::vector<std::byte> in(5000);
                for (int tag : {4, 3, 1, 2}) {
                    const std::size_t n = tag == 4 ? 5000 : 16;
                    detail::expect_status(t, ops::recv(t, 0, tag, in), 0, tag, n, "receive by tag");
                    detail::expect_pattern(t, in, n, static_cast<std::uint32_t>(tag), "receive by tag");
                }
                detail::expect_status(t, [&] {
                    ops::send(t, 1, 9, detail::pattern(3, 9));
                    return ops::recv(t, 1, any_tag, in);
                }(), 1, 9, 3, "any_tag receive of a message to self");
            }
        });
    }

    /// Messages from one sender with one tag arrive in the order sent, whatever their sizes.
    void non_overtaking() const {
        run(detail::group_size(run, 2), [](auto& t) {
            if (t.rank() > 1) return;
            const std::size_t count = 200;
            const auto size_of = [](std::size_t i) { return detail::sizes[i % std::size(detail::sizes)] % 70000 + 4; };
            if (t.rank() == 0) {
                for (std::size_t i = 0; i < count; ++i) {
                    auto out = detail::pattern(size_of(i), static_cast<std::uint32_t>(i));
                    std::memcpy(out.data(), &i, 4);
                    ops::send(t, 1, 7, out);
                }
            } else {
                std::vector<std::byte> in(70004);
                for (std::size_t i = 0; i < count; ++i) {
                    const status s = ops::recv(t, 0, 7, in);
                    std::uint32_t seq;
                    std::memcpy(&seq, in.data(), 4);
                    detail::expect(t, seq == i && s.size == size_of(i), "message ", i, " arrived as number ", seq);
                }
            }
        });
    }

    /// any_source takes a message from whoever sent one, and the status says who.
    void any_source_matching() const {
        run(detail::group_size(run, 4), [](auto& t) {
            const int p = t.size();
            if (t.rank() != 0) {
                ops::send(t, 0, 100 + t.rank(), detail::pattern(static_cast<std::size_t>(t.rank()) * 1000, static_cast<std::uint32_t>(t.rank())));
                return;
            }
            std::vector<int> seen(static_cast<std::size_t>(p), 0);
            std::vector<std::byte> in(static_cast<std::size_t>(p) * 1000);
            for (int i = 1; i < p; ++i) {
                const status s = ops::recv(t, any_source, any_tag, in);
                detail::expect(t, s.source >= 1 && s.source < p && s.tag == 100 + s.source &&
                                      s.size == static_cast<std::size_t>(s.source) * 1000,
                               "any_source status {", s.source, ", ", s.tag, ", ", s.size, "}");
                detail::expect_pattern(t, in, s.size, static_cast<std::uint32_t>(s.source), "any_source message");
                ++seen[static_cast<std::size_t>(s.source)];
            }
            for (int r = 1; r < p; ++r) detail::expect(t, seen[static_cast<std::size_t>(r)] == 1, "rank ", r, " was received ", seen[static_cast<std::size_t>(r)], " times");
        });
    }

    /// A shorter message fills a prefix; a longer one raises truncation_error.
    void receive_buffer_sizes() const {
        run(detail::group_size(run, 2), [](auto& t) {
            if (t.rank() > 1) return;
            if (t.rank() == 0) {
                ops::send(t, 1, 1, detail::pattern(10, 1));
                ops::send(t, 1, 2, detail::pattern(100, 2));
                ops::send(t, 1, 3, detail::pattern(100000, 3));
                ops::send(t, 1, 4, detail::pattern(8, 4));
            } else {
                std::vector<std::byte> in(64, std::byte{0xEE});
                detail::expect_status(t, ops::recv(t, 0, 1, in), 0, 1, 10, "short message");
                detail::expect_pattern(t, in, 10, 1, "short message");
                detail::expect(t, in[10] == std::byte{0xEE}, "the receive wrote past the message");
                for (int tag : {2, 3})
                    detail::expect_throw<truncation_error>(t, [&] { ops::recv(t, 0, tag, std::span(in.data(), 10)); },
                                                            tag == 2 ? "100" : "100000", "message longer than the buffer");
                detail::expect_status(t, ops::recv(t, 0, 4, in), 0, 4, 8, "message after a truncation");
                detail::expect_pattern(t, in, 8, 4, "message after a truncation");
            }
        });
    }

    /// Two ranks that both send first and receive second complete (CoMet's pairwise exchange),
    /// in the form kernels use on this transport (kernels/swap.hpp): the thesis' buffered send
    /// then receive where the transport offers `bsend`, a form that cannot deadlock elsewhere.
    void both_send_first() const {
        run(detail::group_size(run, 2), [](auto& t) {
            using T = std::remove_cvref_t<decltype(t)>;
            if (t.rank() > 1) return;
            const int peer = 1 - t.rank();
            const std::string form = "pairwise exchange (" + std::string(kernels::to_string(kernels::swap_form_of<T>())) + ")";
            for (std::size_t n : {std::size_t{8}, std::size_t{5000}, std::size_t{1} << 20}) {
                std::vector<std::byte> in(n);
                for (std::uint32_t round = 0; round < 3; ++round) {
                    const auto out = detail::pattern(n, round * 2 + static_cast<std::uint32_t>(t.rank()));
                    detail::expect_status(t, kernels::swap(t, peer, out, peer, in, 11), peer, 11, n, form);
                    detail::expect_pattern(t, in, n, round * 2 + static_cast<std::uint32_t>(peer), "pairwise exchange");
                }
            }
        });
    }

    /// isend/irecv/test/wait/wait_all: completion, statuses, post-order matching.
    void nonblocking() const {
        run(detail::group_size(run, 2), [](auto& t) {
            using request = typename std::remove_cvref_t<decltype(t)>::request;
            const bool pair = t.rank() <= 1;
            const int peer = 1 - t.rank();
            if (pair)
                for (std::size_t n : {std::size_t{0}, std::size_t{8}, std::size_t{3000}, std::size_t{1} << 20}) {
                    std::vector<std::byte> a(n), b(n);
                    auto out = detail::pattern(n, static_cast<std::uint32_t>(t.rank() + 1));
                    // Two receives for the same source and tag complete in the order posted.
                    request r[3];
                    r[0] = t.irecv(peer, 21, a);
                    r[1] = t.irecv(peer, 21, b);
                    r[2] = t.isend(peer, 21, out);
                    ops::send(t, peer, 21, detail::pattern(n, 9));
                    ops::wait_all(t, std::span<request>(r, 3));
                    detail::expect_pattern(t, a, n, static_cast<std::uint32_t>(peer + 1), "first irecv");
                    detail::expect_pattern(t, b, n, 9, "second irecv");
                    detail::expect(t, ops::wait(t, r[0]) == status{}, "wait() on a completed request must give an empty status");
                }
            // test() reports completion without blocking.
            std::vector<std::byte> in(100);
            request r;
            if (pair) r = t.irecv(peer, 22, in);
            ops::barrier(t);
            if (!pair) return;
            ops::send(t, peer, 22, detail::pattern(100, 22));
            std::optional<status> s;
            detail::eventually(t, [&] { return (s = t.test(r)).has_value(); }, "test() on an irecv whose message was sent");
            detail::expect_status(t, *s, peer, 22, 100, "test() status");
            detail::expect_pattern(t, in, 100, 22, "test() message");
            detail::expect(t, t.test(r) == std::optional<status>(status{}), "test() of a completed request must give an empty status");
            request none;
            detail::expect(t, ops::wait(t, none) == status{}, "wait() on a default request must give an empty status");
        });
    }

    /// Nonblocking exchanges crossing between pairs, completed by wait_all and by waits in
    /// another order than posted, many times over: nothing is lost, nothing hangs.
    void crossing_exchanges() const {
        run(detail::group_size(run, 4), [](auto& t) {
            using request = typename std::remove_cvref_t<decltype(t)>::request;
            const int p = t.size();
            const int a = (t.rank() + 1) % p, b = (t.rank() + p - 1) % p;
            std::vector<std::byte> out1 = detail::pattern(1500, 1), out2 = detail::pattern(40, 2);
            std::vector<std::byte> in1(1500), in2(40), in3(1500), in4(40);
            for (int i = 0; i < 200; ++i) {
                request q[6];
                q[0] = t.irecv(b, 61, in1);
                q[1] = t.irecv(b, 62, in2);
                q[2] = t.isend(a, 62, out2);
                q[3] = t.isend(a, 61, out1);
                q[4] = t.irecv(a, 63, in3);
                q[5] = t.isend(b, 63, out1);
                if (i % 2) {
                    ops::wait_all(t, std::span<request>(q, 6));
                } else {
                    for (int k = 5; k >= 0; --k) ops::wait(t, q[k]);
                }
                ops::send(t, b, 64, out2);  // a blocking send between rounds, received below
                ops::recv(t, a, 64, in4);
                detail::expect_pattern(t, in1, 1500, 1, "crossing exchange");
                detail::expect_pattern(t, in2, 40, 2, "crossing exchange");
                detail::expect_pattern(t, in3, 1500, 1, "crossing exchange");
            }
        });
    }

    /// iprobe sees an arrived message without taking it.
    void probe() const {
        run(detail::group_size(run, 2), [](auto& t) {
            if (t.rank() == 1) detail::expect(t, !t.iprobe(any_source, 31).has_value(), "probe found a message nobody sent");
            ops::barrier(t);
            if (t.rank() == 0 && t.size() > 1) ops::send(t, 1, 31, detail::pattern(77, 31));
            if (t.rank() == 1) {
                std::optional<status> s;
                detail::eventually(t, [&] { return (s = t.iprobe(0, 31)).has_value(); }, "probe of a sent message");
                detail::expect_status(t, *s, 0, 31, 77, "probe status");
                detail::expect_status(t, *t.iprobe(any_source, any_tag), 0, 31, 77, "second probe");
                std::vector<std::byte> in(77);
                detail::expect_status(t, ops::recv(t, 0, 31, in), 0, 31, 77, "receive after probe");
                detail::expect_pattern(t, in, 77, 31, "receive after probe");
            }
        });
    }

    /// barrier, broadcast from every root, the allreduces and gather: exact, and identical on
    /// every rank (through comet::ops: the transport's own or the portable algorithm).
    void collectives() const {
        for (int wanted : {1, 2, 3, 4}) {
            run(detail::group_size(run, wanted), [](auto& t) {
                for (int i = 0; i < 5; ++i) ops::barrier(t);
                for (int root = 0; root < t.size(); ++root)
                    for (std::size_t n : {std::size_t{0}, std::size_t{8}, std::size_t{1000}, std::size_t{100000}}) {
                        auto data = t.rank() == root ? detail::pattern(n, static_cast<std::uint32_t>(root)) : std::vector<std::byte>(n);
                        ops::broadcast(t, root, data);
                        detail::expect_pattern(t, data, n, static_cast<std::uint32_t>(root), "broadcast");
                    }
                const double p = t.size();
                for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1000}}) {
                    std::vector<double> v(n), hi(n), lo(n);
                    for (std::size_t i = 0; i < n; ++i) {
                        v[i] = static_cast<double>(t.rank() * 1000 + static_cast<int>(i)) + 0.5;
                        // The maximum and minimum sit on different ranks for different elements.
                        hi[i] = lo[i] = static_cast<double>((t.rank() + static_cast<int>(i)) % t.size());
                    }
                    ops::allreduce_sum(t, v);
                    ops::allreduce_max(t, hi);
                    ops::allreduce_min(t, lo);
                    for (std::size_t i = 0; i < n; ++i) {
                        const double want = 1000.0 * p * (p - 1) / 2 + p * (static_cast<double>(i) + 0.5);
                        detail::expect(t, v[i] == want, "allreduce_sum element ", i, " is ", v[i], ", expected ", want);
                        detail::expect(t, hi[i] == p - 1, "allreduce_max element ", i, " is ", hi[i], ", expected ", p - 1);
                        detail::expect(t, lo[i] == 0.0, "allreduce_min element ", i, " is ", lo[i], ", expected 0");
                    }
                }
                // Inexact sums must still agree bit for bit on every rank.
                std::vector<double> x{0.1 * (t.rank() + 1), 1e16 + t.rank(), 1.0 / (t.rank() + 3)};
                ops::allreduce_sum(t, x);
                std::vector<double> from_root = x;
                ops::broadcast(t, 0, std::as_writable_bytes(std::span<double>(from_root)));
                detail::expect(t, std::memcmp(x.data(), from_root.data(), x.size() * sizeof(double)) == 0,
                               "allreduce_sum gave this rank other bits than rank 0");
                for (int root : {0, t.size() - 1})
                    for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{4000}}) {
                        const auto mine = detail::pattern(n, static_cast<std::uint32_t>(100 + t.rank()));
                        std::vector<std::byte> all(t.rank() == root ? n * static_cast<std::size_t>(t.size()) : 0);
                        ops::gather(t, root, mine, all);
                        if (t.rank() == root)
                            for (int r = 0; r < t.size(); ++r) {
                                const auto want = detail::pattern(n, static_cast<std::uint32_t>(100 + r));
                                detail::expect(t, std::equal(want.begin(), want.end(), all.begin() + static_cast<std::ptrdiff_t>(n) * r),
                                               "gather: the block of rank ", r, " differs from what it sent");
                            }
                    }
            });
        }
    }

    /// No rank leaves a barrier before every rank entered it (checked when the clock is global).
    void barrier_waits_for_everyone() const {
        run(detail::group_size(run, 3), [](auto& t) {
            ops::barrier(t);
            if (t.rank() == t.size() - 1) ops::compute(t, work::busy(0.02));
            std::vector<double> times(2 * static_cast<std::size_t>(t.size()), 0.0);
            times[2 * static_cast<std::size_t>(t.rank())] = t.now();
            ops::barrier(t);
            times[2 * static_cast<std::size_t>(t.rank()) + 1] = t.now();
            ops::allreduce_sum(t, times);
            if (!ops::clock_is_global(t)) return;
            double last_in = 0, first_out = 1e300;
            for (int r = 0; r < t.size(); ++r) {
                last_in = std::max(last_in, times[2 * static_cast<std::size_t>(r)]);
                first_out = std::min(first_out, times[2 * static_cast<std::size_t>(r) + 1]);
            }
            detail::expect(t, first_out >= last_in, "a rank left the barrier at ", first_out, " s before the last arrived at ", last_in, " s");
        });
    }

    /// now() never goes back; compute() takes the time it describes.
    void time_and_compute() const {
        run(detail::group_size(run, 1), [](auto& t) {
            double last = t.now();
            for (int i = 0; i < 1000; ++i) {
                const double x = t.now();
                detail::expect(t, x >= last, "now() went back from ", last, " to ", x);
                last = x;
            }
            const double t0 = t.now();
            ops::compute(t, work::busy(0.005));
            const double busy = t.now() - t0;
            detail::expect(t, busy >= 0.004 && busy < 5.0, "compute(busy 5 ms) took ", busy, " s");
            const double t1 = t.now();
            ops::compute(t, work::daxpy(100000));
            ops::compute(t, work::flops(100000));
            detail::expect(t, t.now() >= t1, "now() went back across compute()");
        });
    }

    /// Out-of-range ranks and tags raise invalid_argument naming the value; the transport
    /// stays usable afterwards.
    void bad_arguments() const {
        run(detail::group_size(run, 2), [](auto& t) {
            std::vector<std::byte> b(8);
            const int p = t.size();
            detail::expect_throw<invalid_argument>(t, [&] { ops::send(t, p, 1, b); }, std::to_string(p), "send to rank size()");
            detail::expect_throw<invalid_argument>(t, [&] { ops::send(t, -3, 1, b); }, "-3", "send to rank -3");
            detail::expect_throw<invalid_argument>(t, [&] { ops::send(t, 0, -5, b); }, "-5", "send with tag -5");
            detail::expect_throw<invalid_argument>(t, [&] { ops::recv(t, p + 2, 1, b); }, std::to_string(p + 2), "recv from rank size()+2");
            detail::expect_throw<invalid_argument>(t, [&] { (void)t.isend(p, 1, b); }, std::to_string(p), "isend to rank size()");
            detail::expect_throw<invalid_argument>(t, [&] { (void)t.irecv(0, -9, b); }, "-9", "irecv with tag -9");
            detail::expect_throw<invalid_argument>(t, [&] { ops::broadcast(t, p, b); }, std::to_string(p), "broadcast from root size()");
            ops::barrier(t);
        });
    }

    /// abort(message) stops every rank; the run reports the rank and the message.
    void abort_stops_everyone() const {
        if constexpr (detail::catches_failures<Runner>()) {
            try {
                run(detail::group_size(run, 3), [](auto& t) {
                    if (t.rank() == 1) ops::abort(t, "conformance abort");
                    std::vector<std::byte> b(8);
                    ops::recv(t, any_source, 77, b);  // never sent: only the abort ends this
                });
            } catch (const aborted& e) {
                const std::string what = e.what();
                if (what.find("rank 1") == std::string::npos || what.find("conformance abort") == std::string::npos)
                    throw conformance_failure("abort: the error \"" + what + "\" should name rank 1 and the message");
                return;
            }
            throw conformance_failure("abort: the run ended without raising comet::aborted");
        }
    }

    /// An exception on one rank ends the run with that exception, even while others wait.
    void exception_stops_everyone() const {
        if constexpr (detail::catches_failures<Runner>()) {
            try {
                run(detail::group_size(run, 3), [](auto& t) {
                    if (t.rank() == 0) throw std::out_of_range("conformance exception");
                    ops::barrier(t);
                });
            } catch (const std::out_of_range& e) {
                if (std::string(e.what()) != "conformance exception")
                    throw conformance_failure(std::string("exception: rethrew \"") + e.what() + "\"");
                return;
            }
            throw conformance_failure("exception: the run did not rethrow the rank's exception");
        }
    }

    /// Every rank receiving from the other, with nothing sent, is reported, not hung.
    void deadlock_is_reported() const {
        if constexpr (detail::detects_deadlock<Runner>()) {
            try {
                run(detail::group_size(run, 2), [](auto& t) {
                    std::vector<std::byte> b(8);
                    ops::recv(t, (t.rank() + 1) % t.size(), 3, b);
                });
            } catch (const deadlock_error& e) {
                if (std::string(e.what()).find("rank 0") == std::string::npos)
                    throw conformance_failure(std::string("deadlock: the report does not name rank 0: ") + e.what());
                return;
            }
            throw conformance_failure("deadlock: the run ended without raising comet::deadlock_error");
        }
    }

    /// The optional capabilities the type claims, each against its definition.
    void capabilities() const {
        run(detail::group_size(run, 2), [](auto& t) {
            using T = std::remove_cvref_t<decltype(t)>;
            // Point to point between ranks 0 and 1; the collectives below on every rank.
            if (t.rank() <= 1) {
                const int peer = 1 - t.rank();
                std::vector<std::byte> in(1 << 20);
                if constexpr (synchronous_send_transport<T>) {
                    // issend must stay incomplete until the receiver has posted its receive, which
                    // rank 1 does only after rank 0 tells it (with a later message) to go ahead.
                    if (t.rank() == 0) {
                        const auto out = detail::pattern(64, 41);  // must outlive the request
                        auto r = t.issend(peer, 41, out);
                        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
                        while (std::chrono::steady_clock::now() < until)
                            detail::expect(t, !t.test(r).has_value(), "issend completed before the receive was posted");
                        ops::send(t, peer, 42, detail::pattern(1, 42));
                        ops::wait(t, r);
                        t.ssend(peer, 43, detail::pattern(5000, 43));
                    } else {
                        ops::recv(t, peer, 42, in);
                        detail::expect_status(t, ops::recv(t, peer, 41, in), peer, 41, 64, "issend message");
                        detail::expect_pattern(t, in, 64, 41, "issend message");
                        detail::expect_status(t, ops::recv(t, peer, 43, in), peer, 43, 5000, "ssend message");
                    }
                }
                if constexpr (ready_send_transport<T>) {
                    for (std::size_t n : {std::size_t{16}, std::size_t{1} << 20}) {
                        if (t.rank() == 1) {
                            auto r = t.irecv(peer, 51, in);
                            ops::send(t, peer, 52, detail::pattern(1, 52));  // "posted"
                            detail::expect_status(t, ops::wait(t, r), peer, 51, n, "rsend message");
                            detail::expect_pattern(t, in, n, 51, "rsend message");
                        } else {
                            ops::recv(t, peer, 52, in);
                            t.rsend(peer, 51, detail::pattern(n, 51));
                        }
                    }
                }
                if constexpr (buffered_send_transport<T>) {
                    t.bsend(peer, 61, detail::pattern(1 << 20, 61 + static_cast<std::uint32_t>(t.rank())));
                    detail::expect_status(t, ops::recv(t, peer, 61, in), peer, 61, std::size_t{1} << 20, "bsend exchange");
                    detail::expect_pattern(t, in, 1 << 20, 61 + static_cast<std::uint32_t>(peer), "bsend exchange");
                }
                if constexpr (sendrecv_transport<T>) {
                    for (std::size_t n : {std::size_t{8}, std::size_t{1} << 20}) {
                        auto out = detail::pattern(n, 70 + static_cast<std::uint32_t>(t.rank()));
                        const status s = t.sendrecv(peer, 71, out, peer, 71, in);
                        detail::expect_status(t, s, peer, 71, n, "sendrecv");
                        detail::expect_pattern(t, in, n, 70 + static_cast<std::uint32_t>(peer), "sendrecv");
                    }
                }
                if constexpr (progress_transport<T>) t.progress();
            }
            if constexpr (nonblocking_collective_transport<T>) {
                const double p = t.size();
                std::vector<double> v{1.0 + t.rank(), 2.0};
                auto r1 = t.iallreduce_sum(v);
                ops::wait(t, r1);
                detail::expect(t, v[0] == p * (p + 1) / 2 && v[1] == 2 * p, "iallreduce_sum gave ", v[0], ", ", v[1]);
                auto data = t.rank() == 0 ? detail::pattern(3000, 80) : std::vector<std::byte>(3000);
                auto r2 = t.ibroadcast(0, data);
                ops::wait(t, r2);
                detail::expect_pattern(t, data, 3000, 80, "ibroadcast");
                auto r3 = t.ibarrier();
                ops::wait(t, r3);
            }
        });
    }
};

}  // namespace comet::testing
