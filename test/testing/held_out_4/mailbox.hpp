// held_out_4/mailbox.hpp — the fourth held-out transport: ranks are threads of one process
// sharing a world of mailboxes (world.hpp). `endpoint` is the eight core members only;
// `full_endpoint` adds the optional members a transport may offer natively, the nonblocking
// collectives and `progress`. Adapted from the third held-out set's mailbox.hpp, with its
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

#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace held_out_4 {

class endpoint {
public:
    class request {
    public:
        request() = default;
        request(request&& o) noexcept : op_(std::move(o.op_)), world_(o.world_), rank_(o.rank_), completed_(o.completed_) {}
        request& operator=(request&& o) noexcept {
            if (this != &o) {
                release();
                op_ = std::move(o.op_);
                world_ = o.world_;
                rank_ = o.rank_;
                completed_ = o.completed_;
            }
            return *this;
        }
        ~request() { release(); }

    private:
        friend class endpoint;
        friend class full_endpoint;
        request(std::shared_ptr<operation> op, world* w, int rank) : op_(std::move(op)), world_(w), rank_(rank) {}
        void release() noexcept {
            if (op_ && op_->receive && !op_->done && world_) {
                std::lock_guard l(world_->lock());
                world_->withdraw(rank_, op_);
            }
            op_.reset();
        }
        std::shared_ptr<operation> op_;
        world* world_ = nullptr;
        int rank_ = 0;
        bool completed_ = false;  ///< completed by a test (completed_test_pending)
    };

    endpoint(world& w, int rank) : world_(w), rank_(rank), size_(w.size()), epoch_(w.epoch()) {}

    int rank() const { return rank_; }
    int size() const {
        if (is(defect::size_capped_8)) return std::min(size_, 8);
        return size_;
    }

    request isend(int dest, int tag, comet::const_bytes data) {
        check_rank("isend", "destination", dest);
        if (!(is(defect::empty_send_tag_unchecked) && data.empty())) check_tag("isend", tag);
        if (is(defect::now_back_after_isend) && ++isends_ % 10 == 0) epoch_ += std::chrono::milliseconds(2);
        send_options o;
        if (is(defect::send_status_reserved_tag_offset) && tag >= comet::first_reserved_tag) o.status_tag = tag - comet::first_reserved_tag;
        if (is(defect::self_send_status_dest_wildcard) && dest == rank_) o.status_dest = comet::any_source;
        return start_send(dest, tag, data, o);
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) { return start_receive(source, tag, buffer, false); }

    std::optional<comet::status> test(request& r) {
        if (!r.op_) {
            if (is(defect::completed_test_pending) && r.completed_) return std::nullopt;
            return comet::status{};
        }
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        world_.tick(rank_);
        operation& op = *r.op_;
        if (!op.done) {
            const bool wait = (is(defect::test_blocks_for_large_posted) && op.receive && op.buffer.size() >= (std::size_t{1} << 20)) ||
                              (is(defect::ibarrier_test_blocks) && op.nbc_barrier);
            while (wait && !op.done) {
                if (world_.stopped()) comet::raise<comet::stopped>(rank_, "stopped because another rank failed");
                world_.changed().wait_for(l, std::chrono::milliseconds(5));
            }
            if (!op.done) return std::nullopt;
        }
        if (!op.again.empty()) world_.owe(rank_, r.op_);
        const comet::status result = op.result;
        const bool truncated = op.truncated;
        const std::size_t overflow = op.overflow, room = op.buffer.size();
        l.unlock();
        r.op_.reset();
        r.completed_ = true;
        if (truncated)
            comet::raise<comet::truncation_error>(rank_, "receive: a message of ", overflow, " bytes from rank ", result.source, " (tag ",
                                                  result.tag, ") does not fit the buffer of ", room, " bytes");
        return result;
    }

    std::optional<comet::status> iprobe(int source, int tag) {
        if (is(defect::iprobe_negative_source_any) && source < 0) source = comet::any_source;
        if (source != comet::any_source) check_rank("iprobe", "source", source);
        if (tag != comet::any_tag) check_tag("iprobe", tag);
        world_.raise_if_stopped(rank_);
        std::lock_guard l(world_.lock());
        world_.tick(rank_);
        return world_.probe(rank_, source, tag);
    }

    double now() {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_).count();
        if (is(defect::now_runs_fast_odd_rank) && rank_ % 2 == 1) return s * 1.25;
        return s;
    }

