// comet/transport/nx2/world.hpp — one run of the simulated machine: the discrete-event scheduler
// (virtual clock, event queue, the ranks' fibers), each node's process and NX/2 kernel, and
// NX/2's protocols (thesis 4.2) over the network of network.hpp.
//
// Scheduling. One event queue ordered by (time, insertion sequence) drives everything. A rank's
// process runs on its fiber until it blocks (a receive with nothing to receive, a send waiting
// for an acknowledgement) or charges CPU time (a system call, a copy, `compute`); then the
// scheduler takes the next event. Nothing depends on the host's speed or load: every decision
// is a function of virtual time and of the order of events, so two runs give the same times
// bit for bit.
//
// A node's CPU. The process charges time for what it does. NX/2 runs its protocol in interrupt
// handlers ("interrupt"), one after another on the node's kernel; a handler that runs while
// the process computes steals its time (the process finishes later by the handler's cost), so
// overlap of communication with computation is whatever the handlers leave of it.
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
//
// Deadlock: the event queue is empty while some process waits — nothing can ever wake it — or
// while one polls (msgdone, iprobe) for the `idle_poll_limit`-th time in a row. Every waiting
// rank then raises `deadlock_error` listing what each rank waits or polls for. A rank that throws
// stops the run: the others raise `stopped` at their next call into NX/2 (at once if waiting).
//
// Detours (OS noise; comet/transport/decorators/noisy.hpp registers them, `add_detours`): a
// detour takes its node's kernel for its length, as an interrupt handler of that cost would:
// it steals the time of a process charging CPU, handlers arriving meanwhile queue behind it,
// and a process woken meanwhile resumes when it ends. One that falls while a handler runs
// begins when that handler ends, before handlers still queued (a handler is not preempted; the
// system's own work goes before the messages'). Each schedule is generated lazily, one detour
// event at a time, and detours never keep a run alive: the run ends when every process has,
// deadlock is declared as if they were not there (a handler they hold back is no deadlock),
// and a poller's count of idle polls ignores what they push. With no detour registered none of
// this costs anything.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/transport/nx2/events.hpp>
#include <comet/transport/nx2/fibers.hpp>
#include <comet/transport/nx2/machine.hpp>
#include <comet/transport/nx2/network.hpp>
#include <comet/transport/nx2/time.hpp>

#include <boost/context/detail/exception.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
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

/// What detours (OS noise) took from a node: how many of one schedule's came, and their total
/// length (each took the node's CPU for its whole length, now or after the handler running).
struct detour_counters {
    std::uint64_t count = 0;
    vtime time = 0;
    double seconds() const noexcept { return to_seconds(time); }
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

/// How a message travels.
enum class mode : std::uint8_t {
    eager,       ///< at most eager_limit bytes, into a reserved buffer
    rendezvous,  ///< longer: request, acknowledgement, circuit
    sync,        ///< synchronous send: request for every size, acknowledged at the match
    ready,       ///< ready send (force type): data at once, into a posted receive
    local,       ///< to the sending node itself: a copy, no network
};

struct op;

/// A system buffer's bytes: NX/2's buffer for a message no receive has taken yet.
struct system_buffer {
    std::unique_ptr<std::byte[]> bytes;
    std::size_t size = 0;
    std::size_t capacity = 0;
    std::byte* data() noexcept { return bytes.get(); }
    const std::byte* data() const noexcept { return bytes.get(); }
};

/// Recycles system buffers by size class (powers of two) and never zero-fills them. Why: the
/// simulator moves the real bytes, and a fresh allocation of a few hundred kilobytes per long
/// message (mmap, page faults, zeroing) cost more host time than all the rest of the model. At
/// most `max_retained` bytes are kept for reuse.
class buffer_pool {
public:
    static constexpr std::size_t max_retained = std::size_t{256} << 20;

    /// A buffer of at least `n` bytes (contents undefined), `size` set to `n`.
    void get(system_buffer& b, std::size_t n) {
        put(b);
        if (n == 0) return;
        const auto k = static_cast<std::size_t>(std::bit_width(std::max<std::size_t>(n, 64) - 1));
        auto& shelf = free_[k];
        if (!shelf.empty()) {
            b.bytes = std::move(shelf.back());
            shelf.pop_back();
            retained_ -= std::size_t{1} << k;
        } else {
            b.bytes = std::make_unique_for_overwrite<std::byte[]>(std::size_t{1} << k);
        }
        b.capacity = std::size_t{1} << k;
        b.size = n;
    }

