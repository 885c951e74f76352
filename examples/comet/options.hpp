// The comet program's command line: `comet [options]` read into its settings. A header of its
// own, so that the program and a fuzz target (fuzz_options.cpp) parse alike: every mistake is
// a usage_error with a one-line reason naming the option and the value, never an exit, an
// abort or a crash, whatever the bytes.
//
// The transports' --set settings are read by their launches (threads_options in
// launch_threads.hpp; the simulator's in launch_ipsc860.cpp).
#pragma once

#include "program.hpp"

#include <comet/suite/suite.hpp>

#include <boost/program_options.hpp>

#include <algorithm>
#include <string_view>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace comet_program {

namespace po = boost::program_options;

/// The most ranks --nodes may ask of a transport. Threads: each rank is a thread of this
/// process, and every ordered pair of ranks has a ring (threads_options says how large), so
/// ranks cost P^2 memory; 4096 ranks are 16 M rings. The simulator: its ranks are fibers, cheap,
/// but every node keeps buffers and state for every other, P^2 again; the thesis' iPSC/860 and
/// the NIST study's iPSC/1 had at most 128 nodes, the what-if tool goes to 2^14. MPI: the job's
/// size decides (launch_mpi checks).
inline int max_nodes(const std::string& transport) {
    if (transport == "threads") return 4096;
    if (transport == "ipsc860" || transport == "ipsc1") return 1 << 14;
    if (transport == "loggops") return 1 << 24;
    return 1 << 20;
}

inline std::vector<std::string> split(const std::string& list) {
    std::vector<std::string> items;
    std::stringstream ss(list);
    for (std::string item; std::getline(ss, item, ',');) items.push_back(item);
    return items;
}

