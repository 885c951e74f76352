// held_out/mailbox.hpp — the held-out transport: ranks are threads of one process sharing a
// world of mailboxes (world.hpp). `endpoint` is the eight members of the core and nothing more;
// `full_endpoint` adds the optional members a transport may offer natively. Each honours every
// rule of comet/core/concepts.hpp unless its world carries a defect (defects.hpp).
//
// Choices the concept leaves to the transport, made here the simple way:
//   - every send is buffered (copied when started), so an isend completes at once; the full
//     model says so by offering `bsend` (a buffering_transport);
//   - a receive whose request is dropped while pending is withdrawn (its buffer may be gone);
//   - a truncated message is consumed by the receive it matched, as under MPI;
//   - a rank raises `comet::stopped` at its next call once another rank has failed, so the
//     runner can join every thread.
#pragma once

#include "world.hpp"

#include <comet/core/concepts.hpp>
#include <comet/core/work.hpp>

#include <stdexcept>
#include <string>
#include <thread>

namespace held_out {

class endpoint {
public:
    class request {
    public:
        request() = default;
        request(request&& o) noexcept : op_(std::move(o.op_)), world_(o.world_), rank_(o.rank_) { keep_source(o); }
        request& operator=(request&& o) noexcept {
            if (this != &o) {
                release();
                op_ = std::move(o.op_);
                world_ = o.world_;
                rank_ = o.rank_;
                keep_source(o);
            }
            return *this;
        }
        ~request() { release(); }

    private:
        friend class endpoint;
        request(std::shared_ptr<operation> op, world* w, int rank) : op_(std::move(op)), world_(w), rank_(rank) {}
        // The defect of a handle written without its move: the source still holds the operation.
        void keep_source(request& o) noexcept {
            if (world_ && world_->is(defect::move_keeps_source)) o.op_ = op_;
        }
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

    endpoint(world& w, int rank) : world_(w), rank_(rank), size_(w.size()) {}

    int rank() const { return is(defect::duplicate_rank) && size_ == 4 && rank_ == 3 ? 2 : rank_; }
    int size() const { return is(defect::size_one_short) && size_ >= 3 ? size_ - 1 : size_; }

    request isend(int dest, int tag, comet::const_bytes data) {
        check_destination("isend", dest);
        check_send_tag("isend", tag);
        return start_send(dest, tag, data, is(defect::isend_waits_while_buffering) && data.size() > 64 * 1024);
    }

    request irecv(int source, int tag, comet::mutable_bytes buffer) {
        if (source != comet::any_source) check_rank("irecv", "source", source, is(defect::source_size_accepted) ? size_ + 1 : size_);
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
        if (!r.op_) {
            if (is(defect::default_request_pending)) return std::nullopt;
            return comet::status{};
        }
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        world_.tick(rank_);
        operation& op = *r.op_;
        if (!op.done) {
            const bool wildcard = op.receive && op.source == comet::any_source;
            if (is(defect::pending_any_source_completes) && wildcard) return comet::status{};
            if (!is(defect::test_blocks) && !(is(defect::test_blocks_any_source) && wildcard)) return std::nullopt;
            while (!op.done) {
                world_.raise_if_stopped(rank_);
                world_.changed().wait_for(l, std::chrono::milliseconds(5));
                world_.tick(rank_);
            }
        }
        const comet::status result = op.result;
        const bool truncated = op.truncated;
        const std::size_t overflow = op.overflow, room = op.buffer.size();
        l.unlock();
        if (truncated || !is(defect::completed_test_repeats)) r.op_.reset();
        if (truncated) {
            if (is(defect::truncation_wrong_type))
                comet::raise<comet::invalid_argument>(rank_, "receive: a message of ", overflow, " bytes from rank ",
                                                      result.source, " is longer than the buffer of ", room, " bytes");
            comet::raise<comet::truncation_error>(rank_, "receive: a message of ", overflow, " bytes from rank ", result.source,
                                                  " (tag ", result.tag, ") is longer than the buffer of ", room, " bytes");
        }
        return result;
    }

