// held_out_8/mailbox.hpp — the eighth held-out transport: ranks are threads of one process
// sharing a world of mailboxes (world.hpp). `endpoint` is the eight core members only;
// `full_endpoint` adds the optional members a transport may offer natively, the nonblocking
// collectives and `progress`. Adapted from the seventh held-out set's mailbox.hpp, with its
// defects taken out.
//
// Choices the concept leaves open, made the simple way: every send is buffered (copied when
// started), so an isend completes at once and the full model offers `bsend`; a receive whose
// request is dropped while pending is withdrawn; a truncated message is consumed by the receive
// it matched; once another rank failed, a rank raises `comet::stopped` at its next call; a
// completed nonblocking collective reports a default status.
#pragma once

#include "world.hpp"

#include <comet/core/concepts.hpp>
#include <comet/core/work.hpp>

#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace held_out_8 {

class endpoint {
public:
    class request {
    public:
        request() = default;
        request(request&& o) noexcept
            : op_(std::move(o.op_)), world_(o.world_), rank_(o.rank_), used_(o.used_), scrub_(std::exchange(o.scrub_, {})) {
            detach_if_collective();
        }
        request& operator=(request&& o) noexcept {
            if (this != &o) {
                release();
                op_ = std::move(o.op_);
                world_ = o.world_;
                rank_ = o.rank_;
                used_ = o.used_;
                scrub_ = std::exchange(o.scrub_, {});
                detach_if_collective();
            }
            return *this;
        }
        ~request() { release(); }

    private:
        friend class endpoint;
        friend class full_endpoint;
        request(std::shared_ptr<operation> op, world* w, int rank) : op_(std::move(op)), world_(w), rank_(rank), used_(true) {}
        /// nbc_request_move_detaches: the moved-to request gets a copy of a pending collective's operation.
        void detach_if_collective() noexcept {
            if (!world_ || !op_ || !op_->collective || !world_->is(defect::nbc_request_move_detaches)) return;
            std::lock_guard l(world_->lock());
            if (!op_->done) op_ = std::make_shared<operation>(*op_);
        }
        void release() noexcept {
            if (world_ && op_ && op_->receive) {
                std::lock_guard l(world_->lock());
                if (!op_->done) world_->withdraw(rank_, op_);
            }
            if (!scrub_.empty()) std::memset(scrub_.data(), 0, scrub_.size());  // completed_recv_request_destructor_scrubs
            scrub_ = {};
            op_.reset();
        }
        std::shared_ptr<operation> op_;
        world* world_ = nullptr;
        int rank_ = 0;
        bool used_ = false;            ///< made by an operation (not default-constructed)
        comet::mutable_bytes scrub_;   ///< completed_recv_request_destructor_scrubs
    };

    endpoint(world& w, int thread)
        : world_(w), rank_(w.is(defect::rank_node_cyclic_odd_groups) ? (thread % 2) * (w.size() / 2) + thread / 2 : thread), size_(w.size()),
          epoch_(w.epoch()) {}

    int rank() const { return rank_; }
    int size() const { return size_; }

    request isend(int dest, int tag, comet::const_bytes data) {
        land_tail();
        check_rank("isend", "destination", dest);
        if (is(defect::isend_negative_tag_queued_before_check)) {
            request r = start_send(dest, tag, data, {.from_isend = true});
            check_tag("isend", tag);
            return r;
        }
        check_tag("isend", tag);
        if (is(defect::isend_rejects_over_16mib) && data.size() > 16 * mebibyte)
            reject("isend", "size", static_cast<long long>(data.size()), " is over the 16 MiB the transport registers");
        if (is(defect::loopback_flushed_by_next_isend)) flush_loopback();
        return start_send(dest, tag, data, {.from_isend = true});
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) {
        before_call();
        return start_receive(source, tag, buffer);
    }

