// held_out_5/mailbox.hpp — the fifth held-out transport: ranks are threads of one process
// sharing a world of mailboxes (world.hpp). `endpoint` is the eight core members only;
// `full_endpoint` adds the optional members a transport may offer natively, the nonblocking
// collectives and `progress`. Adapted from the fourth held-out set's mailbox.hpp, with its
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

namespace held_out_5 {

class endpoint {
public:
    class request {
    public:
        request() = default;
        request(request&& o) noexcept : op_(std::move(o.op_)), world_(o.world_), rank_(o.rank_), polls_(o.polls_) {}
        request& operator=(request&& o) noexcept {
            if (this != &o) {
                release();
                op_ = std::move(o.op_);
                world_ = o.world_;
                rank_ = o.rank_;
                polls_ = o.polls_;
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
        std::uint64_t polls_ = 0;  ///< unsuccessful tests (test_backoff_sleep)
    };

    endpoint(world& w, int rank) : world_(w), rank_(rank), size_(w.size()), epoch_(w.epoch()) {}

    int rank() const { return rank_; }
    int size() const { return size_; }

    request isend(int dest, int tag, comet::const_bytes data) {
        check_rank("isend", "destination", dest);
        if (!(is(defect::isend_self_tag_unchecked) && dest == rank_)) check_tag("isend", tag);
        send_options o;
        o.default_status = is(defect::empty_isend_default_status) && data.empty();
        o.rendezvous = is(defect::rendezvous_progress_own_request) && data.size() > threshold && dest != rank_;
        return start_send(dest, tag, data, o);
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) { return start_receive(source, tag, buffer); }

    std::optional<comet::status> test(request& r) {
        if (!r.op_) return comet::status{};
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        operation& op = *r.op_;
        if (!op.done && op.rdv && world_.push(op.rdv)) op.done = true;
        if (!op.done) {
            if (is(defect::test_completion_by_key) && op.receive)
                for (const std::weak_ptr<operation>& w : registry_)
                    if (const auto other = w.lock(); other && other != r.op_ && other->receive && other->done && !other->claimed &&
                                                     other->source == op.source && other->tag == op.tag) {
                        other->claimed = true;
                        const comet::status s = other->result;
                        world_.withdraw(rank_, r.op_);
                        l.unlock();
                        r.op_.reset();
                        return s;
                    }
            if (is(defect::test_backoff_sleep) && ++r.polls_ > 1000) {
                l.unlock();
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            return std::nullopt;
        }
        const comet::status result = op.swallowed ? comet::status{} : op.result;
        bool truncated = op.truncated && !op.swallowed;
        std::size_t overflow = op.overflow;
        const std::size_t room = op.buffer.size();
        const bool receive = op.receive;
        l.unlock();
        r.op_.reset();
        if (receive && is(defect::truncation_flag_sticky)) {
            if (late_truncation_ && !truncated)
                truncated = true, overflow = result.size, late_truncation_ = false;  // the flag of the last one, cleared only now
            else if (truncated)
                late_truncation_ = true;
        }
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
        return world_.probe(rank_, source, tag);
    }

    double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_).count(); }

protected:
    struct send_options {
        bool synchronous = false;
        bool default_status = false;  ///< empty_isend_default_status
        bool rendezvous = false;      ///< rendezvous_progress_own_request
        bool bsend = false;
        bool ready = false;
    };

    bool is(defect d) const noexcept { return world_.is(d); }

    [[noreturn]] void reject(int who, std::string_view op, std::string_view what, int value, std::string_view why) const {
        comet::raise<comet::invalid_argument>(who, op, ": ", what, " ", value, why);
    }
    void check_rank(std::string_view op, std::string_view what, int r) const {
        if (r < 0 || r >= size_)
            reject(is(defect::error_rank_is_peer) && what == "source" ? r : rank_, op, what, r, " is outside 0.." + std::to_string(size_ - 1));
    }
    void check_tag(std::string_view op, int tag) const {
        if (tag < 0) reject(rank_, op, "tag", tag, " is negative");
    }

    /// Remembers `op` for the defects that look at this rank's earlier operations.
    void enroll(const std::shared_ptr<operation>& op) {
        if (!is(defect::test_completion_by_key) && !is(defect::progress_completes_requests)) return;
        std::erase_if(registry_, [](const std::weak_ptr<operation>& w) { return w.expired(); });
        registry_.push_back(op);
    }

    request start_receive(int source, int tag, comet::mutable_bytes buffer) {
        if (source != comet::any_source) check_rank("irecv", "source", source);
        if (tag != comet::any_tag && !(is(defect::irecv_any_source_tag_unchecked) && source == comet::any_source)) check_tag("irecv", tag);
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->receive = true;
        op->source = source;
        op->tag = tag;
        op->buffer = buffer;
        enroll(op);
        std::lock_guard l(world_.lock());
        world_.post(rank_, op);
        return request(std::move(op), &world_, rank_);
    }

