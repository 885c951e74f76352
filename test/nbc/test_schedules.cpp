// Tests of comet/nbc/schedule.hpp and comet/nbc/schedules.hpp without a transport: every rank's
// schedule of one collective, for P = 1 to 17, run together by a small executor here (buffered
// sends, receives matched per (source, destination) in FIFO order as every transport matches one
// tag), so a send without its receive, two sizes that differ, a round that can never complete or
// a wrong result shows without threads or a simulator; the round counts each builder promises
// (dissemination ceil(log2 P), the binomial tree's depth, the pipeline's segments + 1 on interior
// ranks); which algorithm the choosers take at their thresholds; the schedule's own rules (empty
// rounds dropped, scratch that keeps its address when the schedule moves); and every error a
// builder raises, naming the rank and the value.
#include <comet/nbc/schedules.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <deque>
#include <span>
#include <string>
#include <vector>

namespace nbc_schedules_test {

using comet::nbc::action;
using comet::nbc::action_kind;
using comet::nbc::reduce_op;
using comet::nbc::schedule;
using comet_test::mentions;

/// What running every rank's schedule together found: `error` empty when every message met a
/// receive of its size and every rank finished; `steps` is the longest chain of messages (a
/// receive that completes in step k waited for a send of step k − 1), the collective's latency
/// in messages when sends never wait.
struct outcome {
    std::string error;
    int steps = 0;
    std::size_t messages = 0;
};

/// Runs `plans[r]` as rank r's part, as the engine does (a round's local actions, then its sends
/// and receives posted; the next round once all have completed), with every send buffered: in
/// step k a rank takes only messages sent before step k, as far as its rounds get.
inline outcome execute(const std::vector<schedule>& plans) {
    struct message {
        std::vector<std::byte> bytes;
        int sent = 0;
    };
    struct posted {
        int peer;
        std::byte* target;
        std::size_t bytes;
    };
    const int p = static_cast<int>(plans.size());
    const auto at = [p](int from, int to) { return static_cast<std::size_t>(from) * static_cast<std::size_t>(p) + static_cast<std::size_t>(to); };
    std::vector<std::deque<message>> queues(static_cast<std::size_t>(p) * static_cast<std::size_t>(p));
    std::vector<std::size_t> round(static_cast<std::size_t>(p), 0);
    std::vector<bool> started(static_cast<std::size_t>(p), false);
    std::vector<std::vector<posted>> pending(static_cast<std::size_t>(p));
    outcome out;
    for (int step = 0;; ++step) {
        bool moved = false;
        for (int r = 0; r < p; ++r) {
            const auto ur = static_cast<std::size_t>(r);
            const schedule& s = plans[ur];
            while (round[ur] < s.rounds()) {
                if (!started[ur]) {
                    for (const action& a : s.round(round[ur])) {
                        switch (a.kind) {
                        case action_kind::copy:
                            if (a.bytes) std::memmove(a.target, a.source, a.bytes);
                            break;
                        case action_kind::combine: {
                            auto* into = reinterpret_cast<double*>(a.target);
                            const auto* from = reinterpret_cast<const double*>(a.source);
                            for (std::size_t i = 0; i < a.bytes / sizeof(double); ++i)
                                into[i] = a.op == reduce_op::sum ? into[i] + from[i]
                                          : a.op == reduce_op::max ? std::max(into[i], from[i])
                                                                   : std::min(into[i], from[i]);
                            break;
                        }
                        case action_kind::send:
                            if (a.peer < 0 || a.peer >= p) {
                                out.error = "rank " + std::to_string(r) + " sends to rank " + std::to_string(a.peer);
                                return out;
                            }
                            queues[at(r, a.peer)].push_back({std::vector<std::byte>(a.source, a.source + a.bytes), step});
                            ++out.messages;
                            break;
                        case action_kind::recv:
                            if (a.peer < 0 || a.peer >= p) {
                                out.error = "rank " + std::to_string(r) + " receives from rank " + std::to_string(a.peer);
                                return out;
                            }
                            pending[ur].push_back({a.peer, a.target, a.bytes});
                            break;
                        }
                    }
                    started[ur] = true;
                    moved = true;
                }
                // Receives in the order they were posted, each taking the earliest message from
                // its source: MPI's matching within one tag.
                std::vector<posted> left;
                for (const posted& x : pending[ur]) {
                    std::deque<message>& q = queues[at(x.peer, r)];
                    const bool earlier_waits =
                        std::any_of(left.begin(), left.end(), [&](const posted& y) { return y.peer == x.peer; });
                    if (q.empty() || q.front().sent >= step || earlier_waits) {
                        left.push_back(x);
                        continue;
                    }
                    if (q.front().bytes.size() != x.bytes) {
                        out.error = "rank " + std::to_string(x.peer) + " sent " + std::to_string(q.front().bytes.size()) +
                                    " bytes where rank " + std::to_string(r) + " expects " + std::to_string(x.bytes);
                        return out;
                    }
                    if (x.bytes) std::memcpy(x.target, q.front().bytes.data(), x.bytes);
                    q.pop_front();
                    out.steps = std::max(out.steps, step);
                    moved = true;
                }
                pending[ur] = std::move(left);
                if (!pending[ur].empty()) break;
                ++round[ur];
                started[ur] = false;
            }
        }
        if (!moved) break;
    }
    for (int r = 0; r < p; ++r)
        if (round[static_cast<std::size_t>(r)] < plans[static_cast<std::size_t>(r)].rounds()) {
            out.error = "rank " + std::to_string(r) + " never finishes round " + std::to_string(round[static_cast<std::size_t>(r)]);
            return out;
        }
    for (int from = 0; from < p; ++from)
        for (int to = 0; to < p; ++to)
            if (!queues[at(from, to)].empty()) {
                out.error = "a message from rank " + std::to_string(from) + " to rank " + std::to_string(to) + " is never received";
                return out;
            }
    return out;
}

/// Every send matched by a receive of the same size, counted without running anything: for each
/// (source, destination) the sends in the order the source's schedule lists them against the
/// receives in the order the destination's lists them, whatever the rounds.
inline std::string sends_match_receives(const std::vector<schedule>& plans) {
    const int p = static_cast<int>(plans.size());
    for (int from = 0; from < p; ++from)
        for (int to = 0; to < p; ++to) {
            std::vector<std::size_t> sent, taken;
            for (const action& a : plans[static_cast<std::size_t>(from)].actions())
                if (a.kind == action_kind::send && a.peer == to) sent.push_back(a.bytes);
            for (const action& a : plans[static_cast<std::size_t>(to)].actions())
                if (a.kind == action_kind::recv && a.peer == from) taken.push_back(a.bytes);
            if (sent != taken)
                return "rank " + std::to_string(from) + " sends rank " + std::to_string(to) + " " + std::to_string(sent.size()) +
                       " messages, which receives " + std::to_string(taken.size()) + " (or their sizes differ)";
        }
    return {};
}

/// Both checks on one collective's schedules; returns the run's outcome.
inline outcome check(const std::vector<schedule>& plans, const std::string& what) {
    BOOST_TEST_CONTEXT(what) {
        BOOST_TEST(sends_match_receives(plans) == "");
        outcome o = execute(plans);
        BOOST_TEST(o.error == "");
        return o;
    }
    return {};
}

/// Integer-valued: every sum exact, the extremes on a different rank for each element.
inline double value(int rank, std::size_t i) {
    return static_cast<double>(static_cast<long long>((static_cast<std::size_t>(rank) * 37 + i * 11) % 97) - 48);
}

inline std::byte byte_of(int seed, std::size_t j) {
    return static_cast<std::byte>((static_cast<std::size_t>(seed) * 131 + j * 7 + 3) & 0xff);
}

inline int ceil_log2(int p) { return static_cast<int>(std::bit_width(static_cast<unsigned>(p - 1))); }

/// Every rank's schedule of one collective, built by `build(rank)`.
template <class Build>
std::vector<schedule> for_all(int p, Build build) {
    std::vector<schedule> plans;
    for (int r = 0; r < p; ++r) plans.push_back(build(r));
    return plans;
}

/// Runs the allreduce schedules `build` makes over integer-valued vectors of `n` at `p` ranks
/// and checks every rank's result against the exact one.
template <class Build>
outcome check_allreduce(int p, std::size_t n, reduce_op op, Build build, const std::string& what) {
    std::vector<std::vector<double>> v(static_cast<std::size_t>(p), std::vector<double>(n));
    for (int r = 0; r < p; ++r)
        for (std::size_t i = 0; i < n; ++i) v[static_cast<std::size_t>(r)][i] = value(r, i);
    const auto plans = for_all(p, [&](int r) { return build(r, std::span<double>(v[static_cast<std::size_t>(r)])); });
    const outcome o = check(plans, what);
    for (std::size_t i = 0; i < n; ++i) {
        double want = value(0, i);
        for (int r = 1; r < p; ++r)
            want = op == reduce_op::sum ? want + value(r, i) : op == reduce_op::max ? std::max(want, value(r, i)) : std::min(want, value(r, i));
        for (int r = 0; r < p; ++r)
            if (v[static_cast<std::size_t>(r)][i] != want) {
                BOOST_ERROR(what << ": rank " << r << " holds " << v[static_cast<std::size_t>(r)][i] << " at " << i << ", not " << want);
                return o;
            }
    }
    return o;
}

}  // namespace nbc_schedules_test

