// comet/transport/threads/collectives.hpp — the threads transport's native collectives: every
// rank publishes its buffer in its slot of the world, meets the others at the shared barrier,
// and reads the others' buffers directly. `allreduce_sum` adds in rank order, so every rank gets
// the same bits. A broadcast or allreduce_sum that finds another rank in a different collective
// at the same point, or in the same one with another root or size, raises invalid_argument
// instead of reading that rank's buffer wrongly.
//
// Free functions over the world, as Boost.MPI's collectives are over a communicator; the
// transport's members call them (transport.hpp).
//
// Part of the threads transport (comet/transport/threads.hpp); not meant to be used on its own.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/transport/threads/copy.hpp>
#include <comet/transport/threads/inbox.hpp>
#include <comet/transport/threads/waiting.hpp>
#include <comet/transport/threads/world.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

namespace comet::threads::detail {

/// Which collective a rank has entered, as it publishes it in its slot.
enum class collective : int { none, barrier, broadcast, allreduce };

inline void publish(world& w, int rank, collective kind, int root, std::size_t size, void* data) noexcept {
    auto& s = w.slot(rank);
    s.kind = static_cast<int>(kind);
    s.root = root;
    s.size = size;
    s.data = data;
}

inline void check_same_collective(world& w, int rank, const char* what) {
    const auto& mine = w.slot(rank);
    for (int r = 0; r < w.ranks(); ++r) {
        const auto& other = w.slot(r);
        if (other.kind != mine.kind)
            raise<invalid_argument>(rank, what, ": rank ", r, " called a different collective at the same point");
        if (other.root != mine.root || other.size != mine.size)
            raise<invalid_argument>(rank, what, " with root ", mine.root, " and size ", mine.size, ", but rank ", r,
                                    " called it with root ", other.root, " and size ", other.size);
    }
}

/// The shared barrier: rank `rank` arrives and waits for the others, draining its inbox `in`
/// now and then meanwhile (a peer may wait for it to match an offer first).
inline void meet(world& w, int rank, inbox& in, const wait_desc& desc) {
    check_stop(w, rank);
    const std::uint32_t g = w.barrier_generation();
    if (w.barrier_arrive(rank, g)) return;
    await(
        w, rank,
        [&](bool all) {
            if (all) in.drain_all();
            if (w.barrier_generation() != g) return true;
            in.defer_unexpected();
            return false;
        },
        desc);
}

/// Rank `r`'s share [first, last) of `n` elements split over `p` ranks.
inline std::pair<std::size_t, std::size_t> share(std::size_t n, int r, int p) noexcept {
    const auto ranks = static_cast<std::size_t>(p);
    const auto i = static_cast<std::size_t>(r);
    return {n * i / ranks, n * (i + 1) / ranks};
}

inline void barrier(world& w, int rank, inbox& in) {
    // Published although the barrier itself reads nothing: a rank in another collective
    // at the same point must see "barrier" here, not a stale descriptor it could match.
    publish(w, rank, collective::barrier, 0, 0, nullptr);
    meet(w, rank, in, {wait_op::barrier, 0, 0, 0, 0});
}

/// @pre `root` is a rank of the world (the transport checks it).
inline void broadcast(world& w, int rank, inbox& in, int root, mutable_bytes data) {
    publish(w, rank, collective::broadcast, root, data.size(), data.data());
    const wait_desc desc{wait_op::broadcast, root, 0, data.size(), 0};
    meet(w, rank, in, desc);
    check_same_collective(w, rank, "broadcast");
    if (rank != root) copy_bulk(data.data(), static_cast<const std::byte*>(w.slot(root).data), data.size());
    meet(w, rank, in, desc);  // the root's buffer stays untouched until everyone has copied it
}

inline void allreduce_sum(world& w, int rank, inbox& in, std::span<double> values) {
    const int size = w.ranks();
    publish(w, rank, collective::allreduce, 0, values.size(), values.data());
    const wait_desc desc{wait_op::allreduce, 0, 0, values.size(), 0};
    meet(w, rank, in, desc);
    check_same_collective(w, rank, "allreduce_sum");
    // Each rank sums its share of the elements over all ranks, in rank order.
    auto& mine = w.slot(rank).partial;
    const auto [lo, hi] = share(values.size(), rank, size);
    mine.assign(hi - lo, 0.0);
    for (int r = 0; r < size; ++r) {
        const auto* x = static_cast<const double*>(w.slot(r).data);
        for (std::size_t i = lo; i < hi; ++i) mine[i - lo] += x[i];
    }
    meet(w, rank, in, desc);
    for (int r = 0; r < size; ++r) {
        const auto [rlo, rhi] = share(values.size(), r, size);
        std::copy(w.slot(r).partial.begin(), w.slot(r).partial.begin() + static_cast<std::ptrdiff_t>(rhi - rlo),
                  values.begin() + static_cast<std::ptrdiff_t>(rlo));
    }
}

}  // namespace comet::threads::detail
