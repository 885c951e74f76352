// comet/kernels/nbc.hpp — the kernel `nbc`: what a nonblocking collective costs the CPU that starts
// it and how far it progresses behind a computation (Hoefler, Schneider, Lumsdaine, seed 002,
// section 4, Listing 6 and figures 10–11; SPEC 7.4).
//
//   comet::result_set r = comet::kernels::nbc(t, {.operations = {comet::kernels::nbc_operation::ibcast},
//                                                 .sizes = {65536}});
//
// For each operation, size and implementation, every figure taken by the window-based scheme
// (timing/window.hpp: all ranks start each measurement at one moment of the global clock):
//
//   blocking  T_b: the operation started and at once waited for (`method` blocking); the slowest
//             rank's time. Everything below computes for T_b (its median), as the seed does.
//   time      time-based overhead: t_init (the start call), then computation of T_b seconds
//             (`compute(work::busy)`), then t_wait (the wait call); overhead = t_init + t_test +
//             t_wait, where t_test is the time spent in progression calls during the computation.
//   work      work-based overhead: a workload λ (`work::flops`) calibrated to take T_b on every
//             rank (the largest any rank needs), timed whole: t_ov from the start call to the end
//             of the wait; overhead = t_ov − t_λ (what λ alone takes on this rank, measured before).
//             A progress thread that steals the computing core shows here and not in `time`.
//
// Progression (`progression`, `interval`) during the computation:
//   none    nothing: the collective advances only as far as the transport takes it by itself;
//   test    the seed's black-box test: N = ceil(size / interval) + 1 test calls, one at the start
//           of the computation, one at its end and the others spread evenly between;
//   thread  a progress thread (nbc/progress_thread.hpp) advances it, where the transport may be
//           called from a second thread (`thread_serialized`; on MPI where the library provided
//           MPI_THREAD_SERIALIZED, `allows_second_thread`); resuming and pausing the thread
//           count as t_test. On a simulator (one CPU a node, no threads:
//           `time_sliced_transport`) the thread is modelled as its node's scheduler would run
//           it: the computation in slices of `thread_quantum`, the thread's progress call after
//           each, its time taken from the computation's CPU and not counted in t_test (value
//           `thread`: "os_thread" or "time_sliced", with `thread_quantum` and `slices`).
//
// A sample is one valid measurement's overhead of the slowest rank (largest overhead; a
// work-based one below zero is kept marked and out of every figure); its t_init, t_test and
// t_wait are reported as medians over the valid measurements (`t_init`, ...), beside
// `blocking` (T_b), `compute` (the computation's length), `hidden` (1 − overhead / T_b within
// [0, 1]: the fraction of the blocking time the computation hid; flagged when the overhead
// exceeds T_b) and `tests` (N), all of them values of the record.
//
// Validity (SPEC 5): T_b is the median of the valid blocking measurements (timing/window.hpp),
// and everything after it is sized from it — the computation's length, the workload. When T_b's
// point is flagged (its windows kept failing), every record of that operation, size and
// implementation is flagged as a whole, with the reason, and its `hidden` too.
//
// Implementations (`implementation`): `schedule` runs comet's schedule engine (nbc/engine.hpp)
// from a persistent schedule built once per point, outside every timing (as LibNBC caches its
// schedules); `native` the transport's own (MPI_Ibarrier, MPI_Ibcast, MPI_Iallreduce) where it
// has it. `algorithm` names the schedule ("binomial", "recursive_doubling", ...; "native").
//
// Operations: ibarrier (one point, size 0), ibcast (`size` bytes from `root`), iallreduce (`size`
// / 8 doubles summed), ialltoall (`size` bytes to every rank from every rank), igather (`size`
// bytes from every rank onto `root`). Buffers hold zeros (a sum of zeros stays zero); results
// are verified in test/nbc, not here.
#pragma once

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_NBC

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/work.hpp>
#include <comet/nbc/engine.hpp>
#include <comet/nbc/progress_thread.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>
#include <comet/timing/global_clock.hpp>
#include <comet/timing/window.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace comet::kernels {

