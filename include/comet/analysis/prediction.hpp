// comet/analysis/prediction.hpp — a prediction beside what was measured: every point of a
// measured run that a predicted run (the same kernels on a fitted LogGOPS machine, or any other
// model) also has, matched by its name (kernel and params: stats/compare.hpp's point_name), with
// both medians, their ratio, and whether it lies within a tolerance; as a derived table, so
// that the console, the CSV files and results.json show it (`comet --transport loggops
// --machine FILE --measured RUN` adds it to the report).
//
// The fit's own kernel (loggp) is left out: a table of how well the model predicts what it was
// not fitted to. A point whose name differs only in `scheme` (how its kernel synchronized the
// ranks' clocks: log_p on a machine measured, none on a simulator's global clock) is matched
// without it when the predicted run has one such point only, and the notes count them. A point whose median on either side must not be read at face value (its
// samples disagree, no valid sample, flagged as a whole) keeps its row with the flag, and is
// not counted: the notes give the count within the tolerance over the points that are not
// flagged, in all and kernel by kernel.
#pragma once

#include <comet/stats/compare.hpp>
#include <comet/stats/derived_table.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace comet {

namespace detail::prediction {

/// `point_name(r)` without the param `scheme` (the clocks' synchronization).
inline std::string name_without_scheme(const record& r) {
    record bare{r.kernel, {}, {}};
    for (const auto& [name, value] : r.params)
        if (name != "scheme") bare.params.set(name, value);
    return point_name(bare);
}

/// Why the median of `r` cannot be compared, or empty.
inline std::string unusable(const record& r) {
    if (std::string why = unusable_why(r); !why.empty()) return why;
    return median_flag(r);
}

}  // namespace detail::prediction

/// The table "prediction": a row per point of `measured` (other than the loggp kernel's) that
/// `predicted` has too, in `measured`'s order: point, measured[µs], predicted[µs],
/// predicted/measured, within ("yes", "no"; empty when flagged). @throws invalid_argument for a
/// tolerance that is not a number above 0.
/// @code
///   comet::derived_table t = comet::prediction_table(measured.results, predicted.results);
///   report.tables.push_back(t);  // its first note: "<k> of <n> points within ±25% ...; by kernel: ..."
/// @endcode
inline derived_table prediction_table(const result_set& measured, const result_set& predicted, double tolerance = 0.25) {
    if (!(tolerance > 0) || !std::isfinite(tolerance))
        raise<invalid_argument>(-1, "prediction_table: tolerance = ", tolerance, " is not a number above 0");
    std::ostringstream pct;
    pct << tolerance * 100 << '%';
    derived_table t{.name = "prediction",
                    .title = "predicted beside measured (medians; within ±" + pct.str() + ")",
                    .columns = {"point", "measured[µs]", "predicted[µs]", "predicted/measured", "within"}};
    std::map<std::string, const record*> by_name, without_scheme;  // the latter: nullptr where two points share a name
    for (const record& r : predicted.records) {
        by_name.emplace(point_name(r), &r);
        if (r.params.contains("scheme"))
            if (auto [it, fresh] = without_scheme.emplace(detail::prediction::name_without_scheme(r), &r); !fresh) it->second = nullptr;
    }
    std::size_t across_schemes = 0;
    struct count {
        std::size_t within = 0, counted = 0, flagged = 0;
    };
    std::map<std::string, count> kernels;
    count all;
    std::size_t unmatched = 0;
    for (const record& m : measured.records) {
        if (m.kernel == "loggp") continue;
        const std::string name = point_name(m);
        const record* predicted_point = nullptr;
        if (const auto p = by_name.find(name); p != by_name.end()) {
            predicted_point = p->second;
        } else if (m.params.contains("scheme")) {
            if (const auto q = without_scheme.find(detail::prediction::name_without_scheme(m)); q != without_scheme.end() && q->second) {
                predicted_point = q->second;
                ++across_schemes;
            }
        }
        if (!predicted_point) {
            ++unmatched;
            continue;
        }
        const double a = statistic_of(m, statistic::median), b = statistic_of(*predicted_point, statistic::median);
        std::vector<flag> flags;
        if (const std::string why = detail::prediction::unusable(m); !why.empty())
            flags.push_back({"measured[µs]", "measured: " + why});
        if (const std::string why = detail::prediction::unusable(*predicted_point); !why.empty())
            flags.push_back({"predicted[µs]", "predicted: " + why});
        const double ratio = a > 0 && std::isfinite(a) && std::isfinite(b) ? b / a : std::nan("");
        if (!std::isfinite(ratio) && flags.empty()) flags.push_back({"predicted/measured", "a median is zero or not a number"});
        count& k = kernels[m.kernel];
        derived_table::cell verdict{};
        if (flags.empty()) {
            const bool in = std::abs(ratio - 1) <= tolerance;
            verdict = std::string(in ? "yes" : "no");
            ++k.counted, ++all.counted;
            if (in) ++k.within, ++all.within;
        } else {
            ++k.flagged, ++all.flagged;
            const std::string why = flags.front().why;
            if (flags.back().what != "predicted/measured") flags.push_back({"predicted/measured", why});
            flags.push_back({"within", why});
        }
        const auto us = [](double s) { return std::isfinite(s) ? derived_table::cell{s * 1e6} : derived_table::cell{}; };
        t.add({name, us(a), us(b), std::isfinite(ratio) ? derived_table::cell{ratio} : derived_table::cell{}, verdict}, flags);
    }
    std::ostringstream n;
    n << all.within << " of " << all.counted << " points within ±" << pct.str();
    if (all.flagged) n << " (" << all.flagged << " more flagged, not counted)";
    n << "; by kernel:";
    for (const auto& [kernel, c] : kernels) n << ' ' << kernel << ' ' << c.within << '/' << c.counted;
    t.notes.push_back(n.str());
    if (across_schemes)
        t.notes.push_back(std::to_string(across_schemes) +
                          " points matched across clock schemes: their names differ in `scheme` only (how the ranks' clocks were "
                          "synchronized), and the row names the measured point");
    if (unmatched)
        t.notes.push_back(std::to_string(unmatched) +
                          " measured points have no prediction (kernels, group sizes or parameters not run on the model)");
    return t;
}

}  // namespace comet
