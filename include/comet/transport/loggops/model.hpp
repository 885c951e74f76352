// comet/transport/loggops/model.hpp — the LogGOPS machine on the simulator's engine
// (nx2/engine.hpp: events in integer picoseconds, a fiber per rank, deadlock reports, detours):
// what a rank's calls cost, how its messages cross the two interfaces, and how receives match
// them. The parameters are machine.hpp's; a message of s bytes:
//
//   send call      the process is charged o_s + O_s·s (whatever the protocol: LogGOPS's);
//                  the message then queues for the sender's interface.
//   interfaces     a packet leaves when the sender's interface is free and keeps it busy for
//                  g + G·s; its first byte reaches the receiver's interface L later, which takes
//                  it when free (packets from several senders land one after another) and is
//                  busy g + G·s too; the last byte lands G·s after the first taken.
//   links          on a torus or a fat tree (loggops/topology.hpp) the packet also crosses the
//                  links of its route: it would enter the i-th `i·hop` after leaving, waits
//                  there while the link is busy with earlier packets, and keeps it busy G·s;
//                  its first byte lands L + (links beyond the shortest route's)·hop + the waits
//                  after it left. The links are taken when the packet leaves, for its whole
//                  route at once (in the order packets leave, not the order they would reach a
//                  link: no event per link, so a route of a hundred links costs a loop, not a
//                  hundred events). A packet of 0 bytes (a rendezvous' request or answer) holds
//                  no link.
//   eager (s ≤ S)  one packet with the bytes; a send is complete once its packet is in the
//                  interface (the bytes were copied), a `bsend` at once.
//   rendezvous     a request (0 bytes); when a receive matches it, at its arrival or when the
//   (s > S, ssend) receive is posted later, the receiver's interface answers (0 bytes); the
//                  answer's arrival starts the data from the user's buffer; the send completes
//                  when its last byte has left. `ssend` goes so for every size.
//   receive        matching happens as packets land (as on an interface that matches, or an
//                  MPI library progressing in the background); the process is charged
//                  o_r + O_r·s when the receive completes in recv, wait or test.
//   polling        a test, iprobe or progress that finds nothing costs o_r (at least 1 ns):
//                  looking is a call into the library, and virtual time must move.
//
// Nothing is computed in handlers: the interfaces work beside the CPU, which only the calls
// above and `compute` occupy (and detours, `add_detours`). Packets between two nodes land in the
// order they left (one path per pair, each interface first come first served), so receives
// match messages in the order they were sent without sequence numbers.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/transport/loggops/machine.hpp>
#include <comet/transport/loggops/topology.hpp>
#include <comet/transport/nx2/buffers.hpp>
#include <comet/transport/nx2/engine.hpp>
#include <comet/transport/nx2/events.hpp>
#include <comet/transport/nx2/node.hpp>
#include <comet/transport/nx2/time.hpp>
#include <comet/transport/nx2/waits.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace comet::loggops {

/// What a node did, counted as the run goes (run_statistics).
struct node_counters {
    std::uint64_t messages_sent = 0;
    std::uint64_t bytes_sent = 0;
    std::uint64_t rendezvous = 0;  ///< messages sent by request, answer and data
    node_counters& operator+=(const node_counters& o) noexcept {
        messages_sent += o.messages_sent;
        bytes_sent += o.bytes_sent;
        rendezvous += o.rendezvous;
        return *this;
    }
};

namespace detail {

using nx2::detail::event;
using nx2::detail::event_kind;
using nx2::detail::list_append;
using nx2::detail::list_remove;
using nx2::detail::wait_desc;
using nx2::detail::wait_op;

enum class mode : std::uint8_t { eager, rendezvous, local };
/// Which packet of a message an event carries (event::tag).
enum packet : std::uint64_t { eager_data, request, answer, data };

struct op;

/// A message from its send until both ends are done with it.
struct message {
    int source = 0, dest = 0, tag = 0;
    std::size_t size = 0;
    mode how = mode::eager;
    op* sop = nullptr;                   ///< the send to complete
    const std::byte* payload = nullptr;  ///< rendezvous: the sender's bytes until they left
    nx2::detail::system_buffer copy;     ///< eager: the bytes, copied at the send
    op* rop = nullptr;                   ///< the receive it was matched to
    bool dropped = false;                ///< too big for its receive: nothing more is moved
    int packets = 0;                     ///< events still carrying it
    bool sender_done = false, receiver_done = false;
    vtime left = 0;                      ///< when its first packet left the sender's interface
    message* prev = nullptr;             ///< in the receiver's unexpected list
    message* next = nullptr;
};

/// A send or receive in progress on one rank.
struct op {
    bool is_send = false, done = false, abandoned = false, posted = false;
    int owner = 0, peer = 0, tag = 0;
    mutable_bytes buffer;
    status result;
    std::size_t overflow = 0;
    vtime finish_cost = 0;  ///< charged to the process when it collects the op (o_r + O_r·s)
    vtime wire_from = 0, wire_to = 0;
    message* msg = nullptr;
    std::vector<std::byte> own;  ///< a send's bytes, copied when its request was dropped
    op* prev = nullptr;
    op* next = nullptr;
};

/// One node: its receive queues, its two interfaces, its pool of operations.
struct node {
    wait_desc waiting;
    op* posted_head = nullptr;
    op* posted_tail = nullptr;
    message* unexpected_head = nullptr;
    message* unexpected_tail = nullptr;
    vtime tx_free = 0, rx_free = 0;  ///< when each interface can take the next packet
    std::vector<std::unique_ptr<op>> ops;
    std::vector<op*> free_ops;

