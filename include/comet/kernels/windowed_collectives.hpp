// comet/kernels/windowed_collectives.hpp — the kernel `collectives`: blocking collectives measured
// once per time window and pipelined, with every per-rank reduction (Hoefler, Schneider,
// Lumsdaine, seed 002, sections 1 and 4; SPEC 7.4).
//
//   comet::result_set r = comet::kernels::windowed_collectives(t, {.operations = {comet::kernels::collective_operation::allreduce},
//                                                                  .sizes = {8, 4096}});
//
// Operations (`operation`), each on the whole group, root 0 where there is one:
//   broadcast         `size` bytes from the root (`ops::broadcast`);
//   linear_broadcast  the same, the root sending to rank 1, 2, ..., P − 1 in turn by blocking
//                     sends (the seed's LogP example of pipelining: the root leaves long before
//                     the last rank has its copy, and back-to-back broadcasts overlap);
//   reduce            `size` / 8 doubles summed onto the root (`ops::reduce_sum`);
//   allreduce         the same, the sum on every rank (`ops::allreduce_sum`);
//   barrier           (`ops::barrier`; one point, size 0);
//   alltoall          `size` bytes from every rank to every rank (`ops::alltoall`);
//   gather            `size` bytes from every rank onto the root (`ops::gather`).
// Each runs natively where the transport has it and by comet's portable algorithm otherwise;
// `implementation` says which ("linear" for linear_broadcast, which is always comet's).
//
// Each (operation, size) is measured in every way `measures` lists (`measure`: window,
// pipelined, and seed 002's listings 1-3 — barrier_then_loop, loop, barriers_then_loop;
// timing/window.hpp), and each measurement gives a record per per-rank reduction
// (`reduction`: designated, max, min, mean, median, first_start_to_last_finish;
// stats/rank_reduction.hpp), samples in seconds per operation: one per valid measurement (every
// rank started within the tolerance of its window; the late ones are the record's dropped
// "late_start", so valid / total is what the point says of itself). The records also say how
// the point was measured: the values `window` (s), `widenings`, `tolerance` (s), `clock_error`
// (the global clock's estimated error, 0 where the transport's clock is global), and the params
// `scheme` (how the global clock was synchronised: none, linear or log_p), `pipeline` (N)
// for every measure but the window and `barriers` for listing 3. Every record but the window
// scheme's has the value `versus_window`: its median over the window scheme's of the same
// reduction, the error of timing N operations in a loop (rank_times: one more record per rank,
// reduction "rank_<r>", that rank's own time). A point whose windows kept failing is flagged as a whole (timing/window.hpp).
//
// Reduced vectors hold zeros (a sum of zeros stays zero however often it runs); every other
// buffer holds what the last operation left in it — nothing is verified here: the collectives'
// results are checked in test/ops and test/algorithms.
#pragma once

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_WINDOWED_COLLECTIVES

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/rank_reduction.hpp>
#include <comet/stats/record.hpp>
#include <comet/timing/global_clock.hpp>
#include <comet/timing/window.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace comet::kernels {

/// The collectives the kernel measures.
enum class collective_operation : unsigned char { broadcast, linear_broadcast, reduce, allreduce, barrier, alltoall, gather };

inline constexpr std::array<collective_operation, 7> all_collective_operations{
    collective_operation::broadcast, collective_operation::linear_broadcast, collective_operation::reduce,
    collective_operation::allreduce, collective_operation::barrier,          collective_operation::alltoall,
    collective_operation::gather};

constexpr std::string_view to_string(collective_operation o) noexcept {
    switch (o) {
    case collective_operation::broadcast: return "broadcast";
    case collective_operation::linear_broadcast: return "linear_broadcast";
    case collective_operation::reduce: return "reduce";
    case collective_operation::allreduce: return "allreduce";
    case collective_operation::barrier: return "barrier";
    case collective_operation::alltoall: return "alltoall";
    case collective_operation::gather: return "gather";
    }
    return "?";
}

/// The operation named `name`, or nothing.
COMET_DECL std::optional<collective_operation> parse_collective_operation(std::string_view name);