protected:
    struct send_options {
        bool synchronous = false;
        int status_dest = -2;     ///< what the completed send names as destination (-2: dest)
        int status_tag = -2;      ///< what the completed send names as tag (-2: tag)
    };

    bool is(defect d) const noexcept { return world_.is(d); }

    [[noreturn]] void reject(std::string_view op, std::string_view what, int value, std::string_view why) const {
        comet::raise<comet::invalid_argument>(rank_, op, ": ", what, " ", value, why);
    }
    void check_rank(std::string_view op, std::string_view what, int r) const {
        if (r < 0 || r >= size_) reject(op, what, r, " is outside 0.." + std::to_string(size_ - 1));
    }
    void check_tag(std::string_view op, int tag) const {
        if (tag < 0) reject(op, "tag", tag, " is negative");
    }

    request start_receive(int source, int tag, comet::mutable_bytes buffer, bool silent) {
        if (source != comet::any_source) check_rank("irecv", "source", source);
        if (tag != comet::any_tag && !(is(defect::irecv_tag_below_any_accepted) && tag < comet::any_tag)) check_tag("irecv", tag);
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->receive = true;
        op->source = source;
        op->tag = tag;
        op->buffer = buffer;
        op->silent = silent;
        std::lock_guard l(world_.lock());
        world_.tick(rank_);
        world_.post(rank_, op);
        return request(std::move(op), &world_, rank_);
    }

    request start_send(int dest, int tag, comet::const_bytes data, const send_options& o) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->result = {o.status_dest == -2 ? dest : o.status_dest, o.status_tag == -2 ? tag : o.status_tag, data.size()};
        message msg;
        msg.source = rank_;
        msg.tag = tag;
        msg.from_issend = o.synchronous;
        msg.copy.assign(data.begin(), data.end());
        if (o.synchronous)
            msg.synchronous = op;
        else
            op->done = true;
        if (is(defect::route_wraps_past_8) && size_ >= 9 && dest >= 8) dest %= 8;
        std::lock_guard l(world_.lock());
        world_.tick(rank_);
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
    std::uint64_t isends_ = 0;
};

/// The core and every optional member, each native.
class full_endpoint : public endpoint {
public:
    using endpoint::endpoint;

    void send(int dest, int tag, comet::const_bytes data) {
        if (is(defect::send_native_dest_unchecked) && (dest < 0 || dest >= size_)) return;
        check_rank("send", "destination", dest);
        check_tag("send", tag);
        request r = start_send(dest, tag, data, {});
        finish(r);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes buffer) {
        request r = irecv(source, tag, buffer);
        comet::status s = finish(r);
        if (is(defect::recv_native_status_tag_requested)) s.tag = tag;
        return s;
    }
    comet::status wait(request& r) {
        const bool early = r.op_ && r.op_->receive && r.op_->at_post;
        const comet::status s = finish(r);
        if (is(defect::wait_early_receive_default_status) && early) return comet::status{};
        return s;
    }
    void wait_all(std::span<request> rs) {
        for (request& r : rs) {
            if (is(defect::wait_all_truncation_swallowed)) {
                try {
                    finish(r);
                } catch (const comet::truncation_error&) {
                }
            } else {
                finish(r);
            }
        }
    }

    void bsend(int dest, int tag, comet::const_bytes data) {
        check_rank("bsend", "destination", dest);
        check_tag("bsend", tag);
        if (is(defect::bsend_zero_length_lost) && data.empty()) return;
        bool wait = false;
        if (is(defect::bsend_waits_if_peer_posted)) {
            std::lock_guard l(world_.lock());
            wait = world_.has_posted(dest);
        }
        request r = start_send(dest, tag, data, {.synchronous = wait});
        finish(r);
    }
    request issend(int dest, int tag, comet::const_bytes data) {
        check_rank("issend", "destination", dest);
        check_tag("issend", tag);
        return start_send(dest, tag, data, {.synchronous = true});
    }
    void ssend(int dest, int tag, comet::const_bytes data) {
        request r = issend(dest, tag, data);
        finish(r);
    }
    request irsend(int dest, int tag, comet::const_bytes data) {
        check_rank("irsend", "destination", dest);
        check_tag("irsend", tag);
        return start_send(dest, tag, data, {.status_tag = is(defect::irsend_status_tag_wildcard) ? comet::any_tag : -2});
    }
    void rsend(int dest, int tag, comet::const_bytes data) {
        request r = irsend(dest, tag, data);
        finish(r);
    }
    comet::status sendrecv(int dest, int send_tag, comet::const_bytes out, int source, int recv_tag, comet::mutable_bytes in) {
        request r = start_receive(source, recv_tag, in, is(defect::sendrecv_truncation_silent));
        request s = isend(dest, send_tag, out);
        comet::status got = finish(r);
        finish(s);
        if (is(defect::sendrecv_any_source_status_dest) && source == comet::any_source) got.source = dest;
        return got;
    }

    void barrier() {
        world_.raise_if_stopped(rank_);
        world_.meet(rank_, !(is(defect::barrier_last_of_odd_free) && size_ >= 3 && size_ % 2 == 1 && rank_ == size_ - 1));
    }

    void broadcast(int root, comet::mutable_bytes data) {
        check_rank("broadcast", "root", root);
        world_.slot(rank_) = data.data();
        world_.meet(rank_);
        const std::size_t n = data.size();
        if (rank_ != root && n > 0) std::memcpy(data.data(), world_.slot_of(root), n);
        world_.meet(rank_);
        if (is(defect::broadcast_root_scratch) && rank_ == root && root != 0) std::fill(data.begin(), data.end(), std::byte{0});
    }

