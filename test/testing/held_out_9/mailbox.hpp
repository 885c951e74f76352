// held_out_9/mailbox.hpp — the ninth held-out transport: ranks are threads of one process
// sharing a world of mailboxes (world.hpp). `endpoint` is the core members only;
// `full_endpoint` adds the optional members a transport may offer natively, the nonblocking
// collectives and `progress`. Adapted from the eighth held-out set's mailbox.hpp, with its
// defects taken out; the only defects here are the ones of defects.hpp switched on.
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

namespace held_out_9 {

class endpoint {
public:
    class request {
    public:
        request() = default;
        request(request&& o) noexcept : op_(std::move(o.op_)), world_(o.world_), rank_(o.rank_), last_(std::exchange(o.last_, {})) {}
        request& operator=(request&& o) noexcept {
            if (this == &o) return *this;
            const bool late = o.world_ && o.world_->is(defect::request_move_assign_releases_after);
            if (!late) release();
            op_ = std::move(o.op_);
            world_ = o.world_;
            rank_ = o.rank_;
            last_ = std::exchange(o.last_, {});
            if (late) release();  // meant for the operation this request held before
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
        std::optional<comet::status> last_;  ///< test_completed_request_returns_last_status
    };

    endpoint(world& w, int rank) : world_(w), rank_(rank), size_(initial_size(w)), epoch_(w.epoch()) {}

    int rank() const { return rank_; }
    int size() const { return size_; }

    request isend(int dest, int tag, comet::const_bytes data) {
        before_call();
        check_rank("isend", "destination", dest);
        check_tag("isend", tag);
        return start_send(dest, tag, data, {.from_isend = true});
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) {
        before_call();
        return start_receive(source, tag, buffer);
    }

    std::optional<comet::status> test(request& r) {
        before_call();
        if (!r.op_) {
            if (r.last_) return *r.last_;  // test_completed_request_returns_last_status
            return comet::status{};
        }
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        operation& op = *r.op_;
        if (!op.done && op.receive && is(defect::test_blocks_in_poll_when_idle) && world_.nothing_queued(rank_))
            world_.await_arrival(rank_, l, [&] { return op.done; });  // the poll's time-out: -1
        if (!op.done) return std::nullopt;
        if (op.reaped) {  // progress_reaps_completed_receives
            l.unlock();
            r.op_.reset();
            return comet::status{};
        }
        comet::status result = op.result;
        const bool truncated = op.truncated;
        const std::size_t overflow = op.overflow;
        const std::size_t room = op.buffer.size();
        l.unlock();
        r.op_.reset();
        if (is(defect::test_completed_request_returns_last_status)) r.last_ = result;
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
        return world_.probe(rank_, source, tag);
    }

    double now() {
        if (is(defect::now_epoch_lazy_per_rank) && !clock_started_) {
            epoch_ = std::chrono::steady_clock::now();  // the clock starts when first read
            clock_started_ = true;
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_).count();
        return is(defect::now_in_milliseconds) ? seconds * 1e3 : seconds;
    }

protected:
    struct send_options {
        bool synchronous = false;
        bool ready = false;
        bool from_isend = false;
    };

    /// size_cached_from_first_world: the group size is read once per process.
    static int initial_size(const world& w) {
        static std::atomic<int> first{0};
        int expected = 0;
        first.compare_exchange_strong(expected, w.size());
        return w.is(defect::size_cached_from_first_world) ? first.load() : w.size();
    }

    bool is(defect d) const noexcept { return world_.is(d); }

    [[noreturn]] void reject(std::string_view op, std::string_view what, long long value, std::string_view why) const {
        comet::raise<comet::invalid_argument>(rank_, op, ": ", what, " ", value, why);
    }
    void check_rank(std::string_view op, std::string_view what, int r) const {
        if (r < 0 || r >= size_) reject(op, what, r, " is outside 0.." + std::to_string(size_ - 1));
    }
    void check_tag(std::string_view op, int tag) const {
        if (tag < 0) reject(op, "tag", tag, " is negative");
        if (is(defect::rejects_max_tag) && tag >= comet::max_tag)
            reject(op, "tag", tag, " is over the largest tag " + std::to_string(comet::max_tag - 1));
    }

    /// At the start of every call: what earlier calls left to do.
    void before_call() {
        if (!pending_.empty()) {
            // send_large_reads_buffer_after_return: the queued sends' bytes are read now
            std::lock_guard l(world_.lock());
            for (auto& [dest, m] : pending_) {
                m.copy.assign(m.borrowed, m.borrowed + m.borrowed_size);
                m.borrowed = nullptr;
                m.borrowed_size = 0;
                world_.send(dest, std::move(m));
            }
            pending_.clear();
        }
    }

