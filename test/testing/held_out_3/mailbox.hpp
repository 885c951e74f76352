// held_out_3/mailbox.hpp — the third held-out transport: ranks are threads of one process
// sharing a world of mailboxes (world.hpp). `endpoint` is the eight core members only;
// `full_endpoint` adds the optional members a transport may offer natively. Adapted from the
// second held-out set's mailbox.hpp, with its defects taken out; it adds the nonblocking
// collectives and `progress`.
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

namespace held_out_3 {

class endpoint {
public:
    class request {
    public:
        request() = default;
        request(request&& o) noexcept : world_(o.world_), rank_(o.rank_) {
            if (o.world_ && o.world_->is(defect::move_construct_drops)) {
                o.op_.reset();  // the handle's author forgot to take the operation over
                return;
            }
            op_ = std::move(o.op_);
        }
        request& operator=(request&& o) noexcept {
            if (this != &o) {
                release();
                op_ = std::move(o.op_);
                world_ = o.world_;
                rank_ = o.rank_;
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
    };

    endpoint(world& w, int rank) : world_(w), rank_(rank), size_(w.size()), epoch_(w.epoch()) {}

    int rank() const {
        if (is(defect::rank_gray_code) && size_ >= 3) return rank_ ^ (rank_ >> 1);
        return rank_;
    }
    int size() const {
        if (is(defect::size_power_of_two)) {
            int p = 1;
            while (p < size_) p *= 2;
            return p;
        }
        return size_;
    }

    request isend(int dest, int tag, comet::const_bytes data) {
        dest = check_destination("isend", dest);
        check_tag("isend", tag);
        return start_send(dest, tag, data, {.borrowed = is(defect::self_send_borrowed) && dest == rank_});
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) {
        if (is(defect::irecv_negative_source_any) && source < 0) source = comet::any_source;
        if (source != comet::any_source) check_rank("irecv", "source", source);
        if (tag != comet::any_tag) check_tag("irecv", tag);
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->receive = true;
        op->source = source;
        op->tag = tag;
        op->buffer = buffer;
        std::lock_guard l(world_.lock());
        world_.tick(rank_);
        world_.post(rank_, op);
        return request(std::move(op), &world_, rank_);
    }

    std::optional<comet::status> test(request& r) {
        if (late_error_) std::rethrow_exception(std::exchange(late_error_, nullptr));
        if (!r.op_) return comet::status{};
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        world_.tick(rank_);
        operation& op = *r.op_;
        if (!op.done) {
            if (is(defect::test_waits_for_arrival) && op.receive) wait_for_arrival(l);
            if (!op.done) return std::nullopt;
        }
        if (op.has_deferred) world_.owe(rank_, r.op_);
        const comet::status result = op.result;
        const bool truncated = op.truncated;
        const std::size_t overflow = op.overflow, room = op.buffer.size();
        l.unlock();
        r.op_.reset();
        if (truncated) {
            try {
                comet::raise<comet::truncation_error>(rank_, "receive: a message of ", overflow, " bytes from rank ", result.source,
                                                      " (tag ", result.tag, ") is longer than the buffer of ", room, " bytes");
            } catch (const comet::truncation_error&) {
                if (!is(defect::truncation_raised_late)) throw;
                late_error_ = std::current_exception();
            }
        }
        return result;
    }

    std::optional<comet::status> iprobe(int source, int tag) {
        if (source != comet::any_source) check_rank("iprobe", "source", source);
        if (tag != comet::any_tag) {
            if (is(defect::iprobe_bad_tag_out_of_range) && tag < 0) throw std::out_of_range("iprobe: tag " + std::to_string(tag));
            check_tag("iprobe", tag);
        }
        world_.raise_if_stopped(rank_);
        std::lock_guard l(world_.lock());
        world_.tick(rank_);
        return world_.probe(rank_, source, tag);
    }

    double now() {
        if (is(defect::now_recalibrates) && ++now_calls_ == 1000) epoch_ = std::chrono::steady_clock::now();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_).count();
    }

protected:
    struct send_options {
        bool synchronous = false;
        bool borrowed = false;
        bool ready = false;
        std::shared_ptr<operation> tracker{};  ///< marked done when the message is matched
        int status_source = -2;                ///< what the completed send names as destination (-2: dest)
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
    int check_destination(std::string_view op, int dest) const {
        if (is(defect::isend_dest_wraps) && dest >= size_) return dest % size_;
        check_rank(op, "destination", dest);
        return dest;
    }

    /// Blocks (under `l`) until a message arrives at this rank or the world stops.
    void wait_for_arrival(std::unique_lock<std::mutex>& l) {
        const std::uint64_t seen = world_.arrivals(rank_);
        while (world_.arrivals(rank_) == seen && !world_.stopped()) world_.changed().wait_for(l, std::chrono::milliseconds(5));
    }

