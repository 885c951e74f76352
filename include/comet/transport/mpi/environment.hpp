// comet/transport/mpi/environment.hpp — what the MPI transport needs from MPI besides messages:
// starting MPI, describing the library, turning MPI error codes into comet errors, waiting
// asleep for the job's other processes, and ending a job when one of its ranks fails.
//
// Part of the MPI transport (comet/transport/mpi.hpp); link the comet::mpi CMake target.
#pragma once

#include <comet/core/errors.hpp>

#include <boost/mpi/environment.hpp>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

namespace comet::mpi {

/// Starts MPI (MPI_Init_thread, through boost::mpi::environment, asking for `level`) unless it
/// is running already; MPI is then finalized when the program exits. Calling it again does
/// nothing, and a program that starts MPI itself (its own boost::mpi::environment, or MPI_Init)
/// need not call it. The level decides whether a progress thread may call MPI while the rank's
/// own thread computes (transport::serialized_threads): `serialized` allows it. It is not the
/// default, because it is not free: with Open MPI 4.1, the conformance check's nonblocking
/// exchange on three processes, a CPU-bound process per core of two beside them, did not finish
/// within its 20 s under MPI_THREAD_SERIALIZED in 4 runs of 4, and finished under
/// MPI_THREAD_SINGLE in 2 of 2: a figure taken under it is that library mode's, not the default's.
/// @code
///   comet::mpi::initialize();                                        // MPI_THREAD_SINGLE
///   comet::mpi::initialize(boost::mpi::threading::serialized);       // a progress thread may run
///   boost::mpi::communicator world;   // MPI_COMM_WORLD
/// @endcode
inline void initialize(boost::mpi::threading::level level = boost::mpi::threading::single) {
    if (boost::mpi::environment::initialized()) return;
    // A function-local static: constructed on the first call that finds MPI not running, and
    // destroyed (MPI_Finalize) after main returns, so every comet::mpi::run of the program
    // shares one MPI session (MPI cannot be started twice). comet's run catches exceptions
    // itself, so the environment need not abort on one.
    static boost::mpi::environment env(level, false);
}

/// The first line of MPI_Get_library_version, e.g. "Open MPI v4.1.4, package: ...", for reports.
inline std::string library_version() {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown";
    std::string v(text, static_cast<std::size_t>(length > 0 ? length : 0));
    v = v.substr(0, v.find('\n'));
    while (!v.empty() && (v.back() == ' ' || v.back() == '\r' || v.back() == '\0')) v.pop_back();
    return v;
}

namespace detail {

/// True while MPI can be called (a request may outlive MPI_Finalize in a careless program).
inline bool mpi_running() noexcept {
    int running = 0, finished = 0;
    MPI_Initialized(&running);
    MPI_Finalized(&finished);
    return running && !finished;
}

/// Waits for every process of `comm` to arrive, sleeping a millisecond between looks: processes
/// outside the group being measured must leave the cores to it (MPI_Barrier spins in most
/// libraries, and a job may have more processes than cores). Collective.
inline void wait_quietly(MPI_Comm comm) {
    MPI_Request done = MPI_REQUEST_NULL;
    MPI_Ibarrier(comm, &done);
    for (int finished = 0;;) {
        MPI_Test(&done, &finished, MPI_STATUS_IGNORE);
        if (finished) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

/// MPI's text for an error code.
inline std::string error_text(int code) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
    return std::string(text, static_cast<std::size_t>(length > 0 ? length : 0));
}

/// The MPI error class of `code` (MPI_ERR_TRUNCATE, ...).
inline int error_class(int code) {
    int cls = code;
    MPI_Error_class(code, &cls);
    return cls;
}

/// Throws comet::error "rank R: <parts...>: <MPI's text>" when `code` is not MPI_SUCCESS. The
/// parts are formatted only then: these checks sit on every message's path.
template <class... Parts>
void check(int code, int rank, const Parts&... parts) {
    if (code != MPI_SUCCESS) [[unlikely]]
        raise<error>(rank, parts..., ": ", error_text(code));
}

/// Ends the whole job: prints "comet: rank R: <message>" as one line on stderr, then calls
/// MPI_Abort(comm, 1), which stops every process of the job with a non-zero exit status.
/// A message that already starts with "rank R: " (comet's own errors do) is not prefixed twice.
[[noreturn]] inline void fail(MPI_Comm comm, int rank, std::string_view message) {
    const std::string prefix = "rank " + std::to_string(rank) + ": ";
    std::string line = "comet: ";
    if (message.substr(0, prefix.size()) != prefix) line += prefix;
    for (char c : message) line += (c == '\n' || c == '\r') ? ' ' : c;  // one line, whatever it says
    line += '\n';
    // One write for the whole line, so the lines of ranks failing at once do not interleave.
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
    int running = 0, finished = 0;
    MPI_Initialized(&running);
    MPI_Finalized(&finished);
    if (running && !finished) MPI_Abort(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, 1);
    std::abort();  // MPI_Abort does not return; this is for an MPI that is not running
}

}  // namespace detail
}  // namespace comet::mpi