BOOST_AUTO_TEST_SUITE(nbc_schedules)

using namespace nbc_schedules_test;

BOOST_AUTO_TEST_CASE(a_schedule_drops_empty_rounds_and_keeps_its_scratch_when_moved) {
    schedule s;
    BOOST_TEST(s.rounds() == 0u);
    s.next_round().next_round();  // nothing to close
    BOOST_TEST(s.rounds() == 0u);
    std::vector<std::byte> data(8);
    const std::span<double> scratch = s.scratch<double>(4);
    scratch[3] = 2.5;
    s.send(1, data).recv(2, data).next_round().next_round();
    s.copy(data, data);
    BOOST_TEST(s.rounds() == 2u);  // the open second round counts
    BOOST_TEST(s.round(0).size() == 2u);
    BOOST_TEST(s.round(1).size() == 1u);
    BOOST_TEST(s.round(1)[0].is_local());
    BOOST_TEST(!s.round(0)[0].is_local());
    BOOST_TEST(s.actions().size() == 3u);
    s.set_algorithm("mine");
    schedule moved = std::move(s);
    BOOST_TEST(moved.algorithm() == "mine");
    BOOST_TEST(moved.rounds() == 2u);
    BOOST_TEST(scratch[3] == 2.5);  // still the schedule's, at the same address
    const std::span<std::byte> none = moved.scratch(0);
    BOOST_TEST((none.data() != nullptr));  // a zero-byte receive still has an address
    BOOST_TEST(comet::nbc::to_string(reduce_op::sum) == "sum");
    BOOST_TEST(comet::nbc::to_string(reduce_op::max) == "max");
    BOOST_TEST(comet::nbc::to_string(reduce_op::min) == "min");
}

