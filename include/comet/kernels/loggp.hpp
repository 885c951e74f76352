// comet/kernels/loggp.hpp — parametrised round trips, Netgauge's way of measuring a network's
// LogGP parameters (Hoefler, Lichei and Rehm, "Low-Overhead LogGP Parameter Assessment for
// Modern Interconnection Networks", 2007): the test node sends a train of n messages of s bytes
// to its partner, d seconds apart, and the partner answers with one message of s bytes once it
// has them all. PRTT(n, d, s) is the train's round trip, and four round trips per size separate
// the parameters (analysis/loggp.hpp, `fit_loggp`):
//
//   PRTT(1, 0, s)  one message each way: 2·(o_s(s) + L + G_path·s + o_r(s)), o_s(s) and o_r(s)
//                  the two ends' CPU time, each an overhead plus a cost per byte;
//   PRTT(n, 0, s)  the train back to back: each further message waits for the gap,
//                  PRTT(1, 0, s) + (n − 1)·(g + G·s) (where the sender's overhead is longer than
//                  the network's gap, as on the iPSC/860, the gap shows that overhead);
//   PRTT(n, d, s)  d apart, with d = PRTT(1, 0, s) (Netgauge's choice: longer than the gap, so
//                  no message waits for the one before): PRTT(1, 0, s) + (n − 1)·(o_s(s) + d),
//                  o_s the sender's part;
//   late(s)        one message, then the test node computes for d = 2·PRTT(1, 0, s) (the answer
//                  has long arrived) and receives it: o_s(s) + d + o_r(s), o_r the receiver's
//                  part (Netgauge times it on the server; here the test node's clock times it).
//                  On the simulator the interrupts that take the answer in during d lengthen
//                  the computation and count in o_r; a real transport that takes it in beside
//                  the computation (another core, the network card) leaves in o_r the receive
//                  call's own cost.
//
// A send here is the transport's blocking send, as an application's is: o is what a send costs
// its caller. The model holds below the size from which a transport sends by rendezvous (S);
// a train above it waits for its partner at every message, and the fit says so.
//
//   comet::result_set r = comet::kernels::loggp(t, {.train = 16});
//   comet::loggp_parameters m = comet::fit_loggp(r.records);   // m.o.value, m.o.se, m.g, ...
#pragma once
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_LOGGP

#include <comet/kernels/transfer.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace comet::kernels {

/// Configuration of `loggp`. All ranks pass the same values (@pre).
struct loggp_config {
    /// Sizes (each once), the pair (`transfer.hops`: one distance, 1 when none is given, from
    /// `transfer.test_node`), sampling, tag and verify, as echo's; `links`, `concurrent` and
    /// `buffer` are not for this kernel.
    transfer_config transfer = {.sizes = {0, 64, 128, 256, 512, 1024}, .hops = {1}};
    /// Messages in a train (n; Netgauge's default 16). At least 2.
    std::size_t train = 16;
};

/// The four round trips' names, as the records' param `train_kind` holds them.
inline constexpr const char* prtt_single = "1,0";        ///< PRTT(1, 0, s)
inline constexpr const char* prtt_back_to_back = "n,0";  ///< PRTT(n, 0, s)
inline constexpr const char* prtt_spaced = "n,d";        ///< PRTT(n, d, s)
inline constexpr const char* prtt_late = "late";         ///< send, compute d, receive