    std::optional<comet::status> iprobe(int source, int tag) {
        if (is(defect::iprobe_unchecked)) {
            if ((source != comet::any_source && (source < 0 || source >= size_)) || (tag != comet::any_tag && tag < 0))
                return std::nullopt;
        } else {
            if (source != comet::any_source) check_rank("iprobe", "source", source, size_);
            if (tag != comet::any_tag) check_tag("iprobe", tag);
        }
        world_.raise_if_stopped(rank_);
        std::unique_lock l(world_.lock());
        if (!is(defect::iprobe_does_not_progress)) world_.tick(rank_);
        std::optional<comet::status> s = world_.probe(rank_, source, tag);
        while (!s && is(defect::iprobe_blocks)) {
            world_.raise_if_stopped(rank_);
            world_.changed().wait_for(l, std::chrono::milliseconds(5));
            world_.tick(rank_);
            s = world_.probe(rank_, source, tag);
        }
        return s;
    }

    double now() {
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - world_.epoch()).count();
        if (is(defect::clock_not_global)) s += 0.25 * rank_;  // as if each rank counted from its own start
        if (is(defect::now_milliseconds)) s *= 1000.0;
        if (is(defect::now_steps_back) && ++now_calls_ % 500 == 0) s -= 0.001;
        return s;
    }

protected:
    bool is(defect d) const noexcept { return world_.is(d); }

    [[noreturn]] void reject(std::string_view op, std::string_view what, int value, std::string_view why) const {
        if (is(defect::wrong_exception_type) && what == "destination")
            throw std::out_of_range(std::string(op) + ": destination " + std::to_string(value) + std::string(why));
        comet::raise<comet::invalid_argument>(is(defect::error_without_rank) ? -1 : rank_, op, ": ", what, " ", value, why);
    }
    void check_rank(std::string_view op, std::string_view what, int r, int limit) const {
        if (r < 0 || r >= limit) reject(op, what, r, " is outside 0.." + std::to_string(size_ - 1));
    }
    void check_tag(std::string_view op, int tag) const {
        if (tag < 0) reject(op, "tag", tag, " is negative");
        if (is(defect::high_tags_rejected) && tag > 9999) reject(op, "tag", tag, " is above 9999");
    }
    void check_destination(std::string_view op, int dest) const {
        check_rank(op, "destination", dest, size_);
        if (is(defect::self_send_rejected) && dest == rank_) reject(op, "destination", dest, " is this rank itself");
    }
    void check_send_tag(std::string_view op, int tag) const {
        if (is(defect::negative_tag_accepted) && tag < 0) return;
        check_tag(op, tag);
    }

    /// Starts a send of `data` (checked by the caller); a synchronous one completes when matched.
    request start_send(int dest, int tag, comet::const_bytes data, bool synchronous) {
        world_.raise_if_stopped(rank_);
        auto op = std::make_shared<operation>();
        op->result = {is(defect::send_status_own_rank) ? rank_ : dest, tag, is(defect::send_status_size_zero) ? 0 : data.size()};
        message msg;
        msg.source = rank_;
        msg.tag = tag;
        if (is(defect::send_buffer_borrowed))
            msg.borrowed = data, msg.is_borrowed = true;
        else
            msg.copy.assign(data.begin(), data.end());
        if (synchronous)
            msg.synchronous = op;
        else
            op->done = true;
        std::lock_guard l(world_.lock());
        if (is(defect::self_send_duplicated) && dest == rank_) {
            message twin = msg;
            twin.synchronous.reset();
            world_.send(dest, std::move(twin));
        }
        world_.send(dest, std::move(msg));
        return request(std::move(op), &world_, rank_);
    }

    /// Completes `r` by polling `test`, as comet's portable wait does.
    comet::status finish(request& r) {
        for (unsigned polls = 1;; ++polls) {
            if (std::optional<comet::status> s = test(r)) return *s;
            if (polls % 64 == 0) std::this_thread::yield();
        }
    }

    world& world_;
    const int rank_;
    const int size_;
    std::uint64_t now_calls_ = 0;
};

/// The core and every optional member this test mutates, each native.
class full_endpoint : public endpoint {
public:
    using endpoint::endpoint;

