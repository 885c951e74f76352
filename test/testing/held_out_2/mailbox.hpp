// held_out_2/mailbox.hpp — the second held-out transport: ranks are threads of one process
// sharing a world of mailboxes (world.hpp). `endpoint` is the eight core members only;
// `full_endpoint` adds the optional members a transport may offer natively. Adapted from the
// first held-out set's mailbox.hpp.
//
// Choices the concept leaves open, made the simple way: every send is buffered (copied when
// started), so an isend completes at once and the full model offers `bsend`; a receive whose
// request is dropped while pending is withdrawn; a truncated message is consumed by the receive
// it matched; once another rank failed, a rank raises `comet::stopped` at its next call.
#pragma once

#include "world.hpp"

#include <comet/core/concepts.hpp>
#include <comet/core/work.hpp>

#include <ctime>
#include <stdexcept>
#include <string>
#include <thread>

namespace held_out_2 {

class endpoint {
public:
    class request {
    public:
        request() = default;
        request(request&& o) noexcept : op_(std::move(o.op_)), world_(o.world_), rank_(o.rank_), completed_(o.completed_) {}
        request& operator=(request&& o) noexcept {
            if (this != &o) {
                release();
                if (o.world_ && o.world_->is(defect::move_assign_drops)) {
                    o.op_.reset();  // the handle's author forgot to take the operation over
                    return *this;
                }
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
        bool completed_ = false;
    };

    endpoint(world& w, int rank) : world_(w), rank_(rank), size_(w.size()) {}

    int rank() const { return rank_; }
    int size() const { return size_; }

    request isend(int dest, int tag, comet::const_bytes data) {
        dest = check_destination("isend", dest);
        check_tag("isend", tag);
        return start_send(dest, tag, data, false);
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) {
        if (source != comet::any_source) check_rank("irecv", "source", source);
        if (tag != comet::any_tag) {
            if (is(defect::irecv_negative_tag_wildcard) && tag < 0)
                tag = comet::any_tag;
            else
                check_tag("irecv", tag);
        }
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
        if (!r.op_) {
            if (is(defect::test_default_throws) && !r.completed_)
                throw std::logic_error("test: the request has no operation");
            if (is(defect::test_raises_when_done) && r.completed_)
                throw std::logic_error("test: the request was already completed");
            return comet::status{};
        }
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        if (!is(defect::test_does_not_progress)) world_.tick(rank_);
        operation& op = *r.op_;
        if (!op.done) return std::nullopt;
        if (op.receive) world_.forget(rank_, r.op_);
        const comet::status result = op.result;
        const bool truncated = op.truncated;
        const std::size_t overflow = op.overflow, room = op.buffer.size();
        l.unlock();
        r.op_.reset();
        r.completed_ = true;
        if (truncated)
            comet::raise<comet::truncation_error>(rank_, "receive: a message of ", overflow, " bytes from rank ", result.source,
                                                  " (tag ", result.tag, ") is longer than the buffer of ", room, " bytes");
        return result;
    }

    std::optional<comet::status> iprobe(int source, int tag) {
        if (source != comet::any_source) check_rank("iprobe", "source", source);
        if (tag != comet::any_tag) check_tag("iprobe", tag);
        world_.raise_if_stopped(rank_);
        std::lock_guard l(world_.lock());
        world_.tick(rank_);
        return world_.probe(rank_, source, tag);
    }

    double now() {
        if (is(defect::now_cpu_time)) {
            timespec ts{};
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
        }
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - world_.epoch()).count();
    }

protected:
    bool is(defect d) const noexcept { return world_.is(d); }

    [[noreturn]] void reject(std::string_view op, std::string_view what, int value, std::string_view why) const {
        const int who = is(defect::error_rank_zero) ? 0 : rank_;
        if (is(defect::error_value_missing)) comet::raise<comet::invalid_argument>(who, op, ": bad ", what, why);
        comet::raise<comet::invalid_argument>(who, op, ": ", what, " ", value, why);
    }
    void check_rank(std::string_view op, std::string_view what, int r) const {
        if (r < 0 || r >= size_) reject(op, what, r, " is outside 0.." + std::to_string(size_ - 1));
    }
    void check_tag(std::string_view op, int tag) const {
        if (tag < 0) reject(op, "tag", tag, " is negative");
        if (is(defect::max_tag_rejected) && tag >= comet::max_tag) reject(op, "tag", tag, " is not below max_tag");
    }
    int check_destination(std::string_view op, int dest) const {
        if (is(defect::negative_dest_self) && dest < 0) return rank_;
        check_rank(op, "destination", dest);
        return dest;
    }