/// The nonblocking collectives the kernel measures.
enum class nbc_operation : unsigned char { ibarrier, ibcast, iallreduce, ialltoall, igather };

inline constexpr std::array<nbc_operation, 5> all_nbc_operations{nbc_operation::ibarrier, nbc_operation::ibcast,
                                                                nbc_operation::iallreduce, nbc_operation::ialltoall,
                                                                nbc_operation::igather};

constexpr std::string_view to_string(nbc_operation o) noexcept {
    switch (o) {
    case nbc_operation::ibarrier: return "ibarrier";
    case nbc_operation::ibcast: return "ibcast";
    case nbc_operation::iallreduce: return "iallreduce";
    case nbc_operation::ialltoall: return "ialltoall";
    case nbc_operation::igather: return "igather";
    }
    return "?";
}

COMET_DECL std::optional<nbc_operation> parse_nbc_operation(std::string_view name);

/// How the collective is advanced during the computation.
enum class progression : unsigned char { none, test, thread };

constexpr std::string_view to_string(progression p) noexcept {
    return p == progression::none ? "none" : p == progression::test ? "test" : "thread";
}

COMET_DECL std::optional<progression> parse_progression(std::string_view name);

/// How the overhead is measured.
enum class overhead_method : unsigned char { time, work };

constexpr std::string_view to_string(overhead_method m) noexcept { return m == overhead_method::time ? "time" : "work"; }

/// Configuration of `nbc`. All ranks pass the same values (@pre).
struct nbc_config {
    std::vector<nbc_operation> operations = {nbc_operation::ibcast, nbc_operation::iallreduce};
    /// Bytes (iallreduce: a multiple of 8; ialltoall and igather: per rank).
    std::vector<std::size_t> sizes = {8, 4096, 65536};
    /// Empty: the schedule engine, and the transport's own where it has the operation. Named
    /// explicitly, an implementation the transport lacks gets a record saying "not supported".
    std::vector<nbc::implementation> implementations = {};
    /// Empty: none, test, and thread where the transport allows a progress thread. Named
    /// explicitly, thread on a transport that does not gets a "not supported" record.
    std::vector<progression> progressions = {};
    /// On a transport whose nodes have one CPU and no threads (the simulators,
    /// time_sliced_transport), the scheduler's time slice of a modelled progress thread: the
    /// computation runs in slices of about this many seconds, the thread's progress call after
    /// each (an assumption, a scheduler's slice: not a figure of the iPSC/860).
    double thread_quantum = 100e-6;
    /// The test progression's intervals (bytes per test call), one point each.
    std::vector<std::size_t> intervals = {1024, 4096, 16384, 65536};
    std::vector<overhead_method> methods = {overhead_method::time, overhead_method::work};
    /// The root of ibcast and igather.
    int root = 0;
    /// How each point is measured (timing/window.hpp); `designated` is set to `root`.
    window_config window = {};
    /// How the global clock is synchronised where the transport's clock is not global.
    comet::sync_config sync = {};
    /// Where the schedules switch algorithm.
    nbc::schedule_options schedules = {};
    /// Called on rank 0 after each record is made (for progress displays).
    std::function<void(const record&)> on_point = {};
};

