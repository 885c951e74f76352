// held_out_11/mailbox.hpp — the eleventh held-out transport: ranks are threads of one process
// sharing a world of mailboxes (world.hpp). `endpoint` is the eight core members only;
// `full_endpoint` adds the optional members a transport may offer natively, the nonblocking
// collectives and `progress`. Adapted from the eighth held-out set's mailbox.hpp with all of its
// defects taken out; the defects here are those of defects.hpp, each behind its switch.
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

namespace held_out_11 {

class endpoint {
public:
    class request {
    public:
        request() = default;
        request(request&& o) noexcept
            : op_(std::move(o.op_)), world_(o.world_), rank_(o.rank_), last_(o.last_), completed_(o.completed_) {}
        request& operator=(request&& o) noexcept {
            if (this != &o) {
                release();
                op_ = std::move(o.op_);
                world_ = o.world_;
                rank_ = o.rank_;
                last_ = o.last_;
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
            if (world_ && op_ && op_->receive) {
                std::lock_guard l(world_->lock());
                if (!op_->done) world_->withdraw(rank_, op_);
            }
            op_.reset();
        }
        std::shared_ptr<operation> op_;
        world* world_ = nullptr;
        int rank_ = 0;
        comet::status last_;      ///< completed_request_repeats_status
        bool completed_ = false;  ///< completed_request_repeats_status
    };

    endpoint(world& w, int rank) : world_(w), rank_(rank), size_(w.size()), epoch_(w.epoch()) {}

    int rank() const { return rank_; }
    int size() const { return size_; }

    request isend(int dest, int tag, comet::const_bytes data) {
        before_call();
        if (is(defect::dest_equal_size_wraps)) {
            if (dest < 0 || dest > size_) reject("isend", "destination", dest, " is outside 0.." + std::to_string(size_ - 1));
            dest %= size_;  // the ring of peers
        } else {
            check_rank("isend", "destination", dest);
        }
        check_tag("isend", tag);
        return start_send(dest, tag, data, {.from_isend = true});
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) {
        before_call();
        if (source != comet::any_source) check_rank("irecv", "source", source);
        if (tag != comet::any_tag && !is(defect::irecv_tag_unchecked)) check_tag("irecv", tag);
        return start_receive(source, tag, buffer);
    }

    std::optional<comet::status> test(request& r) {
        before_call();
        if (!r.op_) {
            if (r.completed_ && is(defect::completed_request_repeats_status)) return r.last_;
            return comet::status{};
        }
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        operation& op = *r.op_;
        if (!op.done && op.receive && is(defect::test_blocks_1s_on_pending))
            world_.changed().wait_for(l, std::chrono::seconds(1), [&] { return op.done || world_.stopped(); });
        if (!op.done) return std::nullopt;
        if (op.reaped) {  // progress_reaps_completions: drained by progress()
            l.unlock();
            r.op_.reset();
            return comet::status{};
        }
        if (op.has_reduced && !op.reduced.empty())
            std::memcpy(op.buffer.data(), op.reduced.data(), std::min(op.buffer.size(), op.reduced.size() * sizeof(double)));
        comet::status result = op.result;
        const bool truncated = op.truncated;
        const std::size_t overflow = op.overflow;
        const std::size_t room = op.buffer.size();
        l.unlock();
        r.op_.reset();
        r.last_ = result;
        r.completed_ = true;
        if (truncated)
            comet::raise<comet::truncation_error>(rank_, "receive: a message of ", overflow, " bytes from rank ", result.source, " (tag ",
                                                  result.tag, ") does not fit the buffer of ", room, " bytes");
        return result;
    }

    std::optional<comet::status> iprobe(int source, int tag) {
        // no before_call(): iprobe only looks (iprobe_does_not_pull_rendezvous)
        if (source != comet::any_source) check_rank("iprobe", "source", source);
        if (tag != comet::any_tag) check_tag("iprobe", tag);
        world_.raise_if_stopped(rank_);
        std::lock_guard l(world_.lock());
        return world_.probe(rank_, source, tag);
    }

    double now() {
        const auto t = std::chrono::steady_clock::now();
        if (is(defect::clock_epoch_at_first_now) && !epoch_set_) {
            epoch_ = t;  // the clock starts when it is first read
            epoch_set_ = true;
        }
        const double seconds = std::chrono::duration<double>(t - epoch_).count();
        if (is(defect::now_in_milliseconds)) return seconds * 1e3;
        return seconds;
    }

protected:
    struct send_options {
        bool synchronous = false;
        bool ready = false;
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
        if (is(defect::max_tag_rejected) && tag >= comet::max_tag) reject(op, "tag", tag, " is beyond the tag space");
    }

    /// At the start of irecv, isend and test: iprobe_does_not_pull_rendezvous runs its progress
    /// engine here.
    void before_call() {
        if (!is(defect::iprobe_does_not_pull_rendezvous)) return;
        world_.raise_if_stopped(rank_);
        std::lock_guard l(world_.lock());
        world_.pull(rank_);
    }

