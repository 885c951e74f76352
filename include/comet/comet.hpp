// comet/comet.hpp — everything comet offers that needs no MPI: the Transport concept, the
// threads transport, timing, statistics and fits, topology, the kernels and the reporters.
// (The MPI transport and the simulated iPSC/860, which need MPI and Boost.Context, have their
// own headers: comet/transport/mpi.hpp, comet/transport/nx2.hpp.)
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>

#include <comet/stats/fit.hpp>
#include <comet/stats/growth.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <comet/timing/clock.hpp>
#include <comet/timing/delay.hpp>
#include <comet/timing/repeat.hpp>

#include <comet/topology/hypercube.hpp>
#include <comet/topology/mesh.hpp>

#include <comet/transport/threads.hpp>

#include <comet/kernels/collectives.hpp>
#include <comet/kernels/contention.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/kernels/matrix/matrix.hpp>
#include <comet/kernels/overlap.hpp>

#include <comet/suite/suite.hpp>

#include <comet/report/context.hpp>
#include <comet/report/csv.hpp>
#include <comet/report/json.hpp>
#include <comet/report/plot.hpp>
#include <comet/report/report.hpp>
#include <comet/report/table.hpp>
#include <comet/report/thesis.hpp>
