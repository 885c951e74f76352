// Deliberately broken transports for testing the conformance suite itself: one small, correct
// in-process transport (`mutants::transport`), and a defect per rule of core/concepts.hpp that
// can be switched on in it. test_conformance.cpp runs the suite on each and asserts that the
// check meant for that rule catches it, and in bounded time.
//
// The base transport: one lock per group; a message of at most 256 bytes is copied at isend
// and its send completes at once; a larger one stays in the sender's buffer and its send
// completes when the receiver has copied it, which happens in the receiver's next test or
// iprobe (a receiver-driven protocol: progress needs the receiver to call, as the concept
// allows). The runner starts a thread per rank, joins them all and rethrows the first
// exception: it neither stops the other ranks nor detects deadlock, so only the suite's own
// deadlines and watchdog bound a run.
#pragma once

#include <comet/core/checks.hpp>
#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace mutants {

/// One broken rule each (`none`: the correct base).
enum class defect {
    none,
    lose_message,           ///< messages from rank 0 to rank 1 with tag 4 are never delivered
    duplicate_message,      ///< the 3rd small message from rank 0 to rank 1 of a run is delivered twice
    any_tag_lowest,         ///< any_tag takes the queued message with the lowest tag, not the earliest
    any_source_latest,      ///< any_source takes the latest queued matching message, not a sender's earliest
    named_before_wildcard,  ///< an arriving message tries named receives before wildcard ones
    eager_overtakes,        ///< a small message is queued ahead of large ones from its sender
    tag_alias,              ///< tags are compared modulo 4096
    negative_tag_accepted,  ///< isend takes any tag
    send_status_empty,      ///< a completed send reports an empty status
    probe_size_eager,       ///< iprobe reports at most 256 bytes for a large message
    blocking_test,          ///< test waits until the operation completes
    silent_truncation,      ///< a message longer than the buffer is cut short, no error
    no_progress_on_probe,   ///< iprobe does not progress the receiver's pending copies
    bsend_bounded,          ///< bsend waits while 16 of its messages are unreceived at the destination
    test_default_pending,   ///< test on a default-constructed request reports "not done"
    bad_source_accepted,    ///< irecv takes a source outside the group
    clock_steps_back,       ///< now() steps back a microsecond every 100 calls
    lifo_matching,          ///< a named receive takes the latest matching message
    overwrite_past_message, ///< a receive zeroes its buffer past the message
    probe_takes_message,    ///< iprobe removes the message it reports
    status_repeats,         ///< test on a completed request reports its status again
    lose_late_message,      ///< the 300th message from rank 1 to rank 0 of a run is never delivered
};

inline constexpr std::size_t eager_limit = 256;

/// What a request refers to; shared by the request and the group's queues.
struct operation {
    bool done = false;
    comet::status result;
    std::size_t overflow = 0;  ///< the size of a message that did not fit, else 0
    int rank = 0, peer = 0, tag = 0;
    std::size_t capacity = 0;
};

/// One group's shared state.
struct world {
    struct message {
        int source, tag;
        std::vector<std::byte> copy;       ///< a small message's bytes
        comet::const_bytes large;          ///< a large message's bytes, in the sender's buffer
        std::shared_ptr<operation> sender;  ///< a large message's send
        std::size_t size() const { return sender ? large.size() : copy.size(); }
    };
    struct receive {
        int source, tag;
        comet::mutable_bytes buffer;
        std::shared_ptr<operation> op;
    };
    struct match {
        message m;
        receive r;
    };
    struct box {
        std::list<message> unexpected;
        std::list<receive> posted;
        std::vector<match> to_copy;  ///< large messages matched, copied at the receiver's next call
        int small_from_0 = 0, from_1 = 0;
    };

    world(int n, defect d) : ranks(n), broken(d), boxes(static_cast<std::size_t>(n)) {}
    int ranks;
    defect broken;
    std::mutex m;
    std::vector<box> boxes;
    std::vector<std::size_t> unreceived_from = std::vector<std::size_t>(static_cast<std::size_t>(ranks * ranks), 0);
};

template <bool Bsend>
class transport {
public:
    class request {
    public:
        request() = default;
        explicit request(std::shared_ptr<operation> op) : op_(std::move(op)) {}
        std::shared_ptr<operation> op_;
    };

    transport(world& w, int rank) : w_(w), rank_(rank) {}
    int rank() const { return rank_; }
    int size() const { return w_.ranks; }

