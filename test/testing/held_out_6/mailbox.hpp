// held_out_6/mailbox.hpp — the sixth held-out transport: ranks are threads of one process
// sharing a world of mailboxes (world.hpp). `endpoint` is the eight core members only;
// `full_endpoint` adds the optional members a transport may offer natively, the nonblocking
// collectives and `progress`. Adapted from the fifth held-out set's mailbox.hpp, with its
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

#include <bit>
#include <cmath>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace held_out_6 {

class endpoint {
public:
    class request {
    public:
        request() = default;
        request(request&& o) noexcept : op_(std::move(o.op_)), world_(o.world_), rank_(o.rank_), recycled_(o.recycled_) {}
        request& operator=(request&& o) noexcept {
            if (this != &o) {
                release();
                op_ = std::move(o.op_);
                world_ = o.world_;
                rank_ = o.rank_;
                recycled_ = o.recycled_;
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
        bool recycled_ = false;  ///< completed_request_slot_reused: completed, its slot given to the next operation
    };

    endpoint(world& w, int rank) : world_(w), rank_(rank), size_(w.size()), epoch_(w.epoch()) {}

    int rank() const { return rank_; }
    int size() const { return size_; }

    request isend(int dest, int tag, comet::const_bytes data) {
        touch();
        check_rank("isend", "destination", dest);
        check_tag("isend", tag);
        send_options o;
        if (is(defect::send_status_stale_tag)) {
            auto [at, fresh] = last_tag_.try_emplace(dest, tag);
            o.reported_tag = at->second;
            at->second = tag;
        }
        return start_send(dest, tag, data, o);
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) {
        touch();
        return start_receive(source, tag, buffer);
    }

    std::optional<comet::status> test(request& r) {
        touch();
        std::shared_ptr<operation> held = r.op_;
        bool through_slot = false;
        if (!held) {
            if (!(is(defect::completed_request_slot_reused) && r.recycled_)) return comet::status{};
            held = latest_.lock();  // the slot now holds the rank's newest operation
            if (!held || held->reported) return comet::status{};
            through_slot = true;
        }
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        operation& op = *held;
        if (op.reported) {  // its completion went to a recycled request
            l.unlock();
            r.op_.reset();
            return comet::status{};
        }
        if (!op.done) return std::nullopt;
        op.reported = true;
        comet::status result = op.result;
        const bool truncated = op.truncated;
        const std::size_t overflow = op.overflow;
        const std::size_t room = op.buffer.size();
        const bool receive = op.receive;
        l.unlock();
        if (!through_slot) {
            r.op_.reset();
            r.recycled_ = is(defect::completed_request_slot_reused);
        }
        if (receive && is(defect::probe_slot_status_reused) && probe_slot_ && probe_slot_->source == result.source) {
            if (!truncated) result.size = probe_slot_->size;
            probe_slot_.reset();
        }
        if (truncated)
            comet::raise<comet::truncation_error>(rank_, "receive: a message of ", overflow, " bytes from rank ", result.source, " (tag ",
                                                  result.tag, ") does not fit the buffer of ", room, " bytes");
        return result;
    }

    std::optional<comet::status> iprobe(int source, int tag) {
        touch();
        if (source != comet::any_source) check_rank("iprobe", "source", source);
        if (tag != comet::any_tag) check_tag("iprobe", tag);
        world_.raise_if_stopped(rank_);
        if (is(defect::iprobe_singleton_short_circuit) && size_ == 1) return std::nullopt;
        std::lock_guard l(world_.lock());
        if (is(defect::iprobe_result_cached) && cache_.valid && cache_.source == source && cache_.tag == tag && cache_.arrivals == world_.arrivals(rank_))
            return cache_.result;
        std::optional<comet::status> s = world_.probe(rank_, source, tag);
        cache_ = {true, source, tag, world_.arrivals(rank_), s};
        if (s && is(defect::probe_slot_status_reused)) probe_slot_ = s;
        return s;
    }

    double now() {
        if (is(defect::now_cached_at_last_call)) return std::chrono::duration<double>(last_call_ - epoch_).count();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_).count();
    }

protected:
    struct send_options {
        bool synchronous = false;
        bool ack_lost = false;  ///< issend_self_ack_lost
        bool ready = false;
        int reported_tag = -2;  ///< send_status_stale_tag: the tag the status names (-2: the message's)
    };