    request start_send(int dest, int tag, comet::const_bytes data, const send_options& o) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->result = {o.status_source == -2 ? dest : o.status_source, tag, data.size()};
        if (is(defect::send_status_size_capped)) op->result.size = std::min<std::size_t>(data.size(), 65536);
        message msg;
        msg.source = rank_;
        msg.tag = tag;
        msg.ready = o.ready;
        msg.from_issend = o.synchronous;
        if (o.borrowed)
            msg.borrowed = data, msg.is_borrowed = true;
        else
            msg.copy.assign(data.begin(), data.end());
        if (o.synchronous)
            msg.synchronous = op;
        else
            op->done = true, msg.synchronous = o.tracker;
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
    std::uint64_t now_calls_ = 0;
    std::exception_ptr late_error_;
};

/// The core and every optional member, each native.
class full_endpoint : public endpoint {
public:
    using endpoint::endpoint;

    void send(int dest, int tag, comet::const_bytes data) {
        dest = check_destination("send", dest);
        check_tag("send", tag);
        request r = start_send(dest, tag, data, {.borrowed = is(defect::send_native_large_borrowed) && data.size() > 65536});
        finish(r);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes buffer) {
        request r = irecv(source, tag, buffer);
        comet::status s = finish(r);
        if (is(defect::recv_native_status_buffer_size)) s.size = buffer.size();
        return s;
    }
    comet::status wait(request& r) {
        const bool a_send = r.op_ && !r.op_->receive;
        const comet::status s = finish(r);
        if (is(defect::wait_send_status_default) && a_send) return comet::status{};
        return s;
    }
    void wait_all(std::span<request> rs) {
        while (rs.empty() && is(defect::wait_all_empty_blocks)) {
            world_.raise_if_stopped(rank_);
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        for (request& r : rs) {
            std::shared_ptr<operation> kept = r.op_;
            finish(r);
            if (is(defect::wait_all_keeps_requests) && kept) {
                kept->truncated = false;
                r.op_ = std::move(kept);
            }
        }
    }

    void bsend(int dest, int tag, comet::const_bytes data) {
        dest = check_destination("bsend", dest);
        check_tag("bsend", tag);
        bool wait = is(defect::bsend_self_waits) && dest == rank_;
        std::shared_ptr<operation> tracker;
        if (is(defect::bsend_waits_past_16)) {
            auto& mine = unreceived_[dest];
            {
                std::lock_guard l(world_.lock());
                std::erase_if(mine, [](const std::shared_ptr<operation>& op) { return op->done; });
            }
            wait = mine.size() >= 16;
            if (!wait) mine.push_back(tracker = std::make_shared<operation>());
        }
        request r = start_send(dest, tag, data, {.synchronous = wait, .tracker = tracker});
        finish(r);
    }
    request issend(int dest, int tag, comet::const_bytes data) {
        dest = check_destination("issend", dest);
        check_tag("issend", tag);
        return start_send(dest, tag, data, {.synchronous = true, .status_source = is(defect::issend_status_own_rank) ? rank_ : -2});
    }
    void ssend(int dest, int tag, comet::const_bytes data) {
        request r = issend(dest, tag, data);
        finish(r);
    }
    request irsend(int dest, int tag, comet::const_bytes data) {
        dest = check_destination("irsend", dest);
        check_tag("irsend", tag);
        return start_send(dest, tag, data, {.ready = true});
    }
    void rsend(int dest, int tag, comet::const_bytes data) {
        request r = irsend(dest, tag, data);
        finish(r);
    }
    comet::status sendrecv(int dest, int send_tag, comet::const_bytes out, int source, int recv_tag, comet::mutable_bytes in) {
        if (is(defect::sendrecv_self_deadlock) && dest == rank_) ssend(dest, send_tag, out);  // never matched: the receive comes after
        request r = irecv(source, recv_tag, in);
        request s = isend(dest, is(defect::sendrecv_sends_recv_tag) ? recv_tag : send_tag, out);
        const comet::status got = finish(r);
        finish(s);
        return got;
    }

    void barrier() {
        world_.raise_if_stopped(rank_);
        world_.meet(rank_, !(is(defect::barrier_pair_free) && size_ == 2 && rank_ == 0));
    }

    void broadcast(int root, comet::mutable_bytes data) {
        check_rank("broadcast", "root", root);
        world_.slot(rank_) = data.data();
        world_.meet(rank_);
        std::size_t n = data.size();
        if (is(defect::broadcast_odd_last_byte) && n % 2 == 1) --n;
        if (rank_ != root && n > 0) std::memcpy(data.data(), world_.slot_of(root), n);
        world_.meet(rank_);
    }

    void allreduce_sum(std::span<double> values) { reduce(-1, values, [](double a, double b) { return a + b; }, {.in_float = is(defect::allreduce_sum_in_float)}); }
    void allreduce_max(std::span<double> values) {
        reduce(-1, values, [](double a, double b) { return std::max(a, b); }, {.limit = is(defect::allreduce_max_first_1024) ? std::size_t{1024} : SIZE_MAX});
    }
    void allreduce_min(std::span<double> values) { reduce(-1, values, [](double a, double b) { return std::min(a, b); }, {}); }
    void reduce_sum(int root, std::span<double> values) {
        check_rank("reduce_sum", "root", root);
        reduce(root, values, [](double a, double b) { return a + b; }, {.skip_own_root = is(defect::reduce_sum_root_ignores_own) && root != 0});
    }
    void reduce_max(int root, std::span<double> values) {
        check_rank("reduce_max", "root", root);
        reduce(root, values, [](double a, double b) { return std::max(a, b); }, {});
    }
    void reduce_min(int root, std::span<double> values) {
        check_rank("reduce_min", "root", root);
        reduce(root, values, [](double a, double b) { return std::min(a, b); }, {.zero_others = is(defect::reduce_min_nonroot_zeroed)});
    }

    void gather(int root, comet::const_bytes mine, comet::mutable_bytes all) {
        check_rank("gather", "root", root);
        world_.slot(rank_) = mine.data();
        world_.meet(rank_);
        const std::size_t n = mine.size();
        if (rank_ == root && n > 0)
            for (int r = 0; r < size_; ++r) {
                if (is(defect::gather_root_block_skipped) && r == root && root != 0) continue;
                const std::size_t at = n * static_cast<std::size_t>(r);
                if (at + n <= all.size()) std::memcpy(all.data() + at, world_.slot_of(r), n);
            }
        world_.meet(rank_);
    }

    void alltoall(comet::const_bytes out, comet::mutable_bytes in) {
        world_.slot(rank_) = out.data();
        world_.meet(rank_);
        const std::size_t block = out.size() / static_cast<std::size_t>(size_);
        for (int r = 0; r < size_ && block > 0; ++r) {
            const int which = is(defect::alltoall_blocks_by_sender) ? r : rank_;
            std::memcpy(in.data() + block * static_cast<std::size_t>(r),
                        static_cast<const std::byte*>(world_.slot_of(r)) + block * static_cast<std::size_t>(which), block);
        }
        world_.meet(rank_);
    }

    void compute(const comet::work& w) {
        comet::work todo = w;
        if (is(defect::compute_busy_capped) && todo.kind == comet::work_kind::busy) todo.seconds = std::min(todo.seconds, 0.05);
        comet::perform(todo);
    }
    bool clock_is_global() const { return true; }

    [[noreturn]] void abort(std::string_view message) {
        world_.stop();
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
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        world_.tick(rank_);
        if (is(defect::progress_blocks)) wait_for_arrival(l);
    }

private:
    request start_collective(round::kind what, int root, comet::mutable_bytes data) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        std::lock_guard l(world_.lock());
        world_.tick(rank_);
        world_.join(rank_, what, root, data, op);
        return request(std::move(op), &world_, rank_);
    }

