// comet/report/context.hpp — where and how a set of results was measured: transport, node
// count, comet version, host, date, compiler and command line; the build (release or debug,
// sanitizers); the machine (CPU model, cores, caches, frequency governor and turbo, load
// average at the start and the end of the run); the MPI library; what the transport offers;
// and the notes a reader must see before trusting a time (a loaded machine, frequency scaling,
// a debug or sanitizer build). Plus free key/value pairs.
//
// Every reporter writes it next to the results (google/benchmark's "context" object), because
// a number without the machine and build that produced it cannot be compared with anything: a
// latency that swings 100× between two runs is explained by a load average of 5 on 2 cores,
// and only if the report kept it. Filled once, by the program that runs the suite; kernels
// never see it. Reading the machine is split from judging it: `read_machine()` takes the raw
// readings, `context_notes()` turns readings into notes, so the judgement can be tested on any
// readings. Deliberately not here: anything MPI (the MPI launcher fills `mpi_library`, so this
// header includes no MPI), and any measurement of the clock (timing/clock.hpp).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/version.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if __has_include(<unistd.h>)
#include <unistd.h>
#define COMET_HAS_GETHOSTNAME 1
#endif
#if defined(__unix__) || defined(__APPLE__)  // getloadavg in <cstdlib>: glibc, the BSDs, macOS
#define COMET_HAS_GETLOADAVG 1
#endif
#if defined(__linux__) && __has_include(<sched.h>)
#include <sched.h>  // sched_getaffinity, CPU_COUNT (glibc; g++ defines _GNU_SOURCE)
#define COMET_HAS_SCHED_GETAFFINITY 1
#endif
#if defined(__has_feature)  // clang; gcc from 14
#define COMET_DETAIL_HAS_FEATURE(x) __has_feature(x)
#else
#define COMET_DETAIL_HAS_FEATURE(x) 0
#endif

