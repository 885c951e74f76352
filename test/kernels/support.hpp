// Shared by the kernel tests: the threads transport and a quick configuration.
#pragma once

#include <comet/kernels/transfer.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <string>

namespace transfer_test {

using comet::threads::run;
using comet::threads::transport;

using comet_test::mentions;

inline const comet::kernels::transfer_config quick{.sizes = {0, 8, 100, 5000}, .sampling = comet::fixed_sampling(2, 20)};

}  // namespace transfer_test

// ---- added for the collective, contention and overlap kernel tests ----

#include <comet/core/concepts.hpp>
#include <comet/timing/measure.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace kernel_counting {

/// What a rank did through a `counting_transport`. The sampling engine's own messages (its
/// decisions, sent on `comet::detail::measure_tag`) are counted apart from the kernel's, so a
/// test can check each against its own rule.
struct counts {
    std::size_t sends = 0, recvs = 0;    ///< the kernel's blocking send (and bsend) / recv calls
    std::size_t isends = 0, irecvs = 0;  ///< nonblocking ones
    std::size_t engine_sends = 0, engine_recvs = 0;  ///< the sampling engine's sends / recvs
    std::size_t probes = 0, probe_hits = 0;
    std::size_t barriers = 0, broadcasts = 0, allreduces = 0;
    std::size_t computes = 0;            ///< compute calls, but for busy work
    /// compute calls of busy work: on a shared clock the sampling engine waits for the moment a
    /// sample starts with them (timing/measure.hpp), as often as it had to wait
    std::size_t busy_computes = 0;
    std::size_t daxpy_elements = 0;      ///< Σ length of the DAXPYs computed
    /// Every message, the kernel's and the engine's.
    std::size_t messages_sent() const noexcept { return sends + isends + engine_sends; }
    std::size_t messages_received() const noexcept { return recvs + irecvs + engine_recvs; }
};

/// The decisions the sampling engine (timing/measure.hpp) sends from the decider to each other
/// rank taking part, for `points` points under `comet::fixed_sampling(samples, iterations)`:
///   1        the clock's step (min_sample_seconds is 0: the decider reads its clock and shares
///            what it found, so every rank computes the same minimum sample duration);
///   + points one decision per calibration run: with fixed iterations and no warm-up time the
///            first run of each point is already "calibrated and warm", so one run per point;
///   + points × samples  the "go" before every sample (the ranks start each sample together);
///   + the stop decisions: in round_robin (and shuffle) one per round (which points stay open),
///            and every point closes after `samples` rounds; in order none one after every
///            sample of every point.
/// Each decision is one message per receiving rank (a send on the decider, a recv elsewhere),
/// or one allreduce of the group when every rank takes part. Every decision is answered: the
/// receiving rank sends the decider an empty message back, so the decider knows it is ready
/// (after a "go", ready for the start time the "go" named). The counting decorator below counts
/// no disturbances (it has no `disturbances()`), so the engine exchanges none after a sample.
constexpr std::size_t engine_decisions(std::size_t points, std::size_t samples,
                                       comet::interleave order = comet::interleave::round_robin) {
    return 1 + points + points * samples + (order == comet::interleave::none ? points * samples : samples);
}

/// How often the body of one point runs on every rank taking part under
/// `comet::fixed_sampling(samples, iterations)` with warm caches: the calibration run of
/// `iterations`, then before each sample one untimed iteration (the point's own data warm) and
/// the sample's `iterations`.
constexpr std::size_t body_runs(std::size_t samples, std::size_t iterations) { return iterations + samples * (1 + iterations); }

/// A transport decorator that forwards every call to the transport it wraps and counts it
/// (a rank's own counters: no sharing between threads).
template <comet::transport Inner>
class counting_transport {
public:
    using request = typename Inner::request;
    explicit counting_transport(Inner& t) : t_(&t) {}

    counts c;

    int rank() const { return t_->rank(); }
    int size() const { return t_->size(); }
    void send(int d, int tag, comet::const_bytes b) {
        ++(tag == comet::detail::measure_tag ? c.engine_sends : c.sends);
        t_->send(d, tag, b);
    }
    /// Counted as a blocking send: kernels use it where both ranks send first.
    void bsend(int d, int tag, comet::const_bytes b)
        requires comet::buffered_send_transport<Inner>
    {
        ++c.sends;
        t_->bsend(d, tag, b);
    }
    comet::status recv(int s, int tag, comet::mutable_bytes b) {
        ++(tag == comet::detail::measure_tag ? c.engine_recvs : c.recvs);
        return t_->recv(s, tag, b);
    }
    request isend(int d, int tag, comet::const_bytes b) { ++c.isends; return t_->isend(d, tag, b); }
    request irecv(int s, int tag, comet::mutable_bytes b) { ++c.irecvs; return t_->irecv(s, tag, b); }
    comet::status wait(request& r) { return t_->wait(r); }
    std::optional<comet::status> test(request& r) { return t_->test(r); }
    void wait_all(std::span<request> rs) { t_->wait_all(rs); }
    std::optional<comet::status> iprobe(int s, int tag) {
        ++c.probes;
        auto st = t_->iprobe(s, tag);
        if (st) ++c.probe_hits;
        return st;
    }
    void barrier() { ++c.barriers; t_->barrier(); }
    void broadcast(int root, comet::mutable_bytes b) { ++c.broadcasts; t_->broadcast(root, b); }
    void allreduce_sum(std::span<double> v) { ++c.allreduces; t_->allreduce_sum(v); }
    double now() { return t_->now(); }
    bool clock_is_global() const { return t_->clock_is_global(); }
    void compute(const comet::work& w) {
        ++(w.kind == comet::work_kind::busy ? c.busy_computes : c.computes);
        if (w.kind == comet::work_kind::daxpy) c.daxpy_elements += w.length;
        t_->compute(w);
    }
    [[noreturn]] void abort(std::string_view m) { t_->abort(m); }

private:
    Inner* t_;
};

}  // namespace kernel_counting

