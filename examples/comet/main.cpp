// comet — runs the CoMet suite on a transport and writes the report; compares two runs.
//
//   comet [--transport threads|mpi|ipsc860|ipsc1] [--nodes P] [--kernels echo,pairwise,...|all]
//         [--sizes 0,8,100,4096,...] [--hops 1,2,...] [--reps N] [--out DIR]
//         [--protocols (0,3),(1,0),...|all] [--volumes 8KB,128KB,2MB] [--pairs 0-1,0-2,0-2+1-3]
//         [--cache flushed|warm|repeat:K] [--prepost]                      (--kernels commtest)
//         [--operations broadcast,allreduce,...] [--window-us W] [--measurements M]
//         [--sync linear|logp]                                    (--kernels collectives, sync)
//         [--operations ibcast,iallreduce,...] [--intervals 1024,4096,...]
//         [--progressions none,test,thread]                                   (--kernels nbc)
//         [--rounds R]          passes over the suite, a point's samples kept by pass (default 8; simulators 1)
//         [--global-sum-lengths L,...] [--overlap-sizes B,...] [--overlap-lengths L,...] [--max-vec-len L]
//         [--contention-loads measured|thesis|B1,B2] [--matrix-row R] [--matrix-col C]   (seed 000, the thesis)
//         [--n1 N1] [--n2 N2]                                                   (seed 001, commtest)
//         [--pipeline N] [--patience N]                        (seed 002: collectives, sync, nbc)
//   comet compare A B [--alpha 0.01] [--threshold 0.10]
//   comet fit-machine RUN [--out FILE] [--per-size]  the LogGOPS machine of RUN's loggp records (docs/loggops.md)
//   comet --transport loggops --machine FILE [--nodes P,...]   the suite on that machine
//
// Prints the tables (with the fitted start-up and per-byte times and the other analyses) and,
// with --out, writes DIR/results.json, DIR/gbench.json (Google Benchmark's format),
// DIR/results.csv, DIR/fits.csv, DIR/bandwidth.csv, DIR/summary.txt and the plots in the
// spirit of the thesis' figures, DIR/plots/*.png. Bad options exit with status 2 and a
// one-line reason (options.hpp reads them). SIGINT or SIGTERM stops the suite within the sample
// in progress (a second one writes the report at once), and an error stops it where it
// happened: the summary and the files then hold what was measured up to there and say where
// and why it stopped (stopping.hpp); the status is 128 + the signal, or the error's. `comet compare` reads two results.json (or report
// folders) and prints each shared point's change and what it was tested on (stats/compare.hpp
// says why rounds); it exits 1 when a point is slower in B, 0 otherwise, 2 on bad input.
// Here: main and `comet compare`; the options are options.hpp, the launches are launch_<transport>.cpp, the report and the comparison's
// printing report.hpp, and the kernels their descriptors (comet/suite/builtin.hpp).
#include "options.hpp"
#include "program.hpp"
#include "report.hpp"
#include "stopping.hpp"

#include <comet/analysis/fit_machine.hpp>
#include <comet/report/files.hpp>
#include <comet/report/json_read.hpp>
#include <comet/stats/compare.hpp>

#include <boost/program_options.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace po = boost::program_options;
using comet_program::real;
using comet_program::settings;
using comet_program::usage_error;

namespace {

/// comet compare A B [--alpha a] [--threshold t]: each run a results.json, or a report folder
/// holding one. Returns the exit status: 1 when a point regressed, 0 otherwise; bad input
/// throws (status 2).
int compare(int argc, char** argv) {
    po::options_description desc("comet compare A B: run B against run A (each a results.json or a report folder), point by point");
    desc.add_options()("help,h", "show this help")(
        "alpha", po::value<std::string>()->default_value("0.01"),
        "significance level of the two-sided test: Mann-Whitney U of the round medians (Welch's t with under 7 rounds a side; "
        "U of the samples where a side has one round)")(
        "threshold", po::value<std::string>()->default_value("0.10"),
        "least relative change of a median that counts as slower or faster (0.10: 10%)");
    po::options_description runs;
    runs.add_options()("runs", po::value<std::vector<std::string>>());
    po::options_description all;
    all.add(desc).add(runs);
    po::positional_options_description positional;
    positional.add("runs", -1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc - 1, argv + 1).options(all).positional(positional).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw usage_error(std::string("compare: ") + e.what());
    }
    if (vm.count("help")) {
        std::cout << "usage: comet compare A B [options]\n" << desc << '\n';
        return 0;
    }
    const auto files = vm.count("runs") ? vm["runs"].as<std::vector<std::string>>() : std::vector<std::string>{};
    if (files.size() != 2)
        throw usage_error("compare: give two runs, A and B (results.json files or report folders); got " + std::to_string(files.size()));
    const comet::compare_options options{
        .alpha = real("alpha", vm["alpha"].as<std::string>(), "a number between 0 and 1", [](double v) { return v > 0.0 && v < 1.0; }),
        .threshold = real("threshold", vm["threshold"].as<std::string>(), "a number >= 0 (0.05 for 5%)", [](double v) { return v >= 0.0; })};
    std::vector<std::string> paths;
    std::vector<comet::results_file> read;
    for (const auto& f : files) {
        paths.push_back(comet_program::results_path(f));
        read.push_back(comet::read_results_file(paths.back()));
    }
    const comet::run_comparison c = comet::compare_runs(read[0].results, read[1].results, options);
    return comet_program::write_comparison(std::cout, c, paths[0], read[0], paths[1], read[1]) ? 1 : 0;
}

