// comet/report/json/record.hpp — one element of results.json's `results` (docs/results-schema.md):
// a record's kernel, params and values in the order the kernel set them, its statistics (every
// one null for a point flagged as a whole), its flags, raw samples, invalid samples by reason,
// dropped measurements, and what the sampling engine decided (iterations, overheads, stop
// reason, rounds), with its notes.
//
// Only how a record is written: what it holds is stats/record.hpp, its statistics and validity
// stats/summary.hpp and stats/validity.hpp.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/report/json/writer.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace comet::detail::json {

/// A param or value: its name, then the string, number or integer it holds.
COMET_DECL void write_param(writer& w, std::string_view name, const param_value& v);

/// `"flags": [{"what": ..., "why": ...}, ...]`.
COMET_DECL void write_flags(writer& w, std::span<const flag> flags);

COMET_DECL void write_record(writer& w, const record& r);

}  // namespace comet::detail::json

#if !defined(COMET_COMPILED)
#include <comet/report/json/record.ipp>
#endif
