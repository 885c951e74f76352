// The comet program's pieces: its settings, and one launch function per transport (each in
// its own file, so a transport's dependencies stay in its own translation unit).
#pragma once

#include <comet/report/context.hpp>
#include <comet/stats/commtest.hpp>
#include <comet/stats/compare.hpp>
#include <comet/stats/derived_table.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>
#include <comet/suite/suite.hpp>
#include <comet/transport/decorators/noisy.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <system_error>
#include <sstream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace comet_program {

/// A command-line mistake: reported as "comet: <what>" with exit status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The results.json a run names on the command line: the file itself, or the one in a report
/// folder (what `--out DIR` wrote).
inline std::string results_path(const std::string& run) {
    std::error_code ec;
    return std::filesystem::is_directory(run, ec) ? (std::filesystem::path(run) / "results.json").string() : run;
}

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
    /// --rounds R: passes over the suite, each taking a point's full sampling, one after the
    /// other; a point's record pools them and says how many samples each round took
    /// (comet::record::rounds). 0: the transport's default (rounds_default).
    int rounds = 0;
    /// --set key=value, in order: settings of the chosen transport (e.g. the simulated
    /// machine's parameters), for its launch to interpret.
    std::vector<std::pair<std::string, std::string>> transport_options;
    /// --machine FILE: the LogGOPS machine of --transport loggops (docs/loggops.md); empty: the
    /// library's preset.
    std::string machine_file;
    /// --measured RUN: the run the prediction is put beside (--transport loggops; empty: none).
    std::string measured_file;
    /// --noise: detours the launch puts on the ranks (comet::noisy), none when empty.
    comet::noise noise;
    /// --n1, --n2: the message counts COMMTEST's a is computed from, when given (unset: the
    /// analysis' own, the seed's 512 and 1024).
    std::optional<comet::commtest_options> commtest_statistics;
    /// Seed parameters given on the command line that no record carries among its params
    /// (sync's patience), as the report's context names them: results.json then says what
    /// produced its figures.
    std::vector<std::pair<std::string, std::string>> context_parameters;
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
    /// Tables the launch derived beyond the suite's analyses (the prediction beside a measured run).
    std::vector<comet::derived_table> tables;
};

/// Rounds a run on real hardware takes unless --rounds says otherwise. Why rounds at all: a
/// point's samples are taken within milliseconds, under one state of the machine (which cores
/// the ranks got, how far apart, what else ran), and that state moves between the stretches of
/// a run by more than the samples spread; rounds spread over the run let `comet compare` test
/// a point on how its round medians vary, instead of taking one stretch's samples for the
/// run's (comet/stats/compare.hpp). Why 8: from 7 a side compare tests the rounds with the
/// U test, which a round caught in another state of the machine does not blind (below, with
/// Welch's t, it does), and at 8 a side up to 7 of the 64 pairs of rounds may be out of order
/// with p still below 0.01. Each round costs a full pass of the suite.
inline constexpr int rounds_default = 8;

/// `cfg` as the rounds after the first measure it (comet::suite_later_rounds).
inline comet::suite_config later_rounds(const comet::suite_config& cfg, std::span<const comet::kernel_descriptor> all) {
    return comet::suite_later_rounds(cfg, all);
}

/// The points a run of `first` then `rounds` − 1 rounds of `later` measures on `groups`.
inline std::size_t points_in_rounds(const comet::suite_config& first, const comet::suite_config& later, int rounds,
                                    const std::vector<int>& groups, std::span<const comet::kernel_descriptor> all) {
    std::size_t points = 0;
    for (int p : groups)
        points += comet::suite_points(first, p, all) + static_cast<std::size_t>(rounds - 1) * comet::suite_points(later, p, all);
    return points;
}

/// What the context says of the rounds.
inline std::string rounds_text(int rounds, const comet::suite_config& first, const comet::suite_config& later) {
    std::string once;  // the kernels measured in the first round only
    for (const auto& k : first.kernels)
        if (std::find(later.kernels.begin(), later.kernels.end(), k) == later.kernels.end()) once += (once.empty() ? "" : ", ") + k;
    if (rounds > 1 && later.kernels.empty()) return "1 pass of the suite: its kernels' records each describe one run (" + once + ")";
    std::string out = std::to_string(rounds) + (rounds == 1 ? " pass" : " passes") + " of the suite, each point's samples pooled (record rounds)";
    if (rounds > 1 && !once.empty()) out += "; " + once + " in the first only (a record of one run)";
    return out;
}