    std::optional<comet::status> test(request& r) {
        before_call();
        if (!r.op_) {
            if (r.used_ && is(defect::completed_request_resets_with_own_rank)) return comet::status{rank_, comet::any_tag, 0};
            return comet::status{};
        }
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        operation& op = *r.op_;
        if (!op.done && op.receive && op.source == rank_ && is(defect::test_self_receive_waits_100ms))
            world_.changed().wait_for(l, std::chrono::milliseconds(100), [&] { return op.done || world_.stopped(); });
        if (!op.done && op.receive && is(defect::posted_move_to_front_on_test)) world_.promote(rank_, r.op_);
        if (!op.done && op.barrier && is(defect::ibarrier_timeout_100ms) &&
            std::chrono::steady_clock::now() - op.joined > std::chrono::milliseconds(100))
            op.done = true;  // "the others must have entered by now"
        if (!op.done) return std::nullopt;
        comet::status result = op.result;
        const bool truncated = op.truncated;
        const std::size_t overflow = op.overflow;
        const std::size_t room = op.buffer.size();
        l.unlock();
        if (is(defect::completed_recv_request_destructor_scrubs) && op.receive && op.buffer.size() >= 4096) r.scrub_ = op.buffer;
        r.op_.reset();
        if (truncated)
            comet::raise<comet::truncation_error>(rank_, "receive: a message of ", overflow, " bytes from rank ", result.source, " (tag ",
                                                  result.tag, ") does not fit the buffer of ", room, " bytes");
        return result;
    }

    std::optional<comet::status> iprobe(int source, int tag) {
        before_call();
        if (source != comet::any_source) check_rank("iprobe", "source", source);
        if (tag != comet::any_tag) check_tag("iprobe", tag);
        world_.raise_if_stopped(rank_);
        std::lock_guard l(world_.lock());
        const bool cache = is(defect::iprobe_negative_cache_loopback);
        if (cache && negative_.valid && negative_.source == source && negative_.tag == tag && negative_.remote == world_.remote_arrivals(rank_))
            return std::nullopt;
        std::uint64_t upto = std::numeric_limits<std::uint64_t>::max();
        if (is(defect::iprobe_double_buffer_one_behind)) {
            upto = probe_mark_;
            probe_mark_ = world_.arrivals(rank_);
        }
        std::optional<comet::status> s = world_.probe(rank_, source, tag, upto);
        if (cache) negative_ = {!s, source, tag, world_.remote_arrivals(rank_)};
        return s;
    }

    double now() {
        const auto elapsed = std::chrono::steady_clock::now() - epoch_;
        if (is(defect::now_ns_counter_32bit_wraps)) {
            const auto ns = static_cast<std::uint32_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
            return static_cast<double>(ns) * 1e-9 + clock_offset_;
        }
        return std::chrono::duration<double>(elapsed).count() + clock_offset_;
    }

protected:
    struct send_options {
        bool synchronous = false;
        bool ready = false;
        bool bsent = false;
        bool from_isend = false;
    };

    bool is(defect d) const noexcept { return world_.is(d); }

    [[noreturn]] void reject(std::string_view op, std::string_view what, long long value, std::string_view why) const {
        comet::raise<comet::invalid_argument>(rank_, op, ": ", what, " ", value, why);
    }
    void check_rank(std::string_view op, std::string_view what, int r) const {
        if (r < 0 || r >= size_) reject(op, what, r, " is outside 0.." + std::to_string(size_ - 1));
    }
    void check_tag(std::string_view op, int tag) const {
        if (tag < 0) reject(op, "tag", tag, " is negative");
    }

    /// At the start of every call but isend: what earlier calls left to do.
    void before_call() {
        land_tail();
        if (!batch_.empty()) {
            // isend_batch_flushed_backwards: drained from the back
            std::lock_guard l(world_.lock());
            while (!batch_.empty()) {
                world_.send(batch_.back().first, std::move(batch_.back().second));
                batch_.pop_back();
            }
        }
    }
    /// recv_native_returns_before_tail: the rest of the last native receive lands.
    void land_tail() {
        if (!tail_at_) return;
        std::memcpy(tail_at_, tail_.data(), tail_.size());
        tail_at_ = nullptr;
        tail_.clear();
    }
    /// loopback_flushed_by_next_isend: the held messages to oneself go out.
    void flush_loopback() {
        if (loopback_.empty()) return;
        std::lock_guard l(world_.lock());
        for (message& m : loopback_) world_.send(rank_, std::move(m));
        loopback_.clear();
    }

