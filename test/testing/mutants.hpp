// Deliberately broken transports for testing the conformance suite itself: one small, correct
// in-process transport (`mutants::transport`), and a defect per rule of core/concepts.hpp that
// can be switched on in it. test_conformance.cpp runs the suite on each and asserts that the
// check meant for that rule catches it, and in bounded time.
//
// The base transport: one lock per group; a message of at most 256 bytes is copied at isend
// and its send completes at once; a larger one stays in the sender's buffer and its send
// completes when the receiver has copied it, which happens in the receiver's next test or
// iprobe (a receiver-driven protocol: progress needs the receiver to call, as the concept
// allows); the variant with bsend copies every message, as a transport whose bsend is how all
// its sends behave must. The runner starts a thread per rank, joins them all and rethrows the first
// exception: it neither stops the other ranks nor detects deadlock, so only the suite's own
// deadlines and watchdog bound a run.
#pragma once

#include <comet/core/checks.hpp>
#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/algorithms/collectives.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <type_traits>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <time.h>

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
    tag_zero_is_wildcard,   ///< a receive naming tag 0 takes any tag
    any_tag_skips_reserved, ///< any_tag does not take comet's reserved tags (first_reserved_tag and up)
    self_lifo,              ///< a named receive of messages to oneself takes the latest
    iprobe_misses_self,     ///< iprobe does not see messages a rank sent itself
    iprobe_sees_matched,    ///< iprobe reports a message a posted receive has taken, until it is tested
    posted_truncation_silent, ///< a message longer than a receive posted before it is cut short, no error
    now_cpu_time,           ///< now() is the thread's CPU time
    isend_to_any_source,    ///< isend takes any_source as a destination (and sends to rank 0)
    bsend_borrows,          ///< bsend of a large message, with 8 of its messages unreceived there, keeps the caller's buffer
    sends_wait_for_receiver, ///< with bsend offered (all sends buffering), isend of more than the eager limit waits for the receiver
    sends_wait_past_2_mib,  ///< with bsend offered (all sends buffering), isend of more than 2 MiB waits for the receiver
    search_window,          ///< a receive or probe looks at the first 20 queued messages only
    duplicate_at_1000,      ///< the 1000th small message from rank 0 to rank 1 of a run is delivered twice (a window's end)
    iprobe_blind_posted,    ///< while the rank has a receive posted, iprobe reports nothing
    iprobe_tag_cleared,     ///< a named-tag iprobe finds nothing once a message of that tag was received, until another arrives
    moved_request_repeats,  ///< a completed request, once moved, reports its status again
    composite_key,          ///< a named (source, tag) is matched as the one number source * max_tag + tag
    iprobe_miss_cached,     ///< an iprobe that found nothing is repeated until another rank's message arrives
    isend_over_16_mib,      ///< isend of more than 16 MiB raises invalid_argument
    test_waits_for_self,    ///< test of a pending operation with the rank itself waits 100 ms for it
    // The full model's native operations (mutants::full_transport)
    recv_ignores_source,    ///< native recv takes the earliest message of its tag from anyone
    send_returns_early,     ///< native send of a large message returns before the message was taken
    wait_all_skips_last,    ///< native wait_all leaves the last request incomplete
    barrier_third_free,     ///< the third native barrier of a run returns at once on every rank
    allreduce_max_from_zero,///< native allreduce_max starts from 0, not from the values
    reduce_sum_writes_all,  ///< native reduce_sum leaves the sum on every rank
    reduce_max_root_zero,   ///< native reduce_max reduces to rank 0 whatever the root
    alltoall_skips_own,     ///< native alltoall leaves this rank's own block out
    sendrecv_any_tag,       ///< native sendrecv receives with any_tag
    irsend_any_source_lost, ///< a ready send into a posted any_source receive is lost
    clock_global_offset,    ///< clock_is_global() says yes, but rank r's clock is r ms ahead
    broadcast_cached,       ///< native broadcast skips a repeat of its last call (same root, buffer and size)
    rsend_matches_by_tag,   ///< a ready message goes into the first posted receive of its tag, whatever source it names
    recv_retry_truncation,  ///< native recv, on truncation_error, receives again (the longer message lost)
    rsend_any_tag_lost,     ///< a ready send passes over a posted any_tag receive (and waits there unmatched)
    sendrecv_recv_tag_send, ///< native sendrecv with recv_tag any_tag receives with its send tag instead
    barrier_first_five,     ///< native barrier in groups over 4: ranks 0-4 wait for each other, the rest return at once
    allreduce_min_float_max,///< native allreduce_min starts from FLT_MAX (values above it come out as FLT_MAX)
    reduce_max_as_float,    ///< native reduce_max compares as floats, keeping the first of values a float cannot tell apart
    rsend_truncation_silent,///< a ready message longer than its posted receive is cut short, no error
    reduce_sum_root_zero,   ///< native reduce_sum leaves the elements that are 0 on the root at 0
    wait_gives_up,          ///< native wait returns an empty status after 1 s, the request still pending
    rsend_first_posted,     ///< a ready message goes into the first receive posted for its sender, whatever its tag
    compute_skips_short,    ///< native compute skips busy work shorter than 1 ms
    isend_done_before_copy, ///< isend of a large message completes at once, its buffer still read when the receive takes it
    allreduce_sum_last_own_first, ///< native allreduce_sum: the rank that enters last adds its own values first, the others in rank order
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
        bool ready = false;                ///< sent by a ready send
        std::vector<std::byte> copy;       ///< a small message's bytes
        comet::const_bytes large;          ///< a large message's bytes, in the sender's buffer
        std::shared_ptr<operation> sender;  ///< a large message's send
        std::size_t size() const { return sender ? large.size() : copy.size(); }
    };
    struct receive {
        int source, tag;
        comet::mutable_bytes buffer;
        std::shared_ptr<operation> op;
        bool posted_first = false;  ///< posted before its message arrived
    };
    struct match {
        message m;
        receive r;
    };
    struct box {
        std::list<message> unexpected;
        std::list<receive> posted;
        std::vector<match> to_copy;  ///< large messages matched, copied at the receiver's next call
        std::vector<std::pair<std::shared_ptr<operation>, comet::status>> shown;  ///< iprobe_sees_matched
        int small_from_0 = 0, from_1 = 0;
        std::vector<int> cleared;  ///< iprobe_tag_cleared: tags received since one last arrived
        std::vector<std::pair<int, int>> misses;  ///< iprobe_miss_cached: (source, tag) found nothing
    };

    world(int n, defect d) : ranks(n), broken(d), boxes(static_cast<std::size_t>(n)) {}
    int ranks;
    defect broken;
    std::mutex m;
    std::vector<box> boxes;
    std::atomic<int> entered{0};  ///< allreduce_sum_last_own_first: calls entered, all ranks together
    std::vector<std::size_t> unreceived_from = std::vector<std::size_t>(static_cast<std::size_t>(ranks * ranks), 0);
};

