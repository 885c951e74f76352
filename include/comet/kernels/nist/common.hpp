// comet/kernels/nist/common.hpp — what the three synthetic applications of the NIST study share:
// the communication- and computation-intensive settings, the per-rank result, the tags, and the
// little wire format and checks each application builds its messages and its verification from.
//
// NIST seed (Snelick, "Performance Evaluation of Hypercube Applications: Using a Global Clock and
// Time Dilation", NISTIR 4630, 1991), sections 3 and 5, table I. The applications (ring.hpp,
// rc.hpp, mesh.hpp) talk to the transport only through `isend/irecv/test/iprobe` and comet::ops,
// and compute only through `ops::compute(t, work::flops(n))`, so a decorator wrapped around the
// transport (tracing for the logical/physical delay decomposition, dilation for time dilation)
// sees every message and every unit of computation. Deliberately not here: the delay
// decomposition and dilation themselves, which wrap these applications from outside.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/hash.hpp>
#include <comet/core/types.hpp>
#include <comet/ops/ops.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace comet::kernels::nist {

/// The seed's two parameter settings of each application (section 5, table I): CM, communication
/// intensive (a small computation-communication grain), and CP, computation intensive (a large one).
enum class setting { cm, cp };

inline std::ostream& operator<<(std::ostream& os, setting s) {
    switch (s) {
    case setting::cm: return os << "cm";
    case setting::cp: return os << "cp";
    }
    return os << "setting(" << static_cast<int>(s) << ")";
}

/// The tags of the NIST applications, in comet's reserved range (core/types.hpp): the ring uses
/// `first_tag`, RC `first_tag + 1`, the mesh `first_tag + 2` .. `first_tag + 5` (one per
/// direction of travel). Clear of the other kernels' tags (the nonblocking-collective engine
/// holds first_reserved_tag + 100 .. + 499; the portable collectives and the timing engine the
/// top of the range).
inline constexpr int first_tag = first_reserved_tag + 600;
inline constexpr int tag_count = 20;
inline constexpr int ring_tag = first_tag;
inline constexpr int rc_tag = first_tag + 1;
inline constexpr int mesh_tag = first_tag + 2;

/// What one rank of a NIST application did. Returned only after the run verified: a message lost,
/// duplicated, corrupted or not processed by every node it should have been raises
/// `comet::verification_error` instead.
///
/// The grain is counted in datum operations (`work_per_datum` flops per data item), which is how
/// the seed's table I counts it: "the number of data items processed (integer multiplication in
/// these examples) between communication interaction points". What else an item costs the
/// program (`bookkeeping_per_datum` flops: the loop around the operation, fetching and storing the
/// item; in RC the value that decides a dispatch and the pool) is charged as computation too but
/// is no part of the grain.
///
/// Per-datum cost. The seed's user time U_1 (tables A1-A6, a node's mean) over the data items a
/// node processes gives what a datum cost its program; at the ipsc1 preset's 3.875 us an
/// operation (nx2::ipsc1(), dependent_flop_time), rounded to whole operations, that is each
/// setting's work_per_datum + bookkeeping_per_datum (ring.hpp, rc.hpp, mesh.hpp show the
/// arithmetic). Each setting is taken from its own table, the same way for all six.
struct application_result {
    std::string application;  ///< "ring", "rc" or "mesh"
    int rank = 0;
    int nodes = 0;
    /// Seconds on the transport's clock (`t.now()`) from this rank's start, right after a barrier,
    /// to its end (every message it sent completed, every one it expects received).
    double elapsed = 0.0;
    std::uint64_t messages_sent = 0;      ///< user (data) messages this rank sent
    std::uint64_t messages_received = 0;  ///< user (data) messages it received
    /// Control messages, counted apart: the ring's and RC's acknowledgements, RC's termination
    /// token and stop notices. The mesh has none.
    std::uint64_t control_sent = 0;
    std::uint64_t control_received = 0;
    std::uint64_t data_items = 0;  ///< data items this rank processed
    std::uint64_t work = 0;        ///< datum operations it computed: data_items x work_per_datum (the grain's unit)
    std::uint64_t bookkeeping = 0;  ///< flops it was charged besides: data_items x bookkeeping_per_datum
    /// Where this rank's computation met communication: ring, a data message received (each is
    /// processed once it arrives); mesh, a step; RC, a work message dispatched.
    std::uint64_t communication_points = 0;
    /// Datum operations between communication points, as the run had it. Ring and mesh: this
    /// rank's work / communication_points (exactly the config's items x work_per_datum). RC: the
    /// whole run's average, total work / total work messages, the same on every rank (a rank's
    /// own points depend on where the random dispatches fell).
    double grain = 0.0;
    std::size_t message_bytes = 0;        ///< length of a data message (RC: of a full chunk)
    std::uint64_t verified_messages = 0;  ///< data messages whose content this rank checked
    // ---- RC only ----
    std::uint64_t special_values = 0;  ///< special data values this rank met (each asks for a dispatch)
    /// Of those, the ones that dispatched nothing: when the flow-control window let them go, no
    /// work was left to give.
    std::uint64_t dispatches_skipped = 0;
    std::uint64_t items_dispatched = 0;    ///< data items this rank gave away
    std::uint64_t termination_rounds = 0;  ///< rank 0: rounds of the termination token
};

