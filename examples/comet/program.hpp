// The comet program's pieces: its settings, and one launch function per transport (each in
// its own file, so a transport's dependencies stay in its own translation unit).
#pragma once

#include <comet/report/context.hpp>
#include <comet/stats/record.hpp>
#include <comet/suite/suite.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace comet_program {

/// A command-line mistake: reported as "comet: <what>" with exit status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct settings {
    std::string transport = "threads";
    std::optional<int> nodes;  ///< unset: the transport's default
    comet::suite_config suite;
    std::string out;
    std::optional<double> break_size;
    /// --set key=value, in order: settings of the chosen transport (e.g. the simulated
    /// machine's parameters), for its launch to interpret.
    std::vector<std::pair<std::string, std::string>> transport_options;
    int argc = 0;
    char** argv = nullptr;
};

/// What a launch measured, and whether this process writes the report (under MPI only one
/// process does).
struct outcome {
    comet::result_set results;
    comet::context ctx;
    bool writes_report = true;
};

/// Each runs the suite on its transport; a transport not built in throws usage_error.
outcome launch_threads(const settings& s);
outcome launch_mpi(const settings& s);
outcome launch_ipsc860(const settings& s);

}  // namespace comet_program
