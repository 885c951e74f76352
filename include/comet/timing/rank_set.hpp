// comet/timing/rank_set.hpp — the ranks taking part in a measurement, and the messages the
// sampling engine (timing/measure.hpp) sends among them: its decisions, from the decider (the
// kernel's test node) to every other rank taking part, and whether any of them was disturbed
// during a sample (why one rank decides for all: timing/measure.hpp). They travel between
// samples, outside the timed loops, in comet's reserved tags.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/types.hpp>
#include <comet/ops/ops.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ranges>
#include <span>
#include <type_traits>
#include <vector>

namespace comet {

/// The ranks taking part in a measurement: a list of ranks, or every rank of the group — held as
/// the group's size, so that on a simulated machine of 65,536 nodes no rank keeps a list of all
/// the others (a list per rank would make the whole machine's memory grow as P²).
class rank_set {
public:
    /// The ranks of `list` (which outlives the set).
    template <std::ranges::contiguous_range R>
        requires std::same_as<std::remove_cv_t<std::ranges::range_value_t<R>>, int>
    rank_set(const R& list) : list_(std::ranges::data(list), std::ranges::size(list)) {}  // NOLINT: implicit on purpose
    /// Every rank of a group of `size`.
    static rank_set every(int size) {
        rank_set s;
        s.every_ = size;
        return s;
    }

    std::size_t size() const { return every_ >= 0 ? static_cast<std::size_t>(every_) : list_.size(); }
    /// Whether the set is the whole of a group of `group_size` ranks.
    bool whole_of(int group_size) const { return size() == static_cast<std::size_t>(group_size); }
    /// Calls `f(rank)` for each rank, in order.
    template <class F>
    void for_each(F&& f) const {
        if (every_ >= 0)
            for (int r = 0; r < every_; ++r) f(r);
        else
            for (int r : list_) f(r);
    }

private:
    rank_set() = default;
    std::span<const int> list_;
    int every_ = -1;
};

namespace detail {

/// The reserved tag of the engine's own messages (decisions, and samples for a reduction).
inline constexpr int measure_tag = max_tag - 8;

/// Sends `bytes` from `decider` to every other rank of `ranks` (each of which receives them):
/// by the group's allreduce when every rank takes part, else by point-to-point messages. The
/// collective where it can be used, because it is the transport's own (a simulated machine's
/// global operation travels in its system's message space, and user messages of the engine's
/// would change the state of the user message buffers that the kernel's next point measures).
template <transport T>
void share(T& t, int decider, const rank_set& ranks, mutable_bytes bytes) {
    if (ranks.whole_of(t.size())) {
        // An allreduce (a sum, to which only the decider adds anything; every transport has
        // its own) rather than a broadcast: every rank takes part alike, so the ranks leave it
        // as they entered it. A broadcast from the decider leaves the decider ahead of the
        // others by the tree's depth, and the next sample would start from that stagger: on the
        // simulated iPSC/860, back-to-back global sums of empty vectors on 2 nodes settle into
        // a staggered cycle of 102.6 us per call after it, against 73.6 us in step. Six bytes
        // to a double (exact: below 2^53), so a decision is a short message.
        constexpr std::size_t per = 6;
        std::vector<double> v((bytes.size() + per - 1) / per, 0.0);
        if (t.rank() == decider)
            for (std::size_t i = 0; i < bytes.size(); ++i)
                v[i / per] += std::ldexp(static_cast<double>(std::to_integer<unsigned>(bytes[i])), static_cast<int>(8 * (i % per)));
        ops::allreduce_sum(t, std::span<double>(v));
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            const auto word = static_cast<std::uint64_t>(v[i / per]);
            bytes[i] = static_cast<std::byte>((word >> (8 * (i % per))) & 0xff);
        }
        return;
    }
    // Each rank that takes part answers with an empty message once it has the decision, and the
    // decider waits for every answer: when it goes on to time the next sample, its partners are
    // already in their part of it. Without the answer the first iterations of a sample would
    // include the partner's receiving of the decision (on the simulated iPSC/860, 2.8 µs more per
    // round trip in a five-round-trip echo sample).
    if (t.rank() == decider) {
        ranks.for_each([&](int r) {
            if (r != decider) ops::send(t, r, measure_tag, const_bytes(bytes));
        });
        ranks.for_each([&](int r) {
            if (r != decider) ops::recv(t, r, measure_tag, mutable_bytes{});
        });
    } else {
        ops::recv(t, decider, measure_tag, bytes);
        ops::send(t, decider, measure_tag, const_bytes{});
    }
}
template <transport T, class V>
void share(T& t, int decider, const rank_set& ranks, V& v) {
    if constexpr (std::ranges::contiguous_range<V>)
        share(t, decider, ranks, std::as_writable_bytes(std::span(v)));
    else
        share(t, decider, ranks, std::as_writable_bytes(std::span<V>(&v, 1)));
}

/// Whether any rank of `ranks` was disturbed during the sample just taken, where only the
/// decider timed it and `ranks` is not the whole group (`mine`: this rank's count of
/// disturbances over it): on the decider; elsewhere whether this rank was. The decider asks
/// each partner once its own timing has ended, and each answers: a partner that sent its answer
/// by itself, right after its last message of the sample, would have it arrive while the decider
/// still receives that sample's last message (on the simulated iPSC/860, one more interrupt in
/// every echo sample). No message at all where the transport counts no disturbance.
template <transport T>
bool disturbed_at_partners(T& t, int decider, const rank_set& ranks, std::uint64_t mine) {
    if constexpr (!counts_disturbances<T>) {
        return false;
    } else {
        double any = mine > 0 ? 1.0 : 0.0;
        if (t.rank() == decider) {
            ranks.for_each([&](int r) {
                if (r != decider) ops::send(t, r, measure_tag, const_bytes{});
            });
            ranks.for_each([&](int r) {
                if (r == decider) return;
                double theirs = 0;
                ops::recv(t, r, measure_tag, std::as_writable_bytes(std::span<double>(&theirs, 1)));
                any = std::max(any, theirs);
            });
        } else {
            ops::recv(t, decider, measure_tag, mutable_bytes{});
            ops::send(t, decider, measure_tag, std::as_bytes(std::span<const double>(&any, 1)));
        }
        return any != 0.0;
    }
}

}  // namespace detail

}  // namespace comet
