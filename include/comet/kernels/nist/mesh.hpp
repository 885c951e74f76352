// comet/kernels/nist/mesh.hpp — the NIST mesh: local dependencies (seed 003, section 3.3,
// figure 3; settings CM-Mesh and CP-Mesh of table I and tables A3-A4).
//
// An N x N torus of nodes (the seed's tests: N = M). The program runs `steps` states, each in two
// phases: communication, an exchange of one message with each of the four nearest neighbours
// (north, south, east, west, with wrap-around), then computation on the node's
// `items_per_step` data items. A node needs its neighbours' values of the step before it can go
// on, so the mesh proceeds in lock step. On a power-of-two group the torus is laid onto the
// hypercube with Gray codes (topology/mesh.hpp, `mesh_mapping::gray`), so that every mesh
// neighbour is a hypercube neighbour ("the mesh is mapped perfectly so that its logical structure
// matches the underlying physical structure"); other squares use row-major order.
#pragma once

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_NIST_MESH

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/kernels/nist/common.hpp>
#include <comet/ops/ops.hpp>
#include <comet/topology/hypercube.hpp>
#include <comet/topology/mesh.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace comet::kernels::nist {

/// Configuration of `mesh`. All ranks pass the same values (@pre; checked).
/// The defaults are the CM-Mesh setting (`mesh_setting(setting::cm)`).
struct mesh_config {
    /// Computation-communication steps. The seed's 16-node runs counted 25,600 (CM) and 3,200
    /// (CP) user messages: 16 nodes x 4 neighbours x 400 and x 50 steps.
    std::uint64_t steps = 400;
    /// Length of each of the four messages of a step: a 32-byte header (sender, step,
    /// direction, the sender's value of the step), then the sender's data pattern of the step.
    std::size_t message_bytes = 256;
    /// Flops (the seed's integer multiplications) per data item processed.
    std::uint64_t work_per_datum = 1;
    /// Flops a data item costs besides (common.hpp: not in the grain, charged as computation).
    std::uint64_t bookkeeping_per_datum = 3;
    /// Data items a node processes each step.
    std::uint64_t items_per_step = 640;
    /// The first of the four tags the mesh uses (one per direction of travel).
    int tag = mesh_tag;
};

/// Bytes of a mesh message's header.
inline constexpr std::size_t mesh_header_bytes = 32;

/// The seed's CM-Mesh and CP-Mesh. The grain (table I: 640 and 102,400 datum operations between
/// communication points) is items_per_step x work_per_datum: 640 items a step in both, one
/// operation each in CM and 160 in CP. Step counts: see `steps`.
///
/// What a datum cost (common.hpp), at 3.875 us an operation, a node processing steps x 640 items:
///   CM (table A3): U_1 = 4.16 s / (400 x 640 = 256,000 items) = 16.25 us = 4.19 operations
///                  -> 4 a datum: the 1 of the grain + 3 of bookkeeping;
///   CP (table A4): U_1 = 21.91 s / (50 x 640 = 32,000 items) = 684.7 us = 176.7 operations
///                  -> 177 a datum: the 160 of the grain + 17.
COMET_DECL mesh_config mesh_setting(setting s);

namespace detail {

inline constexpr std::uint32_t mesh_data = 0x4d455348;  // "MESH"

/// Node `rank`'s value of step `step`: what its neighbours must receive from it at that step.
constexpr std::uint64_t mesh_value(int rank, std::uint64_t step) noexcept {
    return mix(0x4d455348u, static_cast<std::uint64_t>(rank), step);
}

/// Fills the message node `rank` sends in direction `dir` at step `step`.
inline void mesh_fill(std::span<std::byte> b, int rank, std::uint64_t step, std::uint32_t dir) {
    const std::uint64_t v = mesh_value(rank, step);
    put32(b, 0, mesh_data);
    put32(b, 4, static_cast<std::uint32_t>(rank));
    put64(b, 8, step);
    put64(b, 16, dir);
    put64(b, 24, v);
    for (std::size_t at = mesh_header_bytes, k = 0; at < b.size(); at += 8, ++k) {
        const std::uint64_t w = comet::detail::splitmix64(v + k);
        std::memcpy(b.data() + at, &w, std::min<std::size_t>(8, b.size() - at));
    }
}

}  // namespace detail