    message* find_unexpected(int source, int tag) const noexcept {
        message* m = unexpected_head;
        while (m && !((source == any_source || source == m->source) && (tag == any_tag || tag == m->tag))) m = m->next;
        return m;
    }

    op* take_posted(const message& m) noexcept {
        for (op* o = posted_head; o; o = o->next)
            if ((o->peer == any_source || o->peer == m.source) && (o->tag == any_tag || o->tag == m.tag)) {
                list_remove(posted_head, posted_tail, o);
                o->posted = false;
                o->result = status{m.source, m.tag, m.size};
                return o;
            }
        return nullptr;
    }

    op* new_op(int owner, bool is_send, int peer, int tag) {
        op* o;
        if (free_ops.empty()) {
            ops.push_back(std::make_unique<op>());
            o = ops.back().get();
        } else {
            o = free_ops.back();
            free_ops.pop_back();
        }
        *o = op{};
        o->is_send = is_send;
        o->owner = owner;
        o->peer = peer;
        o->tag = tag;
        return o;
    }
};

/// The engine's kernel work: the LogGOPS machine has none (nothing runs in handlers).
struct no_work {
    no_work* irq_next = nullptr;
};

/// One run of a LogGOPS machine.
class world : public nx2::detail::engine<world, no_work> {
public:
    world(const machine& m, int ranks, std::size_t stack_size)
        : engine(ranks, ranks, stack_size), m_(m), costs_(m), links_(m.network, m.nodes), link_free_(links_.count()),
          nodes_(static_cast<std::size_t>(ranks)), counters_(static_cast<std::size_t>(ranks)) {}

    const machine& config() const noexcept { return m_; }
    const node_counters& counters(int r) const noexcept { return counters_[static_cast<std::size_t>(r)]; }
    const std::vector<node_counters>& all_counters() const noexcept { return counters_; }

    /// Messages whose record is still held: sent and not yet received (nor refused).
    std::size_t messages_held() const noexcept { return messages_.size() - free_messages_.size(); }

    /// Bytes of the simulator's state per rank (memory estimates).
    static constexpr std::size_t bytes_per_node() noexcept {
        return engine::bytes_per_node() + sizeof(node) + sizeof(node_counters);
    }

    // ==== called by a rank's process (on its fiber) ====

    /// Blocks the process until `ready()` holds.
    template <class Ready>
    void block(int r, Ready& ready, const wait_desc& desc) {
        if (ready()) return;
        check_stop(r);
        node_of(r).waiting = desc;
        suspend_until(r, ready);
    }

    /// A poll found nothing: it costs the receiver's overhead; `idle_poll_limit` of them in a
    /// row with nothing pending anywhere are a deadlock.
    void idle(int r, const wait_desc& what) {
        charge(r, std::max<vtime>(m_.o_r, nanoseconds));
        if (!idle_poll(r)) return;
        node_of(r).waiting = what;
        declare_deadlock();
        check_stop(r);
    }

    /// Starts a send (`how`: eager, or rendezvous also for a small message: ssend). Charges the
    /// call; the op is done at once for a `bsend` and a message to the rank itself.
    op* start_send(int r, int dest, int tag, const_bytes data, bool rendezvous, bool buffered) {
        started_operation(r);
        op* o = node_of(r).new_op(r, true, dest, tag);
        o->result = status{dest, tag, data.size()};
        node_counters& c = counters_[static_cast<std::size_t>(r)];
        ++c.messages_sent;
        c.bytes_sent += data.size();
        if (dest == r) {
            charge(r, costs_.send(data.size()));
            deliver_local(r, tag, data);
            o->done = true;
            return o;
        }
        message* msg = new_message(r, dest, tag, data.size(), rendezvous ? mode::rendezvous : mode::eager);
        if (!rendezvous) {
            charge(r, costs_.send(data.size()));
            copy_in(msg, data);
            msg->sender_done = true;
            const vtime start = inject(r, dest, msg, eager_data, data.size());
            if (buffered || start <= now()) {
                o->done = true;
            } else {
                msg->sop = o;
                o->msg = msg;
                ++msg->packets;
                events().push(start, event_kind::lg_sent, r, msg, eager_data);
            }
            return o;
        }
        ++c.rendezvous;
        charge(r, costs_.send(data.size()));
        msg->payload = data.data();
        msg->sop = o;
        o->msg = msg;
        inject(r, dest, msg, request, 0);
        return o;
    }