    request start_receive(int source, int tag, comet::mutable_bytes buffer) {
        if (source != comet::any_source) {
            if (is(defect::irecv_source_bound_off_by_one)) {
                if (source < 0 || source > size_) reject("irecv", "source", source, " is outside 0.." + std::to_string(size_ - 1));
            } else {
                check_rank("irecv", "source", source);
            }
        }
        if (tag != comet::any_tag) check_tag("irecv", tag);
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->receive = true;
        op->source = source;
        op->tag = tag;
        op->buffer = buffer;
        std::erase_if(receives_, [](const std::weak_ptr<operation>& w) { return w.expired(); });
        receives_.push_back(op);
        std::lock_guard l(world_.lock());
        if (is(defect::inbound_drained_only_by_irecv)) world_.drain(rank_);
        world_.post(rank_, op);
        return request(std::move(op), &world_, rank_);
    }

    message make_message(int tag, comet::const_bytes data, const send_options& o) const {
        message msg;
        msg.source = rank_;
        msg.tag = tag;
        msg.ready = o.ready;
        msg.copy.assign(data.begin(), data.end());
        return msg;
    }

    request start_send(int dest, int tag, comet::const_bytes data, const send_options& o) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->dest = dest;
        op->result = comet::status{dest, tag, data.size()};
        if (is(defect::send_status_names_self)) op->result.source = rank_;
        if (is(defect::zero_length_message_dropped) && data.empty()) {
            op->done = true;  // a keep-alive: nothing to deliver
            return request(std::move(op), &world_, rank_);
        }
        message msg;
        if (o.from_isend && dest != rank_ && data.size() >= threshold && is(defect::isend_zero_copy_completes_early)) {
            msg.source = rank_;
            msg.tag = tag;
            msg.borrowed = data.data();  // zero-copy: read when matched
            msg.borrowed_size = data.size();
        } else {
            msg = make_message(tag, data, o);
        }
        if (o.synchronous)
            msg.synchronous = op;
        else
            op->done = true;
        {
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
    bool clock_started_ = false;                        ///< now_epoch_lazy_per_rank
    std::vector<std::pair<int, message>> pending_;      ///< send_large_reads_buffer_after_return
    std::vector<std::weak_ptr<operation>> receives_;    ///< this rank's receives, for progress()
};

/// The core and every optional member, each native.
class full_endpoint : public endpoint {
public:
    using endpoint::endpoint;

    void send(int dest, int tag, comet::const_bytes data) {
        before_call();
        check_rank("send", "destination", dest);
        check_tag("send", tag);
        if (is(defect::send_large_reads_buffer_after_return) && dest != rank_ && data.size() > threshold) {
            world_.raise_if_stopped(rank_);
            message msg;
            msg.source = rank_;
            msg.tag = tag;
            msg.borrowed = data.data();  // queued for DMA; read at the next call
            msg.borrowed_size = data.size();
            pending_.emplace_back(dest, std::move(msg));
            return;
        }
        const bool loopback_waits = is(defect::send_to_self_waits_for_receive) && dest == rank_;
        request r = start_send(dest, tag, data, {.synchronous = loopback_waits});
        finish(r);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes buffer) {
        before_call();
        if (is(defect::recv_empty_buffer_shortcut) && buffer.empty()) return comet::status{};  // "nothing to receive"
        request r = start_receive(source, tag, buffer);
        return finish(r);
    }
    comet::status wait(request& r) {
        if (is(defect::wait_default_request_waits_for_arrival) && !r.op_) {
            before_call();
            std::unique_lock l(world_.lock());
            world_.await_arrival(rank_, l, [] { return false; });
            world_.raise_if_stopped(rank_);
            return comet::status{};
        }
        return finish(r);
    }
    void wait_all(std::span<request> rs) {
        const std::size_t first = is(defect::wait_all_skips_first) ? 1 : 0;
        for (std::size_t i = first; i < rs.size(); ++i) finish(rs[i]);
    }