template <bool Bsend>
class transport {
public:
    class request {
    public:
        request() = default;
        explicit request(std::shared_ptr<operation> op, bool repeats = false) : op_(std::move(op)), repeats_(repeats) {}
        // moved_request_repeats: a moved request forgets that its status was reported.
        request(request&& o) noexcept : op_(std::move(o.op_)), done_(std::move(o.done_)), repeats_(o.repeats_) { forget(); }
        request& operator=(request&& o) noexcept {
            op_ = std::move(o.op_), done_ = std::move(o.done_), repeats_ = o.repeats_;
            forget();
            return *this;
        }
        std::shared_ptr<operation> op_, done_;
        bool repeats_ = false;

    private:
        void forget() {
            if (repeats_ && !op_) op_ = std::exchange(done_, nullptr);
        }
    };

    transport(world& w, int rank) : w_(w), rank_(rank) {}
    int rank() const { return rank_; }
    int size() const { return w_.ranks; }

    request isend(int dest, int tag, comet::const_bytes data) {
        if (is(defect::isend_to_any_source) && dest == comet::any_source) dest = 0;
        if (is(defect::isend_over_16_mib) && data.size() > (std::size_t{16} << 20))
            comet::raise<comet::invalid_argument>(rank_, "isend: ", data.size(), " bytes is more than 16 MiB");
        if (is(defect::negative_tag_accepted))
            comet::detail::check_peer(rank_, size(), dest, "isend");
        else
            comet::detail::check_send(rank_, size(), dest, tag, data.size(), "isend");
        std::lock_guard g(w_.m);
        auto op = make(dest, tag, 0);
        op->result = is(defect::send_status_empty) ? comet::status{} : comet::status{dest, tag, data.size()};
        world::message msg{rank_, tag, false, {}, {}, nullptr};
        msg.ready = ready_;
        // Where bsend is offered (without bsend_copies) every send buffers, as the concept says.
        const bool waits = is(defect::sends_wait_for_receiver) || (is(defect::sends_wait_past_2_mib) && data.size() > (std::size_t{2} << 20));
        if (data.size() <= eager_limit || (Bsend && !waits))
            msg.copy.assign(data.begin(), data.end()), op->done = true;
        else
            msg.large = data, msg.sender = op, op->done = is(defect::isend_done_before_copy);
        auto& to = box(dest);
        if (rank_ == 0 && dest == 1) {
            if (is(defect::lose_message) && tag == 4) {
                op->done = true;
                return request(op);
            }
            if ((is(defect::duplicate_message) || is(defect::duplicate_at_1000)) && !msg.sender &&
                ++to.small_from_0 == (is(defect::duplicate_message) ? 3 : 1000))
                arrive(dest, msg);
        }
        if (rank_ == 1 && dest == 0 && is(defect::lose_late_message) && ++to.from_1 == 300) {
            op->done = true;
            return request(op);
        }
        arrive(dest, std::move(msg));
        return request(op, is(defect::moved_request_repeats));
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) {
        // bad_source_accepted: only the tag is checked, and a receive from no rank waits forever.
        comet::detail::check_recv(rank_, size(), is(defect::bad_source_accepted) ? comet::any_source : source, tag, "irecv");
        std::lock_guard g(w_.m);
        auto op = make(source, tag, buffer.size());
        auto& mine = box(rank_);
        if (auto it = find(mine.unexpected, source, tag); it != mine.unexpected.end()) {
            if (is(defect::iprobe_tag_cleared)) mine.cleared.push_back(it->tag);
            world::message msg = std::move(*it);
            mine.unexpected.erase(it);
            deliver(std::move(msg), {source, tag, buffer, op});
        } else {
            mine.posted.push_back({source, tag, buffer, op});
        }
        return request(op, is(defect::moved_request_repeats));
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
            if (is(defect::test_waits_for_self) && r.op_->peer == rank_) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (!is(defect::blocking_test)) return std::nullopt;
            std::this_thread::yield();
        }
        if (is(defect::iprobe_sees_matched)) {
            std::lock_guard g(w_.m);
            std::erase_if(box(rank_).shown, [&](const auto& x) { return x.first == r.op_; });
        }
        const auto op = is(defect::status_repeats) ? r.op_ : std::exchange(r.op_, nullptr);
        if (r.repeats_) r.done_ = op;
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
        if (is(defect::iprobe_sees_matched))
            for (const auto& [op, st] : mine.shown)
                if (matches(source, tag, world::message{st.source, st.tag, false, {}, {}, nullptr})) return st;
        if (is(defect::iprobe_blind_posted) && !mine.posted.empty()) return std::nullopt;
        if (is(defect::iprobe_miss_cached) && std::ranges::find(mine.misses, std::pair(source, tag)) != mine.misses.end()) return std::nullopt;
        if (is(defect::iprobe_tag_cleared) && tag != comet::any_tag && std::ranges::find(mine.cleared, tag) != mine.cleared.end())
            return std::nullopt;
        auto it = find(mine.unexpected, source, tag);
        if (is(defect::iprobe_misses_self))
            while (it != mine.unexpected.end() && it->source == rank_) it = std::find_if(std::next(it), mine.unexpected.end(), [&](const world::message& m) { return matches(source, tag, m); });
        if (it == mine.unexpected.end()) {
            if (is(defect::iprobe_miss_cached)) mine.misses.emplace_back(source, tag);
            return std::nullopt;
        }
        const std::size_t n = it->size();
        const comet::status st{it->source, it->tag, is(defect::probe_size_eager) ? std::min(n, eager_limit) : n};
        if (is(defect::probe_takes_message)) mine.unexpected.erase(it);
        return st;
    }

    double now() {
        if (is(defect::now_cpu_time)) {
            timespec ts{};
            ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
        }
        const double x = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
        if (is(defect::clock_global_offset)) return x + 1e-3 * rank_;
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
        world::message msg{rank_, tag, false, std::vector<std::byte>(data.begin(), data.end()), {}, nullptr};
        if (is(defect::bsend_borrows) && data.size() > eager_limit &&
            w_.unreceived_from[static_cast<std::size_t>(dest * size() + rank_)] >= 8) {
            msg.copy.clear();
            msg.large = data;
            msg.sender = make(dest, tag, 0);
        }
        arrive(dest, std::move(msg));
    }

