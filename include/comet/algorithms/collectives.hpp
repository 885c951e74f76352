// comet/algorithms/collectives.hpp — portable collectives over point-to-point: what
// `comet::ops` runs on a transport that has no collective of its own.
//
//   barrier        dissemination (Hensgen, Finkel, Manber 1988): ceil(log2 P) rounds, any P
//   broadcast      binomial tree rooted anywhere: ceil(log2 P) levels, any P
//   allreduce_*    recursive doubling; a group that is not a power of two first folds its
//                  extra ranks onto partners and hands them the result at the end
//   reduce         binomial tree rooted anywhere, the mirror of broadcast: ceil(log2 P) levels,
//                  any P; the result is the pairwise combination of the ranks' values in the
//                  order root, root + 1, ..., root - 1 (mod P), so its bits are defined
//   gather         every rank sends its block to the root, which posts all receives at once
//   alltoall       pairwise exchange in P - 1 steps: partner rank XOR k when P is a power of
//                  two, else send to rank + k and receive from rank - k (mod P)
//
// Every rank calls them in the same order with the same root and sizes (the @pre of every
// collective). They work in comet's reserved tags (core/types.hpp, `first_reserved_tag`), one
// tag per collective; consecutive calls cannot mix up their messages because messages between
// two ranks with one tag are not reordered and every rank takes them in call order. A rank
// whose partner passed a different size gets `invalid_argument` naming both sizes (or, when
// the partner's message is larger, the transport's `truncation_error`).
#pragma once

#include <comet/algorithms/point_to_point.hpp>
#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