    void allreduce_sum(std::span<double> values) {
        reduce(-1, values, [](double a, double b) { return a + b; }, {.double_odd_tail = is(defect::allreduce_sum_odd_tail_doubled)});
    }
    void allreduce_max(std::span<double> values) { reduce(-1, values, [](double a, double b) { return std::max(a, b); }, {}); }
    void allreduce_min(std::span<double> values) {
        reduce(-1, values, [](double a, double b) { return std::min(a, b); }, {.from_zero = is(defect::allreduce_min_from_zero)});
    }
    void reduce_sum(int root, std::span<double> values) {
        check_rank("reduce_sum", "root", root);
        reduce(root, values, [](double a, double b) { return a + b; }, {.limit = is(defect::reduce_sum_partial_over_256) ? std::size_t{256} : SIZE_MAX});
    }
    void reduce_max(int root, std::span<double> values) {
        check_rank("reduce_max", "root", root);
        reduce(root, values, [](double a, double b) { return std::max(a, b); }, {.write_all = is(defect::reduce_max_writes_all)});
    }
    void reduce_min(int root, std::span<double> values) {
        check_rank("reduce_min", "root", root);
        reduce(root, values, [](double a, double b) { return std::min(a, b); }, {});
    }

    void gather(int root, comet::const_bytes mine, comet::mutable_bytes all) {
        check_rank("gather", "root", root);
        world_.slot(rank_) = mine.data();
        world_.meet(rank_);
        const std::size_t n = mine.size();
        if (rank_ == root && n > 0)
            for (int r = 0; r < size_; ++r) {
                if (is(defect::gather_last_block_missing_5plus) && size_ >= 5 && r == size_ - 1) continue;
                const std::size_t at = n * static_cast<std::size_t>(r);
                if (at + n <= all.size()) std::memcpy(all.data() + at, world_.slot_of(r), n);
            }
        world_.meet(rank_);
    }

    void alltoall(comet::const_bytes out, comet::mutable_bytes in) {
        world_.slot(rank_) = out.data();
        world_.meet(rank_);
        const std::size_t block = out.size() / static_cast<std::size_t>(size_);
        const std::size_t copied = is(defect::alltoall_tail_byte_odd_blocks) && block % 2 == 1 ? block - 1 : block;
        for (int r = 0; r < size_ && copied > 0; ++r)
            std::memcpy(in.data() + block * static_cast<std::size_t>(r),
                        static_cast<const std::byte*>(world_.slot_of(r)) + block * static_cast<std::size_t>(rank_), copied);
        world_.meet(rank_);
    }

    void compute(const comet::work& w) { comet::perform(w); }
    bool clock_is_global() const { return true; }

    [[noreturn]] void abort(std::string_view message) {
        world_.stop();
        comet::raise<comet::aborted>(is(defect::abort_names_rank_plus_one) ? rank_ + 1 : rank_, message);
    }

    // Nonblocking collectives: the k-th call of every rank is one collective (world::join).
    request ibarrier() { return start_collective(round::kind::barrier, 0, {}); }
    request ibroadcast(int root, comet::mutable_bytes data) {
        check_rank("ibroadcast", "root", root);
        return start_collective(round::kind::broadcast, root, data);
    }
    request iallreduce_sum(std::span<double> values) { return start_collective(round::kind::allreduce_sum, 0, std::as_writable_bytes(values)); }

    void progress() {
        world_.raise_if_stopped(rank_);
        std::lock_guard l(world_.lock());
        world_.tick(rank_);
        if (is(defect::progress_drops_unexpected)) world_.drop_unexpected(rank_);
    }

private:
    request start_collective(round::kind what, int root, comet::mutable_bytes data) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->nbc_barrier = what == round::kind::barrier;
        std::lock_guard l(world_.lock());
        world_.tick(rank_);
        world_.join(rank_, what, root, data, op);
        return request(std::move(op), &world_, rank_);
    }

    struct reduce_options {
        std::size_t limit = SIZE_MAX;
        bool double_odd_tail = false;
        bool from_zero = false;
        bool write_all = false;
    };

    /// Every rank combines in rank order 0..size-1, so an inexact sum has the same bits
    /// everywhere. `root` -1: every rank keeps the result; else only `root`.
    template <class Op>
    void reduce(int root, std::span<double> values, Op op, const reduce_options& o) {
        world_.slot(rank_) = values.data();
        world_.meet(rank_);
        std::vector<double> result(values.begin(), values.end());
        const std::size_t count = std::min(values.size(), o.limit);
        for (std::size_t i = 0; i < count; ++i) {
            double acc = static_cast<const double*>(world_.slot_of(0))[i];
            if (o.from_zero) acc = op(0.0, acc);
            for (int r = 1; r < size_; ++r) acc = op(acc, static_cast<const double*>(world_.slot_of(r))[i]);
            result[i] = acc;
        }
        if (o.double_odd_tail && count > 1 && count % 2 == 1) result[count - 1] += result[count - 1];
        world_.meet(rank_);
        if (root < 0 || root == rank_ || o.write_all) std::copy(result.begin(), result.end(), values.begin());
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

}  // namespace held_out_4
