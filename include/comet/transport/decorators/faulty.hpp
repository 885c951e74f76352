// comet/transport/decorators/faulty.hpp — `comet::faulty<T>`: a transport that drops, delays,
// duplicates, reorders or corrupts the messages it sends, each at a seeded rate (SPEC 3,
// "faulty"). It exists to show that comet notices: a kernel asked to verify (`verify = true`)
// reports a fault as an error naming the kernel, the rank and the point, and a lost message
// ends in an error instead of a hang — never a number.
//
//   comet::threads::run(2, [](comet::threads::transport& inner) {
//       comet::faulty t(inner, {.corrupt = 0.01, .seed = 7});
//       auto r = comet::kernels::echo(t, {.sizes = {64}, .verify = true});   // verification_error
//   });
//
// What is covered. Every message this rank sends by `isend`, `send` or `bsend`, with a tag in
// [min_tag, max_tag] (default: every tag): the kernels' messages and the portable collectives
// built from them (it is a message_adaptor that does not bring in the inner `ssend`, `rsend`,
// `sendrecv`: comet::ops builds those from `isend`, so they are covered too). A transport's native collectives (its own
// barrier, broadcast, reductions) pass untouched: they are the transport's, not messages this
// decorator sees.
//
// The faults, at most one per message, drawn from a hash of (seed, rank, message number) so a
// run is the same on every platform:
//   drop       the message is never sent; the send completes at once.
//   delay      the send waits `delay_seconds` first (through the transport's compute: virtual
//              time on the simulator).
//   duplicate  the message is sent twice (the copy from a buffer of the decorator's own).
//   reorder    the message is held back and sent after the next message this rank sends, or
//              when this rank next waits, tests or receives — whichever comes first; a lone
//              message is therefore only late, two sent back to back swap places.
//   corrupt    one byte, chosen by the hash, is flipped (messages of 0 bytes are sent intact and
//              not counted).
// `counts()` says how many of each were injected.
//
// Waiting with a limit. A dropped message leaves its receiver waiting for ever; on the threads
// transport and the simulator that may end as a deadlock report, on MPI it would hang. So the
// decorator's `wait`, `wait_all` and `recv` poll the request and raise `timeout_error` (naming
// the rank, the operation and the peer where known) after `wait_timeout` seconds of the
// transport's clock. Polling is what makes them testable; it also means this decorator is for
// reliability tests, not for measuring.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/hash.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/transport/adaptor.hpp>

#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

namespace comet {

/// The rates (probabilities per message, summing to at most 1) and the rest of a faulty
/// transport's settings. An aggregate: `comet::fault_rates{.drop = 0.01, .seed = 3}`.
struct fault_rates {
    double drop = 0.0;
    double delay = 0.0;
    double duplicate = 0.0;
    double reorder = 0.0;
    double corrupt = 0.0;
    /// How long a delayed message waits, seconds.
    double delay_seconds = 100e-6;
    /// Seeds the draws; ranks draw apart (the rank is hashed in).
    std::uint64_t seed = 1;
    /// Only messages with a tag in [min_tag, max_tag] are touched.
    int min_tag = 0;
    int max_tag = comet::max_tag;
    /// Seconds a `wait`, `wait_all` or `recv` may take before it raises `timeout_error`.
    double wait_timeout = 10.0;
};

/// How many messages a faulty transport sent, and what it did to them.
struct fault_counts {
    std::size_t messages = 0;  ///< sends seen with a tag in range
    std::size_t dropped = 0;
    std::size_t delayed = 0;
    std::size_t duplicated = 0;
    std::size_t reordered = 0;
    std::size_t corrupted = 0;
    std::size_t injected() const noexcept { return dropped + delayed + duplicated + reordered + corrupted; }
};

namespace detail {

/// Throws invalid_argument naming the field and its value unless `r` is usable.
inline void check_fault_rates(int rank, const fault_rates& r) {
    const std::pair<const char*, double> rates[] = {
        {"drop", r.drop}, {"delay", r.delay}, {"duplicate", r.duplicate}, {"reorder", r.reorder}, {"corrupt", r.corrupt}};
    double sum = 0.0;
    for (const auto& [name, v] : rates) {
        if (!(v >= 0.0 && v <= 1.0)) raise<invalid_argument>(rank, "faulty: rate ", name, " = ", v, " is not in [0, 1]");
        sum += v;
    }
    if (sum > 1.0 + 1e-12) raise<invalid_argument>(rank, "faulty: the rates add up to ", sum, ", more than 1");
    if (!(r.delay_seconds >= 0.0) || !std::isfinite(r.delay_seconds))
        raise<invalid_argument>(rank, "faulty: delay_seconds = ", r.delay_seconds, " is not >= 0");
    if (!(r.wait_timeout > 0.0)) raise<invalid_argument>(rank, "faulty: wait_timeout = ", r.wait_timeout, " s is not > 0");
    if (r.min_tag < 0 || r.max_tag > comet::max_tag || r.min_tag > r.max_tag)
        raise<invalid_argument>(rank, "faulty: tag range ", r.min_tag, "..", r.max_tag, " is not inside 0..", comet::max_tag);
}

/// Buffers whose sends may still be in flight when their decorator goes: kept reachable until
/// the process ends, because the transport may still read them (a duplicate nobody receives
/// never completes on a rendezvous protocol).
inline void keep_until_exit(std::vector<std::unique_ptr<std::vector<std::byte>>>&& buffers) {
    static std::mutex m;
    static std::vector<std::unique_ptr<std::vector<std::byte>>> kept;
    const std::lock_guard lock(m);
    for (auto& b : buffers) kept.push_back(std::move(b));
}

}  // namespace detail

/// A transport that injects faults into `Inner`'s messages (see the file's comment).
template <transport Inner>
class faulty : public message_adaptor<Inner> {
    using base = message_adaptor<Inner>;

public:
    using request = typename Inner::request;
    // The transport's own collectives, blocking and nonblocking, pass untouched (see the file's
    // comment); every other operation on messages goes through the sends and waits below.
    using base::barrier, base::broadcast, base::allreduce_sum, base::allreduce_max, base::allreduce_min;
    using base::reduce_sum, base::reduce_max, base::reduce_min, base::gather, base::alltoall;
    using base::ibarrier, base::ibroadcast, base::iallreduce_sum, base::reserve_bsend, base::progress;
    /// Its counters and held-back messages are one thread's: no progress thread.
    static constexpr bool thread_serialized = false;