namespace comet::algorithms {

/// The reserved tags of the portable collectives.
namespace tags {
inline constexpr int barrier = max_tag;
inline constexpr int broadcast = max_tag - 1;
inline constexpr int allreduce = max_tag - 2;
inline constexpr int gather = max_tag - 3;
inline constexpr int reduce = max_tag - 4;
inline constexpr int alltoall = max_tag - 5;
}  // namespace tags

namespace detail {

template <transport T>
void expect_size(const T& t, const status& s, std::size_t want, const char* what) {
    if (s.size != want)
        raise<invalid_argument>(t.rank(), what, ": rank ", s.source, " sent ", s.size, " bytes where this rank expects ", want,
                                " (every rank must call it with the same root and size)");
}

template <transport T>
void check_root(const T& t, int root, const char* what) {
    if (root < 0 || root >= t.size()) raise<invalid_argument>(t.rank(), what, ": root ", root, " is outside 0..", t.size() - 1);
}

}  // namespace detail

/// Dissemination barrier: in round k every rank signals rank + 2^k and waits for rank - 2^k
/// (mod P). After ceil(log2 P) rounds every rank has heard, directly or not, from every other.
template <transport T>
void barrier(T& t) {
    const int p = t.size(), me = t.rank();
    for (int d = 1; d < p; d <<= 1) {
        std::byte none[1];
        typename T::request r = t.irecv((me - d + p) % p, tags::barrier, mutable_bytes(none, 0));
        typename T::request s = t.isend((me + d) % p, tags::barrier, const_bytes{});
        wait(t, r);
        wait(t, s);
    }
}

/// Binomial-tree broadcast of `data` from `root`: rank v (relative to the root) receives from
/// v with its lowest set bit cleared, then forwards to v + 2^k for every k below that bit,
/// farthest subtree first, so the deepest subtree starts earliest.
template <transport T>
void broadcast(T& t, int root, mutable_bytes data) {
    detail::check_root(t, root, "broadcast");
    const int p = t.size();
    if (p == 1) return;
    const int v = (t.rank() - root + p) % p;
    const auto actual = [&](int u) { return (u + root) % p; };
    int below = std::bit_width(static_cast<unsigned>(p - 1));
    if (v != 0) {
        detail::expect_size(t, recv(t, actual(v & (v - 1)), tags::broadcast, data), data.size(), "broadcast");
        below = std::countr_zero(static_cast<unsigned>(v));
    }
    for (int k = below - 1; k >= 0; --k)
        if (const int child = v | (1 << k); child < p) send(t, actual(child), tags::broadcast, const_bytes(data));
}

/// Recursive-doubling allreduce of `values` with the element-wise operation `op` (commutative,
/// as + , max and min are in IEEE arithmetic). The two partners of a step combine the same two
/// vectors, so every rank ends with the same bits. With P not a power of two, rank q + i
/// (q = the largest power of two ≤ P) first sends its vector to rank i, which combines it,
/// and receives the result from rank i at the end.
template <transport T, class Op>
void allreduce(T& t, std::span<double> values, Op op) {
    const int p = t.size(), me = t.rank();
    if (p == 1) return;
    const mutable_bytes mine = std::as_writable_bytes(values);
    std::vector<double> other(values.size());
    const mutable_bytes theirs = std::as_writable_bytes(std::span<double>(other));
    const auto combine = [&] {
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = op(values[i], other[i]);
    };
    const int q = static_cast<int>(std::bit_floor(static_cast<unsigned>(p))), extra = p - q;
    if (me >= q) {
        send(t, me - q, tags::allreduce, const_bytes(mine));
        detail::expect_size(t, recv(t, me - q, tags::allreduce, mine), mine.size(), "allreduce");
        return;
    }
    if (me < extra) {
        detail::expect_size(t, recv(t, me + q, tags::allreduce, theirs), theirs.size(), "allreduce");
        combine();
    }
    for (int k = 1; k < q; k <<= 1) {
        detail::expect_size(t, exchange(t, me ^ k, tags::allreduce, const_bytes(mine), me ^ k, tags::allreduce, theirs),
                            theirs.size(), "allreduce");
        combine();
    }
    if (me < extra) send(t, me + q, tags::allreduce, const_bytes(mine));
}

/// Binomial-tree reduction of `values` onto `root` with the element-wise operation `op`; the
/// mirror of `broadcast`. Rank v (counted from the root) combines its own vector with those of
/// v + 1, v + 2, v + 4, ... (each below its lowest set bit, nearest first) and sends the result
/// to v with that bit cleared. So the root holds, element by element,
///   R(0, 2^ceil(log2 P)),  R(v, 1) = x[v],  R(v, 2w) = op(R(v, w), R(v + w, w))  (just R(v, w)
///   when v + w ≥ P),
/// where x[v] is the vector of rank (root + v) mod P: a pairwise combination in that order,
/// ((x0 + x1) + (x2 + x3)) + x4 at P = 5, with the same bits on every run whatever order the
/// messages arrive in. (The grouping starts at the root, so a sum that rounds may differ in its
/// last bits between roots; it never differs between runs.) The root's `values` receive the
/// result; every other rank's are left as they were.
/// Each rank posts the receives from all its children before it waits for the first, so a
/// child that finishes early is not left waiting for its parent's receive; they are combined
/// in the order above whatever order they arrive in.
/// @pre every rank passes the same root and the same number of values.
template <transport T, class Op>
void reduce(T& t, int root, std::span<double> values, Op op) {
    detail::check_root(t, root, "reduce");
    const int p = t.size();
    if (p == 1) return;
    const int v = (t.rank() - root + p) % p;
    const auto actual = [&](int u) { return (u + root) % p; };
    const int below = v == 0 ? std::bit_width(static_cast<unsigned>(p - 1)) : std::countr_zero(static_cast<unsigned>(v));
    int children = 0;
    while (children < below && v + (1 << children) < p) ++children;
    if (children == 0) {  // a leaf: its own values go up as they are
        send(t, actual(v & (v - 1)), tags::reduce, std::as_bytes(values));
        return;
    }
    const std::size_t n = values.size();
    // Interior ranks other than the root combine into a copy, so the caller's values stay as
    // they were; all children's vectors land side by side.
    std::vector<double> scratch(n * static_cast<std::size_t>(children + (v != 0)));
    const std::span<double> acc = v == 0 ? values : std::span<double>(scratch).subspan(n * static_cast<std::size_t>(children), n);
    if (v != 0) std::copy(values.begin(), values.end(), acc.begin());
    std::vector<typename T::request> rs;
    rs.reserve(static_cast<std::size_t>(children));
    for (int k = 0; k < children; ++k)
        rs.push_back(t.irecv(actual(v + (1 << k)), tags::reduce,
                             std::as_writable_bytes(std::span<double>(scratch).subspan(n * static_cast<std::size_t>(k), n))));
    for (int k = 0; k < children; ++k) {
        detail::expect_size(t, wait(t, rs[static_cast<std::size_t>(k)]), n * sizeof(double), "reduce");
        const double* theirs = scratch.data() + n * static_cast<std::size_t>(k);
        for (std::size_t i = 0; i < n; ++i) acc[i] = op(acc[i], theirs[i]);
    }
    if (v != 0) send(t, actual(v & (v - 1)), tags::reduce, std::as_bytes(acc));
}

/// Gathers every rank's `mine` into `all` on `root`, in rank order (`all` holds
/// size() * mine.size() bytes there and is not touched elsewhere). The root posts every
/// receive before it waits, so the senders are served in whatever order they arrive.
template <transport T>
void gather(T& t, int root, const_bytes mine, mutable_bytes all) {
    detail::check_root(t, root, "gather");
    const int p = t.size(), me = t.rank();
    const std::size_t n = mine.size();
    if (me != root) {
        send(t, root, tags::gather, mine);
        return;
    }
    if (all.size() != n * static_cast<std::size_t>(p))
        raise<invalid_argument>(me, "gather: the root's buffer holds ", all.size(), " bytes where ", p, " blocks of ", n,
                                " need ", n * static_cast<std::size_t>(p));
    std::vector<typename T::request> rs;
    rs.reserve(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r)
        if (r != root) rs.push_back(t.irecv(r, tags::gather, all.subspan(static_cast<std::size_t>(r) * n, n)));
    if (n) std::memmove(all.data() + static_cast<std::size_t>(root) * n, mine.data(), n);
    for (auto& r : rs) detail::expect_size(t, wait(t, r), n, "gather");
}

/// Personalised all-to-all exchange: block r of `out` (out.size() / size() bytes) goes to rank
/// r, and block r of `in` (the same size as `out`) receives what rank r sent this rank; this
/// rank's own block is copied. P - 1 steps, each a pairwise exchange (receive posted first, so
/// no step waits on buffering): in step k the partner is rank XOR k when P is a power of two —
/// the steps are then perfect matchings, every rank's partner's partner being itself — and
/// otherwise this rank sends to rank + k and receives from rank - k (mod P). One message in
/// each direction per step keeps the exchange from flooding any rank with P - 1 messages at
/// once, as posting everything at the start would.
/// @pre every rank passes the same block size; `out` and `in` do not overlap.
template <transport T>
void alltoall(T& t, const_bytes out, mutable_bytes in) {
    const int p = t.size(), me = t.rank();
    const auto np = static_cast<std::size_t>(p);
    if (out.size() % np != 0)
        raise<invalid_argument>(me, "alltoall: the send buffer's ", out.size(), " bytes are not ", p, " equal blocks");
    const std::size_t n = out.size() / np;
    if (in.size() != out.size())
        raise<invalid_argument>(me, "alltoall: the receive buffer holds ", in.size(), " bytes where ", p, " blocks of ", n,
                                " need ", out.size());
    const auto block = [n](auto bytes, int r) { return bytes.subspan(static_cast<std::size_t>(r) * n, n); };
    if (n) std::memmove(in.data() + static_cast<std::size_t>(me) * n, out.data() + static_cast<std::size_t>(me) * n, n);
    const bool pairs = std::has_single_bit(static_cast<unsigned>(p));
    for (int k = 1; k < p; ++k) {
        const int dest = pairs ? me ^ k : (me + k) % p;
        const int source = pairs ? me ^ k : (me - k + p) % p;
        detail::expect_size(t, exchange(t, dest, tags::alltoall, block(out, dest), source, tags::alltoall, block(in, source)), n,
                            "alltoall");
    }
}

}  // namespace comet::algorithms
