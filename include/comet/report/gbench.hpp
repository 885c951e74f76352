// comet/report/gbench.hpp — a result set as Google Benchmark's JSON (the format of
// `--benchmark_format=json`, as google/benchmark 1.7.1 writes it), so the tools written for it
// read comet's runs: `compare.py benchmarks a.json b.json`, dashboards, CI actions.
//
// The mapping. A record is a benchmark whose name is `point_name` (stats/compare.hpp:
// "echo/size:8/hops:1/nodes:2", Google's style for named arguments, without the params that
// say how it was measured, so two runs name a point alike); each raw sample is one repetition
// (run_type "iteration", repetition_index i of repetitions n), and the mean, median, stddev and
// cv of the samples follow as aggregates, as `--benchmark_repetitions=n` gives them. Times in
// ns. What does not map:
//   - cpu_time: comet measures wall-clock time only (a rank's CPU time says nothing of a
//     message that waited). Google's tools need the field, so it repeats real_time, and the
//     context says so ("comet_cpu_time").
//   - iterations: the record's iterations per sample; 0 where the record does not say.
//   - threads: left out. The time is the test node's (or the slowest rank's), not a sum over
//     threads; the name carries `nodes`.
//   - the descriptive params (implementation, form, ...) go in "label".
//   - a record without samples is left out (there is no repetition to write), and the stddev
//     and cv aggregates of a single sample (no spread to estimate).
// The context has Google's keys (from comet::context: mhz_per_cpu is not recorded, so it is
// absent; caches lack num_sharing) and comet's own, prefixed "comet_", with the notes on the
// machine (a loaded machine, frequency scaling, a debug build).
// Deliberately not here: reading the format back (comet compares its own results.json).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/report/context.hpp>
#include <comet/report/json/writer.hpp>
#include <comet/report/report.hpp>
#include <comet/report/reporter.hpp>
#include <comet/stats/compare.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace comet {

namespace detail::gbench {

/// The program of a command line made by `command_line_of`: its first word, unquoted.
COMET_DECL std::string executable_of(std::string_view line);

/// The record's values as "name:value/...": what was measured there besides the samples.
COMET_DECL std::string label_of(const record& r);

COMET_DECL void write_context(json::writer& w, const context& c);

/// The fields every entry of one benchmark shares, up to run_type.
struct entry_head {
    std::string name;
    std::size_t family = 0, instance = 0;
};

COMET_DECL void write_entry(json::writer& w, const entry_head& h, std::string_view suffix, std::string_view label, bool aggregate,
                            std::size_t repetitions);

/// The times of an entry, and its end: cpu_time repeats real_time (see the header comment).
COMET_DECL void end_entry(json::writer& w, double ns);

}  // namespace detail::gbench

/// Writes `results`, measured in `ctx`, as Google Benchmark JSON (see the header comment):
/// {"context": {...}, "benchmarks": [...]}, a benchmark per record named by `point_name`, its
/// samples as repetitions in ns, then its mean, median, stddev and cv aggregates.
/// @throws invalid_argument when a record holds a NaN sample (as `write_json`).
/// @code  std::ofstream f(dir / "gbench.json"); comet::write_gbench(f, report.results, report.ctx);  @endcode
COMET_DECL void write_gbench(std::ostream& os, const result_set& results, const context& ctx);

/// The report's records and context as Google Benchmark JSON (the fits and analyses have no
/// place in that format).
COMET_DECL void write_gbench(std::ostream& os, const report& r);

/// Google Benchmark's JSON as a reporter (report/reporter.hpp): `write_gbench` at finish. The
/// format has benchmarks only: derived tables and the analyses' figures are not in it.
using gbench_reporter = stream_reporter<static_cast<void (*)(std::ostream&, const report&)>(&write_gbench)>;

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/gbench.ipp>
#endif
