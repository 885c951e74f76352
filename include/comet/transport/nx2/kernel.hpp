// comet/transport/nx2/kernel.hpp — NX/2's kernel on every node of the simulated machine: what it
// does when a transmission arrives (the interrupt handlers), how it sends (the buffers it counts
// at every other node, the messages waiting for one), and how arrivals keep each pair's order.
// It is the model the engine runs (engine.hpp: its handlers are the engine's kernel work); the
// calls a rank's process makes into NX/2 are world.hpp's, the network network.hpp's.
//
// NX/2's protocols (thesis 4.2, each step costed in docs/nx2-model.md):
// - at most `eager_limit` bytes: the sender checks its count of free buffers at the receiver,
//   copies the message into a system buffer and sends it; no free buffer: the message waits
//   in order behind the others to that node. At the receiver an interrupt puts it into a posted
//   receive (one copy) or keeps it in the reserved buffer until a receive takes it (one copy).
//   Freed buffers go back piggy-backed on the receiver's next transmission to the sender, or on
//   their own once `credit_batch` are pending or the receiver's process waits (also when a
//   handler frees one while it already waits). A bsend finding no buffer sends its message,
//   copied into a system buffer of the sender's kernel, by the protocol of longer messages
//   below, which the receiver's kernel takes into system space: it never waits.
// - longer messages: a request; the receiver's interrupt matches a posted receive or promises a
//   system buffer; an acknowledgement; the sender's interrupt starts the data over a circuit,
//   which lands in the user's buffer if a receive has taken the message by then (no copy), else
//   in the system buffer; interrupts at both ends when it is done. A receive that takes a
//   message from a system buffer copies it.
// - extensions NX/2 lacked, defined on the same machinery: synchronous sends (request for every
//   size, acknowledged only once a receive matches) and ready sends (NX/2's force types: the
//   data goes at once, no request, no buffer, and must find a posted receive).
//
// Order: a receive matches the messages of one (source, destination) pair and message space in
// the order they were sent; one whose header a retransmission made arrive early waits for the
// earlier ones at the receiver.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/transport/nx2/engine.hpp>
#include <comet/transport/nx2/events.hpp>
#include <comet/transport/nx2/machine.hpp>
#include <comet/transport/nx2/message.hpp>
#include <comet/transport/nx2/network.hpp>
#include <comet/transport/nx2/node.hpp>
#include <comet/transport/nx2/time.hpp>
#include <comet/transport/nx2/waits.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace comet::nx2::detail {

/// NX/2's kernels, one per node, on the engine; their work is the transmissions that arrive.
class kernel : public engine<kernel, transmission> {
public:
    kernel(const machine& m, int ranks, std::size_t stack_size)
        : engine(m.nodes(), ranks, stack_size), m_(m), nodes_(static_cast<std::size_t>(m.nodes())),
          counters_(nodes_.size()), net_(m_, events(), clock(), counters_) {}

    const machine& config() const noexcept { return m_; }
    const node_counters& counters(int r) const noexcept { return counters_[static_cast<std::size_t>(r)]; }

    /// Bytes of the simulator's state per node, the engine's and NX/2's (memory estimates).
    static constexpr std::size_t bytes_per_node() noexcept { return engine::bytes_per_node() + sizeof(node); }

    /// Gives a completed op back to its rank's pool.
    void free_op(op* o) { node_of(o->owner).free_op(o); }

protected:
    ~kernel() = default;

    node& node_of(int r) noexcept { return nodes_[static_cast<std::size_t>(r)]; }

    peer_state& peer(int r, int other) {
        node& n = node_of(r);
        if (n.recent_peer[0] == other) return *n.recent_state[0];
        if (n.recent_peer[1] == other) {
            std::swap(n.recent_peer[0], n.recent_peer[1]);
            std::swap(n.recent_state[0], n.recent_state[1]);
            return *n.recent_state[0];
        }
        auto [it, fresh] = n.peers.try_emplace(other);
        if (fresh) it->second.credits = static_cast<std::uint32_t>(m_.eager_buffers);
        n.recent_peer[1] = n.recent_peer[0];
        n.recent_state[1] = n.recent_state[0];
        n.recent_peer[0] = other;
        n.recent_state[0] = &it->second;
        return it->second;
    }

    static void copy(mutable_bytes to, const std::byte* from, std::size_t n) noexcept {
        if (n) std::memcpy(to.data(), from, n);
    }

    // ---- sending ----

