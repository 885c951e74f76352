// comet/kernels/contention.hpp — CoMet's echo with contention (thesis 3.3.6, figures 3.6–3.7;
// results in 5.1, figure 5.5): two nodes run echo while two others carry cross traffic whose
// route crosses the echo pair's links, at measured loads.
//
// The thesis measured echo first, took the message sizes reaching 50% and 90% of peak echo
// bandwidth (486 and about 5000 bytes on the iPSC/860) as the "50% and 90% loads", and then
// ran echo between nodes 1 and 3 of an 8-node cube while node 0 sent messages of the load's
// size to node 7 "forever": the e-cube route 0 → 1 → 3 → 7 runs over the link 1 → 3 the echo
// uses. Here the loads come from the config (`contention_loads_from_echo` derives them from an
// echo result), the nodes from the topology (`contention_roles`), and an idle run (load 0)
// gives the baseline every loaded time is compared with (`contention_slowdowns` in
// analysis/contention.hpp).
//
// "Forever" ends: the echoing node tells the traffic source to stop when its points are done
// (the source probes for that message between its sends), the source tells the sink with an
// empty message, and every message sent is received before the kernel returns.
//
// Deliberately not here: random background load, and contention of more than one cross flow.
#pragma once

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_CONTENTION

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/kernels/transfer.hpp>
#include <comet/stats/bandwidth.hpp>
#include <comet/stats/record.hpp>
#include <comet/timing/measure.hpp>
#include <comet/timing/repeat.hpp>
#include <comet/topology/hypercube.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace comet::kernels {

/// The cross-traffic message sizes of the loaded runs: the sizes at which echo reaches 50% and
/// 90% of its peak bandwidth. The defaults are the thesis' iPSC/860 figures (5.1: "half the
/// peak bandwidth was achieved around message sizes of 486 bytes and ninety percent ... around
/// 5000 bytes"); on any other machine derive them with `contention_loads_from_echo`.
struct contention_load_sizes {
    std::size_t half = 486;     ///< bytes: the 50% load
    std::size_t ninety = 5000;  ///< bytes: the 90% load

    friend bool operator==(const contention_load_sizes&, const contention_load_sizes&) = default;
};

/// The thesis' load sizes, 486 and 5000 bytes (5.1), which `load_source` "thesis" names. On the
/// simulated iPSC/860 they differ from what its echo gives (about 353 and 2362 bytes): the model
/// has no jumps at 2048 and 4096 bytes, which moved the real machine's 90% size up.
inline constexpr contention_load_sizes thesis_load_sizes{};

/// Configuration of `contention`. All ranks pass the same values (@pre).
struct contention_config {
    /// Echo message sizes in bytes, measured in this order under every load.
    std::vector<std::size_t> sizes = default_message_sizes();
    /// The loads, as fractions of peak echo bandwidth: 0 (idle: no cross traffic, the
    /// baseline), 0.5 and 0.9. Any other value is an error. Run in this order.
    std::vector<double> loads = {0.0, 0.5, 0.9};
    /// The cross-traffic message size of each load.
    contention_load_sizes load_sizes = {};
    /// Where `load_sizes` came from, recorded in every record as the param `load_source`, so
    /// that a reader knows which loads produced a figure:
    /// - "configured" (the default): as set here, the thesis' iPSC/860 figures unless changed.
    ///   A suite run measures this machine's in their place: from this run's echo at 1 hop when
    ///   echo ran before ("echo"), else from a short echo measured for the purpose
    ///   ("short_echo").
    /// - "thesis": the thesis' 486 and 5000 bytes (`thesis_load_sizes`; other sizes under this
    ///   name are an error), kept by a suite run: to load a machine as the thesis loaded the
    ///   iPSC/860, e.g. to set the simulated one beside figure 5.5.
    /// - "given" (or any other word but those above): sizes of your own, kept by a suite run.
    std::string load_source = "configured";
    /// Hop distances of the echo pair (the thesis: 1). Each picks its own four nodes
    /// (`contention_roles`). Empty: every distance the hypercube rule allows on the group
    /// (`default_contention_hops`).
    std::vector<int> hops = {1};
    /// The rank that returns the records. The echo is timed on the echoing node the topology
    /// picks (`contention_roles(...).echo_node`), which sends its samples here after each load,
    /// so the records land where every other kernel's do.
    int test_node = 0;
    /// How each point is sampled (timing/measure.hpp), under each load in turn.
    comet::sampling sampling = {};
    /// Cross-traffic messages the source may have sent beyond those the sink acknowledged; the
    /// sink acknowledges every `traffic_window / 2` with an empty message. Without this flow
    /// control a source whose sends return before delivery (an eager protocol, a buffered
    /// copy) would pile up unreceived messages at the sink for as long as the echo runs. At
    /// least 2.
    std::size_t traffic_window = 16;
    /// The tag of every message of the kernel (each ordered pair of nodes carries one kind of
    /// message, so one tag suffices), in comet's reserved range (core/types.hpp).
    int tag = first_reserved_tag + 3;
    /// Called on `test_node` for each record (after each load's echo points are in).
    std::function<void(const record&)> on_point = {};
};