    request start_receive(int source, int tag, comet::mutable_bytes buffer) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->receive = true;
        op->source = source;
        op->tag = tag;
        op->buffer = buffer;
        if (is(defect::progress_reaps_completions)) receives_.push_back(op);
        std::unique_lock l(world_.lock());
        world_.post(rank_, op);
        if (is(defect::truncation_raised_by_irecv) && op->done && op->truncated) {
            const std::size_t overflow = op->overflow;
            const comet::status s = op->result;
            l.unlock();
            comet::raise<comet::truncation_error>(rank_, "irecv: a message of ", overflow, " bytes from rank ", s.source, " (tag ", s.tag,
                                                  ") does not fit the buffer of ", buffer.size(), " bytes");
        }
        return request(std::move(op), &world_, rank_);
    }

    request start_send(int dest, int tag, comet::const_bytes data, const send_options& o) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->result = comet::status{dest, tag, data.size()};
        if (is(defect::send_status_source_is_self)) op->result.source = rank_;  // the header's source
        message msg;
        msg.source = rank_;
        msg.tag = tag;
        msg.ready = o.ready;
        if (o.from_isend && data.size() > threshold && is(defect::isend_large_zero_copy_completes_early)) {
            msg.zero_copy = true;
            msg.view = data;
        } else {
            msg.copy.assign(data.begin(), data.end());
        }
        if (o.synchronous)
            msg.synchronous = op;
        else if (is(defect::iprobe_does_not_pull_rendezvous) && data.size() > threshold && dest != rank_)
            msg.pulled = op;
        else
            op->done = true;
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
    bool epoch_set_ = false;                          ///< clock_epoch_at_first_now
    std::vector<std::weak_ptr<operation>> receives_;  ///< progress_reaps_completions
};

/// The core and every optional member, each native.
class full_endpoint : public endpoint {
public:
    using endpoint::endpoint;

    void send(int dest, int tag, comet::const_bytes data) {
        check_rank("send", "destination", dest);
        check_tag("send", tag);
        if (is(defect::send_native_tag_14_bits)) tag &= 0x3FFF;  // the header's tag field
        request r = start_send(dest, tag, data, {});
        finish(r);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes buffer) {
        request r = irecv(source, tag, buffer);
        comet::status s = finish(r);
        if (is(defect::recv_native_status_requested_tag)) s.tag = tag;
        return s;
    }
    comet::status wait(request& r) {
        if (!r.op_ && is(defect::wait_default_returns_last_status)) return last_;
        if (r.op_ && r.op_->collective && r.op_->has_reduced_expected && is(defect::iallreduce_wait_skips_copy_out)) {
            // spins on the done flag; the copy-out lives in test()
            for (;;) {
                world_.raise_if_stopped(rank_);
                std::unique_lock l(world_.lock());
                if (r.op_->done) break;
                world_.changed().wait_for(l, std::chrono::milliseconds(5));
            }
            r.op_.reset();
            return last_ = comet::status{};
        }
        return last_ = finish(r);
    }
    void wait_all(std::span<request> rs) {
        for (request& r : rs) {
            if (!r.op_ && is(defect::wait_all_stops_at_empty_request)) return;  // the end of the array
            finish(r);
        }
    }

    void bsend(int dest, int tag, comet::const_bytes data) {
        check_rank("bsend", "destination", dest);
        check_tag("bsend", tag);
        const bool pool_too_small = is(defect::bsend_pool_64k_rendezvous) && data.size() > threshold && dest != rank_;
        request r = start_send(dest, tag, data, {.synchronous = pool_too_small});
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
        return start_send(dest, tag, data, {.ready = true});
    }
    void rsend(int dest, int tag, comet::const_bytes data) {
        request r = irsend(dest, tag, data);
        finish(r);
    }
    comet::status sendrecv(int dest, int send_tag, comet::const_bytes out, int source, int recv_tag, comet::mutable_bytes in) {
        if (is(defect::sendrecv_large_sends_first) && out.size() > threshold && dest != rank_) {
            check_rank("sendrecv", "destination", dest);
            check_tag("sendrecv", send_tag);
            request s = start_send(dest, send_tag, out, {.synchronous = true});  // rendezvous
            finish(s);
            request r = irecv(source, recv_tag, in);
            return finish(r);
        }
        request r = irecv(source, recv_tag, in);
        request s = isend(dest, send_tag, out);
        comet::status got = finish(r);
        finish(s);
        return got;
    }

