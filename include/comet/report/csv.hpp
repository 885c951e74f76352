// comet/report/csv.hpp — CSV writers: one row per record (params and summary, seconds) and
// one row per transfer fit (a flagged fit with empty coefficients), bandwidth figure, COMMTEST
// experiment (a flagged statistic as an empty cell) or row of a derived table, for
// spreadsheets, pandas and gnuplot.
//
// RFC 4180 quoting (a cell holding a comma, quote, CR or LF is quoted, quotes doubled), '\n'
// line ends, numbers in the shortest form that reads back to the same double (std::to_chars),
// and an EMPTY cell for a missing or not-a-number value (pandas and spreadsheets read it as
// missing). Integers go through std::to_string, never the stream, so a locale imbued on the
// stream cannot slip thousands separators into a cell. Raw samples are not written here: they are in results.json.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/report/files.hpp>
#include <comet/report/reporter.hpp>
#include <comet/stats/bandwidth.hpp>
#include <comet/stats/commtest.hpp>
#include <comet/stats/derived_table.hpp>
#include <comet/stats/fit_results.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace comet {

namespace detail {

/// The shortest decimal that reads back as `v` (plain notation in [1e-4, 1e16), exponent
/// notation outside, as results.json writes it); empty for NaN (a missing value).
COMET_DECL std::string csv_number(double v);

COMET_DECL std::string csv_number(std::int64_t v);

COMET_DECL std::string csv_number(std::optional<double> v);

/// A cell as RFC 4180 wants it: quoted (quotes doubled) when it holds a comma, quote, CR or LF,
/// or starts or ends with a space (which some readers would trim).
COMET_DECL std::string csv_cell(std::string_view s);

COMET_DECL std::string csv_param_cell(const param_value& v);

/// The union of the param names of `records`, then of their value names, each in the order
/// first seen.
COMET_DECL std::vector<std::string> csv_param_columns(const result_set& r);

}  // namespace detail

/// Writes one row per record:
/// `kernel,<every param name, then every value name, first-seen order>,n,total,min,median,mean,
/// max,stddev,p05,p95,median_ci_low,median_ci_high,ci_coverage,mad,rel_spread,unstable,
/// iterations,overhead,stop,flags`, times in seconds (see `summary`, over the valid samples:
/// `n` of `total` measurements; `unstable` is true or false; `flags` "what: why" joined by ";",
/// stats/validity.hpp); an empty cell where a record lacks a param or a value is NaN or not
/// supported by the number of samples, and every statistic of a point flagged as a whole.
/// @code  std::ofstream f(dir / "results.csv"); comet::write_csv(f, results);  @endcode
COMET_DECL void write_csv(std::ostream& os, const result_set& r);

/// Writes one row per fit: `kernel,regime,t_startup,t_per_byte,hop,residual,points,break_size,
/// valid,flags,t_startup_se,t_per_byte_se,hop_se,sigma,dof,lower_break,upper_break,regimes`
/// (seconds, seconds per byte, bytes); empty `hop` / `break_size` when the fit has none. A
/// flagged fit (`valid` false; `flags` joined by ';') has every coefficient and standard error
/// empty: it is not a result. The break tests are in results.json only.
COMET_DECL void write_fits_csv(std::ostream& os, const std::vector<transfer_fit>& fits);

/// Writes one row per bandwidth figure: `kernel,hops,peak,n_half,n_90` (bytes per second, bytes).
COMET_DECL void write_bandwidth_csv(std::ostream& os, const std::vector<bandwidth_figures>& figures);

/// Writes one row per COMMTEST experiment: `kernel,protocol,volume,pair,cache,prepost,nodes,
/// supported,valid,flags,n1,n2,a,latency,b,swap_bandwidth,busy_bandwidth,idle_bandwidth,
/// b_messages,points,max_error,mean_error,regimes,dominant_points,dominant_min_size,
/// dominant_max_size,dominant_max_error,dominant_mean_error,notes` (seconds per message, seconds
/// per byte, bytes per second, bytes; errors as fractions). A flagged a (b) has a and latency
/// (b and the bandwidths) empty, its flags joined by ';'; an unsupported protocol has
/// `supported` false, 0 points and regimes, and empty statistics; `notes` are joined by "; ". The points and
/// break tests are in results.json only.
COMET_DECL void write_commtest_csv(std::ostream& os, const std::vector<commtest_statistics>& rows);

/// Writes a derived table (stats/derived_table.hpp): its columns, then `flags` ("column: why"
/// joined by ";"), a row per row; an empty cell for an empty or not-a-number value.
/// @throws invalid_argument naming the table when it is malformed (`check_table`).
COMET_DECL void write_table_csv(std::ostream& os, const derived_table& t);

/// The CSV files as a reporter (report/reporter.hpp), into folder `dir` (created if missing):
/// results.csv, fits.csv, bandwidth.csv, commtest.csv (when there are COMMTEST statistics) and
/// each derived table as tables/<name>.csv, each file whole or not at all (files.hpp). `files()`
/// lists what it wrote.
/// @throws error naming the file that could not be written; invalid_argument naming a table that
///         is malformed or whose name another table has.
class csv_reporter : public reporter {
public:
    COMET_DECL explicit csv_reporter(std::filesystem::path dir);
    COMET_DECL void add(const derived_table& t) override;
    COMET_DECL void finish(const report& r) override;
    const std::vector<std::filesystem::path>& files() const noexcept { return files_; }

private:
    COMET_DECL void write(const std::filesystem::path& name, const std::function<void(std::ostream&)>& body);
    std::filesystem::path dir_;
    std::vector<std::string> tables_;
    std::vector<std::filesystem::path> files_;
};

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/csv.ipp>
#endif