    struct reduce_options {
        bool in_float = false;
        std::size_t limit = SIZE_MAX;
        bool skip_own_root = false;
        bool zero_others = false;
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
            bool first = true;
            double acc = 0.0;
            float acc_float = 0.0f;
            for (int r = 0; r < size_; ++r) {
                if (o.skip_own_root && r == root) continue;
                const double v = static_cast<const double*>(world_.slot_of(r))[i];
                if (o.in_float)
                    acc_float = first ? static_cast<float>(v) : static_cast<float>(op(acc_float, v));
                else
                    acc = first ? v : op(acc, v);
                first = false;
            }
            result[i] = o.in_float ? static_cast<double>(acc_float) : acc;
        }
        world_.meet(rank_);
        if (root < 0 || root == rank_)
            std::copy(result.begin(), result.end(), values.begin());
        else if (o.zero_others)
            std::fill(values.begin(), values.end(), 0.0);
    }

    std::map<int, std::vector<std::shared_ptr<operation>>> unreceived_;  ///< bsend_waits_past_16
};

static_assert(comet::transport<endpoint>);
static_assert(!comet::buffered_send_transport<endpoint>);
static_assert(comet::buffering_transport<full_endpoint>);
static_assert(comet::synchronous_send_transport<full_endpoint>);
static_assert(comet::ready_send_transport<full_endpoint>);
static_assert(comet::sendrecv_transport<full_endpoint>);
static_assert(comet::nonblocking_collective_transport<full_endpoint>);
static_assert(comet::progress_transport<full_endpoint>);

}  // namespace held_out_3