    request isend(int dest, int tag, comet::const_bytes data) {
        if (is(defect::negative_tag_accepted))
            comet::detail::check_peer(rank_, size(), dest, "isend");
        else
            comet::detail::check_send(rank_, size(), dest, tag, data.size(), "isend");
        std::lock_guard g(w_.m);
        auto op = make(dest, tag, 0);
        op->result = is(defect::send_status_empty) ? comet::status{} : comet::status{dest, tag, data.size()};
        world::message msg{rank_, tag, {}, {}, nullptr};
        if (data.size() <= eager_limit)
            msg.copy.assign(data.begin(), data.end()), op->done = true;
        else
            msg.large = data, msg.sender = op;
        auto& to = box(dest);
        if (rank_ == 0 && dest == 1) {
            if (is(defect::lose_message) && tag == 4) {
                op->done = true;
                return request(op);
            }
            if (is(defect::duplicate_message) && !msg.sender && ++to.small_from_0 == 3) arrive(dest, msg);
        }
        if (rank_ == 1 && dest == 0 && is(defect::lose_late_message) && ++to.from_1 == 300) {
            op->done = true;
            return request(op);
        }
        arrive(dest, std::move(msg));
        return request(op);
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) {
        // bad_source_accepted: only the tag is checked, and a receive from no rank waits forever.
        comet::detail::check_recv(rank_, size(), is(defect::bad_source_accepted) ? comet::any_source : source, tag, "irecv");
        std::lock_guard g(w_.m);
        auto op = make(source, tag, buffer.size());
        auto& mine = box(rank_);
        if (auto it = find(mine.unexpected, source, tag); it != mine.unexpected.end()) {
            world::message msg = std::move(*it);
            mine.unexpected.erase(it);
            deliver(std::move(msg), {source, tag, buffer, op});
        } else {
            mine.posted.push_back({source, tag, buffer, op});
        }
        return request(op);
    }

    std::optional<comet::status> test(request& r) {
        if (!r.op_) {
            if (is(defect::test_default_pending)) return std::nullopt;
            return comet::status{};
        }
        for (;;) {
            {
                std::lock_guard g(w_.m);
                progress();
                if (r.op_->done) break;
            }
            if (!is(defect::blocking_test)) return std::nullopt;
            std::this_thread::yield();
        }
        const auto op = is(defect::status_repeats) ? r.op_ : std::exchange(r.op_, nullptr);
        if (op->overflow)
            comet::raise<comet::truncation_error>(rank_, "recv from ", op->peer, " (tag ", op->tag, "): the ", op->overflow,
                                                  "-byte message does not fit the ", op->capacity, "-byte buffer");
        return op->result;
    }

    std::optional<comet::status> iprobe(int source, int tag) {
        comet::detail::check_recv(rank_, size(), source, tag, "iprobe");
        std::lock_guard g(w_.m);
        if (!is(defect::no_progress_on_probe)) progress();
        auto& mine = box(rank_);
        const auto it = find(mine.unexpected, source, tag);
        if (it == mine.unexpected.end()) return std::nullopt;
        const std::size_t n = it->size();
        const comet::status st{it->source, it->tag, is(defect::probe_size_eager) ? std::min(n, eager_limit) : n};
        if (is(defect::probe_takes_message)) mine.unexpected.erase(it);
        return st;
    }

    double now() {
        const double x = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
        return is(defect::clock_steps_back) && ++clock_calls_ % 100 == 0 ? x - 1e-6 : x;
    }

    /// The buffered send (only where `Bsend`): every message copied, the call never waits —
    /// except with `bsend_bounded`, past 16 unreceived messages to one destination.
    void bsend(int dest, int tag, comet::const_bytes data)
        requires Bsend
    {
        comet::detail::check_send(rank_, size(), dest, tag, data.size(), "bsend");
        while (is(defect::bsend_bounded)) {
            {
                std::lock_guard g(w_.m);
                if (w_.unreceived_from[static_cast<std::size_t>(dest * size() + rank_)] < 16) break;
            }
            std::this_thread::yield();
        }
        std::lock_guard g(w_.m);
        world::message msg{rank_, tag, std::vector<std::byte>(data.begin(), data.end()), {}, nullptr};
        arrive(dest, std::move(msg));
    }

private:
    bool is(defect d) const { return w_.broken == d; }
    world::box& box(int r) { return w_.boxes[static_cast<std::size_t>(r)]; }

    std::shared_ptr<operation> make(int peer, int tag, std::size_t capacity) {
        auto op = std::make_shared<operation>();
        op->rank = rank_, op->peer = peer, op->tag = tag, op->capacity = capacity;
        return op;
    }