    /// Takes `b`'s bytes back (leaving it empty).
    void put(system_buffer& b) {
        if (b.bytes && retained_ + b.capacity <= max_retained) {
            retained_ += b.capacity;
            free_[static_cast<std::size_t>(std::countr_zero(b.capacity))].push_back(std::move(b.bytes));
        }
        b.bytes.reset();
        b.size = b.capacity = 0;
    }

private:
    std::vector<std::unique_ptr<std::byte[]>> free_[64];
    std::size_t retained_ = 0;
};

/// A message between two nodes, from its send until both ends are done with it.
struct message {
    int source = 0, dest = 0, tag = 0;
    std::uint64_t seq = 0;  ///< its place among `source`'s messages to `dest` in its message space
    bool system = false;  ///< sent by a collective: only collective receives match it
    std::size_t size = 0;
    mode how = mode::eager;
    op* sop = nullptr;                   ///< the send to complete (once the data is out)
    const std::byte* payload = nullptr;  ///< the sender's bytes, while the sender must keep them
    system_buffer sysbuf;                ///< a system buffer holding the message
    op* rop = nullptr;                   ///< the receive it was matched to
    bool via_sysbuf = false;  ///< the long data lands (landed) in sysbuf; copy it to `rop`
    bool data_arrived = false;
    bool dropped = false;     ///< refused (truncation): its data is thrown away
    bool released = false;    ///< waiting to be sent: the kernel sends it at its handler's end
    std::vector<std::byte> kept;  ///< a bsend's long message: its bytes, kept by the kernel while it waits
    bool sender_done = false, receiver_done = false;
    int refs = 0;             ///< transmissions and interrupts still using it
    message* prev = nullptr;  ///< in the receiver's unexpected list, or the sender's queue
    message* next = nullptr;
};

/// A send or receive in progress on one rank.
struct op {
    bool is_send = false;
    bool done = false;
    bool abandoned = false;  ///< its request was dropped while pending: free it when done
    bool posted = false;
    int owner = 0;
    int peer = 0, tag = 0;
    bool system = false;
    mutable_bytes buffer;
    status result;
    std::size_t overflow = 0;  ///< a matched message that did not fit: its size
    message* msg = nullptr;
    std::vector<std::byte> own;  ///< a send's bytes, copied when its request was dropped
    op* prev = nullptr;          ///< in the posted-receive list
    op* next = nullptr;
};

/// What a waiting rank waits for (deadlock reports).
enum class wait_op : std::uint8_t {
    none, recv, send, credit, ssend, rsend, wait_recv, wait_send, collective,
    poll_recv, poll_send, poll_probe, poll_progress,  ///< polling (msgdone, iprobe, progress), not blocked
};

struct wait_desc {
    wait_op op = wait_op::none;
    int peer = 0;
    int tag = 0;
    std::size_t size = 0;
    const char* collective = nullptr;  ///< inside barrier / broadcast / allreduce_sum
    int step_peer = -1;                ///< the collective's partner of this step
};

inline std::string describe(const wait_desc& w) {
    std::ostringstream os;
    const auto from = [](int p) { return p < 0 ? std::string("any rank") : "rank " + std::to_string(p); };
    const auto tag = [](int t) { return t < 0 ? std::string("any tag") : "tag " + std::to_string(t); };
    switch (w.op) {
    case wait_op::none: os << "running"; break;
    case wait_op::recv: os << "recv from " << from(w.peer) << " (" << tag(w.tag) << ", up to " << w.size << " bytes)"; break;
    case wait_op::send:
        os << "send to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes), not yet acknowledged";
        break;
    case wait_op::credit:
        os << "send to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes): no free buffer at rank " << w.peer;
        break;
    case wait_op::ssend:
        os << "ssend to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes), not yet received";
        break;
    case wait_op::rsend: os << "rsend to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes)"; break;
    case wait_op::wait_recv: os << "wait for irecv from " << from(w.peer) << " (" << tag(w.tag) << ")"; break;
    case wait_op::wait_send:
        os << "wait for isend to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes), not yet delivered";
        break;
    case wait_op::collective:
        os << w.collective;
        if (w.step_peer >= 0) os << ", exchanging with rank " << w.step_peer;
        break;
    case wait_op::poll_recv: os << "test (msgdone) of irecv from " << from(w.peer) << " (" << tag(w.tag) << ")"; break;
    case wait_op::poll_send:
        os << "test (msgdone) of isend to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes)";
        break;
    case wait_op::poll_probe: os << "iprobe for " << from(w.peer) << " (" << tag(w.tag) << ")"; break;
    case wait_op::poll_progress: os << "progress"; break;
    }
    return os.str();
}

/// One detour: a node's CPU taken at `start` for `length`.
struct detour {
    vtime start = 0;
    vtime length = 0;
};

/// A node's detours in order of start, without end: each call gives the next.
using detour_stream = std::function<detour()>;

enum class app_state : std::uint8_t { running, charging, blocked, woken, finished };
enum class stop_reason : std::uint8_t { none, failed, deadlock };

/// What a node knows about one other node.
struct peer_state {
    std::uint32_t credits = 0;  ///< free buffers of mine at that node (sender's count)
    std::uint32_t owed = 0;     ///< buffers of that node's, here, freed but not yet returned
    bool listed = false;        ///< in `owed_to`
    message* out_head = nullptr;  ///< messages to that node waiting for a buffer (in order)
    message* out_tail = nullptr;
    // Non-overtaking: messages are numbered per pair and message space (user, collective) when
    // sent, and matched in that order when they arrive (only retransmission reorders them).
    std::uint64_t next_seq[2] = {0, 0};  ///< the number of my next message to that node
    std::uint64_t expected[2] = {0, 0};  ///< the number of that node's next message to match here
    std::vector<transmission*> parked;   ///< that node's messages that arrived ahead of their turn
};

/// One node: its process (the rank's fiber), its kernel and its message queues.
struct node {
    app_state state = app_state::woken;
    vtime busy_until = 0;  ///< end of the process's current charge of CPU time
    bool (*ready_fn)(void*) = nullptr;
    void* ready_ctx = nullptr;
    wait_desc waiting;
    const char* collective = nullptr;  ///< the collective this rank is inside, for reports
    // kernel
    bool kernel_busy = false;
    vtime kernel_free = 0;
    transmission* irq_head = nullptr;
    transmission* irq_tail = nullptr;
    // matching
    op* posted_head = nullptr;
    op* posted_tail = nullptr;
    message* unexpected_head = nullptr;
    message* unexpected_tail = nullptr;
    std::unordered_map<int, peer_state> peers;
    std::vector<int> owed_to;  ///< peers with owed buffers, in the order they became owed
    std::vector<std::unique_ptr<op>> ops;
    std::vector<op*> free_ops;
    std::uint32_t collective_seq = 0;
    // polling
    std::uint64_t idle_polls = 0;  ///< polls in a row that found nothing while nothing could change
    std::uint64_t poll_mark = 0;   ///< events pushed by the last of them
};

/// Polls in a row (msgdone, iprobe, progress) that find nothing while no event is pending
/// anywhere, and the rank starts no operation between them, after which the run is declared
/// deadlocked. With no event pending every other rank is blocked or finished, so such a poll
/// can only ever find nothing; a program may still poll a bounded number of times before it
/// acts, so the verdict waits for a million of them (25 virtual seconds of the preset's calls;
/// a few tens of milliseconds of host time).
inline constexpr std::uint64_t idle_poll_limit = 1'000'000;

/// One run of the simulated machine.
class world {
public:
    world(const machine& m, int ranks, std::size_t stack_size)
        : m_(m), ranks_(ranks), nodes_(static_cast<std::size_t>(m.nodes())), counters_(nodes_.size()),
          net_(m_, events_, now_, counters_), fibers_(ranks, stack_size) {}
    world(const world&) = delete;
    world& operator=(const world&) = delete;

