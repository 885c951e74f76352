// comet/stats/growth.hpp — the shapes of measured curves, as the CoMet thesis reads them
// (section 5.1 and 4.3): how a time grows with the number of nodes (a straight line in log P,
// figures 5.3, 5.6, 5.7), and whether it grows linearly or with the square of a parameter such
// as the matrix dimension (figures 5.13–5.16).
//
// Every function takes a kernel's records and returns plain structs (documented fields,
// seconds for times); nothing here prints, and every fit reports how well it explains the
// points. A record contributes one number, a statistic of its raw samples: the median unless
// the caller says otherwise. Which statistic a kernel's figure is read with (the thesis reads
// barrier by its least time) is the kernel's descriptor's to say (suite/descriptor.hpp), not
// something this room decides from a kernel's name.
//
// Curves (curves.hpp): records are grouped by every param except the ones a function reads (so
// broadcast records make one log-P curve per `size`, matrix records one curve per `nodes`, ...);
// records of one group at the same x pool their samples.
//
// The structs these fits return are in fit_results.hpp, which is all a reader of them needs;
// this header adds the fitting, and with it least_squares.hpp and Eigen.
// Deliberately not here: the transfer model t_startup + N·t_per_byte (fit.hpp), COMMTEST's
// a/b, LogGP parameters, and the analyses that know one kernel's params (contention's loads,
// overlap's modes: analysis/).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/stats/curves.hpp>
#include <comet/stats/distributions.hpp>
#include <comet/stats/fit_results.hpp>
#include <comet/stats/least_squares.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace comet {

namespace detail::growth {

/// 1 − SS_res/SS_tot of a fit to `y` that left `ssr`; 1 when all of `y` are equal.
COMET_DECL double r_squared(const std::vector<double>& y, double ssr);

/// Least-squares polynomial of `degree` through (x, y); nullopt when the design is singular.
struct poly_result {
    polynomial_fit fit;
    double ssr = 0.0;
};
COMET_DECL std::optional<poly_result> fit_polynomial(const std::vector<double>& x, const std::vector<double>& y, int degree);

}  // namespace detail::growth

/// Fits time against log2 P for every curve of `kernel` (records grouped by their params
/// without `nodes`: one curve per size for broadcast, per vector_length for global_sum, one for
/// barrier), from the records of several group sizes — the thesis' figures 5.3, 5.6 and 5.7.
/// Each record contributes `options.stat` of its samples (default: the median; the thesis'
/// barrier figure is the least time: pass `{.stat = statistic::min}`); records of one curve at
/// the same `nodes` pool their samples. Curves with fewer than 2 distinct group sizes are left out.
/// @throws invalid_argument when no curve of `kernel` has records at 2 or more group sizes
///         (the message lists the group sizes found), or a record's `nodes` is below 1.
/// @code
///   for (const auto& f : comet::fit_log_p(results, "global_sum"))
///       if (f.group.integer("vector_length") == 1) use(f.per_doubling, f.r_squared);
/// @endcode
COMET_DECL std::vector<log_p_fit> fit_log_p(const result_set& results, std::string_view kernel,
                                            const growth_options& options = {});

/// Linear against quadratic growth of every curve of `kernel` in the numeric param `x_param`
/// (records grouped by their params without `x_param`), e.g. the matrix kernels' time against
/// `matrix_dim`. Each record contributes `options.stat` of its samples (default: the median); records of a curve at the same x pool their samples. The
/// verdict follows the rule documented at `growth_comparison`. Curves with fewer than 3
/// distinct x values are left out.
/// @throws invalid_argument when no curve of `kernel` has 3 or more distinct `x_param` values.
/// @code
///   for (const auto& g : comet::compare_growth(results, "shift_matrix", "matrix_dim"))
///       std::printf("%s (R² %.3f)\n", comet::to_string(g.model), g.quadratic.r_squared);
/// @endcode
COMET_DECL std::vector<growth_comparison> compare_growth(const result_set& results, std::string_view kernel,
                                                         std::string_view x_param, const growth_options& options = {});

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/growth.ipp>
#endif