    bool is(defect d) const noexcept { return world_.is(d); }

    /// Stamps the rank's last call into the transport (the cached clock of two defects).
    void touch() { last_call_ = std::chrono::steady_clock::now(); }

    [[noreturn]] void reject(std::string_view op, std::string_view what, long long value, std::string_view why) const {
        comet::raise<comet::invalid_argument>(rank_, op, ": ", what, " ", value, why);
    }
    void check_rank(std::string_view op, std::string_view what, int r) const {
        if (r < 0 || r >= size_) reject(op, what, r, " is outside 0.." + std::to_string(size_ - 1));
    }
    void check_tag(std::string_view op, int tag) const {
        if (tag < 0) reject(op, "tag", is(defect::error_tag_printed_unsigned) ? static_cast<long long>(static_cast<unsigned>(tag)) : tag, " is negative");
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
        latest_ = op;
        if (is(defect::empty_recv_completes_unmatched) && buffer.empty()) {
            op->result = {source, tag, 0};
            op->done = true;
            return request(std::move(op), &world_, rank_);
        }
        std::lock_guard l(world_.lock());
        world_.post(rank_, op);
        return request(std::move(op), &world_, rank_);
    }

    request start_send(int dest, int tag, comet::const_bytes data, const send_options& o) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->result = comet::status{dest, o.reported_tag == -2 ? tag : o.reported_tag, data.size()};
        message msg;
        msg.source = rank_;
        msg.tag = tag;
        msg.ready = o.ready;
        msg.copy.assign(data.begin(), data.end());
        if (o.synchronous) {
            if (!o.ack_lost) msg.synchronous = op;
        } else {
            op->done = true;
        }
        latest_ = op;
        last_send_ = op->result;
        std::lock_guard l(world_.lock());
        world_.send(rank_, dest, std::move(msg));
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
    std::chrono::steady_clock::time_point last_call_ = epoch_;  ///< now_cached_at_last_call, compute_busy_from_last_call
    std::weak_ptr<operation> latest_;                           ///< completed_request_slot_reused
    std::map<int, int> last_tag_;                               ///< send_status_stale_tag
    std::optional<comet::status> probe_slot_;                   ///< probe_slot_status_reused
    comet::status last_send_;                                   ///< wait_send_status_latest
    struct probe_cache {
        bool valid = false;
        int source = 0, tag = 0;
        std::uint64_t arrivals = 0;
        std::optional<comet::status> result;
    } cache_;  ///< iprobe_result_cached
};

/// The core and every optional member, each native.
class full_endpoint : public endpoint {
public:
    using endpoint::endpoint;

    void send(int dest, int tag, comet::const_bytes data) {
        touch();
        check_rank("send", "destination", dest);
        check_tag("send", tag);
        request r = start_send(dest, tag, data, {});
        finish(r);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes buffer) {
        touch();
        if (is(defect::recv_native_probe_then_any_tag) && source == comet::any_source && tag != comet::any_tag) {
            check_tag("recv", tag);
            for (unsigned polls = 1;; ++polls) {
                if (const std::optional<comet::status> p = iprobe(comet::any_source, tag)) {
                    request r = irecv(p->source, comet::any_tag, buffer);
                    return finish(r);
                }
                if (polls % 64 == 0) std::this_thread::yield();
            }
        }
        request r = irecv(source, tag, buffer);
        return finish(r);
    }
    comet::status wait(request& r) {
        const bool send = r.op_ && !r.op_->receive;
        comet::status s = finish(r);
        if (send && is(defect::wait_send_status_latest)) s = last_send_;
        return s;
    }
    void wait_all(std::span<request> rs) {
        std::size_t k = 0;
        for (request& r : rs) {
            if (is(defect::wait_all_batch_64) && k++ == 64) break;
            finish(r);
        }
    }

