// comet — runs the CoMet suite on a transport and writes the report.
//
//   comet [--transport threads|mpi|ipsc860] [--nodes P] [--kernels echo,pairwise,...|all]
//         [--sizes 0,8,100,4096,...] [--hops 1,2,...] [--reps N] [--out DIR]
//
// Prints the tables (with the fitted start-up and per-byte times and the other analyses) and,
// with --out, writes DIR/results.json, DIR/results.csv, DIR/fits.csv, DIR/bandwidth.csv,
// DIR/summary.txt and the plots in the spirit of the thesis' figures, DIR/plots/*.png.
// Bad options exit with status 2 and a one-line reason. Here: the options; the launches are
// launch_<transport>.cpp, the report report.hpp, and the kernels their descriptors
// (comet/suite/builtin.hpp).
#include "program.hpp"
#include "report.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
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
        std::cout << "usage: comet [options]\n" << desc << '\n';
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
        c.contention.test_node = c.overlap.test_node = c.matrix.test_node = n;
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
