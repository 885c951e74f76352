// comet/report/table.hpp — the readable console report: the run's context, one table per
// kernel (one row per record), then the transfer fits (flagged ones as flagged, never as
// numbers), the break tests, the bandwidth figures, the derived sections, and COMMTEST's
// statistics (flagged ones as flagged, unsupported protocols as "not supported").
//
// Times in microseconds (the unit the CoMet thesis reports in), bandwidths in MB/s with
// 1 MB = 10^6 bytes (as the thesis' "2.5 MB/s" and the 2.8 MB/s link rate), sizes in bytes.
// For machines and scripts use csv.hpp or json.hpp: this layout may change, theirs may not.
// Kernels never print; this is where printing happens.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/report/report.hpp>
#include <comet/report/reporter.hpp>
#include <comet/stats/commtest.hpp>
#include <comet/stats/fit_results.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iomanip>
#include <locale>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace comet {

namespace detail::table {

/// `v` with `decimals` fixed decimals in the classic locale (no grouping, '.' as the point,
/// whatever locale the caller's stream carries); "-" for NaN or an absent value.
COMET_DECL std::string fixed(double v, int decimals);
COMET_DECL std::string fixed(std::optional<double> v, int decimals);

/// The decimals that show `v` with at least `digits` significant digits (and at least 3): a
/// per-byte time is 0.63 µs/B on the iPSC/860 but 0.00002 µs/B on shared memory, and a fixed
/// number of decimals would print the latter as 0.000 or with one meaningful digit. Its
/// standard error is shown to the same place.
COMET_DECL int significant_decimals(double v, int digits = 4);

/// `v` in fixed notation with `significant_decimals(v, digits)` decimals.
COMET_DECL std::string significant(double v, int digits = 4);

/// "v ± se" with both to `decimals`; just "v" without an error, "-" without a value.
COMET_DECL std::string with_error(std::optional<double> v, std::optional<double> se, int decimals);

/// `v` with 3 significant digits in the classic locale (F statistics and p-values, which
/// span from 1e-40 to 1e4); "inf" and "-" for infinity and NaN.
COMET_DECL std::string general(double v);

/// The sizes a fit's regime holds: "all", "<= 100", "> 100", "> 100, <= 4096".
COMET_DECL std::string regime_sizes(const transfer_fit& f);

COMET_DECL std::string param_text(const param_value& v);

/// Display width of UTF-8 text: one column per code point (so "µs" is two columns, not three).
COMET_DECL std::size_t display_width(std::string_view s);

/// A table whose columns are padded to their widest cell: text left-aligned, numbers right.
struct text_table {
    std::vector<std::string> headers;
    std::vector<bool> left;  // per column: left-align (words) or right-align (numbers)
    std::vector<std::vector<std::string>> rows;

    COMET_DECL void write(std::ostream& os, std::string_view indent = "  ") const;
};

/// A cache as "L1d 48 KiB", "L3 30 MiB".
COMET_DECL std::string cache_text(const cache_info& c);

COMET_DECL std::string load_text(const load_average& l);

/// The context: one line per group of facts, each only when it was recorded (a hand-made or a
/// simulation's context shows less), the extra pairs, then the notes.
COMET_DECL void write_context(std::ostream& os, const context& c);

/// The bytes a record's time moves, for its MB/s column: a COMMTEST record's `volume` (each rank
/// sends it in the time), else the message `size`.
COMET_DECL std::optional<std::int64_t> bandwidth_bytes(const record& r);

/// The flags of `a` as a note: "mean, max: <why>; point: <why>" (reasons shared by several
/// figures said once).
COMET_DECL std::string flags_text(const assessment& a);

COMET_DECL void write_kernel(std::ostream& os, std::string_view kernel, const std::vector<const record*>& recs);

/// The items joined by "; " (a note column's flags).
COMET_DECL std::string joined(const std::vector<std::string>& items);

/// "!" beside a figure derived from flagged statistics (`flags` not empty), else nothing.
inline std::string flag_mark(const std::vector<std::string>& flags) { return flags.empty() ? "" : "!"; }

/// A table of figures derived from statistics: `title` on its own line, then `t`, whose figures
/// carry their `flag_mark` already; `flags[i]` says why row i's are flagged. When one is, the
/// table gets a note column (the reasons) and the legend of "!" below it.
COMET_DECL void write_figures(std::ostream& os, std::string_view title, text_table t, const std::vector<std::vector<std::string>>& flags);

/// A curve's shared params as "size 8, hops 1" ("-" when there are none).
COMET_DECL std::string group_text(const params& group);

/// COMMTEST's statistics, one row per experiment: which (protocol, volume, the rest of the
/// group), the N a came from, a and the latency in µs, b in µs per byte, the bandwidths in
/// MB/s, and the model's relative errors over all N and over the dominant range. A flagged
/// statistic shows "(flagged: <why>)" where its numbers would be; a protocol the transport
/// cannot run shows "not supported"; the rows' notes follow the table.
COMET_DECL void write_commtest(std::ostream& os, const std::vector<commtest_statistics>& rows);

}  // namespace detail::table

/// A derived table (stats/derived_table.hpp) under its title (its name when it has none): a
/// row per row, "-" for an empty cell, "!" after a flagged one, a note column saying why where a
/// row has flags; then the table's notes.
/// @throws invalid_argument naming the table when it is malformed (`check_table`).
COMET_DECL void write_derived(std::ostream& os, const derived_table& d);

/// Writes `r` as console tables: the context, then per kernel (first-seen order) one row per
/// record — its params, n, min / median / mean / max in µs, the robust spread (MAD/median, as a
/// percentage), MB/s from the median for records with a `size` (COMMTEST: `volume`) > 0, and "unstable" where the
/// spread exceeds 5% — then the fits (the regime's sizes, t_startup µs, t_per_byte µs/byte, hop
/// µs, each ± its standard error, residual µs; a flagged fit shows "(flagged: <why>)" instead of
/// its coefficients) and the F tests that decided the regimes, the bandwidth figures (peak MB/s, n_half and n_90 in bytes), the growth of
/// the collectives with log2 P, linear or quadratic growth in the matrix dimension, echo under
/// cross traffic, the overlap gain, COMMTEST's statistics (a flagged a or b shows "(flagged:
/// <why>)", a protocol the transport cannot run "not supported"), every derived table
/// (`write_derived`; a kernel whose records one lays out has no table of records), and the notes. "-" marks a value that is absent or not computable.
/// @code  comet::write_table(std::cout, report);  @endcode
COMET_DECL void write_table(std::ostream& os, const report& r);

/// The console tables as a reporter (report/reporter.hpp): `write_table` at finish.
using console_reporter = stream_reporter<&write_table>;

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/table.ipp>
#endif