    void bsend(int dest, int tag, comet::const_bytes data) {
        touch();
        check_rank("bsend", "destination", dest);
        check_tag("bsend", tag);
        if (is(defect::bsend_large_cut) && data.size() > threshold) data = data.first(threshold);
        const bool leaked = is(defect::bsend_pool_leak_1mib) && bsent_ > (std::size_t{1} << 20);
        bsent_ += data.size();
        request r = start_send(dest, tag, data, {.synchronous = leaked});
        finish(r);
    }
    request issend(int dest, int tag, comet::const_bytes data) {
        touch();
        check_rank("issend", "destination", dest);
        check_tag("issend", tag);
        return start_send(dest, tag, data, {.synchronous = true, .ack_lost = is(defect::issend_self_ack_lost) && dest == rank_});
    }
    void ssend(int dest, int tag, comet::const_bytes data) {
        request r = issend(dest, tag, data);
        finish(r);
    }
    request irsend(int dest, int tag, comet::const_bytes data) {
        touch();
        check_rank("irsend", "destination", dest);
        check_tag("irsend", tag);
        return start_send(dest, tag, data, {.ready = true});
    }
    void rsend(int dest, int tag, comet::const_bytes data) {
        request r = irsend(dest, tag, data);
        finish(r);
    }
    comet::status sendrecv(int dest, int send_tag, comet::const_bytes out, int source, int recv_tag, comet::mutable_bytes in) {
        touch();
        if (is(defect::sendrecv_recv_room_of_send)) in = in.first(std::min(in.size(), out.size()));
        request r = start_receive(source, recv_tag, in);
        request s = isend(dest, send_tag, out);
        comet::status got = finish(r);
        finish(s);
        return got;
    }

    void barrier() {
        touch();
        world_.raise_if_stopped(rank_);
        if (is(defect::barrier_release_on_root_entry))
            world_.root_barrier(rank_);
        else
            world_.meet(rank_);
    }

    void broadcast(int root, comet::mutable_bytes data) {
        touch();
        check_rank("broadcast", "root", root);
        world_.slot(rank_) = data.data();
        world_.meet(rank_);
        const std::size_t n = data.size();
        const int relative = (rank_ - root + size_) % size_;
        const bool reached = !(is(defect::broadcast_tree_floor_pow2) && relative >= static_cast<int>(std::bit_floor(static_cast<unsigned>(size_))));
        if (rank_ != root && n > 0 && reached) std::memcpy(data.data(), world_.slot_of(root), n);
        world_.meet(rank_);
    }

    void allreduce_sum(std::span<double> values) { reduce(-1, values, [](double a, double b) { return a + b; }, kind::sum); }
    void allreduce_max(std::span<double> values) {
        if (is(defect::allreduce_max_by_magnitude))
            reduce(-1, values, [](double a, double b) { return std::fabs(b) > std::fabs(a) ? b : a; });
        else
            reduce(-1, values, [](double a, double b) { return std::max(a, b); });
    }
    void allreduce_min(std::span<double> values) { reduce(-1, values, [](double a, double b) { return std::min(a, b); }); }
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
        reduce(root, values, [](double a, double b) { return std::min(a, b); }, kind::rooted_min);
    }

    void gather(int root, comet::const_bytes mine, comet::mutable_bytes all) {
        touch();
        check_rank("gather", "root", root);
        world_.slot(rank_) = mine.data();
        world_.meet(rank_);
        const std::size_t n = mine.size();
        const auto take = [&](int r) {
            const std::size_t at = n * static_cast<std::size_t>(r);
            if (at + n <= all.size()) std::memcpy(all.data() + at, world_.slot_of(r), n);
        };
        if (rank_ == root && n > 0) {
            if (is(defect::gather_wrap_skips_rank0)) {
                take(root);
                for (int r = root + 1; r < size_; ++r) take(r);
                for (int r = 1; r < root; ++r) take(r);
            } else {
                for (int r = 0; r < size_; ++r) take(r);
            }
        }
        world_.meet(rank_);
    }

    void alltoall(comet::const_bytes out, comet::mutable_bytes in) {
        touch();
        world_.slot(rank_) = out.data();
        world_.meet(rank_);
        const std::size_t block = out.size() / static_cast<std::size_t>(size_);
        const auto take = [&](int r) {
            if (block > 0)
                std::memcpy(in.data() + block * static_cast<std::size_t>(r),
                            static_cast<const std::byte*>(world_.slot_of(r)) + block * static_cast<std::size_t>(rank_), block);
        };
        if (is(defect::alltoall_half_distance_missing)) {
            take(rank_);
            for (int k = 1; k <= (size_ - 1) / 2; ++k) {
                take((rank_ + k) % size_);
                take((rank_ - k + size_) % size_);
            }
        } else {
            for (int r = 0; r < size_; ++r) take(r);
        }
        world_.meet(rank_);
    }

