// comet/transport/nx2/world.hpp — one run of the simulated machine, as a rank's process calls into
// it: NX/2's system calls (start a send or a receive, wait, poll, drop a request) on the kernels
// of kernel.hpp, which run on the engine of engine.hpp. Also what a run is asked to do and what
// it reports (`run_options`, `run_statistics`).
//
// A call charges the process's CPU (engine.hpp) for what NX/2 did on its behalf: the system call,
// the copy into or out of a system buffer; what follows happens in the kernels' handlers.
#pragma once

#include <comet/core/types.hpp>
#include <comet/transport/nx2/kernel.hpp>
#include <comet/transport/nx2/message.hpp>
#include <comet/transport/nx2/network.hpp>
#include <comet/transport/nx2/node.hpp>
#include <comet/transport/nx2/time.hpp>
#include <comet/transport/nx2/waits.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace comet::nx2 {

/// What a run did, filled in when it ends (run_options::statistics).
struct run_statistics {
    vtime end_time = 0;                ///< virtual time when the last event was handled
    std::uint64_t events = 0;          ///< events the scheduler handled
    std::vector<node_counters> nodes;  ///< per node
    node_counters total() const {
        node_counters t;
        for (const auto& n : nodes) t += n;
        return t;
    }
};

/// The largest stack a rank may have: 1 GiB (a run maps every rank's stack at once).
inline constexpr std::size_t max_stack_size = std::size_t{1} << 30;

/// How `nx2::run` runs.
struct run_options {
    /// Ranks to run, on nodes 0..ranks-1 (0: every node of the machine). A group smaller than
    /// the machine is a partition of it; its messages still route through the whole machine.
    int ranks = 0;
    /// Bytes of stack per rank (plus a guard page), 16 KiB .. `max_stack_size`. Each rank runs
    /// the user's code on it; only the pages it touches cost memory.
    std::size_t stack_size = 256 * 1024;
    /// Filled in when the run ends, also when it fails.
    run_statistics* statistics = nullptr;
};

namespace detail {

/// One run of the simulated machine: the engine, NX/2's kernels, and the calls into them.
class world : public kernel {
public:
    using kernel::kernel;

    void fill(run_statistics& s) const {
        s.end_time = now();
        s.events = events_pushed();
        s.nodes = counters_;
    }

    // ==== called by a rank's process (on its fiber) ====

    /// Blocks the process until `ready()` holds, then charges `resume`. `ready` is evaluated by
    /// the scheduler whenever something changes for this node.
    template <class Ready>
    void block(int r, Ready& ready, const wait_desc& desc) {
        if (ready()) return;
        check_stop(r);
        node& n = node_of(r);
        flush_credits(r);  // an idle kernel returns the buffers it owes
        n.waiting = desc;
        if (n.collective) {
            n.waiting.collective = n.collective;
            if (n.waiting.op == wait_op::recv || n.waiting.op == wait_op::send || n.waiting.op == wait_op::credit)
                n.waiting.step_peer = desc.peer;
            n.waiting.op = wait_op::collective;
        }
        suspend_until(r, ready);
        charge(r, m_.resume);
    }

    /// A polling call (msgdone, iprobe, progress) found nothing: the kernel returns what it
    /// owes. Polling while no event is pending anywhere changes nothing; `idle_poll_limit` such
    /// polls in a row are a deadlock (`what` says what this rank polls for in the report).
    void idle(int r, const wait_desc& what) {
        flush_credits(r);
        if (!idle_poll(r)) return;
        node& n = node_of(r);
        n.waiting = what;
        if (n.collective) n.waiting.collective = n.collective;
        declare_deadlock();
        check_stop(r);
    }

    void set_collective(int r, const char* what) noexcept { node_of(r).collective = what; }
    std::uint32_t next_collective(int r) noexcept { return node_of(r).collective_seq++; }