namespace detail::nbc_kernel {

/// The progressions a run measures: those asked for, or by default every one the transport
/// allows (the thread only where it `has_thread`: a thread_serialized transport).
COMET_DECL std::vector<progression> progressions(const nbc_config& c, bool has_thread);

COMET_DECL bool has_native(nbc_operation o, bool transport_has);

template <transport T>
std::vector<nbc::implementation> implementations(const nbc_config& c, nbc_operation o) {
    if (!c.implementations.empty()) return c.implementations;
    std::vector<nbc::implementation> out{nbc::implementation::schedule};
    if (has_native(o, nbc::engine<T>::has_native())) out.insert(out.begin(), nbc::implementation::native);
    return out;
}

/// The (progression, interval) pairs of a point: one per interval for test, interval 0 else.
COMET_DECL std::vector<std::pair<progression, std::size_t>> curves(const std::vector<progression>& ps, const nbc_config& c);

template <transport T>
void check(const T& t, const nbc_config& c) {
    const int me = t.rank(), p = t.size();
    if (c.operations.empty()) raise<invalid_argument>(me, "nbc: no operation to measure");
    if (c.methods.empty()) raise<invalid_argument>(me, "nbc: no method (time, work) asked for");
    if (c.sizes.empty()) raise<invalid_argument>(me, "nbc: no size to measure");
    if (c.root < 0 || c.root >= p) raise<invalid_argument>(me, "nbc: root ", c.root, " is outside 0..", p - 1);
    for (std::size_t i : c.intervals)
        if (i == 0) raise<invalid_argument>(me, "nbc: test interval of 0 bytes (it must be at least 1)");
    if (std::find(c.progressions.begin(), c.progressions.end(), progression::test) != c.progressions.end() && c.intervals.empty())
        raise<invalid_argument>(me, "nbc: test progression asked for without an interval");
    if (c.schedules.segment == 0) raise<invalid_argument>(me, "nbc: pipeline segment of 0 bytes");
    if (!(c.thread_quantum >= 1e-7) || !std::isfinite(c.thread_quantum))
        raise<invalid_argument>(me, "nbc: thread_quantum = ", c.thread_quantum, " s; a time slice is at least 1e-7 s");
    window_config w = c.window;
    w.designated = c.root;
    comet::detail::window::check(me, p, "nbc", w);
    const auto np = static_cast<std::size_t>(p);
    for (auto o : c.operations)
        for (std::size_t n : c.sizes) {
            if (o == nbc_operation::ibarrier) continue;
            if (o == nbc_operation::iallreduce && n % sizeof(double) != 0)
                raise<invalid_argument>(me, "nbc: iallreduce size ", n, " is not a whole number of doubles (8 bytes)");
            const bool per_rank = o == nbc_operation::ialltoall || o == nbc_operation::igather;
            if (n > max_message_size || (per_rank && n > max_message_size / np))
                raise<invalid_argument>(me, "nbc: ", to_string(o), " size ", n, per_rank ? " x " : "",
                                        per_rank ? std::to_string(p) + " ranks" : std::string(), " exceeds the ", max_message_size,
                                        "-byte limit");
        }
}

/// One rank's buffers for an operation of `n` bytes.
struct buffers {
    std::vector<std::byte> data, out, in;
    std::vector<double> values;
};

/// How one operation is started: a persistent schedule, or the transport's own call.
template <transport T>
class starter {
public:
    starter(nbc::engine<T>& e, nbc_operation o, std::size_t n, int root, bool native, const nbc::schedule_options& so)
        : engine_(e), o_(o), root_(root), native_(native) {
        T& t = e.transport();
        const int me = t.rank(), p = t.size();
        const auto np = static_cast<std::size_t>(p);
        switch (o) {
        case nbc_operation::ibarrier: break;
        case nbc_operation::ibcast: b_.data.assign(n, std::byte{0}); break;
        case nbc_operation::iallreduce: b_.values.assign(n / sizeof(double), 0.0); break;
        case nbc_operation::ialltoall:
            b_.out.assign(n * np, std::byte{0});
            b_.in.assign(n * np, std::byte{0});
            break;
        case nbc_operation::igather:
            b_.data.assign(n, std::byte{0});
            b_.in.assign(me == root ? n * np : 0, std::byte{0});
            break;
        }
        if (native) return;
        switch (o) {
        case nbc_operation::ibarrier: plan_ = nbc::barrier_schedule(me, p); break;
        case nbc_operation::ibcast: plan_ = nbc::broadcast_schedule(me, p, root, b_.data, so); break;
        case nbc_operation::iallreduce: plan_ = nbc::allreduce_schedule(me, p, b_.values, nbc::reduce_op::sum, so); break;
        case nbc_operation::ialltoall: plan_ = nbc::alltoall_schedule(me, p, b_.out, b_.in); break;
        case nbc_operation::igather: plan_ = nbc::gather_schedule(me, p, root, b_.data, b_.in); break;
        }
    }

