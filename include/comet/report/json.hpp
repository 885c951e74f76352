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

#include <comet/core/compiled.hpp>

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
COMET_DECL void write_json(std::ostream& os, const report& r);

/// results.json as a reporter (report/reporter.hpp): `write_json` at finish.
using json_reporter = stream_reporter<&write_json>;

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/json.ipp>
#endif
