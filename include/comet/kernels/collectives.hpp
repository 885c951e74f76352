// comet/kernels/collectives.hpp — CoMet's collective kernels: broadcast (thesis 3.3.3, figure
// 3.4), global sum (3.3.4, figure 3.5) and barrier synchronization (3.3.5). Each runs on the
// whole group through `comet::ops` — the transport's own collective where it has one (NX/2's
// `csend(-1)`, `gdsum` and `gsync` on the iPSC/860, MPI_Bcast on MPI), the portable algorithm
// of algorithms/collectives.hpp otherwise, named in each record's `implementation` — and is
// timed on one test node by the sampling engine (timing/measure.hpp), like echo.
//
// The thesis plots these against the number of nodes (figures 5.3, 5.6, 5.7): "× P" comes from
// running a kernel on groups of several sizes (the comet program runs the suite once per
// `--nodes` value) — every record carries `nodes`, and `comet::fit_log_p` (stats/growth.hpp)
// fits time against log2 P across them.
//
// Deliberately not here: window-based single-shot measurement of collectives and their
// nonblocking forms (Hoefler et al., SPEC 7.4).
#pragma once

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_COLLECTIVES

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/core/errors.hpp>
#include <comet/kernels/transfer.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>
#include <comet/timing/measure.hpp>
#include <comet/timing/repeat.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <optional>
#include <vector>

