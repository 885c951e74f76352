// comet/transport/threads/waiting.hpp — how a rank of the threads transport waits: it spins
// briefly, then sleeps on its doorbell (world.hpp says who rings it, and how a sleeping world is
// found deadlocked), so more ranks than cores still make progress at a context switch per
// hand-off. Every wait first checks whether the run is stopping (a rank failed, or the ranks
// deadlocked), and so does every call into the transport: an exception on one rank stops the
// others at their next call.
//
// Part of the threads transport (comet/transport/threads.hpp); not meant to be used on its own.
#pragma once

#include <comet/core/function_ref.hpp>
#include <comet/transport/threads/sleep.hpp>
#include <comet/transport/threads/world.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace comet::threads::detail {

/// Raises the run's stop on rank `rank` if `w` is stopping.
inline void check_stop(const world& w, int rank) {
    if (w.stopping() != stop_reason::none) w.throw_stop(rank);
}

/// The waiting of `await` once the first look found nothing: one copy for every condition
/// a rank waits for (a copy per condition was ~1-6 KB of code each to compile in every
/// program). The condition is called through a function_ref, an indirect call per look
/// beside the pause instruction of every spin round.
[[gnu::noinline]] inline void wait_until(world& w, int rank, function_ref<bool(bool)> ready, const wait_desc& desc) {
    check_stop(w, rank);
    // Spin without yielding for a couple of microseconds (the partner is usually on
    // another core and answers within that), then keep spinning but yield the core now and
    // then (the partner may be waiting for this very core: the machine is loaded), then
    // sleep. With more awake ranks than cores, go to sleep almost at once.
    // The clock is read only once the spin has lasted 64 rounds: a message usually
    // arrives sooner, and a clock reading (~30 ns) would otherwise sit on every hand-off.
    const bool crowded = w.crowded();
    std::chrono::steady_clock::time_point eager_until, deadline;
    for (unsigned i = 1;; ++i) {
        cpu_relax();
        const bool every = (i & 63) == 0;
        if (ready(every)) return;
        if (every) {
            check_stop(w, rank);
            const auto now = std::chrono::steady_clock::now();
            if (i == 64) {
                eager_until = now + std::chrono::nanoseconds(crowded ? 0 : 2000);
                deadline = now + (crowded ? std::chrono::nanoseconds(2000) : w.opts().spin);
            }
            if (now >= deadline) break;
            if (now >= eager_until) std::this_thread::yield();
        }
    }
    rank_control& c = w.control(rank);
    c.op.store(desc.op, std::memory_order_relaxed);
    c.peer.store(desc.peer, std::memory_order_relaxed);
    c.tag.store(desc.tag, std::memory_order_relaxed);
    c.size.store(desc.size, std::memory_order_relaxed);
    c.count.store(desc.count, std::memory_order_relaxed);
    w.dozing();
    struct wake_guard {
        world& w;
        int rank;
        ~wake_guard() {
            w.waking();
            w.spread_after_sleep(rank);
        }
    } awake_again{w, rank};
    for (;;) {
        check_stop(w, rank);
        const std::uint32_t seen = c.doorbell.load(std::memory_order_seq_cst);
        // Still counted if the doorbell rang late: a ringer that set us awake was preempted
        // before its bell, we counted ourselves again, then its bell woke us. Uncount, or
        // the count drifts (exactly one of this exchange and a ringer's sees "counted").
        if (c.sleep.exchange(sleep_state::sleeping, std::memory_order_seq_cst) == sleep_state::counted)
            w.uncount();
        if (ready(true)) return w.leave_sleep(rank);
        if (!w.count_blocked(rank)) continue;  // rung in between: look again
        while (c.sleep.load(std::memory_order_seq_cst) == sleep_state::counted) {
            sleep_while_equal(c.doorbell, seen, std::chrono::milliseconds(200));
            if (c.doorbell.load(std::memory_order_seq_cst) != seen) break;
            if (ready(true)) return w.leave_sleep(rank);  // safety net after a timeout
        }
    }
}

/// Returns once `ready(all)` is true, `desc` saying what rank `rank` waits for if it sleeps.
/// `ready` makes progress itself; `all` asks it to drain every channel (done every few dozen
/// spins and always before sleeping, so that a sender whose offer no receive here will match
/// learns it and moves on).
template <class Ready>
void await(world& w, int rank, Ready&& ready, const wait_desc& desc) {
    if (ready(false)) return;
    wait_until(w, rank, ready, desc);
}

}  // namespace comet::threads::detail