    request start_receive(int source, int tag, comet::mutable_bytes buffer) {
        if (source != comet::any_source) check_rank("irecv", "source", source);
        if (tag != comet::any_tag) check_tag("irecv", tag);
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->receive = true;
        op->source = source;
        op->tag = tag;
        op->buffer = buffer;
        if (is(defect::progress_raises_pending_truncation)) receives_.push_back(op);
        std::lock_guard l(world_.lock());
        world_.post(rank_, op);
        return request(std::move(op), &world_, rank_);
    }

    request start_send(int dest, int tag, comet::const_bytes data, const send_options& o) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->dest = dest;
        op->result = comet::status{dest, tag, data.size()};
        if (is(defect::send_status_large_control_tag) && data.size() > threshold) op->result.tag = comet::max_tag;  // the control packet's
        message msg;
        msg.source = rank_;
        msg.tag = tag;
        msg.ready = o.ready;
        msg.bsent = o.bsent;
        msg.copy.assign(data.begin(), data.end());
        if (o.synchronous)
            msg.synchronous = op;
        else
            op->done = true;
        if (o.from_isend && is(defect::isend_batch_flushed_backwards)) {
            batch_.emplace_back(dest, std::move(msg));
        } else if (o.from_isend && dest == rank_ && is(defect::loopback_flushed_by_next_isend)) {
            loopback_.push_back(std::move(msg));
        } else {
            std::lock_guard l(world_.lock());
            world_.send(dest, std::move(msg));
        }
        return request(std::move(op), &world_, rank_);
    }

    comet::status finish(request& r) {
        for (unsigned polls = 1;; ++polls) {
            if (std::optional<comet::status> s = test(r)) return *s;
            if (polls % 64 == 0) std::this_thread::yield();
        }
    }

    world& world_;
    const int rank_;
    const int size_;
    std::chrono::steady_clock::time_point epoch_;
    double clock_offset_ = 0.0;                              ///< compute_charges_clock_twice
    std::vector<std::pair<int, message>> batch_;             ///< isend_batch_flushed_backwards
    std::vector<message> loopback_;                          ///< loopback_flushed_by_next_isend
    std::uint64_t probe_mark_ = 0;                           ///< iprobe_double_buffer_one_behind
    struct {
        bool valid = false;
        int source = 0, tag = 0;
        std::uint64_t remote = 0;
    } negative_;                                             ///< iprobe_negative_cache_loopback
    std::vector<std::byte> tail_;                            ///< recv_native_returns_before_tail
    std::byte* tail_at_ = nullptr;                           ///< recv_native_returns_before_tail
    std::vector<std::weak_ptr<operation>> receives_;         ///< progress_raises_pending_truncation
};

/// The core and every optional member, each native.
class full_endpoint : public endpoint {
public:
    using endpoint::endpoint;