    void bsend(int dest, int tag, comet::const_bytes data) {
        before_call();
        check_rank("bsend", "destination", dest);
        check_tag("bsend", tag);
        // bsend_over_buffer_falls_back_to_sync: past the attached buffer, a synchronous send
        const bool overflow = is(defect::bsend_over_buffer_falls_back_to_sync) && data.size() > mebibyte;
        request r = start_send(dest, tag, data, {.synchronous = overflow});
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
        check_rank("sendrecv", "destination", dest);
        check_tag("sendrecv", send_tag);
        request r = start_receive(source, recv_tag, in);
        if (is(defect::sendrecv_receive_before_send)) {
            const comet::status got = finish(r);
            request s = start_send(dest, send_tag, out, {});  // the send only after the receive
            finish(s);
            return got;
        }
        request s = start_send(dest, send_tag, out, {});
        comet::status got = finish(r);
        finish(s);
        return got;
    }

    void barrier() {
        before_call();
        world_.raise_if_stopped(rank_);
        world_.dissemination_barrier(rank_, ++barriers_);
    }

    void broadcast(int root, comet::mutable_bytes data) {
        before_call();
        check_rank("broadcast", "root", root);
        world_.slot(rank_) = data.data();
        world_.meet(rank_);
        std::size_t n = data.size();
        if (is(defect::broadcast_scatter_allgather_remainder_lost) && n > threshold)
            n = n / static_cast<std::size_t>(size_) * static_cast<std::size_t>(size_);  // size_ pieces of n / size_ bytes
        if (rank_ != root && n > 0) std::memcpy(data.data(), world_.slot_of(root), n);
        world_.meet(rank_);
    }

    void allreduce_sum(std::span<double> values) { reduce(-1, values, kind::sum); }
    void allreduce_max(std::span<double> values) { reduce(-1, values, kind::max); }
    void allreduce_min(std::span<double> values) { reduce(-1, values, kind::min); }
    void reduce_sum(int root, std::span<double> values) {
        check_rank("reduce_sum", "root", root);
        reduce(root, values, kind::sum);
    }
    void reduce_max(int root, std::span<double> values) {
        check_rank("reduce_max", "root", root);
        reduce(root, values, kind::max);
    }
    void reduce_min(int root, std::span<double> values) {
        check_rank("reduce_min", "root", root);
        reduce(root, values, kind::min);
    }

    void gather(int root, comet::const_bytes mine, comet::mutable_bytes all) {
        before_call();
        check_rank("gather", "root", root);
        world_.slot(rank_) = mine.data();
        world_.meet(rank_);
        const std::size_t n = mine.size();
        if (rank_ == root && n > 0) {
            std::vector<int> order;
            if (is(defect::gather_root_block_first)) {
                order.push_back(root);  // the root's own block first, then the others
                for (int r = 0; r < size_; ++r)
                    if (r != root) order.push_back(r);
            } else {
                for (int r = 0; r < size_; ++r) order.push_back(r);
            }
            for (std::size_t b = 0; b < order.size(); ++b)
                if ((b + 1) * n <= all.size()) std::memcpy(all.data() + b * n, world_.slot_of(order[b]), n);
        }
        world_.meet(rank_);
    }

    void alltoall(comet::const_bytes out, comet::mutable_bytes in) {
        before_call();
        world_.slot(rank_) = out.data();
        world_.meet(rank_);
        const std::size_t block = out.size() / static_cast<std::size_t>(size_);
        for (int r = 0; r < size_; ++r) {
            if (r == rank_ && is(defect::alltoall_self_block_skipped)) continue;
            if (block > 0)
                std::memcpy(in.data() + block * static_cast<std::size_t>(r),
                            static_cast<const std::byte*>(world_.slot_of(r)) + block * static_cast<std::size_t>(rank_), block);
        }
        world_.meet(rank_);
    }

    void compute(const comet::work& w) {
        if (is(defect::compute_busy_below_1ms_skipped) && w.kind == comet::work_kind::busy && w.seconds < 1e-3) return;
        comet::perform(w);
    }
    bool clock_is_global() const { return true; }

    [[noreturn]] void abort(std::string_view message) {
        world_.stop();
        if (is(defect::abort_message_dropped)) comet::raise<comet::aborted>(rank_, "abort called");
        comet::raise<comet::aborted>(rank_, message);
    }

    // Nonblocking collectives: the k-th call of every rank is one collective (world::join).
    request ibarrier() { return start_collective(round::kind::barrier, 0, {}); }
    request ibroadcast(int root, comet::mutable_bytes data) {
        check_rank("ibroadcast", "root", root);
        return start_collective(round::kind::broadcast, root, data);
    }
    request iallreduce_sum(std::span<double> values) { return start_collective(round::kind::allreduce_sum, 0, std::as_writable_bytes(values)); }