/// Parses a whole decimal integer in [lo, hi]; anything else is a usage error naming it.
inline long long integer(const std::string& option, const std::string& text, long long lo, long long hi) {
    long long v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
        throw usage_error("--" + option + ": '" + text + "' is not an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
    return v;
}

/// Every comma-separated value of `text`, each a whole decimal integer in [lo, hi]; a list with
/// none is a usage error saying "no `what` given".
template <class T>
std::vector<T> integers(const std::string& option, const std::string& text, long long lo, long long hi, const char* what) {
    std::vector<T> out;
    for (const auto& x : split(text)) out.push_back(static_cast<T>(integer(option, x, lo, hi)));
    if (out.empty()) throw usage_error("--" + option + ": no " + what + " given");
    return out;
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
inline std::size_t volume(const std::string& text) {
    std::string digits = text;
    long long unit = 1;
    for (const auto& [suffix, factor] : {std::pair{"KB", 1024LL}, std::pair{"MB", 1024LL * 1024}})
        if (text.size() > 2 && text.ends_with(suffix)) digits = text.substr(0, text.size() - 2), unit = factor;
    const long long v = integer("volumes", digits, 1, static_cast<long long>(comet::max_message_size) / unit);
    return static_cast<std::size_t>(v * unit);
}

/// A source of detours from --noise's "length=1ms,share=0.01[,ranks=1+3][,seed=7][,periodic][,aligned]":
/// a length with its unit (ns, us, ms, s), the share of the time as a fraction (no '%': the
/// command line refuses it, see parse_command_line), the ranks joined by '+' (all when not given).
inline comet::detour_source noise_source(const std::string& spec) {
    comet::detour_source d;
    bool length = false, share = false;
    const auto bad = [&](const std::string& why) { return usage_error("--noise '" + spec + "': " + why); };
    for (const auto& item : split(spec)) {
        const auto eq = item.find('=');
        const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
        if (item == "periodic") d.when = comet::detour_source::timing::periodic;
        else if (item == "aligned") d.aligned = true;
        else if (key == "length" && eq != std::string::npos) {
            double unit = 0;
            std::string digits = value;
            for (const auto& [suffix, factor] : {std::pair{"ns", 1e-9}, std::pair{"us", 1e-6}, std::pair{"ms", 1e-3}, std::pair{"s", 1.0}})
                if (unit == 0 && value.size() > std::string_view(suffix).size() && value.ends_with(suffix))
                    digits = value.substr(0, value.size() - std::string_view(suffix).size()), unit = factor;
            if (unit == 0) throw bad("length '" + value + "' needs a unit: ns, us, ms or s");
            d.length = real("noise", digits, "a length > 0", [](double v) { return v > 0; }) * unit;
            length = true;
        } else if (key == "share" && eq != std::string::npos) {
            d.share = real("noise", value, "a share of the time in (0, 0.5] (0.01: 1%)", [](double v) { return v > 0; });
            share = true;
        } else if (key == "ranks" && eq != std::string::npos) {
            if (value != "all") {
                std::stringstream ss(value);
                for (std::string r; std::getline(ss, r, '+');) d.ranks.push_back(static_cast<int>(integer("noise", r, 0, 1 << 20)));
            }
        } else if (key == "seed" && eq != std::string::npos) {
            d.seed = static_cast<std::uint64_t>(integer("noise", value, 0, std::numeric_limits<long long>::max()));
        } else {
            throw bad("'" + item + "' is not length=, share=, ranks=, seed=, periodic or aligned");
        }
    }
    if (!length || !share) throw bad("give at least length= and share=");
    return d;
}

/// The protocols of --protocols: "all", or a list like "(0,3),(1,0)" (the commas inside the
/// parentheses are the protocols' own).
inline std::vector<comet::kernels::commtest::protocol> protocols(const std::string& text) {
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

/// The settings of `comet [options]` (argv[0] is the program). Bad input throws usage_error
/// with a one-line reason naming the option and the value; nothing here exits or prints. With
/// --help, the settings carry the help text and nothing else is checked.
inline settings parse_command_line(int argc, char** argv) {
    // Boost.Program_options writes its messages from templates with %placeholders% and fills in
    // the option's name, value or whole word; a word that itself holds one (--x%canonical_option%,
    // --x=%canonical_option%) makes it replace for ever. No option, value or folder name of
    // comet's needs a '%': a word holding one is refused before Boost sees it.
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a.find('%') != std::string_view::npos)
            throw usage_error("argument " + std::to_string(i) + " '" + std::string(a) +
                              "' holds a '%', which no option of comet's takes");
    }
    // The options in groups, one for what every kernel shares and one per seed, so that a
    // reader of a paper finds its parameters together: seed 000 is the CoMet thesis, 001
    // COMMTEST, 002 Hoefler, Schneider and Lumsdaine's synchronized measurement of collectives,
    // 003 NIST's synthetic applications.
    po::options_description general("every kernel");
    general.add_options()("help,h", "show this help")(
        "transport", po::value<std::string>()->default_value("threads"),
        "threads | mpi | ipsc860 | ipsc1 (the simulated iPSC/860 of the CoMet thesis, or the iPSC/1 of the NIST study) | loggops (a "
        "LogGOPS machine: --machine FILE)")(
        "machine", po::value<std::string>(), "--transport loggops: the machine file (comet fit-machine writes one; docs/loggops.md)")(
        "measured", po::value<std::string>(),
        "--transport loggops: a run measured on the machine the file was fitted to (results.json or report folder); the report "
        "puts each point's prediction beside its measurement")(
        "nodes", po::value<std::string>(),
        "ranks, or a list of group sizes run in turn (threads, loggops: 2; ipsc860, ipsc1: 16; mpi: the job size)")(
        "kernels", po::value<std::string>()->default_value("all"),
        "comma-separated kernels, or all (the thesis' twelve; the other seeds' kernels run when named)")(
        "sizes", po::value<std::string>(),
        "comma-separated message sizes in bytes: echo, pairwise, broadcast, contention, collectives, nbc, loggp (default: 0 .. 8192; "
        "loggp: 0 .. 1024)")(
        "hops", po::value<std::string>(), "comma-separated hop distances (default: every distance the nodes allow)")(
        "reps", po::value<std::string>(), "iterations per sample, fixed (the thesis' max_times; default: calibrated to the clock)")(
        "samples", po::value<std::string>(), "samples per point at least (default 15)")(
        "max-samples", po::value<std::string>(), "samples per point at most (default 101; equal to --samples: exactly that many)")(
        "rounds", po::value<std::string>(),
        "passes over the suite, a point's samples pooled and each pass's kept apart for comet compare "
        "(default 8 on threads and mpi; the simulators take 1, being deterministic; sync, collectives, nbc and the NIST "
        "applications, whose records describe one run, run in the first pass only)")(
        "order", po::value<std::string>(), "how a kernel's points take turns: round_robin (default), shuffle, none")(
        "seed", po::value<std::string>(), "seed of the shuffled order (default 1993)")(
        "test-node", po::value<std::string>(), "the rank that times (default 0)")(
        "cache", po::value<std::string>(),
        "the caches each sample starts from: warm (default: one untimed operation of the point first) | cold (caches overwritten, "
        "one operation a sample; commtest: flushed); commtest also: flushed | repeat:K, or several, comma-separated, run "
        "one after the other (e.g. warm,flushed)")(
        "out", po::value<std::string>(), "folder for results.json, CSV files and summary.txt")(
        "set", po::value<std::vector<std::string>>(), "key=value: a setting of the transport (repeatable; see docs/transports.md)")(
        "noise", po::value<std::vector<std::string>>(),
        "threads, ipsc860, ipsc1: detours (OS noise) on chosen ranks, repeatable: length=1ms,share=0.01[,ranks=1+3][,seed=7]"
        "[,periodic][,aligned] (random times by default; all ranks when ranks is not given)");
    po::options_description thesis("seed 000, the CoMet thesis (its twelve kernels, --kernels all)");
    thesis.add_options()(
        "break", po::value<std::string>(), "echo, pairwise: message size where the fits split in two (default: found from the data)")(
        "buffer", po::value<std::string>(), "echo: the buffer a message goes out of: same (default: the one it came in, as the thesis) | clean")(
        "global-sum-lengths", po::value<std::string>(),
        "global_sum: comma-separated vector lengths in doubles (default 0,1,2,4,...,16384), each at most --max-vec-len")(
        "contention-loads", po::value<std::string>(),
        "contention: the cross traffic's message sizes of the 50% and 90% loads: measured (default: from this run's echo at 1 hop, "
        "or a short echo) | thesis (the thesis' 486,5000) | B1,B2 (bytes, B1 < B2); the records' load_source and cross_size say which")(
        "overlap-sizes", po::value<std::string>(), "overlap: comma-separated message sizes in bytes (default 0,2536,85000)")(
        "overlap-lengths", po::value<std::string>(),
        "overlap: comma-separated DAXPY vector lengths in doubles (default 0,1000,2000,...,200000: 0 to --max-vec-len), each at most --max-vec-len")(
        "max-vec-len", po::value<std::string>(),
        "overlap, global_sum: the longest vector, the thesis' max_vec_len (default 200000); without --overlap-lengths overlap's "
        "lengths run from 0 to it in the default's proportions, without --global-sum-lengths global_sum's stop at it")(
        "matrix-dims", po::value<std::string>(), "the matrix kernels: comma-separated block dimensions (default: 4 .. 256)")(
        "matrix-row", po::value<std::string>(), "row_broadcast: the global row broadcast (default 0)")(
        "matrix-col", po::value<std::string>(), "col_broadcast: the global column broadcast (default 0)");
    // The default sweep's time, measured on a quiet 2-core VM: 1 min 7 s on two threads.
    po::options_description commtest(
        "seed 001, COMMTEST (commtest; the default sweep, 21 protocols x 3 volumes x 11 message counts, 8 rounds, takes "
        "about a minute on two threads of a quiet 2-core machine)");
    commtest.add_options()(
        "protocols", po::value<std::string>(), "SWAP protocols, e.g. (0,3),(1,0), or all (default)")(
        "volumes", po::value<std::string>(), "bytes each rank swaps, e.g. 8KB,128KB,2MB (the default; KB = 1024 bytes)")(
        "messages", po::value<std::string>(), "numbers of messages the volume is split into (default 1,2,4,...,1024)")(
        "pairs", po::value<std::string>(), "pair sets swapping, e.g. 0-1,0-2,0-2+1-3 (default 0-1)")(
        "prepost", "the seed's reorganised loop (prepost the next receive, complete the previous send late)")(
        "n1", po::value<std::string>(), "N1 of a = (T_N2 - T_N1)/(N2 - N1), one of --messages (default 512)")(
        "n2", po::value<std::string>(), "N2, above N1, one of --messages (default 1024)");
    po::options_description hoefler("seed 002, Hoefler et al.'s synchronized measurement of collectives (sync, collectives, nbc)");
    hoefler.add_options()(
        "operations", po::value<std::string>(),
        "collectives: broadcast,linear_broadcast,reduce,allreduce,barrier,alltoall,gather (default: all but linear_broadcast); "
        "nbc: ibarrier,ibcast,iallreduce,ialltoall,igather (default: ibcast,iallreduce)")(
        "intervals", po::value<std::string>(), "nbc: bytes per test call of the test progression (default 1024,4096,16384,65536)")(
        "progressions", po::value<std::string>(), "nbc: none,test,thread (default: all the transport allows)")(
        "window-us", po::value<std::string>(), "collectives, nbc: the first time window in µs (default: calibrated; widens when overrun)")(
        "measurements", po::value<std::string>(), "collectives, nbc: single-shot measurements per point (default 20)")(
        "pipeline", po::value<std::string>(), "collectives: operations back to back in a pipelined measurement and in each loop of the loop schemes, N (default 8)")(
        "measures", po::value<std::string>(),
        "collectives: window,pipelined and the schemes of the seed's listings 1-3, barrier_then_loop,loop,barriers_then_loop (default all)")(
        "loop-barriers", po::value<std::string>(), "collectives: barriers before each loop of barriers_then_loop (listing 3's numbarr; default 2)")(
        "rank-times", "collectives: also a record per rank, its own time (reduction rank_<r>)")(
        "thread-quantum-us", po::value<std::string>(),
        "nbc on ipsc860, ipsc1: the time slice of the modelled progress thread in µs (default 100)")(
        "rtt-measurements", po::value<std::string>(), "sync: round trips per partner of the round-trip study, listing 4 (default 1000; 0: no study)")(
        "rtt-interval-us", po::value<std::string>(), "sync: µs between two round trips (default 0; the seed: 1000000)")(
        "rtt-partners", po::value<std::string>(), "sync: the ranks the test node measures round trips with (default the first three others)")(
        "rtt-bins", po::value<std::string>(), "sync: bins of the latency histogram (default 50; the seed: 200)")(
        "sync", po::value<std::string>(), "sync and collectives: linear | logp (sync default: both; collectives: logp)")(
        "patience", po::value<std::string>(),
        "sync, collectives, nbc: N, the exchanges without a new smallest round trip after which a pair's clock offset "
        "is taken (default 100)");
    namespace nist = comet::kernels::nist;
    const std::string nist_help = "an application parameter, [cm.|cp.]application.name=value, repeatable (both "
                                  "settings unless cm. or cp. is given; the rest keep the seed's values). ring: " +
                                  std::string(nist::parameter_names(nist::application::ring)) +
                                  "; rc: " + std::string(nist::parameter_names(nist::application::rc)) +
                                  "; mesh: " + std::string(nist::parameter_names(nist::application::mesh));
    po::options_description applications("seed 003, NIST's synthetic applications under time dilation (ring, rc, mesh)");
    applications.add_options()(
        "dilation", po::value<std::string>(), "time-dilation factors, each >= 1 (default the seed's 1,2,4,6,8,10,12,14,16)")(
        "setting", po::value<std::string>(), "cm (communication intensive), cp (computation intensive) (default cm,cp)")(
        "nist", po::value<std::vector<std::string>>(), nist_help.c_str());
    po::options_description desc("comet: the CoMet benchmark suite");
    desc.add(general).add(thesis).add(commtest).add(hoefler).add(applications);
    po::variables_map vm;
    try {
        const po::parsed_options parsed = po::command_line_parser(argc, argv).options(desc).run();
        // Program_options keeps words that are no option's (and everything after "--") as
        // positional arguments, and `store` drops them: "comet extra" would run the default
        // suite as if the word were not there.
        for (const auto& o : parsed.options)
            if (o.position_key >= 0 && !o.value.empty())
                throw usage_error("unexpected argument '" + o.value.front() +
                                  "' (comet takes options only: --nodes 4, --kernels echo, ...; comet --help lists them)");
        po::store(parsed, vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw usage_error(e.what());
    }
    settings s;
    if (vm.count("help")) {
        std::ostringstream help;
        help << "usage: comet [options]\n       comet compare A B [--alpha 0.01] [--threshold 0.10]   (comet compare --help)\n"
             << "       comet fit-machine RUN [--out FILE]   (a LogGOPS machine from RUN's loggp records; comet fit-machine --help)\n"
             << desc << '\n';
        s.help = help.str();
        return s;
    }
    s.argc = argc;
    s.argv = argv;
    s.transport = vm["transport"].as<std::string>();
    if (s.transport != "threads" && s.transport != "mpi" && s.transport != "ipsc860" && s.transport != "ipsc1" && s.transport != "loggops")
        throw usage_error("--transport: unknown transport '" + s.transport + "' (known: threads, mpi, ipsc860, ipsc1, loggops)");
    if (vm.count("machine")) {
        if (s.transport != "loggops")
            throw usage_error("--machine: a machine file is for --transport loggops, not " + s.transport);
        s.machine_file = vm["machine"].as<std::string>();
    }
    if (vm.count("measured")) {
        if (s.transport != "loggops")
            throw usage_error("--measured: a measured run is compared with --transport loggops's predictions, not " + s.transport + "'s");
        s.measured_file = vm["measured"].as<std::string>();
    }
    if (vm.count("nodes")) {
        s.nodes = integers<int>("nodes", vm["nodes"].as<std::string>(), 1, max_nodes(s.transport), "group size");
    }
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
        c.transfer.sizes =
            integers<std::size_t>("sizes", vm["sizes"].as<std::string>(), 0, static_cast<long long>(comet::max_message_size), "size");
        c.broadcast.sizes = c.contention.sizes = c.loggp.transfer.sizes = c.transfer.sizes;
    }
    if (vm.count("matrix-dims")) {
        c.matrix.dims = integers<int>("matrix-dims", vm["matrix-dims"].as<std::string>(), 1, comet::kernels::matrix_max_dim, "dimension");
    }
    // Seed 000's vectors. --max-vec-len first: it bounds the lengths given beside it.
    if (vm.count("max-vec-len")) {
        const auto most = static_cast<std::size_t>(integer("max-vec-len", vm["max-vec-len"].as<std::string>(), 1,
                                                           static_cast<long long>(comet::max_message_size / sizeof(double))));
        c.overlap.max_vec_len = c.global_sum.max_vec_len = most;
        // The thesis' DAXPY runs "for vector length = 0 to max_vec_length": the default grid,
        // which ends at the thesis' 200000, scaled to end at this one.
        std::vector<std::size_t> grid = comet::kernels::default_overlap_vector_lengths();
        const std::size_t top = grid.back();
        for (auto& n : grid) n = (n * most + top / 2) / top;
        grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
        c.overlap.vector_lengths = grid;
        std::erase_if(c.global_sum.vector_lengths, [&](std::size_t n) { return n > most; });
    }
    const auto lengths = [&](const char* option, std::size_t most) {
        std::vector<std::size_t> out;
        for (const auto& x : split(vm[option].as<std::string>())) {
            const auto n = static_cast<std::size_t>(integer(option, x, 0, static_cast<long long>(comet::max_message_size / sizeof(double))));
            if (n > most)
                throw usage_error(std::string("--") + option + ": " + x + " is above --max-vec-len " + std::to_string(most) +
                                  " (the longest vector; raise it with --max-vec-len)");
            out.push_back(n);
        }
        if (out.empty()) throw usage_error(std::string("--") + option + ": no length given");
        return out;
    };
    if (vm.count("global-sum-lengths")) c.global_sum.vector_lengths = lengths("global-sum-lengths", c.global_sum.max_vec_len);
    if (vm.count("overlap-lengths")) c.overlap.vector_lengths = lengths("overlap-lengths", c.overlap.max_vec_len);
    if (vm.count("overlap-sizes")) {
        c.overlap.sizes = integers<std::size_t>("overlap-sizes", vm["overlap-sizes"].as<std::string>(), 0,
                                                static_cast<long long>(comet::max_message_size), "size");
    }
    if (vm.count("contention-loads")) {
        const std::string x = vm["contention-loads"].as<std::string>();
        auto& k = c.contention;
        if (x == "measured") {
            k.load_sizes = comet::kernels::thesis_load_sizes;
            k.load_source = "configured";  // what the suite measures in place of
        } else if (x == "thesis") {
            k.load_sizes = comet::kernels::thesis_load_sizes;
            k.load_source = "thesis";
        } else {
            const auto both = split(x);
            if (both.size() != 2)
                throw usage_error("--contention-loads: '" + x + "' is not measured, thesis, or two sizes B1,B2 in bytes (the 50% and 90% loads)");
            const auto half = static_cast<std::size_t>(integer("contention-loads", both[0], 1, static_cast<long long>(comet::max_message_size)));
            const auto ninety = static_cast<std::size_t>(integer("contention-loads", both[1], 1, static_cast<long long>(comet::max_message_size)));
            // Echo's bandwidth grows with the size, so the 90% size lies above the 50% one.
            if (half >= ninety)
                throw usage_error("--contention-loads " + x + ": the 50% load's size must be below the 90% load's");
            k.load_sizes = {half, ninety};
            k.load_source = "given";
        }
    }
    if (vm.count("matrix-row"))
        c.matrix.row = integer("matrix-row", vm["matrix-row"].as<std::string>(), 0, comet::kernels::matrix_max_global_dim - 1);
    if (vm.count("matrix-col"))
        c.matrix.col = integer("matrix-col", vm["matrix-col"].as<std::string>(), 0, comet::kernels::matrix_max_global_dim - 1);
    if (vm.count("hops")) {
        c.transfer.hops = integers<int>("hops", vm["hops"].as<std::string>(), 0, 30, "hop distance");
    }
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
    if (vm.count("cache")) {
        const auto modes = split(vm["cache"].as<std::string>());
        // The other kernels take one mode a run; a list is COMMTEST's (its modes one after the other).
        if (modes.size() > 1 && std::find(modes.begin(), modes.end(), "cold") != modes.end())
            throw usage_error("--cache " + vm["cache"].as<std::string>() +
                              ": a list is COMMTEST's modes (warm, flushed, repeat:K); the other kernels take one mode a run, warm or cold");
        if (modes.size() == 1 && modes.front() == "cold") sampling.cache = comet::cache_state::cold;
    }
    c.sampling = sampling;
    s.sampling_given = vm.count("reps") || vm.count("samples") || vm.count("max-samples");
    if (vm.count("rounds")) {
        s.rounds = static_cast<int>(integer("rounds", vm["rounds"].as<std::string>(), 1, 1000));
        if (s.rounds > 1 && (s.transport == "ipsc860" || s.transport == "ipsc1" || s.transport == "loggops"))
            throw usage_error("--rounds " + std::to_string(s.rounds) + ": the simulated " + s.transport +
                              " is deterministic, every round would measure the same; leave --rounds out");
    }
    if (vm.count("test-node")) {
        const int n = static_cast<int>(integer("test-node", vm["test-node"].as<std::string>(), 0, max_nodes(s.transport) - 1));
        c.transfer.test_node = c.broadcast.test_node = c.global_sum.test_node = c.barrier.test_node = n;
        c.contention.test_node = c.overlap.test_node = c.matrix.test_node = c.commtest.test_node = n;
        c.loggp.transfer.test_node = n;
    }
    if (vm.count("protocols")) c.commtest.protocols = protocols(vm["protocols"].as<std::string>());
    if (vm.count("volumes")) {
        c.commtest.volumes.clear();
        for (const auto& x : split(vm["volumes"].as<std::string>())) c.commtest.volumes.push_back(volume(x));
        if (c.commtest.volumes.empty()) throw usage_error("--volumes: no volume given");
    }
    if (vm.count("messages")) {
        c.commtest.messages = integers<std::size_t>("messages", vm["messages"].as<std::string>(), 1, 1 << 24, "number");
    }
    if (vm.count("n1") || vm.count("n2")) {
        comet::commtest_options o;
        if (vm.count("n1")) o.n1 = static_cast<int>(integer("n1", vm["n1"].as<std::string>(), 1, 1 << 24));
        if (vm.count("n2")) o.n2 = static_cast<int>(integer("n2", vm["n2"].as<std::string>(), 1, 1 << 24));
        if (o.n2 <= o.n1)
            throw usage_error("--n2 " + std::to_string(o.n2) + ": not above --n1 " + std::to_string(o.n1) +
                              " (a = (T_N2 - T_N1)/(N2 - N1) needs N2 > N1)");
        // The seed's a comes from two measured counts; a count not measured would leave the
        // analysis to take the two largest in their place.
        const auto& m = c.commtest.messages;
        for (const auto& [name, n] : {std::pair{"n1", o.n1}, std::pair{"n2", o.n2}})
            if (std::find(m.begin(), m.end(), static_cast<std::size_t>(n)) == m.end()) {
                std::string counts;
                for (std::size_t x : m) counts += (counts.empty() ? "" : ",") + std::to_string(x);
                throw usage_error(std::string("--") + name + " " + std::to_string(n) + ": not one of the message counts measured (--messages " +
                                  counts + ")");
            }
        s.commtest_statistics = o;
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
        // One mode, or (commtest) several, run one after the other.
        const auto modes = split(vm["cache"].as<std::string>());
        if (modes.empty()) throw usage_error("--cache: no mode given");
        for (const auto& given : modes) {
            const auto mode = comet::kernels::commtest::parse_cache(given == "cold" ? "flushed" : given);
            if (!mode) throw usage_error("--cache: '" + given + "' is not warm, cold, flushed or repeat:K (K >= 1)");
            if (std::find(c.commtest_caches.begin(), c.commtest_caches.end(), *mode) != c.commtest_caches.end())
                throw usage_error("--cache: '" + given + "' given twice");
            c.commtest_caches.push_back(*mode);
        }
        c.commtest.cache = c.commtest_caches.front();
        if (modes.size() == 1) c.commtest_caches.clear();
    }
    if (vm.count("noise")) {
        if (s.transport == "mpi") throw usage_error("--noise: MPI runs on a real machine with its own noise; --noise is for threads, ipsc860, ipsc1 and loggops");
        for (const auto& spec : vm["noise"].as<std::vector<std::string>>()) s.noise.push_back(noise_source(spec));
    }
    if (vm.count("buffer")) {
        const std::string b = vm["buffer"].as<std::string>();
        if (b != "same" && b != "clean") throw usage_error("--buffer: '" + b + "' is not same or clean");
        c.transfer.buffer = b == "same" ? comet::kernels::echo_buffer::same : comet::kernels::echo_buffer::clean;
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
        c.nbc.intervals =
            integers<std::size_t>("intervals", vm["intervals"].as<std::string>(), 1, static_cast<long long>(comet::max_message_size), "interval");
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
            real("window-us", vm["window-us"].as<std::string>(), "a time in µs above 0, at most 10000000 (10 s)", [](double v) { return v > 0.0 && v <= 1e7; }) *
            1e-6;
    if (vm.count("measurements"))
        c.collectives.window.measurements = c.nbc.window.measurements =
            static_cast<std::size_t>(integer("measurements", vm["measurements"].as<std::string>(), 1, 1000000));
    if (vm.count("pipeline"))
        c.collectives.window.pipeline = static_cast<std::size_t>(integer("pipeline", vm["pipeline"].as<std::string>(), 1, 1000000));
    // The program measures what the seeds studied by default: listings 1-3 beside the window
    // scheme, and the round-trip study after the syncs (the library's defaults leave both out).
    c.collectives.measures.assign(comet::all_window_measures.begin(), comet::all_window_measures.end());
    c.sync.round_trips = true;
    if (vm.count("measures")) {
        c.collectives.measures.clear();
        for (const auto& x : split(vm["measures"].as<std::string>())) {
            std::optional<comet::window_measure> m;
            for (auto w : {comet::window_measure::window, comet::window_measure::pipelined, comet::window_measure::barrier_then_loop,
                           comet::window_measure::loop, comet::window_measure::barriers_then_loop})
                if (comet::to_string(w) == x) m = w;
            if (!m)
                throw usage_error("--measures: '" + x + "' is not window, pipelined, barrier_then_loop, loop or barriers_then_loop");
            c.collectives.measures.push_back(*m);
        }
        if (c.collectives.measures.empty()) throw usage_error("--measures: no measure given");
    }
    if (vm.count("loop-barriers"))
        c.collectives.window.loop_barriers = static_cast<std::size_t>(integer("loop-barriers", vm["loop-barriers"].as<std::string>(), 0, 1000));
    if (vm.count("rank-times")) c.collectives.rank_times = true;
    if (vm.count("thread-quantum-us"))
        c.nbc.thread_quantum = real("thread-quantum-us", vm["thread-quantum-us"].as<std::string>(), "a time slice in µs from 0.1 to 1000000",
                                    [](double v) { return v >= 0.1 && v <= 1e6; }) *
                               1e-6;
    if (vm.count("rtt-measurements")) {
        const auto n = integer("rtt-measurements", vm["rtt-measurements"].as<std::string>(), 0, 10000000);
        if (n > 0 && n < 8) throw usage_error("--rtt-measurements: " + std::to_string(n) + " is below 8, the fewest a drift is fitted from (0: no study)");
        c.sync.round_trips = n > 0;
        if (n > 0) c.sync.rtt.measurements = static_cast<std::size_t>(n);
    }
    if (vm.count("rtt-interval-us"))
        c.sync.rtt.interval = real("rtt-interval-us", vm["rtt-interval-us"].as<std::string>(), "a time in µs from 0 to 10000000 (10 s)",
                                   [](double v) { return v >= 0.0 && v <= 1e7; }) *
                              1e-6;
    if (vm.count("rtt-partners")) {
        c.sync.rtt.partners.clear();
        for (const auto& x : split(vm["rtt-partners"].as<std::string>()))
            c.sync.rtt.partners.push_back(static_cast<int>(integer("rtt-partners", x, 1, 1 << 20)));
        if (c.sync.rtt.partners.empty()) throw usage_error("--rtt-partners: no rank given");
        for (int r : c.sync.rtt.partners)
            for (int n : s.nodes)
                if (r >= n) throw usage_error("--rtt-partners: rank " + std::to_string(r) + " is outside the group of " + std::to_string(n) + " nodes");
    }
    if (vm.count("rtt-bins"))
        c.sync.rtt.bins = static_cast<std::size_t>(integer("rtt-bins", vm["rtt-bins"].as<std::string>(), 1, 100000));
    if (vm.count("patience")) {
        // A pair stops after max_exchanges whatever the round trips do: a larger N would never
        // be reached.
        const comet::sync_config& sc = c.sync.sync;
        const auto n = static_cast<std::size_t>(
            integer("patience", vm["patience"].as<std::string>(), 1, static_cast<long long>(sc.max_exchanges - sc.warmup)));
        c.sync.sync.patience = c.collectives.sync.patience = c.nbc.sync.patience = n;
        s.context_parameters.emplace_back("sync_patience", std::to_string(n));
    }
    if (vm.count("sync")) {
        const auto x = vm["sync"].as<std::string>();
        comet::sync_scheme scheme = comet::sync_scheme::log_p;
        if (x == "linear") scheme = comet::sync_scheme::linear;
        else if (x != "logp" && x != "log_p") throw usage_error("--sync: '" + x + "' is not linear or logp");
        c.sync.schemes = {scheme};
        c.collectives.sync.scheme = c.nbc.sync.scheme = scheme;
    }
    if (vm.count("dilation")) {
        c.nist.dilations.clear();
        for (const auto& x : split(vm["dilation"].as<std::string>()))
            c.nist.dilations.push_back(real("dilation", x, "a dilation factor from 1 to 1000000", [](double v) { return v >= 1.0 && v <= 1e6; }));
        if (c.nist.dilations.empty()) throw usage_error("--dilation: no factor given");
    }
    if (vm.count("setting")) {
        c.nist.settings.clear();
        for (const auto& x : split(vm["setting"].as<std::string>())) {
            if (x == "cm") c.nist.settings.push_back(comet::kernels::nist::setting::cm);
            else if (x == "cp") c.nist.settings.push_back(comet::kernels::nist::setting::cp);
            else throw usage_error("--setting: '" + x + "' is not cm or cp");
        }
        if (c.nist.settings.empty()) throw usage_error("--setting: no setting given");
    }
    if (vm.count("nist"))
        for (const auto& spec : vm["nist"].as<std::vector<std::string>>()) {
            try {
                nist::set_parameter(c.nist, spec);
            } catch (const comet::invalid_argument& e) {
                throw usage_error(std::string("--nist: ") + e.what());
            }
        }
    if (vm.count("break"))
        s.break_size = static_cast<double>(integer("break", vm["break"].as<std::string>(), 0, static_cast<long long>(comet::max_message_size)));
    if (vm.count("out")) {
        s.out = vm["out"].as<std::string>();
        if (s.out.empty()) throw usage_error("--out: an empty folder name (give a folder, e.g. --out report; leave out --out to write no files)");
    }
    if (vm.count("set"))
        for (const auto& kv : vm["set"].as<std::vector<std::string>>()) {
            const auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0) throw usage_error("--set: '" + kv + "' is not key=value");
            if (eq + 1 == kv.size()) throw usage_error("--set " + kv + ": no value");
            s.transport_options.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
        }
    return s;
}


}  // namespace comet_program
