// comet/report/json/derived.hpp — the sections of results.json derived from the records
// (docs/results-schema.md): the transfer fits (a flagged fit as `"valid": false`, its flags, and
// null coefficients — never its numbers) with their break tests, the bandwidth figures, the
// log-P fits, the growth comparisons, contention slow-downs, overlap gains, COMMTEST's
// statistics (a flagged a or b as `null`, its flags beside), and the derived tables of any
// other analysis.
//
// Only how they are written: the statistics are computed in stats/ and analysis/; the records
// they come from are written by report/json/record.hpp.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/analysis/contention.hpp>
#include <comet/analysis/overlap.hpp>
#include <comet/report/json/record.hpp>
#include <comet/report/json/writer.hpp>
#include <comet/stats/bandwidth.hpp>
#include <comet/stats/commtest.hpp>
#include <comet/stats/curves.hpp>
#include <comet/stats/derived_table.hpp>
#include <comet/stats/fit_results.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace comet::detail::json {

COMET_DECL void write_break_test(writer& w, const break_test& t);

/// A fit; a flagged one (`valid` false) has every coefficient and standard error `null`, so
/// no script can read a hop of −414.9 µs as a result: the reasons are in `flags`.
COMET_DECL void write_fit(writer& w, const transfer_fit& f);

/// `"name": [items...]` on one line: a figure's flags (empty when it has none).
COMET_DECL void write_string_array(writer& w, std::string_view name, const std::vector<std::string>& items);

COMET_DECL void write_bandwidth(writer& w, const bandwidth_figures& b);

COMET_DECL void write_group(writer& w, const params& group);

COMET_DECL void write_points(writer& w, std::string_view x, const std::vector<growth_point>& data);

COMET_DECL void write_polynomial(writer& w, std::string_view name, const polynomial_fit& f);

COMET_DECL void write_log_p(writer& w, const log_p_fit& f);

COMET_DECL void write_growth(writer& w, const growth_comparison& g);

COMET_DECL void write_contention(writer& w, const contention_slowdown& c);

COMET_DECL void write_overlap(writer& w, const overlap_gain& o);

/// An optional integer: the integer or `null`.
COMET_DECL void write_count(writer& w, std::string_view name, const std::optional<std::int64_t>& v);

/// COMMTEST's statistics of one experiment. A flagged a (b) has a and the latency (b and the
/// bandwidths) `null`, so no script reads a negative latency as a result: the reasons are in
/// `flags`. The model's errors stay: they are facts about the data, and say why `model_error`.
COMET_DECL void write_commtest(writer& w, const commtest_statistics& s);

/// A derived table (stats/derived_table.hpp): name, title, kernel, lays_out_records, columns,
/// rows (each its cells — null for an empty or not-a-number one — and its flags), notes.
/// @throws invalid_argument naming the table when it is malformed (`check_table`).
COMET_DECL void write_table(writer& w, const derived_table& t);

}  // namespace comet::detail::json

#if !defined(COMET_COMPILED)
#include <comet/report/json/derived.ipp>
#endif
