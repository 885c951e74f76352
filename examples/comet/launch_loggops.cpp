// comet --transport loggops [--machine FILE] [--measured RUN]: the suite on a LogGOPS machine
// (docs/loggops.md), the one of the machine file `comet fit-machine` wrote (default: the
// library's preset), on each group size given (--nodes 2,64,1024; default 2), in virtual time;
// with --measured, the report's table "prediction" puts each point beside RUN's measurement
// (analysis/prediction.hpp). As on the simulated iPSC/860, the report leaves the host's date,
// name and clock out: the same command writes the same bytes.
#include "program.hpp"

#ifdef COMET_HAVE_NX2
#include "simulated.hpp"

#include <comet/analysis/prediction.hpp>
#include <comet/report/json_read.hpp>
#include <comet/transport/loggops.hpp>

#include <optional>
#include <string>
#include <vector>
#endif

namespace comet_program {

#ifdef COMET_HAVE_NX2

outcome launch_loggops(const settings& s) {
    const std::vector<int> groups = s.nodes.empty() ? std::vector<int>{2} : s.nodes;
    if (!s.transport_options.empty())
        throw usage_error("--set " + s.transport_options.front().first +
                          ": a LogGOPS machine's parameters are its machine file's (--machine FILE; docs/loggops.md)");
    comet::loggops::machine m;
    if (!s.machine_file.empty()) m = comet::loggops::read_machine_file(s.machine_file);
    for (int p : groups) {  // every group size on the machine's topology, before anything runs
        comet::loggops::machine group = m;
        group.nodes = p;
        try {
            comet::loggops::validate(group);
        } catch (const comet::invalid_argument& e) {
            throw usage_error("--nodes " + std::to_string(p) + ": " + e.what());
        }
    }
    // The run the predictions go beside, read before anything runs: a wrong path fails at once.
    std::optional<comet::results_file> measured;
    const std::string measured_path = s.measured_file.empty() ? "" : results_path(s.measured_file);
    if (!measured_path.empty()) measured = comet::read_results_file(measured_path);
    simulated_totals totals;
    outcome o = run_simulated(s, groups, totals, [&](int p, const comet::suite_config& cfg, simulated_totals& sum) {
        comet::loggops::machine group = m;
        group.nodes = p;
        comet::loggops::run_statistics stats;
        auto per_rank = comet::loggops::run(
            group,
            [&](comet::loggops::transport& t) { return with_noise(t, s.noise, [&](auto& u) { return comet::run_suite(u, cfg); }); },
            {.statistics = &stats});
        sum.virtual_picoseconds += stats.end_time;
        sum.messages += stats.total().messages_sent;
        return std::move(per_rank.at(static_cast<std::size_t>(cfg.transfer.test_node)));
    });
    m.nodes = groups.back();
    o.ctx.transport_capabilities = comet::describe_capabilities<comet::loggops::transport>();
    o.ctx.extra.emplace_back("machine", comet::loggops::describe(m));
    if (!s.machine_file.empty()) o.ctx.extra.emplace_back("machine_file", s.machine_file);
    add_simulated_context(o, s, totals, comet::nx2::detail::fixed(totals.virtual_picoseconds, 12));
    if (m.S != comet::loggops::no_rendezvous) o.break_size = static_cast<double>(m.S);
    if (measured) {
        o.tables.push_back(comet::prediction_table(measured->results, o.results));
        o.ctx.extra.emplace_back("measured", measured_path);
    }
    return o;
}

#else
outcome launch_loggops(const settings& s) {
    throw usage_error("--transport " + s.transport + ": the simulator is not part of this build (Boost.Context was not found)");
}
#endif

}  // namespace comet_program
