// What the two simulators' launches share (launch_ipsc860.cpp, launch_loggops.cpp): the suite
// run group after group in virtual time, each group's test node's records kept as they come
// (so a stop keeps them), and the context a deterministic run reports: neither the host's
// date, name and clock nor its load, whose notes say nothing of virtual time.
#pragma once

#include "program.hpp"
#include "progress.hpp"
#include "stopping.hpp"

#include <comet/suite/suite.hpp>

#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace comet_program {

/// What the runs of every group added up to.
struct simulated_totals {
    std::int64_t virtual_picoseconds = 0;
    std::uint64_t messages = 0;
};

/// Runs the suite of `s` on each of `groups` in turn: `run_group(p, cfg, totals)` runs it on a
/// machine of `p` ranks and returns the test node's records (adding its virtual time and
/// messages to `totals`). Without --reps, --samples or --noise the points take the thesis'
/// method: repeat loops of 1000 operations, whose per-iteration time is the pipelined,
/// steady-state figure the thesis' tables hold, and three samples, all there is to say in
/// virtual time without noise (their interval of the median is then null: too few). With
/// --noise the engine's own sampling: short samples, at least 15, each disturbed one kept out of
/// the figures, which the context names. The outcome's context is the transport's, without the
/// host's machine.
template <class RunGroup>
outcome run_simulated(const settings& s, const std::vector<int>& groups, simulated_totals& totals, RunGroup run_group) {
    check_test_node(s, groups);
    check_matrix_lines(s, groups);
    std::size_t points = 0;
    for (int p : groups) points += comet::suite_points(s.suite, p);
    progress bar(points);
    comet::suite_config cfg = s.suite;
    if (!s.sampling_given && s.noise.empty()) {
        cfg.sampling->iterations = 1000;
        cfg.sampling->min_samples = cfg.sampling->max_samples = 3;
    }
    cfg.on_point = [&bar](const comet::record& r) { bar.point(r); };
    run_log log;
    log.attach(cfg);
    outcome base;
    base.ctx = comet::make_context(s.transport, groups.back());
    base.ctx.machine = {};
    base.groups = groups;
    base.deterministic = true;
    const second_signal_writes on_second(s, log, std::move(base));

    outcome o;
    for (int p : groups) {
        log.next_group();
        try {
            o.results.append(run_group(p, cfg, totals));
            log.keep(o.results);
        } catch (const std::exception&) {
            log.stopped(o, std::current_exception());
            break;
        }
    }
    o.ctx = comet::make_context(s.transport, groups.back());
    o.ctx.machine = {};
    o.groups = groups;
    o.deterministic = true;
    o.sampling = cfg.sampling;
    return o;
}

/// The context lines every simulated run ends with: the group sizes when several, the noise,
/// the virtual time and the messages simulated.
inline void add_simulated_context(outcome& o, const settings& s, const simulated_totals& totals, const std::string& fixed_seconds) {
    if (o.groups.size() > 1) {
        std::string list;
        for (int p : o.groups) list += (list.empty() ? "" : ",") + std::to_string(p);
        o.ctx.extra.emplace_back("node_counts", list);
    }
    for (const auto& [key, value] : s.transport_options) o.ctx.extra.emplace_back(key, value);
    if (!s.noise.empty()) o.ctx.extra.emplace_back("noise", describe(s.noise));
    o.ctx.extra.emplace_back("virtual_seconds", fixed_seconds);
    o.ctx.extra.emplace_back("simulated_messages", std::to_string(totals.messages));
}

}  // namespace comet_program
