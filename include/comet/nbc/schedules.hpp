// comet/nbc/schedules.hpp — the schedules of the nonblocking collectives (nbc/schedule.hpp), for
// one rank of a group: what that rank sends, receives and combines, round by round.
//
//   barrier     dissemination: ceil(log2 P) rounds, in round k a signal to rank + 2^k and one
//               from rank − 2^k (mod P)
//   broadcast   binomial tree (the blocking one's, algorithms/collectives.hpp): a rank receives
//               from its parent, then sends to all its children in one round; from
//               `pipeline_from` bytes on (and three ranks or more), a segmented pipeline along the chain root, root + 1,
//               ...: round r receives segment r from the predecessor and passes segment r − 1 on,
//               so the segments stream down the chain (P − 1 + S − 1 segment times instead of
//               log2 P whole-message times)
//   allreduce   recursive doubling (log2 P exchanges of the whole vector), and from
//               `reduce_scatter_from` bytes on, Rabenseifner's reduce-scatter by recursive halving
//               then allgather by recursive doubling (each rank sends about twice the vector in
//               all instead of log2 P times). A group that is not a power of two first folds its
//               extra ranks onto partners and hands them the result at the end, as the blocking
//               allreduce does.
//   alltoall    one round: every receive and every send posted at once
//   gather      one round: the root posts every receive, every other rank its send
//
// Every rank ends with the same bits: in recursive doubling the two partners of a step combine the
// same two vectors (IEEE +, max and min are commutative); in reduce-scatter each block is combined
// on one rank only and then copied to the others.
//
// Deliberately not here: running them (nbc/engine.hpp); whether a transport's own nonblocking
// collective runs instead (the engine decides).
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/nbc/schedule.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <span>
#include <string_view>

