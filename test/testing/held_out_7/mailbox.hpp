// held_out_7/mailbox.hpp — the seventh held-out transport: ranks are threads of one process
// sharing a world of mailboxes (world.hpp). `endpoint` is the eight core members only;
// `full_endpoint` adds the optional members a transport may offer natively, the nonblocking
// collectives and `progress`. Adapted from the sixth held-out set's mailbox.hpp, with its
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

#include <cfloat>
#include <cmath>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace held_out_7 {

class endpoint {
public:
    class request {
    public:
        request() = default;
        // reported_ is not carried over: a moved request starts unreported (moved_completed_request_repeats).
        request(request&& o) noexcept
            : op_(std::move(o.op_)), world_(o.world_), rank_(o.rank_), used_(o.used_), kept_(o.kept_), sent_(std::move(o.sent_)) {}
        request& operator=(request&& o) noexcept {
            if (this != &o) {
                release();
                op_ = std::move(o.op_);
                world_ = o.world_;
                rank_ = o.rank_;
                used_ = o.used_;
                kept_ = o.kept_;
                reported_ = false;
                sent_ = std::move(o.sent_);
            }
            return *this;
        }
        ~request() { release(); }

    private:
        friend class endpoint;
        friend class full_endpoint;
        request(std::shared_ptr<operation> op, world* w, int rank) : op_(std::move(op)), world_(w), rank_(rank), used_(true) {}
        void release() noexcept {
            if (world_ && (op_ && op_->receive && !op_->done)) {
                std::lock_guard l(world_->lock());
                world_->withdraw(rank_, op_);
            }
            if (world_ && sent_ && world_->is(defect::completed_send_request_drop_cancels)) {
                std::lock_guard l(world_->lock());
                world_->cancel(sent_);
            }
            op_.reset();
            sent_.reset();
        }
        std::shared_ptr<operation> op_;
        world* world_ = nullptr;
        int rank_ = 0;
        bool used_ = false;                 ///< made by an operation (not default-constructed)
        std::optional<comet::status> kept_;  ///< moved_completed_request_repeats
        bool reported_ = false;             ///< moved_completed_request_repeats
        std::shared_ptr<operation> sent_;   ///< completed_send_request_drop_cancels
    };

    endpoint(world& w, int rank) : world_(w), rank_(rank), size_(w.size()), epoch_(w.epoch()) {}

    int rank() const { return rank_; }
    int size() const { return size_; }

    request isend(int dest, int tag, comet::const_bytes data) {
        check_rank("isend", "destination", dest);
        check_tag("isend", tag);
        return start_send(dest, tag, data, {});
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) { return start_receive(source, tag, buffer); }

    std::optional<comet::status> test(request& r) {
        if (!r.op_) {
            if (is(defect::moved_completed_request_repeats) && r.kept_ && !r.reported_) {
                r.reported_ = true;
                return *r.kept_;
            }
            if (is(defect::default_request_zero_status) && !r.used_) return comet::status{0, 0, 0};
            return comet::status{};
        }
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        operation& op = *r.op_;
        if (!op.done && op.deferred) world_.complete_deferred(op);
        if (!op.done) return std::nullopt;
        comet::status result = op.result;
        const bool truncated = op.truncated;
        const std::size_t overflow = op.overflow;
        const std::size_t room = op.buffer.size();
        l.unlock();
        if (is(defect::completed_send_request_drop_cancels) && !op.receive && !op.collective) r.sent_ = r.op_;
        r.op_.reset();
        if (is(defect::moved_completed_request_repeats)) r.kept_ = result, r.reported_ = true;
        last_completed_ = result;
        if (truncated)
            comet::raise<comet::truncation_error>(rank_, "receive: a message of ", overflow, " bytes from rank ", result.source, " (tag ",
                                                  result.tag, ") does not fit the buffer of ", room, " bytes");
        return result;
    }

    std::optional<comet::status> iprobe(int source, int tag) {
        if (source != comet::any_source) check_rank("iprobe", "source", source);
        if (tag != comet::any_tag) check_tag("iprobe", tag);
        world_.raise_if_stopped(rank_);
        std::lock_guard l(world_.lock());
        if (is(defect::iprobe_blind_while_posted) && world_.has_posted(rank_)) return std::nullopt;
        if (is(defect::iprobe_tag_bitmap_cleared_early) && tag != comet::any_tag && world_.tag_cleared(rank_, tag)) return std::nullopt;
        if (is(defect::iprobe_fair_cursor_no_wrap) && source == comet::any_source) {
            std::optional<comet::status> s = world_.probe(rank_, source, tag, cursor_);
            if (s) cursor_ = s->source;
            return s;
        }
        return world_.probe(rank_, source, tag);
    }

