// comet — runs the CoMet suite on a transport and writes the report; compares two runs.
//
//   comet [--transport threads|mpi|ipsc860] [--nodes P] [--kernels echo,pairwise,...|all]
//         [--sizes 0,8,100,4096,...] [--hops 1,2,...] [--reps N] [--out DIR]
//         [--protocols (0,3),(1,0),...|all] [--volumes 8KB,128KB,2MB] [--pairs 0-1,0-2,0-2+1-3]
//         [--cache flushed|warm|repeat:K] [--prepost]                      (--kernels commtest)
//         [--operations broadcast,allreduce,...] [--window-us W] [--measurements M]
//         [--sync linear|logp]                                    (--kernels collectives, sync)
//         [--operations ibcast,iallreduce,...] [--intervals 1024,4096,...]
//         [--progressions none,test,thread]                                   (--kernels nbc)
//   comet compare A B [--alpha 0.01] [--threshold 0.10]
//
// Prints the tables (with the fitted start-up and per-byte times and the other analyses) and,
// with --out, writes DIR/results.json, DIR/gbench.json (Google Benchmark's format),
// DIR/results.csv, DIR/fits.csv, DIR/bandwidth.csv, DIR/summary.txt and the plots in the
// spirit of the thesis' figures, DIR/plots/*.png. Bad options exit with status 2 and a
// one-line reason. `comet compare` reads two results.json (or report folders) and prints each
// shared point's change; it exits 1 when a point is slower in B, 0 otherwise, 2 on bad input.
// Here: the options; the launches are launch_<transport>.cpp, the report and the comparison's
// printing report.hpp, and the kernels their descriptors (comet/suite/builtin.hpp).
#include "program.hpp"
#include "report.hpp"

#include <comet/report/json_read.hpp>
#include <comet/stats/compare.hpp>

#include <boost/program_options.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace po = boost::program_options;
using comet_program::settings;
using comet_program::usage_error;

namespace {

std::vector<std::string> split(const std::string& list) {
    std::vector<std::string> items;
    std::stringstream ss(list);
    for (std::string item; std::getline(ss, item, ',');) items.push_back(item);
    return items;
}

/// Parses a whole decimal integer in [lo, hi]; anything else is a usage error naming it.
long long integer(const std::string& option, const std::string& text, long long lo, long long hi) {
    long long v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
        throw usage_error("--" + option + ": '" + text + "' is not an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
    return v;
}

/// Parses a whole decimal number for which `fits` holds; anything else is a usage error saying
/// what `kind` of number was wanted.
template <class Fits>
double real(const std::string& option, const std::string& text, const char* kind, Fits fits) {
    double v = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || !fits(v))
        throw usage_error("--" + option + ": '" + text + "' is not " + kind);
    return v;
}

/// A volume: bytes, or KB / MB of 1024 / 1048576 bytes as the COMMTEST seed counts them
/// ("2MB" is 262,144 doubles).
std::size_t volume(const std::string& text) {
    std::string digits = text;
    long long unit = 1;
    for (const auto& [suffix, factor] : {std::pair{"KB", 1024LL}, std::pair{"MB", 1024LL * 1024}})
        if (text.size() > 2 && text.ends_with(suffix)) digits = text.substr(0, text.size() - 2), unit = factor;
    const long long v = integer("volumes", digits, 1, static_cast<long long>(comet::max_message_size) / unit);
    return static_cast<std::size_t>(v * unit);
}

/// The protocols of --protocols: "all", or a list like "(0,3),(1,0)" (the commas inside the
/// parentheses are the protocols' own).
std::vector<comet::kernels::commtest::protocol> protocols(const std::string& text) {
    namespace ct = comet::kernels::commtest;
    if (text == "all") return {ct::all_protocols.begin(), ct::all_protocols.end()};
    std::vector<ct::protocol> out;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto close = text.find(')', at);
        const std::string one = text.substr(at, close == std::string::npos ? std::string::npos : close + 1 - at);
        const auto p = ct::parse_protocol(one);
        if (!p) throw usage_error("--protocols: '" + one + "' is not a protocol (0,0)..(0,9) or (1,0)..(1,10), nor all");
        out.push_back(*p);
        at = close + 1;
        if (at < text.size() && text[at] == ',') ++at;
    }
    if (out.empty()) throw usage_error("--protocols: no protocol given");
    return out;
}

