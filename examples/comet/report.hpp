// The comet program's report: what main does once a launch has measured — the context of the
// run, the analysis of every kernel's records by its descriptor, the summary on stdout and the
// report folder (--out). A header, so that a test can put a kernel of its own through exactly
// this (test/suite/test_descriptor.cpp).
#pragma once

#include "program.hpp"

#include <comet/suite/output.hpp>
#include <comet/suite/suite.hpp>
#include <comet/timing/clock.hpp>

#include <iostream>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

namespace comet_program {

/// Analyses what was measured with the descriptors `kernels`, prints the summary on `out` and,
/// with --out, writes the report folder. A folder that cannot be written is a usage_error.
inline void write_report(const settings& s, outcome o, std::span<const comet::kernel_descriptor> kernels = comet::suite_kernels(),
                         std::ostream& out = std::cout) {
    comet::report r;
    r.ctx = std::move(o.ctx);
    r.results = std::move(o.results);
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
                                                 {"clock_call_cost", ns(info.call_cost)},
                                                 {"cores", std::to_string(std::thread::hardware_concurrency())}});
    }
    if (const auto* sm = o.sampling ? &*o.sampling : s.suite.sampling ? &*s.suite.sampling : nullptr) {
        std::ostringstream os;
        os << "samples " << sm->min_samples << ".." << sm->max_samples << ", iterations "
           << (sm->iterations ? std::to_string(sm->iterations) : std::string("calibrated")) << ", order " << comet::to_string(sm->order);
        if (sm->order == comet::interleave::shuffle) os << " (seed " << sm->seed << ")";
        r.ctx.extra.emplace_back("sampling", os.str());
    }
    comet::note_skipped(r, s.suite.kernels, o.groups, kernels);
    comet::analyse(r, kernels, {.break_size = s.break_size ? s.break_size : o.break_size});

    const std::string summary = comet::suite_summary(r, kernels, o.compare_with_thesis);
    out << summary << std::flush;
    if (s.out.empty()) return;
    try {
        const comet::suite_files files = comet::write_suite_report(s.out, r, summary, kernels);
        out << "wrote " << files.files.front().string() << " and the CSV files\n";
        for (const auto& f : files.plots.not_rendered) out << "note: plot " << f.name << " not rendered: " << f.reason << '\n';
        if (!files.plots.written.empty())
            out << "wrote " << files.plots.written.size() << " plots (" << files.plots.rendered.size() << " rendered) in "
                << (std::filesystem::path(s.out) / "plots").string() << '\n';
    } catch (const comet::error& e) {
        throw usage_error(std::string("--out: ") + e.what());
    }
}

}  // namespace comet_program
