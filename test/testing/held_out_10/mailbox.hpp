// held_out_10/mailbox.hpp — the tenth held-out transport: ranks are threads of one process
// sharing a world of mailboxes (world.hpp). `endpoint` is the eight core members only;
// `full_endpoint` adds the optional members a transport may offer natively, the nonblocking
// collectives and `progress`. The infrastructure of the eighth set's mailbox.hpp with its defects
// taken out; the only defects here are the tenth set's own (defects.hpp), each behind its switch.
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
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace held_out_10 {

class endpoint {
public:
    class request {
    public:
        request() = default;
        request(request&& o) noexcept
            : op_(std::move(o.op_)), world_(o.world_), rank_(o.rank_), used_(o.used_), last_(o.last_), held_(std::move(o.held_)) {
            o.held_.reset();
        }
        request& operator=(request&& o) noexcept {
            if (this != &o) {
                release();
                op_ = std::move(o.op_);
                world_ = o.world_;
                rank_ = o.rank_;
                used_ = o.used_;
                last_ = o.last_;
                held_ = std::move(o.held_);
                o.held_.reset();
            }
            return *this;
        }
        ~request() { release(); }

    private:
        friend class endpoint;
        friend class full_endpoint;
        request(std::shared_ptr<operation> op, world* w, int rank) : op_(std::move(op)), world_(w), rank_(rank), used_(true) {}
        /// isend_flushed_only_by_its_test: the held message goes out.
        void flush() noexcept {
            if (!held_ || !world_) return;
            std::lock_guard l(world_->lock());
            world_->send(held_->first, std::move(held_->second));
            held_.reset();
        }
        void release() noexcept {
            flush();
            if (world_ && op_ && op_->receive) {
                std::lock_guard l(world_->lock());
                if (!op_->done) world_->withdraw(rank_, op_);
            }
            op_.reset();
        }
        std::shared_ptr<operation> op_;
        world* world_ = nullptr;
        int rank_ = 0;
        bool used_ = false;     ///< made by an operation (not default-constructed)
        comet::status last_;    ///< the status it completed with (test_completed_request_stale, wait_completed_stale)
        std::optional<std::pair<int, message>> held_;  ///< isend_flushed_only_by_its_test
    };

    endpoint(world& w, int rank) : world_(w), rank_(rank), size_(w.size()), epoch_(w.epoch()) {}

    int rank() const { return is(defect::rank_one_based) ? rank_ + 1 : rank_; }
    int size() const { return size_; }

    request isend(int dest, int tag, comet::const_bytes data) {
        check_rank("isend", "destination", dest);
        check_tag("isend", tag);
        if (is(defect::large_message_rejected) && data.size() > 8 * std::size_t{1 << 20})
            reject("isend", "size", static_cast<long long>(data.size()), " is over the 8 MiB eager pool");
        return start_send(dest, tag, data, {.from_isend = true});
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) { return start_receive(source, tag, buffer); }

    std::optional<comet::status> test(request& r) {
        if (!r.op_) {
            if (!r.used_ && is(defect::test_default_request_nullopt)) return std::nullopt;  // "nothing to complete yet"
            if (r.used_ && is(defect::test_completed_request_stale)) return r.last_;
            return comet::status{};
        }
        r.flush();
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        operation& op = *r.op_;
        if (!op.done && op.receive && is(defect::test_waits_500ms))
            world_.changed().wait_for(l, std::chrono::milliseconds(500), [&] { return op.done || world_.stopped(); });
        if (!op.done) return std::nullopt;
        comet::status result = op.result;
        const bool truncated = op.truncated;
        const std::size_t overflow = op.overflow;
        const std::size_t room = op.buffer.size();
        l.unlock();
        r.op_.reset();
        r.last_ = result;
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
        if (is(defect::iprobe_positive_cache_stale)) {
            auto hit = hits_.find({source, tag});
            if (hit != hits_.end() && hit->second.first == world_.arrivals(rank_)) return hit->second.second;
        }
        std::optional<comet::status> s = world_.probe(rank_, source, tag);
        if (is(defect::iprobe_positive_cache_stale) && s) hits_[{source, tag}] = {world_.arrivals(rank_), *s};
        return s;
    }

    double now() {
        auto from = epoch_;
        if (is(defect::clock_epoch_first_call)) {
            if (!first_now_) first_now_ = std::chrono::steady_clock::now();
            from = *first_now_;
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count() + clock_offset_;
        return is(defect::now_milliseconds) ? seconds * 1000.0 : seconds;
    }

protected:
    struct send_options {
        bool synchronous = false;
        bool from_isend = false;
        bool borrow = false;  ///< send_zero_copy_large
    };

    bool is(defect d) const noexcept { return world_.is(d); }

    [[noreturn]] void reject(std::string_view op, std::string_view what, long long value, std::string_view why) const {
        comet::raise<comet::invalid_argument>(rank_, op, ": ", what, " ", value, why);
    }
    void check_rank(std::string_view op, std::string_view what, int r) const {
        const bool out = is(defect::dest_range_off_by_one) ? (r < 0 || r > size_) : (r < 0 || r >= size_);
        if (out) reject(op, what, r, " is outside 0.." + std::to_string(size_ - 1));
    }
    void check_tag(std::string_view op, int tag) const {
        if (tag < 0) reject(op, "tag", tag, " is negative");
        if (is(defect::max_tag_rejected) && tag >= comet::max_tag) reject(op, "tag", tag, " is not below max_tag");
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
        if (is(defect::send_status_source_self)) op->result.source = rank_;
        message msg;
        msg.source = rank_;
        msg.tag = tag;
        if (o.borrow) {
            msg.borrowed = data.data();
            msg.borrowed_size = data.size();
        } else {
            msg.copy.assign(data.begin(), data.end());
        }
        if (o.synchronous)
            msg.synchronous = op;
        else
            op->done = true;
        request r(std::move(op), &world_, rank_);
        if (o.from_isend && data.empty() && is(defect::zero_length_isend_dropped)) return r;  // nothing to move
        if (o.from_isend && is(defect::isend_flushed_only_by_its_test)) {
            r.held_.emplace(dest, std::move(msg));
            return r;
        }
        std::lock_guard l(world_.lock());
        world_.send(dest, std::move(msg));
        return r;
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
    double clock_offset_ = 0.0;
    std::optional<std::chrono::steady_clock::time_point> first_now_;                     ///< clock_epoch_first_call
    std::map<std::pair<int, int>, std::pair<std::uint64_t, comet::status>> hits_;       ///< iprobe_positive_cache_stale
};

/// The core and every optional member, each native.
class full_endpoint : public endpoint {
public:
    using endpoint::endpoint;

    void send(int dest, int tag, comet::const_bytes data) {
        check_rank("send", "destination", dest);
        check_tag("send", tag);
        const bool rendezvous = is(defect::send_rendezvous_past_1mib) && data.size() > (std::size_t{1} << 20) && dest != rank_;
        const bool borrow = is(defect::send_zero_copy_large) && data.size() > 256 * 1024 && dest != rank_;
        request r = start_send(dest, tag, data, {.synchronous = rendezvous, .borrow = borrow});
        finish(r);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes buffer) {
        if (is(defect::recv_zero_length_fast_path) && buffer.empty()) {
            if (source != comet::any_source) check_rank("recv", "source", source);
            if (tag != comet::any_tag) check_tag("recv", tag);
            for (unsigned polls = 1;; ++polls) {
                world_.raise_if_stopped(rank_);
                {
                    std::lock_guard l(world_.lock());
                    if (auto s = world_.probe(rank_, source, tag)) return comet::status{s->source, s->tag, 0};  // nothing to copy
                }
                if (polls % 64 == 0) std::this_thread::yield();
            }
        }
        request r = start_receive(source, tag, buffer);
        comet::status s = finish(r);
        if (is(defect::recv_status_tag_as_requested)) s.tag = tag;
        return s;
    }
    comet::status wait(request& r) {
        if (!r.op_ && r.used_ && is(defect::wait_completed_stale)) return r.last_;
        return finish(r);
    }
    void wait_all(std::span<request> rs) {
        for (request& r : rs) {
            if (is(defect::wait_all_skips_sends) && r.op_ && !r.op_->receive) continue;  // "sends are buffered"
            finish(r);
        }
    }

    void bsend(int dest, int tag, comet::const_bytes data) {
        check_rank("bsend", "destination", dest);
        check_tag("bsend", tag);
        const bool pool_full = is(defect::bsend_pool_64k_falls_back) && data.size() > 65536 && dest != rank_;
        request r = start_send(dest, tag, data, {.synchronous = pool_full});
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
        if (is(defect::rsend_wildcard_receive_not_found)) {
            std::lock_guard l(world_.lock());
            if (!world_.posted_exactly(dest, rank_, tag))
                comet::raise<comet::error>(rank_, "irsend: no receive posted at rank ", dest, " for tag ", tag, " (the ready promise is broken)");
        }
        return start_send(dest, tag, data, {});
    }
    void rsend(int dest, int tag, comet::const_bytes data) {
        request r = irsend(dest, tag, data);
        finish(r);
    }
    comet::status sendrecv(int dest, int send_tag, comet::const_bytes out, int source, int recv_tag, comet::mutable_bytes in) {
        if (is(defect::sendrecv_large_send_first) && out.size() > 65536) {
            ssend(dest, send_tag, out);  // the rendezvous protocol, then the receive
            request r = start_receive(source, recv_tag, in);
            return finish(r);
        }
        request r = start_receive(source, recv_tag, in);
        request s = isend(dest, send_tag, out);
        comet::status got = finish(r);
        finish(s);
        return got;
    }

    void barrier() {
        world_.raise_if_stopped(rank_);
        if (is(defect::barrier_dissemination_floor_log2))
            world_.dissemination_barrier(rank_);
        else
            world_.meet(rank_);
    }

    void broadcast(int root, comet::mutable_bytes data) {
        check_rank("broadcast", "root", root);
        const int from = is(defect::broadcast_root_zero_only) ? 0 : root;
        std::size_t n = data.size();
        if (is(defect::broadcast_drops_partial_chunk) && n > 65536) n = n / 65536 * 65536;
        world_.slot(rank_) = data.data();
        world_.meet(rank_);
        if (rank_ != from && n > 0) std::memcpy(data.data(), world_.slot_of(from), n);
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
        check_rank("gather", "root", root);
        world_.slot(rank_) = mine.data();
        world_.meet(rank_);
        const std::size_t n = mine.size();
        if (rank_ == root && n > 0) {
            std::size_t next = 0;
            const auto put = [&](int r, std::size_t block) {
                const std::size_t at = n * block;
                if (at + n <= all.size()) std::memcpy(all.data() + at, world_.slot_of(r), n);
            };
            if (is(defect::gather_root_block_first)) {
                put(rank_, next++);
                for (int r = 0; r < size_; ++r)
                    if (r != rank_) put(r, next++);
            } else {
                for (int r = 0; r < size_; ++r) put(r, static_cast<std::size_t>(r));
            }
        }
        world_.meet(rank_);
    }

    void alltoall(comet::const_bytes out, comet::mutable_bytes in) {
        world_.slot(rank_) = out.data();
        world_.meet(rank_);
        const std::size_t block = out.size() / static_cast<std::size_t>(size_);
        for (int r = 0; r < size_; ++r) {
            if (r == rank_ && is(defect::alltoall_own_block_skipped)) continue;
            if (block > 0)
                std::memcpy(in.data() + block * static_cast<std::size_t>(r),
                            static_cast<const std::byte*>(world_.slot_of(r)) + block * static_cast<std::size_t>(rank_), block);
        }
        world_.meet(rank_);
    }

    void compute(const comet::work& w) {
        if (is(defect::compute_busy_skipped) && w.kind == comet::work_kind::busy) return;  // "simulated"
        comet::perform(w);
    }
    bool clock_is_global() const { return true; }

    [[noreturn]] void abort(std::string_view message) {
        world_.stop();
        if (is(defect::abort_message_64_bytes)) {
            char packet[64] = {};
            const std::size_t n = std::min(message.size(), sizeof packet - 1);
            std::memcpy(packet, message.data(), n);
            comet::raise<comet::aborted>(rank_, std::string_view(packet, n));
        }
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
        if (!is(defect::progress_waits_for_completion)) return;
        std::unique_lock l(world_.lock());
        const std::uint64_t before = world_.arrivals(rank_);
        if (world_.has_posted(rank_))
            world_.changed().wait_for(l, std::chrono::seconds(1),
                                      [&] { return world_.arrivals(rank_) != before || world_.stopped(); });
    }

private:
    enum class kind { sum, max, min };

    request start_collective(round::kind what, int root, comet::mutable_bytes data) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->collective = true;
        std::lock_guard l(world_.lock());
        world_.join(rank_, what, root, data, op);
        if (what == round::kind::barrier && is(defect::ibarrier_completes_at_start)) op->done = true;  // "nothing to carry"
        return request(std::move(op), &world_, rank_);
    }

    const double* values_of(int r) const { return static_cast<const double*>(world_.slot_of(r)); }

    static double apply(kind k, double a, double b) {
        switch (k) {
        case kind::sum: return a + b;
        case kind::max: return std::max(a, b);
        case kind::min: return std::min(a, b);
        }
        return a;
    }

    /// Every rank combines in rank order 0..size-1, so an inexact sum has the same bits
    /// everywhere. `root` -1: every rank keeps the result; else only `root`.
    void reduce(int root, std::span<double> values, kind k) {
        world_.raise_if_stopped(rank_);
        world_.slot(rank_) = values.data();
        world_.meet(rank_);
        std::vector<double> result(values.begin(), values.end());
        for (std::size_t i = 0; i < values.size(); ++i) {
            double acc = values_of(0)[i];
            for (int r = 1; r < size_; ++r) acc = apply(k, acc, values_of(r)[i]);
            if (root < 0 && k == kind::sum && is(defect::allreduce_sum_ring_own_first)) {
                acc = values_of(rank_)[i];  // in the order the ring brings them
                for (int s = 1; s < size_; ++s) acc += values_of((rank_ + s) % size_)[i];
            }
            if (root < 0 && k == kind::max && is(defect::allreduce_max_init_numeric_min)) {
                acc = std::numeric_limits<double>::min();
                for (int r = 0; r < size_; ++r) acc = std::max(acc, values_of(r)[i]);
            }
            if (root < 0 && k == kind::min && is(defect::allreduce_min_as_float)) acc = static_cast<double>(static_cast<float>(acc));
            if (root >= 0 && k == kind::max && is(defect::reduce_max_root_excluded) && size_ > 1) {
                const int first = root == 0 ? 1 : 0;
                acc = values_of(first)[i];
                for (int r = first + 1; r < size_; ++r)
                    if (r != root) acc = std::max(acc, values_of(r)[i]);
            }
            if (root >= 0 && k == kind::sum && is(defect::reduce_sum_nonroot_partial) && rank_ != root) {
                // the partial sum this rank passed up the chain: its own and those after it
                const int rel = (rank_ - root + size_) % size_;
                acc = 0.0;
                for (int q = rel; q < size_; ++q) acc += values_of((q + root) % size_)[i];
            }
            result[i] = acc;
        }
        world_.meet(rank_);
        const bool keep = root < 0 || root == rank_ || (k == kind::sum && is(defect::reduce_sum_nonroot_partial));
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

}  // namespace held_out_10