    void compute(const comet::work& w) {
        if (is(defect::compute_busy_from_last_call) && w.kind == comet::work_kind::busy) {
            const auto until = last_call_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(std::max(0.0, w.seconds)));
            while (std::chrono::steady_clock::now() < until) {
            }
            return;
        }
        comet::perform(w);
    }
    bool clock_is_global() const { return true; }

    [[noreturn]] void abort(std::string_view message) {
        world_.stop();
        if (is(defect::abort_first_line_only)) message = message.substr(0, message.find('\n'));
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
        touch();
        world_.raise_if_stopped(rank_);
        std::lock_guard l(world_.lock());
        if (is(defect::progress_rematch_source_only)) world_.rematch(rank_);
    }

private:
    enum class kind { other, sum, rooted_sum, rooted_max, rooted_min };

    request start_collective(round::kind what, int root, comet::mutable_bytes data) {
        touch();
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        std::lock_guard l(world_.lock());
        world_.join(rank_, what, root, data, op);
        return request(std::move(op), &world_, rank_);
    }

    const double* values_of(int r) const { return static_cast<const double*>(world_.slot_of(r)); }

    /// Every rank combines in rank order 0..size-1, so an inexact sum has the same bits
    /// everywhere. `root` -1: every rank keeps the result; else only `root`.
    template <class Op>
    void reduce(int root, std::span<double> values, Op op, kind k = kind::other) {
        touch();
        world_.slot(rank_) = values.data();
        world_.meet(rank_);
        std::vector<double> result(values.begin(), values.end());
        for (std::size_t i = 0; i < values.size(); ++i) {
            double acc = values_of(0)[i];
            for (int r = 1; r < size_; ++r) acc = op(acc, values_of(r)[i]);
            if (k == kind::rooted_max && is(defect::reduce_max_ring_misses_predecessor)) {
                acc = values_of(root)[i];
                for (int j = 1; j < size_ - 1; ++j) acc = op(acc, values_of((root + j) % size_)[i]);
            }
            if (k == kind::sum && is(defect::allreduce_sum_chunk_seam) && i > 0 && i % 1024 == 0) acc = values[i];
            result[i] = acc;
        }
        // reduce_sum_tree_partials_left: an interior rank of the binomial tree keeps its subtree's sum.
        std::vector<double> partial;
        if (k == kind::rooted_sum && is(defect::reduce_sum_tree_partials_left) && rank_ != root) {
            const int relative = (rank_ - root + size_) % size_;
            const int end = std::min(relative + (relative & -relative), size_);
            if (end - relative > 1) {
                partial.assign(values.begin(), values.end());
                for (std::size_t i = 0; i < values.size(); ++i) {
                    double acc = values_of(rank_)[i];
                    for (int j = relative + 1; j < end; ++j) acc += values_of((j + root) % size_)[i];
                    partial[i] = acc;
                }
            }
        }
        world_.meet(rank_);
        if (root < 0 || root == rank_) std::copy(result.begin(), result.end(), values.begin());
        if (!partial.empty()) std::copy(partial.begin(), partial.end(), values.begin());
        if (k == kind::rooted_min && is(defect::reduce_min_rank0_keeps_result) && rank_ == 0 && root != 0)
            std::copy(result.begin(), result.end(), values.begin());
    }

    std::size_t bsent_ = 0;  ///< bsend_pool_leak_1mib
};

static_assert(comet::transport<endpoint>);
static_assert(!comet::buffered_send_transport<endpoint>);
static_assert(comet::buffering_transport<full_endpoint>);
static_assert(comet::synchronous_send_transport<full_endpoint>);
static_assert(comet::ready_send_transport<full_endpoint>);
static_assert(comet::sendrecv_transport<full_endpoint>);
static_assert(comet::nonblocking_collective_transport<full_endpoint>);
static_assert(comet::progress_transport<full_endpoint>);

}  // namespace held_out_6
