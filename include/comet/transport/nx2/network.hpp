// comet/transport/nx2/network.hpp — the interconnect of the simulated machine: routes (e-cube on
// the hypercube, XY on the mesh), one resource per direction of every channel, and circuits
// built hop by hop through them.
//
// The iPSC/860's Direct-Connect Modules switch circuits: "Communication requests between any
// two nodes are fulfilled dynamically by building a path along free channels using an e-cube
// algorithm. The paths are freed once the communication request has been fulfilled" (thesis
// 4.1). So every transmission here — a message of at most 100 bytes, a request, an
// acknowledgement, the data of a long message, a credit — does this:
//   1. at its source, the header takes the first channel of its route if it is free, or waits
//      for it in first-come order;
//   2. each `hop_latency` later it reaches the next router and takes the next channel the same
//      way, holding every channel it already has (a blocked header blocks its whole path);
//   3. once it holds the last channel, the bytes (header included) stream at the slower of the
//      channel and the DMA; when the last byte lands, every channel of the circuit is freed and
//      handed to the first transmission waiting for it.
// So crossing traffic contends exactly where routes share a directed channel, and how long it
// waits follows from the other circuit's length — nothing about contention is a parameter.
//
// The channels are bidirectional (thesis 4.1: "bit-serial and bidirectional"), and a circuit
// streams its bytes one way while the channel's other direction stays free. NX/2's replies —
// an acknowledgement, a credit: a header answering the other node, and nothing else — are
// modelled on a lane of their own in each direction of each channel: they wait for one another,
// never for a data circuit, as the status a Direct-Connect circuit sends back to its source does
// not wait for the data it acknowledges. Requests stay on the data lane, behind the messages
// sent before them, which keeps NX/2's order between two nodes. (An assumption, marked as one in docs/nx2-model.md: without it
// two nodes exchanging long messages alternate whenever one runs a call ahead, since the
// acknowledgement it owes would wait behind its own data; the thesis saw the exchange faster
// than the echo round trip and credits it to the bidirectional channels, 5.1.)
// Dimension-ordered routes (e-cube, XY) take channels in a fixed global order, so circuits
// never wait on each other in a cycle: the network cannot deadlock.
//
// Half-duplex channels (machine::half_duplex, the iPSC/1's Ethernet segments): a channel is one
// resource for both directions and every kind of transmission, so a reply waits behind the data
// going the other way, and a node's transmission behind its neighbour's.
//
// Optional (machine::retry_timeout > 0): a header that waited that long frees its partial
// circuit and the message is sent again later — the retries the NIST iPSC-1 study counted.
#pragma once

#include <comet/transport/nx2/events.hpp>
#include <comet/transport/nx2/machine.hpp>
#include <comet/transport/nx2/time.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace comet::nx2 {

/// What one node saw during a run. Counted by the simulator, never estimated.
struct node_counters {
    std::uint64_t messages_sent = 0;     ///< user and collective messages this node sent
    std::uint64_t bytes_sent = 0;        ///< their payload bytes
    std::uint64_t transmissions = 0;     ///< everything this node put on the network (requests, acks, credits too)
    std::uint64_t interrupts = 0;        ///< interrupt handlers run on this node
    vtime interrupt_time = 0;            ///< their total CPU time
    std::uint64_t credit_stalls = 0;     ///< sends that found no free buffer at their destination
    std::uint64_t bsend_spills = 0;      ///< bsends among them sent by the long messages' protocol instead
    std::uint64_t channel_waits = 0;     ///< times a header of this node's found a channel busy
    vtime channel_wait_time = 0;         ///< total time its headers waited for channels
    std::uint64_t retransmissions = 0;   ///< transmissions sent again after giving up (option)
    /// Long messages to this node whose data landed in a system buffer: no receive had taken
    /// them when their circuit was built, so the receive that takes them copies them out.
    std::uint64_t system_buffer_landings = 0;

    node_counters& operator+=(const node_counters& o) noexcept {
        messages_sent += o.messages_sent;
        bytes_sent += o.bytes_sent;
        transmissions += o.transmissions;
        interrupts += o.interrupts;
        interrupt_time += o.interrupt_time;
        credit_stalls += o.credit_stalls;
        bsend_spills += o.bsend_spills;
        channel_waits += o.channel_waits;
        channel_wait_time += o.channel_wait_time;
        retransmissions += o.retransmissions;
        system_buffer_landings += o.system_buffer_landings;
        return *this;
    }
    friend bool operator==(const node_counters&, const node_counters&) = default;
};

