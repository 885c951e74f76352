// comet --transport mpi: the suite on the processes of an MPI job.
//
//   mpirun -np 4 comet --transport mpi --kernels echo,pairwise --out report/mpi
//
// Every process runs the same command line. --nodes P[,P...] runs the suite on the first P
// processes of the job, each P in turn (the thesis ran it on 2, 4, 8 and 16 nodes); without it,
// on all of them. The test node (--test-node, default 0) measures, so it prints the tables and
// writes the report; the other processes print nothing. The MPI transport has no --set settings.
#include "program.hpp"
#include "progress.hpp"

#ifdef COMET_HAVE_MPI
#include "report.hpp"
#include "stopping.hpp"

#include <comet/compiled/mpi.hpp>  // the transport; linking the compiled part, its kernels declared
#endif

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace comet_program {

namespace {
/// True on the process that writes the report (set by launch_mpi).
bool reports = false;
}  // namespace

/// Whether this process should print the one-line reason of a bad command line. The processes
/// of an MPI job check the same settings and would all print the same line: only rank 0 does
/// (and the process that writes the report, whose own errors only it sees). For main.cpp.
bool prints_errors() {
    if (reports) return true;
#ifdef COMET_HAVE_MPI
    int running = 0, finished = 0;
    MPI_Initialized(&running);
    MPI_Finalized(&finished);
    if (running && !finished) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        return rank == 0;
    }
#endif
    // Before MPI starts (or in a comet built without it): launchers tell each process its rank.
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
        if (const char* v = std::getenv(name)) return std::string_view(v) == "0";
    return true;
}

#ifdef COMET_HAVE_MPI

namespace {

/// The first `p` processes of `world` as a communicator of their own (false elsewhere).
boost::mpi::communicator first_processes(const boost::mpi::communicator& world, int p) {
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Comm_split(world, world.rank() < p ? 0 : MPI_UNDEFINED, world.rank(), &sub);
    // MPI_COMM_NULL makes an empty communicator, which converts to false.
    return boost::mpi::communicator(sub, sub == MPI_COMM_NULL ? boost::mpi::comm_attach : boost::mpi::comm_take_ownership);
}

/// How many processes of `world` run on this machine (MPI-3's shared-memory split). Collective.
int processes_here(const boost::mpi::communicator& world) {
    MPI_Comm here = MPI_COMM_NULL;
    if (MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, world.rank(), MPI_INFO_NULL, &here) != MPI_SUCCESS)
        return world.size();  // not known: all of them, so the load note never blames the job for itself
    int n = 0;
    MPI_Comm_size(here, &n);
    MPI_Comm_free(&here);
    return n;
}

/// Rank 0's `text`, on every process of `world`.
std::string from_rank_0(const boost::mpi::communicator& world, std::string text) {
    int length = static_cast<int>(text.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, world);
    text.resize(static_cast<std::size_t>(length));
    MPI_Bcast(text.data(), length, MPI_CHAR, 0, world);
    return text;
}

/// Checks the echo/pairwise configuration for a group of `p` processes the way the kernels
/// will, before anything is measured, so that a bad --hops or --test-node is a usage error on
/// every process (exit status 2) instead of a failure in the middle of the job. The group's
/// processes check; rank 0 (in every group) tells the others.
void check_transfer(const boost::mpi::communicator& world, const settings& s, int p) {
    std::string problem;
    if (const auto group = first_processes(world, p)) {
        comet::mpi::transport t(group);
        try {
            for (const auto& name : s.suite.kernels)
                if (name == "echo" || name == "pairwise") (void)comet::kernels::detail::transfer_hops(t, s.suite.transfer, name);
        } catch (const comet::invalid_argument& e) {
            problem = e.what();
        }
        t.barrier();
    }
    problem = from_rank_0(world, std::move(problem));
    if (!problem.empty()) throw comet::invalid_argument(problem);
}

}  // namespace

