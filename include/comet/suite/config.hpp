// comet/suite/config.hpp — what a suite run is asked to do: which kernels, each built-in
// kernel's configuration, and what the suite sets on every kernel alike (how points are
// sampled, the progress callback).
//
// A kernel added outside the suite keeps its own configuration (in its descriptor's run) and
// takes the shared settings with `suite_config::configured`.
#pragma once

#include <comet/kernels/clock_sync.hpp>
#include <comet/kernels/collectives.hpp>
#include <comet/kernels/commtest/commtest.hpp>
#include <comet/kernels/contention.hpp>
#include <comet/kernels/overlap.hpp>
#include <comet/kernels/matrix/kernel.hpp>
#include <comet/kernels/nbc.hpp>
#include <comet/kernels/nist/kernel.hpp>
#include <comet/kernels/transfer.hpp>
#include <comet/kernels/windowed_collectives.hpp>
#include <comet/stats/record.hpp>
#include <comet/timing/measure.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace comet {

/// The names of the CoMet suite's kernels, in the thesis' order: what "all" means. The other
/// seeds' kernels (commtest, sync, collectives, nbc, ring, rc, mesh) run when named.
inline std::vector<std::string> implemented_kernels() {
    return {"echo",       "pairwise", "broadcast",    "global_sum", "barrier",       "contention",
            "overlap",    "update_guard", "shift_matrix", "transpose", "row_broadcast", "col_broadcast"};
}

/// What to run. All ranks pass the same values (@pre). Each built-in kernel has its own
/// configuration; `sampling` and `on_point`, when set, apply to every kernel.
struct suite_config {
    /// The kernels to run, in this order (names of kernel descriptors).
    std::vector<std::string> kernels = implemented_kernels();
    kernels::transfer_config transfer = {};  ///< echo and pairwise
    kernels::broadcast_config broadcast = {};
    kernels::global_sum_config global_sum = {};
    kernels::barrier_config barrier = {};
    /// Its load sizes come from this run's echo (1 hop) when echo runs before it.
    kernels::contention_config contention = {};
    kernels::overlap_config overlap = {};
    kernels::matrix_config matrix = {};  ///< update_guard, shift_matrix, transpose, row_broadcast, col_broadcast
    /// COMMTEST's SWAP protocols (seed 001); one exchange per sample whatever `sampling` says.
    kernels::commtest::commtest_config commtest = {};
    /// Clock synchronisation, linear and log P (seed 002, section 3).
    kernels::clock_sync_config sync = {};
    /// Collectives measured in time windows and pipelined, every per-rank reduction (seed 002).
    /// Its own measurement scheme: `sampling` does not apply.
    kernels::windowed_collectives_config collectives = {};
    /// Nonblocking collectives: blocking time, time- and work-based overhead, progression (seed
    /// 002, section 4). Its own measurement scheme: `sampling` does not apply.
    kernels::nbc_config nbc = {};
    /// NIST's synthetic applications (ring, rc, mesh) under time dilation, their service states
    /// (seed 003). Each run is one sample: `sampling` does not apply.
    kernels::nist::study_config nist = {};
    /// When set, how every kernel samples its points, in place of each kernel's own `sampling`.
    std::optional<comet::sampling> sampling = {};
    /// Called on the measuring rank after each point (for progress displays).
    std::function<void(const record&)> on_point = {};
    /// Called on every rank as each kernel starts, with its name (so a program that stops
    /// half-way can say which kernel was running). Ranks may call it from their own threads.
    std::function<void(const std::string&)> on_kernel = {};
    /// Asked after each point, where `on_point` is called (after it): a reason stops the suite
    /// there, run_suite throwing `suite_stopped` with it; on the threads transport and the
    /// simulator, an exception on one rank stops them all. A signal handler sets a flag, and
    /// this reads it: the suite stops between two points, never inside one.
    std::function<std::optional<std::string>()> stop = {};

    /// `c` (a kernel's configuration, with `sampling` and `on_point` members) with what the
    /// suite sets on every kernel: the kernel's own configuration when the suite sets nothing.
    /// @code  return my_kernel(t, run.config.configured(my_config));  @endcode
    template <class KernelConfig>
    KernelConfig configured(KernelConfig c) const {
        if (sampling) c.sampling = *sampling;
        if (on_point) c.on_point = on_point;
        return c;
    }
};

}  // namespace comet