    /// Puts a transmission of `payload` bytes (plus the header) from `from` to `to` on the
    /// network, with every buffer `from` owes `to` piggy-backed.
    transmission* transmit(int from, int to, wire kind, message* msg, std::size_t payload, bool discard = false) {
        transmission* t = pool_.make_tx(kind, from, to, msg);
        t->discard = discard;
        t->bytes = static_cast<std::uint64_t>(m_.header_bytes) + payload;
        peer_state& p = peer(from, to);
        t->credits = p.owed;
        p.owed = 0;
        net_.inject(t);
        return t;
    }

    /// The first transmission of a message that needs no buffer (request or ready data).
    void send_message(int r, message* msg) {
        if (msg->how == mode::ready)
            transmit(r, msg->dest, wire::ready, msg, msg->size);
        else
            transmit(r, msg->dest, wire::request, msg, 0);
    }

    /// A message to the sending node itself: into a posted receive, else kept as unexpected.
    void deliver_local(int r, int tag, bool system, const_bytes data) {
        node& n = node_of(r);
        if (op* o = n.take_posted(r, tag, system, data.size())) {
            if (data.size() > o->buffer.size())
                o->overflow = data.size();
            else
                copy(o->buffer, data.data(), data.size());
            complete(o);
            return;
        }
        message* msg = pool_.new_message(r, r, tag, system, data.size(), mode::local);
        pool_.fill(msg->sysbuf, data.data(), data.size());
        msg->sender_done = true;
        list_append(n.unexpected_head, n.unexpected_tail, msg);
    }

    /// A receive found `msg` too big for its buffer: NX/2 throws the message away.
    void refuse(int r, message* msg) {
        msg->dropped = true;
        switch (msg->how) {
        case mode::eager:
            if (!msg->system) owe_credit(r, msg->source);
            [[fallthrough]];
        case mode::local: msg->receiver_done = true; break;
        case mode::rendezvous: msg->receiver_done = true; break;  // data still on its way is thrown away
        case mode::sync:
            transmit(r, msg->source, wire::ack, msg, 0, true);
            msg->receiver_done = true;
            break;
        case mode::ready: msg->receiver_done = true; break;
        }
        pool_.maybe_free(msg);
    }

    // ---- buffers (credits) ----

    /// A buffer of `owner`'s at node `r` came free.
    void owe_credit(int r, int owner) {
        peer_state& p = peer(r, owner);
        ++p.owed;
        if (!p.listed) {
            p.listed = true;
            node_of(r).owed_to.push_back(owner);
        }
        if (p.owed >= static_cast<std::uint32_t>(m_.credit_batch)) {
            transmit(r, owner, wire::credit, nullptr, 0);
            return;
        }
        // A handler freed it while the process waits (for something else: a receive it
        // completed would have woken it) or has finished: nothing will piggy-back it and the
        // process will not wait again to flush it, so the idle kernel returns it now. The
        // owner may be waiting for exactly this buffer.
        const app_state s = state(r);
        if (s == app_state::blocked || s == app_state::finished) flush_credits(r);
    }

    /// Returns every owed buffer on its own transmission (the process waits, or found nothing).
    void flush_credits(int r) {
        node& n = node_of(r);
        // transmit() never adds to owed_to, so the list can be walked in place (and keeps its
        // capacity: this runs every time a process waits).
        for (int owner : n.owed_to) {
            peer_state& p = peer(r, owner);
            p.listed = false;
            if (p.owed > 0) transmit(r, owner, wire::credit, nullptr, 0);
        }
        n.owed_to.clear();
    }

    /// Marks the messages to `dest` waiting at `r` that can go now (eager ones take a buffer
    /// each); returns the kernel's time to copy the eager ones into system buffers.
    vtime mark_releasable(int r, int dest, std::uint32_t& count) {
        peer_state& p = peer(r, dest);
        vtime cost = 0;
        for (message* msg = p.out_head; msg; msg = msg->next) {
            if (msg->released) continue;
            if (msg->how == mode::eager) {
                if (p.credits == 0) break;
                --p.credits;
                cost += times(m_.copy_per_byte, msg->size);
            }
            msg->released = true;
            ++count;
        }
        return cost;
    }

    /// Sends the released messages at the head of the queue to `dest`, in order.
    void send_released(int r, int dest) {
        peer_state& p = peer(r, dest);
        while (p.out_head && p.out_head->released) {
            message* msg = p.out_head;
            list_remove(p.out_head, p.out_tail, msg);
            if (msg->how == mode::eager) {
                pool_.fill(msg->sysbuf, msg->payload, msg->size);
                msg->payload = nullptr;
                op* s = std::exchange(msg->sop, nullptr);
                msg->sender_done = true;
                transmit(r, dest, wire::eager, msg, msg->size);
                if (s) {
                    s->msg = nullptr;
                    complete(s);
                }
            } else {
                send_message(r, msg);
            }
        }
        kick(r, dest);
    }

