// The comet program's report: what main does once a launch has measured — the context of the
// run, the analysis of every kernel's records by its descriptor, the summary on stdout and the
// report folder (--out) — and what `comet compare` prints of two runs. A header, so that a test
// can put a kernel of its own through exactly this (test/suite/test_descriptor.cpp).
#pragma once

#include "program.hpp"

#include <comet/report/gbench.hpp>
#include <comet/report/json_read.hpp>
#include <comet/stats/commtest.hpp>
#include <comet/stats/compare.hpp>
#include <comet/suite/output.hpp>
#include <comet/suite/suite.hpp>
#include <comet/timing/clock.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace comet_program {

/// `kernels` with the commtest kernel's statistics computed from --n1 and --n2 when they were
/// given (settings::commtest_statistics): the suite's analysis (comet::analyses::
/// commtest_statistics) takes the seed's 512 and 1024, and the options a report is analysed
/// with (comet::analysis_options) do not carry COMMTEST's.
inline std::vector<comet::kernel_descriptor> analysed_as_asked(const settings& s, std::span<const comet::kernel_descriptor> kernels) {
    std::vector<comet::kernel_descriptor> out(kernels.begin(), kernels.end());
    if (!s.commtest_statistics) return out;
    for (auto& d : out) {
        if (d.name != "commtest") continue;
        d.analyses = {[o = *s.commtest_statistics](comet::report& r, const comet::kernel_descriptor& k, const comet::analysis_options&) {
            if (r.results.of(k.name).empty()) return;
            try {
                auto stats = comet::commtest_statistics_of(r.results, o, k.name);
                const auto flagged = std::count_if(stats.begin(), stats.end(), [](const auto& x) { return !x.flags.empty(); });
                if (flagged > 0)
                    r.notes.push_back(k.name + ": a flagged statistic in " + std::to_string(flagged) + " of " + std::to_string(stats.size()) +
                                      " experiments (negative a, b not positive, or model error too large); see the commtest section");
                for (auto& x : stats) r.commtest.push_back(std::move(x));
            } catch (const comet::invalid_argument& e) {
                r.notes.push_back("no commtest statistics for " + k.name + ": " + e.what());
            }
        }};
    }
    return out;
}

/// Analyses what was measured with the descriptors `kernels`, prints the summary on `out` and,
/// with --out, writes the report folder. A folder that cannot be written is a usage_error.
inline void write_report(const settings& s, outcome o, std::span<const comet::kernel_descriptor> kernels = comet::suite_kernels(),
                         std::ostream& out = std::cout) {
    comet::report r;
    r.ctx = std::move(o.ctx);
    r.results = std::move(o.results);
    r.stopped = std::move(o.stopped);
    if (s.argv) r.ctx.command_line = comet::command_line_of(s.argc, s.argv);
    if (o.deterministic) {
        r.ctx.date.clear();  // a simulation's report depends on the command line only
        r.ctx.host.clear();
    } else {
        comet::steady_clock_source clock;
        const auto info = comet::describe(clock, "steady_clock");
        const auto ns = [](double seconds) {
            std::ostringstream os;
            os << seconds * 1e9 << " ns";
            return os.str();
        };
        r.ctx.extra.insert(r.ctx.extra.begin(), {{"clock", info.name},
                                                 {"clock_resolution", ns(info.resolution)},
                                                 {"clock_call_cost", ns(info.call_cost)}});
    }
    if (const auto* sm = o.sampling ? &*o.sampling : s.suite.sampling ? &*s.suite.sampling : nullptr) {
        std::ostringstream os;
        os << "samples " << sm->min_samples << ".." << sm->max_samples << ", iterations "
           << (sm->iterations ? std::to_string(sm->iterations) : std::string("calibrated")) << ", order " << comet::to_string(sm->order)
           << ", caches " << comet::to_string(sm->cache) << " at each sample's start, ranks started together";
        if (sm->order == comet::interleave::shuffle) os << " (seed " << sm->seed << ")";
        r.ctx.extra.emplace_back("sampling", os.str());
    }
    for (const auto& p : s.context_parameters) r.ctx.extra.push_back(p);
    comet::note_skipped(r, s.suite.kernels, o.groups, kernels);
    const std::vector<comet::kernel_descriptor> analysed = analysed_as_asked(s, kernels);
    comet::analyse(r, analysed, {.break_size = s.break_size ? s.break_size : o.break_size});
    for (auto& t : o.tables) r.tables.push_back(std::move(t));

    const std::string summary = comet::suite_summary(r, kernels, o.compare_with_thesis);
    out << summary << std::flush;
    if (s.out.empty()) return;
    try {
        const comet::suite_files files = comet::write_suite_report(s.out, r, summary, kernels);
        // Google Benchmark's format beside results.json, always: no option to remember, and
        // any report folder can be fed to the tools written for that format (compare.py).
        const std::filesystem::path gbench = std::filesystem::path(s.out) / "gbench.json";
        comet::write_file_atomically(gbench, [&](std::ostream& g) { comet::write_gbench(g, r); });
        out << "wrote " << files.files.front().string() << ", " << gbench.string() << " and the CSV files\n";
        for (const auto& f : files.plots.not_rendered) out << "note: plot " << f.name << " not rendered: " << f.reason << '\n';
        if (!files.plots.written.empty())
            out << "wrote " << files.plots.written.size() << " plots (" << files.plots.rendered.size() << " rendered) in "
                << (std::filesystem::path(s.out) / "plots").string() << '\n';
    } catch (const comet::error& e) {
        throw usage_error(std::string("--out: ") + e.what());
    }
}