    const machine& config() const noexcept { return m_; }
    int ranks() const noexcept { return ranks_; }
    vtime now() const noexcept { return now_; }
    const node_counters& counters(int r) const noexcept { return counters_[static_cast<std::size_t>(r)]; }

    /// Runs `rank_main(r)` for every rank on its fiber until all have finished; returns the
    /// lowest rank's failure (ignoring ranks merely stopped), if any.
    std::exception_ptr run(const std::function<void(int)>& rank_main) {
        for (int r = 0; r < ranks_; ++r) {
            fibers_.spawn(r, [this, r, &rank_main] {
                try {
                    rank_main(r);
                } catch (const boost::context::detail::forced_unwind&) {
                    throw;
                } catch (...) {
                    fail(r, std::current_exception());
                }
                node_of(r).state = app_state::finished;
            });
            events_.push(0, event_kind::resume_app, r);
        }
        loop();
        return failure_;
    }

    void fill(run_statistics& s) const {
        s.end_time = now_;
        s.events = events_.pushed();
        s.nodes = counters_;
    }

    // ==== called by a rank's process (on its fiber) ====

    /// The process spends `d` of CPU time (plus whatever handlers take meanwhile).
    void charge(int r, vtime d) {
        node& n = node_of(r);
        const vtime extra = n.kernel_busy ? std::max<vtime>(0, n.kernel_free - now_) : 0;
        const vtime end = now_ + d + extra;
        if (end == now_) return;
        n.busy_until = end;
        // Nothing can happen before `end`: no handler can steal time, no other process can run.
        // Skip the two switches (this is most of the simulator's speed on echo).
        if (events_.empty() || events_.next_time() > end) {
            now_ = end;
            return;
        }
        n.state = app_state::charging;
        push_resume(end, r);
        fibers_.suspend();
        n.state = app_state::running;
    }

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
        n.ready_fn = [](void* p) { return (*static_cast<Ready*>(p))(); };
        n.ready_ctx = &ready;
        n.state = app_state::blocked;
        fibers_.suspend();
        n.state = app_state::running;
        n.ready_fn = nullptr;
        check_stop(r);
        charge(r, m_.resume);
    }

    /// Raises the stop exception if the run is stopping.
    void check_stop(int r) const {
        if (reason_ == stop_reason::none) return;
        if (reason_ == stop_reason::deadlock) throw deadlock_error(message_);
        raise<stopped>(r, "stopped because ", message_);
    }