outcome launch_mpi(const settings& s) {
    // MPI_THREAD_SERIALIZED only when the nonblocking collectives' thread progression is asked
    // for by name (--progressions ...,thread): it changes how the library runs (transport/mpi/
    // environment.hpp), and every other figure is taken with MPI's default, MPI_THREAD_SINGLE.
    const auto& progs = s.suite.nbc.progressions;
    const bool thread = std::find(progs.begin(), progs.end(), comet::kernels::progression::thread) != progs.end();
    comet::mpi::initialize(thread ? boost::mpi::threading::serialized : boost::mpi::threading::single);
    const boost::mpi::communicator world;
    const int processes = world.size();
    // --set preemptions=0|1 (on by default: a sample during which a rank lost its CPU is left out),
    // watchdog_s=S (0: off) and check_collectives=0|1: the last two off by default, because each puts
    // work between the kernel and MPI (polling instead of blocking calls; an allreduce before
    // every collective); the report's context says when they were on.
    comet::mpi::options mpi_options;
    for (const auto& [key, text] : s.transport_options) {
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        const bool number = !text.empty() && ec == std::errc() && end == text.data() + text.size() && std::isfinite(v);
        if (key == "watchdog_s") {
            if (!number || v < 0 || v > 86400) throw usage_error("--set watchdog_s=" + text + ": not a number of seconds in 0..86400 (0: off)");
            mpi_options.watchdog_s = v;
        } else if (key == "check_collectives" || key == "preemptions") {
            if (text != "0" && text != "1") throw usage_error("--set " + key + "=" + text + ": 0 or 1");
            (key == "preemptions" ? mpi_options.count_preemptions : mpi_options.check_collectives) = text == "1";
        } else {
            throw usage_error("--set " + key + ": the MPI transport has no such setting (watchdog_s, check_collectives, preemptions)");
        }
    }
    for (int p : s.nodes)
        if (p > processes)
            throw usage_error("--nodes " + std::to_string(p) + ": this MPI job has " + std::to_string(processes) +
                              " processes (start it with mpirun -np " + std::to_string(p) + ", or leave --nodes out)");
    const std::vector<int> groups = s.nodes.empty() ? std::vector<int>{processes} : s.nodes;
    check_test_node(s, groups);
    check_matrix_lines(s, groups);
    for (int p : groups) check_transfer(world, s, p);

    const int test_node = s.suite.transfer.test_node;
    reports = world.rank() == test_node;
    const int rounds = s.rounds ? s.rounds : rounds_default;
    const auto& kernels = comet::suite_kernels();
    // The test node measures, so it alone shows progress.
    progress bar(reports ? points_in_rounds(s.suite, later_rounds(s.suite, kernels), rounds, groups, kernels) : 0);
    comet::suite_config cfg = s.suite;
    cfg.on_point = [&bar](const comet::record& r) { bar.point(r); };
    // The reporting process keeps each point and stops on a signal; an exception escaping
    // mpi::run ends the whole job (MPI_Abort), so it writes what it has before rethrowing.
    run_log log;
    if (reports) log.attach(cfg);
    stop_on_signals(cfg);
    const comet::suite_config later = later_rounds(cfg, kernels);

    outcome o;
    // Made before the runs: the date and the load average are the start's (on every process;
    // the one that writes the report keeps its own machine's).
    o.ctx = comet::make_context("mpi", groups.back());
    o.ctx.transport_capabilities = comet::describe_capabilities<comet::mpi::transport>();
    o.ctx.mpi_library = comet::mpi::library_version();
    for (const auto& [key, value] : s.transport_options) o.ctx.extra.emplace_back(key, value);
    std::optional<second_signal_writes> on_second;
    if (reports) {
        outcome base = o;
        base.groups = groups;
        on_second.emplace(s, log, std::move(base));
    }
    bool stopped = false;  // a signal stopped the run: every process of the group stopped together
    for (int p : groups) {
        log.next_group();
        if (const auto group = first_processes(world, p))
            o.results.append(comet::mpi::run(group, mpi_options, [&](comet::mpi::transport& t) {
                // The rounds, every process in step: a fixed count, the same on all.
                comet::result_set measured;
                try {
                    for (int round = 0; round < rounds; ++round) {
                        const comet::suite_config& this_round = round == 0 ? cfg : later;
                        if (this_round.kernels.empty()) break;
                        if (round) log.next_group();
                        add_round(measured, comet::run_suite(t, this_round));
                        if (reports) {
                            comet::result_set so_far = o.results;
                            so_far.append(measured);
                            log.keep(so_far);
                        }
                    }
                    return measured;
                } catch (const comet::suite_stopped&) {
                    // run_suite stops every process of the group together: the run ends in order.
                    stopped = true;
                    if (reports) {
                        outcome cut;
                        log.stopped(cut, std::current_exception());
                        add_round(measured, cut.results);
                        o.stopped = cut.stopped;
                    }
                    return measured;
                } catch (const std::exception&) {
                    if (reports) {
                        outcome partial = o, cut;
                        partial.groups = groups;
                        log.stopped(cut, std::current_exception());
                        add_round(measured, cut.results);
                        partial.results.append(measured);
                        partial.stopped = cut.stopped;
                        partial.failure = cut.failure;
                        try {
                            write_report(s, std::move(partial));
                        } catch (const std::exception& e) {
                            std::cerr << "comet: the report of the points measured could not be written: " << e.what() << '\n';
                        }
                    }
                    throw;
                }
            }));
        comet::mpi::detail::wait_quietly(world);  // the processes outside this group wait for it
        // A group that stopped on a signal ends the run on every process: the others learn it here.
        int any = stopped ? 1 : 0;
        MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, world);
        if (any) break;
    }
    o.writes_report = reports;
    o.groups = groups;
    // The job's processes on this machine count in its load average (they poll while they
    // wait): the note leaves them out.
    comet::record_load_at_end(o.ctx, processes_here(world));
    o.ctx.extra.emplace_back("mpi_processes", std::to_string(processes));
    o.ctx.extra.emplace_back("rounds", rounds_text(rounds, cfg, later));
    return o;
}

#else

outcome launch_mpi(const settings&) {
    throw usage_error(
        "--transport mpi: this comet was built without MPI support (install an MPI library and Boost.MPI, "
        "e.g. with scripts/setup.sh, and configure again)");
}

#endif

}  // namespace comet_program
