// comet/kernels/matrix/kernel.hpp — what the five matrix kernels share (CoMet thesis 3.3.8–3.3.11,
// figures 5.13–5.16): their configuration, its validation, and the point loop that times an
// operation over matrix dimensions and verifies its result.
//
// What a sample means. A matrix operation is collective: every rank of the mesh takes part and
// each waits for its neighbours, so there is no one "time of the operation" unless we say whose.
// Every rank runs the same repeat loop of back-to-back operations on its own clock
// (comet::repeat: loop overhead subtracted, so clocks need not agree; the sampling engine
// decides how many and how often, timing/measure.hpp), and a sample is the
// LARGEST of the ranks' times per operation: the operation is done when its slowest rank is
// done. Back to back, neighbours wait for each other, so the ranks' times are close; where they
// are not (transpose: ranks on the mesh's diagonal only transpose locally, the others exchange),
// the maximum is the time the operation costs the mesh, and the test node's own time could be
// that of a rank with nothing to send. The test node collects the samples and returns the
// records.
//
// Verification. Each point starts from the fixed setup; after its timed repetitions every rank
// checks its whole local matrix against what that number of applications must give (verify.hpp),
// collectively, and a wrong cell anywhere throws verification_error on every rank — a wrong
// result never becomes a number.
//
// The kernels themselves are in update_guard.hpp, shift.hpp, transpose.hpp and broadcast.hpp.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/core/errors.hpp>
#include <comet/kernels/matrix/distributed.hpp>
#include <comet/kernels/matrix/verify.hpp>
#include <comet/stats/record.hpp>
#include <comet/timing/measure.hpp>
#include <comet/timing/repeat.hpp>
#include <comet/topology/mesh.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <optional>
#include <vector>

namespace comet::kernels {

/// Block dimensions the matrix kernels measure by default: from a few elements (start-up bound)
/// to 256×256 blocks (local matrices of 520 KiB, bandwidth bound), evenly enough spaced that the
/// linear (update_guard, broadcasts) and quadratic (shift, transpose) growth the thesis observed
/// in figures 5.13–5.16 shows.
COMET_DECL std::vector<int> default_matrix_dims();

/// Configuration of the matrix kernels. All ranks pass the same values (@pre).
struct matrix_config {
    /// Block dimensions (the thesis' "local dimension": each rank holds a dim×dim block of a
    /// (mesh rows·dim)×(mesh columns·dim) global matrix), measured in this order.
    std::vector<int> dims = default_matrix_dims();
    /// shift_matrix: the directions to measure, each over every dimension.
    std::vector<shift_direction> directions = {shift_direction::north, shift_direction::east};
    /// row_broadcast: the global row to broadcast; must be a row of the global matrix at every
    /// dimension measured.
    std::int64_t row = 0;
    /// col_broadcast: the global column to broadcast; likewise.
    std::int64_t col = 0;
    /// The rank that collects the samples and returns the records.
    int test_node = 0;
    /// How each point is sampled (timing/measure.hpp). A sample is the slowest rank's time per
    /// operation (`max_over_ranks`): the operation is done when the last rank is done.
    comet::sampling sampling = {};
    /// The first of the (up to 4) tags the operations use; choose ones your code does not use concurrently.
    int tag = default_matrix_tag;
    /// Called on the test node after each point is measured and verified (for progress displays).
    std::function<void(const record&)> on_point = {};
};

/// The number of records `kernel` (update_guard, shift_matrix, transpose, row_broadcast,
/// col_broadcast) returns for `cfg` (for progress displays); 0 for another name.
COMET_DECL std::size_t matrix_kernel_points(std::string_view kernel, const matrix_config& cfg);

namespace detail {

/// Checks `cfg` on the calling rank (every rank checks the same values, so a bad one fails on
/// every rank with the same message) and returns the mesh of `t`'s group.
template <transport T>
processor_mesh matrix_kernel_mesh(const T& t, const matrix_config& cfg, std::string_view kernel) {
    const int p = t.size();
    processor_mesh mesh(1);
    try {
        mesh = processor_mesh(p);
    } catch (const invalid_argument& e) {
        raise<invalid_argument>(t.rank(), kernel, ": ", e.what());
    }
    if (cfg.test_node < 0 || cfg.test_node >= p)
        raise<invalid_argument>(t.rank(), kernel, ": test node ", cfg.test_node, " is outside 0..", p - 1);
    check_sampling(t.rank(), kernel, cfg.sampling);
    check_matrix_tag(t, cfg.tag, 4, kernel);
    for (int d : cfg.dims) {
        if (d < 1 || d > matrix_max_dim)
            raise<invalid_argument>(t.rank(), kernel, ": matrix dimension ", d, " is outside 1..", matrix_max_dim);
        if (std::int64_t{mesh.cols()} * d > matrix_max_global_dim)
            raise<invalid_argument>(t.rank(), kernel, ": matrix dimension ", d, " on a ", mesh.rows(), " x ",
                                    mesh.cols(), " mesh exceeds the ", matrix_max_global_dim,
                                    " global columns the setup values encode");
    }
    return mesh;
}

/// One point of a matrix kernel on matrix `m` (freshly set up here), sampled by the engine on
/// every rank: each sample is a repeat loop of `op()` on every rank, started from a barrier (so
/// no loop starts behind a neighbour's), and its time is the largest of the ranks' times per
/// operation. Then the collective verification against `expect(applications)`, counting every
/// operation the calibration, warm-up and samples applied; then, on the test node, `rec` with
/// the samples appended to `out`.
template <transport T, class Op, class Expect>
void matrix_point(T& t, const matrix_config& cfg, distributed_matrix& m, record rec, Op&& op, Expect&& expect,
                  result_set& out) {
    m.setup();
    ops::barrier(t);
    std::int64_t applications = 0;
    auto measured = sample_points(t, 1, cfg.sampling, cfg.test_node, rank_set::every(t.size()), sample_reduction::max_over_ranks,
                                  [&](std::size_t, std::size_t iterations) -> std::optional<repeat_result> {
                                      ops::barrier(t);
                                      applications += static_cast<std::int64_t>(iterations);
                                      return repeat(t, iterations, [&] { op(); });
                                  });
    verify_all(t, m, expect(applications));
    if (t.rank() != cfg.test_node) return;
    fill_record(rec, std::move(measured[0]), cfg.sampling, sample_reduction::max_over_ranks);
    if (cfg.on_point) cfg.on_point(rec);
    out.records.push_back(std::move(rec));
}

/// A record of `kernel` for block dimension `dim` on `nodes` ranks: params {matrix_dim, nodes}.
COMET_DECL record matrix_record(std::string_view kernel, int dim, int nodes);

}  // namespace detail
}  // namespace comet::kernels

#if !defined(COMET_COMPILED)
#include <comet/kernels/matrix/kernel.ipp>
#endif