namespace comet {

/// One level of the CPU's cache, as /sys/devices/system/cpu/cpu0/cache/index*/ reports it.
struct cache_info {
    int level = 0;              ///< 1, 2, 3, ...
    std::string type;           ///< "Data", "Instruction" or "Unified"
    std::uint64_t size = 0;     ///< bytes
    friend bool operator==(const cache_info&, const cache_info&) = default;
};

/// The system's load average (getloadavg): runnable tasks, averaged exponentially over 1, 5
/// and 15 minutes. Linux samples it every 5 s, so a burst of work shows in `one` after some
/// seconds, not at once.
struct load_average {
    double one = 0.0;
    double five = 0.0;
    double fifteen = 0.0;
};

/// The machine as read from the operating system, raw: no judgement here (see
/// `context_notes`). Empty strings, zero counts and empty optionals mean "not recorded" (a
/// hand-made context, or a simulation's, whose results do not depend on the host); a value
/// that was looked for and could not be read is "unknown".
struct machine_readings {
    std::string cpu_model;          ///< /proc/cpuinfo "model name"
    int logical_cores = 0;          ///< std::thread::hardware_concurrency(): CPUs online
    int usable_cores = 0;           ///< CPUs this process may run on (sched_getaffinity)
    std::vector<cache_info> caches;  ///< cpu0's caches, lowest level first
    std::string governor;           ///< cpu0's cpufreq scaling_governor ("performance", "powersave", ...)
    std::string turbo;              ///< "on", "off" (intel_pstate/no_turbo or cpufreq/boost), or "unknown"
    std::optional<load_average> load_start;  ///< when the context was made
    std::optional<load_average> load_end;    ///< when the program said the run ended
    /// Busy ranks of the run itself on this machine when `load_end` was read: they count in
    /// it, and are not "other work".
    int local_ranks = 0;
};

/// How the code that made the context was compiled (the translation unit that called
/// make_context: with a header-only library, that is the program's build). A program whose
/// translation units differ in NDEBUG or optimisation gets one of them.
struct build_info {
    std::string type;               ///< "release" (NDEBUG defined) or "debug"; empty: not recorded
    std::optional<bool> optimized;  ///< compiled with optimisation (__OPTIMIZE__); empty: not known
    std::vector<std::string> sanitizers;  ///< "address", "thread", "memory", "hwaddress", "undefined" (clang only)
};

/// The circumstances of one run.
struct context {
    std::string transport;      ///< "threads", "mpi", "ipsc860", ...
    int nodes = 0;              ///< ranks that took part
    std::string comet_version;  ///< the library version that measured
    std::string host;           ///< host name of the machine running rank 0
    std::string date;           ///< UTC, ISO-8601: 2024-05-01T12:34:56Z
    std::string compiler;       ///< compiler name and version
    std::string command_line;   ///< how the program was started, when it was one
    /// Anything else worth keeping with the results (e.g. {"machine", "ipsc860 d=4"}), in order.
    /// Names should be unique; the JSON reporter keeps the last value of a repeated name.
    std::vector<std::pair<std::string, std::string>> extra;
    build_info build;           ///< release or debug, sanitizers
    machine_readings machine;   ///< the machine that wrote the report, and its load
    std::string mpi_library;    ///< MPI_Get_library_version's first line; empty when not on MPI
    /// What the transport type offers beyond the point-to-point core (`describe_capabilities`).
    std::vector<std::string> transport_capabilities;
};

/// The load average per core of the machine above which a run is flagged as sharing it. At
/// 0.75, three quarters of every core's time is wanted by other work on average, so a rank
/// that wants a core for itself (the threads transport's spinning ranks, an MPI process
/// polling) is likely to be descheduled for whole time slices — milliseconds against
/// microsecond latencies: the 100× swings. Lower would flag the background a desktop always
/// has; at 1.0 a machine is already oversubscribed before it is flagged.
inline constexpr double loaded_per_core = 0.75;

namespace detail {

/// comet's version, as written into every report (comet/version.hpp).
inline constexpr const char* comet_version = comet::version;

COMET_DECL std::string host_name();

COMET_DECL std::string utc_now_iso8601();

/// The compiler of the translation unit that calls it. Inline in both modes, as this_build and
/// make_context are: they read the calling unit's macros, which the compiled part's library
/// (core/compiled.hpp) would replace by its own.
inline std::string compiler_id() {
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#elif defined(_MSC_VER)
    return "msvc " + std::to_string(_MSC_FULL_VER);
#else
    return "unknown";
#endif
}

COMET_DECL std::string trimmed(std::string s);

/// The first line of a (sysfs) file, trimmed; empty when it cannot be read.
COMET_DECL std::optional<std::string> first_line(const std::string& path);

/// "48K" → 49152, "2048K", "30M", "1G"; 0 when it is not that form.
COMET_DECL std::uint64_t cache_size_bytes(const std::string& text);

COMET_DECL std::string cpu_model();

COMET_DECL std::vector<cache_info> caches();

/// "on", "off" or "unknown": intel_pstate's no_turbo (1 = turbo off), else acpi-cpufreq's
/// boost (1 = on). A virtual machine usually shows neither: the host decides, unseen.
COMET_DECL std::string turbo();

COMET_DECL int usable_cores();

COMET_DECL std::string fixed2(double v);

}  // namespace detail

/// The load average now; empty where the system has no getloadavg or it fails.
COMET_DECL std::optional<load_average> read_load_average();

/// This machine as the operating system shows it (Linux's /proc and /sys; elsewhere most
/// fields read "unknown"), with the load average now as `load_start`. Reads a few small
/// files: call it once, outside any timed region.
COMET_DECL machine_readings read_machine();

/// The build of the translation unit that calls it (see build_info).
inline build_info this_build() {
    build_info b;
#ifdef NDEBUG
    b.type = "release";
#else
    b.type = "debug";
#endif
#if defined(__OPTIMIZE__)
    b.optimized = true;
#elif defined(__GNUC__)  // gcc and clang define __OPTIMIZE__ at -O1 and above
    b.optimized = false;
#endif
#if defined(__SANITIZE_ADDRESS__) || COMET_DETAIL_HAS_FEATURE(address_sanitizer)
    b.sanitizers.emplace_back("address");
#endif
#if defined(__SANITIZE_HWADDRESS__) || COMET_DETAIL_HAS_FEATURE(hwaddress_sanitizer)
    b.sanitizers.emplace_back("hwaddress");
#endif
#if defined(__SANITIZE_THREAD__) || COMET_DETAIL_HAS_FEATURE(thread_sanitizer)
    b.sanitizers.emplace_back("thread");
#endif
#if COMET_DETAIL_HAS_FEATURE(memory_sanitizer)
    b.sanitizers.emplace_back("memory");
#endif
#if COMET_DETAIL_HAS_FEATURE(undefined_behavior_sanitizer)  // gcc says nothing of -fsanitize=undefined
    b.sanitizers.emplace_back("undefined");
#endif
    return b;
}

/// What a reader must know before trusting the times, judged from the readings alone (so any
/// readings can be tested): the load average above `loaded_per_core` × the machine's cores at
/// the start, or at the end once the run's own `local_ranks` are taken out of it; a frequency
/// governor other than "performance"; turbo on; sanitizers; a debug or unoptimised build.
/// Nothing is said of what was not read ("unknown" or not recorded).
COMET_DECL std::vector<std::string> context_notes(const machine_readings& m, const build_info& b);

/// The notes of `c`'s readings (see above).
COMET_DECL std::vector<std::string> context_notes(const context& c);

/// A context for a run on `transport` with `nodes` ranks, with host, date (now, UTC), compiler,
/// comet version, the build and the machine (its load now as `load_start`) filled in. Make it
/// when the run starts; the caller adds `command_line`, `transport_capabilities`,
/// `mpi_library` and `extra`, and calls `record_load_at_end` when the run is over.
/// @code
///   auto ctx = comet::make_context("threads", 4);
///   ctx.transport_capabilities = comet::describe_capabilities<comet::threads::transport>();
///   ... run ...
///   comet::record_load_at_end(ctx, 4);
///   ctx.command_line = comet::command_line_of(argc, argv);
/// @endcode
inline context make_context(std::string transport, int nodes) {
    context c;
    c.transport = std::move(transport);
    c.nodes = nodes;
    c.comet_version = detail::comet_version;
    c.host = detail::host_name();
    c.date = detail::utc_now_iso8601();
    c.compiler = detail::compiler_id();
    c.build = this_build();
    c.machine = read_machine();
    return c;
}

/// Reads the load average now into `c.machine.load_end`, with `local_ranks` the run's own busy
/// ranks on this machine (they count in the average; the load note leaves them out).
COMET_DECL void record_load_at_end(context& c, int local_ranks);

/// The command line as one string, each argument that holds a space, quote or backslash
/// single-quoted (POSIX shell style) so the line can be pasted back into a shell.
COMET_DECL std::string command_line_of(int argc, const char* const* argv);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/context.ipp>
#endif
