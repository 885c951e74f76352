// comet/transport/mpi/run.hpp — running a function on this process's rank of an MPI job:
// comet::mpi::run builds the transport on a communicator (MPI_COMM_WORLD unless given one),
// calls the function, and has the ranks meet before the transport goes. `abort`, and an
// exception escaping the function on any rank, print "comet: rank R: <message>" and call
// MPI_Abort, which ends every process of the job with a non-zero status: no rank is left
// waiting.
//
// Part of the MPI transport: include comet/transport/mpi.hpp and link the comet::mpi CMake target.
#pragma once

#include <comet/transport/mpi/environment.hpp>
#include <comet/transport/mpi/transport.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

namespace comet::mpi {

/// Runs `fn(transport&)` on this process's rank of `comm` and returns what it returns. Every
/// process of `comm` calls run with the same function (@pre). After `fn`, the ranks meet in an
/// MPI_Barrier (so no rank frees the communicator while a peer still talks to it). If `fn`
/// throws on any rank, that rank prints "comet: rank R: <what>" on stderr and ends the whole
/// job with MPI_Abort (status 1): no rank is left waiting for it.
/// @code
///   comet::mpi::initialize();
///   boost::mpi::communicator world;
///   auto r = comet::mpi::run(world, [](comet::mpi::transport& t) { return comet::kernels::echo(t, {.sizes = {8}}); });
///   // r: the records measured on this rank (the test node's, on rank 0)
/// @endcode
template <class F>
auto run(const boost::mpi::communicator& comm, options o, F&& fn) -> std::invoke_result_t<F&, transport&> {
    using result = std::invoke_result_t<F&, transport&>;
    // The transport lives outside the try block, so that when fn throws it is still there
    // (with its communicator) for the abort, instead of being torn down while peers wait.
    std::optional<transport> t;
    try {
        t.emplace(comm, o);
        if constexpr (std::is_void_v<result>) {
            fn(*t);
            t->barrier();
        } else {
            result r = fn(*t);
            t->barrier();
            return r;
        }
    } catch (const std::exception& e) {
        detail::fail(t ? t->native() : MPI_Comm(comm), comm.rank(), e.what());
    } catch (...) {
        detail::fail(t ? t->native() : MPI_Comm(comm), comm.rank(), "an exception that is not a std::exception");
    }
}

/// run on `comm` with default options.
template <class F>
auto run(const boost::mpi::communicator& comm, F&& fn) -> std::invoke_result_t<F&, transport&> {
    return run(comm, options{}, std::forward<F>(fn));
}

/// Starts MPI if needed (initialize()) and runs `fn` on this process's rank of MPI_COMM_WORLD.
/// @code
///   int main() {   // mpirun -np 4 ./my_benchmark
///       comet::mpi::run([](comet::mpi::transport& t) {
///           comet::result_set r = comet::kernels::pairwise(t, {.sizes = {1024, 65536}});
///           for (const comet::record& x : r.records)   // on rank 0, the test node
///               std::printf("%s: %.2f us\n", x.kernel.c_str(), x.samples.front() * 1e6);
///       });
///   }
/// @endcode
template <class F>
auto run(F&& fn) -> std::invoke_result_t<F&, transport&> {
    initialize();
    return run(boost::mpi::communicator{}, options{}, std::forward<F>(fn));
}

}  // namespace comet::mpi