    double now() {
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_).count();
        if (is(defect::now_interpolation_steps_back)) {
            // a 10 ms tick plus an interpolation that restarts 2 ms behind at each tick
            const double tick = std::floor(t * 100.0) / 100.0;
            if (t - tick < 0.001) return t - 0.002;
        }
        return t;
    }

protected:
    struct send_options {
        bool synchronous = false;
        bool ready = false;
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

    request start_receive(int source, int tag, comet::mutable_bytes buffer) {
        if (source != comet::any_source) check_rank("irecv", "source", source);
        if (tag != comet::any_tag) check_tag("irecv", tag);
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->receive = true;
        op->source = source;
        op->tag = tag;
        op->buffer = buffer;
        std::lock_guard l(world_.lock());
        world_.post(rank_, op);
        return request(std::move(op), &world_, rank_);
    }

    request start_send(int dest, int tag, comet::const_bytes data, const send_options& o) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->dest = dest;
        op->result = comet::status{dest, tag, data.size()};
        if (is(defect::send_status_dest_relative)) op->result.source = (dest - rank_ + size_) % size_;
        if (is(defect::send_status_size_staging_rounded)) op->result.size = (data.size() + 63) / 64 * 64;
        message msg;
        msg.source = rank_;
        msg.tag = tag;
        msg.ready = o.ready;
        msg.origin = op;
        msg.copy.assign(data.begin(), data.end());
        if (o.synchronous) {
            msg.synchronous = op;
        } else if (is(defect::rendezvous_moves_on_own_recv_test) && data.size() > threshold && dest != rank_) {
            msg.rendezvous = op;
        } else {
            op->done = true;
        }
        std::lock_guard l(world_.lock());
        world_.send(dest, std::move(msg));
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
    int cursor_ = 0;                  ///< iprobe_fair_cursor_no_wrap
    comet::status last_completed_;    ///< wait_completed_returns_last_status
};

/// The core and every optional member, each native.
class full_endpoint : public endpoint {
public:
    using endpoint::endpoint;

    void send(int dest, int tag, comet::const_bytes data) {
        check_rank("send", "destination", dest);
        check_tag("send", tag);
        if (is(defect::send_native_fragments_as_messages) && data.size() > mebibyte) {
            for (std::size_t at = 0; at < data.size(); at += mebibyte) {
                request r = start_send(dest, tag, data.subspan(at, std::min(mebibyte, data.size() - at)), {});
                finish(r);
            }
            return;
        }
        request r = start_send(dest, tag, data, {});
        finish(r);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes buffer) {
        for (;;) {
            request r = irecv(source, tag, buffer);
            try {
                return finish(r);
            } catch (const comet::truncation_error&) {
                if (!is(defect::recv_native_retry_after_truncation)) throw;
            }
        }
    }
    comet::status wait(request& r) {
        if (!r.op_ && r.used_ && is(defect::wait_completed_returns_last_status)) return last_completed_;
        return finish(r);
    }
    void wait_all(std::span<request> rs) {
        for (request& r : rs) {
            if (is(defect::wait_all_treats_nonreceive_done) && r.op_ && !r.op_->receive) {
                r.op_.reset();
                continue;
            }
            finish(r);
        }
    }