BOOST_AUTO_TEST_CASE(barrier_takes_ceil_log2_rounds) {
    for (int p = 1; p <= 17; ++p) {
        const auto plans = for_all(p, [p](int r) { return comet::nbc::barrier_schedule(r, p); });
        for (const schedule& s : plans) {
            BOOST_TEST(s.rounds() == static_cast<std::size_t>(ceil_log2(p)));
            BOOST_TEST(s.algorithm() == "dissemination");
        }
        const outcome o = check(plans, "barrier at P = " + std::to_string(p));
        BOOST_TEST(o.steps == ceil_log2(p), "P = " << p);
        BOOST_TEST(o.messages == static_cast<std::size_t>(p * ceil_log2(p)));
    }
}

BOOST_AUTO_TEST_CASE(binomial_broadcast_is_the_blocking_tree_from_every_root) {
    for (int p = 1; p <= 17; ++p)
        for (int root = 0; root < p; ++root) {
            std::vector<std::vector<std::byte>> data(static_cast<std::size_t>(p), std::vector<std::byte>(13));
            for (std::size_t j = 0; j < 13; ++j) data[static_cast<std::size_t>(root)][j] = byte_of(root, j);
            const auto plans = for_all(p, [&](int r) {
                return comet::nbc::binomial_broadcast_schedule(r, p, root, data[static_cast<std::size_t>(r)]);
            });
            int depth = 0;
            for (int r = 0; r < p; ++r) {
                const schedule& s = plans[static_cast<std::size_t>(r)];
                const int v = (r - root + p) % p;
                depth = std::max(depth, std::popcount(static_cast<unsigned>(v)));
                BOOST_TEST(s.algorithm() == "binomial");
                // The root sends, a leaf receives: one round; an interior rank receives, then sends.
                const bool sends = std::any_of(s.actions().begin(), s.actions().end(),
                                               [](const action& a) { return a.kind == action_kind::send; });
                BOOST_TEST(s.rounds() == (p == 1 ? 0u : v != 0 && sends ? 2u : 1u), "P = " << p << ", root " << root << ", rank " << r);
                if (v != 0) {
                    BOOST_TEST(s.round(0).size() == 1u);
                    BOOST_TEST(s.round(0)[0].peer == ((v & (v - 1)) + root) % p);  // the parent: v with its lowest bit cleared
                }
            }
            BOOST_TEST(depth <= ceil_log2(p));
            const outcome o = check(plans, "binomial broadcast at P = " + std::to_string(p) + " from " + std::to_string(root));
            BOOST_TEST(o.steps == depth);  // receives follow the tree's levels, one message each
            BOOST_TEST(o.messages == static_cast<std::size_t>(p - 1));
            for (int r = 0; r < p; ++r) BOOST_TEST((data[static_cast<std::size_t>(r)] == data[static_cast<std::size_t>(root)]));
        }
    // A power of two: the depth is log2 P.
    std::vector<std::vector<std::byte>> data(16, std::vector<std::byte>(1));
    const auto plans = for_all(16, [&](int r) { return comet::nbc::binomial_broadcast_schedule(r, 16, 5, data[static_cast<std::size_t>(r)]); });
    BOOST_TEST(execute(plans).steps == 4);
}