    bool tags_match(int want, int got) const {
        if (want == comet::any_tag) return true;
        return is(defect::tag_alias) ? want % 4096 == got % 4096 : want == got;
    }
    bool matches(int source, int tag, const world::message& m) const {
        return (source == comet::any_source || source == m.source) && tags_match(tag, m.tag);
    }

    /// The queued message a receive (or probe) for (source, tag) takes.
    std::list<world::message>::iterator find(std::list<world::message>& q, int source, int tag) {
        auto best = q.end();
        for (auto it = q.begin(); it != q.end(); ++it) {
            if (!matches(source, tag, *it)) continue;
            if (best == q.end()) best = it;
            if (is(defect::any_tag_lowest) && tag == comet::any_tag && it->tag < best->tag) best = it;
            if (is(defect::any_source_latest) && source == comet::any_source) best = it;
            if (is(defect::lifo_matching) && source != comet::any_source && tag != comet::any_tag) best = it;
        }
        return best;
    }

    /// Message `m` reaches rank `dest`: into the first posted receive it matches, else queued.
    void arrive(int dest, world::message m) {
        auto& to = box(dest);
        ++w_.unreceived_from[static_cast<std::size_t>(dest * size() + m.source)];
        auto r = to.posted.end();
        for (auto it = to.posted.begin(); it != to.posted.end(); ++it)
            if ((it->source == comet::any_source || it->source == m.source) && tags_match(it->tag, m.tag)) {
                const bool wild = it->source == comet::any_source || it->tag == comet::any_tag;
                if (is(defect::named_before_wildcard) && wild) {
                    if (r == to.posted.end()) r = it;  // remembered, but a named one later wins
                    continue;
                }
                r = it;
                break;
            }
        if (r != to.posted.end()) {
            world::receive rcv = *r;
            to.posted.erase(r);
            deliver(std::move(m), std::move(rcv), dest);
            return;
        }
        auto at = to.unexpected.end();
        if (is(defect::eager_overtakes) && !m.sender)
            at = std::find_if(to.unexpected.begin(), to.unexpected.end(), [&](const world::message& q) { return q.source == m.source && q.sender; });
        to.unexpected.insert(at, std::move(m));
    }

    /// Message `m` taken by receive `r` of rank `at` (default: this rank): a small one is
    /// copied now, a large one at that rank's next call.
    void deliver(world::message m, world::receive r, int at = -1) {
        const int owner = at < 0 ? rank_ : at;
        --w_.unreceived_from[static_cast<std::size_t>(owner * size() + m.source)];
        if (m.sender) {
            box(owner).to_copy.push_back({std::move(m), std::move(r)});
            return;
        }
        land(m.source, m.tag, m.copy, r);
    }

    void land(int source, int tag, comet::const_bytes data, world::receive& r) {
        const std::size_t n = data.size();
        operation& op = *r.op;
        op.result = comet::status{source, tag, n};
        if (n > r.buffer.size() && !is(defect::silent_truncation)) {
            op.overflow = n;
        } else {
            const std::size_t k = std::min(n, r.buffer.size());
            if (k) std::memcpy(r.buffer.data(), data.data(), k);
            if (is(defect::overwrite_past_message) && r.buffer.size() > k) std::memset(r.buffer.data() + k, 0, r.buffer.size() - k);
            op.result.size = k;
        }
        op.done = true;
    }

    /// The large messages this rank's receives took: copied now, their sends complete.
    void progress() {
        auto& mine = box(rank_);
        for (auto& x : mine.to_copy) {
            land(x.m.source, x.m.tag, x.m.large, x.r);
            x.m.sender->done = true;
        }
        mine.to_copy.clear();
    }

    world& w_;
    int rank_;
    unsigned clock_calls_ = 0;
};

/// Runs a group of `ranks` on fresh threads of a fresh world with defect `broken`; joins them
/// all and rethrows the first exception any rank threw. No stopping, no deadlock detection.
template <bool Bsend = false>
struct runner {
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = false;
    defect broken = defect::none;
    template <class F>
    void operator()(int ranks, F&& body) const {
        world w(ranks, broken);
        std::mutex m;
        std::exception_ptr first;
        std::vector<std::thread> threads;
        for (int r = 0; r < ranks; ++r)
            threads.emplace_back([&, r] {
                try {
                    transport<Bsend> t(w, r);
                    body(t);
                } catch (...) {
                    std::lock_guard g(m);
                    if (!first) first = std::current_exception();
                }
            });
        for (auto& t : threads) t.join();
        if (first) std::rethrow_exception(first);
    }
};

static_assert(comet::transport<transport<false>> && !comet::buffered_send_transport<transport<false>>);
static_assert(comet::buffered_send_transport<transport<true>>);

}  // namespace mutants
