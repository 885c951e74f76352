// comet/testing/session.hpp — how a conformance check waits without ever hanging: one rank's
// view of one check (`session`), its deadlines, the watchdog behind them, and the waits, the
// barrier and the final "nothing left queued" test built from the transport's core alone.
//
// A check may not rely on the runner to notice a hang: the transport under test is the thing
// that may be broken, and a runner without deadlock detection (an MPI job, a third party's
// threads) would wait forever. So a check waits only by polling the core — `test` on its own
// request, `iprobe` — and every wait has a deadline of its own (`limits::deadline`, wall-clock
// seconds from when the wait began). Past it the wait throws `conformance_failure` naming the
// rank, the check and what it was waiting for ("rank 1: non_overtaking: waited 10 s for a
// message from rank 0, tag 7 (recv posted, never completed)"). A rank whose peer failed learns
// it the same way: its own wait runs out. Wall-clock time works on every transport, the
// simulated iPSC/860 included: there a poll is a system call that charges virtual time and lets
// the other nodes run, so waiting advances the simulation, and the simulator's own deadlock
// detection (a million idle polls) ends a hopeless wait sooner than the deadline.
//
// A call that never returns (a `test` that blocks, a blocking `ops::` operation whose peer
// failed) cannot be interrupted from its thread. Every call a check makes into the transport is
// therefore watched: a watchdog thread, past `limits::watchdog` seconds inside one call, prints
// one line naming the check, the rank and the call, and ends the process with a failure code.
// The suite then fails; it never hangs.
//
// Not here: the checks themselves (comet/testing/checks/*.hpp).
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace comet::testing {

/// A transport broke a rule of the concept.
class conformance_failure : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

/// How long a check waits. Generous by default: a correct transport on a loaded 2-core machine
/// running other tests beside never comes near them, and a broken one costs one deadline.
struct limits {
    /// Seconds one wait of a check (a receive, a send, a probe, the closing barrier) may take.
    double deadline = 10.0;
    /// Seconds one call into the transport may take before the watchdog ends the process.
    double watchdog = 30.0;
};

/// Seconds from environment variable `name` (unset or empty: `fallback`).
/// @throws invalid_argument naming the variable and its value when it is not a positive number.
inline double seconds_from_environment(const char* name, double fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    double x = 0;
    const char* end = v + std::strlen(v);
    const auto [p, ec] = std::from_chars(v, end, x);
    if (ec != std::errc{} || p != end || !(x > 0) || x > 1e6)
        raise<invalid_argument>(-1, name, " = \"", v, "\" is not a number of seconds in (0, 1e6]");
    return x;
}

/// The limits the suite runs with: `COMET_CONFORMANCE_DEADLINE` seconds per wait (default 10)
/// and `COMET_CONFORMANCE_WATCHDOG` seconds per call (default twice the deadline plus 10).
inline limits default_limits() {
    limits l;
    l.deadline = seconds_from_environment("COMET_CONFORMANCE_DEADLINE", l.deadline);
    l.watchdog = seconds_from_environment("COMET_CONFORMANCE_WATCHDOG", 2 * l.deadline + 10);
    return l;
}

/// The tag of the suite's own messages (the closing barrier): in comet's reserved space, so a
/// check's messages never match it (core/types.hpp lists the reserved tags).
inline constexpr int conformance_tag = first_reserved_tag + 630;

namespace detail {

using clock = std::chrono::steady_clock;

/// What one rank is doing inside one check, as the watchdog reads it.
struct watch_slot {
    const char* check = "";
    int rank = -1;
    double limit = 0;
    std::atomic<clock::rep> since{0};
    std::atomic<const char*> call{nullptr};  ///< the call in progress, or null between calls
};

/// One thread for the whole process, started by the first check. It reads the slots under a
/// mutex every 100 ms; a rank marks a call with two atomic stores, so watching costs a check
/// nothing measurable. Never destroyed: the thread is detached and must not outlive its data.
class watchdog {
public:
    static watchdog& instance() {
        static watchdog* w = new watchdog;
        return *w;
    }
    void add(watch_slot* s) {
        std::lock_guard g(m_);
        slots_.push_back(s);
        if (!started_) {
            started_ = true;
            std::thread([this] { loop(); }).detach();
        }
    }
    void remove(watch_slot* s) {
        std::lock_guard g(m_);
        slots_.erase(std::find(slots_.begin(), slots_.end(), s));
    }

private:
    [[noreturn]] void loop() {
        for (;;) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            std::lock_guard g(m_);
            const clock::rep now = clock::now().time_since_epoch().count();
            for (const watch_slot* s : slots_) {
                const char* call = s->call.load(std::memory_order_acquire);
                if (!call) continue;
                const double in = std::chrono::duration<double>(clock::duration(now - s->since.load())).count();
                if (in <= s->limit) continue;
                // One line, then out: the rank's thread is stuck inside the transport, so nothing
                // else can end the run (_Exit: no destructor may wait for that thread).
                std::fprintf(stderr, "comet conformance watchdog: rank %d: %s: %s has not returned after %.0f s; ending the process\n",
                             s->rank, s->check, call, in);
                std::fflush(stderr);
                std::_Exit(EXIT_FAILURE);
            }
        }
    }
    std::mutex m_;
    std::vector<watch_slot*> slots_;
    bool started_ = false;
};

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

inline std::string peer_name(int r) { return r == any_source ? "any rank" : "rank " + std::to_string(r); }
inline std::string tag_name(int tag) { return tag == any_tag ? "any tag" : "tag " + std::to_string(tag); }

/// A double with every digit it has (shortest round-trip form): a clock that steps back by
/// a nanosecond at 1000 s must show the step, which six significant digits hide.
inline std::string exact(double x) {
    char b[32];
    const auto r = std::to_chars(b, b + sizeof b, x);
    return std::string(b, r.ptr);
}

}  // namespace detail