BOOST_AUTO_TEST_CASE(pipeline_broadcast_streams_segments_down_the_chain) {
    for (int p = 1; p <= 17; ++p)
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{99}, std::size_t{100}, std::size_t{1001}}) {
            const int root = (p * 5 + static_cast<int>(n)) % p;
            const std::size_t segment = 100, segments = std::max<std::size_t>(1, (n + segment - 1) / segment);
            std::vector<std::vector<std::byte>> data(static_cast<std::size_t>(p), std::vector<std::byte>(n));
            for (std::size_t j = 0; j < n; ++j) data[static_cast<std::size_t>(root)][j] = byte_of(root + 1, j);
            const auto plans = for_all(p, [&](int r) {
                return comet::nbc::pipeline_broadcast_schedule(r, p, root, data[static_cast<std::size_t>(r)], segment);
            });
            for (int r = 0; r < p; ++r) {
                const int v = (r - root + p) % p;
                const schedule& s = plans[static_cast<std::size_t>(r)];
                BOOST_TEST(s.algorithm() == "pipeline");
                // The root only sends and the last rank only receives: a round per segment. In
                // between, a rank receives segment k while passing segment k − 1 on.
                const std::size_t want = p == 1 ? 0 : v == 0 || v == p - 1 ? segments : segments + 1;
                BOOST_TEST(s.rounds() == want, "P = " << p << ", " << n << " bytes, rank " << r);
                for (const action& a : s.actions())
                    BOOST_TEST(a.peer == (a.kind == action_kind::send ? (r + 1) % p : (r - 1 + p) % p));
            }
            const outcome o = check(plans, "pipeline broadcast at P = " + std::to_string(p) + ", " + std::to_string(n) + " bytes");
            BOOST_TEST(o.messages == static_cast<std::size_t>(p - 1) * (p == 1 ? 0 : segments));
            for (int r = 0; r < p; ++r) BOOST_TEST((data[static_cast<std::size_t>(r)] == data[static_cast<std::size_t>(root)]));
        }
}