namespace comet::kernels {

/// Vector lengths (doubles) the global sum measures by default: 0 and every power of two up
/// to 16384 (128 KiB). Length 1 is the thesis' figure 5.7 (a global sum of one double); the
/// doubling steps show where the time turns from start-up- to bandwidth-dominated (NX/2's
/// 100-byte protocol change lies between 12 and 13 doubles). The thesis swept up to
/// `max_vec_len` = 200000; stopping at 16384 keeps a 1000-iteration repeat loop per point
/// within seconds on a workstation, and longer vectors only extend the straight line.
COMET_DECL std::vector<std::size_t> default_vector_lengths();

/// Configuration of `broadcast`. All ranks pass the same values (@pre).
struct broadcast_config {
    /// Message sizes in bytes, measured in this order.
    std::vector<std::size_t> sizes = default_message_sizes();
    /// The root of every broadcast, and the rank that times it (the thesis' test node).
    int test_node = 0;
    /// How each point is sampled (timing/measure.hpp).
    comet::sampling sampling = {};
    /// Called on the test node after each point is measured (for progress displays).
    std::function<void(const record&)> on_point = {};
};

/// Configuration of `global_sum`. All ranks pass the same values (@pre).
struct global_sum_config {
    /// Vector lengths in doubles, measured in this order.
    std::vector<std::size_t> vector_lengths = default_vector_lengths();
    /// The longest vector accepted (the thesis' `max_vec_len`); a longer one is an error.
    std::size_t max_vec_len = 200000;
    /// The rank that times.
    int test_node = 0;
    /// How each point is sampled (timing/measure.hpp).
    comet::sampling sampling = {};
    /// Called on the test node after each point is measured.
    std::function<void(const record&)> on_point = {};
};

/// Configuration of `barrier`. All ranks pass the same values (@pre).
struct barrier_config {
    /// The rank that times.
    int test_node = 0;
    /// How the point is sampled (timing/measure.hpp).
    comet::sampling sampling = {};
    /// Called on the test node after the point is measured.
    std::function<void(const record&)> on_point = {};
};

namespace detail::collectives {

/// The checks every collective kernel shares; the message names the kernel, value and rank.
template <transport T>
void check_common(const T& t, std::string_view kernel, int test_node, const sampling& s) {
    const int p = t.size();
    if (test_node < 0 || test_node >= p)
        raise<invalid_argument>(t.rank(), kernel, ": test node ", test_node, " is outside 0..", p - 1);
    check_sampling(t.rank(), kernel, s);
}

/// Every rank of the group: the sampling engine over a collective kernel's points, where a
/// sample of point `p` is a repeat loop of `op(p)` timed on the test node while every other
/// rank runs `op(p)` as often (the collectives pair up). Returns the measurements (complete on
/// the test node).
template <transport T, class Op>
std::vector<sampled_point> collective_points(T& t, int test_node, const sampling& s, std::size_t points, Op&& op) {
    return sample_points(t, points, s, test_node, rank_set::every(t.size()), sample_reduction::decider,
                         [&](std::size_t p, std::size_t iterations) -> std::optional<repeat_result> {
                             if (t.rank() == test_node) return repeat(t, iterations, [&] { op(p); });
                             // The test node's repeat loop also runs an empty loop after the timed
                             // one; the other ranks need not mirror it, since the next collective
                             // waits for the test node anyway.
                             for (std::size_t i = 0; i < iterations; ++i) op(p);
                             return std::nullopt;
                         });
}

/// Appends the records of a collective kernel: `rec(p)` with point p's samples.
template <class Rec>
void collect(result_set& out, std::vector<sampled_point>& measured, const sampling& s,
             const std::function<void(const record&)>& on_point, Rec&& rec) {
    for (std::size_t p = 0; p < measured.size(); ++p) {
        record r = rec(p);
        fill_record(r, std::move(measured[p]), s, sample_reduction::decider);
        if (on_point) on_point(r);
        out.records.push_back(std::move(r));
    }
}

/// The broadcast's figures without its closing barrier, into `rec`'s values: `closing_barrier`
/// (the median of the barrier alone) and `without_barrier`, the median of the paired
/// differences — sample j of the broadcast with its barrier less sample j of the barrier alone,
/// the two taken one after the other in the same round, so that what moved both (the machine's
/// state of that moment) cancels — with its 95% interval (`without_barrier_ci_low`, `_high`).
/// Why pairs: a difference of two medians of different samples has no interval, and went below
/// zero on a busy machine. Where the interval does not exclude zero (the broadcast alone is
/// within the barrier's noise) or there are too few pairs for one, `without_barrier` is not
/// reported but flagged, with why. Where the differences disagree (a disturbed broadcast or
/// barrier on one side of a pair), `without_barrier` and its interval are flagged; where the
/// barrier's own samples disagree, `closing_barrier` is.
COMET_DECL void without_closing_barrier(record& rec, const sampled_point& with, const sampled_point& alone);

}  // namespace detail::collectives

/// Broadcast (CoMet thesis 3.3.3, figure 3.4): the test node broadcasts a message of each size
/// to every other node with the transport's `broadcast`, and every node then meets in a
/// barrier — the pseudo-code's closing `barrier()`, kept deliberately: a root may leave a
/// broadcast as soon as its own part is sent (NX/2's `csend(-1)` returns once the message is
/// buffered), so back-to-back broadcasts without it would time how fast the root can inject
/// messages, not how long a broadcast takes to reach every node. With it, each iteration ends
/// only when every node has its copy. The barrier's own cost is what `barrier` measures on the
/// same group: subtract it to estimate the broadcast alone.
///
/// Returns, on the test node, one record per size with params {size, nodes} and samples = the
/// time in seconds of one broadcast plus the closing barrier, averaged over a sample's repeat
/// loop (loop overhead subtracted); its values say `implementation`, `closing_barrier` (the
/// median time of the barrier alone, sampled in the same rounds, so that a reader sees what part
/// of the figure the barrier is) and `without_barrier` with its interval (the broadcast alone,
/// from paired samples: `without_closing_barrier`). Other ranks return an empty set. One rank is a
/// valid group (the broadcast has nobody to reach; its time is the P = 1 point of a log-P fit).
/// @pre every rank calls broadcast with the same config.
/// @throws invalid_argument (on every rank, naming the rank and the value) for a test node
///         outside the group, a sampling `check_sampling` refuses, or a size over
///         `max_message_size`.
/// @code
///   comet::result_set r = comet::kernels::broadcast(t, {.sizes = {8, 1024, 4096}});
/// @endcode
template <transport T>
result_set broadcast(T& t, const broadcast_config& cfg = {}) {
    detail::collectives::check_common(t, "broadcast", cfg.test_node, cfg.sampling);
    for (std::size_t n : cfg.sizes)
        if (n > max_message_size)
            raise<invalid_argument>(t.rank(), "broadcast: message size ", n, " exceeds the ", max_message_size,
                                    "-byte limit");
    const std::size_t largest = cfg.sizes.empty() ? 0 : *std::max_element(cfg.sizes.begin(), cfg.sizes.end());
    std::vector<std::byte> buffer(largest);
    result_set out;
    ops::barrier(t);  // the thesis starts every kernel from a well-defined state
    // Point 2i: the broadcast of sizes[i] with its closing barrier; point 2i + 1: the closing
    // barrier alone, sampled beside it, so that the record can name what the barrier took.
    auto measured = detail::collectives::collective_points(t, cfg.test_node, cfg.sampling, 2 * cfg.sizes.size(), [&](std::size_t p) {
        if (p % 2 == 0) ops::broadcast(t, cfg.test_node, mutable_bytes(buffer.data(), cfg.sizes[p / 2]));
        ops::barrier(t);
    });
    if (t.rank() == cfg.test_node)
        for (std::size_t i = 0; i < cfg.sizes.size(); ++i) {
            record rec{"broadcast", params{}, {}};
            rec.params.set("size", cfg.sizes[i]).set("nodes", t.size());
            rec.values.set("implementation", std::string(ops::to_string(ops::broadcast.implementation_for<T>())));
            detail::collectives::without_closing_barrier(rec, measured[2 * i], measured[2 * i + 1]);
            fill_record(rec, std::move(measured[2 * i]), cfg.sampling, sample_reduction::decider);
            if (cfg.on_point) cfg.on_point(rec);
            out.records.push_back(std::move(rec));
        }
    ops::barrier(t);
    return out;
}

/// Global sum (CoMet thesis 3.3.4, figure 3.5): every node adds its vector of doubles into the
/// element-wise sum over all nodes with the transport's `allreduce_sum` (NX/2's `gdsum`),
/// over vector lengths. No barrier is added: every node needs every other node's
/// contribution before it can leave, so the operation synchronises by itself.
///
/// Returns, on the test node, one record per vector length with params {vector_length, nodes}
/// and samples = the time in seconds of one global sum, averaged over a sample's repeat loop
/// (loop overhead subtracted). Other ranks return an empty set.
/// The vectors hold zeros: summing zeros keeps them zero over thousands of repetitions,
/// where any other start value would grow without bound to infinity (the thesis' `number :=
/// global sum of number` does grow); zero costs what any normal double costs.
/// @pre every rank calls global_sum with the same config.
/// @throws invalid_argument (on every rank) for a test node outside the group, a sampling
///         `check_sampling` refuses, or a vector length over `max_vec_len` or over
///         `max_message_size` bytes.
/// @code
///   comet::result_set r = comet::kernels::global_sum(t, {.vector_lengths = {1, 1000}});
/// @endcode
template <transport T>
result_set global_sum(T& t, const global_sum_config& cfg = {}) {
    detail::collectives::check_common(t, "global_sum", cfg.test_node, cfg.sampling);
    for (std::size_t n : cfg.vector_lengths) {
        if (n > cfg.max_vec_len)
            raise<invalid_argument>(t.rank(), "global_sum: vector length ", n, " exceeds max_vec_len ", cfg.max_vec_len);
        if (n > max_message_size / sizeof(double))
            raise<invalid_argument>(t.rank(), "global_sum: vector length ", n, " (", n, " doubles) exceeds the ",
                                    max_message_size, "-byte message limit");
    }
    const std::size_t longest =
        cfg.vector_lengths.empty() ? 0 : *std::max_element(cfg.vector_lengths.begin(), cfg.vector_lengths.end());
    std::vector<double> vector(longest, 0.0);
    result_set out;
    ops::barrier(t);
    auto measured = detail::collectives::collective_points(t, cfg.test_node, cfg.sampling, cfg.vector_lengths.size(),
                                                           [&](std::size_t p) {
                                                               ops::allreduce_sum(t, std::span<double>(vector.data(), cfg.vector_lengths[p]));
                                                           });
    if (t.rank() == cfg.test_node)
        detail::collectives::collect(out, measured, cfg.sampling, cfg.on_point, [&](std::size_t p) {
            record rec{"global_sum", params{}, {}};
            rec.params.set("vector_length", cfg.vector_lengths[p]).set("nodes", t.size());
            rec.values.set("implementation", std::string(ops::to_string(ops::allreduce_sum.implementation_for<T>())));
            return rec;
        });
    ops::barrier(t);
    return out;
}

/// Barrier synchronization (CoMet thesis 3.3.5): the least time a global barrier takes. The
/// thesis warns that the nodes may be "at completely different stages of execution" when they
/// enter a barrier, so a single barrier mostly measures how long the first node waited for the
/// last; it measures "the least time required to complete a barrier synchronization ... by
/// repeatedly calling and timing global synchronizations on a single node". Here every node
/// calls `barrier` back to back, so after the first one they all enter each barrier together,
/// and the test node times repeat loops of barriers. The thesis' figure is the LEAST sample
/// (`summarize(rec.samples).min`, or `fit_log_p`'s default for this kernel); the other samples
/// stay in the record to show the spread.
///
/// Returns, on the test node, one record with params {nodes} and samples = the time in
/// seconds of one barrier, averaged over a repeat loop (loop overhead subtracted). Other ranks
/// return an empty set.
/// @pre every rank calls barrier with the same config.
/// @throws invalid_argument (on every rank) for a test node outside the group, or a sampling
///         `check_sampling` refuses.
/// @code
///   comet::result_set r = comet::kernels::barrier(t, {.sampling = {.min_samples = 20}});
///   double least = comet::summarize(r.records.at(0).samples).min;   // on the test node
/// @endcode
template <transport T>
result_set barrier(T& t, const barrier_config& cfg = {}) {
    detail::collectives::check_common(t, "barrier", cfg.test_node, cfg.sampling);
    result_set out;
    ops::barrier(t);
    auto measured = detail::collectives::collective_points(t, cfg.test_node, cfg.sampling, 1, [&](std::size_t) { ops::barrier(t); });
    if (t.rank() == cfg.test_node)
        detail::collectives::collect(out, measured, cfg.sampling, cfg.on_point, [&](std::size_t) {
            record rec{"barrier", params{}, {}};
            rec.params.set("nodes", t.size());
            rec.values.set("implementation", std::string(ops::to_string(ops::barrier.implementation_for<T>())));
            return rec;
        });
    ops::barrier(t);
    return out;
}

}  // namespace comet::kernels

#if !defined(COMET_COMPILED)
#include <comet/kernels/collectives.ipp>
#endif