namespace detail {

struct message;

/// What a transmission (or a unit of interrupt work) is.
enum class wire : std::uint8_t {
    eager,     ///< a message of at most eager_limit bytes, into a reserved buffer
    request,   ///< "allocate a buffer for my long message" (also a synchronous send's envelope)
    ack,       ///< "go ahead" (or, with `discard`, "it was refused")
    data,      ///< a long message's bytes, over a circuit
    ready,     ///< a ready send's bytes (NX/2 force type): no request, no buffer
    credit,    ///< freed eager buffers going back to their owner
    dma_done,  ///< (not on the wire) a send's DMA finished: the sender's interrupt
    release,   ///< (not on the wire) the kernel sending queued messages whose buffers came free
};

/// One transmission through the network, and then one unit of interrupt work at a node.
struct transmission {
    wire kind = wire::eager;
    bool discard = false;        ///< ack: the receiver refused the message (truncation)
    int src = 0, dst = 0;
    message* msg = nullptr;
    std::uint32_t credits = 0;   ///< freed buffers of `dst`'s at `src`, returned piggy-back
    std::uint64_t bytes = 0;     ///< on the wire, header included
    std::vector<int> links;      ///< the route's directed channels
    std::size_t held = 0;        ///< channels [0, held) are ours
    transmission* wait_prev = nullptr;  ///< in the queue of channel links[held]
    transmission* wait_next = nullptr;
    bool waiting = false;
    vtime wait_since = 0;
    std::uint64_t generation = 0;  ///< bumped on every grant, so a stale timeout is ignored
    int attempts = 0;
    // interrupt work (engine.hpp queues it for the node whose kernel does it)
    transmission* irq_next = nullptr;
    vtime cost = 0;              ///< decided when the handler begins
    std::uint32_t released = 0;  ///< release: queued messages this work sends
};

/// The routes of a machine's network.
class router {
public:
    explicit router(const machine& m) : network_(m.network), dimension_(m.dimension), columns_(m.columns) {}

    /// Directed channels per node (a channel id is node x ports + port).
    int ports() const noexcept { return network_ == topology::hypercube ? std::max(dimension_, 1) : 4; }

    /// Channels on the route from `a` to `b`.
    int distance(int a, int b) const noexcept {
        if (network_ == topology::hypercube) return std::popcount(static_cast<unsigned>(a ^ b));
        return std::abs(a % columns_ - b % columns_) + std::abs(a / columns_ - b / columns_);
    }

    /// The directed channel `link`'s undirected channel: the id of the direction leaving the
    /// lower-numbered end (hypercube) or going east or north (mesh), the same for both ways.
    int undirected(int link) const noexcept {
        const int p = ports();
        const int node = link / p, port = link % p;
        if (network_ == topology::hypercube) return std::min(node, node ^ (1 << port)) * p + port;
        if (port == 1) return (node - 1) * p;               // west from n is east from n - 1
        if (port == 3) return (node - columns_) * p + 2;    // south from n is north from n - columns
        return link;
    }

    /// The route's channels in order: e-cube (address bits fixed from the lowest dimension up,
    /// as thesis 4.1 and topology/hypercube.hpp's `route` do) or XY (columns first, then rows).
    void route(int a, int b, std::vector<int>& out) const {
        out.clear();
        const int p = ports();
        if (network_ == topology::hypercube) {
            int at = a;
            for (unsigned diff = static_cast<unsigned>(a ^ b); diff != 0; diff &= diff - 1) {
                const int dim = std::countr_zero(diff);
                out.push_back(at * p + dim);
                at ^= 1 << dim;
            }
            return;
        }
        int x = a % columns_, y = a / columns_;
        const int tx = b % columns_, ty = b / columns_;
        while (x != tx) {
            out.push_back((y * columns_ + x) * p + (tx > x ? 0 : 1));
            x += tx > x ? 1 : -1;
        }
        while (y != ty) {
            out.push_back((y * columns_ + x) * p + (ty > y ? 2 : 3));
            y += ty > y ? 1 : -1;
        }
    }

private:
    topology network_;
    int dimension_;
    int columns_;
};

/// The channels and the circuits being built through them. Schedules `net_step` and `net_done`
/// (and the retransmission events) itself; the protocol (kernel.hpp) handles `net_done`.
class network {
public:
    network(const machine& m, event_queue& events, const vtime& now, std::vector<node_counters>& counters)
        : m_(m), router_(m), events_(events), now_(now), counters_(counters),
          channels_(2 * static_cast<std::size_t>(m.nodes()) * static_cast<std::size_t>(router_.ports())) {}

    const router& routes() const noexcept { return router_; }

    /// Bytes of state per direction and lane of a channel (memory estimates).
    static constexpr std::size_t bytes_per_lane() noexcept { return sizeof(channel); }