/// Configuration of `windowed_collectives`. All ranks pass the same values (@pre).
struct windowed_collectives_config {
    /// In this order. linear_broadcast is not among the defaults: it is the seed's example, not
    /// a transport's operation.
    std::vector<collective_operation> operations = {collective_operation::broadcast, collective_operation::reduce,
                                                    collective_operation::allreduce, collective_operation::barrier,
                                                    collective_operation::alltoall,  collective_operation::gather};
    /// Bytes per rank (alltoall: per pair of ranks); reduce and allreduce need multiples of 8.
    std::vector<std::size_t> sizes = {8, 1024, 16384};
    /// How each point is timed, in this order: the window scheme and pipelined; add the three
    /// barrier-and-loop schemes seed 002 criticises (its listings 1-3, `all_window_measures`;
    /// the comet program measures them by default) to see their error, `versus_window`.
    std::vector<window_measure> measures = {window_measure::window, window_measure::pipelined};
    /// Also a record per rank and point: that rank's own time per operation (reduction
    /// "rank_<r>"), the seed's "times for all processes".
    bool rank_times = false;
    /// The root of broadcast, reduce and gather, and the rank `designated` reports.
    int root = 0;
    /// How each point is measured (timing/window.hpp); its `designated` is set to `root`.
    window_config window = {};
    /// How the global clock is synchronised where the transport's clock is not global.
    comet::sync_config sync = {};
    /// The tag of linear_broadcast's messages.
    int tag = 0;
    /// Called on rank 0 after each record is made (for progress displays).
    std::function<void(const record&)> on_point = {};
};

/// The records a run on `nodes` ranks makes (barrier has one size; `nodes` counts only with
/// rank_times).
COMET_DECL std::size_t windowed_collectives_points(const windowed_collectives_config& c, int nodes = 0);

namespace detail::windowed {

template <transport T>
void check(const T& t, const windowed_collectives_config& c) {
    const int me = t.rank(), p = t.size();
    if (c.operations.empty()) raise<invalid_argument>(me, "collectives: no operation to measure");
    if (c.measures.empty()) raise<invalid_argument>(me, "collectives: no measure (window, pipelined) asked for");
    if (c.root < 0 || c.root >= p) raise<invalid_argument>(me, "collectives: root ", c.root, " is outside 0..", p - 1);
    if (c.tag < 0 || c.tag > max_tag) raise<invalid_argument>(me, "collectives: tag ", c.tag, " is outside 0..", max_tag);
    window_config w = c.window;
    w.designated = c.root;
    comet::detail::window::check(me, p, "collectives", w);
    const auto np = static_cast<std::size_t>(p);
    for (auto o : c.operations)
        for (std::size_t n : c.sizes) {
            if (o == collective_operation::barrier) continue;
            if ((o == collective_operation::reduce || o == collective_operation::allreduce) && n % sizeof(double) != 0)
                raise<invalid_argument>(me, "collectives: ", to_string(o), " size ", n, " is not a whole number of doubles (8 bytes)");
            const bool per_rank = o == collective_operation::alltoall || o == collective_operation::gather;
            if (n > max_message_size || (per_rank && n > max_message_size / np))
                raise<invalid_argument>(me, "collectives: ", to_string(o), " size ", n, per_rank ? " x " : "",
                                        per_rank ? std::to_string(p) + " ranks" : std::string(), " exceeds the ",
                                        max_message_size, "-byte limit");
        }
}

/// The root sends to rank 1, 2, ..., P − 1 in turn (skipping itself); the others receive.
template <transport T>
void linear_broadcast(T& t, int root, int tag, mutable_bytes data) {
    if (t.rank() != root) {
        ops::recv(t, root, tag, data);
        return;
    }
    for (int r = 0; r < t.size(); ++r)
        if (r != root) ops::send(t, r, tag, const_bytes(data));
}

/// Sets, on every record of one (operation, size) measured otherwise than by windows, the
/// value `versus_window`: its median over the window scheme's median of the same reduction
/// (one rank's own, with rank_times): how far the pipelined and barrier-and-loop figures are from one operation's
/// time. Where either point is flagged or has no valid sample, a note says why there is none.
COMET_DECL void compare_with_window(std::span<record> point);

template <transport T>
std::string implementation_of(collective_operation o) {
    switch (o) {
    case collective_operation::broadcast: return std::string(ops::to_string(ops::broadcast.implementation_for<T>()));
    case collective_operation::linear_broadcast: return "linear";
    case collective_operation::reduce: return std::string(ops::to_string(ops::reduce_sum.implementation_for<T>()));
    case collective_operation::allreduce: return std::string(ops::to_string(ops::allreduce_sum.implementation_for<T>()));
    case collective_operation::barrier: return std::string(ops::to_string(ops::barrier.implementation_for<T>()));
    case collective_operation::alltoall: return std::string(ops::to_string(ops::alltoall.implementation_for<T>()));
    case collective_operation::gather: return std::string(ops::to_string(ops::gather.implementation_for<T>()));
    }
    return "?";
}

}  // namespace detail::windowed

