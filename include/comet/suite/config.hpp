// comet/suite/config.hpp — what a suite run is asked to do: which kernels, each built-in
// kernel's configuration, and what the suite sets on every kernel alike (how points are
// sampled, the progress callback).
//
// A kernel added outside the suite keeps its own configuration (in its descriptor's run) and
// takes the shared settings with `suite_config::configured`.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/kernels/clock_sync.hpp>
#include <comet/kernels/collectives.hpp>
#include <comet/kernels/commtest/commtest.hpp>
#include <comet/kernels/contention.hpp>
#include <comet/kernels/loggp.hpp>
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
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

namespace comet {

/// The names of the CoMet suite's kernels, in the thesis' order: what "all" means. The other
/// seeds' kernels (commtest, sync, collectives, nbc, ring, rc, mesh) run when named.
COMET_DECL std::vector<std::string> implemented_kernels();

/// What to run. All ranks pass the same values (@pre). Each built-in kernel has its own
/// configuration; the common block — `sampling`, `test_node`, `on_point`, `stop`, `rounds` —
/// applies to every kernel alike, the suite's and a caller's (`configured`, `attached`).
struct suite_config {
    /// The kernels to run, in this order (names of kernel descriptors).
    std::vector<std::string> kernels = implemented_kernels();
    kernels::transfer_config transfer = {};  ///< echo and pairwise
    kernels::broadcast_config broadcast = {};
    kernels::global_sum_config global_sum = {};
    kernels::barrier_config barrier = {};
    /// Its load sizes are measured on this machine (this run's echo at 1 hop when echo runs
    /// before it, else a short echo) while its `load_source` is "configured"; "thesis" or
    /// "given" keeps its `load_sizes` (kernels/contention.hpp).
    kernels::contention_config contention = {};
    kernels::overlap_config overlap = {};
    kernels::matrix_config matrix = {};  ///< update_guard, shift_matrix, transpose, row_broadcast, col_broadcast
    /// COMMTEST's SWAP protocols (seed 001); one exchange per sample whatever `sampling` says.
    kernels::commtest::commtest_config commtest = {};
    /// COMMTEST's cache modes, run one after the other (records named by their `cache`); empty:
    /// `commtest.cache` alone. The seed's figures set warm and flushed beside each other.
    std::vector<kernels::commtest::cache_setting> commtest_caches = {};
    /// Clock synchronisation, linear and log P (seed 002, section 3).
    kernels::clock_sync_config sync = {};
    /// Collectives measured in time windows and pipelined, every per-rank reduction (seed 002).
    /// Its own measurement scheme: `sampling` does not apply.
    kernels::windowed_collectives_config collectives = {};
    /// Nonblocking collectives: blocking time, time- and work-based overhead, progression (seed
    /// 002, section 4). Its own measurement scheme: `sampling` does not apply.
    kernels::nbc_config nbc = {};
    /// Netgauge's parametrised round trips, from which `comet fit-machine` fits a LogGOPS
    /// machine (kernels/loggp.hpp, docs/loggops.md). Its `transfer` block samples as echo does.
    kernels::loggp_config loggp = {};
    /// NIST's synthetic applications (ring, rc, mesh) under time dilation, their service states
    /// (seed 003). Each run is one sample: `sampling` does not apply.
    kernels::nist::study_config nist = {};
    /// When set, how every kernel samples its points, in place of each kernel's own `sampling`.
    std::optional<comet::sampling> sampling = {};
    /// When set, the rank every kernel measures on and returns its records from, in place of
    /// each kernel's own `test_node` (run_suite checks it is in the group).
    std::optional<int> test_node = {};
    /// Passes over the kernels (at least 1), each point's samples pooled in one record, a round
    /// each (record::rounds): rounds spread over the run show how much the machine's state
    /// moves a point, which `comet compare` tests. The kernels whose records describe one run
    /// (kernel_descriptor::one_run) run in the first pass only.
    int rounds = 1;
    /// Called on the measuring rank after each point (for progress displays).
    std::function<void(const record&)> on_point = {};
    /// Called on every rank as each kernel starts, with its name (so a program that stops
    /// half-way can say which kernel was running). Ranks may call it from their own threads.
    std::function<void(const std::string&)> on_kernel = {};
    /// A request to stop the run early (the comet program turns SIGINT and SIGTERM into one).
    /// Every measurement engine reads it on its deciding rank before each sample (a window
    /// batch, a NIST run, a sync) and shares the answer with the sample's other decisions, so
    /// the kernel running ends within one sample on every rank, keeping what it measured; then
    /// run_suite throws `suite_stopped` with `stop_reason()` on every rank.
    std::stop_token stop = {};
    /// Why the run was asked to stop ("interrupted (SIGINT)"); unset: "stop requested".
    std::function<std::string()> stop_reason = {};

    /// `c` (a kernel's configuration) with what the suite sets on every kernel whatever its
    /// measurement scheme: the stop request (into its `stop`, `sampling.stop` or
    /// `window.stop`, whichever it has), `test_node` when set, and `on_point`.
    template <class KernelConfig>
    KernelConfig attached(KernelConfig c) const {
        if constexpr (requires { c.test_node = 0; })
            if (test_node) c.test_node = *test_node;
        if constexpr (requires { c.stop = stop; }) c.stop = stop;
        if constexpr (requires { c.sampling.stop = stop; }) c.sampling.stop = stop;
        if constexpr (requires { c.window.stop = stop; }) c.window.stop = stop;
        if (on_point) c.on_point = on_point;
        return c;
    }

    /// `c` (a kernel's configuration, with `sampling` and `on_point` members) with what the
    /// suite sets on every kernel: its `sampling`, when set, and what `attached` sets.
    /// @code  return my_kernel(t, run.config.configured(my_config));  @endcode
    template <class KernelConfig>
    KernelConfig configured(KernelConfig c) const {
        if (sampling) c.sampling = *sampling;
        return attached(std::move(c));
    }
};

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/suite/config.ipp>
#endif
