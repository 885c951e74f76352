// comet/suite/analyses.hpp — the analyses a kernel descriptor lists (`kernel_descriptor::
// analyses`), each reading the kernel's records from a report and adding what it derives, with
// the descriptor's figure statistic: transfer fits and bandwidth, growth with log P, linear or
// quadratic growth in a parameter, contention slow-downs, overlap gains, COMMTEST's statistics,
// NIST's speedups and equation 1. What cannot be derived becomes a note in the report saying
// what to run instead; nothing throws.
//
// The computations live in stats/ (curves, fits, COMMTEST) and analysis/ (contention, overlap,
// delays); these only connect them to a report.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/analysis/contention.hpp>
#include <comet/analysis/delays.hpp>
#include <comet/analysis/fit_machine.hpp>
#include <comet/analysis/overlap.hpp>
#include <comet/core/errors.hpp>
#include <comet/report/report.hpp>
#include <comet/stats/bandwidth.hpp>
#include <comet/stats/commtest.hpp>
#include <comet/stats/fit.hpp>
#include <comet/stats/growth.hpp>
#include <comet/suite/descriptor.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet::analyses {

namespace detail {

/// Moves the elements of `from` to the end of `to`. Why not `to.insert(to.end(), ...)`: a
/// vector's range insert instantiates its own copy, move and reallocation templates for every
/// element type, compiled wherever this header is included (the umbrella header too), while
/// the push_back it stands for is the one the analyses already instantiate to build `from`.
template <class T>
void append(std::vector<T>& to, std::vector<T>&& from) {
    to.reserve(to.size() + from.size());
    for (T& x : from) to.push_back(std::move(x));
}

/// The records of `kernel` measured on the largest group in `results` (the thesis fits its
/// echo and exchange figures on its largest machine, 16 nodes).
COMET_DECL result_set largest_group(const result_set& results, std::string_view kernel);

}  // namespace detail

/// t = t_startup + N·t_per_byte (+ hops) and the bandwidth figures, on the largest group
/// measured (echo, pairwise). The transfer model reads medians (stats/fit.hpp).
COMET_DECL kernel_analysis transfer_fits();

/// Time against log2 P across the group sizes measured (the collectives).
COMET_DECL kernel_analysis log_p();

/// Linear against quadratic growth in the numeric param `x` on the largest group measured
/// (the matrix kernels in `matrix_dim`).
COMET_DECL kernel_analysis growth_in(std::string x);

/// Echo under each load against idle (contention).
COMET_DECL kernel_analysis slowdown_under_load();

/// Synchronous against asynchronous exchange with computation (overlap).
COMET_DECL kernel_analysis gain_from_overlap();

/// The LogGOPS machine fitted to Netgauge's round trips (loggp; analysis/fit_machine.hpp), on the
/// largest group measured, as a note naming every parameter and S; its flags as notes too.
COMET_DECL kernel_analysis machine_fit();

/// COMMTEST's statistics (stats/commtest.hpp) of every experiment of the kernel: a, b, latency,
/// bandwidths and the model's error, with N1 = 512 and N2 = 1024. Read from each point's least
/// time whatever the descriptor's figure statistic: the seed's b is the maximum achieved
/// bandwidth. Every group size is its own experiment (`nodes` is part of the group).
COMET_DECL kernel_analysis commtest_statistics();

/// The speedups and equation 1 of a dilation study (analysis/delays.hpp, `estimate_dilations`),
/// written into the kernel's records (per series of records that differ in `dilation` alone),
/// and the seed's tables of them (`dilation_tables`).
COMET_DECL kernel_analysis dilation_estimates();

}  // namespace comet::analyses

#if !defined(COMET_COMPILED)
#include <comet/suite/analyses.ipp>
#endif