    /// A polling call (msgdone, iprobe, progress) found nothing: the kernel returns what it
    /// owes. Polling while no event is pending anywhere changes nothing; `idle_poll_limit` such
    /// polls in a row are a deadlock (`what` says what this rank polls for in the report).
    /// Detours are not counted: those pending, and what they pushed since the last poll (their
    /// own events, a charge they lengthened), change nothing the poll looks at.
    void idle(int r, const wait_desc& what) {
        flush_credits(r);
        node& n = node_of(r);
        const std::uint64_t pushed = events_.pushed() - noise_pushed_;
        if (!quiet() || pushed != n.poll_mark) {
            n.idle_polls = 0;
            n.poll_mark = pushed;
            return;
        }
        if (++n.idle_polls < idle_poll_limit) return;
        n.waiting = what;
        if (n.collective) n.waiting.collective = n.collective;
        declare_deadlock();
        check_stop(r);
    }

    /// Puts node `r`'s detours from `next` on its kernel from now on (a detour due earlier
    /// comes now); returns the handle that removes them and reads their counters.
    std::size_t add_detours(int r, detour_stream next) {
        if (noise_waiting_.empty()) noise_waiting_.resize(nodes_.size()), noise_edges_.resize(nodes_.size());
        const detour d = next();
        const std::size_t handle = noise_.size();
        noise_.push_back({r, std::move(next), d.length, {}});
        push_noise(std::max(d.start, now_), event_kind::detour, r, handle);
        return handle;
    }
    /// No further detours from schedule `handle` (one running or waiting still ends as it would).
    void remove_detours(std::size_t handle) noexcept { noise_[handle].next = nullptr; }
    const detour_counters& detours(std::size_t handle) const noexcept { return noise_[handle].counted; }
    /// The detours that began on node `r` so far plus those that ended: a reading moves across
    /// any stretch of time a detour overlaps, one running at its start included.
    std::uint64_t disturbances(int r) const noexcept {
        return noise_edges_.empty() ? 0 : noise_edges_[static_cast<std::size_t>(r)];
    }

    void set_collective(int r, const char* what) noexcept { node_of(r).collective = what; }
    std::uint32_t next_collective(int r) noexcept { return node_of(r).collective_seq++; }