BOOST_AUTO_TEST_CASE(broadcast_chooses_the_pipeline_from_its_threshold_on_three_ranks_or_more) {
    const comet::nbc::schedule_options defaults{};
    std::vector<std::byte> below(defaults.pipeline_from - 1), at(defaults.pipeline_from);
    BOOST_TEST(comet::nbc::broadcast_schedule(1, 4, 0, below).algorithm() == "binomial");
    BOOST_TEST(comet::nbc::broadcast_schedule(1, 4, 0, at).algorithm() == "pipeline");
    BOOST_TEST(comet::nbc::broadcast_schedule(1, 3, 0, at).algorithm() == "pipeline");
    // On two ranks the tree is one message: never cut into segments.
    BOOST_TEST(comet::nbc::broadcast_schedule(1, 2, 0, at).algorithm() == "binomial");
    BOOST_TEST(comet::nbc::broadcast_schedule(0, 1, 0, at).algorithm() == "binomial");
    // One round per segment, and one more on an interior rank.
    const std::size_t segments = (at.size() + defaults.segment - 1) / defaults.segment;
    BOOST_TEST(comet::nbc::broadcast_schedule(1, 4, 0, at).rounds() == segments + 1);
    BOOST_TEST(comet::nbc::broadcast_schedule(0, 4, 0, at).rounds() == segments);
    const comet::nbc::schedule_options o{.pipeline_from = 10, .segment = 3};
    std::vector<std::byte> nine(9), ten(10);
    BOOST_TEST(comet::nbc::broadcast_schedule(1, 4, 0, nine, o).algorithm() == "binomial");
    BOOST_TEST(comet::nbc::broadcast_schedule(1, 4, 0, ten, o).algorithm() == "pipeline");
    BOOST_TEST(comet::nbc::broadcast_schedule(1, 4, 0, ten, o).rounds() == 5u);  // 4 segments of at most 3 bytes
    // Below the threshold the segment is never looked at.
    BOOST_TEST(comet::nbc::broadcast_schedule(1, 4, 0, nine, {.pipeline_from = 10, .segment = 0}).algorithm() == "binomial");
}

