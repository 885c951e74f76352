// comet — runs the CoMet suite on a transport and writes the report.
//
//   comet [--transport threads|mpi|ipsc860] [--nodes P] [--kernels echo,pairwise,...|all]
//         [--sizes 0,8,100,4096,...] [--hops 1,2,...] [--reps N] [--out DIR]
//
// Prints the tables (with the fitted start-up and per-byte times) and, with --out, writes
// DIR/results.json, DIR/results.csv, DIR/fits.csv, DIR/bandwidth.csv and DIR/summary.txt.
// Bad options exit with status 2 and a one-line reason.
#include <comet/comet.hpp>

#include <boost/program_options.hpp>

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace po = boost::program_options;

namespace {

/// A command-line mistake: reported as "comet: <what>" with exit status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const std::vector<std::string> implemented = {"echo", "pairwise"};
const std::vector<std::string> planned = {"broadcast", "global_sum", "barrier", "contention", "overlap", "update_guard",
                                          "shift_matrix", "transpose", "row_broadcast", "col_broadcast"};

struct settings {
    std::string transport = "threads";
    int nodes = 2;
    std::vector<std::string> kernels = implemented;
    comet::transfer_config transfer;
    std::string out;
    std::optional<double> break_size;
};

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

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

settings parse(int argc, char** argv) {
    po::options_description desc("comet: the CoMet benchmark suite");
    desc.add_options()("help,h", "show this help")(
        "transport", po::value<std::string>()->default_value("threads"), "threads | mpi | ipsc860")(
        "nodes", po::value<std::string>(), "number of ranks (threads: default 2)")(
        "kernels", po::value<std::string>()->default_value("all"), "comma-separated kernels, or all")(
        "sizes", po::value<std::string>(), "comma-separated message sizes in bytes (default: 0 .. 8192)")(
        "hops", po::value<std::string>(), "comma-separated hop distances (default: every distance the nodes allow)")(
        "reps", po::value<std::string>(), "iterations per timed repeat loop (the thesis' max_times; default 1000)")(
        "samples", po::value<std::string>(), "timed repeat loops per point (default 3)")(
        "test-node", po::value<std::string>(), "the rank that times (default 0)")(
        "break", po::value<std::string>(), "message size where the fits split in two (default: found from the data)")(
        "out", po::value<std::string>(), "folder for results.json, CSV files and summary.txt");
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
    s.transport = vm["transport"].as<std::string>();
    if (s.transport == "mpi")
        throw usage_error("--transport mpi: this comet was built without MPI support");
    if (s.transport == "ipsc860")
        throw usage_error("--transport ipsc860: the simulated iPSC/860 is not part of this build yet");
    if (s.transport != "threads") throw usage_error("--transport: unknown transport '" + s.transport + "' (known: threads, mpi, ipsc860)");
    if (vm.count("nodes")) s.nodes = static_cast<int>(integer("nodes", vm["nodes"].as<std::string>(), 1, 4096));
    if (const auto k = vm["kernels"].as<std::string>(); k != "all") {
        s.kernels.clear();
        for (const auto& name : split(k)) {
            if (std::find(implemented.begin(), implemented.end(), name) != implemented.end()) {
                s.kernels.push_back(name);
                continue;
            }
            if (std::find(planned.begin(), planned.end(), name) != planned.end())
                throw usage_error("--kernels: '" + name + "' is not implemented yet (available: " + joined(implemented) + ")");
            throw usage_error("--kernels: unknown kernel '" + name + "' (available: " + joined(implemented) + ")");
        }
        if (s.kernels.empty()) throw usage_error("--kernels: no kernel named");
    }
    if (vm.count("sizes")) {
        s.transfer.sizes.clear();
        for (const auto& x : split(vm["sizes"].as<std::string>()))
            s.transfer.sizes.push_back(static_cast<std::size_t>(integer("sizes", x, 0, static_cast<long long>(comet::max_message_size))));
        if (s.transfer.sizes.empty()) throw usage_error("--sizes: no size given");
    }
    if (vm.count("hops"))
        for (const auto& x : split(vm["hops"].as<std::string>())) s.transfer.hops.push_back(static_cast<int>(integer("hops", x, 0, 30)));
    if (vm.count("reps")) s.transfer.max_times = static_cast<std::size_t>(integer("reps", vm["reps"].as<std::string>(), 1, 100000000));
    if (vm.count("samples"))
        s.transfer.samples = static_cast<std::size_t>(integer("samples", vm["samples"].as<std::string>(), 1, 100000));
    if (vm.count("test-node"))
        s.transfer.test_node = static_cast<int>(integer("test-node", vm["test-node"].as<std::string>(), 0, 4095));
    if (vm.count("break"))
        s.break_size = static_cast<double>(integer("break", vm["break"].as<std::string>(), 0, static_cast<long long>(comet::max_message_size)));
    if (vm.count("out")) s.out = vm["out"].as<std::string>();
    return s;
}

/// A one-line progress display on stderr, when stderr is a terminal.
struct progress {
    std::size_t total = 0, done = 0;
    bool on = ::isatty(2) != 0;
    void point(const comet::record& r) {
        ++done;
        if (!on || total == 0) return;
        const std::size_t width = 30, filled = std::min(width, width * done / total);
        std::fprintf(stderr, "\r[%s%s] %zu/%zu %-9s size %-7lld hops %lld ", std::string(filled, '#').c_str(),
                     std::string(width - filled, ' ').c_str(), done, total, r.kernel.c_str(),
                     static_cast<long long>(r.params.integer("size").value_or(0)),
                     static_cast<long long>(r.params.integer("hops").value_or(0)));
        if (done == total) std::fprintf(stderr, "\r%*s\r", 80, "");
    }
};

template <comet::transport T>
comet::result_set run_suite(T& t, const settings& s, progress& bar) {
    comet::transfer_config cfg = s.transfer;
    if (t.rank() == cfg.test_node) {
        const auto hops = cfg.hops.empty() ? comet::default_hops(cfg.test_node, t.size()) : cfg.hops;
        bar.total = s.kernels.size() * hops.size() * cfg.sizes.size();
        cfg.on_point = [&bar](const comet::record& r) { bar.point(r); };
    }
    comet::result_set all;
    for (const auto& k : s.kernels) {
        if (k == "echo") all.append(comet::echo(t, cfg));
        if (k == "pairwise") all.append(comet::pairwise(t, cfg));
    }
    return all;
}

/// Fits what can be fitted; a kernel with too few sizes gets a note instead of a fit.
void analyse(comet::report& r, const settings& s, std::vector<std::string>& notes) {
    for (const auto& k : s.kernels) {
        try {
            comet::transfer_fit_options fo;
            if (s.break_size) fo.break_size = s.break_size;
            else fo.find_break = true;
            try {
                for (auto& f : comet::fit_transfers(r.results, k, fo)) r.fits.push_back(f);
            } catch (const comet::invalid_argument&) {
                if (s.break_size) throw;
                for (auto& f : comet::fit_transfers(r.results, k, {})) r.fits.push_back(f);  // too few sizes to split
            }
        } catch (const comet::invalid_argument& e) {
            notes.push_back(std::string("no fit for ") + k + ": " + e.what());
        }
        for (auto& b : comet::bandwidth(r.results, k)) r.bandwidth.push_back(b);
    }
}

void write_file(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
    std::ofstream f(path);
    if (!f) throw usage_error("--out: cannot write " + path.string());
    write(f);
    if (!f) throw usage_error("--out: writing " + path.string() + " failed");
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const settings s = parse(argc, argv);
        progress bar;
        const auto per_rank = comet::threads::run(s.nodes, [&](comet::threads::transport& t) { return run_suite(t, s, bar); });

        comet::report r;
        r.ctx = comet::make_context(s.transport, s.nodes);
        r.results = per_rank[static_cast<std::size_t>(s.transfer.test_node)];
        r.ctx.command_line = comet::command_line_of(argc, argv);
        comet::steady_clock_source clock;
        const auto info = comet::describe(clock, "steady_clock");
        const auto ns = [](double seconds) {
            std::ostringstream os;
            os << seconds * 1e9 << " ns";
            return os.str();
        };
        r.ctx.extra = {{"clock", info.name},
                       {"clock_resolution", ns(info.resolution)},
                       {"clock_call_cost", ns(info.call_cost)},
                       {"cores", std::to_string(std::thread::hardware_concurrency())},
                       {"max_times", std::to_string(s.transfer.max_times)}};
        std::vector<std::string> notes;
        analyse(r, s, notes);

        std::ostringstream summary;
        comet::write_table(summary, r);
        for (const auto& n : notes) summary << "note: " << n << '\n';
        std::cout << summary.str() << std::flush;

        if (!s.out.empty()) {
            const std::filesystem::path dir(s.out);
            std::error_code ec;
            std::filesystem::create_directories(dir, ec);
            if (ec) throw usage_error("--out: cannot create " + dir.string() + ": " + ec.message());
            write_file(dir / "results.json", [&](std::ostream& o) { comet::write_json(o, r); });
            write_file(dir / "results.csv", [&](std::ostream& o) { comet::write_csv(o, r.results); });
            write_file(dir / "fits.csv", [&](std::ostream& o) { comet::write_fits_csv(o, r.fits); });
            write_file(dir / "bandwidth.csv", [&](std::ostream& o) { comet::write_bandwidth_csv(o, r.bandwidth); });
            write_file(dir / "summary.txt", [&](std::ostream& o) { o << summary.str(); });
            std::cout << "wrote " << (dir / "results.json").string() << " and the CSV files\n";
        }
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