    /// @throws invalid_argument naming the field and the value for a rate outside [0, 1],
    ///         rates summing to more than 1, a negative delay, a timeout ≤ 0 or a bad tag range.
    faulty(Inner& inner, const fault_rates& rates) : base(inner), rates_(rates) {
        detail::check_fault_rates(inner.rank(), rates);
    }
    faulty(const faulty&) = delete;
    faulty& operator=(const faulty&) = delete;
    ~faulty() {
        for (auto& s : owned_)
            if (!s.done) {
                try {
                    s.done = this->inner().test(s.pending).has_value();
                } catch (...) {
                    s.done = true;  // a failed send no longer reads its buffer
                }
            }
        std::vector<std::unique_ptr<std::vector<std::byte>>> pending;
        for (auto& s : owned_)
            if (!s.done) pending.push_back(std::move(s.data));
        if (!pending.empty()) detail::keep_until_exit(std::move(pending));
    }

    const fault_counts& counts() const noexcept { return counts_; }
    const fault_rates& rates() const noexcept { return rates_; }

    // ---- sends: where the faults are ----
    request isend(int dest, int tag, const_bytes data) {
        if (!inject(dest, tag, data)) return request{};
        request r = this->inner().isend(dest, tag, data);
        release_held();
        return r;
    }
    /// Where the inner transport's bsend is how all its sends behave (core/concepts.hpp,
    /// `buffering_transport`), so is this one's send: the message goes by bsend and the call
    /// never waits for the receiver. Elsewhere isend then a wait with the limit.
    void send(int dest, int tag, const_bytes data) {
        if constexpr (buffering_transport<Inner>) {
            bsend(dest, tag, data);
        } else {
            request r = isend(dest, tag, data);
            wait_for(r, "send to", dest, tag);
        }
    }
    void bsend(int dest, int tag, const_bytes data)
        requires buffered_send_transport<Inner>
    {
        if (!inject(dest, tag, data)) return;
        this->inner().bsend(dest, tag, data);
        release_held();
    }

    // ---- completion: with a limit, and releasing what is held back ----
    std::optional<status> test(request& r) {
        release_held();
        reap();
        return this->inner().test(r);
    }
    std::optional<status> iprobe(int source, int tag) {
        release_held();
        return this->inner().iprobe(source, tag);
    }
    status wait(request& r) { return wait_for(r, "wait", any_source, any_tag); }
    void wait_all(std::span<request> rs) {
        for (request& r : rs) wait_for(r, "wait_all", any_source, any_tag);
    }
    status recv(int source, int tag, mutable_bytes data) {
        request r = this->inner().irecv(source, tag, data);
        return wait_for(r, "recv from", source, tag);
    }

private:
    /// Draws this send's fault and applies it: false when the message is not to be sent as it is
    /// (dropped, held back to go after the next, or replaced by a corrupted copy already sent).
    bool inject(int dest, int tag, const_bytes data) {
        switch (draw(tag, data.size())) {
        case fault::none: return true;
        case fault::drop: return false;
        case fault::delay: pause(); return true;
        case fault::duplicate: own(dest, tag, data, false); return true;
        case fault::reorder: hold(dest, tag, data); return false;
        case fault::corrupt: own(dest, tag, data, true); return false;
        }
        return true;
    }
    enum class fault : unsigned char { none, drop, delay, duplicate, reorder, corrupt };