BOOST_AUTO_TEST_CASE(both_allreduces_are_exact_on_every_rank_at_every_group_size) {
    for (int p = 1; p <= 17; ++p) {
        const int q = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
        const int fold = p == q ? 0 : 2;  // the extra ranks' vector in, the result out
        const int lg = std::countr_zero(static_cast<unsigned>(q));
        for (reduce_op op : {reduce_op::sum, reduce_op::max, reduce_op::min})
            for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, static_cast<std::size_t>(q), std::size_t{37}}) {
                const std::string at = " at P = " + std::to_string(p) + ", n = " + std::to_string(n) + ", " + std::string(to_string(op));
                const outcome rd = check_allreduce(
                    p, n, op, [&](int r, std::span<double> v) { return comet::nbc::recursive_doubling_allreduce_schedule(r, p, v, op); },
                    "recursive doubling" + at);
                // log2 q exchanges; the fold adds at most its two messages (less where the core's
                // other ranks ran ahead: sends here never wait).
                if (fold) BOOST_TEST(rd.steps <= lg + fold, "recursive doubling" << at << ": " << rd.steps << " steps");
                else BOOST_TEST(rd.steps == lg, "recursive doubling" << at << ": " << rd.steps << " steps");
                if (n < static_cast<std::size_t>(q)) continue;  // fewer elements than core ranks: never chosen
                const outcome rs = check_allreduce(
                    p, n, op, [&](int r, std::span<double> v) { return comet::nbc::reduce_scatter_allgather_schedule(r, p, v, op); },
                    "reduce-scatter + allgather" + at);
                if (fold) BOOST_TEST(rs.steps <= 2 * lg + fold, "reduce-scatter + allgather" << at << ": " << rs.steps << " steps");
                else BOOST_TEST(rs.steps == 2 * lg, "reduce-scatter + allgather" << at << ": " << rs.steps << " steps");
            }
        // Rounds of a core rank that folds nothing in: log2 q exchanges and the last combine
        // (recursive doubling); log2 q halvings and log2 q doublings (Rabenseifner).
        // Rank q − 1 is such a rank at every P (the extra ranks, P − q < q, fold onto 0, 1, ...).
        std::vector<double> v(64);
        if (p > 1) {
            const auto ulg = static_cast<std::size_t>(lg);
            BOOST_TEST(comet::nbc::recursive_doubling_allreduce_schedule(q - 1, p, v, reduce_op::sum).rounds() == ulg + 1);
            BOOST_TEST(comet::nbc::reduce_scatter_allgather_schedule(q - 1, p, v, reduce_op::sum).rounds() == 2 * ulg);
        }
    }
}

BOOST_AUTO_TEST_CASE(allreduce_chooses_by_size_and_by_elements_per_core_rank) {
    // 2 KiB = 256 doubles is where reduce-scatter starts.
    std::vector<double> v255(255), v256(256);
    BOOST_TEST(comet::nbc::allreduce_schedule(0, 4, v255, reduce_op::sum).algorithm() == "recursive_doubling");
    BOOST_TEST(comet::nbc::allreduce_schedule(0, 4, v256, reduce_op::sum).algorithm() == "reduce_scatter_allgather");
    BOOST_TEST(comet::nbc::allreduce_schedule(0, 1, v256, reduce_op::max).algorithm() == "reduce_scatter_allgather");
    BOOST_TEST(comet::nbc::allreduce_schedule(0, 1, v256, reduce_op::max).rounds() == 0u);
    // At least one element per rank of the power-of-two core: 17 ranks have a core of 16.
    const comet::nbc::schedule_options from8{.reduce_scatter_from = 8};
    std::vector<double> v15(15), v16(16), v1(1);
    BOOST_TEST(comet::nbc::allreduce_schedule(3, 17, v15, reduce_op::min, from8).algorithm() == "recursive_doubling");
    BOOST_TEST(comet::nbc::allreduce_schedule(3, 17, v16, reduce_op::min, from8).algorithm() == "reduce_scatter_allgather");
    BOOST_TEST(comet::nbc::allreduce_schedule(3, 16, v15, reduce_op::min, from8).algorithm() == "recursive_doubling");
    BOOST_TEST(comet::nbc::allreduce_schedule(3, 16, v16, reduce_op::min, from8).algorithm() == "reduce_scatter_allgather");
    BOOST_TEST(comet::nbc::allreduce_schedule(1, 2, v1, reduce_op::sum, from8).algorithm() == "recursive_doubling");
    BOOST_TEST(comet::nbc::allreduce_schedule(1, 3, v16, reduce_op::sum, {.reduce_scatter_from = 129}).algorithm() == "recursive_doubling");
    BOOST_TEST(comet::nbc::allreduce_schedule(1, 3, v16, reduce_op::sum, {.reduce_scatter_from = 128}).algorithm() ==
               "reduce_scatter_allgather");
    // What the chooser picks runs correctly at every group size, on both sides of both rules.
    for (int p = 1; p <= 17; ++p)
        for (std::size_t n : {std::size_t{0}, std::size_t{7}, std::size_t{8}, std::size_t{16}, std::size_t{17}, std::size_t{300}})
            check_allreduce(
                p, n, reduce_op::sum, [&](int r, std::span<double> v) { return comet::nbc::allreduce_schedule(r, p, v, reduce_op::sum, from8); },
                "allreduce_schedule at P = " + std::to_string(p) + ", n = " + std::to_string(n));
}