    nbc::request<T> operator()() {
        if (!native_) return engine_.start(plan_);
        if constexpr (nonblocking_collective_transport<T>) {
            switch (o_) {
            case nbc_operation::ibarrier: return engine_.ibarrier();
            case nbc_operation::ibcast: return engine_.ibroadcast(root_, b_.data);
            case nbc_operation::iallreduce: return engine_.iallreduce(b_.values);
            default: break;
            }
        }
        raise<not_supported>(engine_.transport().rank(), "nbc: no native ", to_string(o_));
    }

    std::string algorithm() const { return native_ ? "native" : plan_.algorithm(); }

private:
    nbc::engine<T>& engine_;
    nbc_operation o_;
    int root_;
    bool native_;
    buffers b_;
    nbc::schedule plan_;
};

/// A workload of `work::flops` that takes at least `seconds` on every rank (the largest any rank
/// needs: the seed's step 3), found by doubling, then scaled to the time.
template <transport T>
std::size_t calibrate_workload(T& t, double seconds) {
    const auto timed = [&](std::size_t n) {
        const double s = t.now();
        ops::compute(t, work::flops(n));
        return t.now() - s;
    };
    std::size_t n = 64;
    double took = timed(n);
    while (took < seconds / 2 && n < (std::size_t{1} << 40)) {
        n *= 2;
        took = timed(n);
    }
    const double scaled = took > 0 ? static_cast<double>(n) * seconds / took : static_cast<double>(n);
    std::array<double, 1> lambda{std::ceil(std::max(scaled, 1.0))};
    ops::allreduce_max(t, std::span<double>(lambda));
    return static_cast<std::size_t>(lambda[0]);
}

/// What one rank logged of one measurement.
struct parts {
    double init = 0, test = 0, wait = 0, total = 0;
};

/// The median, 0 for no values (a point whose every measurement overran says so in a note).
COMET_DECL double median_of(std::span<const double> v);

}  // namespace detail::nbc_kernel

/// The points (records) a run measures on a transport that offers a progress thread
/// (`thread`) and native nonblocking collectives (`native`) or not: the blocking point and one
/// per method and progression curve, per operation, size and implementation.
COMET_DECL std::size_t nbc_points(const nbc_config& c, bool thread = false, bool native = false);

/// The points a run on a transport of type `T` measures.
template <transport T>
std::size_t nbc_points(const nbc_config& c) {
    return nbc_points(c, thread_serialized_transport<T> || time_sliced_transport<T>, nbc::engine<T>::has_native());
}