    /// The time `bytes` take to stream through a circuit: the slower of channel and DMA.
    vtime stream_time(std::uint64_t bytes) const noexcept {
        return std::max(transfer_time(bytes, m_.link_bytes_per_second), transfer_time(bytes, m_.dma_bytes_per_second));
    }

    /// Puts `tx` on the network now. @pre tx->src != tx->dst
    void inject(transmission* tx) {
        router_.route(tx->src, tx->dst, tx->links);
        tx->held = 0;
        ++counters_[static_cast<std::size_t>(tx->src)].transmissions;
        advance(tx);
    }

    /// `net_step`: the header reached the router before channel links[held].
    void step(transmission* tx) { advance(tx); }

    /// `net_done`: frees the circuit (handing each channel to its first waiter).
    void finish(transmission* tx) {
        for (std::size_t i = 0; i < tx->held; ++i) free_channel(lane(tx, i));
        tx->held = 0;
    }

    /// `net_timeout` (retransmission option): if `tx` still waits since generation `gen`, it
    /// frees its partial circuit and is sent again after the backoff.
    void timeout(transmission* tx, std::uint64_t gen) {
        if (!tx->waiting || tx->generation != gen) return;
        channel& c = channels_[lane(tx, tx->held)];
        unlink(c, tx);
        note_wait_end(tx);
        for (std::size_t i = 0; i < tx->held; ++i) free_channel(lane(tx, i));
        tx->held = 0;
        ++tx->attempts;
        ++counters_[static_cast<std::size_t>(tx->src)].retransmissions;
        events_.push(now_ + times(m_.retry_backoff, static_cast<std::uint64_t>(tx->attempts)), event_kind::net_retry,
                     tx->src, tx);
    }

    /// `net_retry`: the transmission starts over from its source.
    void retry(transmission* tx) {
        tx->held = 0;
        advance(tx);
    }

private:
    struct channel {
        bool busy = false;
        transmission* head = nullptr;
        transmission* tail = nullptr;
    };

    /// A reply: an acknowledgement, a credit.
    static bool is_reply(wire kind) noexcept { return kind == wire::ack || kind == wire::credit; }

    /// The resource `tx` takes at the i-th channel of its route: the channel's data lane, or its
    /// reply lane; on half-duplex channels, the one lane of the channel both ways.
    std::size_t lane(const transmission* tx, std::size_t i) const noexcept {
        if (m_.half_duplex) return 2 * static_cast<std::size_t>(router_.undirected(tx->links[i]));
        return 2 * static_cast<std::size_t>(tx->links[i]) + (is_reply(tx->kind) ? 1 : 0);
    }

    void advance(transmission* tx) {
        channel& c = channels_[lane(tx, tx->held)];
        if (!c.busy) {
            c.busy = true;
            granted(tx);
            return;
        }
        tx->waiting = true;
        tx->wait_since = now_;
        tx->wait_prev = c.tail;
        tx->wait_next = nullptr;
        (c.tail ? c.tail->wait_next : c.head) = tx;
        c.tail = tx;
        ++counters_[static_cast<std::size_t>(tx->src)].channel_waits;
        if (m_.retry_timeout > 0) events_.push(now_ + m_.retry_timeout, event_kind::net_timeout, tx->src, tx, tx->generation);
    }

    /// `tx` now holds channel links[held]: on to the next router, or stream.
    void granted(transmission* tx) {
        ++tx->generation;
        ++tx->held;
        if (tx->held < tx->links.size())
            events_.push(now_ + m_.hop_latency, event_kind::net_step, tx->src, tx);
        else
            events_.push(now_ + m_.hop_latency + stream_time(tx->bytes), event_kind::net_done, tx->dst, tx);
    }

    void free_channel(std::size_t id) {
        channel& c = channels_[id];
        transmission* next = c.head;
        if (!next) {
            c.busy = false;
            return;
        }
        unlink(c, next);
        note_wait_end(next);
        granted(next);  // stays busy: handed over
    }

    void unlink(channel& c, transmission* tx) {
        (tx->wait_prev ? tx->wait_prev->wait_next : c.head) = tx->wait_next;
        (tx->wait_next ? tx->wait_next->wait_prev : c.tail) = tx->wait_prev;
        tx->wait_prev = tx->wait_next = nullptr;
        tx->waiting = false;
    }

    void note_wait_end(transmission* tx) { counters_[static_cast<std::size_t>(tx->src)].channel_wait_time += now_ - tx->wait_since; }

    const machine& m_;
    router router_;
    event_queue& events_;
    const vtime& now_;
    std::vector<node_counters>& counters_;
    std::vector<channel> channels_;
};

}  // namespace detail
}  // namespace comet::nx2