BOOST_AUTO_TEST_CASE(alltoall_and_gather_deliver_every_block) {
    for (int p = 1; p <= 17; ++p)
        for (std::size_t block : {std::size_t{0}, std::size_t{1}, std::size_t{5}}) {
            const auto np = static_cast<std::size_t>(p);
            std::vector<std::vector<std::byte>> out(np, std::vector<std::byte>(block * np)), in(out);
            for (int r = 0; r < p; ++r)
                for (int to = 0; to < p; ++to)
                    for (std::size_t j = 0; j < block; ++j)
                        out[static_cast<std::size_t>(r)][static_cast<std::size_t>(to) * block + j] = byte_of(r * 64 + to, j);
            const auto plans = for_all(p, [&](int r) {
                return comet::nbc::alltoall_schedule(r, p, out[static_cast<std::size_t>(r)], in[static_cast<std::size_t>(r)]);
            });
            for (const schedule& s : plans) {
                BOOST_TEST(s.rounds() == 1u);
                BOOST_TEST(s.algorithm() == "linear");
            }
            const std::string at = " at P = " + std::to_string(p) + ", " + std::to_string(block) + "-byte blocks";
            BOOST_TEST(check(plans, "alltoall" + at).messages == np * (np - 1));
            int wrong = 0;
            for (int r = 0; r < p; ++r)
                for (int from = 0; from < p; ++from)
                    for (std::size_t j = 0; j < block; ++j)
                        wrong += in[static_cast<std::size_t>(r)][static_cast<std::size_t>(from) * block + j] != byte_of(from * 64 + r, j);
            BOOST_TEST(wrong == 0, "alltoall" << at);
            for (int root = 0; root < p; ++root) {
                std::vector<std::vector<std::byte>> mine(np, std::vector<std::byte>(block));
                for (int r = 0; r < p; ++r)
                    for (std::size_t j = 0; j < block; ++j) mine[static_cast<std::size_t>(r)][j] = byte_of(r + 7, j);
                std::vector<std::byte> all(block * np);
                const auto gathers = for_all(p, [&](int r) {
                    return comet::nbc::gather_schedule(r, p, root, mine[static_cast<std::size_t>(r)],
                                                       r == root ? comet::mutable_bytes(all) : comet::mutable_bytes{});
                });
                BOOST_TEST(check(gathers, "gather to " + std::to_string(root) + at).messages == np - 1);
                for (int r = 0; r < p; ++r)
                    BOOST_TEST(std::equal(mine[static_cast<std::size_t>(r)].begin(), mine[static_cast<std::size_t>(r)].end(),
                                          all.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r) * block)));
            }
        }
}

BOOST_AUTO_TEST_CASE(the_executor_catches_what_it_is_there_to_catch) {
    // A receive of another size, a send nobody receives, and a receive nobody sends.
    std::vector<std::byte> a(4), b(8);
    std::vector<schedule> sizes(2);
    sizes[0].send(1, a);
    sizes[1].recv(0, b);
    BOOST_TEST(sends_match_receives(sizes) != "");
    BOOST_TEST(execute(sizes).error == "rank 0 sent 4 bytes where rank 1 expects 8");
    std::vector<schedule> unreceived(2);
    unreceived[0].send(1, a);
    BOOST_TEST(execute(unreceived).error == "a message from rank 0 to rank 1 is never received");
    std::vector<schedule> stuck(2);
    stuck[1].send(0, a).next_round();
    stuck[1].recv(0, a);
    stuck[0].recv(1, a);
    BOOST_TEST(execute(stuck).error == "rank 1 never finishes round 1");
}