/// One run's line in `comet compare`'s heading: "threads, 2 nodes, host vm, 2024-05-01T12:34:56Z".
inline std::string run_text(const comet::context& c) {
    std::string out = c.transport.empty() ? std::string("?") : c.transport;
    out += ", " + std::to_string(c.nodes) + (c.nodes == 1 ? " node" : " nodes");
    if (!c.host.empty()) out += ", host " + c.host;
    if (!c.date.empty()) out += ", " + c.date;
    return out;
}

/// What `comet compare` prints: the two runs and their writers' notes, what the test is and
/// what it can see, a line per point both measured (samples and rounds on each side, medians in
/// µs, change of B against A, the p-value, the verdict), each kernel's points taken together,
/// the summary, and the points only one run has. Returns whether a point regressed (exit
/// status 1).
inline bool write_comparison(std::ostream& out, const comet::run_comparison& c, const std::string& name_a, const comet::results_file& a,
                             const std::string& name_b, const comet::results_file& b) {
    using comet::detail::table::fixed;
    using comet::detail::table::general;
    const auto percent = [](double v) { return fixed(v * 100.0, 0); };
    const auto signed_percent = [](double v) { return (v >= 0 ? "+" : "") + fixed(v * 100.0, 1) + "%"; };
    out << "A  " << name_a << "  (" << run_text(a.ctx) << ")\n"
        << "B  " << name_b << "  (" << run_text(b.ctx) << ")\n";
    // What each run's writer said about its machine: a loaded machine explains a change
    // better than any code does.
    for (const auto& n : a.notes) out << "note: A: " << n << '\n';
    for (const auto& n : b.notes) out << "note: B: " << n << '\n';
    // What was tested, so that a flagged point is taken for no more than it is.
    const std::size_t on_rounds = c.tested_on(comet::compare_unit::rounds), on_samples = c.points.size() - on_rounds;
    if (on_rounds) {
        const auto by_u = static_cast<std::size_t>(
            std::count_if(c.points.begin(), c.points.end(), [](const comet::point_change& p) { return p.round_u.has_value(); }));
        out << "tested on rounds (" << on_rounds << " of " << c.points.size() << " points): B's round medians against A's in "
            << (by_u == on_rounds ? std::string("a two-sided Mann-Whitney U test")
                : by_u == 0       ? std::string("Welch's two-sided t test (under 7 rounds a side)")
                                  : "a two-sided Mann-Whitney U test (" + std::to_string(by_u) + " points) or, under 7 rounds a side, Welch's t test")
            << "; it sees how the machine's state moved a point between the rounds of a run, not what held for a whole run on both "
               "sides\n";
    }
    if (on_samples)
        out << "tested on samples (" << on_samples << " of " << c.points.size()
            << " points, measured in one round on a side): B's samples against A's in a two-sided Mann-Whitney U test; it sees "
               "only how samples taken milliseconds apart spread, so a change of the machine's state between the runs reads as a "
               "change of the point (comet takes 8 rounds unless --rounds says otherwise)\n";
    out << "each point: slower or faster when p < " << general(c.options.alpha) << " and the median moved by more than "
        << percent(c.options.threshold) << "%; unresolved when it moved by more, but p is not below " << general(c.options.alpha)
        << "\n\n";
    comet::detail::table::text_table t{
        .headers = {"point", "n A", "n B", "rounds", "median A[µs]", "median B[µs]", "change", "p", "verdict"},
        .left = {true, false, false, false, false, false, false, false, true}};
    for (const auto& p : c.points) {
        t.rows.push_back({p.name, std::to_string(p.n_a), std::to_string(p.n_b), std::to_string(p.rounds_a) + "/" + std::to_string(p.rounds_b),
                          comet::detail::table::significant(p.median_a * 1e6), comet::detail::table::significant(p.median_b * 1e6),
                          p.change ? signed_percent(*p.change) : std::string("-"), general(p.p), std::string(comet::to_string(p.verdict))});
    }
    t.write(out);
    // Each kernel's points together: a whole kernel moved one way is what a state of the
    // machine lasting its stretch does, and what a change to the transport does too.
    comet::detail::table::text_table k{.headers = {"kernel", "points", "slower", "faster", "median change", "up", "down"},
                                       .left = {true, false, false, false, false, false, false}};
    for (const auto& x : comet::by_kernel(c))
        k.rows.push_back({x.kernel, std::to_string(x.points), std::to_string(x.slower), std::to_string(x.faster),
                          x.median_change ? signed_percent(*x.median_change) : std::string("-"), std::to_string(x.up), std::to_string(x.down)});
    out << "\nby kernel:\n";
    k.write(out);
    const std::size_t slower = c.count(comet::change_verdict::slower), faster = c.count(comet::change_verdict::faster);
    const std::size_t unresolved = c.count(comet::change_verdict::unresolved);
    const std::size_t same = c.points.size() - slower - faster - unresolved;
    const std::size_t small = c.significant() - slower - faster;  // significant, but within the threshold
    out << '\n' << c.points.size() << (c.points.size() == 1 ? " point: " : " points: ") << slower << " slower, " << faster << " faster, "
        << same << " same";
    if (small) out << " (" << small << " of them a significant change within " << percent(c.options.threshold) << "%)";
    if (unresolved)
        out << ", " << unresolved << " unresolved (the median moved by more than " << percent(c.options.threshold)
            << "%, but the test cannot tell that from the spread: measure again on a quieter machine, or with more rounds)";
    out << '\n';
    const auto list = [&](const char* what, const std::vector<std::string>& names) {
        if (names.empty()) return;
        out << names.size() << " point" << (names.size() == 1 ? "" : "s") << " only in " << what << ":";
        for (const auto& n : names) out << ' ' << n;
        out << '\n';
    };
    list("A", c.only_in_a);
    list("B", c.only_in_b);
    for (const auto& [name, why] : c.not_compared) out << "not compared: " << name << ": " << why << '\n';
    if (c.regressed()) out << "regression: " << slower << (slower == 1 ? " point is" : " points are") << " slower in B\n";
    return c.regressed();
}

}  // namespace comet_program