    /// Starts a send. Charges the call (and the copy of an eager message); the returned op is
    /// done if the message is already on its way and the buffer free again.
    op* start_send(int r, int dest, int tag, bool system, const_bytes data, mode how, bool buffered = false) {
        charge(r, m_.call);
        node_of(r).idle_polls = 0;
        op* o = new_op(r, true, dest, tag, system);
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
        message* msg = new_message(r, dest, tag, system, data.size(), how);
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
                fill(msg->sysbuf, data.data(), data.size());
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
                    append(p.out_head, p.out_tail, msg);
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
            append(p.out_head, p.out_tail, msg);
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
            append(p.out_head, p.out_tail, msg);
            kick(r, dest);
        }
        return o;
    }

    /// Starts a receive. Charges the call (and the copy out of a system buffer); the returned
    /// op is done if a message was already there.
    op* start_recv(int r, int source, int tag, bool system, mutable_bytes buffer) {
        charge(r, m_.call);
        node_of(r).idle_polls = 0;
        op* o = new_op(r, false, source, tag, system);
        o->buffer = buffer;
        node& n = node_of(r);
        message* msg = n.unexpected_head;
        while (msg && !matches(source, tag, system, *msg)) msg = msg->next;
        if (!msg) {
            o->posted = true;
            append(n.posted_head, n.posted_tail, o);
            return o;
        }
        remove(n.unexpected_head, n.unexpected_tail, msg);
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
            if (msg->how == mode::eager && !msg->system) owe_credit(r, msg->source);
            msg->receiver_done = true;
            maybe_free(msg);
            o->done = true;
            return o;
        case mode::rendezvous:
            if (msg->data_arrived) {
                charge(r, times(m_.copy_per_byte, msg->size));
                copy(buffer, msg->sysbuf.data(), msg->size);
                msg->receiver_done = true;
                maybe_free(msg);
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
        const message* msg = nodes_[static_cast<std::size_t>(r)].unexpected_head;
        while (msg && !matches(source, tag, system, *msg)) msg = msg->next;
        return msg;
    }

    /// The request of a pending op was dropped: a receive is cancelled (or its data discarded);
    /// a send keeps its promise from a private copy of its bytes.
    void abandon(op* o) {
        if (o->done) return free_op(o);
        if (o->posted) {
            node& n = node_of(o->owner);
            remove(n.posted_head, n.posted_tail, o);
            return free_op(o);
        }
        o->abandoned = true;
        if (o->is_send && o->msg && o->msg->payload) {
            o->own.assign(o->msg->payload, o->msg->payload + o->msg->size);
            o->msg->payload = o->own.data();
        }
    }

    /// Gives a completed op back to its rank's pool.
    void free_op(op* o) {
        node& n = node_of(o->owner);
        o->msg = nullptr;
        o->own.clear();
        o->own.shrink_to_fit();
        n.free_ops.push_back(o);
    }

private:
    node& node_of(int r) noexcept { return nodes_[static_cast<std::size_t>(r)]; }

    peer_state& peer(int r, int other) {
        auto [it, fresh] = node_of(r).peers.try_emplace(other);
        if (fresh) it->second.credits = static_cast<std::uint32_t>(m_.eager_buffers);
        return it->second;
    }

    static bool matches(int source, int tag, bool system, const message& m) noexcept {
        return m.system == system && (source == any_source || source == m.source) && (tag == any_tag || tag == m.tag);
    }

    template <class T>
    static void append(T*& head, T*& tail, T* x) noexcept {
        x->prev = tail;
        x->next = nullptr;
        (tail ? tail->next : head) = x;
        tail = x;
    }
    template <class T>
    static void remove(T*& head, T*& tail, T* x) noexcept {
        (x->prev ? x->prev->next : head) = x->next;
        (x->next ? x->next->prev : tail) = x->prev;
        x->prev = x->next = nullptr;
    }

    static void copy(mutable_bytes to, const std::byte* from, std::size_t n) noexcept {
        if (n) std::memcpy(to.data(), from, n);
    }

    /// Copies `n` bytes into a system buffer taken from the pool.
    void fill(system_buffer& b, const std::byte* from, std::size_t n) {
        buffers_.get(b, n);
        if (n) std::memcpy(b.data(), from, n);
    }

    // ---- pools ----

    op* new_op(int r, bool is_send, int peer_rank, int tag, bool system) {
        node& n = node_of(r);
        op* o;
        if (n.free_ops.empty()) {
            n.ops.push_back(std::make_unique<op>());
            o = n.ops.back().get();
        } else {
            o = n.free_ops.back();
            n.free_ops.pop_back();
        }
        o->is_send = is_send;
        o->done = o->abandoned = o->posted = false;
        o->owner = r;
        o->peer = peer_rank;
        o->tag = tag;
        o->system = system;
        o->buffer = {};
        o->result = status{};
        o->overflow = 0;
        o->msg = nullptr;
        o->prev = o->next = nullptr;
        return o;
    }

    message* new_message(int source, int dest, int tag, bool system, std::size_t size, mode how) {
        message* m;
        if (free_messages_.empty()) {
            messages_.push_back(std::make_unique<message>());
            m = messages_.back().get();
        } else {
            m = free_messages_.back();
            free_messages_.pop_back();
        }
        m->source = source;
        m->dest = dest;
        m->tag = tag;
        m->system = system;
        m->size = size;
        m->how = how;
        m->sop = m->rop = nullptr;
        m->payload = nullptr;
        buffers_.put(m->sysbuf);
        m->via_sysbuf = m->data_arrived = m->dropped = m->released = false;
        m->sender_done = m->receiver_done = false;
        m->refs = 0;
        m->prev = m->next = nullptr;
        return m;
    }

    void maybe_free(message* m) {
        if (!m->sender_done || !m->receiver_done || m->refs > 0) return;
        buffers_.put(m->sysbuf);
        if (!m->kept.empty()) {
            m->kept.clear();
            m->kept.shrink_to_fit();
        }
        free_messages_.push_back(m);
    }

    transmission* new_tx() {
        if (free_tx_.empty()) {
            txs_.push_back(std::make_unique<transmission>());
            return txs_.back().get();
        }
        transmission* t = free_tx_.back();
        free_tx_.pop_back();
        return t;
    }
    void free_tx(transmission* t) {
        if (message* m = std::exchange(t->msg, nullptr)) {
            --m->refs;
            maybe_free(m);
        }
        free_tx_.push_back(t);
    }

    transmission* make_tx(wire kind, int src, int dst, message* msg) {
        transmission* t = new_tx();
        t->kind = kind;
        t->discard = false;
        t->src = src;
        t->dst = dst;
        t->msg = msg;
        if (msg) ++msg->refs;
        t->credits = 0;
        t->bytes = 0;
        t->held = 0;
        t->waiting = false;
        t->attempts = 0;
        t->irq_next = nullptr;
        t->cost = 0;
        t->released = 0;
        t->node = dst;
        return t;
    }

    // ---- sending ----

    /// Puts a transmission of `payload` bytes (plus the header) from `from` to `to` on the
    /// network, with every buffer `from` owes `to` piggy-backed.
    transmission* transmit(int from, int to, wire kind, message* msg, std::size_t payload, bool discard = false) {
        transmission* t = make_tx(kind, from, to, msg);
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

    void deliver_local(int r, int tag, bool system, const_bytes data) {
        node& n = node_of(r);
        for (op* o = n.posted_head; o; o = o->next) {
            if (!(o->system == system && (o->peer == any_source || o->peer == r) && (o->tag == any_tag || o->tag == tag)))
                continue;
            remove(n.posted_head, n.posted_tail, o);
            o->posted = false;
            o->result = status{r, tag, data.size()};
            if (data.size() > o->buffer.size())
                o->overflow = data.size();
            else
                copy(o->buffer, data.data(), data.size());
            complete(o);
            return;
        }
        message* msg = new_message(r, r, tag, system, data.size(), mode::local);
        fill(msg->sysbuf, data.data(), data.size());
        msg->sender_done = true;
        append(n.unexpected_head, n.unexpected_tail, msg);
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
        maybe_free(msg);
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
        const app_state s = node_of(r).state;
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
            remove(p.out_head, p.out_tail, msg);
            if (msg->how == mode::eager) {
                fill(msg->sysbuf, msg->payload, msg->size);
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
        transmission* t = make_tx(wire::release, dest, r, nullptr);
        t->node = r;
        interrupt(r, t);
    }

    // ---- completion and waking ----

    void complete(op* o) {
        o->done = true;
        if (o->abandoned) return free_op(o);
        poke(o->owner);
    }

    /// Something changed for node `r`: wake its process if what it waits for holds now.
    void poke(int r) {
        node& n = node_of(r);
        if (n.state != app_state::blocked || !n.ready_fn(n.ready_ctx)) return;
        n.state = app_state::woken;
        events_.push(now_, event_kind::resume_app, r);
    }

    // ---- the kernel: interrupt handlers, one at a time per node ----

    /// Work for node `t->node`'s kernel: begins now if the kernel is idle, else queues.
    void interrupt(int r, transmission* t) {
        node& n = node_of(r);
        t->node = r;
        t->irq_next = nullptr;
        if (!n.kernel_busy) return begin(t);
        (n.irq_tail ? n.irq_tail->irq_next : n.irq_head) = t;
        n.irq_tail = t;
        ++queued_handlers_;
    }

    /// A handler begins: it decides what it will do (matching happens now) and so its cost;
    /// the effects happen when it ends.
    void begin(transmission* t) {
        const int r = t->node;
        node& n = node_of(r);
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
        n.kernel_busy = true;
        n.kernel_free = now_ + cost;
        if (n.state == app_state::charging && now_ < n.busy_until) n.busy_until += cost;  // stolen
        if (t->kind != wire::release) {
            node_counters& c = counters_[static_cast<std::size_t>(r)];
            ++c.interrupts;
            c.interrupt_time += cost;
        }
        events_.push(n.kernel_free, event_kind::handler_end, r, t);
    }

    op* match_posted(int r, const message& msg) {
        node& n = node_of(r);
        for (op* o = n.posted_head; o; o = o->next)
            if (o->system == msg.system && (o->peer == any_source || o->peer == msg.source) &&
                (o->tag == any_tag || o->tag == msg.tag)) {
                remove(n.posted_head, n.posted_tail, o);
                o->posted = false;
                o->result = status{msg.source, msg.tag, msg.size};
                return o;
            }
        return nullptr;
    }

    /// A handler ends: its effects.
    void end(transmission* t) {
        const int r = t->node;
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
                complete(o);
                if (!msg->system) owe_credit(r, msg->source);
                msg->receiver_done = true;
                maybe_free(msg);
            } else {
                append(n.unexpected_head, n.unexpected_tail, msg);
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
                append(n.unexpected_head, n.unexpected_tail, msg);
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
                    buffers_.get(msg->sysbuf, msg->size);
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
                complete(o);
                msg->receiver_done = true;
            }
            break;
        case wire::ready:
            if (op* o = msg->rop) {
                msg->rop = nullptr;
                o->msg = nullptr;
                complete(o);
            }
            msg->receiver_done = true;
            break;
        case wire::dma_done: finish_send(msg); break;
        case wire::credit:
        case wire::release: break;
        }
        free_tx(t);
        kernel_next(r);
    }

    /// Node `r`'s kernel is done with what it ran: detours waiting for it go first (as one, their
    /// lengths added), then the handlers queued.
    void kernel_next(int r) {
        node& n = node_of(r);
        n.kernel_busy = false;
        if (!noise_waiting_.empty())
            if (const vtime waiting = std::exchange(noise_waiting_[static_cast<std::size_t>(r)], 0))
                return detour_begins(r, waiting);
        if (transmission* next = n.irq_head) {
            n.irq_head = next->irq_next;
            if (!n.irq_head) n.irq_tail = nullptr;
            --queued_handlers_;
            begin(next);
        }
    }

    // ---- detours ----

    /// A detour of schedule `handle` is due: the schedule's next one is scheduled, and this one
    /// takes the kernel now, or after the handler (or detour) running.
    void detour_due(std::uint64_t handle) {
        noise_stream& s = noise_[handle];
        if (!s.next) return;  // removed
        const vtime length = s.length;
        const detour d = s.next();
        s.length = d.length;
        push_noise(std::max(d.start, now_), event_kind::detour, s.node, handle);
        ++s.counted.count;
        s.counted.time += length;
        if (node_of(s.node).kernel_busy)
            noise_waiting_[static_cast<std::size_t>(s.node)] += length;
        else
            detour_begins(s.node, length);
    }

    /// A detour takes node `r`'s kernel for `length`, stealing it from a charging process as a
    /// handler does.
    void detour_begins(int r, vtime length) {
        ++noise_edges_[static_cast<std::size_t>(r)];
        node& n = node_of(r);
        n.kernel_busy = true;
        n.kernel_free = now_ + length;
        if (n.state == app_state::charging && now_ < n.busy_until) n.busy_until += length;
        push_noise(n.kernel_free, event_kind::detour_end, r);
    }

    /// Pushes an event of the detours' (none of it counts as progress, `idle`).
    void push_noise(vtime t, event_kind kind, int r, std::uint64_t handle = 0) {
        ++noise_pending_;
        ++noise_pushed_;
        events_.push(t, kind, r, nullptr, handle);
    }

    /// Pushes node `r`'s resume at `t`. One pushed while nothing but detours is due is the
    /// detours' doing (a charge that reaches one, or that one lengthened), not progress (`idle`).
    void push_resume(vtime t, int r) {
        if (quiet()) ++noise_pushed_;
        events_.push(t, event_kind::resume_app, r);
    }

    /// Whether nothing but detours is pending: no event but theirs, and no handler waiting for a
    /// kernel (one held back by a detour is work to come). Nothing but noise can happen then.
    bool quiet() const noexcept { return events_.size() == noise_pending_ && queued_handlers_ == 0; }

    /// The sender is done with `msg` (its data left, or it was refused).
    void finish_send(message* msg) {
        msg->payload = nullptr;
        if (op* s = std::exchange(msg->sop, nullptr)) {
            s->msg = nullptr;
            complete(s);
        }
        msg->sender_done = true;
        maybe_free(msg);
    }

    /// A transmission that opens a message (and is matched when it arrives).
    static bool opens_message(wire kind) noexcept { return kind == wire::eager || kind == wire::request || kind == wire::ready; }

    /// The last byte of a transmission landed: free the circuit; deliver it — a message that
    /// overtook an earlier one of its pair and message space (a retransmitted header) waits
    /// until that one has been delivered, so receives match messages in the order they were sent.
    void arrived(transmission* t) {
        net_.finish(t);
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
            interrupt(t->src, make_tx(wire::dma_done, t->src, t->src, msg));
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
                if (t->dst < ranks_) fail(t->dst, std::make_exception_ptr(invalid_argument(what)));
            }
            interrupt(t->src, make_tx(wire::dma_done, t->src, t->src, msg));
        }
        interrupt(t->dst, t);
    }

    // ---- the scheduler ----

    void loop() {
        for (;;) {
            if (quiet()) {  // detours never keep a run alive
                bool waiting = false;
                for (int r = 0; r < ranks_; ++r) waiting = waiting || node_of(r).state == app_state::blocked;
                if (!waiting) return;
                declare_deadlock();
                continue;
            }
            const event e = events_.pop();
            now_ = e.time;
            switch (e.kind) {
            case event_kind::resume_app: {
                node& n = node_of(e.node);
                if (n.state == app_state::charging) {
                    if (now_ < n.busy_until) {  // handlers (or detours) stole time meanwhile
                        push_resume(n.busy_until, e.node);
                        break;
                    }
                } else if (n.state != app_state::woken) {
                    break;
                }
                n.state = app_state::running;
                fibers_.resume(e.node);
                break;
            }
            case event_kind::net_step: net_.step(static_cast<transmission*>(e.item)); break;
            case event_kind::net_done: arrived(static_cast<transmission*>(e.item)); break;
            case event_kind::handler_end: end(static_cast<transmission*>(e.item)); break;
            case event_kind::net_timeout: net_.timeout(static_cast<transmission*>(e.item), e.tag); break;
            case event_kind::net_retry: net_.retry(static_cast<transmission*>(e.item)); break;
            case event_kind::detour:
                --noise_pending_;
                detour_due(e.tag);
                break;
            case event_kind::detour_end:
                --noise_pending_;
                ++noise_edges_[static_cast<std::size_t>(e.node)];
                kernel_next(e.node);
                break;
            }
        }
    }

    void declare_deadlock() {
        std::ostringstream os;
        bool polling = false;
        for (int r = 0; r < ranks_; ++r) polling = polling || node_of(r).state == app_state::running;
        os << "deadlock at virtual time " << to_seconds(now_) << " s: every rank is blocked"
           << (polling ? ", finished or polling for what cannot come, and" : " or finished and") << " no event is pending:";
        for (int r = 0; r < ranks_; ++r) {
            const node& n = node_of(r);
            os << (r ? "; " : " ") << "rank " << r << ' ';
            if (n.state == app_state::finished)
                os << "finished";
            else if (n.state == app_state::running)
                os << "polls " << describe(n.waiting) << ' ' << n.idle_polls << " times in a row with no event pending";
            else
                os << "waits in " << describe(n.waiting);
        }
        message_ = os.str();
        reason_ = stop_reason::deadlock;
        wake_all();
    }

    void wake_all() {
        for (int r = 0; r < ranks_; ++r) {
            node& n = node_of(r);
            if (n.state != app_state::blocked) continue;
            n.state = app_state::woken;
            events_.push(now_, event_kind::resume_app, r);
        }
    }

    /// Records a rank's failure and stops every rank. `run` reports the lowest rank's failure
    /// that is not a mere `stopped`, so the report does not depend on which rank failed first.
    void fail(int r, std::exception_ptr e) {
        const bool is_stop = [&] {
            try {
                std::rethrow_exception(e);
            } catch (const stopped&) {
                return true;
            } catch (...) {
                return false;
            }
        }();
        if (!failure_ || (failure_is_stop_ && !is_stop) || (!is_stop && !failure_is_stop_ && r < failure_rank_)) {
            failure_ = e;
            failure_rank_ = r;
            failure_is_stop_ = is_stop;
        }
        if (reason_ != stop_reason::none) return;
        std::string what;
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& x) {
            what = x.what();
        } catch (...) {
            what = "an exception that is not a std::exception";
        }
        message_ = "rank " + std::to_string(r) + " failed (" + what + ")";
        reason_ = stop_reason::failed;
        wake_all();
    }

    machine m_;
    int ranks_;
    vtime now_ = 0;
    event_queue events_;
    std::size_t queued_handlers_ = 0;  ///< handlers waiting for a busy kernel, every node's
    std::vector<node> nodes_;
    std::vector<node_counters> counters_;
    // Detours: nothing of them is allocated or touched until one is registered. Before the
    // fibers: a rank's decorator unwound with its fiber removes its schedule.
    struct noise_stream {
        int node;
        detour_stream next;  ///< empty once removed
        vtime length;        ///< of the detour due next
        detour_counters counted;
    };
    std::vector<noise_stream> noise_;  ///< by handle
    /// By node, once a schedule is registered: the detours that began and ended there so far
    /// (`disturbances`).
    std::vector<std::uint64_t> noise_edges_;
    /// By node, once a schedule is registered: detours due while its kernel was busy, their
    /// lengths added, to run when it is free.
    std::vector<vtime> noise_waiting_;
    std::size_t noise_pending_ = 0;   ///< detour and detour_end events in the queue
    std::uint64_t noise_pushed_ = 0;  ///< events pushed by or for detours
    network net_;
    fiber_set fibers_;
    buffer_pool buffers_;  // before the messages: they give their buffers back to it
    std::vector<std::unique_ptr<message>> messages_;
    std::vector<message*> free_messages_;
    std::vector<std::unique_ptr<transmission>> txs_;
    std::vector<transmission*> free_tx_;
    stop_reason reason_ = stop_reason::none;
    std::string message_;
    std::exception_ptr failure_;
    int failure_rank_ = 0;
    bool failure_is_stop_ = false;
};

