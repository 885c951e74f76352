// comet/report/context.hpp — where and how a set of results was measured: transport, node
// count, comet version, host, date, compiler and command line, plus free key/value pairs.
//
// Every reporter writes it next to the results (google/benchmark's "context" object), because
// a number without the machine and build that produced it cannot be compared with anything.
// Filled once, by the program that runs the suite; kernels never see it.
#pragma once

#include <array>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#if __has_include(<unistd.h>)
#include <unistd.h>
#define COMET_HAS_GETHOSTNAME 1
#endif

namespace comet {

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
};

namespace detail {

/// comet's version, as written into every report (the project() version in CMakeLists.txt).
inline constexpr const char* comet_version = "0.1.0";

inline std::string host_name() {
#ifdef COMET_HAS_GETHOSTNAME
    std::array<char, 256> buf{};
    if (::gethostname(buf.data(), buf.size() - 1) == 0) return std::string(buf.data());  // NUL kept by size − 1
#endif
    return "unknown";
}

inline std::string utc_now_iso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
#if defined(_WIN32)
    gmtime_s(&tm, &now);
#else
    gmtime_r(&now, &tm);  // gmtime() shares one static buffer between threads
#endif
    std::array<char, 32> buf{};
    const std::size_t n = std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return std::string(buf.data(), n);
}

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

}  // namespace detail

/// A context for a run on `transport` with `nodes` ranks, with host, date (now, UTC), compiler
/// and comet version filled in. The caller adds `command_line` and `extra`.
/// @code
///   auto ctx = comet::make_context("threads", 4);
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
    return c;
}

/// The command line as one string, each argument that holds a space, quote or backslash
/// single-quoted (POSIX shell style) so the line can be pasted back into a shell.
inline std::string command_line_of(int argc, const char* const* argv) {
    std::string out;
    for (int i = 0; i < argc; ++i) {
        if (i > 0) out += ' ';
        const std::string arg = argv[i] ? argv[i] : "";
        if (!arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos) {
            out += arg;
            continue;
        }
        out += '\'';
        for (char c : arg) {
            if (c == '\'')
                out += "'\\''";
            else
                out += c;
        }
        out += '\'';
    }
    return out;
}

}  // namespace comet