    request start_send(int dest, int tag, comet::const_bytes data, bool synchronous, bool borrowed = false, bool ready = false) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->result = {dest, is(defect::send_status_tag_zero) ? 0 : tag, data.size()};
        message msg;
        msg.source = rank_;
        msg.tag = tag;
        msg.ready = ready;
        if (borrowed)
            msg.borrowed = data, msg.is_borrowed = true;
        else
            msg.copy.assign(data.begin(), data.end());
        if (synchronous)
            msg.synchronous = op;
        else
            op->done = true;
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
};

/// The core and every optional member, each native.
class full_endpoint : public endpoint {
public:
    using endpoint::endpoint;

    void send(int dest, int tag, comet::const_bytes data) {
        check_tag("send", tag);  // the arguments are checked as given; the defect is in what is sent
        request r = isend(dest, is(defect::send_native_tag_zero) ? 0 : tag, data);
        finish(r);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes buffer) {
        if (source != comet::any_source) check_rank("recv", "source", source);
        request r = irecv(is(defect::recv_native_ignores_source) ? comet::any_source : source, tag, buffer);
        return finish(r);
    }
    comet::status wait(request& r) {
        while (!r.op_ && is(defect::wait_default_blocks)) {
            world_.raise_if_stopped(rank_);
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return finish(r);
    }
    void wait_all(std::span<request> rs) {
        std::size_t n = rs.size();
        if (is(defect::wait_all_skips_last) && n >= 2) --n;
        for (std::size_t i = 0; i < n; ++i) finish(rs[i]);
    }

    void bsend(int dest, int tag, comet::const_bytes data) {
        dest = check_destination("bsend", dest);
        check_tag("bsend", tag);
        request r = start_send(dest, tag, data, false, is(defect::bsend_borrows));
        finish(r);
    }
    request issend(int dest, int tag, comet::const_bytes data) {
        dest = check_destination("issend", dest);
        check_tag("issend", tag);
        return start_send(dest, tag, data, true);
    }
    void ssend(int dest, int tag, comet::const_bytes data) {
        request r = issend(dest, tag, data);
        finish(r);
    }
    request irsend(int dest, int tag, comet::const_bytes data) {
        dest = check_destination("irsend", dest);
        check_tag("irsend", tag);
        return start_send(dest, tag, data, false, false, true);
    }
    void rsend(int dest, int tag, comet::const_bytes data) {
        request r = irsend(dest, tag, data);
        finish(r);
    }
    comet::status sendrecv(int dest, int send_tag, comet::const_bytes out, int source, int recv_tag, comet::mutable_bytes in) {
        request r = irecv(source, is(defect::sendrecv_ignores_recv_tag) ? comet::any_tag : recv_tag, in);
        request s = isend(dest, send_tag, out);
        const comet::status got = finish(r);
        finish(s);
        return got;
    }

    void barrier() {
        world_.raise_if_stopped(rank_);
        if (++barriers_ == 3 && is(defect::barrier_third_free)) return;
        world_.meet(rank_);
    }

    void broadcast(int root, comet::mutable_bytes data) {
        check_rank("broadcast", "root", root);
        world_.slot(rank_) = data.data();
        world_.meet(rank_);
        const bool skipped = is(defect::broadcast_skips_last_rank) && rank_ == size_ - 1;
        if (rank_ != root && !skipped && !data.empty()) std::memcpy(data.data(), world_.slot_of(root), data.size());
        world_.meet(rank_);
    }

    void allreduce_sum(std::span<double> values) {
        reduce(-1, values, [](double a, double b) { return a + b; }, is(defect::allreduce_sum_skips_last), false);
    }
    void allreduce_max(std::span<double> values) {
        reduce(-1, values, [](double a, double b) { return std::max(a, b); }, false, is(defect::allreduce_max_from_zero));
    }
    void allreduce_min(std::span<double> values) {
        reduce(-1, values, [](double a, double b) { return std::min(a, b); }, false, false);
    }
    void reduce_sum(int root, std::span<double> values) {
        check_rank("reduce_sum", "root", root);
        reduce(is(defect::reduce_sum_writes_all) ? -1 : root, values, [](double a, double b) { return a + b; }, false, false);
    }
    void reduce_max(int root, std::span<double> values) {
        check_rank("reduce_max", "root", root);
        reduce(is(defect::reduce_max_root_zero) ? 0 : root, values, [](double a, double b) { return std::max(a, b); }, false, false);
    }
    void reduce_min(int root, std::span<double> values) {
        check_rank("reduce_min", "root", root);
        reduce(root, values, [](double a, double b) { return std::min(a, b); }, false, false);
    }

    void gather(int root, comet::const_bytes mine, comet::mutable_bytes all) {
        check_rank("gather", "root", root);
        world_.slot(rank_) = mine.data();
        world_.meet(rank_);
        const std::size_t n = mine.size();
        const std::size_t stride = is(defect::gather_pads_blocks) ? (n + 7) / 8 * 8 : n;
        if (rank_ == root && n > 0)
            for (int r = 0; r < size_; ++r) {
                const std::size_t at = stride * static_cast<std::size_t>(r);
                if (at + n <= all.size()) std::memcpy(all.data() + at, world_.slot_of(r), n);
            }
        world_.meet(rank_);
    }

    void alltoall(comet::const_bytes out, comet::mutable_bytes in) {
        world_.slot(rank_) = out.data();
        world_.meet(rank_);
        const std::size_t block = out.size() / static_cast<std::size_t>(size_);
        for (int r = 0; r < size_ && block > 0; ++r) {
            if (r == rank_ && is(defect::alltoall_own_block_skipped)) continue;
            std::memcpy(in.data() + block * static_cast<std::size_t>(r),
                        static_cast<const std::byte*>(world_.slot_of(r)) + block * static_cast<std::size_t>(rank_), block);
        }
        world_.meet(rank_);
    }

    void compute(const comet::work& w) {
        comet::work todo = w;
        if (is(defect::compute_half)) todo.seconds *= 0.5;
        comet::perform(todo);
    }
    bool clock_is_global() const { return true; }

    [[noreturn]] void abort(std::string_view message) {
        world_.stop();
        if (is(defect::abort_wrong_type)) throw std::runtime_error("rank " + std::to_string(rank_) + ": " + std::string(message));
        if (is(defect::abort_drops_message)) comet::raise<comet::aborted>(rank_, "aborted");
        comet::raise<comet::aborted>(rank_, message);
    }

private:
    /// Every rank combines in rank order 0..size-1, so an inexact sum has the same bits
    /// everywhere. `root` -1: every rank keeps the result; else only `root`.
    template <class Op>
    void reduce(int root, std::span<double> values, Op op, bool skip_last, bool from_zero) {
        world_.slot(rank_) = values.data();
        world_.meet(rank_);
        std::vector<double> result(values.begin(), values.end());
        std::size_t count = values.size();
        if (skip_last && count > 1) --count;
        for (std::size_t i = 0; i < count; ++i) {
            double acc = from_zero ? 0.0 : static_cast<const double*>(world_.slot_of(0))[i];
            for (int r = from_zero ? 0 : 1; r < size_; ++r) acc = op(acc, static_cast<const double*>(world_.slot_of(r))[i]);
            result[i] = acc;
        }
        world_.meet(rank_);
        if (root < 0 || root == rank_) std::copy(result.begin(), result.end(), values.begin());
    }

    std::uint64_t barriers_ = 0;
};

static_assert(comet::transport<endpoint>);
static_assert(!comet::buffered_send_transport<endpoint>);
static_assert(comet::buffering_transport<full_endpoint>);
static_assert(comet::synchronous_send_transport<full_endpoint>);
static_assert(comet::ready_send_transport<full_endpoint>);
static_assert(comet::sendrecv_transport<full_endpoint>);

}  // namespace held_out_2