namespace comet::nbc {

/// Where the schedules switch algorithm. All ranks pass the same values (@pre).
struct schedule_options {
    /// Broadcasts of this many bytes or more use the segmented pipeline; below, the binomial tree.
    std::size_t pipeline_from = 128 * 1024;
    /// The pipeline's segment (bytes, at least 1): large enough that a segment's handshake (an
    /// MPI library's rendezvous, NX/2's request) is small beside its transfer.
    std::size_t segment = 64 * 1024;
    /// Allreduces of this many bytes or more use reduce-scatter + allgather (when the vector has
    /// at least one element per rank of the power-of-two core); below, recursive doubling. 2 KiB
    /// is where MPICH switches.
    std::size_t reduce_scatter_from = 2048;
};

namespace detail {

inline void check_group(int rank, int size, std::string_view who) {
    if (size < 1) raise<invalid_argument>(rank, who, ": group of ", size, " ranks");
    if (rank < 0 || rank >= size) raise<invalid_argument>(rank, who, ": rank ", rank, " is outside 0..", size - 1);
}

inline void check_root(int rank, int size, int root, std::string_view who) {
    if (root < 0 || root >= size) raise<invalid_argument>(rank, who, ": root ", root, " is outside 0..", size - 1);
}

/// A zero-byte buffer to receive signals into (a transport may not like a null address).
inline mutable_bytes signal(schedule& s) { return s.scratch(0); }

}  // namespace detail

/// Dissemination barrier for `rank` of `size`.
inline schedule barrier_schedule(int rank, int size) {
    detail::check_group(rank, size, "ibarrier");
    schedule s;
    s.set_algorithm("dissemination");
    const mutable_bytes none = detail::signal(s);
    for (int d = 1; d < size; d <<= 1) {
        s.recv((rank - d + size) % size, none).send((rank + d) % size, const_bytes{});
        s.next_round();
    }
    return s;
}

/// Binomial-tree broadcast of `data` from `root`: the tree of algorithms::broadcast.
inline schedule binomial_broadcast_schedule(int rank, int size, int root, mutable_bytes data) {
    detail::check_group(rank, size, "ibroadcast");
    detail::check_root(rank, size, root, "ibroadcast");
    schedule s;
    s.set_algorithm("binomial");
    if (size == 1) return s;
    const int v = (rank - root + size) % size;
    const auto actual = [&](int u) { return (u + root) % size; };
    int below = std::bit_width(static_cast<unsigned>(size - 1));
    if (v != 0) {
        s.recv(actual(v & (v - 1)), data).next_round();
        below = std::countr_zero(static_cast<unsigned>(v));
    }
    for (int k = below - 1; k >= 0; --k)
        if (const int child = v | (1 << k); child < size) s.send(actual(child), const_bytes(data));
    return s;
}

/// Segmented pipeline broadcast of `data` from `root` along the chain root, root + 1, ... (mod
/// `size`), in segments of `segment` bytes (the last one shorter).
inline schedule pipeline_broadcast_schedule(int rank, int size, int root, mutable_bytes data, std::size_t segment) {
    detail::check_group(rank, size, "ibroadcast");
    detail::check_root(rank, size, root, "ibroadcast");
    if (segment == 0) raise<invalid_argument>(rank, "ibroadcast: pipeline segment of 0 bytes");
    schedule s;
    s.set_algorithm("pipeline");
    if (size == 1) return s;
    const int v = (rank - root + size) % size;
    const int prev = (rank - 1 + size) % size, next = (rank + 1) % size;
    const std::size_t n = data.size(), segments = std::max<std::size_t>(1, (n + segment - 1) / segment);
    const auto piece = [&](std::size_t i) { return data.subspan(i * segment, std::min(segment, n - i * segment)); };
    for (std::size_t r = 0; r <= segments; ++r) {
        if (v != 0 && r < segments) s.recv(prev, piece(r));
        if (v != size - 1 && r >= 1) s.send(next, const_bytes(piece(r - 1)));
        s.next_round();
    }
    return s;
}

/// The broadcast schedule `o` chooses for `data.size()` bytes: the pipeline from `pipeline_from`
/// bytes on a group of three or more (on two the tree is one message, which segments would only
/// cut into handshakes).
inline schedule broadcast_schedule(int rank, int size, int root, mutable_bytes data, const schedule_options& o = {}) {
    if (size > 2 && data.size() >= o.pipeline_from) return pipeline_broadcast_schedule(rank, size, root, data, o.segment);
    return binomial_broadcast_schedule(rank, size, root, data);
}

namespace detail {

/// The fold of a group that is not a power of two: rank q + i hands its vector to rank i, which
/// combines it before the core and returns the result after it. Returns whether `rank` takes part
/// in the core (ranks q.. only wait for the result); `core` adds the core's rounds.
template <class Core>
void fold_around(schedule& s, int rank, int size, std::span<double> values, reduce_op op, Core&& core) {
    const int q = static_cast<int>(std::bit_floor(static_cast<unsigned>(size))), extra = size - q;
    const mutable_bytes mine = std::as_writable_bytes(values);
    if (rank >= q) {
        s.send(rank - q, const_bytes(mine)).next_round();
        s.recv(rank - q, mine).next_round();
        return;
    }
    if (rank < extra) {
        const std::span<double> theirs = s.scratch<double>(values.size());
        s.recv(rank + q, std::as_writable_bytes(theirs)).next_round();
        s.combine(theirs, values, op);
    }
    core(q);
    if (rank < extra) s.send(rank + q, const_bytes(mine));
    s.next_round();
}

}  // namespace detail

/// Recursive-doubling allreduce of `values` with `op`: the algorithm of algorithms::allreduce.
inline schedule recursive_doubling_allreduce_schedule(int rank, int size, std::span<double> values, reduce_op op) {
    detail::check_group(rank, size, "iallreduce");
    schedule s;
    s.set_algorithm("recursive_doubling");
    if (size == 1) return s;
    detail::fold_around(s, rank, size, values, op, [&](int q) {
        const std::span<double> theirs = s.scratch<double>(values.size());
        for (int k = 1; k < q; k <<= 1) {
            s.recv(rank ^ k, std::as_writable_bytes(theirs)).send(rank ^ k, std::as_bytes(values)).next_round();
            s.combine(theirs, values, op);  // begins the next round
        }
    });
    return s;
}

/// Rabenseifner's allreduce of `values` with `op`: reduce-scatter by recursive halving (rank i
/// of the power-of-two core ends owning block i of the vector, combined over the core), then
/// allgather by recursive doubling. Block b holds elements [b·n/q, (b+1)·n/q).
inline schedule reduce_scatter_allgather_schedule(int rank, int size, std::span<double> values, reduce_op op) {
    detail::check_group(rank, size, "iallreduce");
    schedule s;
    s.set_algorithm("reduce_scatter_allgather");
    if (size == 1) return s;
    const std::size_t n = values.size();
    detail::fold_around(s, rank, size, values, op, [&](int q) {
        const auto first = [&](int block) { return static_cast<std::size_t>(block) * n / static_cast<std::size_t>(q); };
        const auto blocks = [&](int lo, int hi) { return values.subspan(first(lo), first(hi) - first(lo)); };
        const std::span<double> theirs = s.scratch<double>(n);
        int lo = 0, hi = q;
        for (int mask = q / 2; mask >= 1; mask /= 2) {
            const int mid = lo + (hi - lo) / 2;
            const bool upper = (rank & mask) != 0;
            const int keep_lo = upper ? mid : lo, keep_hi = upper ? hi : mid;
            const int give_lo = upper ? lo : mid, give_hi = upper ? mid : hi;
            const std::span<double> kept = blocks(keep_lo, keep_hi), in = theirs.first(kept.size());
            s.recv(rank ^ mask, std::as_writable_bytes(in)).send(rank ^ mask, std::as_bytes(blocks(give_lo, give_hi))).next_round();
            s.combine(in, kept, op);  // begins the next round
            lo = keep_lo;
            hi = keep_hi;
        }
        for (int mask = 1; mask < q; mask *= 2) {
            const int mine = rank & ~(mask - 1), partner = mine ^ mask;
            s.recv(rank ^ mask, std::as_writable_bytes(blocks(partner, partner + mask)))
                .send(rank ^ mask, std::as_bytes(blocks(mine, mine + mask)))
                .next_round();
        }
    });
    return s;
}

/// The allreduce schedule `o` chooses for `values`.
inline schedule allreduce_schedule(int rank, int size, std::span<double> values, reduce_op op, const schedule_options& o = {}) {
    const auto q = static_cast<std::size_t>(std::bit_floor(static_cast<unsigned>(std::max(size, 1))));
    if (values.size_bytes() >= o.reduce_scatter_from && values.size() >= q)
        return reduce_scatter_allgather_schedule(rank, size, values, op);
    return recursive_doubling_allreduce_schedule(rank, size, values, op);
}

/// Personalised all-to-all: block r of `out` (out.size() / size bytes) to rank r, block r of
/// `in` from rank r, this rank's own block copied; every receive and send posted in one round.
inline schedule alltoall_schedule(int rank, int size, const_bytes out, mutable_bytes in) {
    detail::check_group(rank, size, "ialltoall");
    const auto np = static_cast<std::size_t>(size);
    if (out.size() % np != 0)
        raise<invalid_argument>(rank, "ialltoall: the send buffer's ", out.size(), " bytes are not ", size, " equal blocks");
    const std::size_t n = out.size() / np;
    if (in.size() != out.size())
        raise<invalid_argument>(rank, "ialltoall: the receive buffer holds ", in.size(), " bytes where ", size, " blocks of ", n,
                                " need ", out.size());
    schedule s;
    s.set_algorithm("linear");
    const auto at = [n](int r) { return static_cast<std::size_t>(r) * n; };
    s.copy(out.subspan(at(rank), n), in.subspan(at(rank), n));
    for (int k = 1; k < size; ++k) s.recv((rank - k + size) % size, in.subspan(at((rank - k + size) % size), n));
    for (int k = 1; k < size; ++k) s.send((rank + k) % size, out.subspan(at((rank + k) % size), n));
    return s;
}

/// Gathers every rank's `mine` into `all` on `root`, in rank order (`all`: size × mine.size()
/// bytes on the root, unused elsewhere).
inline schedule gather_schedule(int rank, int size, int root, const_bytes mine, mutable_bytes all) {
    detail::check_group(rank, size, "igather");
    detail::check_root(rank, size, root, "igather");
    schedule s;
    s.set_algorithm("linear");
    const std::size_t n = mine.size();
    if (rank != root) {
        s.send(root, mine);
        return s;
    }
    if (all.size() != n * static_cast<std::size_t>(size))
        raise<invalid_argument>(rank, "igather: the root's buffer holds ", all.size(), " bytes where ", size, " blocks of ", n,
                                " need ", n * static_cast<std::size_t>(size));
    const auto block = [&](int r) { return all.subspan(static_cast<std::size_t>(r) * n, n); };
    s.copy(mine, block(root));
    for (int r = 0; r < size; ++r)
        if (r != root) s.recv(r, block(r));
    return s;
}

}  // namespace comet::nbc
