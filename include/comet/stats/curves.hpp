// comet/stats/curves.hpp — a kernel's records read as curves: the records grouped by every param
// except the one a curve runs along (so broadcast records make one curve against `nodes` per
// `size`, matrix records one curve against `matrix_dim` per `nodes`, ...), the samples of a
// group's records at one x pooled, and each point read as one statistic of its samples.
//
// What the growth fits (growth.hpp) and the analyses of contention and overlap (analysis/) stand
// on. Deliberately not here: fitting anything to a curve (growth.hpp) — this header, like the
// analyses that read it, needs no least squares and no Eigen.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <locale>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet {

/// Options shared by the growth analyses.
struct growth_options {
    /// The statistic of each record's samples; unset: the median.
    std::optional<statistic> stat;
};

/// One point of a curve: the x value (nodes, matrix dimension, ...) and the statistic of the
/// pooled samples there, in seconds.
struct growth_point {
    double x = 0.0;
    double time = 0.0;

    friend bool operator==(const growth_point&, const growth_point&) = default;
};

namespace detail::growth {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// `p` without the named params.
COMET_DECL params without(const params& p, std::initializer_list<std::string_view> names);

/// The records of one curve: x value -> pooled samples.
struct curve {
    params key;
    std::map<double, std::vector<double>> by_x;
    std::map<double, std::vector<const record*>> records;  ///< those pooled at each x (into the result set read)
    /// Why a record at x was left out (flagged as a whole, or without a valid sample), the first at each x.
    std::map<double, std::string> left_out = {};
};

/// The curves of `kernel`: records with a numeric `x_param` and samples, grouped by their
/// params without `x_param` and `also_ignore`, in the order each group is first seen.
COMET_DECL std::vector<curve> curves(const result_set& results, std::string_view kernel, std::string_view x_param,
                                     std::initializer_list<std::string_view> also_ignore = {});

/// The statistics of the pooled samples of each x of `c`, ascending x.
COMET_DECL std::vector<growth_point> points_of(const curve& c, statistic s);

/// Why figures from `c`'s statistics `s` must not be read at face value: a line naming the
/// values of `x_param` whose records have that statistic flagged (`statistic_flag`), and one
/// naming those where a record was left out (`curve::left_out`), each with why at the first.
/// Empty when neither.
COMET_DECL std::vector<std::string> flags_of(const curve& c, statistic s, std::string_view x_param);

COMET_DECL double median_of(std::vector<double> v);
COMET_DECL double max_of(const std::vector<double>& v);

}  // namespace detail::growth
}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/curves.ipp>
#endif