/// The four nodes of the contention kernel, numbered as in the thesis' figure 3.6: cross
/// traffic flows from node 1 (`traffic_source`) to node 4 (`traffic_sink`) while node 2
/// (`echo_node`, which times) and node 3 (`echo_partner`) run echo.
struct contention_nodes {
    int traffic_source = 0;  ///< sends the cross traffic (thesis, 8 nodes: node 0)
    int traffic_sink = 0;    ///< receives it (thesis: node 7)
    int echo_node = 0;       ///< sends each echo message and times the round trip (thesis: node 1)
    int echo_partner = 0;    ///< sends it back (thesis: node 3)
    int hops = 1;            ///< the echo pair's distance, as requested
    /// True when chosen by the hypercube rule (the cross traffic's route runs over the echo
    /// pair's path); false for the fallback.
    bool on_route = false;
    /// Directed links the cross traffic's e-cube route shares with the echo message's route
    /// (node 2 → node 3), when the group is a power of two; nullopt otherwise (routes unknown).
    std::optional<int> shared_links;

    friend bool operator==(const contention_nodes&, const contention_nodes&) = default;
};

/// The nodes of the contention kernel on a group of `nodes` for an echo pair `hops` apart.
///
/// Hypercube rule (a power-of-two group of at least 2^(hops+2) nodes): the cross traffic
/// runs from node 0 to node 2^(hops+2) − 1 (all hops + 2 low address bits flipped); its e-cube
/// route fixes bits 0, 1, ..., hops + 1 in turn and so passes 1, 3, 7, ...; the echo pair is
/// the route's second node and the node `hops` links further along it: node 1 and node
/// 2^(hops+1) − 1. The echo message from node 1 follows its own e-cube route (bits 1..hops,
/// lowest first), which is exactly that stretch of the cross traffic's route, link by link and
/// in the same direction: every link the echo message crosses carries cross traffic
/// (`shared_links` = hops). For hops = 1 on 8 nodes this is the thesis' choice: traffic 0 → 7
/// through 1 and 3, echo between 1 and 3.
///
/// Fallback (at least 4 nodes, but too few or not a power of two): the echo pair is node 1 and
/// `hop_node(1, hops)` (echo's own notion of distance), and the two lowest other ranks carry
/// the traffic, lower to higher. Without a known route (or on a cube too small for four
/// distinct nodes to share a link: on 4 nodes no route is longer than 2 links) the traffic
/// cannot be aimed at the echo's links; it still loads the machine the echo runs on (on the
/// threads transport, the memory system and the cores). The records look the same; read
/// their slow-down as load on the machine, not as contention for a link (`on_route` says
/// which rule chose the nodes).
/// @throws invalid_argument for fewer than 4 nodes, hops < 1, or an echo partner outside the
///         group ("contention_roles: 3 hops from node 1 reach node 6, outside the 5 nodes").
/// @code
///   comet::kernels::contention_nodes n = comet::kernels::contention_roles(8, 1);   // {0, 7, 1, 3, ...}
/// @endcode
COMET_DECL contention_nodes contention_roles(int nodes, int hops);

/// The echo-pair hop distances `contention` measures when its config's `hops` is empty: 1 ..
/// log2(nodes) − 2 on a power-of-two group of at least 8 (every distance for which the
/// hypercube rule finds a cross-traffic route over the whole echo path), else just 1.
COMET_DECL std::vector<int> default_contention_hops(int nodes);