/// Bytes of memory the host has available now (MemAvailable in /proc/meminfo), or 0 if unknown.
inline std::uint64_t available_memory() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return 0;
}

/// The least memory a rank costs whatever it runs: the simulator's state for its node and the
/// stack pages its fiber touches (ten barriers on 65,536 ranks peak at 7.2 KiB per rank,
/// bench/bench_nx2.cpp).
inline constexpr std::uint64_t least_bytes_per_rank = 6 * 1024;

/// Refuses a run the host cannot hold (`have` bytes available; 0: unknown), before it
/// allocates: one line naming the size and the estimate.
inline void check_memory_for(int ranks, std::uint64_t have) {
    const std::uint64_t need = static_cast<std::uint64_t>(ranks) * least_bytes_per_rank;
    if (have != 0 && need > have)
        raise<error>(-1, "nx2::run: ", ranks, " ranks need at least ", need >> 20, " MiB (", least_bytes_per_rank / 1024,
                              " KiB each for the simulator's state and the stack pages a rank touches); this host has ",
                              have >> 20, " MiB available");
}

/// Bytes the simulator keeps for every node of machine `m`, whether a rank runs on it or not:
/// its process and kernel state, its counters, and both lanes of both directions of each of
/// its channels.
inline std::uint64_t bytes_per_node(const machine& m) {
    const auto ports = static_cast<std::uint64_t>(router(m).ports());
    return sizeof(node) + sizeof(node_counters) + 2 * ports * network::bytes_per_lane();
}