    void bsend(int dest, int tag, comet::const_bytes data) {
        check_rank("bsend", "destination", dest);
        check_tag("bsend", tag);
        std::vector<std::byte> assembled;
        if (is(defect::bsend_fragments_reversed) && data.size() > 2 * threshold) {
            const std::size_t pieces = (data.size() + threshold - 1) / threshold;
            for (std::size_t p = pieces; p-- > 0;) {
                const auto piece = data.subspan(p * threshold, std::min(threshold, data.size() - p * threshold));
                assembled.insert(assembled.end(), piece.begin(), piece.end());
            }
            data = assembled;
        }
        request r = start_send(dest, tag, data, {});
        finish(r);
    }
    request issend(int dest, int tag, comet::const_bytes data) {
        check_rank("issend", "destination", dest);
        check_tag("issend", tag);
        return start_send(dest, tag, data, {.synchronous = true});
    }
    void ssend(int dest, int tag, comet::const_bytes data) {
        request r = issend(dest, tag, data);
        if (is(defect::ssend_spin_timeout)) {
            const auto t0 = std::chrono::steady_clock::now();
            while (!test(r))
                if (std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(20)) return;  // "the peer must be gone"
            return;
        }
        finish(r);
    }
    request irsend(int dest, int tag, comet::const_bytes data) {
        check_rank("irsend", "destination", dest);
        check_tag("irsend", tag);
        return start_send(dest, tag, data, {.ready = true});
    }
    void rsend(int dest, int tag, comet::const_bytes data) {
        request r = irsend(dest, tag, data);
        finish(r);
    }
    comet::status sendrecv(int dest, int send_tag, comet::const_bytes out, int source, int recv_tag, comet::mutable_bytes in) {
        if (is(defect::sendrecv_any_tag_as_send_tag) && recv_tag == comet::any_tag) recv_tag = send_tag;
        if (is(defect::sendrecv_any_source_as_dest) && source == comet::any_source) source = dest;
        request r = start_receive(source, recv_tag, in);
        request s = isend(dest, send_tag, out);
        comet::status got = finish(r);
        finish(s);
        return got;
    }

    void barrier() {
        world_.raise_if_stopped(rank_);
        if (is(defect::barrier_tree_fanin4_second_level))
            world_.tree_barrier(rank_);
        else
            world_.meet(rank_);
    }

    void broadcast(int root, comet::mutable_bytes data) {
        check_rank("broadcast", "root", root);
        world_.slot(rank_) = data.data();
        world_.meet(rank_);
        std::size_t n = data.size();
        if (is(defect::broadcast_segments_floor) && n > threshold) n = n / threshold * threshold;
        if (rank_ != root && n > 0) std::memcpy(data.data(), world_.slot_of(root), n);
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
        if (is(defect::reduce_max_float_compare))
            reduce(root, values, [](double a, double b) { return static_cast<float>(b) > static_cast<float>(a) ? b : a; });
        else
            reduce(root, values, [](double a, double b) { return std::max(a, b); });
    }
    void reduce_min(int root, std::span<double> values) {
        check_rank("reduce_min", "root", root);
        if (is(defect::reduce_min_plan_cache_ignores_root)) root = plans_.try_emplace(values.data(), root).first->second;
        reduce(root, values, [](double a, double b) { return std::min(a, b); });
    }

    void gather(int root, comet::const_bytes mine, comet::mutable_bytes all) {
        check_rank("gather", "root", root);
        world_.slot(rank_) = mine.data();
        world_.meet(rank_);
        const std::size_t n = mine.size();
        const int full_nodes = size_ / 4 * 4;
        if (rank_ == root && n > 0)
            for (int r = 0; r < size_; ++r) {
                if (is(defect::gather_partial_node_dropped) && size_ > 4 && size_ % 4 != 0 && r >= full_nodes && r != root) continue;
                const std::size_t at = n * static_cast<std::size_t>(r);
                if (at + n <= all.size()) std::memcpy(all.data() + at, world_.slot_of(r), n);
            }
        world_.meet(rank_);
    }

    void alltoall(comet::const_bytes out, comet::mutable_bytes in) {
        world_.slot(rank_) = out.data();
        world_.meet(rank_);
        const std::size_t block = out.size() / static_cast<std::size_t>(size_);
        const auto take = [&](int r) {
            if (block > 0)
                std::memcpy(in.data() + block * static_cast<std::size_t>(r),
                            static_cast<const std::byte*>(world_.slot_of(r)) + block * static_cast<std::size_t>(rank_), block);
        };
        take(rank_);
        const int steps = is(defect::alltoall_ring_one_step_short) ? size_ - 2 : size_ - 1;
        for (int k = 1; k <= steps; ++k) take((rank_ - k + size_) % size_);
        world_.meet(rank_);
    }

    void compute(const comet::work& w) {
        if (is(defect::compute_busy_whole_seconds) && w.kind == comet::work_kind::busy) {
            comet::perform(comet::work::busy(std::floor(w.seconds)));
            return;
        }
        comet::perform(w);
    }
    bool clock_is_global() const { return true; }