/// Measures each nonblocking collective of `cfg.operations` at each size and implementation:
/// the blocking time T_b, and the time- and work-based overhead under each progression (see the
/// top of this header). Returns on rank 0 a record per point; other ranks return an empty set.
/// @pre every rank calls it with the same config.
/// @throws invalid_argument (on every rank, before any message) for an empty list of operations,
///         sizes or methods, a root out of range, a test interval of 0, an iallreduce size that
///         is not whole doubles, a size over the message limit, or a window configuration
///         `measure_windowed` refuses.
/// @code
///   auto r = comet::kernels::nbc(t, {.operations = {comet::kernels::nbc_operation::iallreduce}, .sizes = {8, 65536}});
/// @endcode
template <transport T>
result_set nbc(T& t, const nbc_config& cfg = {}) {
    using namespace detail::nbc_kernel;
    check(t, cfg);
    const int me = t.rank(), p = t.size();
    window_config w = cfg.window;
    w.designated = cfg.root;
    global_clock<T> g(t, cfg.sync);
    // Whether a progress thread may call the transport: known at compile time but for MPI,
    // whose thread level is MPI_Init_thread's answer (the same on every rank of a job).
    const bool threads_allowed = allows_second_thread(t);
    // On a simulator the thread is modelled in time slices (`thread_quantum`).
    const bool sliced = !threads_allowed && time_sliced_transport<T>;
    const std::vector<progression> progs = detail::nbc_kernel::progressions(cfg, threads_allowed || sliced);
    const auto point_curves = curves(progs, cfg);

    result_set results;
    const auto emit = [&](record&& rec) {
        if (cfg.on_point) cfg.on_point(rec);
        results.records.push_back(std::move(rec));
    };
    const auto base = [&](nbc_operation o, std::size_t n, nbc::implementation impl, std::string_view algorithm, std::string_view method) {
        record rec{"nbc", params{}, {}};
        rec.params.set("operation", std::string(to_string(o)))
            .set("size", n)
            .set("nodes", p)
            .set("implementation", std::string(nbc::to_string(impl)))
            .set("algorithm", std::string(algorithm))
            .set("method", std::string(method));
        return rec;
    };
    const auto describe = [&](record& rec, const windowed_point& m) {
        rec.params.set("scheme", std::string(to_string(g.scheme())));
        describe_window(rec, m, w);
    };
    bool interrupted = false;  // a stop request ended a point: the kernel ends there

    for (auto o : cfg.operations) {
        const std::vector<std::size_t> sizes = o == nbc_operation::ibarrier ? std::vector<std::size_t>{0} : cfg.sizes;
        for (std::size_t n : sizes) {
            for (auto impl : implementations<T>(cfg, o)) {
                const bool native = impl == nbc::implementation::native;
                if (native && !has_native(o, nbc::engine<T>::has_native())) {
                    if (me == 0) {
                        record rec = base(o, n, impl, "native", "blocking");
                        rec.notes.push_back("not supported: the transport has no nonblocking " + std::string(to_string(o)));
                        emit(std::move(rec));
                    }
                    continue;
                }
                nbc::engine<T> e(t, {.prefer_native = native, .schedules = cfg.schedules});
                starter<T> start(e, o, n, cfg.root, native, cfg.schedules);
                const std::string algorithm = start.algorithm();

                // T_b: started and at once waited for, the slowest rank's time, over the valid
                // measurements. Everything after is sized from it: when its point is flagged (its
                // windows kept failing), so is every figure of this operation, size and
                // implementation, with the reason.
                windowed_point blocking = measure_windowed(t, g, w, window_measure::window, [&] {
                    nbc::request<T> r = start();
                    e.wait(r);
                });
                std::string tb_flag;    // on rank 0: why T_b is not to be trusted ("" when it is)
                std::string tb_unsure;  // on rank 0: why T_b's median is flagged (its samples disagree)
                std::array<double, 1> tb{0.0};
                if (me == 0) {
                    record rec = base(o, n, impl, algorithm, "blocking");
                    describe(rec, blocking);
                    rec.samples = blocking.samples[static_cast<std::size_t>(rank_reduction::max)];
                    tb[0] = median_of(rec.samples);
                    if (!rec.samples.empty()) rec.values.set("blocking", tb[0]);
                    if (const flag* f = find_flag(rec.flags, "point")) tb_flag = "T_b, which the computation was sized from, is flagged: " + f->why;
                    // A T_b whose samples disagree as a whole (stats/validity.hpp, "statistics")
                    // is a median to read with care: the share hidden, a ratio to it, is flagged
                    // with it. The overhead itself is measured on its own and stays as it is.
                    const assessment a = assess(rec);
                    if (const flag* f = find_flag(a.flags, "statistics"); f && tb_flag.empty())
                        tb_unsure = "T_b is flagged: " + f->why;
                    emit(std::move(rec));
                }
                ops::broadcast(t, 0, std::as_writable_bytes(std::span(tb)));
                const double t_b = tb[0];
                if (blocking.interrupted) {
                    interrupted = true;
                    break;
                }

                // The workload of the work-based method, and what it takes alone on this rank.
                const bool by_work = std::find(cfg.methods.begin(), cfg.methods.end(), overhead_method::work) != cfg.methods.end();
                const std::size_t lambda = by_work ? calibrate_workload(t, t_b) : 0;
                double t_lambda = 0.0;
                if (by_work) {
                    std::vector<double> alone;
                    for (int i = 0; i < 5; ++i) {
                        const double s = t.now();
                        ops::compute(t, work::flops(lambda));
                        alone.push_back(t.now() - s);
                    }
                    t_lambda = median_of(alone);
                }

                for (auto method : cfg.methods) {
                    for (const auto& curve : point_curves) {
                        // Named copies, not structured bindings: lambdas below capture them
                        // (which clang before 16 refuses for bindings).
                        const auto prog = curve.first;
                        const auto interval = curve.second;
                        const auto name_curve = [&] {
                            return prog == progression::test ? "test every " + std::to_string(interval) + " B" : std::string(to_string(prog));
                        };
                        if (prog == progression::thread && !threads_allowed && !sliced) {
                            if (me == 0) {
                                record rec = base(o, n, impl, algorithm, to_string(method));
                                rec.params.set("progression", std::string(to_string(prog))).set("interval", 0);
                                rec.values.set("curve", name_curve());
                                rec.notes.push_back(thread_serialized_transport<T>
                                                        ? "not supported: MPI provided a thread level below MPI_THREAD_SERIALIZED"
                                                        : "not supported: the transport cannot be called from a progress thread");
                                emit(std::move(rec));
                            }
                            continue;
                        }
                        const std::size_t tests = prog == progression::test ? (n + interval - 1) / interval + 1 : 0;
                        // The modelled thread's turns: one after each quantum of the computation.
                        const std::size_t slices =
                            sliced && prog == progression::thread
                                ? std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(t_b / cfg.thread_quantum)))
                                : 1;
                        const auto part = [&](std::size_t pieces) {
                            return method == overhead_method::time ? work::busy(t_b / static_cast<double>(pieces))
                                                                   : work::flops(lambda / pieces);
                        };
                        std::vector<parts> log;
                        std::unique_ptr<nbc::progress_thread<T>> helper_thread;
                        if constexpr (thread_serialized_transport<T>)
                            if (prog == progression::thread && threads_allowed) helper_thread = std::make_unique<nbc::progress_thread<T>>(e);

                        windowed_point m = measure_windowed(t, g, w, window_measure::window, [&] {
                            parts q;
                            const double a = t.now();
                            nbc::request<T> r = start();
                            const double b = t.now();
                            q.init = b - a;
                            switch (prog) {
                            case progression::none: ops::compute(t, part(1)); break;
                            case progression::test:
                                for (std::size_t i = 0; i < tests; ++i) {
                                    const double s = t.now();
                                    e.test(r);
                                    q.test += t.now() - s;
                                    if (i + 1 < tests || tests == 1) ops::compute(t, part(std::max<std::size_t>(tests - 1, 1)));
                                }
                                break;
                            case progression::thread:
                                if (sliced) {
                                    // One CPU: the scheduler gives the thread the CPU after each
                                    // quantum of the computation, and its progress call lengthens
                                    // the computation (which the work-based overhead sees and the
                                    // time-based one, as for a thread on a busy core, does not).
                                    for (std::size_t i = 0; i < slices; ++i) {
                                        ops::compute(t, part(slices));
                                        if (i + 1 < slices) e.progress();
                                    }
                                } else if constexpr (thread_serialized_transport<T>) {
                                    double s = t.now();
                                    helper_thread->resume();
                                    q.test += t.now() - s;
                                    ops::compute(t, part(1));
                                    s = t.now();
                                    helper_thread->pause();
                                    q.test += t.now() - s;
                                }
                                break;
                            }
                            const double c = t.now();
                            e.wait(r);
                            const double d = t.now();
                            q.wait = d - c;
                            q.total = d - a;
                            log.push_back(q);
                        });
                        helper_thread.reset();

                        // Every rank's figures of every call to rank 0 (init, test, wait, overhead):
                        // every rank made the same calls, and rank 0 knows which were valid.
                        const std::size_t k = log.size();
                        std::vector<double> mine(4 * k), all(me == 0 ? 4 * k * static_cast<std::size_t>(p) : 0);
                        for (std::size_t i = 0; i < k; ++i) {
                            const parts& q = log[i];
                            const double overhead = method == overhead_method::time ? q.init + q.test + q.wait : q.total - t_lambda;
                            mine[4 * i] = q.init;
                            mine[4 * i + 1] = q.test;
                            mine[4 * i + 2] = q.wait;
                            mine[4 * i + 3] = overhead;
                        }
                        ops::gather(t, 0, std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)));
                        if (m.interrupted) interrupted = true;  // the same on every rank
                        if (me != 0) {
                            if (interrupted) break;
                            continue;
                        }

                        record rec = base(o, n, impl, algorithm, to_string(method));
                        rec.params.set("progression", std::string(to_string(prog))).set("interval", interval);
                        describe(rec, m);
                        std::vector<double> init, test, wait;
                        for (std::size_t i : m.kept) {
                            std::size_t slowest = 0;
                            for (std::size_t r = 1; r < static_cast<std::size_t>(p); ++r)
                                if (all[4 * k * r + 4 * i + 3] > all[4 * k * slowest + 4 * i + 3]) slowest = r;
                            const double* f = all.data() + 4 * k * slowest + 4 * i;
                            init.push_back(f[0]);
                            test.push_back(f[1]);
                            wait.push_back(f[2]);
                            rec.samples.push_back(f[3]);
                        }
                        // A work-based overhead below zero (the workload ran faster beside the
                        // collective than alone) is no overhead: kept raw, marked, out of every figure.
                        mark_negative(rec);
                        const double overhead = median_of(valid_samples(rec));
                        rec.values.set("blocking", t_b)
                            .set("compute", method == overhead_method::time ? t_b : t_lambda)
                            .set("t_init", median_of(init))
                            .set("t_test", median_of(test))
                            .set("t_wait", median_of(wait))
                            .set("tests", tests)
                            .set("curve", name_curve());
                        if (prog == progression::thread)
                            rec.values.set("thread", sliced ? "time_sliced" : "os_thread");
                        if (prog == progression::thread && sliced) rec.values.set("thread_quantum", cfg.thread_quantum).set("slices", slices);
                        // The share of T_b the computation hid: 1 - overhead / T_b, within [0, 1]. An
                        // overhead above T_b hid nothing (and added to it): 0, and flagged.
                        if (t_b > 0 && valid_count(rec) > 0) {
                            rec.values.set("hidden", std::clamp(1.0 - overhead / t_b, 0.0, 1.0));
                            if (overhead > t_b)
                                add_flag(rec, "hidden", "the overhead (" + std::to_string(overhead * 1e6) + " us) exceeds T_b (" +
                                                            std::to_string(t_b * 1e6) + " us): nothing hidden");
                        }
                        if (method == overhead_method::work) rec.values.set("workload", lambda);
                        if (!tb_unsure.empty() && rec.values.contains("hidden")) add_flag(rec, "hidden", tb_unsure);
                        if (!tb_flag.empty()) {
                            add_flag(rec, "point", tb_flag);
                            add_flag(rec, "hidden", tb_flag);
                        }
                        emit(std::move(rec));
                        if (interrupted) break;
                    }
                    if (interrupted) break;
                }
                if (interrupted) break;
            }
            if (interrupted) break;
        }
        if (interrupted) break;
    }
    ops::barrier(t);
    return results;
}

}  // namespace comet::kernels

#if !defined(COMET_COMPILED)
#include <comet/kernels/nbc.ipp>
#endif