/// comet fit-machine RUN [--out FILE] [--per-size]: the LogGOPS machine fitted to the loggp
/// records of RUN (a results.json or a report folder; on its largest group), written to FILE or
/// to the standard output, with each parameter's error and what it came from (docs/loggops.md).
/// --per-size: a band from each size measured instead of one line (comet::cost_lines::per_size).
int fit_machine(int argc, char** argv) {
    po::options_description desc("comet fit-machine RUN: the LogGOPS machine of RUN's loggp records (a results.json or a report folder)");
    desc.add_options()("help,h", "show this help")("out,o", po::value<std::string>(), "write the machine file here (default: the standard output)")(
        "per-size", "a band of costs from each size measured (PLogP), instead of one line over the sizes up to S");
    po::options_description runs;
    runs.add_options()("run", po::value<std::vector<std::string>>());
    po::options_description all;
    all.add(desc).add(runs);
    po::positional_options_description positional;
    positional.add("run", -1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc - 1, argv + 1).options(all).positional(positional).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw usage_error(std::string("fit-machine: ") + e.what());
    }
    if (vm.count("help")) {
        std::cout << "usage: comet fit-machine RUN [--out FILE] [--per-size]\n" << desc << '\n';
        return 0;
    }
    const auto files = vm.count("run") ? vm["run"].as<std::vector<std::string>>() : std::vector<std::string>{};
    if (files.size() != 1)
        throw usage_error("fit-machine: give one run (a results.json or a report folder measured with --kernels loggp); got " +
                          std::to_string(files.size()));
    const std::string path = comet_program::results_path(files[0]);
    const comet::results_file run = comet::read_results_file(path);
    // The largest group's records: the round trips between the test node and its partner there.
    std::int64_t largest = 0;
    for (const comet::record* r : run.results.of("loggp")) largest = std::max(largest, r->params.integer("nodes").value_or(0));
    std::vector<comet::record> records;
    for (const comet::record* r : run.results.of("loggp"))
        if (r->params.integer("nodes").value_or(0) == largest) records.push_back(*r);
    if (records.empty()) throw usage_error("fit-machine: " + path + " holds no loggp records (measure with --kernels loggp)");
    const comet::fitted_machine f = comet::fit_machine(records, vm.count("per-size") ? comet::cost_lines::per_size : comet::cost_lines::one);
    const std::string notes = "from " + path + "\n" + f.provenance();
    if (!vm.count("out")) {
        comet::loggops::write_machine(std::cout, f.machine, f.errors, notes);
    } else {
        const std::string out = vm["out"].as<std::string>();
        comet::write_file_atomically(out, [&](std::ostream& os) { comet::loggops::write_machine(os, f.machine, f.errors, notes); });
        std::cerr << "comet: wrote " << out << " (" << comet::loggops::describe(f.machine) << ")\n";
    }
    if (!f.valid()) std::cerr << "comet: some parameters are flagged; the file's notes say which and why\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "fit-machine") {
        try {
            return fit_machine(argc, argv);
        } catch (const std::exception& e) {  // every failure here is bad input
            std::cerr << "comet: " << e.what() << '\n';
            return 2;
        }
    }
    if (argc > 1 && std::string(argv[1]) == "compare") {
        try {
            return compare(argc, argv);
        } catch (const std::exception& e) {  // 1 is a regression: every failure here is bad input
            std::cerr << "comet: " << e.what() << '\n';
            return 2;
        }
    }
    // What the program was doing, for the one line an exhausted memory gets.
    std::string doing = "reading the command line";
    try {
        const settings s = comet_program::parse_command_line(argc, argv);
        if (!s.help.empty()) {
            std::cout << s.help;
            return 0;
        }
        doing = "running the suite on --transport " + s.transport + " (the sizes of --nodes, --sizes, --matrix-dims or --set)";
        comet_program::interrupts::instance().watch();
        comet_program::outcome o = s.transport == "mpi"                                 ? comet_program::launch_mpi(s)
                                   : s.transport == "ipsc860" || s.transport == "ipsc1" ? comet_program::launch_ipsc860(s)
                                   : s.transport == "loggops"                           ? comet_program::launch_loggops(s)
                                                                                        : comet_program::launch_threads(s);
        if (o.stopped && o.failure && o.results.records.empty()) std::rethrow_exception(o.failure);  // nothing to keep
        const std::optional<comet::stop_note> stopped = o.stopped;
        const std::exception_ptr failure = o.failure;
        doing = "writing the report";
        if (o.writes_report) comet_program::write_report(s, std::move(o));
        if (failure) std::rethrow_exception(failure);  // its message, its exit status; the report says where
        if (stopped) {
            // What the signal stopped: the report holds everything measured up to there.
            std::cerr << comet_program::stopped_line(s, *stopped) << '\n';
            const int signal = comet_program::interrupts::instance().signal();
            return signal ? 128 + signal : 1;
        }
        return 0;
    } catch (const std::bad_alloc&) {
        std::cerr << "comet: out of memory " << doing << '\n';
        return 1;
    } catch (const usage_error& e) {
        std::cerr << "comet: " << e.what() << '\n';
        return 2;
    } catch (const comet::invalid_argument& e) {  // a value the kernels cannot use
        std::cerr << "comet: " << e.what() << '\n';
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "comet: " << e.what() << '\n';
        return 1;
    }
}