/// Runs the parametrised round trips on every rank of `t`'s group and returns, on the test
/// node, four records per size (kernel "loggp"; params size, hops, nodes, `train_kind` as
/// above, `train` = n; for "n,d" and "late" the value `delay` = d in seconds, a measurement of
/// this run's and so not part of the point): samples = a train's
/// whole round trip in seconds, loop overhead subtracted. Other ranks return an empty set. The
/// spaced and late trains run last, with d = the median of their size's single round trip
/// (late: twice it), which the test node shares; a size without one takes the longest of the
/// others.
/// No hop distance given is one hop. With `transfer.verify` every message is checked (times
/// then include the filling and checking, as echo's do).
/// @throws invalid_argument (every rank) naming the value: train < 2, links given, more than
///         one hop distance or distance 0, buffer = clean, a size given twice, and whatever
///         echo's configuration check refuses.
template <transport T>
result_set loggp(T& t, const loggp_config& cfg = {}) {
    const int me = t.rank();
    transfer_config tc = cfg.transfer;
    if (tc.hops.empty()) tc.hops = {1};
    if (cfg.train < 2) raise<invalid_argument>(me, "loggp: train = ", cfg.train, " messages; a train needs at least 2");
    if (!tc.links.empty() || tc.concurrent)
        raise<invalid_argument>(me, "loggp: links are not for this kernel: it measures one pair (transfer.hops)");
    if (tc.hops.size() != 1)
        raise<invalid_argument>(me, "loggp: ", tc.hops.size(), " hop distances given; the model is of one pair: give one");
    if (tc.hops.front() == 0) raise<invalid_argument>(me, "loggp: hop distance 0: the test node would be its own partner");
    if (tc.buffer == echo_buffer::clean)
        raise<invalid_argument>(me, "loggp: buffer = clean is echo's; this kernel sends every message out of one buffer");
    for (std::size_t i = 0; i < tc.sizes.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (tc.sizes[i] == tc.sizes[j]) raise<invalid_argument>(me, "loggp: size ", tc.sizes[i], " is given twice");
    const int tag = tc.tag;
    const std::size_t n = cfg.train;
    const auto more = [&](const char* kind) {
        params p;
        p.set("train_kind", std::string(kind)).set("train", static_cast<std::int64_t>(n));
        return p;
    };
    // With tc.verify, every message carries the pattern of its sender and its number, each way
    // counted apart, and every one received is checked (transfer.hpp, `verify`).
    detail::message_numbers sent, received;
    const auto send = [&](int peer, std::span<std::byte> message) {
        if (tc.verify) detail::fill_pattern(message, me, sent.next(peer));
        ops::send(t, peer, tag, message);
    };
    const auto recv = [&](int peer, std::span<std::byte> message) {
        ops::recv(t, peer, tag, message);
        if (tc.verify) detail::check_pattern("loggp", me, message, peer, received.next(peer));
    };
    const auto train = [&](int partner, std::span<std::byte> message, double delay) {
        for (std::size_t i = 0; i < n; ++i) {
            if (i > 0 && delay > 0) ops::compute(t, work::busy(delay));
            send(partner, message);
        }
        recv(partner, message);
    };
    const auto answer_train = [&](int test_node, std::span<std::byte> message) {
        for (std::size_t i = 0; i < n; ++i) recv(test_node, message);
        send(test_node, message);
    };
    const auto answer = [&](int test_node, std::span<std::byte> message) {
        recv(test_node, message);
        send(test_node, message);
    };
    result_set out = detail::transfer_points(
        t, tc, "loggp", 1.0,
        [&](int partner, std::span<std::byte> message) {
            send(partner, message);
            recv(partner, message);
        },
        answer, detail::concurrent_pattern::echo, {}, more(prtt_single));
    result_set back = detail::transfer_points(
        t, tc, "loggp", 1.0, [&](int partner, std::span<std::byte> message) { train(partner, message, 0.0); }, answer_train,
        detail::concurrent_pattern::echo, {}, more(prtt_back_to_back));

    // The delays, one per size: the single round trip's median, shared by the test node.
    const std::size_t sizes = tc.sizes.size();
    std::vector<double> delay(sizes, std::nan(""));
    if (me == tc.test_node)
        for (std::size_t i = 0; i < sizes && i < out.records.size(); ++i) delay[i] = statistic_of(out.records[i], statistic::median);
    ops::broadcast(t, tc.test_node, std::as_writable_bytes(std::span<double>(delay)));
    double longest = 0;
    for (double d : delay)
        if (std::isfinite(d)) longest = std::max(longest, d);
    for (double& d : delay)
        if (!std::isfinite(d)) d = longest;
    const auto delay_of = [&](std::size_t size) {
        for (std::size_t i = 0; i < sizes; ++i)
            if (tc.sizes[i] == size) return delay[i];
        return longest;
    };
    result_set spaced = detail::transfer_points(
        t, tc, "loggp", 1.0, [&](int partner, std::span<std::byte> message) { train(partner, message, delay_of(message.size())); },
        answer_train, detail::concurrent_pattern::echo, {}, more(prtt_spaced));
    result_set late = detail::transfer_points(
        t, tc, "loggp", 1.0,
        [&](int partner, std::span<std::byte> message) {
            send(partner, message);
            ops::compute(t, work::busy(2 * delay_of(message.size())));
            recv(partner, message);
        },
        answer, detail::concurrent_pattern::echo, {}, more(prtt_late));
    // A delay read from a single round trip that must not be read at face value (its samples
    // disagree, or it has none) says so on the records that used it: the delay and, since every
    // sample includes it, their statistics are flagged with that reason.
    const auto delay_flag = [&](std::size_t size) -> std::string {
        for (std::size_t i = 0; i < sizes && i < out.records.size(); ++i) {
            if (tc.sizes[i] != size) continue;
            const record& single = out.records[i];
            if (!std::isfinite(statistic_of(single, statistic::median)))
                return "PRTT(1,0, " + std::to_string(size) + " B) has no median: the longest of the other sizes' is used";
            const assessment a = assess(single);
            for (const char* what : {"point", "statistics", "median"})
                if (const flag* f = find_flag(a.flags, what)) return "from a flagged median: PRTT(1,0, " + std::to_string(size) + " B): " + f->why;
        }
        return {};
    };
    for (auto& r : back.records) out.records.push_back(std::move(r));
    for (auto* set : {&spaced, &late})
        for (auto& r : set->records) {
            const auto size = static_cast<std::size_t>(r.params.integer("size").value_or(0));
            const double d = delay_of(size);
            r.values.set("delay", set == &late ? 2 * d : d);
            if (const std::string why = delay_flag(size); !why.empty()) {
                add_flag(r, "delay", why);
                add_flag(r, "statistics", "its delay is not to be read at face value: " + why);  // the samples include it
            }
            out.records.push_back(std::move(r));
        }
    return out;
}

}  // namespace comet::kernels