    void bsend(int dest, int tag, comet::const_bytes data) {
        check_destination("bsend", dest);
        check_send_tag("bsend", tag);
        request r = start_send(dest, tag, data, is(defect::bsend_waits_large) && data.size() > 64 * 1024);
        finish(r);
    }
    request issend(int dest, int tag, comet::const_bytes data) {
        check_destination("issend", dest);
        check_send_tag("issend", tag);
        return start_send(dest, tag, data, !is(defect::issend_early));
    }
    void ssend(int dest, int tag, comet::const_bytes data) {
        check_destination("ssend", dest);
        check_send_tag("ssend", tag);
        request r = start_send(dest, tag, data, !is(defect::ssend_early));
        finish(r);
    }
    comet::status sendrecv(int dest, int send_tag, comet::const_bytes out, int source, int recv_tag, comet::mutable_bytes in) {
        if (is(defect::sendrecv_send_first)) {
            ssend(dest, send_tag, out);
            request r = irecv(source, recv_tag, in);
            return finish(r);
        }
        request r = irecv(source, recv_tag, in);
        request s = isend(dest, send_tag, out);
        const comet::status got = finish(r);
        const comet::status sent = finish(s);
        return is(defect::sendrecv_send_status) ? sent : got;
    }

    void barrier() {
        world_.raise_if_stopped(rank_);
        if (is(defect::barrier_early))
            world_.leaky_meet(rank_, ++barriers_);
        else
            world_.meet(rank_);
    }

    void broadcast(int root, comet::mutable_bytes data) {
        check_rank("broadcast", "root", root, size_);
        const int from = is(defect::broadcast_from_zero) ? 0 : root;
        world_.slot(rank_) = data.data();
        world_.meet(rank_);
        std::size_t n = data.size();
        if (is(defect::broadcast_caps_64k)) n = std::min<std::size_t>(n, 64 * 1024);
        if (rank_ != from && n > 0) std::memcpy(data.data(), world_.slot_of(from), n);
        world_.meet(rank_);
    }

    void allreduce_sum(std::span<double> values) {
        allreduce(values, [](double a, double b) { return a + b; }, is(defect::allreduce_sum_order) ? rank_ : 0, false);
    }
    void allreduce_max(std::span<double> values) {
        allreduce(values, [](double a, double b) { return std::max(a, b); }, 0, false);
    }
    void allreduce_min(std::span<double> values) {
        allreduce(values, [](double a, double b) { return std::min(a, b); }, 0, is(defect::allreduce_min_skips_rank_0));
    }

    void gather(int root, comet::const_bytes mine, comet::mutable_bytes all) {
        check_rank("gather", "root", root, size_);
        world_.slot(rank_) = mine.data();
        world_.meet(rank_);
        const std::size_t n = mine.size();
        if (rank_ == root && n > 0)
            for (int r = 0; r < size_; ++r) {
                const int from = is(defect::gather_reversed) ? size_ - 1 - r : r;
                std::memcpy(all.data() + n * static_cast<std::size_t>(r), world_.slot_of(from), n);
            }
        world_.meet(rank_);
    }

    void compute(const comet::work& w) {
        if (!is(defect::compute_skips)) comet::perform(w);
    }
    /// Every rank reads one steady clock from one epoch.
    bool clock_is_global() const { return true; }

    [[noreturn]] void abort(std::string_view message) {
        world_.stop();
        comet::raise<comet::aborted>(is(defect::abort_unnamed) ? -1 : rank_, message);
    }

private:
    /// Every rank combines the values in the same rank order (from `first` on), so an inexact
    /// sum has the same bits on every rank, unless `first` differs between ranks.
    template <class Op>
    void allreduce(std::span<double> values, Op op, int first, bool skip_rank_0) {
        world_.slot(rank_) = values.data();
        world_.meet(rank_);
        std::vector<double> result(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            bool any = false;
            for (int k = 0; k < size_; ++k) {
                const int r = (first + k) % size_;
                if (skip_rank_0 && r == 0 && size_ > 1) continue;
                const double x = static_cast<const double*>(world_.slot_of(r))[i];
                result[i] = any ? op(result[i], x) : x;
                any = true;
            }
        }
        world_.meet(rank_);
        std::copy(result.begin(), result.end(), values.begin());
    }

    std::uint64_t barriers_ = 0;
};

static_assert(comet::transport<endpoint>);
static_assert(!comet::buffered_send_transport<endpoint>);
static_assert(comet::buffering_transport<full_endpoint>);
static_assert(comet::synchronous_send_transport<full_endpoint>);
static_assert(comet::sendrecv_transport<full_endpoint>);

}  // namespace held_out