    [[noreturn]] void abort(std::string_view message) {
        world_.stop();
        std::string shown(message);
        if (is(defect::abort_message_as_format)) {
            // the message handed to a printf-style logger as its format
            shown.clear();
            for (std::size_t i = 0; i < message.size(); ++i) {
                if (message[i] != '%' || i + 1 == message.size()) {
                    shown += message[i];
                    continue;
                }
                const char c = message[++i];
                if (c == '%') shown += '%';
                else if (c == 'd' || c == 'i' || c == 'u') shown += '0';
                // %s and the rest print nothing here
            }
        }
        comet::raise<comet::aborted>(rank_, shown);
    }

    // Nonblocking collectives: the k-th call of every rank is one collective (world::join).
    request ibarrier() {
        request r = start_collective(round::kind::barrier, 0, {});
        if (is(defect::progress_completes_own_ibarrier)) ibarriers_.push_back(r.op_);
        return r;
    }
    request ibroadcast(int root, comet::mutable_bytes data) {
        check_rank("ibroadcast", "root", root);
        return start_collective(round::kind::broadcast, root, data);
    }
    request iallreduce_sum(std::span<double> values) { return start_collective(round::kind::allreduce_sum, 0, std::as_writable_bytes(values)); }

    void progress() {
        world_.raise_if_stopped(rank_);
        std::lock_guard l(world_.lock());
        for (auto& weak : ibarriers_)
            if (auto op = weak.lock()) op->done = true;  // "the local part of the barrier is done"
        ibarriers_.clear();
    }

private:
    enum class kind { other, sum, max, min, rooted_sum };

    request start_collective(round::kind what, int root, comet::mutable_bytes data) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->collective = true;
        std::lock_guard l(world_.lock());
        world_.join(rank_, what, root, data, op);
        return request(std::move(op), &world_, rank_);
    }

    const double* values_of(int r) const { return static_cast<const double*>(world_.slot_of(r)); }

    template <class Op>
    std::vector<double> combine(int root, std::span<const double> values, Op op, kind k) const {
        std::vector<double> result(values.begin(), values.end());
        const std::size_t whole = values.size() / 4 * 4;
        for (std::size_t i = 0; i < values.size(); ++i) {
            double acc = values_of(0)[i];
            if (k == kind::min && is(defect::allreduce_min_init_flt_max)) acc = std::min(static_cast<double>(FLT_MAX), acc);
            for (int r = 1; r < size_; ++r) acc = op(acc, values_of(r)[i]);
            if (k == kind::rooted_sum && is(defect::reduce_sum_root_twice_odd_group) && size_ % 2 == 1) acc += values_of(root)[i];
            if (k == kind::max && is(defect::allreduce_max_tail_of_4_unreduced) && i >= whole) acc = values_of(0)[i];
            result[i] = acc;
        }
        return result;
    }

    /// Every rank combines in rank order 0..size-1, so an inexact sum has the same bits
    /// everywhere. `root` -1: every rank keeps the result; else only `root`.
    template <class Op>
    void reduce(int root, std::span<double> values, Op op, kind k = kind::other) {
        world_.slot(rank_) = values.data();
        world_.meet(rank_);
        if (k == kind::sum && is(defect::allreduce_sum_rank0_writes_early)) {
            // rank 0 finishes first and writes its result in place while the others still read
            if (rank_ == 0) {
                const std::vector<double> result = combine(root, values, op, k);
                std::copy(result.begin(), result.end(), values.begin());
            }
            world_.meet(rank_);
            if (rank_ != 0) {
                const std::vector<double> result = combine(root, values, op, k);
                world_.meet(rank_);
                std::copy(result.begin(), result.end(), values.begin());
            } else {
                world_.meet(rank_);
            }
            return;
        }
        const std::vector<double> result = combine(root, values, op, k);
        world_.meet(rank_);
        if (root < 0 || root == rank_) std::copy(result.begin(), result.end(), values.begin());
    }

    std::map<const double*, int> plans_;                 ///< reduce_min_plan_cache_ignores_root
    std::vector<std::weak_ptr<operation>> ibarriers_;  ///< progress_completes_own_ibarrier
};

static_assert(comet::transport<endpoint>);
static_assert(!comet::buffered_send_transport<endpoint>);
static_assert(comet::buffering_transport<full_endpoint>);
static_assert(comet::synchronous_send_transport<full_endpoint>);
static_assert(comet::ready_send_transport<full_endpoint>);
static_assert(comet::sendrecv_transport<full_endpoint>);
static_assert(comet::nonblocking_collective_transport<full_endpoint>);
static_assert(comet::progress_transport<full_endpoint>);

}  // namespace held_out_7