/// The NIST mesh (seed 003, 3.3): `steps` times, exchange one message with each of the four
/// torus neighbours (all four receives posted, then the four sends, then wait for all), then
/// `ops::compute(work::flops(items_per_step x (work_per_datum + bookkeeping_per_datum)))`.
///
/// Shapes: the group must be a square number of ranks, at least 4 (N x N, N >= 2). With N = 2
/// the north and south neighbours are the same node, as are east and west; the tags of the four
/// directions keep the messages apart.
///
/// Exact counts per rank: 4 x steps messages sent and 4 x steps received, steps x
/// items_per_step data items processed; in all 4 x P x steps messages.
///
/// Verification: every message received at step s must come from the neighbour in its
/// direction, name step s and its direction, and carry that neighbour's value of step s and the
/// data pattern that value generates.
/// @pre every rank calls mesh with the same config (checked: an allreduce before the start).
/// @throws invalid_argument (naming the value and the rank) for a group that is not a square of
///         at least 4 ranks, zero steps, a message shorter than its header or over
///         max_message_size, a bad tag, or ranks that disagree on the config;
///         comet::verification_error (naming the rank, the step, the neighbour and what differed).
/// @code
///   auto r = comet::kernels::nist::mesh(t, comet::kernels::nist::mesh_setting(comet::kernels::nist::setting::cm));
///   // r.messages_sent == 4 * 400
/// @endcode
template <transport T>
application_result mesh(T& t, const mesh_config& cfg = {}) {
    using request = typename T::request;
    const int p = t.size();
    const int me = t.rank();
    constexpr std::string_view app = "mesh";
    const int n = comet::detail::isqrt(p);
    if (n * n != p || n < 2)
        raise<invalid_argument>(me, "mesh: the group has ", p, p == 1 ? " rank" : " ranks", "; an N x N torus needs a square number of them, at least 4");
    if (cfg.steps == 0) raise<invalid_argument>(me, "mesh: steps = 0; the mesh runs at least 1 step");
    if (cfg.message_bytes < mesh_header_bytes)
        raise<invalid_argument>(me, "mesh: message_bytes = ", cfg.message_bytes, " cannot hold the ", mesh_header_bytes, "-byte header");
    if (cfg.message_bytes > max_message_size)
        raise<invalid_argument>(me, "mesh: message_bytes = ", cfg.message_bytes, " exceeds the ", max_message_size, "-byte limit");
    detail::check_flops_per_slice(me, "mesh", cfg.work_per_datum, cfg.bookkeeping_per_datum, "items_per_step", cfg.items_per_step);
    detail::check_tag(me, app, cfg.tag, 4);
    detail::check_same_config<T, 6>(
        t, app, {"steps", "message_bytes", "work_per_datum", "bookkeeping_per_datum", "items_per_step", "tag"},
        {static_cast<double>(cfg.steps), static_cast<double>(cfg.message_bytes), static_cast<double>(cfg.work_per_datum),
         static_cast<double>(cfg.bookkeeping_per_datum), static_cast<double>(cfg.items_per_step), static_cast<double>(cfg.tag)});

    const processor_mesh torus = is_power_of_two(static_cast<std::uint64_t>(p)) ? processor_mesh(n, n, mesh_mapping::gray)
                                                                               : comet::torus(n, n);
    const mesh_neighbours nb = torus.neighbours(me);
    // Directions of travel: a message sent north goes to `top` and is received there from its
    // `bottom`; tag + d names direction d.
    static constexpr std::array<const char*, 4> names{"north", "south", "west", "east"};
    const std::array<int, 4> to{nb.top, nb.bottom, nb.pred, nb.succ};
    const std::array<int, 4> from{nb.bottom, nb.top, nb.succ, nb.pred};
    const std::size_t bytes = cfg.message_bytes;
    const std::uint64_t per_step = cfg.items_per_step * cfg.work_per_datum;
    const std::uint64_t bookkeeping = cfg.items_per_step * cfg.bookkeeping_per_datum;

    application_result res;
    res.application = "mesh";
    res.rank = me;
    res.nodes = p;
    res.message_bytes = bytes;

    std::array<std::vector<std::byte>, 4> out, in, expect;
    for (auto* v : {&out, &in, &expect})
        for (auto& b : *v) b.resize(bytes);
    std::array<request, 4> sends, recvs;

    const double t0 = detail::start_together(t);
    for (std::uint64_t step = 0; step < cfg.steps; ++step) {
        for (std::uint32_t d = 0; d < 4; ++d) detail::mesh_fill(out[d], me, step, d);
        for (int d = 0; d < 4; ++d) recvs[d] = t.irecv(from[d], cfg.tag + d, mutable_bytes(in[d]));
        for (int d = 0; d < 4; ++d) sends[d] = t.isend(to[d], cfg.tag + d, const_bytes(out[d]));
        for (int d = 0; d < 4; ++d) {
            const status st = ops::wait(t, recvs[d]);
            ++res.messages_received;
            const std::span<const std::byte> b(in[d].data(), st.size);
            detail::mesh_fill(expect[d], from[d], step, static_cast<std::uint32_t>(d));
            if (st.size != bytes)
                raise<comet::verification_error>(me, "mesh: step ", step, ": the message travelling ", names[static_cast<std::size_t>(d)],
                                          " from rank ", from[d], " has ", st.size, " bytes, not ", bytes);
            if (detail::get32(b, 0) != detail::mesh_data || detail::get32(b, 4) != static_cast<std::uint32_t>(from[d]) ||
                detail::get64(b, 8) != step || detail::get64(b, 16) != static_cast<std::uint64_t>(d))
                raise<comet::verification_error>(me, "mesh: step ", step, ": the message travelling ", names[static_cast<std::size_t>(d)],
                                          " from rank ", from[d], " names rank ", detail::get32(b, 4), ", step ", detail::get64(b, 8),
                                          ", direction ", detail::get64(b, 16), " (kind ", detail::get32(b, 0), ")");
            if (detail::get64(b, 24) != detail::get64(expect[d], 24))
                raise<comet::verification_error>(me, "mesh: step ", step, ": rank ", from[d], "'s value is ", detail::get64(b, 24),
                                          ", not its value of step ", step, " (", detail::get64(expect[d], 24), ")");
            if (!std::equal(in[d].begin(), in[d].end(), expect[d].begin()))
                raise<comet::verification_error>(me, "mesh: step ", step, ": the data from rank ", from[d], " (travelling ",
                                          names[static_cast<std::size_t>(d)], ") differs from what its value of the step generates");
            ++res.verified_messages;
        }
        ops::wait_all(t, std::span<request>(sends));
        res.messages_sent += 4;
        if (per_step + bookkeeping != 0) ops::compute(t, work::flops(per_step + bookkeeping));
        res.data_items += cfg.items_per_step;
        res.work += per_step;
        res.bookkeeping += bookkeeping;
        ++res.communication_points;
    }
    res.elapsed = detail::stop_here(t) - t0;
    res.grain = static_cast<double>(per_step);
    return res;
}

}  // namespace comet::kernels::nist

#if !defined(COMET_COMPILED)
#include <comet/kernels/nist/mesh.ipp>
#endif