protected:
    bool ready_ = false;  ///< the send being started is a ready send (full_transport)

    bool is(defect d) const { return w_.broken == d; }
    /// allreduce_sum_last_own_first: true for the rank whose call is the group's last to enter.
    bool entered_last() { return ++w_.entered % size() == 0; }

private:
    world::box& box(int r) { return w_.boxes[static_cast<std::size_t>(r)]; }

    std::shared_ptr<operation> make(int peer, int tag, std::size_t capacity) {
        auto op = std::make_shared<operation>();
        op->rank = rank_, op->peer = peer, op->tag = tag, op->capacity = capacity;
        return op;
    }

    bool tags_match(int want, int got) const {
        if (want == comet::any_tag) return !(is(defect::any_tag_skips_reserved) && got >= comet::first_reserved_tag);
        if (want == 0 && is(defect::tag_zero_is_wildcard)) return true;
        return is(defect::tag_alias) ? want % 4096 == got % 4096 : want == got;
    }
    bool matches(int source, int tag, const world::message& m) const {
        if (is(defect::composite_key) && source != comet::any_source && tag != comet::any_tag)
            return source * comet::max_tag + tag == m.source * comet::max_tag + m.tag;
        return (source == comet::any_source || source == m.source) && tags_match(tag, m.tag);
    }

    /// The queued message a receive (or probe) for (source, tag) takes.
    std::list<world::message>::iterator find(std::list<world::message>& q, int source, int tag) {
        auto best = q.end();
        int seen = 0;
        for (auto it = q.begin(); it != q.end(); ++it) {
            if (is(defect::search_window) && ++seen > 20) break;
            if (!matches(source, tag, *it)) continue;
            if (best == q.end()) best = it;
            if (is(defect::any_tag_lowest) && tag == comet::any_tag && it->tag < best->tag) best = it;
            if (is(defect::any_source_latest) && source == comet::any_source) best = it;
            if (is(defect::lifo_matching) && source != comet::any_source && tag != comet::any_tag) best = it;
            if (is(defect::self_lifo) && source == rank_ && tag != comet::any_tag) best = it;
        }
        return best;
    }

    /// Message `m` reaches rank `dest`: into the first posted receive it matches, else queued.
    void arrive(int dest, world::message m) {
        auto& to = box(dest);
        ++w_.unreceived_from[static_cast<std::size_t>(dest * size() + m.source)];
        auto r = to.posted.end();
        for (auto it = to.posted.begin(); it != to.posted.end(); ++it)
            if ((it->source == comet::any_source || it->source == m.source || (m.ready && is(defect::rsend_matches_by_tag))) &&
                (tags_match(it->tag, m.tag) || (m.ready && it->source == m.source && is(defect::rsend_first_posted)))) {
                if (is(defect::irsend_any_source_lost) && m.ready && it->source == comet::any_source) return;
                if (is(defect::rsend_any_tag_lost) && m.ready && it->tag == comet::any_tag) continue;
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
            if (is(defect::iprobe_sees_matched)) to.shown.emplace_back(rcv.op, comet::status{m.source, m.tag, m.size()});
            deliver(std::move(m), std::move(rcv), dest, true);
            return;
        }
        if (is(defect::iprobe_tag_cleared)) std::erase(to.cleared, m.tag);
        if (m.source != dest) to.misses.clear();  // iprobe_miss_cached: loopback does not clear
        auto at = to.unexpected.end();
        if (is(defect::eager_overtakes) && !m.sender)
            at = std::find_if(to.unexpected.begin(), to.unexpected.end(), [&](const world::message& q) { return q.source == m.source && q.sender; });
        to.unexpected.insert(at, std::move(m));
    }

    /// Message `m` taken by receive `r` of rank `at` (default: this rank): a small one is
    /// copied now, a large one at that rank's next call.
    void deliver(world::message m, world::receive r, int at = -1, bool posted = false) {
        const int owner = at < 0 ? rank_ : at;
        --w_.unreceived_from[static_cast<std::size_t>(owner * size() + m.source)];
        r.posted_first = posted;
        // A large message, or one a posted receive of another rank took, is copied at the
        // receiving rank's next call: never into the buffer of a rank that has left its check.
        if (m.sender || owner != rank_) {
            box(owner).to_copy.push_back({std::move(m), std::move(r)});
            return;
        }
        land(m.source, m.tag, m.copy, r, m.ready);
    }

    void land(int source, int tag, comet::const_bytes data, world::receive& r, bool ready = false) {
        const std::size_t n = data.size();
        operation& op = *r.op;
        op.result = comet::status{source, tag, n};
        if (n > r.buffer.size() && !is(defect::silent_truncation) && !(r.posted_first && is(defect::posted_truncation_silent)) &&
            !(ready && is(defect::rsend_truncation_silent))) {
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
            land(x.m.source, x.m.tag, x.m.sender ? x.m.large : comet::const_bytes(x.m.copy), x.r, x.m.ready);
            if (x.m.sender) x.m.sender->done = true;
        }
        mine.to_copy.clear();
    }

    world& w_;
    int rank_;
    unsigned clock_calls_ = 0;
};

