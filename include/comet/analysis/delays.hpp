// comet/analysis/delays.hpp — the NIST seed's time-dilation analysis (section 4.3, equation 1)
// over runs' service states (stats/delay_decomposition.hpp), and over the records of a
// dilation study (kernels/nist/kernel.hpp): the speedups and equation 1 per setting.
//
// Dilation. With runs at factors D, normalised times T_D = T / D, E_D = E / D; the speedup is
// E_1 / E_D. Equation 1 estimates E_D ≈ Ū + P_1 / D + b1·MR + b0 (Ū the mean normalised user
// time, P_1 the undilated physical delay, MR the retransmissions): b1·MR + b0 "gives the logical
// and overhead delays of the program as a function of the number of message retransmissions"
// (section 5.0.1), so b1 and b0 are the least-squares line of L_D + O_D against MR — fed table
// A1 it gives back equation 2's 0.024563 and 1.5498. With every MR equal (no retransmissions,
// or a transport that counts none) only b0 can be fitted, and the fit says which. The estimate holds
// when it is within 10% (RMS) of the measured E_D and b1 does not rest on one run alone: two
// runs, or one run whose MR alone differs, are met exactly by b1 whatever the program does.
//
// Over a study's records (`estimate_dilations`): the records that differ in `dilation` alone
// are one series; each gets its speedup and equation 1's estimate as values, and a flag where
// a run they read is flagged. `dilation_tables` lays them out as the seed's tables A1–A6 and
// the speedups at the largest factor (the ends of figure 7's curves), as derived tables every
// writer shows.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/stats/delay_decomposition.hpp>
#include <comet/stats/derived_table.hpp>
#include <comet/stats/least_squares.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace comet {

/// One dilated run: its factor and its (unnormalised) service states.
struct dilated_run {
    double factor = 1.0;
    service_states states;
};

/// Equation 1 fitted to a series of dilated runs, and what it says of each.
struct dilation_estimate {
    double mean_user = 0.0;     ///< Ū, the mean normalised user time over the runs
    double physical_1 = 0.0;    ///< P_1, the undilated run's physical delay
    double b1 = 0.0, b0 = 0.0;  ///< seconds per retransmission, seconds
    bool b1_fitted = false;     ///< false when every run had as many retransmissions (b1 = 0)
    std::vector<double> estimated;  ///< Ê_D per run, in the runs' order
    std::vector<double> error;      ///< (Ê_D − E_D) / E_D per run (NaN where E_D is 0)
    std::vector<double> speedup;    ///< E_1 / E_D per run
    double residual = 0.0;      ///< RMS of Ê_D − E_D, seconds
    double relative_residual = 0.0;  ///< residual / mean E_D
    /// The estimate is within 10% (RMS) of the measured E_D, and b1 was tested by more than one run.
    bool holds = true;
    std::string note;           ///< why the estimate is not to be trusted, or what it could not fit
};

/// Fits equation 1 to `runs` (one must have factor 1; every factor ≥ 1).
/// @throws invalid_argument when no run has factor 1, a factor is below 1, or there are
///         fewer than 2 runs.
COMET_DECL dilation_estimate estimate_dilation(std::span<const dilated_run> runs);

namespace detail {

/// The records of `records` in series: those whose kernel and params other than `dilation` are
/// the same, each series in the records' order, the series in order of their first record.
/// Records without `dilation` are in none.
template <class Record>
std::vector<std::vector<Record*>> dilation_series(std::span<Record> records) {
    const auto same_series = [](const record& a, const record& b) {
        if (a.kernel != b.kernel || a.params.size() != b.params.size()) return false;
        for (const auto& [name, value] : a.params) {
            if (name == "dilation") continue;
            const param_value* other = b.params.find(name);
            if (!other || !(*other == value)) return false;
        }
        return true;
    };
    std::vector<std::vector<Record*>> out;
    std::vector<bool> done(records.size(), false);
    for (std::size_t first = 0; first < records.size(); ++first) {
        if (done[first] || !records[first].params.number("dilation")) continue;
        auto& series = out.emplace_back();
        for (std::size_t i = first; i < records.size(); ++i)
            if (!done[i] && records[i].params.number("dilation") && same_series(records[first], records[i])) {
                series.push_back(&records[i]);
                done[i] = true;
            }
    }
    return out;
}

}  // namespace detail

/// Adds the speedup and equation 1 to the records of a dilation study (kernels/nist/kernel.hpp,
/// the values `elapsed`, `user`, `logical`, `physical`, `overhead` normalised by `dilation`, and `retries` where
/// counted): per series of records whose params differ in `dilation` alone, `speedup`
/// (E_1 / E_D) and `estimate_residual`, and where equation 1 holds `estimate`, `estimate_error`
/// ((Ê_D − E_D) / E_D), `estimate_b1`, `estimate_b0`; a note says when it does not hold or was not fitted. A speedup reads E_1 and
/// E_D, equation 1 every run of the series: a flagged run flags them. Records without
/// `dilation` are left alone.
COMET_DECL void estimate_dilations(std::span<record> records);

/// Where a study stands in the seed's table II ("Summary of Results"): its logical delay at
/// D = 1 large or small, its speedup nice or little, and what the seed concludes of that cell.
struct study_class {
    std::string logical;     ///< "large" (L_1 ≥ 20% of E_1), "small" (≤ 10%), else "between"
    std::string speedup;     ///< "nice speedup" (E_1 / E_D ≥ 1.5), "little improvement" (≤ 1.2), else "some speedup"
    std::string conclusion;  ///< the seed's words for the cell, or why there is none
};

/// Classifies a study by its L_1 / E_1 and its speedup at the largest factor as table II does.
/// The seed gives no thresholds; these separate its six studies (L_1 / E_1: 52, 36, 48% against
/// 7, 1, 6%; speedups 3.32 and 3.46 against 1.06 to 1.13) with room on both sides.
COMET_DECL study_class classify_study(double logical_share, double speedup);

/// The seed's tables A1–A6 from a study's records (after `estimate_dilations`): one table per
/// series (application, setting, group size; `nist_<setting>_<application>_<nodes>`), a row per
/// factor with the normalised service states, %LM, A_D and Max Log in ms, TM, the retries, the
/// speedup and equation 1's estimate and error; one table (`nist_speedups_<kernel>`) of each
/// series' speedup at its largest factor (figure 7's curves at their end); and, where series ran
/// at D = 1 and 2, one (`nist_sensitivity_<kernel>`) of the slope of E_D against P_D between
/// them (figure 4: the seed's 18.95 for CM-Ring, 27.13 for CM-Mesh; empty where P_1 = P_2); and
/// one (`nist_summary_<kernel>`) of where each series stands in table II (`classify_study`). A run flagged as a whole shows no E_D and its series no
/// speedup; a flagged value is flagged in its cell.
COMET_DECL std::vector<derived_table> dilation_tables(std::span<const record> records);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/analysis/delays.ipp>
#endif