    /// A send of the decorator's own buffer (a duplicate, a corrupted or held-back copy).
    struct owned_send {
        std::unique_ptr<std::vector<std::byte>> data;
        typename Inner::request pending{};
        bool done = false;
    };
    struct held_message {
        int dest, tag;
        std::vector<std::byte> data;
    };

    /// A value uniform in [0, 1) from the hash of (seed, rank, message number, stream).
    double uniform(std::uint64_t stream) const noexcept {
        const std::uint64_t h = detail::splitmix64(
            detail::splitmix64(detail::splitmix64(rates_.seed) ^ static_cast<std::uint64_t>(this->rank())) ^
            (counts_.messages * 8 + stream));
        return static_cast<double>(h >> 11) * 0x1.0p-53;
    }

    fault draw(int tag, std::size_t size) {
        if (tag < rates_.min_tag || tag > rates_.max_tag) return fault::none;
        ++counts_.messages;
        double u = uniform(0);
        const auto take = [&u](double rate) { return (u -= rate) < 0.0; };
        if (take(rates_.drop)) return ++counts_.dropped, fault::drop;
        if (take(rates_.delay)) return ++counts_.delayed, fault::delay;
        if (take(rates_.duplicate)) return ++counts_.duplicated, fault::duplicate;
        if (take(rates_.reorder)) return ++counts_.reordered, fault::reorder;
        if (take(rates_.corrupt) && size > 0) return ++counts_.corrupted, fault::corrupt;
        return fault::none;
    }

    void pause() { ops::compute(this->inner(), work::busy(rates_.delay_seconds)); }

    /// Sends a copy of `data` from a buffer of the decorator's own, one byte flipped if `corrupt`.
    void own(int dest, int tag, const_bytes data, bool corrupt) {
        auto copy = std::make_unique<std::vector<std::byte>>(data.begin(), data.end());
        if (corrupt) {
            const auto at = static_cast<std::size_t>(uniform(1) * static_cast<double>(copy->size())) % copy->size();
            (*copy)[at] ^= std::byte{0xA5};
        }
        reap();
        owned_send s{std::move(copy)};
        s.pending = this->inner().isend(dest, tag, const_bytes(s.data->data(), s.data->size()));
        owned_.push_back(std::move(s));
    }

    void hold(int dest, int tag, const_bytes data) {
        release_held();  // at most one held back at a time: two in a row keep their order
        held_.push_back({dest, tag, std::vector<std::byte>(data.begin(), data.end())});
    }

    /// Sends what was held back (after the message that overtook it, if any).
    void release_held() {
        while (!held_.empty()) {
            held_message m = std::move(held_.front());
            held_.pop_front();
            auto copy = std::make_unique<std::vector<std::byte>>(std::move(m.data));
            owned_send s{std::move(copy)};
            s.pending = this->inner().isend(m.dest, m.tag, const_bytes(s.data->data(), s.data->size()));
            owned_.push_back(std::move(s));
        }
    }

    /// Completes what it can of the decorator's own sends and frees their buffers.
    void reap() {
        for (auto& s : owned_)
            if (!s.done) s.done = this->inner().test(s.pending).has_value();
        while (!owned_.empty() && owned_.front().done) owned_.pop_front();
    }

    status wait_for(request& r, const char* operation, int peer, int tag) {
        release_held();
        const double start = this->inner().now();
        for (unsigned polls = 1;; ++polls) {
            if (auto s = this->inner().test(r)) return *s;
            if (polls % 64 == 0) {
                reap();
                if (this->inner().now() - start > rates_.wait_timeout) {
                    if (peer == any_source)
                        raise<timeout_error>(this->rank(), "faulty: ", operation, " did not complete within ", rates_.wait_timeout,
                                             " s (a dropped message?)");
                    raise<timeout_error>(this->rank(), "faulty: ", operation, " rank ", peer, " with tag ", tag,
                                         " did not complete within ", rates_.wait_timeout, " s (a dropped message?)");
                }
                std::this_thread::yield();
            }
        }
    }

    fault_rates rates_;
    fault_counts counts_;
    std::deque<owned_send> owned_;
    std::deque<held_message> held_;
};

}  // namespace comet