using comet::add_round;  // a round's records pooled into the run's (comet/suite/suite.hpp)

/// What --noise put on the ranks, for the report's context: "random 1000 us detours, 1% of the
/// time, on ranks 1 (seed 7); ...".
inline std::string describe(const comet::noise& n) {
    std::string out;
    for (const auto& d : n) {
        std::ostringstream os;
        os << (d.when == comet::detour_source::timing::periodic ? (d.aligned ? "periodic (aligned) " : "periodic ") : "random ")
           << d.length * 1e6 << " us detours, " << d.share * 100 << "% of the time, on ";
        if (d.ranks.empty()) os << "every rank";
        else {
            os << (d.ranks.size() == 1 ? "rank " : "ranks ");
            for (std::size_t i = 0; i < d.ranks.size(); ++i) os << (i ? "+" : "") << d.ranks[i];
        }
        os << " (seed " << d.seed << ")";
        out += (out.empty() ? "" : "; ") + os.str();
    }
    return out;
}

/// `fn(t)` on `t`, or on `t` under the detours of `n` when there are any (comet::noisy).
template <class Transport, class Fn>
auto with_noise(Transport& t, const comet::noise& n, Fn&& fn) {
    if (n.empty()) return fn(t);
    comet::noisy<Transport> noisy(t, n);
    return fn(noisy);
}

/// Checks that --test-node names a rank of every group of `groups`: the test node measures and
/// its records are the report's.
inline void check_test_node(const settings& s, const std::vector<int>& groups) {
    const int n = s.suite.transfer.test_node;
    for (int p : groups)
        if (n >= p)
            throw usage_error("--test-node " + std::to_string(n) + ": not a rank of a group of " + std::to_string(p) +
                              (p == 1 ? " node (0)" : " nodes (0.." + std::to_string(p - 1) + ")"));
}

/// Checks that --matrix-row and --matrix-col name a row and a column of the global matrix at
/// every --matrix-dims on every group of `groups` that row_broadcast or col_broadcast runs on:
/// a dim × dim block on each node of the thesis' processor mesh (4.3) makes a global matrix of
/// (mesh rows · dim) × (mesh columns · dim).
inline void check_matrix_lines(const settings& s, const std::vector<int>& groups) {
    const auto& c = s.suite;
    const auto runs = [&](const char* kernel, int p) {
        return std::find(c.kernels.begin(), c.kernels.end(), kernel) != c.kernels.end() && !comet::suite_skip_reason(kernel, p);
    };
    for (int p : groups) {
        const bool rows = runs("row_broadcast", p), cols = runs("col_broadcast", p);
        if (!rows && !cols) continue;
        const comet::processor_mesh mesh(p);
        for (int d : c.matrix.dims) {
            const auto fail = [&](const char* option, std::int64_t index, const char* what, std::int64_t count) {
                throw usage_error(std::string("--") + option + " " + std::to_string(index) + ": outside the " + std::to_string(count) +
                                  " " + what + " of the global matrix on " + std::to_string(p) + " nodes at --matrix-dims " +
                                  std::to_string(d) + " (a " + std::to_string(mesh.rows()) + " x " + std::to_string(mesh.cols()) +
                                  " mesh of " + std::to_string(d) + " x " + std::to_string(d) + " blocks)");
            };
            if (rows && c.matrix.row >= std::int64_t{mesh.rows()} * d) fail("matrix-row", c.matrix.row, "rows", std::int64_t{mesh.rows()} * d);
            if (cols && c.matrix.col >= std::int64_t{mesh.cols()} * d) fail("matrix-col", c.matrix.col, "columns", std::int64_t{mesh.cols()} * d);
        }
    }
}

/// Each runs the suite on its transport; a transport not built in throws usage_error.
outcome launch_threads(const settings& s);
outcome launch_mpi(const settings& s);
/// The simulator, with the machine --transport names: ipsc860 or ipsc1.
outcome launch_ipsc860(const settings& s);
/// A LogGOPS machine (--machine FILE).
outcome launch_loggops(const settings& s);

}  // namespace comet_program
