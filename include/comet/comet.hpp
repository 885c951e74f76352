// comet/comet.hpp — everything comet offers that needs no MPI: the Transport concept, the
// operations over it (comet::ops) and their portable algorithms, the transport adaptor, the
// threads transport, timing, statistics and fits, topology, the kernels, the analyses of
// their records, the suite of kernel descriptors and the reporters.
// (The MPI transport and the simulated iPSC/860, which need MPI and Boost.Context, have their
// own headers: comet/transport/mpi.hpp, comet/transport/nx2.hpp.)
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/version.hpp>

#include <comet/algorithms/collectives.hpp>
#include <comet/algorithms/point_to_point.hpp>
#include <comet/ops/ops.hpp>

#include <comet/nbc/engine.hpp>
#include <comet/nbc/progress_thread.hpp>

#include <comet/stats/compare.hpp>
#include <comet/stats/fit.hpp>
#include <comet/stats/growth.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <comet/timing/clock.hpp>
#include <comet/timing/delay.hpp>
#include <comet/timing/global_clock.hpp>
#include <comet/timing/repeat.hpp>

#include <comet/topology/hypercube.hpp>
#include <comet/topology/mesh.hpp>

#include <comet/transport/adaptor.hpp>
#include <comet/transport/threads.hpp>

#include <comet/kernels/collectives.hpp>
#include <comet/kernels/contention.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/kernels/matrix/matrix.hpp>
#include <comet/kernels/nbc.hpp>
#include <comet/kernels/overlap.hpp>
#include <comet/kernels/swap.hpp>

#include <comet/analysis/contention.hpp>
#include <comet/analysis/overlap.hpp>
#include <comet/analysis/predict.hpp>
#include <comet/analysis/thesis.hpp>

#include <comet/suite/analyses.hpp>
#include <comet/suite/builtin.hpp>
#include <comet/suite/config.hpp>
#include <comet/suite/descriptor.hpp>
#include <comet/suite/output.hpp>
#include <comet/suite/suite.hpp>

#include <comet/report/context.hpp>
#include <comet/report/csv.hpp>
#include <comet/report/gbench.hpp>
#include <comet/report/json.hpp>
#include <comet/report/json_read.hpp>
#include <comet/report/gnuplot.hpp>
#include <comet/report/plot.hpp>
#include <comet/report/plot_model.hpp>
#include <comet/report/report.hpp>
#include <comet/report/table.hpp>
#include <comet/report/thesis.hpp>
#include <comet/report/thesis_plots.hpp>

// The 0.1 names that moved, for one release (CHANGELOG.md).
#include <comet/deprecated.hpp>
// Last, after every kernel: with COMET_COMPILED, the kernels above declared as instantiated on
// the threads transport in the library (comet/compiled/threads.hpp); header-only, nothing more.
#include <comet/compiled/threads.hpp>