    void barrier() {
        world_.raise_if_stopped(rank_);
        world_.meet(rank_, !(is(defect::barrier_last_rank_skips_wait) && rank_ == size_ - 1));
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

    void allreduce_sum(std::span<double> values) { reduce(-1, values, kind::sum); }
    void allreduce_max(std::span<double> values) { reduce(-1, values, kind::max); }
    void allreduce_min(std::span<double> values) { reduce(-1, values, kind::min); }
    void reduce_sum(int root, std::span<double> values) {
        check_rank("reduce_sum", "root", root);
        reduce(is(defect::reduce_sum_result_everywhere) ? -1 : root, values, kind::sum);
    }
    void reduce_max(int root, std::span<double> values) {
        check_rank("reduce_max", "root", root);
        reduce(is(defect::reduce_max_result_at_rank_0) ? 0 : root, values, kind::max);
    }
    void reduce_min(int root, std::span<double> values) {
        check_rank("reduce_min", "root", root);
        if (is(defect::reduce_min_group_of_one_identity) && size_ == 1) {
            // no children in the tree: the scratch, initialised to the identity, is the result
            std::fill(values.begin(), values.end(), std::numeric_limits<double>::infinity());
            return;
        }
        reduce(root, values, kind::min);
    }

    void gather(int root, comet::const_bytes mine, comet::mutable_bytes all) {
        check_rank("gather", "root", root);
        world_.slot(rank_) = mine.data();
        world_.meet(rank_);
        const std::size_t n = mine.size();
        if (rank_ == root && n > 0) {
            std::size_t block = 0;
            const auto put = [&](int r) {
                const std::size_t at = n * block++;
                if (at + n <= all.size()) std::memcpy(all.data() + at, world_.slot_of(r), n);
            };
            if (is(defect::gather_root_block_first)) {
                put(root);
                for (int r = 0; r < size_; ++r)
                    if (r != root) put(r);
            } else {
                for (int r = 0; r < size_; ++r) put(r);
            }
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
        if (!is(defect::alltoall_own_block_skipped)) take(rank_);
        for (int k = 1; k < size_; ++k) take((rank_ - k + size_) % size_);
        world_.meet(rank_);
    }

    void compute(const comet::work& w) {
        if (is(defect::compute_busy_capped_100ms) && w.kind == comet::work_kind::busy && w.seconds > 0.1) {
            comet::perform(comet::work::busy(0.1));  // one scheduler slice
            return;
        }
        comet::perform(w);
    }
    bool clock_is_global() const { return true; }

    [[noreturn]] void abort(std::string_view message) {
        world_.stop();
        if (is(defect::abort_message_truncated_32)) message = message.substr(0, 32);  // the control packet's payload
        comet::raise<comet::aborted>(rank_, message);
    }

    // Nonblocking collectives: the k-th call of every rank is one collective (world::join).
    request ibarrier() { return start_collective(round::kind::barrier, 0, {}); }
    request ibroadcast(int root, comet::mutable_bytes data) {
        check_rank("ibroadcast", "root", root);
        return start_collective(round::kind::broadcast, is(defect::ibroadcast_root_ignored) ? 0 : root, data);
    }
    request iallreduce_sum(std::span<double> values) { return start_collective(round::kind::allreduce_sum, 0, std::as_writable_bytes(values)); }

    void progress() {
        world_.raise_if_stopped(rank_);
        if (!is(defect::progress_reaps_completions)) return;
        std::lock_guard l(world_.lock());
        for (auto& weak : receives_)
            if (auto op = weak.lock(); op && op->done) op->reaped = true;  // drained from the completion queue
        std::erase_if(receives_, [](const std::weak_ptr<operation>& w) { return w.expired(); });
    }

private:
    enum class kind { sum, max, min };

    comet::status last_;  ///< wait_default_returns_last_status

    request start_collective(round::kind what, int root, comet::mutable_bytes data) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->collective = true;
        op->buffer = data;
        op->has_reduced_expected = what == round::kind::allreduce_sum;
        std::lock_guard l(world_.lock());
        world_.join(rank_, what, root, data, op);
        return request(std::move(op), &world_, rank_);
    }

    const double* values_of(int r) const { return static_cast<const double*>(world_.slot_of(r)); }

    double combine_element(std::size_t i, kind k) const {
        const auto op = [k](double a, double b) { return k == kind::sum ? a + b : k == kind::max ? std::max(a, b) : std::min(a, b); };
        if (k == kind::sum && is(defect::allreduce_sum_rotated_order)) {
            double acc = values_of(rank_)[i];
            for (int s = 1; s < size_; ++s) acc = op(acc, values_of((rank_ + s) % size_)[i]);
            return acc;
        }
        double acc = values_of(0)[i];
        int first = 1;
        if (k == kind::max && is(defect::allreduce_max_starts_at_zero)) acc = 0.0, first = 0;
        if (k == kind::min && is(defect::allreduce_min_starts_at_dbl_min)) acc = std::numeric_limits<double>::min(), first = 0;
        for (int r = first; r < size_; ++r) acc = op(acc, values_of(r)[i]);
        return acc;
    }

    /// Every rank combines in rank order 0..size-1, so an inexact sum has the same bits
    /// everywhere. `root` -1: every rank keeps the result; else only `root`.
    void reduce(int root, std::span<double> values, kind k) {
        world_.raise_if_stopped(rank_);
        world_.slot(rank_) = values.data();
        world_.meet(rank_);
        std::vector<double> result(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) result[i] = combine_element(i, k);
        world_.meet(rank_);
        if (root < 0 || root == rank_) std::copy(result.begin(), result.end(), values.begin());
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

}  // namespace held_out_11