    /// Every operation here advances on its own (sends are buffered, collectives are performed by
    /// the last rank in): nothing to do but notice a stop.
    void progress() {
        before_call();
        world_.raise_if_stopped(rank_);
        if (!is(defect::progress_reaps_completed_receives)) return;
        std::lock_guard l(world_.lock());
        for (auto& weak : receives_)
            if (auto op = weak.lock(); op && op->done) op->reaped = true;  // "completed: reaped"
    }

private:
    enum class kind { sum, max, min };

    request start_collective(round::kind what, int root, comet::mutable_bytes data) {
        before_call();
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->collective = true;
        std::lock_guard l(world_.lock());
        world_.join(rank_, what, root, data, op);
        return request(std::move(op), &world_, rank_);
    }

    const double* values_of(int r) const { return static_cast<const double*>(world_.slot_of(r)); }

    /// The element-wise result over every rank, combined in rank order 0..size()-1 (so an
    /// inexact sum has the same bits everywhere).
    std::vector<double> combine(int root, std::size_t count, kind k) const {
        std::vector<double> result(count);
        int last = size_;
        if (k == kind::min && root >= 0 && is(defect::reduce_min_skips_last_rank)) last = size_ - 1;
        int folded = 1;  // allreduce_sum_fold_counts_extra_twice: the largest power of two <= size()
        while (folded * 2 <= size_) folded *= 2;
        for (std::size_t i = 0; i < count; ++i) {
            double acc = values_of(0)[i];
            if (k == kind::max && root < 0 && is(defect::allreduce_max_init_numeric_min)) acc = std::numeric_limits<double>::min();
            for (int r = (k == kind::max && root < 0 && is(defect::allreduce_max_init_numeric_min)) ? 0 : 1; r < last; ++r) {
                const double v = values_of(r)[i];
                switch (k) {
                case kind::sum: acc = acc + v; break;
                case kind::max: acc = std::max(acc, v); break;
                case kind::min:
                    if (root < 0 && is(defect::allreduce_min_abs_compare))
                        acc = std::fabs(v) < std::fabs(acc) ? v : acc;
                    else
                        acc = std::min(acc, v);
                    break;
                }
            }
            if (k == kind::sum && root < 0 && is(defect::allreduce_sum_fold_counts_extra_twice))
                for (int r = folded; r < size_; ++r) acc += values_of(r)[i];  // folded in, and again in the exchange
            result[i] = acc;
        }
        return result;
    }

    /// The partial sum a binomial tree rooted at `root` leaves in this rank's buffer: its own
    /// values and those of its subtree (reduce_sum_tree_partials_left_in_place).
    std::vector<double> subtree_sum(int root, std::size_t count) const {
        const int v = (rank_ - root + size_) % size_;
        const int span = v & -v;
        std::vector<double> result(count);
        for (std::size_t i = 0; i < count; ++i) {
            double acc = values_of(rank_)[i];
            for (int u = v + 1; u < std::min(v + span, size_); ++u) acc += values_of((u + root) % size_)[i];
            result[i] = acc;
        }
        return result;
    }

    /// `root` -1: every rank keeps the result; else only `root`.
    void reduce(int root, std::span<double> values, kind k) {
        before_call();
        world_.slot(rank_) = values.data();
        world_.meet(rank_);
        std::vector<double> result = combine(root, values.size(), k);
        bool keep = root < 0 || root == rank_;
        if (k == kind::max && root >= 0 && is(defect::reduce_max_root_ignored)) keep = rank_ == 0;
        if (k == kind::sum && root >= 0 && root != rank_ && is(defect::reduce_sum_tree_partials_left_in_place)) {
            result = subtree_sum(root, values.size());
            keep = true;
        }
        world_.meet(rank_);
        if (keep) std::copy(result.begin(), result.end(), values.begin());
    }

    std::uint64_t barriers_ = 0;
};

static_assert(comet::transport<endpoint>);
static_assert(!comet::buffered_send_transport<endpoint>);
static_assert(comet::buffering_transport<full_endpoint>);
static_assert(comet::synchronous_send_transport<full_endpoint>);
static_assert(comet::ready_send_transport<full_endpoint>);
static_assert(comet::sendrecv_transport<full_endpoint>);
static_assert(comet::nonblocking_collective_transport<full_endpoint>);
static_assert(comet::progress_transport<full_endpoint>);

}  // namespace held_out_9