/// Whole operations a datum cost the seed's program: a node's user time over the data items it
/// processed, at `seconds_per_operation` each, rounded to the nearest (the per-datum cost above).
inline std::uint64_t operations_per_datum(double user_seconds, double items, double seconds_per_operation) noexcept {
    return static_cast<std::uint64_t>(std::llround(user_seconds / (items * seconds_per_operation)));
}

namespace detail {

/// Little helpers to lay fixed-width fields into a message and read them back (host byte order:
/// every rank of a run shares it).
inline void put32(std::span<std::byte> b, std::size_t at, std::uint32_t v) noexcept { std::memcpy(b.data() + at, &v, 4); }
inline void put64(std::span<std::byte> b, std::size_t at, std::uint64_t v) noexcept { std::memcpy(b.data() + at, &v, 8); }
inline std::uint32_t get32(std::span<const std::byte> b, std::size_t at) noexcept {
    std::uint32_t v;
    std::memcpy(&v, b.data() + at, 4);
    return v;
}
inline std::uint64_t get64(std::span<const std::byte> b, std::size_t at) noexcept {
    std::uint64_t v;
    std::memcpy(&v, b.data() + at, 8);
    return v;
}

/// FNV-1a over `b`: the checksum a message's data carries, so a changed byte is noticed.
/// `h` continues a checksum over bytes that came before.
inline std::uint64_t checksum(std::span<const std::byte> b, std::uint64_t h = 0xcbf29ce484222325u) noexcept {
    for (std::byte x : b) h = (h ^ static_cast<std::uint64_t>(x)) * 0x100000001b3u;
    return h;
}

/// Three values mixed into one 64-bit hash (splitmix64 on each in turn).
constexpr std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t c) noexcept {
    return comet::detail::splitmix64(comet::detail::splitmix64(comet::detail::splitmix64(a) ^ b) ^ c);
}

/// Checks that `count` items at `work_per_datum + bookkeeping_per_datum` flops each can be
/// charged: each under 2^32 flops, and their product within 64 bits. `count_name` is the
/// configuration field that gives `count`.
inline void check_flops_per_slice(int me, std::string_view app, std::uint64_t work_per_datum, std::uint64_t bookkeeping_per_datum,
                                  std::string_view count_name, std::uint64_t count) {
    const std::uint64_t per_datum = work_per_datum + bookkeeping_per_datum;
    if (work_per_datum > UINT32_MAX || bookkeeping_per_datum > UINT32_MAX || (per_datum != 0 && count > UINT64_MAX / per_datum))
        raise<invalid_argument>(me, app, ": work_per_datum + bookkeeping_per_datum = ", work_per_datum, " + ", bookkeeping_per_datum,
                                " x ", count_name, " = ", count, " overflows");
}

/// Tags `tag` .. `tag + count - 1` must be valid tags.
inline void check_tag(int me, std::string_view app, int tag, int count) {
    if (tag < 0 || tag > max_tag - (count - 1))
        raise<invalid_argument>(me, app, ": tag ", tag, " is outside 0..", max_tag - (count - 1), " (it uses ", count,
                                " tags from there)");
}

/// Every rank must run with the same config (@pre of each application): a rank that expected
/// more messages than the others send would otherwise wait forever. One allreduce of each value
/// and its negation gives the largest and the smallest of each across the ranks; any spread is
/// refused on every rank, naming the field. Run before the start barrier, outside the timing.
template <transport T, std::size_t N>
void check_same_config(T& t, std::string_view app, const std::array<std::string_view, N>& names,
                       const std::array<double, N>& values) {
    std::array<double, 2 * N> v{};
    for (std::size_t i = 0; i < N; ++i) v[2 * i] = values[i], v[2 * i + 1] = -values[i];
    ops::allreduce_max(t, std::span<double>(v));
    for (std::size_t i = 0; i < N; ++i)
        if (v[2 * i] != -v[2 * i + 1])
            raise<invalid_argument>(t.rank(), app, ": the ranks disagree on ", names[i], " (", values[i],
                                    " here, from ", -v[2 * i + 1], " to ", v[2 * i], " across the group); every rank must "
                                    "pass the same config");
}

/// A transport that marks where the measured part of a run starts and stops (the tracing
/// decorator: its elapsed time, and the messages and computation it keeps, are between the two).
template <class T>
concept marks_runs = requires(T& t) {
    t.start();
    t.stop();
};

/// The applications' start: every rank together (a barrier), then the clock; returns the time.
/// Under a transport that marks runs, the run starts here, so that the configuration check and
/// the barrier before it — comet's messages, not the application's — are neither in its elapsed
/// time nor in its trace.
template <transport T>
double start_together(T& t) {
    ops::barrier(t);
    if constexpr (marks_runs<T>) t.start();
    return t.now();
}

/// The applications' end (its last message completed); returns the time. Under a transport that
/// marks runs, the run stops here: what follows (a verification's reductions) is not in it.
template <transport T>
double stop_here(T& t) {
    if constexpr (marks_runs<T>) t.stop();
    return t.now();
}

}  // namespace detail

}  // namespace comet::kernels::nist
