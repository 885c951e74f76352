// The comet program's pieces: its settings, and one launch function per transport (each in
// its own file, so a transport's dependencies stay in its own translation unit).
#pragma once

#include <comet/report/context.hpp>
#include <comet/stats/record.hpp>
#include <comet/suite/suite.hpp>

#include <exception>
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
    /// --help: the text to print (and nothing to run).
    std::string help;
    std::string transport = "threads";
    /// --nodes P[,P...]: the group sizes to run the suite on, each in turn (the thesis ran it
    /// on 2, 4, 8 and 16 nodes). Empty: the transport's default.
    std::vector<int> nodes;
    comet::suite_config suite;
    std::string out;
    std::optional<double> break_size;
    /// Whether --reps, --samples or --max-samples was given (else a launch may choose how its
    /// transport is best sampled: the simulator takes the thesis' fixed loops).
    bool sampling_given = false;
    /// --set key=value, in order: settings of the chosen transport (e.g. the simulated
    /// machine's parameters), for its launch to interpret.
    std::vector<std::pair<std::string, std::string>> transport_options;
    int argc = 0;
    char** argv = nullptr;
};

/// What a launch measured, and how to report it.
struct outcome {
    comet::result_set results;  ///< every group size's records (each carries its `nodes`)
    std::vector<int> groups;     ///< the group sizes the suite ran on
    comet::context ctx;
    bool writes_report = true;  ///< false on the processes of an MPI job other than rank 0
    /// The transfer fits' break when --break is not given (the iPSC/860's 100 bytes).
    std::optional<double> break_size;
    /// Show the thesis' figures beside the measured ones (the simulated iPSC/860, not the iPSC/1).
    bool compare_with_thesis = false;
    /// The run is a pure function of the command line (a simulation): leave the host's date,
    /// name and clock out of the report, so that the same command writes the same bytes.
    bool deterministic = false;
    /// How the launch sampled, when it chose other than the command line's sampling.
    std::optional<comet::sampling> sampling;
    /// The run ended early (a signal, an error): where and why; `results` hold what was
    /// measured up to there.
    std::optional<comet::stop_note> stopped;
    /// The error that stopped it, rethrown once the report is written (none for a signal).
    std::exception_ptr failure;
};

/// Checks that --test-node names a rank of every group of `groups`: the test node measures and
/// its records are the report's.
inline void check_test_node(const settings& s, const std::vector<int>& groups) {
    const int n = s.suite.transfer.test_node;
    for (int p : groups)
        if (n >= p)
            throw usage_error("--test-node " + std::to_string(n) + ": not a rank of a group of " + std::to_string(p) +
                              (p == 1 ? " node (0)" : " nodes (0.." + std::to_string(p - 1) + ")"));
}

/// Each runs the suite on its transport; a transport not built in throws usage_error.
outcome launch_threads(const settings& s);
outcome launch_mpi(const settings& s);
/// The simulator, with the machine --transport names: ipsc860 or ipsc1.
outcome launch_ipsc860(const settings& s);

}  // namespace comet_program