/// The load sizes of `contention` from an echo result: the sizes at which echo at `hops` hops
/// reaches 50% and 90% of its peak bandwidth (`comet::bandwidth`'s n_half and n_90, rounded up
/// to whole bytes so the load reaches at least its level), as the thesis took them.
/// The peak is the largest bandwidth measured, so the sizes depend on how far the echo's sizes
/// reach (the thesis: a little beyond a page).
/// @throws invalid_argument when `echo` has no echo records with a positive size at `hops`.
/// Every rank must pass `contention` the same sizes, and echo's records live on its test node
/// only: the collective overload below hands the test node's figures to every rank.
/// @code
///   comet::kernels::contention_load_sizes s = comet::kernels::contention_loads_from_echo(echo_records);   // {n_half, n_90}
/// @endcode
COMET_DECL contention_load_sizes contention_loads_from_echo(const result_set& echo, std::int64_t hops = 1);

/// The collective form, for a program that measured echo (whose records live on one rank)
/// before contention, whose config every rank needs alike: `root` derives the load sizes from
/// its `echo` records, or takes `fallback` when it cannot (no echo at `hops`), and every rank
/// returns what `root` found. The returned flag says whether they came from echo.
/// @pre every rank calls it with the same root, hops and fallback (only root's `echo` is read).
/// @code
///   comet::result_set e = comet::kernels::echo(t, {.hops = {1}});
///   comet::kernels::contention_config cfg;
///   cfg.load_sizes = comet::kernels::contention_loads_from_echo(t, 0, e).first;   // same on every rank
///   comet::result_set r = comet::kernels::contention(t, cfg);
/// @endcode
template <transport T>
std::pair<contention_load_sizes, bool> contention_loads_from_echo(T& t, int root, const result_set& echo,
                                                                  std::int64_t hops = 1,
                                                                  contention_load_sizes fallback = {}) {
    if (root < 0 || root >= t.size())
        raise<invalid_argument>(t.rank(), "contention_loads_from_echo: root ", root, " is outside 0..", t.size() - 1);
    // {half, ninety, from echo?}: sizes fit in 64 bits, and one broadcast keeps the ranks in step.
    std::array<std::uint64_t, 3> shared{fallback.half, fallback.ninety, 0};
    if (t.rank() == root) {
        try {
            const contention_load_sizes s = contention_loads_from_echo(echo, hops);
            shared = {s.half, s.ninety, 1};
        } catch (const invalid_argument&) {
            // keep the fallback: no echo records at this distance on the root
        }
    }
    ops::broadcast(t, root, writable_bytes_of(shared));
    return {{static_cast<std::size_t>(shared[0]), static_cast<std::size_t>(shared[1])}, shared[2] == 1};
}

namespace detail::contention {

/// The cross-traffic size of `load`, or nullopt for a load the kernel does not know.
COMET_DECL std::optional<std::size_t> load_size(double load, const contention_load_sizes& s);

/// Node 1 of figure 3.6: sends `message` to the sink "forever", with at most `window` messages
/// unacknowledged, probing between sends for the echoing node's stop message. Then sends the
/// sink the empty end marker and collects the acknowledgements still due. Returns the number
/// of cross-traffic messages sent.
template <transport T>
std::size_t traffic_source(T& t, const contention_nodes& n, int tag, const_bytes message, std::size_t window) {
    const std::size_t ack_every = window / 2;
    std::size_t sent = 0, acks = 0;
    for (;;) {
        if (t.iprobe(n.echo_node, tag)) {
            ops::recv(t, n.echo_node, tag, mutable_bytes{});  // the stop message
            break;
        }
        if (sent - acks * ack_every >= window) {
            ops::recv(t, n.traffic_sink, tag, mutable_bytes{});  // the sink is busy receiving: an ack is near
            ++acks;
            continue;
        }
        ops::send(t, n.traffic_sink, tag, message);
        ++sent;
    }
    // Cross-traffic messages are never empty (the kernel checks), so an empty one is the end.
    ops::send(t, n.traffic_sink, tag, const_bytes{});
    while (acks < sent / ack_every) {
        ops::recv(t, n.traffic_sink, tag, mutable_bytes{});
        ++acks;
    }
    return sent;
}

/// Node 4 of figure 3.6: receives the cross traffic until the empty end marker, acknowledging
/// every `window / 2` messages, and tells the echoing node once the first message is in (so
/// the echo is never timed before the load is on).
template <transport T>
void traffic_sink(T& t, const contention_nodes& n, int tag, mutable_bytes buffer, std::size_t window) {
    const std::size_t ack_every = window / 2;
    std::size_t received = 0;
    for (;;) {
        const status s = ops::recv(t, n.traffic_source, tag, buffer);
        if (s.size == 0) return;
        ++received;
        if (received == 1) ops::send(t, n.echo_node, tag, const_bytes{});
        if (received % ack_every == 0) ops::send(t, n.traffic_source, tag, const_bytes{});
    }
}

}  // namespace detail::contention

