// comet/kernels/overlap.hpp — CoMet's overlap of communication with computation (thesis
// 3.3.7, figures 3.8–3.9; results in 5.1, figures 5.8–5.12): a pairwise exchange plus a DAXPY,
// first synchronous (send; receive; compute), then asynchronous (post the send and the
// receive; compute; wait for both), over a grid of message sizes × vector lengths. The
// difference between the two "illustrates the ability of the machine to overlap communication
// and computation" (3.2.1); `comet::overlap_gains` (analysis/overlap.hpp) computes it.
//
// The DAXPY goes through `ops::compute(t, work::daxpy(n))`, so a transport decides how it is done:
// the host CPU on real transports, the i860's CPU model on the simulated iPSC/860 (which keeps
// the kernel deterministic there, and lets the model's separate communication hardware overlap
// it). A DAXPY-only baseline (figure 5.8) is measured first.
//
// Deliberately not here: overlap with collectives (the nonblocking-collective overhead
// benchmarks of SPEC 7.4 measure that), and progress threads.
#pragma once

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_OVERLAP

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/kernels/swap.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/stats/record.hpp>
#include <comet/timing/measure.hpp>
#include <comet/timing/repeat.hpp>
#include <comet/topology/hypercube.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace comet::kernels {

/// Message sizes overlap measures by default: exactly the sizes of the thesis' overlap figures
/// — 0 (figure 5.9: DAXPY against the bare exchange start-up), 2536 (figures 5.10–5.11) and
/// 85000 bytes (figure 5.12: "large messages", the largest the thesis sent).
COMET_DECL std::vector<std::size_t> default_overlap_sizes();

/// Vector lengths (doubles) overlap measures by default: 0 (the bare exchange) to the thesis'
/// `max_vec_len` of 200000, with more points at the short end, where the DAXPY and the
/// exchange of the default sizes take comparable time and the curves of figures 5.10–5.11
/// cross.
COMET_DECL std::vector<std::size_t> default_overlap_vector_lengths();

/// Configuration of `overlap`. All ranks pass the same values (@pre).
///
/// Why the default grid: 3 sizes × 9 vector lengths × 2 modes is 54 points, plus 9 for the
/// baseline. A DAXPY of 200000 doubles streams 4.8 MB (24 bytes per element): about 0.1–0.5 ms
/// on a workstation, 40 ms on the i860 (about 10 MFLOPS). Iterations that long are far above
/// any clock's resolution, so the sampling engine calibrates them to a few iterations per
/// sample; the thesis' fixed 1000 would make the default grid take tens of seconds on a
/// workstation for no better number. The simulated iPSC/860 charges virtual time, so there
/// the cost is events, not time.
struct overlap_config {
    /// Message sizes in bytes (exchanged both ways), outer loop.
    std::vector<std::size_t> sizes = default_overlap_sizes();
    /// DAXPY vector lengths in doubles, inner loop.
    std::vector<std::size_t> vector_lengths = default_overlap_vector_lengths();
    /// The longest vector accepted (the thesis' `max_vec_len`); a longer one is an error.
    std::size_t max_vec_len = 200000;
    /// The rank that times.
    int test_node = 0;
    /// The partner's distance: `hop_node(test_node, hops)` (thesis figure 4.2); 0 exchanges
    /// with itself.
    int hops = 1;
    /// How each point is sampled (timing/measure.hpp); an iteration is an exchange plus a DAXPY.
    comet::sampling sampling = {};
    /// Measure the DAXPY alone first (figure 5.8: mode "daxpy", one record per vector length).
    bool daxpy_baseline = true;
    /// The message tag, in comet's reserved range (core/types.hpp).
    int tag = first_reserved_tag + 4;
    /// Called on the test node after each point is measured.
    std::function<void(const record&)> on_point = {};
};