    /// Starts a receive; done at once if its eager message is already in.
    op* start_recv(int r, int source, int tag, mutable_bytes buffer) {
        started_operation(r);
        node& n = node_of(r);
        op* o = n.new_op(r, false, source, tag);
        o->buffer = buffer;
        message* msg = n.find_unexpected(source, tag);
        if (!msg) {
            o->posted = true;
            list_append(n.posted_head, n.posted_tail, o);
            return o;
        }
        list_remove(n.unexpected_head, n.unexpected_tail, msg);
        o->result = status{msg->source, msg->tag, msg->size};
        matched(r, o, msg);
        return o;
    }

    /// The earliest unexpected message matching (source, tag), as iprobe sees it.
    const message* find_unexpected(int r, int source, int tag) const {
        return nodes_[static_cast<std::size_t>(r)].find_unexpected(source, tag);
    }

    /// The request of a pending op was dropped: a receive is cancelled (or what still arrives
    /// for it thrown away); a send keeps its promise from a private copy of its bytes.
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

    void free_op(op* o) {
        o->msg = nullptr;
        o->own.clear();
        o->own.shrink_to_fit();
        node_of(o->owner).free_ops.push_back(o);
    }

    /// Charges what collecting a completed op costs the process (the receiver's overhead).
    void collect(int r, const op* o) { charge(r, o->finish_cost); }

private:
    friend class nx2::detail::engine<world, no_work>;

    node& node_of(int r) noexcept { return nodes_[static_cast<std::size_t>(r)]; }

    message* new_message(int source, int dest, int tag, std::size_t size, mode how) {
        message* m;
        if (free_messages_.empty()) {
            messages_.push_back(std::make_unique<message>());
            m = messages_.back().get();
        } else {
            m = free_messages_.back();
            free_messages_.pop_back();
        }
        m->source = source, m->dest = dest, m->tag = tag, m->size = size, m->how = how;
        m->sop = m->rop = nullptr;
        m->payload = nullptr;
        m->dropped = m->sender_done = m->receiver_done = false;
        m->packets = 0;
        m->left = 0;
        m->prev = m->next = nullptr;
        return m;
    }

    void maybe_free(message* m) {
        if (!m->sender_done || !m->receiver_done || m->packets > 0) return;
        if (m->copy.capacity > kept_copy) buffers_.put(m->copy);
        free_messages_.push_back(m);
    }

    /// A record keeps a buffer of up to this many bytes when it is freed: a small message's copy
    /// then costs no trip through the pool.
    static constexpr std::size_t kept_copy = 256;

    /// Copies an eager message's bytes into its record.
    void copy_in(message* m, const_bytes data) {
        if (data.size() <= m->copy.capacity)
            m->copy.size = data.size();
        else
            buffers_.get(m->copy, data.size());
        if (!data.empty()) std::memcpy(m->copy.data(), data.data(), data.size());
    }

    /// Puts a packet of `bytes` from `from` to `to` on the sender's interface; returns when it
    /// leaves. Its first byte reaches `to`'s interface L later.
    vtime inject(int from, int to, message* msg, packet kind, std::size_t bytes) {
        node& n = node_of(from);
        const vtime start = std::max(now(), n.tx_free);
        const auto [stream, gap] = costs_.wire(bytes);
        n.tx_free = start + gap;
        if (kind == eager_data || kind == request) msg->left = start;
        ++msg->packets;
        events().push(start + m_.L + route(from, to, start, stream), event_kind::lg_head, to, msg, kind);
        return start;
    }

    /// Takes the links from `from` to `to` for a packet that left at `start` and holds each
    /// `stream`; returns what they add to L: the hops beyond the shortest route's, and the waits.
    vtime route(int from, int to, vtime start, vtime stream) {
        if (link_free_.empty()) return 0;  // fully connected
        vtime wait = 0;
        int crossed = 0;
        links_.route(from, to, [&](std::uint64_t l) {
            const vtime enter = start + crossed * m_.hop + wait;
            vtime& free_at = link_free_[l];
            if (free_at > enter) wait += free_at - enter;
            free_at = std::max(free_at, enter) + stream;
            ++crossed;
        });
        return std::max(0, crossed - links_.nearest()) * m_.hop + wait;
    }

    /// A message to the sending rank itself: into a posted receive, else kept as unexpected.
    void deliver_local(int r, int tag, const_bytes data) {
        message* msg = new_message(r, r, tag, data.size(), mode::local);
        copy_in(msg, data);
        msg->sender_done = true;
        msg->left = now();
        landed(r, msg);
    }