    /// Starts a send. Charges the call (and the copy of an eager message); the returned op is
    /// done if the message is already on its way and the buffer free again.
    op* start_send(int r, int dest, int tag, bool system, const_bytes data, mode how, bool buffered = false) {
        charge(r, m_.call);
        started_operation(r);
        op* o = node_of(r).new_op(r, true, dest, tag, system);
        o->result = status{dest, tag, data.size()};
        node_counters& c = counters_[static_cast<std::size_t>(r)];
        ++c.messages_sent;
        c.bytes_sent += data.size();
        if (dest == r) {  // to itself: one copy, into a posted receive or a system buffer
            charge(r, times(m_.copy_per_byte, data.size()));
            deliver_local(r, tag, system, data);
            o->done = true;
            return o;
        }
        message* msg = pool_.new_message(r, dest, tag, system, data.size(), how);
        peer_state& p = peer(r, dest);
        msg->seq = p.next_seq[system ? 1 : 0]++;
        if (how == mode::eager) {
            // A collective's message travels in the system's own message space: it takes none
            // of the buffers NX/2 reserves for the user's messages, and does not queue behind
            // user messages waiting for one (a receiver in the same collective takes it at once).
            const bool now = system || (!p.out_head && p.credits > 0);
            if (now) {
                if (!system) --p.credits;
                charge(r, times(m_.copy_per_byte, data.size()));
                pool_.fill(msg->sysbuf, data.data(), data.size());
                msg->sender_done = true;
                transmit(r, dest, wire::eager, msg, data.size());
                o->done = true;
                return o;
            }
            if (p.credits == 0) ++c.credit_stalls;
            if (buffered) {
                // bsend finding every buffer reserved for this node at `dest` full: the message
                // goes as a long one does (request; the receiver's kernel takes it into a system
                // buffer of its own if no receive is posted; acknowledgement; data), from a copy
                // in the sender's kernel (the copy csend makes anyway, made now). Waiting here for
                // a buffer to come free instead would break bsend's promise: a receiver that first
                // wants a later message never frees one (docs/nx2-model.md, "bsend").
                ++c.bsend_spills;
                msg->how = mode::rendezvous;
                charge(r, times(m_.copy_per_byte, data.size()));
                msg->kept.assign(data.begin(), data.end());
                msg->payload = msg->kept.data();
                if (!p.out_head) {
                    send_message(r, msg);
                } else {
                    list_append(p.out_head, p.out_tail, msg);
                    kick(r, dest);
                }
                o->done = true;
                return o;
            }
        }
        if (buffered && p.out_head) {
            // bsend of a long message queued behind small ones waiting for buffers: the kernel
            // keeps a copy of its bytes, so the call need not wait for the receiver.
            charge(r, times(m_.copy_per_byte, data.size()));
            msg->kept.assign(data.begin(), data.end());
            msg->payload = msg->kept.data();
            list_append(p.out_head, p.out_tail, msg);
            kick(r, dest);
            o->done = true;
            return o;
        }
        msg->payload = data.data();
        msg->sop = o;
        o->msg = msg;
        if (!p.out_head && how != mode::eager) {
            send_message(r, msg);
        } else {
            list_append(p.out_head, p.out_tail, msg);
            kick(r, dest);
        }
        return o;
    }

    /// Starts a receive. Charges the call (and the copy out of a system buffer); the returned
    /// op is done if a message was already there.
    op* start_recv(int r, int source, int tag, bool system, mutable_bytes buffer) {
        charge(r, m_.call);
        started_operation(r);
        op* o = node_of(r).new_op(r, false, source, tag, system);
        o->buffer = buffer;
        node& n = node_of(r);
        message* msg = n.find_unexpected(source, tag, system);
        if (!msg) {
            o->posted = true;
            list_append(n.posted_head, n.posted_tail, o);
            return o;
        }
        list_remove(n.unexpected_head, n.unexpected_tail, msg);
        o->result = status{msg->source, msg->tag, msg->size};
        if (msg->size > buffer.size()) {
            o->overflow = msg->size;
            o->done = true;
            refuse(r, msg);
            return o;
        }
        switch (msg->how) {
        case mode::eager:
        case mode::local:
            charge(r, times(m_.copy_per_byte, msg->size));
            copy(buffer, msg->sysbuf.data(), msg->size);
            take_wire(o, msg);
            if (msg->how == mode::eager && !msg->system) owe_credit(r, msg->source);
            msg->receiver_done = true;
            pool_.maybe_free(msg);
            o->done = true;
            return o;
        case mode::rendezvous:
            if (msg->data_arrived) {
                charge(r, times(m_.copy_per_byte, msg->size));
                copy(buffer, msg->sysbuf.data(), msg->size);
                take_wire(o, msg);
                msg->receiver_done = true;
                pool_.maybe_free(msg);
                o->done = true;
                return o;
            }
            msg->rop = o;  // the data handler copies it out of the system buffer
            o->msg = msg;
            return o;
        case mode::sync:  // acknowledged now: the data goes straight to the user's buffer
            msg->rop = o;
            o->msg = msg;
            transmit(r, msg->source, wire::ack, msg, 0);
            return o;
        case mode::ready: break;
        }
        return o;
    }

    /// The earliest unexpected message matching (source, tag), as iprobe sees it.
    const message* find_unexpected(int r, int source, int tag, bool system) const {
        return nodes_[static_cast<std::size_t>(r)].find_unexpected(source, tag, system);
    }

    /// The request of a pending op was dropped: a receive is cancelled (or its data discarded);
    /// a send keeps its promise from a private copy of its bytes.
    void abandon(op* o) {
        if (o->done) return free_op(o);
        if (o->posted) {
            node& n = node_of(o->owner);
            list_remove(n.posted_head, n.posted_tail, o);
            return free_op(o);
        }
        o->abandoned = true;
        if (o->is_send && o->msg && o->msg->payload) {
            o->own.assign(o->msg->payload, o->msg->payload + o->msg->size);
            o->msg->payload = o->own.data();
        }
    }
};

}  // namespace detail
}  // namespace comet::nx2