/// The full model: the base with native operations (comet/ops/ calls them instead of its
/// portable ones), each the portable algorithm over this transport's core or a few lines of
/// its own, so that a defect in one of them is a defect of that operation alone.
class full_transport : public transport<false> {
public:
    using transport<false>::transport;

    void compute(const comet::work& w) {
        if (is(defect::compute_skips_short) && w.kind == comet::work_kind::busy && w.seconds < 1e-3) return;
        comet::perform(w);
    }
    void send(int dest, int tag, comet::const_bytes data) {
        auto r = isend(dest, tag, data);
        if (is(defect::send_returns_early) && data.size() > eager_limit) return;
        wait(r);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes buffer) {
        comet::detail::check_recv(rank(), size(), source, tag, "recv");
        auto r = irecv(is(defect::recv_ignores_source) ? comet::any_source : source, tag, buffer);
        if (!is(defect::recv_retry_truncation)) return wait(r);
        try {
            return wait(r);
        } catch (const comet::truncation_error&) {
            auto again = irecv(source, tag, buffer);
            return wait(again);
        }
    }
    comet::status wait(request& r) {
        const auto start = std::chrono::steady_clock::now();
        for (;;) {
            if (auto st = test(r)) return *st;
            if (is(defect::wait_gives_up) && std::chrono::steady_clock::now() - start > std::chrono::seconds(1)) return {};
            std::this_thread::yield();
        }
    }
    void wait_all(std::span<request> rs) {
        const std::size_t n = is(defect::wait_all_skips_last) && !rs.empty() ? rs.size() - 1 : rs.size();
        for (std::size_t i = 0; i < n; ++i) wait(rs[i]);
    }
    void rsend(int dest, int tag, comet::const_bytes data) {
        auto r = irsend(dest, tag, data);
        wait(r);
    }
    request irsend(int dest, int tag, comet::const_bytes data) {
        ready_ = true;
        auto r = isend(dest, tag, data);
        ready_ = false;
        return r;
    }
    comet::status sendrecv(int dest, int send_tag, comet::const_bytes out, int source, int recv_tag, comet::mutable_bytes in) {
        if (is(defect::sendrecv_recv_tag_send) && recv_tag == comet::any_tag) recv_tag = send_tag;
        auto r = irecv(source, is(defect::sendrecv_any_tag) ? comet::any_tag : recv_tag, in);
        auto w = isend(dest, send_tag, out);
        wait(w);
        return wait(r);
    }