/// Overlap of communication with computation (CoMet thesis 3.3.7, figures 3.8–3.9). The test
/// node and its partner (`hop_node(test_node, hops)`) run, per iteration:
/// - "sync"  (figure 3.8): `send`; `recv`; `compute(daxpy(n))`
/// - "async" (figure 3.9): `isend`; `irecv`; `compute(daxpy(n))`; `wait_all` of both
/// both sides alike (a pairwise exchange), in the thesis' order (send posted before the
/// receive; the sync exchange is `swap`, whose form is in the record's `form`). The sampling
/// engine interleaves the points, so every round samples each sync point and its async twin
/// once, and the two see the same state of the machine, which a whole sync grid followed by a
/// whole async grid would not promise.
/// With `daxpy_baseline`, the two nodes first time the DAXPY alone for every vector length
/// (both compute at once, as they do in the exchange points, so a shared memory system is as
/// busy as it will be there).
///
/// Returns, on the test node, records with params {size, vector_length, mode, nodes, hops},
/// mode "sync" or "async" (baseline records: {vector_length, mode = "daxpy", nodes, hops}, no
/// size), and samples = the time in seconds of one iteration, averaged over a sample's repeat
/// loop (loop overhead subtracted). Other ranks return an empty set.
/// Both nodes run one untimed DAXPY of the longest vector first, so that no point pays for
/// first touching the vectors (comet::perform keeps them per thread).
/// @pre every rank calls overlap with the same config.
/// @throws invalid_argument (on every rank, naming the rank and the value) for fewer than 2
///         ranks, a test node outside the group, a partner the group cannot hold, a sampling
///         `check_sampling` refuses, a bad tag, a size over `max_message_size`, or a vector
///         length over `max_vec_len`.
/// @code
///   comet::result_set r = comet::kernels::overlap(t, {.sizes = {0, 85000}, .vector_lengths = {0, 100000}});
///   // then comet::overlap_gains(r) (analysis/overlap.hpp): sync time / async time per point
/// @endcode
template <transport T>
result_set overlap(T& t, const overlap_config& cfg = {}) {
    const int p = t.size();
    const int me = t.rank();
    if (p < 2) raise<invalid_argument>(me, "overlap needs at least 2 ranks; the group has ", p);
    if (cfg.test_node < 0 || cfg.test_node >= p)
        raise<invalid_argument>(me, "overlap: test node ", cfg.test_node, " is outside 0..", p - 1);
    check_sampling(me, "overlap", cfg.sampling);
    if (cfg.tag < 0 || cfg.tag > max_tag) raise<invalid_argument>(me, "overlap: tag ", cfg.tag, " is outside 0..", max_tag);
    if (cfg.hops < 0) raise<invalid_argument>(me, "overlap: hop distance ", cfg.hops, " is negative");
    for (std::size_t n : cfg.sizes)
        if (n > max_message_size)
            raise<invalid_argument>(me, "overlap: message size ", n, " exceeds the ", max_message_size, "-byte limit");
    for (std::size_t n : cfg.vector_lengths)
        if (n > cfg.max_vec_len)
            raise<invalid_argument>(me, "overlap: vector length ", n, " exceeds max_vec_len ", cfg.max_vec_len);
    int partner = 0;
    try {
        partner = hop_node(cfg.test_node, cfg.hops, p);
    } catch (const invalid_argument& e) {
        raise<invalid_argument>(me, "overlap: ", e.what());
    }

    const int tag = cfg.tag;
    const bool timing = me == cfg.test_node;
    const bool taking_part = timing || me == partner;
    const int peer = timing ? partner : cfg.test_node;
    const std::size_t largest = cfg.sizes.empty() ? 0 : *std::max_element(cfg.sizes.begin(), cfg.sizes.end());
    const std::size_t longest =
        cfg.vector_lengths.empty() ? 0 : *std::max_element(cfg.vector_lengths.begin(), cfg.vector_lengths.end());
    // Separate buffers: the asynchronous receive may land while the send still reads.
    std::vector<std::byte> out_buffer(largest), in_buffer(largest);
    result_set out;

    // The points: the DAXPY baseline per vector length, then per size and vector length the
    // sync and the async mode, one after the other. Interleaved by the sampling engine, every
    // round samples each of them once, so sync and async see the same state of the machine.
    struct point {
        const char* mode;
        std::size_t size, length;
    };
    std::vector<point> points;
    if (cfg.daxpy_baseline)
        for (std::size_t n : cfg.vector_lengths) points.push_back({"daxpy", 0, n});
    for (std::size_t size : cfg.sizes)
        for (std::size_t n : cfg.vector_lengths) {
            points.push_back({"sync", size, n});
            points.push_back({"async", size, n});
        }
    const auto step = [&](const point& x) {
        const work w = work::daxpy(x.length);
        const const_bytes outgoing(out_buffer.data(), x.size);
        const mutable_bytes incoming(in_buffer.data(), x.size);
        if (x.mode[0] == 'd') {
            ops::compute(t, w);
        } else if (x.mode[0] == 's') {
            swap(t, peer, outgoing, peer, incoming, tag);
            ops::compute(t, w);
        } else {
            std::array<typename T::request, 2> requests{t.isend(peer, tag, outgoing), t.irecv(peer, tag, incoming)};
            ops::compute(t, w);
            ops::wait_all(t, std::span<typename T::request>(requests));
        }
    };

    ops::barrier(t);
    if (taking_part) {
        if (longest > 0) ops::compute(t, work::daxpy(longest));  // first touch, untimed
        std::vector<int> ranks{cfg.test_node};
        if (partner != cfg.test_node) ranks.push_back(partner);
        // The baseline's two DAXPYs start together because the partner starts each sample on
        // the engine's message from the test node, which then starts timing.
        auto measured = sample_points(t, points.size(), cfg.sampling, cfg.test_node, ranks, sample_reduction::decider,
                                      [&](std::size_t q, std::size_t iterations) -> std::optional<repeat_result> {
                                          if (timing) return repeat(t, iterations, [&] { step(points[q]); });
                                          for (std::size_t i = 0; i < iterations; ++i) step(points[q]);
                                          return std::nullopt;
                                      });
        if (timing)
            for (std::size_t q = 0; q < points.size(); ++q) {
                const point& x = points[q];
                record rec{"overlap", params{}, {}};
                if (x.mode[0] != 'd') rec.params.set("size", x.size);
                rec.params.set("vector_length", x.length).set("mode", x.mode).set("nodes", p).set("hops", cfg.hops);
                if (x.mode[0] == 's') rec.values.set("form", std::string(to_string(swap_form_of<T>())));
                fill_record(rec, std::move(measured[q]), cfg.sampling, sample_reduction::decider);
                if (cfg.on_point) cfg.on_point(rec);
                out.records.push_back(std::move(rec));
            }
    }
    ops::barrier(t);
    return out;
}

}  // namespace comet::kernels

#if !defined(COMET_COMPILED)
#include <comet/kernels/overlap.ipp>
#endif