    void send(int dest, int tag, comet::const_bytes data) {
        before_call();
        check_rank("send", "destination", dest);
        check_tag("send", tag);
        // send_native_rendezvous_past_256k: a large message waits for its receive
        const bool rendezvous = is(defect::send_native_rendezvous_past_256k) && data.size() > 256 * 1024 && dest != rank_;
        request r = start_send(dest, tag, data, {.synchronous = rendezvous});
        finish(r);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes buffer) {
        before_call();
        if (is(defect::recv_native_returns_before_tail) && buffer.size() > threshold) {
            const std::vector<std::byte> before(buffer.begin() + threshold, buffer.end());
            request r = start_receive(source, tag, buffer);
            const comet::status s = finish(r);
            if (s.size > threshold) {
                // the pipeline returns after its first 64 KiB; the rest is still on its way
                const std::size_t end = std::min(s.size, buffer.size());
                tail_.assign(buffer.begin() + threshold, buffer.begin() + end);
                tail_at_ = buffer.data() + threshold;
                std::copy(before.begin(), before.begin() + (end - threshold), buffer.begin() + threshold);
            }
            return s;
        }
        request r = start_receive(source, tag, buffer);
        return finish(r);
    }
    comet::status wait(request& r) {
        if (is(defect::wait_gives_up_after_1s)) {
            const auto t0 = std::chrono::steady_clock::now();
            for (unsigned polls = 1;; ++polls) {
                if (std::optional<comet::status> s = test(r)) return *s;
                if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(1)) return comet::status{};  // "timed out"
                if (polls % 64 == 0) std::this_thread::yield();
            }
        }
        return finish(r);
    }
    void wait_all(std::span<request> rs) {
        if (is(defect::wait_all_counts_completed_twice)) {
            std::size_t remaining = rs.size();
            for (unsigned polls = 1; remaining > 0; ++polls) {
                for (request& r : rs)
                    if (remaining > 0 && test(r)) --remaining;
                if (polls % 64 == 0) std::this_thread::yield();
            }
            return;
        }
        for (request& r : rs) finish(r);
    }

    void bsend(int dest, int tag, comet::const_bytes data) {
        before_call();
        check_rank("bsend", "destination", dest);
        check_tag("bsend", tag);
        if (is(defect::bsend_nagle_coalesces) && data.size() <= 64) {
            std::lock_guard l(world_.lock());
            if (world_.coalesce(dest, rank_, tag, data)) return;
        }
        request r = start_send(dest, tag, data, {.bsent = true});
        finish(r);
    }
    request issend(int dest, int tag, comet::const_bytes data) {
        before_call();
        check_rank("issend", "destination", dest);
        check_tag("issend", tag);
        return start_send(dest, tag, data, {.synchronous = true});
    }
    void ssend(int dest, int tag, comet::const_bytes data) {
        request r = issend(dest, tag, data);
        finish(r);
    }
    request irsend(int dest, int tag, comet::const_bytes data) {
        before_call();
        check_rank("irsend", "destination", dest);
        check_tag("irsend", tag);
        return start_send(dest, tag, data, {.ready = true});
    }
    void rsend(int dest, int tag, comet::const_bytes data) {
        request r = irsend(dest, tag, data);
        finish(r);
    }
    comet::status sendrecv(int dest, int send_tag, comet::const_bytes out, int source, int recv_tag, comet::mutable_bytes in) {
        before_call();
        if (is(defect::sendrecv_self_shortcut_on_same_peer) && dest == source && send_tag == recv_tag && source != comet::any_source) {
            // "an exchange with oneself": meant for dest == source == rank()
            check_rank("sendrecv", "destination", dest);
            const std::size_t n = std::min(out.size(), in.size());
            if (n > 0) std::memmove(in.data(), out.data(), n);
            return comet::status{source, recv_tag, out.size()};
        }
        request r = start_receive(source, recv_tag, in);
        request s = isend(dest, send_tag, out);
        comet::status got = finish(r);
        finish(s);
        return got;
    }

    void barrier() {
        before_call();
        world_.raise_if_stopped(rank_);
        if (is(defect::barrier_chain_no_release))
            world_.chain_barrier(rank_);
        else
            world_.meet(rank_);
    }

    void broadcast(int root, comet::mutable_bytes data) {
        before_call();
        check_rank("broadcast", "root", root);
        const int from = is(defect::broadcast_virtual_rank_plus_root) ? (size_ - root) % size_ : root;
        world_.slot(rank_) = data.data();
        world_.meet(rank_);
        if (rank_ != from && !data.empty()) std::memcpy(data.data(), world_.slot_of(from), data.size());
        world_.meet(rank_);
    }

    void allreduce_sum(std::span<double> values) { reduce(-1, values, [](double a, double b) { return a + b; }, kind::sum); }
    void allreduce_max(std::span<double> values) { reduce(-1, values, [](double a, double b) { return std::max(a, b); }, kind::max); }
    void allreduce_min(std::span<double> values) { reduce(-1, values, [](double a, double b) { return std::min(a, b); }, kind::min); }
    void reduce_sum(int root, std::span<double> values) {
        check_rank("reduce_sum", "root", root);
        reduce(root, values, [](double a, double b) { return a + b; }, kind::rooted_sum);
    }
    void reduce_max(int root, std::span<double> values) {
        check_rank("reduce_max", "root", root);
        reduce(root, values, [](double a, double b) { return std::max(a, b); }, kind::rooted_max);
    }
    void reduce_min(int root, std::span<double> values) {
        check_rank("reduce_min", "root", root);
        if (is(defect::reduce_min_last_root_as_all) && root >= size_ - 1) root = -1;  // the sentinel for "every rank"
        reduce(root, values, [](double a, double b) { return std::min(a, b); });
    }

    void gather(int root, comet::const_bytes mine, comet::mutable_bytes all) {
        before_call();
        check_rank("gather", "root", root);
        world_.slot(rank_) = mine.data();
        world_.meet(rank_);
        const std::size_t n = mine.size();
        const bool pair = is(defect::gather_pair_shortcut_own_block_twice) && size_ == 2;
        if (rank_ == root && n > 0)
            for (int r = 0; r < size_; ++r) {
                const std::size_t at = n * static_cast<std::size_t>(r);
                const void* from = pair ? world_.slot_of(rank_) : world_.slot_of(r);
                if (at + n <= all.size()) std::memcpy(all.data() + at, from, n);
            }
        world_.meet(rank_);
    }

    void alltoall(comet::const_bytes out, comet::mutable_bytes in) {
        before_call();
        world_.slot(rank_) = out.data();
        world_.meet(rank_);
        const std::size_t block = out.size() / static_cast<std::size_t>(size_);
        const auto take = [&](int r) {
            const int at = is(defect::alltoall_ring_placement_mirrored) ? ((2 * rank_ - r) % size_ + size_) % size_ : r;
            if (block > 0)
                std::memcpy(in.data() + block * static_cast<std::size_t>(at),
                            static_cast<const std::byte*>(world_.slot_of(r)) + block * static_cast<std::size_t>(rank_), block);
        };
        take(rank_);
        for (int k = 1; k < size_; ++k) take((rank_ - k + size_) % size_);
        world_.meet(rank_);
    }

    void compute(const comet::work& w) {
        if (is(defect::compute_busy_sleeps) && w.kind == comet::work_kind::busy) {
            std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, w.seconds)));
            return;
        }
        comet::perform(w);
        if (is(defect::compute_charges_clock_twice) && w.kind == comet::work_kind::busy) clock_offset_ += std::max(0.0, w.seconds);
    }
    bool clock_is_global() const { return true; }

    [[noreturn]] void abort(std::string_view message) {
        world_.stop();
        if (is(defect::abort_empty_message_rejected) && message.empty()) comet::raise<comet::invalid_argument>(rank_, "abort: the message is empty");
        comet::raise<comet::aborted>(rank_, message);
    }

    // Nonblocking collectives: the k-th call of every rank is one collective (world::join).
    request ibarrier() { return start_collective(round::kind::barrier, 0, {}); }
    request ibroadcast(int root, comet::mutable_bytes data) {
        check_rank("ibroadcast", "root", root);
        return start_collective(round::kind::broadcast, root, data);
    }
    request iallreduce_sum(std::span<double> values) { return start_collective(round::kind::allreduce_sum, 0, std::as_writable_bytes(values)); }

    void progress() {
        before_call();
        world_.raise_if_stopped(rank_);
        if (!is(defect::progress_raises_pending_truncation)) return;
        std::shared_ptr<operation> failed;
        {
            std::lock_guard l(world_.lock());
            for (auto& weak : receives_)
                if (auto op = weak.lock(); op && op->done && op->truncated) {
                    op->truncated = false;  // reported here, so the test completes quietly
                    failed = op;
                    break;
                }
        }
        std::erase_if(receives_, [](const std::weak_ptr<operation>& w) { return w.expired(); });
        if (failed)
            comet::raise<comet::truncation_error>(rank_, "progress: a message of ", failed->overflow, " bytes from rank ", failed->result.source,
                                                  " does not fit the buffer of ", failed->buffer.size(), " bytes");
    }

