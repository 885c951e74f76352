// comet/transport/threads/handoff.hpp — the hand-over of a large message between the two ranks
// of the threads transport: the receiver copying it out of the sender's buffer (or out of the
// copy its sender made) or discarding it, and a sender that stops caring about it. The states a
// large message goes through, and who owns its descriptor in each, are channel.hpp's
// (`large_state`); these are the transitions the ranks make.
//
// Part of the threads transport (comet/transport/threads.hpp); not meant to be used on its own.
#pragma once

#include <comet/transport/threads/channel.hpp>
#include <comet/transport/threads/copy.hpp>
#include <comet/transport/threads/sleep.hpp>
#include <comet/transport/threads/world.hpp>

#include <atomic>
#include <cstddef>

namespace comet::threads::detail {

/// Copies large message `m` into `dst` and gives the descriptor back (to its sender, whom `w`
/// rings, or to the heap). False if its sender abandoned it (only while a failed run is stopping).
inline bool take_large(world& w, large_message* m, std::byte* dst) {
    auto s = m->state.load(std::memory_order_acquire);
    for (;;) {
        switch (s) {
        case large_state::offered:
        case large_state::deferred:
            if (m->state.compare_exchange_weak(s, large_state::claimed, std::memory_order_acq_rel)) {
                copy_bulk(dst, m->data, m->size);
                const int sender = m->source;
                m->state.store(large_state::done, std::memory_order_seq_cst);  // m is the sender's again
                w.ring(sender);
                return true;
            }
            continue;
        case large_state::withdrawing:  // the sender is copying it: a moment
            cpu_relax();
            s = m->state.load(std::memory_order_acquire);
            continue;
        case large_state::buffered:
            copy_bulk(dst, m->data, m->size);
            delete m;
            return true;
        default:  // abandoned
            delete m;
            return false;
        }
    }
}

/// Consumes a large message without its data (the receive it matched was too small).
inline void discard_large(world& w, large_message* m) {
    auto s = m->state.load(std::memory_order_acquire);
    while ((s == large_state::offered || s == large_state::deferred) &&
           !m->state.compare_exchange_weak(s, large_state::claimed, std::memory_order_acq_rel)) {
    }
    if (s == large_state::offered || s == large_state::deferred) {
        const int sender = m->source;
        m->state.store(large_state::done, std::memory_order_seq_cst);
        w.ring(sender);
        return;
    }
    while ((s = m->state.load(std::memory_order_acquire)) == large_state::withdrawing) cpu_relax();
    delete m;
}

/// An offer whose sender stops caring (stopped run, or destroyed request): the receiver
/// will find it abandoned (or buffered, if `keep_data`), or it is mid-copy and we wait.
inline void abandon(large_message* m, bool keep_data = false) noexcept {
    auto s = m->state.load(std::memory_order_acquire);
    for (;;) {
        if (s == large_state::offered || s == large_state::deferred) {
            if (!m->state.compare_exchange_weak(s, large_state::withdrawing, std::memory_order_acq_rel)) continue;
            if (keep_data) m->take_copy();
            m->state.store(keep_data ? large_state::buffered : large_state::abandoned, std::memory_order_seq_cst);
            return;  // the receiver (or the teardown) frees it now
        }
        if (s == large_state::done) {
            delete m;
            return;
        }
        cpu_relax();  // claimed: the receiver is copying; it ends soon
        s = m->state.load(std::memory_order_acquire);
    }
}

}  // namespace comet::threads::detail