/// Measures each collective of `cfg.operations` at each size, window-based and pipelined, on
/// the whole group, and returns on rank 0 a record per (operation, size, measure, reduction)
/// (see the top of this header); other ranks return an empty set. Synchronises a global clock
/// first (`global_clock`: free where the transport's clock is global).
/// @pre every rank calls it with the same config.
/// @throws invalid_argument (on every rank, before any message) for an empty list of
///         operations or measures, a root or tag out of range, a window configuration
///         `measure_windowed` refuses, a reduce size that is not whole doubles, or a size over
///         the message limit (alltoall and gather: size × P).
/// @code
///   auto r = comet::kernels::windowed_collectives(t, {.sizes = {8}, .window = {.measurements = 50}});
/// @endcode
template <transport T>
result_set windowed_collectives(T& t, const windowed_collectives_config& cfg = {}) {
    detail::windowed::check(t, cfg);
    const int me = t.rank(), p = t.size();
    const auto np = static_cast<std::size_t>(p);
    window_config w = cfg.window;
    w.designated = cfg.root;
    global_clock<T> g(t, cfg.sync);

    std::size_t largest = 0;
    for (std::size_t n : cfg.sizes) largest = std::max(largest, n);
    const bool many = std::find_if(cfg.operations.begin(), cfg.operations.end(), [](auto o) {
                          return o == collective_operation::alltoall || o == collective_operation::gather;
                      }) != cfg.operations.end();
    std::vector<std::byte> data(largest), out(many ? largest * np : 0), in(many ? largest * np : 0);
    std::vector<double> vector(largest / sizeof(double), 0.0);

    result_set results;
    bool interrupted = false;  // a stop request ended a point: the kernel ends there
    for (auto o : cfg.operations) {
        const std::vector<std::size_t> sizes = o == collective_operation::barrier ? std::vector<std::size_t>{0} : cfg.sizes;
        for (std::size_t n : sizes) {
            const auto operation = [&] {
                switch (o) {
                case collective_operation::broadcast: ops::broadcast(t, cfg.root, mutable_bytes(data.data(), n)); break;
                case collective_operation::linear_broadcast:
                    detail::windowed::linear_broadcast(t, cfg.root, cfg.tag, mutable_bytes(data.data(), n));
                    break;
                case collective_operation::reduce: ops::reduce_sum(t, cfg.root, std::span<double>(vector.data(), n / sizeof(double))); break;
                case collective_operation::allreduce: ops::allreduce_sum(t, std::span<double>(vector.data(), n / sizeof(double))); break;
                case collective_operation::barrier: ops::barrier(t); break;
                case collective_operation::alltoall:
                    ops::alltoall(t, const_bytes(out.data(), n * np), mutable_bytes(in.data(), n * np));
                    break;
                case collective_operation::gather:
                    ops::gather(t, cfg.root, const_bytes(data.data(), n), mutable_bytes(in.data(), me == cfg.root ? n * np : 0));
                    break;
                }
            };
            const std::size_t first = results.records.size();
            for (auto how : cfg.measures) {
                windowed_point m = measure_windowed(t, g, w, how, operation);
                interrupted = m.interrupted;  // the same on every rank
                if (me != 0) {
                    if (interrupted) break;
                    continue;
                }
                const std::size_t per = how == window_measure::window ? 1 : w.pipeline;
                const auto make = [&](std::string_view reduction) {
                    record rec{"collectives", params{}, {}};
                    rec.params.set("operation", std::string(to_string(o)))
                        .set("size", n)
                        .set("nodes", p)
                        .set("measure", std::string(to_string(how)))
                        .set("reduction", std::string(reduction))
                        .set("designated", cfg.root)
                        .set("scheme", std::string(to_string(g.scheme())));
                    if (per > 1) rec.params.set("pipeline", w.pipeline);
                    if (how == window_measure::barriers_then_loop) rec.params.set("barriers", w.loop_barriers);
                    rec.values.set("implementation", detail::windowed::implementation_of<T>(o));
                    describe_window(rec, m, w, per);
                    return rec;
                };
                for (std::size_t k = 0; k < all_rank_reductions.size(); ++k) {
                    record rec = make(to_string(all_rank_reductions[k]));
                    rec.samples = m.samples[k];  // copied: m.valid() counts m.samples[0] for every reduction
                    results.records.push_back(std::move(rec));
                }
                if (cfg.rank_times)
                    for (std::size_t r = 0; r < m.rank_seconds.size(); ++r) {
                        record rec = make("rank_" + std::to_string(r));
                        rec.samples = std::move(m.rank_seconds[r]);
                        results.records.push_back(std::move(rec));
                    }
                if (interrupted) break;
            }
            if (me == 0) {
                detail::windowed::compare_with_window(std::span(results.records).subspan(first));
                if (cfg.on_point)
                    for (std::size_t i = first; i < results.records.size(); ++i) cfg.on_point(results.records[i]);
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
#include <comet/kernels/windowed_collectives.ipp>
#endif