BOOST_AUTO_TEST_CASE(bad_ranks_roots_sizes_and_segments_name_the_value_and_the_rank) {
    using comet::invalid_argument;
    std::vector<std::byte> data(8);
    std::vector<double> v(4);
    const auto says = [](std::initializer_list<const char*> words) {
        return [words](const invalid_argument& e) { return mentions(e, words); };
    };
    BOOST_CHECK_EXCEPTION(comet::nbc::barrier_schedule(4, 4), invalid_argument, says({"rank 4: ibarrier: rank 4 is outside 0..3"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::barrier_schedule(-1, 4), invalid_argument, says({"ibarrier: rank -1 is outside 0..3"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::barrier_schedule(0, 0), invalid_argument, says({"rank 0: ibarrier: group of 0 ranks"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::binomial_broadcast_schedule(1, 4, 4, data), invalid_argument,
                          says({"rank 1: ibroadcast: root 4 is outside 0..3"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::binomial_broadcast_schedule(1, 4, -1, data), invalid_argument,
                          says({"rank 1: ibroadcast: root -1 is outside 0..3"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::binomial_broadcast_schedule(5, 4, 0, data), invalid_argument,
                          says({"rank 5: ibroadcast: rank 5 is outside 0..3"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::pipeline_broadcast_schedule(2, 3, 3, data, 4), invalid_argument,
                          says({"rank 2: ibroadcast: root 3 is outside 0..2"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::pipeline_broadcast_schedule(2, 3, 0, data, 0), invalid_argument,
                          says({"rank 2: ibroadcast: pipeline segment of 0 bytes"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::broadcast_schedule(2, 3, 0, data, {.pipeline_from = 8, .segment = 0}), invalid_argument,
                          says({"rank 2: ibroadcast: pipeline segment of 0 bytes"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::pipeline_broadcast_schedule(0, -2, 0, data, 4), invalid_argument,
                          says({"rank 0: ibroadcast: group of -2 ranks"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::recursive_doubling_allreduce_schedule(3, 3, v, reduce_op::sum), invalid_argument,
                          says({"rank 3: iallreduce: rank 3 is outside 0..2"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::reduce_scatter_allgather_schedule(3, 3, v, reduce_op::max), invalid_argument,
                          says({"rank 3: iallreduce: rank 3 is outside 0..2"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::allreduce_schedule(0, 0, v, reduce_op::min), invalid_argument,
                          says({"rank 0: iallreduce: group of 0 ranks"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::allreduce_schedule(0, 0, v, reduce_op::min, {.reduce_scatter_from = 0}), invalid_argument,
                          says({"rank 0: iallreduce: group of 0 ranks"}));
    std::vector<std::byte> seven(7), six(6), four(4), twelve(12), eleven(11);
    BOOST_CHECK_EXCEPTION(comet::nbc::alltoall_schedule(0, 3, seven, seven), invalid_argument,
                          says({"rank 0: ialltoall: the send buffer's 7 bytes are not 3 equal blocks"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::alltoall_schedule(1, 3, six, four), invalid_argument,
                          says({"rank 1: ialltoall: the receive buffer holds 4 bytes where 3 blocks of 2 need 6"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::alltoall_schedule(3, 3, six, six), invalid_argument, says({"rank 3: ialltoall: rank 3 is outside 0..2"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::gather_schedule(2, 3, 2, four, eleven), invalid_argument,
                          says({"rank 2: igather: the root's buffer holds 11 bytes where 3 blocks of 4 need 12"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::gather_schedule(0, 3, 3, four, twelve), invalid_argument,
                          says({"rank 0: igather: root 3 is outside 0..2"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::gather_schedule(0, 3, -1, four, twelve), invalid_argument,
                          says({"rank 0: igather: root -1 is outside 0..2"}));
    BOOST_CHECK_EXCEPTION(comet::nbc::gather_schedule(-3, 3, 0, four, twelve), invalid_argument,
                          says({"igather: rank -3 is outside 0..2"}));
    // Only the root's buffer matters: a non-root's is never looked at.
    BOOST_TEST(comet::nbc::gather_schedule(1, 3, 2, four, eleven).rounds() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
