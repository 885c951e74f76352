// comet/timing/sampled_point.hpp — what the sampling engine (timing/measure.hpp) measured at one
// point: its samples, the loop overhead subtracted from each, which were disturbed, the
// iterations per sample and why the point stopped; how that becomes a record (the disturbed
// and the negative samples kept but marked invalid, stats/validity.hpp); and how it moves from
// the rank that timed it to the rank that returns the records, checksummed on the way.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/hash.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>
#include <comet/timing/sampling.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace comet {

/// What the engine measured at one point (complete on the decider; empty samples elsewhere).
struct sampled_point {
    std::vector<double> samples;    ///< seconds per iteration, one per sample
    std::vector<double> overheads;  ///< the loop overhead subtracted from each, seconds per iteration
    /// 1 where a rank taking part was disturbed during the sample (its transport's count of
    /// disturbances moved: core/concepts.hpp, counts_disturbances), one per sample.
    std::vector<unsigned char> disturbed = {};
    std::size_t iterations = 0;     ///< iterations per sample
    stop_reason stop = stop_reason::interval;
    bool short_samples = false;     ///< a fixed iteration count gave samples under the minimum duration
};

/// Writes what the engine decided into `rec`: samples (those during which a rank was disturbed
/// marked invalid as "preempted", those below zero as "negative"),
/// overheads, iterations, the stop reason, the params `reduction` and `cache` (unless the kernel
/// set its own), and the values `order` (with `seed` when shuffled).
COMET_DECL void fill_record(record& rec, sampled_point&& p, const sampling& s, sample_reduction red, double scale = 1.0);

namespace detail {

/// `measured` as one vector of doubles for `forward_points`: [samples n, iterations, stop,
/// short_samples, n samples, n overheads, n disturbed], point after point.
COMET_DECL std::vector<double> pack_points(const std::vector<sampled_point>& measured);

/// The `points` measurements `pack_points` put in `v` (sent by rank `from`, unpacked on `rank`).
COMET_DECL std::vector<sampled_point> unpack_points(const std::vector<double>& v, std::size_t points, int rank, int from);

/// A 64-bit hash of `v`'s bits, so that the measurements `forward_points` moves are known to
/// arrive as they were sent.
inline std::uint64_t checksum(std::span<const double> v) noexcept {
    std::uint64_t h = splitmix64(v.size());
    for (double x : v) h = splitmix64(h ^ std::bit_cast<std::uint64_t>(x));
    return h;
}

}  // namespace detail

/// Moves the measurements of `points` points from rank `from` to rank `to` (for a kernel whose
/// timing rank is not the rank that returns the records). Call on both: `from` passes what it
/// measured and gets it back unchanged; `to` gets the copy. On any other rank, or when `from`
/// is `to`, nothing is sent. Two messages on `tag`: a header (the length, a checksum of the
/// doubles, a hash of both), then the doubles; a header or payload that arrives damaged raises
/// verification_error on `to` instead of becoming a number.
template <transport T>
std::vector<sampled_point> forward_points(T& t, int from, int to, int tag, std::vector<sampled_point> measured,
                                          std::size_t points) {
    if (from == to || (t.rank() != from && t.rank() != to)) return measured;
    if (t.rank() == from) {
        const std::vector<double> v = detail::pack_points(measured);
        const std::uint64_t sum = detail::checksum(v);
        const std::uint64_t header[3] = {v.size(), sum, detail::splitmix64(v.size() ^ detail::splitmix64(sum))};
        ops::send(t, to, tag, std::as_bytes(std::span(header)));
        ops::send(t, to, tag, std::as_bytes(std::span(v)));
        return measured;
    }
    std::uint64_t header[3] = {};
    ops::recv(t, from, tag, std::as_writable_bytes(std::span(header)));
    if (header[2] != detail::splitmix64(header[0] ^ detail::splitmix64(header[1])))
        raise<verification_error>(t.rank(), "forward_points: the header of the measurements from rank ", from,
                                  " arrived damaged (tag ", tag, ")");
    std::vector<double> v(static_cast<std::size_t>(header[0]));
    ops::recv(t, from, tag, std::as_writable_bytes(std::span(v)));
    if (detail::checksum(v) != header[1])
        raise<verification_error>(t.rank(), "forward_points: the ", v.size(), " measurements from rank ", from,
                                  " arrived damaged (tag ", tag, ")");
    return detail::unpack_points(v, points, t.rank(), from);
}

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/timing/sampled_point.ipp>
#endif