    /// If messages to `dest` could go now, asks the kernel to send them.
    void kick(int r, int dest) {
        peer_state& p = peer(r, dest);
        message* head = p.out_head;
        if (!head || head->released) return;
        if (head->how == mode::eager && p.credits == 0) return;
        interrupt(r, pool_.make_tx(wire::release, dest, r, nullptr));
    }

    // ---- completion ----

    /// `o` is done: its rank's process may wake (or the op goes back, if its request was dropped).
    void complete(op* o) {
        o->done = true;
        if (o->abandoned) return free_op(o);
        poke(o->owner);
    }

private:
    friend class engine<kernel, transmission>;

    // ---- for the engine ----

    /// The network's events.
    void handle(const event& e) {
        auto* t = static_cast<transmission*>(e.item);
        switch (e.kind) {
        case event_kind::net_step: net_.step(t); break;
        case event_kind::net_done: arrived(t); break;
        case event_kind::net_timeout: net_.timeout(t, e.tag); break;
        case event_kind::net_retry: net_.retry(t); break;
        default: break;
        }
    }

    std::string waiting_for(int r) const { return describe(nodes_[static_cast<std::size_t>(r)].waiting); }

    // ---- the kernel: interrupt handlers, one at a time per node ----

    /// A handler begins: it decides what it will do (matching happens now) and so its cost;
    /// the effects happen when it ends.
    void begin_handler(int r, transmission* t) {
        message* msg = t->msg;
        vtime cost = t->kind == wire::release ? 0 : m_.interrupt;
        if (t->credits) peer(r, t->src).credits += t->credits;
        if (t->credits || t->kind == wire::release) cost += mark_releasable(r, t->src, t->released);
        switch (t->kind) {
        case wire::eager:
        case wire::request:
            if (op* o = match_posted(r, *msg)) {
                msg->rop = o;
                o->msg = msg;
                if (t->kind == wire::eager && msg->size <= o->buffer.size()) cost += times(m_.copy_per_byte, msg->size);
            }
            break;
        case wire::data:
            if (msg->rop && msg->via_sysbuf && !msg->dropped) cost += times(m_.copy_per_byte, msg->size);
            break;
        default: break;
        }
        t->cost = cost;
        if (t->kind != wire::release) {
            node_counters& c = counters_[static_cast<std::size_t>(r)];
            ++c.interrupts;
            c.interrupt_time += cost;
        }
        run_handler(r, t, cost);
    }

    /// The earliest receive posted at node `r` that `msg` matches, taken off the queue.
    op* match_posted(int r, const message& msg) { return node_of(r).take_posted(msg.source, msg.tag, msg.system, msg.size); }

    /// A handler ends: its effects (the engine then starts what waits for the kernel).
    void end_handler(int r, transmission* t) {
        node& n = node_of(r);
        message* msg = t->msg;
        if (t->released) send_released(r, t->src);
        switch (t->kind) {
        case wire::eager:
            if (op* o = msg->rop) {
                if (msg->size > o->buffer.size())
                    o->overflow = msg->size;
                else if (!o->abandoned)
                    copy(o->buffer, msg->sysbuf.data(), msg->size);
                msg->rop = nullptr;
                o->msg = nullptr;
                take_wire(o, msg);
                complete(o);
                if (!msg->system) owe_credit(r, msg->source);
                msg->receiver_done = true;
                pool_.maybe_free(msg);
            } else {
                list_append(n.unexpected_head, n.unexpected_tail, msg);
            }
            break;
        case wire::request:
            if (op* o = msg->rop) {
                if (msg->size > o->buffer.size()) {
                    o->overflow = msg->size;
                    msg->rop = nullptr;
                    o->msg = nullptr;
                    complete(o);
                    msg->dropped = true;
                    msg->receiver_done = true;
                    transmit(r, msg->source, wire::ack, msg, 0, true);
                } else {
                    transmit(r, msg->source, wire::ack, msg, 0);
                }
            } else {
                // No receive yet: NX/2 promises a system buffer and lets the data come (a
                // synchronous send waits for its match instead).
                list_append(n.unexpected_head, n.unexpected_tail, msg);
                if (msg->how == mode::rendezvous) transmit(r, msg->source, wire::ack, msg, 0);
            }
            break;
        case wire::ack:
            if (t->discard) {
                finish_send(msg);
            } else {
                // The receiving DMA is set up as the data's circuit is built: into the user's
                // buffer if a receive has taken the message by now (thesis 5.1: long messages
                // "copied directly into user space, avoiding a memory copy"), else into the
                // system buffer, to be copied out by the receive that takes it later.
                if (!msg->rop && !msg->dropped) {
                    msg->via_sysbuf = true;
                    pool_.buffers().get(msg->sysbuf, msg->size);
                    ++counters_[static_cast<std::size_t>(msg->dest)].system_buffer_landings;
                }
                transmit(r, msg->dest, wire::data, msg, msg->size);
            }
            break;
        case wire::data:
            // A receive that took the message before its data landed gets it now (from the
            // system buffer if the data went there); one that came later copied it itself.
            if (op* o = msg->rop; o && !msg->dropped) {
                if (msg->via_sysbuf && !o->abandoned) copy(o->buffer, msg->sysbuf.data(), msg->size);
                msg->rop = nullptr;
                o->msg = nullptr;
                take_wire(o, msg);
                complete(o);
                msg->receiver_done = true;
            }
            break;
        case wire::ready:
            if (op* o = msg->rop) {
                msg->rop = nullptr;
                o->msg = nullptr;
                take_wire(o, msg);
                complete(o);
            }
            msg->receiver_done = true;
            break;
        case wire::dma_done: finish_send(msg); break;
        case wire::credit:
        case wire::release: break;
        }
        pool_.free_tx(t);
    }

