// comet/nbc/schedule.hpp — a nonblocking collective as data: rounds of point-to-point operations
// and local copies and reductions, built once and run as often as wanted (LibNBC's schedules,
// Hoefler, Lumsdaine, Rehm 2007; seed 002, section 4).
//
//   comet::nbc::schedule s;
//   s.recv(parent, bytes);           // round 0: receive the data
//   s.next_round();
//   for (int c : children) s.send(c, bytes);  // round 1: forward it
//
// A round begins with its local actions (copy, combine), in the order they were added, which may
// read what the previous rounds received; then all its sends and receives are posted at once. The
// round is over when every one of them has completed, and only then does the next round begin.
// That is all the ordering a schedule has, and all a collective needs: what a round sends was
// settled by the rounds before it.
//
// A schedule names buffers by address: the caller's (bound when it is built, as a persistent
// collective binds them) and its own scratch (`scratch`), which lives as long as the schedule and
// keeps its address when the schedule moves. It knows nothing of transports or tags: the engine
// (nbc/engine.hpp) runs it on a transport, in a tag of its own for each start. So a schedule can be
// built and inspected without any transport, and one schedule serves every start.
//
// Deliberately not here: which schedule a collective uses (nbc/schedules.hpp builds them), running
// one (nbc/engine.hpp).
#pragma once

#include <comet/core/types.hpp>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace comet::nbc {

/// The element-wise operation of a `combine`, on doubles.
enum class reduce_op : unsigned char { sum, max, min };

constexpr std::string_view to_string(reduce_op o) noexcept {
    return o == reduce_op::sum ? "sum" : o == reduce_op::max ? "max" : "min";
}

/// What a round does: post a send or a receive, or copy or combine bytes locally.
enum class action_kind : unsigned char {
    send,     ///< isend `bytes` from `source` to `peer`
    recv,     ///< irecv exactly `bytes` from `peer` into `target` (another size is an error)
    copy,     ///< copy `bytes` from `source` to `target`
    combine,  ///< target[i] = op(target[i], source[i]) over `bytes / 8` doubles
};

struct action {
    action_kind kind = action_kind::send;
    int peer = 0;
    const std::byte* source = nullptr;
    std::byte* target = nullptr;
    std::size_t bytes = 0;
    reduce_op op = reduce_op::sum;

    constexpr bool is_local() const noexcept { return kind == action_kind::copy || kind == action_kind::combine; }
};

/// Rounds of actions (see the top of this header). Move-only: its actions point into its own
/// scratch.
class schedule {
public:
    schedule() = default;
    schedule(schedule&&) noexcept = default;
    schedule& operator=(schedule&&) noexcept = default;
    schedule(const schedule&) = delete;
    schedule& operator=(const schedule&) = delete;

    /// Sends `data` to `peer` in the current round.
    schedule& send(int peer, const_bytes data) { return add({action_kind::send, peer, data.data(), nullptr, data.size()}); }
    /// Receives exactly `into.size()` bytes from `peer` into `into` in the current round.
    schedule& recv(int peer, mutable_bytes into) { return add({action_kind::recv, peer, nullptr, into.data(), into.size()}); }
    /// Copies `from` into `to` (the same size) when the current round begins.
    schedule& copy(const_bytes from, mutable_bytes to) { return add({action_kind::copy, 0, from.data(), to.data(), from.size()}); }
    /// into[i] = op(into[i], from[i]) when the current round begins.
    schedule& combine(std::span<const double> from, std::span<double> into, reduce_op op) {
        return add({action_kind::combine, 0, std::as_bytes(from).data(), std::as_writable_bytes(into).data(),
                    into.size_bytes(), op});
    }
    /// Ends the current round (an empty round is dropped).
    schedule& next_round() {
        if (actions_.size() > closed()) ends_.push_back(actions_.size());
        return *this;
    }

    /// `count` values of `U` (zero-initialised) that live as long as this schedule, at an address that never changes.
    template <class U = std::byte>
    std::span<U> scratch(std::size_t count) {
        scratch_.push_back(std::make_unique<std::byte[]>(count * sizeof(U) + 1));
        return std::span<U>(reinterpret_cast<U*>(scratch_.back().get()), count);
    }

    /// How many rounds it has.
    std::size_t rounds() const noexcept { return ends_.size() + (actions_.size() > closed() ? 1 : 0); }
    /// The actions of round `r` (< rounds()).
    std::span<const action> round(std::size_t r) const noexcept {
        const std::size_t begin = r == 0 ? 0 : ends_[r - 1];
        const std::size_t end = r < ends_.size() ? ends_[r] : actions_.size();
        return std::span<const action>(actions_).subspan(begin, end - begin);
    }
    /// Every action, round after round.
    std::span<const action> actions() const noexcept { return actions_; }

    /// The algorithm it follows ("binomial", "recursive_doubling", ...), as records name it.
    const std::string& algorithm() const noexcept { return algorithm_; }
    schedule& set_algorithm(std::string name) {
        algorithm_ = std::move(name);
        return *this;
    }

private:
    std::size_t closed() const noexcept { return ends_.empty() ? 0 : ends_.back(); }
    schedule& add(const action& a) {
        actions_.push_back(a);
        return *this;
    }

    std::vector<action> actions_;
    std::vector<std::size_t> ends_;  ///< where each closed round ends in actions_
    std::vector<std::unique_ptr<std::byte[]>> scratch_;
    std::string algorithm_;
};

}  // namespace comet::nbc