    request start_send(int dest, int tag, comet::const_bytes data, const send_options& o) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->result = o.default_status ? comet::status{} : comet::status{dest, tag, data.size()};
        message msg;
        msg.source = rank_;
        msg.tag = tag;
        msg.from_bsend = o.bsend;
        msg.ready = o.ready;
        if (o.rendezvous) {
            msg.rdv = std::make_shared<rendezvous>();
            msg.rdv->from = data.data();
            msg.rdv->size = data.size();
            op->rdv = msg.rdv;
        } else if (!(is(defect::eager_staging_shared) && !data.empty() && data.size() <= 64) &&
                   !(is(defect::bsend_ring_overwrites) && o.bsend && !data.empty() && data.size() <= 256 * 1024)) {
            msg.copy.assign(data.begin(), data.end());
        }
        if (o.synchronous)
            msg.synchronous = op;
        else if (!o.rendezvous)
            op->done = true;
        enroll(op);
        std::lock_guard l(world_.lock());
        if (is(defect::eager_staging_shared) && !data.empty() && data.size() <= 64) {
            msg.shared = world_.staging(rank_);
            msg.offset = 0;
            msg.n = data.size();
            std::memcpy(msg.shared->data(), data.data(), data.size());
        } else if (is(defect::bsend_ring_overwrites) && o.bsend && !data.empty() && data.size() <= 256 * 1024) {
            auto [ring, at] = world_.ring(rank_, data.size());
            msg.shared = ring;
            msg.offset = at;
            msg.n = data.size();
            std::memcpy(ring->data() + at, data.data(), data.size());
        }
        if (o.synchronous && is(defect::issend_ack_completes_oldest)) world_.outstanding_issend(rank_, dest, op);
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
    std::vector<std::weak_ptr<operation>> registry_;  ///< test_completion_by_key, progress_completes_requests
    bool late_truncation_ = false;                    ///< truncation_flag_sticky
};

/// The core and every optional member, each native.
class full_endpoint : public endpoint {
public:
    using endpoint::endpoint;

    void send(int dest, int tag, comet::const_bytes data) {
        check_rank("send", "destination", dest);
        check_tag("send", tag);
        request r = start_send(dest, tag, data, {});
        finish(r);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes buffer) {
        request r = irecv(source, tag, buffer);
        comet::status s = finish(r);
        // recv_native_empty_stale_size: the size is kept by the copy, which an empty message skips.
        if (s.size > 0)
            last_size_ = s.size;
        else if (is(defect::recv_native_empty_stale_size))
            s.size = last_size_;
        return s;
    }
    comet::status wait(request& r) {
        if (!is(defect::wait_truncation_rewrapped)) return finish(r);
        try {
            return finish(r);
        } catch (const comet::truncation_error& e) {
            throw comet::error(std::string("wait: ") + e.what());
        }
    }
    void wait_all(std::span<request> rs) {
        for (request& r : rs) {
            if (is(defect::wait_all_stops_at_empty) && !r.op_) break;
            finish(r);
        }
    }

    void bsend(int dest, int tag, comet::const_bytes data) {
        check_rank("bsend", "destination", dest);
        check_tag("bsend", tag);
        request r = start_send(dest, tag, data, {.bsend = true});
        finish(r);
    }
    request issend(int dest, int tag, comet::const_bytes data) {
        check_rank("issend", "destination", dest);
        check_tag("issend", tag);
        return start_send(dest, tag, data, {.synchronous = !(is(defect::issend_empty_early) && data.empty())});
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
        request r = start_receive(source, recv_tag, in);
        const int to = is(defect::sendrecv_send_to_source) && source != comet::any_source ? source : dest;
        request s = isend(to, send_tag, out);
        comet::status got = finish(r);
        finish(s);
        return got;
    }

    void barrier() {
        world_.raise_if_stopped(rank_);
        if (is(defect::barrier_dissemination_floor_log2))
            world_.disseminate(rank_);
        else
            world_.meet(rank_);
    }

    void broadcast(int root, comet::mutable_bytes data) {
        check_rank("broadcast", "root", root);
        world_.slot(rank_) = data.data();
        world_.meet(rank_);
        const std::size_t n = data.size();
        const bool cached = is(defect::broadcast_repeat_cached) && cache_.valid && cache_.root == root && cache_.data == data.data() && cache_.size == n;
        if (rank_ != root && n > 0 && !cached) std::memcpy(data.data(), world_.slot_of(root), n);
        if (rank_ != root) cache_ = {true, root, data.data(), n};
        world_.meet(rank_);
    }