/// One rank's view of one check: its name, the limits, and every way the check waits. A check
/// talks to the transport only through `call` (watched) and the waits below (deadlined).
class session {
public:
    session(const char* check, int rank, const limits& l) : limits_(l) {
        if (!(l.deadline > 0) || !(l.watchdog > 0))
            raise<invalid_argument>(rank, check, ": conformance limits: deadline = ", l.deadline, " s, watchdog = ", l.watchdog,
                                    " s; both must be positive");
        slot_.check = check;
        slot_.rank = rank;
        slot_.limit = l.watchdog;
        detail::watchdog::instance().add(&slot_);
    }
    session(const session&) = delete;
    session& operator=(const session&) = delete;
    ~session() { detail::watchdog::instance().remove(&slot_); }

    const char* check() const noexcept { return slot_.check; }
    int rank() const noexcept { return slot_.rank; }
    const testing::limits& limits() const noexcept { return limits_; }

    /// Throws `conformance_failure`: "rank R: check: parts...".
    template <class... Parts>
    [[noreturn]] void fail(const Parts&... parts) const {
        throw conformance_failure(comet::detail::concat("rank ", slot_.rank, ": ", slot_.check, ": ", parts...));
    }
    template <class... Parts>
    void expect(bool ok, const Parts&... parts) const {
        if (!ok) fail(parts...);
    }

    /// Calls `f()`, watched as `what` (a string literal: the watchdog prints it).
    template <class F>
    decltype(auto) call(const char* what, F&& f) {
        struct reset {
            detail::watch_slot& s;
            ~reset() { s.call.store(nullptr, std::memory_order_release); }
        } r{slot_};
        slot_.since.store(detail::clock::now().time_since_epoch().count());
        slot_.call.store(what, std::memory_order_release);
        return f();
    }

    // ---- waits: poll the core until something holds, or fail at the deadline ----

    /// Polls `poll()` (returning an optional) until it has a value; past `seconds` (the
    /// deadline, by default) fails with "waited D s for " + describe().
    template <class Poll, class Describe>
    auto until(Poll&& poll, Describe&& describe, double seconds = 0) {
        if (seconds <= 0) seconds = limits_.deadline;
        const auto start = detail::clock::now();
        const auto limit = std::chrono::duration<double>(seconds);
        for (std::uint64_t n = 1;; ++n) {
            if (auto x = poll()) return *x;
            if (detail::clock::now() - start > limit) fail("waited ", seconds, " s for ", describe());
            // Ranks may outnumber cores (MPI jobs oversubscribed, threads): let the others run,
            // and past 50 ms, when the wait is no longer a message's latency, stop spinning.
            if (n % 64 == 0) {
                if (detail::clock::now() - start > std::chrono::milliseconds(50))
                    std::this_thread::sleep_for(std::chrono::microseconds(100));
                else
                    std::this_thread::yield();
            }
        }
    }

