// comet/report/json.hpp — results.json: the context, every record with its params, summary
// and raw samples, the transfer fits (a flagged fit as `"valid": false`, its flags, and null
// coefficients — never its numbers) with their break tests, the bandwidth figures, the derived
// sections, COMMTEST's statistics (a flagged a or b as `null`, its flags beside) and the
// derived tables of any other analysis, in the schema documented in docs/results-schema.md
// (schema_version 2).
//
// This header holds the document: its version and its top-level keys in a fixed order. Its
// parts are written by report/json/context.hpp (the context), report/json/record.hpp (each
// record) and report/json/derived.hpp (fits, bandwidth and the other derived sections), all
// with the JSON writer of report/json/writer.hpp (deterministic: identical inputs give
// byte-identical files; NaN → null).
// Deliberately not here: the Google-Benchmark-compatible JSON (a different schema).
#pragma once

#include <comet/report/json/context.hpp>
#include <comet/report/json/derived.hpp>
#include <comet/report/json/record.hpp>
#include <comet/report/json/writer.hpp>
#include <comet/report/report.hpp>
#include <comet/report/reporter.hpp>

#include <ostream>

namespace comet {

/// The version of the results.json schema this header writes; bumped on any incompatible change.
inline constexpr int results_schema_version = 2;

/// Writes `r` as results.json (schema_version 2, documented in docs/results-schema.md): keys
/// `schema_version`, `context`, `transport`, `nodes`, `results`, `fits`, `bandwidth`,
/// `log_p_fits`, `growth`, `contention`, `overlap`, `commtest`, `tables`, `notes` (and `stopped`, for a run
/// that ended early), in that order. Times in seconds, sizes in bytes, bandwidths in bytes per second; NaN → null.
/// @throws invalid_argument when a record holds a NaN sample (see `summarize`).
/// @code  std::ofstream f(dir / "results.json"); comet::write_json(f, report);  @endcode
inline void write_json(std::ostream& os, const report& r) {
    detail::json::writer w(os);
    w.begin_object();
    w.member("schema_version", results_schema_version);
    detail::json::write_context(w, r.ctx);
    w.member("transport", r.ctx.transport);
    w.member("nodes", r.ctx.nodes);
    w.key("results");
    w.begin_array();
    for (const auto& rec : r.results.records) detail::json::write_record(w, rec);
    w.end_array();
    w.key("fits");
    w.begin_array();
    for (const auto& f : r.fits) detail::json::write_fit(w, f);
    w.end_array();
    w.key("bandwidth");
    w.begin_array();
    for (const auto& b : r.bandwidth) detail::json::write_bandwidth(w, b);
    w.end_array();
    w.key("log_p_fits");
    w.begin_array();
    for (const auto& f : r.log_p) detail::json::write_log_p(w, f);
    w.end_array();
    w.key("growth");
    w.begin_array();
    for (const auto& g : r.growth) detail::json::write_growth(w, g);
    w.end_array();
    w.key("contention");
    w.begin_array();
    for (const auto& c : r.contention) detail::json::write_contention(w, c);
    w.end_array();
    w.key("overlap");
    w.begin_array();
    for (const auto& o : r.overlap) detail::json::write_overlap(w, o);
    w.end_array();
    w.key("commtest");
    w.begin_array();
    for (const auto& c : r.commtest) detail::json::write_commtest(w, c);
    w.end_array();
    w.key("tables");
    w.begin_array();
    for (const auto& t : r.tables) detail::json::write_table(w, t);
    w.end_array();
    w.key("notes");
    w.begin_array();
    for (const auto& n : r.notes) w.string(n);
    w.end_array();
    if (r.stopped) {  // only in the file of a run that ended early
        w.key("stopped");
        w.begin_object();
        w.member("kernel", r.stopped->kernel);
        w.member("last_point", r.stopped->last_point);
        w.member("reason", r.stopped->reason);
        w.end_object();
    }
    w.end_object();
    w.finish();
}

/// results.json as a reporter (report/reporter.hpp): `write_json` at finish.
using json_reporter = stream_reporter<&write_json>;

}  // namespace comet