private:
    enum class kind { other, sum, max, min, rooted_sum, rooted_max };

    request start_collective(round::kind what, int root, comet::mutable_bytes data) {
        before_call();
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->collective = true;
        op->barrier = what == round::kind::barrier;
        op->joined = std::chrono::steady_clock::now();
        std::lock_guard l(world_.lock());
        world_.join(rank_, what, root, data, op);
        return request(std::move(op), &world_, rank_);
    }

    const double* values_of(int r) const { return static_cast<const double*>(world_.slot_of(r)); }

    template <class Op>
    std::vector<double> combine(int root, std::span<const double> values, Op op, kind k) const {
        std::vector<double> result(values.begin(), values.end());
        for (std::size_t i = 0; i < values.size(); ++i) {
            double acc;
            if (k == kind::min && is(defect::allreduce_min_excludes_self) && size_ > 1) {
                // "the own value is already in the accumulator"
                const int first = rank_ == 0 ? 1 : 0;
                acc = values_of(first)[i];
                for (int r = first + 1; r < size_; ++r)
                    if (r != rank_) acc = op(acc, values_of(r)[i]);
            } else if (k == kind::rooted_max && is(defect::reduce_max_halves_not_combined)) {
                acc = values_of(root)[i];
                for (int r = 0; r < size_; ++r)
                    if (r != root && r % 2 == root % 2) acc = op(acc, values_of(r)[i]);
            } else {
                acc = values_of(0)[i];
                for (int r = 1; r < size_; ++r) acc = op(acc, values_of(r)[i]);
            }
            if (k == kind::rooted_sum && is(defect::reduce_sum_sparse_skip_root_zero) && values_of(root)[i] == 0.0) acc = 0.0;
            result[i] = acc;
        }
        if (k == kind::max && is(defect::allreduce_max_scratch_wraps_4096))
            for (std::size_t i = 4096; i < result.size(); ++i) result[i] = result[i % 4096];
        return result;
    }

    /// Every rank combines in rank order 0..size-1, so an inexact sum has the same bits
    /// everywhere. `root` -1: every rank keeps the result; else only `root`.
    template <class Op>
    void reduce(int root, std::span<double> values, Op op, kind k = kind::other) {
        before_call();
        world_.slot(rank_) = values.data();
        world_.meet(rank_);
        const std::vector<double> result = combine(root, values, op, k);
        world_.meet(rank_);
        bool keep = root < 0 || root == rank_;
        if (k == kind::sum && is(defect::allreduce_sum_rd_extra_not_unfolded)) {
            int folded = 1;  // the largest power of two <= size()
            while (folded * 2 <= size_) folded *= 2;
            if (rank_ >= folded) keep = false;
        }
        if (keep) std::copy(result.begin(), result.end(), values.begin());
    }
};

static_assert(comet::transport<endpoint>);
static_assert(!comet::buffered_send_transport<endpoint>);
static_assert(comet::buffering_transport<full_endpoint>);
static_assert(comet::synchronous_send_transport<full_endpoint>);
static_assert(comet::ready_send_transport<full_endpoint>);
static_assert(comet::sendrecv_transport<full_endpoint>);
static_assert(comet::nonblocking_collective_transport<full_endpoint>);
static_assert(comet::progress_transport<full_endpoint>);

}  // namespace held_out_8