/// comet compare A B [--alpha a] [--threshold t]: each run a results.json, or a report folder
/// holding one. Returns the exit status: 1 when a point regressed, 0 otherwise; bad input
/// throws (status 2).
int compare(int argc, char** argv) {
    po::options_description desc("comet compare A B: run B against run A (each a results.json or a report folder), point by point");
    desc.add_options()("help,h", "show this help")(
        "alpha", po::value<std::string>()->default_value("0.01"), "significance level of the two-sided Mann-Whitney U test")(
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
        std::error_code ec;
        paths.push_back(std::filesystem::is_directory(f, ec) ? (std::filesystem::path(f) / "results.json").string() : f);
        read.push_back(comet::read_results_file(paths.back()));
    }
    const comet::run_comparison c = comet::compare_runs(read[0].results, read[1].results, options);
    return comet_program::write_comparison(std::cout, c, paths[0], read[0], paths[1], read[1]) ? 1 : 0;
}

settings parse(int argc, char** argv) {
    po::options_description desc("comet: the CoMet benchmark suite");
    desc.add_options()("help,h", "show this help")(
        "transport", po::value<std::string>()->default_value("threads"), "threads | mpi | ipsc860")(
        "nodes", po::value<std::string>(), "ranks, or a list of group sizes run in turn (threads: 2; ipsc860: 16; mpi: the job size)")(
        "kernels", po::value<std::string>()->default_value("all"), "comma-separated kernels, or all")(
        "sizes", po::value<std::string>(), "comma-separated message sizes in bytes (default: 0 .. 8192)")(
        "matrix-dims", po::value<std::string>(), "comma-separated matrix block dimensions (default: 4 .. 256)")(
        "hops", po::value<std::string>(), "comma-separated hop distances (default: every distance the nodes allow)")(
        "reps", po::value<std::string>(), "iterations per sample, fixed (the thesis' max_times; default: calibrated to the clock)")(
        "samples", po::value<std::string>(), "samples per point at least (default 15)")(
        "max-samples", po::value<std::string>(), "samples per point at most (default 101; equal to --samples: exactly that many)")(
        "order", po::value<std::string>(), "how a kernel's points take turns: round_robin (default), shuffle, none")(
        "seed", po::value<std::string>(), "seed of the shuffled order (default 1993)")(
        "test-node", po::value<std::string>(), "the rank that times (default 0)")(
        "break", po::value<std::string>(), "message size where the fits split in two (default: found from the data)")(
        "protocols", po::value<std::string>(), "commtest: SWAP protocols, e.g. (0,3),(1,0), or all (default)")(
        "volumes", po::value<std::string>(), "commtest: bytes each rank swaps, e.g. 8KB,128KB,2MB (the default; KB = 1024 bytes)")(
        "messages", po::value<std::string>(), "commtest: numbers of messages the volume is split into (default 1,2,4,...,1024)")(
        "pairs", po::value<std::string>(), "commtest: pair sets swapping, e.g. 0-1,0-2,0-2+1-3 (default 0-1)")(
        "cache", po::value<std::string>(), "commtest: flushed | warm (default) | repeat:K")(
        "prepost", "commtest: the seed's reorganised loop (prepost the next receive, complete the previous send late)")(
        "operations", po::value<std::string>(),
        "collectives: broadcast,linear_broadcast,reduce,allreduce,barrier,alltoall,gather (default: all but linear_broadcast); "
        "nbc: ibarrier,ibcast,iallreduce,ialltoall,igather (default: ibcast,iallreduce)")(
        "intervals", po::value<std::string>(), "nbc: bytes per test call of the test progression (default 1024,4096,16384,65536)")(
        "progressions", po::value<std::string>(), "nbc: none,test,thread (default: all the transport allows)")(
        "window-us", po::value<std::string>(), "collectives, nbc: the first time window in µs (default: calibrated; widens when overrun)")(
        "measurements", po::value<std::string>(), "collectives, nbc: single-shot measurements per point (default 20)")(
        "sync", po::value<std::string>(), "sync and collectives: linear | logp (sync default: both; collectives: logp)")(
        "out", po::value<std::string>(), "folder for results.json, CSV files and summary.txt")(
        "set", po::value<std::vector<std::string>>(), "key=value: a setting of the transport (repeatable; see the README)");
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, desc), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw usage_error(e.what());
    }
    if (vm.count("help")) {
        std::cout << "usage: comet [options]\n       comet compare A B [--alpha 0.01] [--threshold 0.10]   (comet compare --help)\n"
                  << desc << '\n';
        std::exit(0);
    }
    settings s;
    s.argc = argc;
    s.argv = argv;
    s.transport = vm["transport"].as<std::string>();
    if (s.transport != "threads" && s.transport != "mpi" && s.transport != "ipsc860")
        throw usage_error("--transport: unknown transport '" + s.transport + "' (known: threads, mpi, ipsc860)");
    if (vm.count("nodes"))
        for (const auto& x : split(vm["nodes"].as<std::string>())) s.nodes.push_back(static_cast<int>(integer("nodes", x, 1, 1 << 20)));
    if (const auto k = vm["kernels"].as<std::string>(); k != "all") {
        s.suite.kernels = split(k);
        if (s.suite.kernels.empty()) throw usage_error("--kernels: no kernel named");
        try {
            comet::check_suite(s.suite);
        } catch (const comet::invalid_argument& e) {
            throw usage_error(std::string("--kernels: ") + e.what());
        }
        // A kernel asked for by name must run on at least one of the group sizes given (with
        // "all", kernels a group is too small for are skipped with a note).
        if (!s.nodes.empty())
            for (const auto& name : s.suite.kernels) {
                const auto why = comet::suite_skip_reason(name, s.nodes.front());
                if (why && std::all_of(s.nodes.begin(), s.nodes.end(), [&](int p) { return comet::suite_skip_reason(name, p); }))
                    throw usage_error("--kernels " + name + ": " + name + " " + *why + ", and --nodes " +
                                      vm["nodes"].as<std::string>() + " gives it none");
            }
    }
    // Options the kernels share are set on every kernel's configuration.
    auto& c = s.suite;
    if (vm.count("sizes")) {
        c.transfer.sizes.clear();
        for (const auto& x : split(vm["sizes"].as<std::string>()))
            c.transfer.sizes.push_back(static_cast<std::size_t>(integer("sizes", x, 0, static_cast<long long>(comet::max_message_size))));
        if (c.transfer.sizes.empty()) throw usage_error("--sizes: no size given");
        c.broadcast.sizes = c.contention.sizes = c.transfer.sizes;
    }
    if (vm.count("matrix-dims")) {
        c.matrix.dims.clear();
        for (const auto& x : split(vm["matrix-dims"].as<std::string>()))
            c.matrix.dims.push_back(static_cast<int>(integer("matrix-dims", x, 1, comet::kernels::matrix_max_dim)));
        if (c.matrix.dims.empty()) throw usage_error("--matrix-dims: no dimension given");
    }
    if (vm.count("hops"))
        for (const auto& x : split(vm["hops"].as<std::string>())) c.transfer.hops.push_back(static_cast<int>(integer("hops", x, 0, 30)));
    comet::sampling sampling;
    if (vm.count("reps")) sampling.iterations = static_cast<std::size_t>(integer("reps", vm["reps"].as<std::string>(), 1, 100000000));
    if (vm.count("samples")) {
        sampling.min_samples = static_cast<std::size_t>(integer("samples", vm["samples"].as<std::string>(), 1, 100000));
        sampling.max_samples = std::max(sampling.max_samples, sampling.min_samples);
    }
    if (vm.count("max-samples")) {
        sampling.max_samples = static_cast<std::size_t>(integer("max-samples", vm["max-samples"].as<std::string>(), 1, 100000));
        if (sampling.max_samples < sampling.min_samples) {
            if (vm.count("samples"))
                throw usage_error("--max-samples " + std::to_string(sampling.max_samples) + " is below --samples " +
                                  std::to_string(sampling.min_samples));
            sampling.min_samples = sampling.max_samples;
        }
    }
    if (vm.count("order")) {
        const auto o = vm["order"].as<std::string>();
        if (o == "round_robin") sampling.order = comet::interleave::round_robin;
        else if (o == "shuffle") sampling.order = comet::interleave::shuffle;
        else if (o == "none") sampling.order = comet::interleave::none;
        else throw usage_error("--order: unknown order '" + o + "' (known: round_robin, shuffle, none)");
    }
    if (vm.count("seed"))
        sampling.seed = static_cast<std::uint64_t>(integer("seed", vm["seed"].as<std::string>(), 0, std::numeric_limits<long long>::max()));
    c.sampling = sampling;
    s.sampling_given = vm.count("reps") || vm.count("samples") || vm.count("max-samples");
    if (vm.count("test-node")) {
        const int n = static_cast<int>(integer("test-node", vm["test-node"].as<std::string>(), 0, 1 << 20));
        c.transfer.test_node = c.broadcast.test_node = c.global_sum.test_node = c.barrier.test_node = n;
        c.contention.test_node = c.overlap.test_node = c.matrix.test_node = c.commtest.test_node = n;
    }
    if (vm.count("protocols")) c.commtest.protocols = protocols(vm["protocols"].as<std::string>());
    if (vm.count("volumes")) {
        c.commtest.volumes.clear();
        for (const auto& x : split(vm["volumes"].as<std::string>())) c.commtest.volumes.push_back(volume(x));
        if (c.commtest.volumes.empty()) throw usage_error("--volumes: no volume given");
    }
    if (vm.count("messages")) {
        c.commtest.messages.clear();
        for (const auto& x : split(vm["messages"].as<std::string>()))
            c.commtest.messages.push_back(static_cast<std::size_t>(integer("messages", x, 1, 1 << 24)));
        if (c.commtest.messages.empty()) throw usage_error("--messages: no number given");
    }
    if (vm.count("pairs")) {
        c.commtest.pairs.clear();
        for (const auto& x : split(vm["pairs"].as<std::string>())) {
            const auto ps = comet::kernels::commtest::parse_pairs(x);
            if (!ps) throw usage_error("--pairs: '" + x + "' is not a pair set like 0-1 or 0-2+1-3");
            c.commtest.pairs.push_back(*ps);
        }
        if (c.commtest.pairs.empty()) throw usage_error("--pairs: no pair given");
    }
    if (vm.count("cache")) {
        const auto mode = comet::kernels::commtest::parse_cache(vm["cache"].as<std::string>());
        if (!mode) throw usage_error("--cache: '" + vm["cache"].as<std::string>() + "' is not flushed, warm or repeat:K (K >= 1)");
        c.commtest.cache = *mode;
    }
    if (vm.count("prepost")) c.commtest.prepost = true;
    if (vm.count("operations")) {
        // One list for both kernels: the blocking names go to collectives, the i-names to nbc;
        // a kernel none of whose names is given keeps its default.
        std::vector<comet::kernels::collective_operation> blocking;
        std::vector<comet::kernels::nbc_operation> nonblocking;
        for (const auto& x : split(vm["operations"].as<std::string>())) {
            if (const auto o = comet::kernels::parse_collective_operation(x)) blocking.push_back(*o);
            else if (const auto n = comet::kernels::parse_nbc_operation(x)) nonblocking.push_back(*n);
            else
                throw usage_error("--operations: '" + x +
                                  "' is not broadcast, linear_broadcast, reduce, allreduce, barrier, alltoall, gather, "
                                  "ibarrier, ibcast, iallreduce, ialltoall or igather");
        }
        if (blocking.empty() && nonblocking.empty()) throw usage_error("--operations: no operation given");
        if (!blocking.empty()) c.collectives.operations = blocking;
        if (!nonblocking.empty()) c.nbc.operations = nonblocking;
    }
    if (vm.count("intervals")) {
        c.nbc.intervals.clear();
        for (const auto& x : split(vm["intervals"].as<std::string>()))
            c.nbc.intervals.push_back(static_cast<std::size_t>(integer("intervals", x, 1, static_cast<long long>(comet::max_message_size))));
        if (c.nbc.intervals.empty()) throw usage_error("--intervals: no interval given");
    }
    if (vm.count("progressions")) {
        c.nbc.progressions.clear();
        for (const auto& x : split(vm["progressions"].as<std::string>())) {
            const auto p = comet::kernels::parse_progression(x);
            if (!p) throw usage_error("--progressions: '" + x + "' is not none, test or thread");
            c.nbc.progressions.push_back(*p);
        }
        if (c.nbc.progressions.empty()) throw usage_error("--progressions: no progression given");
    }
    if (vm.count("sizes")) c.collectives.sizes = c.nbc.sizes = c.transfer.sizes;
    if (vm.count("window-us"))
        c.collectives.window.window_seconds = c.nbc.window.window_seconds =
            real("window-us", vm["window-us"].as<std::string>(), "a time in µs above 0", [](double v) { return v > 0.0 && v <= 1e9; }) *
            1e-6;
    if (vm.count("measurements"))
        c.collectives.window.measurements = c.nbc.window.measurements =
            static_cast<std::size_t>(integer("measurements", vm["measurements"].as<std::string>(), 1, 1000000));
    if (vm.count("sync")) {
        const auto x = vm["sync"].as<std::string>();
        comet::sync_scheme scheme = comet::sync_scheme::log_p;
        if (x == "linear") scheme = comet::sync_scheme::linear;
        else if (x != "logp" && x != "log_p") throw usage_error("--sync: '" + x + "' is not linear or logp");
        c.sync.schemes = {scheme};
        c.collectives.sync.scheme = c.nbc.sync.scheme = scheme;
    }
    if (vm.count("break"))
        s.break_size = static_cast<double>(integer("break", vm["break"].as<std::string>(), 0, static_cast<long long>(comet::max_message_size)));
    if (vm.count("out")) s.out = vm["out"].as<std::string>();
    if (vm.count("set"))
        for (const auto& kv : vm["set"].as<std::vector<std::string>>()) {
            const auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0) throw usage_error("--set: '" + kv + "' is not key=value");
            s.transport_options.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
        }
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "compare") {
        try {
            return compare(argc, argv);
        } catch (const std::exception& e) {  // 1 is a regression: every failure here is bad input
            std::cerr << "comet: " << e.what() << '\n';
            return 2;
        }
    }
    try {
        const settings s = parse(argc, argv);
        comet_program::outcome o = s.transport == "mpi"       ? comet_program::launch_mpi(s)
                                   : s.transport == "ipsc860" ? comet_program::launch_ipsc860(s)
                                                              : comet_program::launch_threads(s);
        if (o.writes_report) comet_program::write_report(s, std::move(o));
        return 0;
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