/// The least memory a run of `ranks` ranks on machine `m` (already validated) needs.
inline std::uint64_t memory_needed(const machine& m, int ranks) {
    return static_cast<std::uint64_t>(m.nodes()) * bytes_per_node(m) + static_cast<std::uint64_t>(ranks) * least_bytes_per_rank;
}

/// Refuses a machine or a run the host cannot hold (`have` bytes available; 0: unknown) before
/// it allocates: one line naming the machine's size and the estimate, never std::bad_alloc.
inline void check_memory_for(const machine& m, int ranks, std::uint64_t have) {
    check_memory_for(ranks, have);
    const std::uint64_t need = memory_needed(m, ranks);
    if (have == 0 || need <= have) return;
    std::ostringstream what;
    if (m.network == topology::hypercube)
        what << "dimension = " << m.dimension;
    else
        what << "a " << m.columns << " x " << m.rows << " mesh";
    raise<error>(-1, "nx2::run: ", what.str(), " (", m.nodes(), " nodes) with ", ranks, " ranks needs at least ", need >> 20,
                 " MiB (", bytes_per_node(m), " bytes of the simulator's state per node, ", least_bytes_per_rank / 1024,
                 " KiB per rank); this host has ", have >> 20, " MiB available");
}

}  // namespace detail
}  // namespace comet::nx2