    void allreduce_sum(std::span<double> values) { reduce(-1, values, [](double a, double b) { return a + b; }); }
    void allreduce_max(std::span<double> values) { reduce(-1, values, [](double a, double b) { return std::max(a, b); }); }
    void allreduce_min(std::span<double> values) {
        if (is(defect::allreduce_min_int_bits))
            reduce(-1, values, [](double a, double b) { return std::bit_cast<std::int64_t>(b) < std::bit_cast<std::int64_t>(a) ? b : a; });
        else
            reduce(-1, values, [](double a, double b) { return std::min(a, b); });
    }
    void reduce_sum(int root, std::span<double> values) {
        check_rank("reduce_sum", "root", root);
        reduce(root, values, [](double a, double b) { return a + b; });
    }
    void reduce_max(int root, std::span<double> values) {
        check_rank("reduce_max", "root", root);
        reduce(root, values, [](double a, double b) { return std::max(a, b); });
    }
    void reduce_min(int root, std::span<double> values) {
        check_rank("reduce_min", "root", root);
        reduce(root, values, [](double a, double b) { return std::min(a, b); }, is(defect::reduce_min_from_root_up) ? root : 0);
    }

    void gather(int root, comet::const_bytes mine, comet::mutable_bytes all) {
        check_rank("gather", "root", root);
        world_.slot(rank_) = mine.data();
        world_.meet(rank_);
        const std::size_t n = mine.size();
        if (rank_ == root && n > 0)
            for (int r = 0; r < size_; ++r) {
                const int place = is(defect::gather_rotated_by_root) ? (r - root + size_) % size_ : r;
                const std::size_t at = n * static_cast<std::size_t>(place);
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
        if (is(defect::alltoall_xor_schedule_non_pow2)) {
            take(rank_);
            for (int k = 1; k < size_; ++k)
                if (const int partner = rank_ ^ k; partner < size_) take(partner);
        } else {
            for (int r = 0; r < size_; ++r) take(r);
        }
        world_.meet(rank_);
    }

    void compute(const comet::work& w) { comet::perform(w); }
    bool clock_is_global() const { return true; }

    [[noreturn]] void abort(std::string_view message) {
        world_.stop();
        if (is(defect::abort_message_cut_64)) {
            char buffer[64] = {};
            std::memcpy(buffer, message.data(), std::min<std::size_t>(message.size(), 63));
            comet::raise<comet::aborted>(rank_, static_cast<const char*>(buffer));
        }
        comet::raise<comet::aborted>(rank_, message);
    }

    // Nonblocking collectives: the k-th call of every rank is one collective (world::join).
    request ibarrier() { return start_collective(round::kind::barrier, 0, {}); }
    request ibroadcast(int root, comet::mutable_bytes data) {
        check_rank("ibroadcast", "root", root);
        request r = start_collective(round::kind::broadcast, root, data);
        if (is(defect::ibroadcast_root_early_borrowed) && rank_ == root) {
            std::lock_guard l(world_.lock());
            r.op_->done = true;
        }
        return r;
    }
    request iallreduce_sum(std::span<double> values) { return start_collective(round::kind::allreduce_sum, 0, std::as_writable_bytes(values)); }

    void progress() {
        world_.raise_if_stopped(rank_);
        std::lock_guard l(world_.lock());
        if (is(defect::progress_completes_requests))
            for (const std::weak_ptr<operation>& w : registry_)
                if (const auto op = w.lock(); op && op->done) op->swallowed = true;
        if (is(defect::progress_sorts_by_tag)) world_.file_by_tag(rank_);
    }

private:
    request start_collective(round::kind what, int root, comet::mutable_bytes data) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->nbc_barrier = what == round::kind::barrier;
        enroll(op);
        std::lock_guard l(world_.lock());
        world_.join(rank_, what, root, data, op);
        return request(std::move(op), &world_, rank_);
    }

    /// Every rank combines in rank order first..size-1, so an inexact sum has the same bits
    /// everywhere. `root` -1: every rank keeps the result; else only `root`.
    template <class Op>
    void reduce(int root, std::span<double> values, Op op, int first = 0) {
        world_.slot(rank_) = values.data();
        world_.meet(rank_);
        std::vector<double> result(values.begin(), values.end());
        for (std::size_t i = 0; i < values.size(); ++i) {
            double acc = static_cast<const double*>(world_.slot_of(first))[i];
            for (int r = first + 1; r < size_; ++r) acc = op(acc, static_cast<const double*>(world_.slot_of(r))[i]);
            result[i] = acc;
        }
        world_.meet(rank_);
        if (root < 0 || root == rank_) std::copy(result.begin(), result.end(), values.begin());
    }

    struct broadcast_cache {
        bool valid = false;
        int root = 0;
        const std::byte* data = nullptr;
        std::size_t size = 0;
    } cache_;
    std::size_t last_size_ = 0;  ///< recv_native_empty_stale_size
};

static_assert(comet::transport<endpoint>);
static_assert(!comet::buffered_send_transport<endpoint>);
static_assert(comet::buffering_transport<full_endpoint>);
static_assert(comet::synchronous_send_transport<full_endpoint>);
static_assert(comet::ready_send_transport<full_endpoint>);
static_assert(comet::sendrecv_transport<full_endpoint>);
static_assert(comet::nonblocking_collective_transport<full_endpoint>);
static_assert(comet::progress_transport<full_endpoint>);

}  // namespace held_out_5