/// Echo with contention (CoMet thesis 3.3.6, figure 3.7): for every echo-pair hop distance and
/// load, the echoing node times echo over every size while, for a load above 0, the traffic
/// source sends messages of the load's size to the traffic sink without pause (nodes from
/// `contention_roles`; other ranks wait). Load 0 is the idle baseline: same nodes, no traffic.
///
/// Per (hops, load): all ranks meet in a barrier; the source starts sending; the sink tells the
/// echoing node when the first message is in; the echoing node and its partner then sample
/// every size with the sampling engine (timing/measure.hpp; the partner echoes each round
/// trip back, as in echo); the echoing node then sends the source a stop message (the source
/// checks for it with `iprobe` between messages) and its records to `test_node`. The source
/// ends the traffic with an empty message to the sink, and every message sent is received
/// before the next load starts.
///
/// Returns, on `test_node`, one record per (hops, load, size) with params {size, hops, nodes,
/// load, cross_size, load_source, on_route} — load the fraction of peak (0, 0.5, 0.9),
/// cross_size the cross-traffic message size in bytes (0 when idle) — and samples = the one-way echo time in seconds (half a
/// round trip, averaged over a repeat loop, loop overhead subtracted), measured on the echoing
/// node's clock (durations only, so clocks need not agree). Other ranks return an empty set.
/// @pre every rank calls contention with the same config.
/// @throws invalid_argument (on every rank, naming the rank and the value) for fewer than 4
///         ranks, an unknown load, a load size of 0 or over the limit, an empty load_source or
///         "thesis" with other sizes than the thesis', a hop distance the group
///         cannot hold, a test node outside the group, a sampling `check_sampling` refuses, a
///         traffic_window out of range, a bad tag, or a size over `max_message_size`.
/// @code
///   comet::result_set r = comet::kernels::contention(t, {.sizes = {8, 1024, 4096}, .load_sizes = {.half = 486, .ninety = 5000}});
/// @endcode
template <transport T>
result_set contention(T& t, const contention_config& cfg = {}) {
    const int p = t.size();
    const int me = t.rank();
    if (p < 4)
        raise<invalid_argument>(me, "contention needs at least 4 ranks (two carry cross traffic, two echo); the group has ", p);
    if (cfg.test_node < 0 || cfg.test_node >= p)
        raise<invalid_argument>(me, "contention: test node ", cfg.test_node, " is outside 0..", p - 1);
    check_sampling(me, "contention", cfg.sampling);
    if (cfg.traffic_window < 2)
        raise<invalid_argument>(me, "contention: traffic_window must be at least 2, got ", cfg.traffic_window);
    if (cfg.tag < 0 || cfg.tag > max_tag) raise<invalid_argument>(me, "contention: tag ", cfg.tag, " is outside 0..", max_tag);
    for (std::size_t n : cfg.sizes)
        if (n > max_message_size)
            raise<invalid_argument>(me, "contention: message size ", n, " exceeds the ", max_message_size, "-byte limit");
    if (cfg.load_source.empty())
        raise<invalid_argument>(me, "contention: load_source is empty; say where the load sizes came from (e.g. given)");
    if (cfg.load_source == "thesis" && cfg.load_sizes != thesis_load_sizes)
        raise<invalid_argument>(me, "contention: load_source 'thesis' names the thesis' ", thesis_load_sizes.half, " and ",
                                thesis_load_sizes.ninety, " bytes, but the load sizes are ", cfg.load_sizes.half, " and ",
                                cfg.load_sizes.ninety);
    std::vector<std::size_t> cross_sizes;
    for (double load : cfg.loads) {
        const auto size = detail::contention::load_size(load, cfg.load_sizes);
        if (!size) raise<invalid_argument>(me, "contention: unknown load ", load, " (known: 0 idle, 0.5 and 0.9 of peak)");
        if (load > 0.0 && *size == 0)
            raise<invalid_argument>(me, "contention: the ", load, " load's cross-traffic size is 0 bytes; it must be at least 1");
        if (*size > max_message_size)
            raise<invalid_argument>(me, "contention: the ", load, " load's cross-traffic size ", *size, " exceeds the ",
                                    max_message_size, "-byte limit");
        cross_sizes.push_back(*size);
    }
    std::vector<contention_nodes> roles;
    for (int h : cfg.hops.empty() ? default_contention_hops(p) : cfg.hops) {
        try {
            roles.push_back(contention_roles(p, h));
        } catch (const invalid_argument& e) {
            raise<invalid_argument>(me, e.what());
        }
    }

    const std::size_t largest = cfg.sizes.empty() ? 0 : *std::max_element(cfg.sizes.begin(), cfg.sizes.end());
    const std::size_t largest_cross = cross_sizes.empty() ? 0 : *std::max_element(cross_sizes.begin(), cross_sizes.end());
    std::vector<std::byte> echo_buffer(largest), cross_buffer(largest_cross);
    const int tag = cfg.tag;
    result_set out;
    std::vector<sampled_point> block;  // one load's measurements, on their way to the test node

    for (const contention_nodes& n : roles) {
        for (std::size_t l = 0; l < cfg.loads.size(); ++l) {
            const double load = cfg.loads[l];
            const std::size_t cross = cross_sizes[l];
            const bool loaded = load > 0.0;
            // Every load starts from a quiet machine: the previous load's messages are all in.
            ops::barrier(t);
            if (loaded && me == n.traffic_source) {
                detail::contention::traffic_source(t, n, tag, const_bytes(cross_buffer.data(), cross), cfg.traffic_window);
            } else if (loaded && me == n.traffic_sink) {
                detail::contention::traffic_sink(t, n, tag, mutable_bytes(cross_buffer.data(), cross), cfg.traffic_window);
            } else if (me == n.echo_node || me == n.echo_partner) {
                const bool timing = me == n.echo_node;
                if (timing && loaded) ops::recv(t, n.traffic_sink, tag, mutable_bytes{});  // the load is on
                const int ranks[2] = {n.echo_node, n.echo_partner};
                auto measured = sample_points(
                    t, cfg.sizes.size(), cfg.sampling, n.echo_node, std::span<const int>(ranks), sample_reduction::decider,
                    [&](std::size_t i, std::size_t iterations) -> std::optional<repeat_result> {
                        const mutable_bytes message(echo_buffer.data(), cfg.sizes[i]);
                        if (timing)
                            return repeat(t, iterations, [&] {
                                ops::send(t, n.echo_partner, tag, message);
                                ops::recv(t, n.echo_partner, tag, message);
                            });
                        for (std::size_t k = 0; k < iterations; ++k) {
                            ops::recv(t, n.echo_node, tag, message);
                            ops::send(t, n.echo_node, tag, message);
                        }
                        return std::nullopt;
                    });
                if (timing) {
                    if (loaded) ops::send(t, n.traffic_source, tag, const_bytes{});  // stop
                    block = forward_points(t, n.echo_node, cfg.test_node, tag, std::move(measured), cfg.sizes.size());
                }
            }
            if (me == cfg.test_node) {
                if (me != n.echo_node) block = forward_points(t, n.echo_node, cfg.test_node, tag, {}, cfg.sizes.size());
                auto& measured = block;
                for (std::size_t i = 0; i < cfg.sizes.size(); ++i) {
                    record rec{"contention", params{}, {}};
                    rec.params.set("size", cfg.sizes[i])
                        .set("hops", n.hops)
                        .set("nodes", p)
                        .set("load", load)
                        .set("cross_size", cross)
                        .set("load_source", cfg.load_source.c_str())
                        // Whether the cross traffic's route runs over the echo pair's links (the
                        // thesis' setting) or the group only allowed a fallback: a slow-down is
                        // evidence of contention only in the first case.
                        .set("on_route", n.on_route ? "yes" : "no");
                    // The echo's one-way time: half a round trip, as the echo kernel reports it.
                    fill_record(rec, std::move(measured[i]), cfg.sampling, sample_reduction::decider, 0.5);
                    rec.params.set("reduction", "echo_node");  // the echoing node timed, not the test node
                    if (cfg.on_point) cfg.on_point(rec);
                    out.records.push_back(std::move(rec));
                }
            }
        }
    }
    ops::barrier(t);
    return out;
}

}  // namespace comet::kernels

#if !defined(COMET_COMPILED)
#include <comet/kernels/contention.ipp>
#endif