    /// A message's first packet (its bytes, or its request) landed at `r` (or was sent to it by
    /// itself): to a posted receive, else to the unexpected list.
    void landed(int r, message* msg) {
        node& n = node_of(r);
        if (op* o = n.take_posted(*msg)) return matched(r, o, msg);
        list_append(n.unexpected_head, n.unexpected_tail, msg);
    }

    /// Receive `o` of rank `r` takes `msg`, whose first packet has landed.
    void matched(int r, op* o, message* msg) {
        o->wire_from = msg->left;
        if (msg->how != mode::rendezvous) {  // the bytes are here: copy them out
            o->wire_to = now();
            if (msg->size > o->buffer.size()) {
                o->overflow = msg->size;
            } else {
                if (msg->size && !o->abandoned) std::memcpy(o->buffer.data(), msg->copy.data(), msg->size);
                o->finish_cost = costs_.receive(msg->size);
            }
            msg->receiver_done = true;
            maybe_free(msg);
            complete(o);
            return;
        }
        msg->rop = o;
        o->msg = msg;
        if (msg->size > o->buffer.size()) {  // too big: the receive fails now, the sender is told
            o->overflow = msg->size;
            msg->dropped = true;
            msg->receiver_done = true;  // its data never comes: the answer alone frees it
            msg->rop = nullptr;
            o->msg = nullptr;
            complete(o);
        }
        inject(r, msg->source, msg, answer, 0);
    }

    void complete(op* o) {
        o->done = true;
        if (o->abandoned) return free_op(o);
        poke(o->owner);
    }

    /// The sender is done with `msg`.
    void finish_send(message* msg) {
        msg->payload = nullptr;
        if (op* s = std::exchange(msg->sop, nullptr)) {
            s->msg = nullptr;
            complete(s);
        }
        msg->sender_done = true;
        maybe_free(msg);
    }

    // ---- for the engine ----

    void handle(const event& e) {
        auto* msg = static_cast<message*>(e.item);
        const auto kind = static_cast<packet>(e.tag);
        switch (e.kind) {
        case event_kind::lg_head: {  // the receiving interface takes the packet when free
            node& n = node_of(e.node);
            const std::size_t bytes = kind == eager_data || kind == data ? msg->size : 0;
            const vtime start = std::max(now(), n.rx_free);
            const auto [stream, gap] = costs_.wire(bytes);
            n.rx_free = start + gap;
            events().push(start + stream, event_kind::lg_arrive, e.node, msg, kind);
            break;
        }
        case event_kind::lg_arrive:
            --msg->packets;
            arrived(e.node, msg, kind);
            break;
        case event_kind::lg_sent:
            --msg->packets;
            if (kind == eager_data) {  // in the interface: the eager send is complete
                if (op* s = std::exchange(msg->sop, nullptr)) {
                    s->msg = nullptr;
                    complete(s);
                }
                maybe_free(msg);
            } else {
                finish_send(msg);
            }
            break;
        default: break;
        }
    }

    void arrived(int r, message* msg, packet kind) {
        switch (kind) {
        case eager_data:
        case request: landed(r, msg); break;
        case answer:  // at the sender: the data goes now, from the user's buffer
            if (msg->dropped) return finish_send(msg);
            if (op* o = msg->rop; o && !o->abandoned && msg->size) std::memcpy(o->buffer.data(), msg->payload, msg->size);
            {
                const vtime start = inject(r, msg->dest, msg, data, msg->size);
                ++msg->packets;
                events().push(start + costs_.stream(msg->size), event_kind::lg_sent, r, msg, data);
            }
            break;
        case data:
            if (op* o = std::exchange(msg->rop, nullptr)) {
                o->msg = nullptr;
                o->wire_to = now();
                o->finish_cost = costs_.receive(msg->size);
                complete(o);
            }
            msg->receiver_done = true;
            maybe_free(msg);
            break;
        }
    }

    // Nothing runs in handlers (the engine asks only if work was queued, which never is).
    void begin_handler(int, no_work*) {}
    void end_handler(int, no_work*) {}

    std::string waiting_for(int r) const { return nx2::detail::describe(nodes_[static_cast<std::size_t>(r)].waiting); }

    machine m_;
    cost_table costs_;  ///< m_'s costs by size
    links links_;
    std::vector<vtime> link_free_;  ///< when each link can take the next packet (none when fully connected)
    std::vector<node> nodes_;
    std::vector<node_counters> counters_;
    nx2::detail::buffer_pool buffers_;  // before the messages: they give their buffers back to it
    std::vector<std::unique_ptr<message>> messages_;
    std::vector<message*> free_messages_;
};

}  // namespace detail
}  // namespace comet::loggops