    /// The sender is done with `msg` (its data left, or it was refused).
    void finish_send(message* msg) {
        msg->payload = nullptr;
        if (op* s = std::exchange(msg->sop, nullptr)) {
            s->msg = nullptr;
            complete(s);
        }
        msg->sender_done = true;
        pool_.maybe_free(msg);
    }

    /// A transmission that opens a message (and is matched when it arrives).
    static bool opens_message(wire kind) noexcept { return kind == wire::eager || kind == wire::request || kind == wire::ready; }

    /// The last byte of a transmission landed: free the circuit; deliver it — a message that
    /// overtook an earlier one of its pair and message space (a retransmitted header) waits
    /// until that one has been delivered, so receives match messages in the order they were sent.
    void arrived(transmission* t) {
        net_.finish(t);
        if (message* m = t->msg) {  // the packet's time on the wire: its hops and its bytes
            const vtime w = times(m_.hop_latency, t->links.size()) + net_.stream_time(t->bytes);
            m->wire_from = m->wire_time == 0 ? now() - w : std::min(m->wire_from, now() - w);
            m->wire_to = now();
            m->wire_time += w;
        }
        if (!opens_message(t->kind)) return deliver(t);
        peer_state& p = peer(t->dst, t->src);
        const int space = t->msg->system ? 1 : 0;
        if (t->msg->seq != p.expected[space]) {
            p.parked.push_back(t);
            return;
        }
        deliver(t);
        ++p.expected[space];
        for (bool found = true; found;) {
            found = false;
            for (std::size_t i = 0; i < p.parked.size(); ++i) {
                transmission* next = p.parked[i];
                if ((next->msg->system ? 1 : 0) != space || next->msg->seq != p.expected[space]) continue;
                p.parked.erase(p.parked.begin() + static_cast<std::ptrdiff_t>(i));
                deliver(next);
                ++p.expected[space];
                found = true;
                break;
            }
        }
    }

    /// Moves the data of transmission `t` that arrived, and interrupts its destination.
    void deliver(transmission* t) {
        message* msg = t->msg;
        if (t->kind == wire::data) {
            if (!msg->dropped) {
                op* o = msg->rop;
                if (msg->via_sysbuf) {
                    if (msg->size) std::memcpy(msg->sysbuf.data(), msg->payload, msg->size);
                    msg->data_arrived = true;  // from now on a receive copies it out itself
                } else if (o && !o->abandoned) {
                    copy(o->buffer, msg->payload, msg->size);
                }
            }
            interrupt(t->src, pool_.make_tx(wire::dma_done, t->src, t->src, msg));
        } else if (t->kind == wire::ready) {
            // A force-type message is delivered only into a receive posted when it arrives.
            if (op* o = match_posted(t->dst, *msg)) {
                msg->rop = o;
                o->msg = msg;
                if (msg->size > o->buffer.size())
                    o->overflow = msg->size;
                else
                    copy(o->buffer, msg->payload, msg->size);
            } else {
                std::string what = comet::detail::concat("rank ", t->dst, ": rsend from rank ", msg->source, " (tag ",
                                                         msg->tag, ", ", msg->size,
                                                         " bytes) arrived with no receive posted for it (NX/2 "
                                                         "discards such force-type messages)");
                if (t->dst < ranks()) fail(t->dst, std::make_exception_ptr(invalid_argument(what)));
            }
            interrupt(t->src, pool_.make_tx(wire::dma_done, t->src, t->src, msg));
        }
        interrupt(t->dst, t);
    }

protected:
    machine m_;
    std::vector<node> nodes_;
    std::vector<node_counters> counters_;
    network net_;
    message_pool pool_;
};

}  // namespace comet::nx2::detail