    /// Calls `f()` for a while: at least 50 times and for `span` of host time, but never more
    /// than 100,000 times. Checks that must see something stay absent poll this way; the cap
    /// is for simulated machines, where polling moves no clock and a million polls in a row
    /// that can find nothing are a deadlock (a few tens of host milliseconds of them).
    template <class F>
    void for_a_while(std::chrono::milliseconds span, F&& f) const {
        const auto until = detail::clock::now() + span;
        for (int n = 0; n < 100'000 && (n < 50 || detail::clock::now() < until); ++n) f();
    }

    /// Reads `t.now()` and fails if it is earlier than the last reading of this check: every
    /// wait and probe below does so, so the clock is watched throughout a check, however long.
    template <class T>
    void watch_clock(T& t) {
        const double x = call("now", [&] { return t.now(); });
        if (x < last_now_)
            fail("now() went back from ", detail::exact(last_now_), " s to ", detail::exact(x), " s (by ", detail::exact(last_now_ - x),
                 " s), read between the check's calls");
        last_now_ = x;
    }

    /// `poll()`, and every 16th time a watch of the clock as well (a wait that lasts is watched).
    template <class T, class Poll>
    auto watched(T& t, Poll&& poll) {
        if (++polls_ % 16 == 0) watch_clock(t);
        return poll();
    }

    /// Completes a receive from (`source`, `tag`) by polling `test`.
    template <class T>
    status wait_recv(T& t, typename T::request& r, int source, int tag, double seconds = 0) {
        watch_clock(t);
        return until([&] { return watched(t, [&] { return call("test", [&] { return t.test(r); }); }); },
                     [&] { return "a message from " + detail::peer_name(source) + ", " + detail::tag_name(tag) + " (recv posted, never completed)"; },
                     seconds);
    }
    /// Completes a send to (`dest`, `tag`) by polling `test`.
    template <class T>
    status wait_send(T& t, typename T::request& r, int dest, int tag, double seconds = 0) {
        watch_clock(t);
        return until([&] { return watched(t, [&] { return call("test", [&] { return t.test(r); }); }); },
                     [&] { return "the send to rank " + std::to_string(dest) + ", tag " + std::to_string(tag) + " to complete (isend started, test never reported it done)"; },
                     seconds);
    }
    template <class T>
    status recv(T& t, int source, int tag, mutable_bytes buffer, double seconds = 0) {
        auto r = call("irecv", [&] { return t.irecv(source, tag, buffer); });
        return wait_recv(t, r, source, tag, seconds);
    }
    template <class T>
    status send(T& t, int dest, int tag, const_bytes data) {
        auto r = call("isend", [&] { return t.isend(dest, tag, data); });
        return wait_send(t, r, dest, tag);
    }
    /// Polls `iprobe` until it sees a matching message; its status.
    template <class T>
    status probe(T& t, int source, int tag) {
        watch_clock(t);
        return until([&] { return watched(t, [&] { return call("iprobe", [&] { return t.iprobe(source, tag); }); }); },
                     [&] { return "iprobe to see a message from " + detail::peer_name(source) + ", " + detail::tag_name(tag); });
    }
    /// One immediate iprobe.
    template <class T>
    std::optional<status> iprobe(T& t, int source, int tag) {
        watch_clock(t);
        return call("iprobe", [&] { return t.iprobe(source, tag); });
    }

    /// Every rank of the group meets, by the core alone: rank 0 first tells every rank it is
    /// done (so no rank sends anything new while rank 0 may still receive with any_source and
    /// any_tag), then every rank sends an empty message to every other and receives one from
    /// each. A message a check left queued on a pair's channel is ahead of that pair's barrier
    /// message, so after it the leftover has arrived. Its waits take twice the deadline: a rank
    /// waiting here for a peer that is itself stuck in the check lets the peer's failure, which
    /// names the cause, come first.
    template <class T>
    void barrier(T& t) {
        using request = typename T::request;
        const int p = t.size(), me = t.rank();
        const double seconds = 2 * limits_.deadline;
        if (p == 1) return;
        if (me == 0) {
            std::vector<request> go;
            for (int r = 1; r < p; ++r) go.push_back(call("isend", [&] { return t.isend(r, conformance_tag, const_bytes{}); }));
            for (int r = 1; r < p; ++r) wait_send(t, go[static_cast<std::size_t>(r - 1)], r, conformance_tag, seconds);
        } else {
            recv(t, 0, conformance_tag, mutable_bytes{}, seconds);
        }
        std::vector<request> in, out;
        for (int r = 0; r < p; ++r)
            if (r != me) in.push_back(call("irecv", [&] { return t.irecv(r, conformance_tag, mutable_bytes{}); }));
        for (int r = 0; r < p; ++r)
            if (r != me) out.push_back(call("isend", [&] { return t.isend(r, conformance_tag, const_bytes{}); }));
        for (int r = 0, i = 0; r < p; ++r)
            if (r != me) {
                const status s = wait_recv(t, in[static_cast<std::size_t>(i)], r, conformance_tag, seconds);
                expect(s.source == r && s.tag == conformance_tag && s.size == 0, "the closing barrier's message from rank ", r,
                       " came as {source ", s.source, ", tag ", s.tag, ", size ", s.size, "}");
                wait_send(t, out[static_cast<std::size_t>(i++)], r, conformance_tag, seconds);
            }
    }

    /// How every check ends: the barrier, then nothing may be queued on this rank. A message
    /// found here was delivered twice, or sent and never received by the check.
    template <class T>
    void finish(T& t) {
        barrier(t);
        for (int i = 0; i < 3; ++i)
            if (const auto s = iprobe(t, any_source, any_tag))
                fail("a message from rank ", s->source, ", tag ", s->tag, " (", s->size,
                     " bytes) is still queued after the check: delivered twice, or never sent to be received");
    }

    // ---- what a check compares ----

    void expect_status(const status& s, int source, int tag, std::size_t size, std::string_view what) const {
        expect(s.source == source && s.tag == tag && s.size == size, what, ": status {source ", s.source, ", tag ", s.tag,
               ", size ", s.size, "}, expected {", source, ", ", tag, ", ", size, "}");
    }
    void expect_pattern(std::span<const std::byte> got, std::size_t n, std::uint32_t seed, std::string_view what) const {
        const auto want = detail::pattern(n, seed);
        for (std::size_t i = 0; i < n; ++i)
            if (got[i] != want[i]) fail(what, ": byte ", i, " of ", n, " differs from what was sent");
    }
    /// Runs `body` expecting `E` whose message contains every one of `needles`.
    template <class E, class Body>
    void expect_throw(Body&& body, std::initializer_list<std::string> needles, std::string_view what) const {
        try {
            body();
        } catch (const E& e) {
            for (const std::string& needle : needles)
                if (std::string(e.what()).find(needle) == std::string::npos)
                    fail(what, ": the error \"", e.what(), "\" does not name \"", needle, "\"");
            return;
        }
        fail(what, ": no error was raised");
    }

private:
    detail::watch_slot slot_;
    testing::limits limits_;
    double last_now_ = -1e300;  ///< the latest now() watch_clock read
    std::uint64_t polls_ = 0;
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

/// The group size a check gets when it asks for `wanted` ranks (a runner bound to a fixed
/// group, like an MPI job, says `ranks()`; the ranks a check does not need watch).
template <class R>
int group_size(const R& runner, int wanted) {
    if constexpr (requires { runner.ranks(); })
        return runner.ranks();
    else
        return wanted;
}

/// Whether the runner can make a group of `wanted` ranks: one that says `max_ranks()` (a
/// simulated machine of a few nodes) is not asked for more; the group sizes past it are left out.
template <class R>
bool fits(const R& runner, int wanted) {
    if constexpr (requires { runner.max_ranks(); })
        return wanted <= runner.max_ranks();
    else
        return true;
}

/// Runs check `name` on a group of (about) `wanted` ranks: `body(t, session&)` on each, then
/// the closing barrier and the test that nothing is left queued. Nothing, when the runner
/// cannot make a group that large (fits).
template <class Runner, class Body>
void run_check(const Runner& run, int wanted, const char* name, const limits& l, Body&& body) {
    if (!fits(run, group_size(run, wanted))) return;
    run(group_size(run, wanted), [&](auto& t) {
        session s(name, t.rank(), l);
        s.watch_clock(t);
        // What the transport raised that the check did not provoke fails the check, by name.
        try {
            body(t, s);
        } catch (const truncation_error& e) {
            s.fail("the transport raised truncation_error, which no receive of this check provoked: \"", e.what(), "\"");
        } catch (const invalid_argument& e) {
            s.fail("the transport raised invalid_argument for a call with valid arguments: \"", e.what(), "\"");
        }
        s.finish(t);
        s.watch_clock(t);
    });
}

}  // namespace detail
}  // namespace comet::testing