    void barrier() {
        if (is(defect::barrier_third_free) && ++barriers_ == 3) return;
        if (is(defect::barrier_first_five) && size() > 4) {
            // A fan-in to rank 0 and back over ranks 0 to 4 alone.
            if (rank() >= 5) return;
            const int tag = comet::first_reserved_tag + 7;
            if (rank() == 0) {
                for (int r = 1; r < 5; ++r) recv(r, tag, {});
                for (int r = 1; r < 5; ++r) send(r, tag, {});
            } else {
                send(0, tag, {});
                recv(0, tag, {});
            }
            return;
        }
        comet::algorithms::barrier(*this);
    }
    void broadcast(int root, comet::mutable_bytes data) {
        // broadcast_cached: a repeat of the last call (same root, buffer and size) is taken as
        // already done, on every rank alike.
        const bool repeat = is(defect::broadcast_cached) && last_broadcast_ == std::tuple(root, data.data(), data.size());
        last_broadcast_ = {root, data.data(), data.size()};
        if (!repeat) comet::algorithms::broadcast(*this, root, data);
    }
    void allreduce_sum(std::span<double> v) {
        if (is(defect::allreduce_sum_last_own_first)) {
            const bool last = entered_last();
            const std::size_t n = v.size();
            std::vector<double> all(n * static_cast<std::size_t>(size()));
            comet::algorithms::gather(*this, 0, std::as_bytes(v), std::as_writable_bytes(std::span(all)));
            comet::algorithms::broadcast(*this, 0, std::as_writable_bytes(std::span(all)));
            const int first = last ? rank() : 0;
            for (std::size_t e = 0; e < n; ++e) {
                double acc = all[static_cast<std::size_t>(first) * n + e];
                for (int j = 0; j < size(); ++j)
                    if (j != first) acc += all[static_cast<std::size_t>(j) * n + e];
                v[e] = acc;
            }
            return;
        }
        comet::algorithms::allreduce(*this, v, [](double a, double b) { return a + b; });
    }
    void allreduce_max(std::span<double> v) {
        if (is(defect::allreduce_max_from_zero))
            for (double& x : v) x = std::max(x, 0.0);
        comet::algorithms::allreduce(*this, v, [](double a, double b) { return std::max(a, b); });
    }
    void allreduce_min(std::span<double> v) {
        comet::algorithms::allreduce(*this, v, [](double a, double b) { return std::min(a, b); });
        if (is(defect::allreduce_min_float_max))
            for (double& x : v) x = std::min(x, static_cast<double>(std::numeric_limits<float>::max()));
    }
    void reduce_sum(int root, std::span<double> v) {
        comet::detail::check_peer(rank(), size(), root, "reduce_sum");  // its arguments first, as the others
        if (is(defect::reduce_sum_writes_all)) return allreduce_sum(v);
        const std::vector<double> before(v.begin(), v.end());
        comet::algorithms::reduce(*this, root, v, [](double a, double b) { return a + b; });
        if (is(defect::reduce_sum_root_zero) && rank() == root)
            for (std::size_t i = 0; i < v.size(); ++i)
                if (before[i] == 0.0) v[i] = 0.0;
    }
    void reduce_max(int root, std::span<double> v) {
        if (is(defect::reduce_max_as_float))
            return comet::algorithms::reduce(*this, root, v, [](double a, double b) { return static_cast<float>(b) > static_cast<float>(a) ? b : a; });
        comet::algorithms::reduce(*this, is(defect::reduce_max_root_zero) ? 0 : root, v, [](double a, double b) { return std::max(a, b); });
    }
    void reduce_min(int root, std::span<double> v) {
        comet::algorithms::reduce(*this, root, v, [](double a, double b) { return std::min(a, b); });
    }
    void gather(int root, comet::const_bytes mine, comet::mutable_bytes all) { comet::algorithms::gather(*this, root, mine, all); }
    void alltoall(comet::const_bytes out, comet::mutable_bytes in) {
        const std::size_t block = in.size() / static_cast<std::size_t>(size());
        const auto own = in.subspan(block * static_cast<std::size_t>(rank()), block);
        const std::vector<std::byte> before(own.begin(), own.end());
        comet::algorithms::alltoall(*this, out, in);
        if (is(defect::alltoall_skips_own)) std::copy(before.begin(), before.end(), own.begin());
    }
    bool clock_is_global() const { return true; }

private:
    int barriers_ = 0;
    std::tuple<int, std::byte*, std::size_t> last_broadcast_{-1, nullptr, 0};
};

/// Runs a group of `ranks` on fresh threads of a fresh world with defect `broken`; joins them
/// all and rethrows the first exception any rank threw. No stopping, no deadlock detection.
/// `Full`: the ranks are full_transport (native operations), else transport<Bsend>.
template <bool Bsend = false, bool Full = false>
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
                    std::conditional_t<Full, full_transport, transport<Bsend>> t(w, r);
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
static_assert(comet::ready_send_transport<full_transport> && comet::sendrecv_transport<full_transport>);

}  // namespace mutants