// ---- added for the matrix kernel tests (test_matrix_*.cpp) ----

#include <comet/kernels/matrix/matrix.hpp>

#include <vector>

namespace matrix_test {

using comet::threads::run;
using comet::threads::transport;
using comet_test::mentions;

/// Node counts the thesis' mesh allows (squares and twice squares), up to 18.
inline const std::vector<int> mesh_sizes{1, 2, 4, 8, 9, 16, 18};

/// A quick matrix kernel configuration: block sizes 1, 2 and 5, a few operations per loop:
/// fixed_sampling(2, 3) runs 3 untimed operations and 2 samples of 3, each after one untimed
/// operation, per point: 11 in all (odd, so a shift or transpose that undid itself would not
/// verify).
inline const comet::kernels::matrix_config quick{.dims = {1, 2, 5}, .sampling = comet::fixed_sampling(2, 3)};

/// Which received message a `corrupting_transport` damages.
struct corruption {
    int rank = 0;                    ///< the receiving rank
    int source = comet::any_source;  ///< from whom (any_source: anyone)
    int tag = comet::any_tag;        ///< with which tag (any_tag: any)
    std::size_t nth = 1;             ///< the nth such message this rank receives (1: the first)
    std::size_t byte = 0;            ///< which byte of it
    std::byte mask{0x01};            ///< XORed into that byte: 0x01 is the lowest mantissa bit of a
                                     ///< little-endian double, a change of one unit in the last place
};

/// A transport decorator that flips bits in one received message (the "faulty" decorator of
/// SPEC 3, reduced to what the matrix tests need) and forwards everything else. `flips` counts
/// the messages it damaged (0 or 1).
template <comet::transport Inner>
class corrupting_transport {
public:
    struct request {
        typename Inner::request inner;
        comet::mutable_bytes buffer;
        bool receive = false;
    };

    corrupting_transport(Inner& t, corruption c) : t_(&t), c_(c) {}

    std::size_t flips = 0;

    int rank() const { return t_->rank(); }
    int size() const { return t_->size(); }
    void send(int d, int tag, comet::const_bytes b) { t_->send(d, tag, b); }
    comet::status recv(int s, int tag, comet::mutable_bytes b) {
        const comet::status st = t_->recv(s, tag, b);
        received(st, b);
        return st;
    }
    request isend(int d, int tag, comet::const_bytes b) { return {t_->isend(d, tag, b), {}, false}; }
    request irecv(int s, int tag, comet::mutable_bytes b) { return {t_->irecv(s, tag, b), b, true}; }
    comet::status wait(request& r) {
        const comet::status st = t_->wait(r.inner);
        if (std::exchange(r.receive, false)) received(st, r.buffer);
        return st;
    }
    std::optional<comet::status> test(request& r) {
        auto st = t_->test(r.inner);
        if (st && std::exchange(r.receive, false)) received(*st, r.buffer);
        return st;
    }
    void wait_all(std::span<request> rs) {
        for (auto& r : rs) wait(r);
    }
    std::optional<comet::status> iprobe(int s, int tag) { return t_->iprobe(s, tag); }
    void barrier() { t_->barrier(); }
    void broadcast(int root, comet::mutable_bytes b) { t_->broadcast(root, b); }
    void allreduce_sum(std::span<double> v) { t_->allreduce_sum(v); }
    double now() { return t_->now(); }
    bool clock_is_global() const { return t_->clock_is_global(); }
    void compute(const comet::work& w) { t_->compute(w); }
    [[noreturn]] void abort(std::string_view m) { t_->abort(m); }

private:
    void received(const comet::status& st, comet::mutable_bytes b) {
        if (t_->rank() != c_.rank) return;
        if (c_.source != comet::any_source && st.source != c_.source) return;
        if (c_.tag != comet::any_tag && st.tag != c_.tag) return;
        if (++seen_ != c_.nth || c_.byte >= st.size) return;
        b[c_.byte] ^= c_.mask;
        ++flips;
    }

    Inner* t_;
    corruption c_;
    std::size_t seen_ = 0;
};

static_assert(comet::transport<corrupting_transport<comet::threads::transport>>);

/// Runs `f` (in the main thread); an exception fails the test case, saying what it was
/// (BOOST_CHECK_NO_THROW does not).
template <class F>
void check_no_throw(F&& f) {
    try {
        f();
    } catch (const std::exception& e) {
        BOOST_ERROR("unexpected exception: " << e.what());
    }
}

}  // namespace matrix_test
