// comet/analysis/delays.hpp — the NIST seed's time-dilation analysis (section 4.3, equation 1)
// over runs' service states (stats/delay_decomposition.hpp), and over the records of a
// dilation study (kernels/nist/kernel.hpp): the speedups and equation 1 per setting.
//
// Dilation. With runs at factors D, normalised times T_D = T / D, E_D = E / D; the speedup is
// E_1 / E_D. Equation 1 estimates E_D ≈ Ū + P_1 / D + b1·MR + b0 (Ū the mean normalised user
// time, P_1 the undilated physical delay, MR the retransmissions): b1 and b0 are fitted by least
// squares to E_D − Ū − P_1 / D against MR; with every MR equal (no retransmissions, or a
// transport that counts none) only b0 can be fitted, and the fit says which. The estimate holds
// when it is within 10% (RMS) of the measured E_D and b1 does not rest on one run alone: two
// runs, or one run whose MR alone differs, are met exactly by b1 whatever the program does.
//
// Over a study's records (`estimate_dilations`): the records that differ in `dilation` alone
// are one series; each gets its speedup and equation 1's estimate as values, and a flag where
// a run they read is flagged. `dilation_tables` lays them out as the seed's tables A1–A6 and
// the speedups at the largest factor, as derived tables every writer shows.
#pragma once

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
#include <optional>
#include <sstream>
#include <span>
#include <string>
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
inline dilation_estimate estimate_dilation(std::span<const dilated_run> runs) {
    if (runs.size() < 2) raise<invalid_argument>(-1, "estimate_dilation: ", runs.size(), " runs; the estimator needs at least 2");
    const dilated_run* first = nullptr;
    for (const dilated_run& r : runs) {
        if (!(r.factor >= 1.0)) raise<invalid_argument>(-1, "estimate_dilation: dilation factor ", r.factor, " is below 1");
        if (r.factor == 1.0) first = &r;
    }
    if (!first) raise<invalid_argument>(-1, "estimate_dilation: no undilated run (factor 1) among the ", runs.size());
    dilation_estimate e;
    e.physical_1 = first->states.physical;
    const double e1 = first->states.elapsed;
    for (const dilated_run& r : runs) e.mean_user += r.states.user / r.factor;
    e.mean_user /= static_cast<double>(runs.size());
    std::vector<double> mr, rest;
    for (const dilated_run& r : runs) {
        mr.push_back(static_cast<double>(r.states.retries));
        rest.push_back(r.states.elapsed / r.factor - e.mean_user - e.physical_1 / r.factor);
    }
    if (std::all_of(mr.begin(), mr.end(), [&](double v) { return v == mr.front(); })) {
        double mean = 0.0;
        for (double v : rest) mean += v;
        e.b0 = mean / static_cast<double>(rest.size());
        const bool counted = std::all_of(runs.begin(), runs.end(), [](const dilated_run& r) { return r.states.retries_known; });
        // Runs that differ in MR say they were counted, whatever their flag; equal ones from a
        // transport that counts none are not "0 retransmissions".
        e.note = counted ? "every run had " + std::to_string(static_cast<long long>(mr.front())) +
                               " retransmissions: b1 cannot be fitted, only b0"
                         : std::string("the transport counts no retransmissions (MR unknown): b1 cannot be fitted, only b0");
    } else {
        const line_fit f = fit_line(mr, rest);
        e.b1 = f.slope;
        e.b0 = f.intercept;
        e.b1_fitted = true;
    }
    double ss = 0.0, mean_e = 0.0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const double d = runs[i].factor, ed = runs[i].states.elapsed / d;
        e.estimated.push_back(e.mean_user + e.physical_1 / d + e.b1 * mr[i] + e.b0);
        e.speedup.push_back(ed > 0.0 ? e1 / ed : 0.0);
        ss += (e.estimated.back() - ed) * (e.estimated.back() - ed);
        mean_e += ed;
    }
    mean_e /= static_cast<double>(runs.size());
    e.residual = std::sqrt(ss / static_cast<double>(runs.size()));
    e.relative_residual = mean_e > 0.0 ? e.residual / mean_e : 0.0;
    // A run whose MR alone differs from the others' (leverage 1: two runs, or one run off the
    // others' common MR) is met exactly by b1, whatever its E_D: nothing tests b1 there.
    std::vector<double> exact;
    if (e.b1_fitted) {
        const double n = static_cast<double>(mr.size());
        double mean_mr = 0.0, sxx = 0.0;
        for (double v : mr) mean_mr += v / n;
        for (double v : mr) sxx += (v - mean_mr) * (v - mean_mr);
        for (std::size_t i = 0; i < mr.size(); ++i)
            if (1.0 / n + (mr[i] - mean_mr) * (mr[i] - mean_mr) / sxx > 1.0 - 1e-9) exact.push_back(runs[i].factor);
    }
    e.holds = e.relative_residual <= 0.10 && exact.empty();
    const auto add_note = [&](const std::string& s) { e.note += (e.note.empty() ? "" : "; ") + s; };
    if (e.relative_residual > 0.10)
        add_note("the estimate misses the measured E_D by " + std::to_string(e.relative_residual * 100.0).substr(0, 4) +
                 "% (RMS): equation 1 does not describe this program");
    else if (runs.size() == 2 && e.b1_fitted)
        add_note("2 runs determine b1 and b0 exactly: no run is left to test equation 1 against");
    else if (!exact.empty()) {
        std::ostringstream d;
        d << exact.front();
        add_note("b1 rests on the run at D = " + d.str() +
                 " alone (the only one whose MR differs), which it meets exactly: no run tests b1");
    }
    return e;
}

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
/// the values `elapsed`, `user`, `physical` normalised by `dilation`, and `retries` where
/// counted): per series of records whose params differ in `dilation` alone, `speedup`
/// (E_1 / E_D) and `estimate_residual`, and where equation 1 holds `estimate`, `estimate_b1`,
/// `estimate_b0`; a note says when it does not hold or was not fitted. A speedup reads E_1 and
/// E_D, equation 1 every run of the series: a flagged run flags them. Records without
/// `dilation` are left alone.
inline void estimate_dilations(std::span<record> records) {
    for (const std::vector<record*>& series : detail::dilation_series(records)) {
        std::vector<dilated_run> runs;
        for (const record* r : series) {
            const double d = *r->params.number("dilation");
            dilated_run run{d, {}};
            run.states.elapsed = r->values.number("elapsed").value_or(0.0) * d;
            run.states.user = r->values.number("user").value_or(0.0) * d;
            run.states.physical = r->values.number("physical").value_or(0.0) * d;
            const auto retries = r->values.integer("retries");
            run.states.retries = retries ? static_cast<std::uint64_t>(*retries) : 0;
            run.states.retries_known = retries.has_value();
            runs.push_back(run);
        }
        std::optional<dilation_estimate> e;
        std::string why;
        try {
            e = estimate_dilation(runs);
        } catch (const invalid_argument& x) {
            why = x.what();
        }
        const bool any_flagged = std::any_of(series.begin(), series.end(), [](const record* r) { return !usable(*r); });
        const auto one = std::find_if(series.begin(), series.end(), [](const record* r) { return r->params.number("dilation") == 1.0; });
        const bool one_flagged = one != series.end() && !usable(**one);
        for (std::size_t i = 0; i < series.size(); ++i) {
            record& rec = *series[i];
            if (one_flagged || !usable(rec)) add_flag(rec, "speedup", "E_1 or E_D is flagged");
            if (any_flagged) add_flag(rec, "estimate", "a run of the setting is flagged");
            if (e) {
                rec.values.set("speedup", e->speedup[i]).set("estimate_residual", e->residual);
                // An estimate that misses the measurements is named in a note, not printed as one.
                if (e->holds) rec.values.set("estimate", e->estimated[i]).set("estimate_b1", e->b1).set("estimate_b0", e->b0);
                if (!e->note.empty()) rec.notes.push_back("equation 1: " + e->note);
            } else {
                rec.notes.push_back("equation 1 not fitted: " + why);
            }
        }
    }
}

/// The seed's tables A1–A6 from a study's records (after `estimate_dilations`): one table per
/// series (application, setting, group size; `nist_<setting>_<application>_<nodes>`), a row per
/// factor with the normalised service states, %LM, A_D and Max Log in ms, TM, the retries, the
/// speedup and equation 1's estimate; and one table (`nist_speedups_<kernel>`) of each series'
/// speedup at its largest factor. A run flagged as a whole shows no E_D and its series no
/// speedup; a flagged value is flagged in its cell.
inline std::vector<derived_table> dilation_tables(std::span<const record> records) {
    std::vector<derived_table> out;
    derived_table speedups{.name = "", .title = "", .kernel = "",
                           .columns = {"study", "nodes", "E_1[s]", "largest D", "E_D[s]", "speedup E_1/E_D"}};
    // A factor as the seed writes it: 16, not 16.000 (a whole number as an integer).
    const auto factor_cell = [](double d) -> derived_table::cell {
        if (d == std::floor(d) && std::fabs(d) < 1e15) return static_cast<std::int64_t>(d);
        return d;
    };
    const auto value = [](const record& r, std::string_view name, double scale = 1.0) -> derived_table::cell {
        if (const auto v = r.values.number(name)) return *v * scale;
        return {};
    };
    for (const std::vector<const record*>& series : detail::dilation_series(records)) {
        const record& head = *series.front();
        const std::string app = head.params.text("application").value_or(head.kernel);
        const std::string setting = head.params.text("setting").value_or("?");
        const std::int64_t nodes = head.params.integer("nodes").value_or(0);
        if (speedups.name.empty()) {
            speedups.name = "nist_speedups_" + head.kernel;
            speedups.title = "speedup with time dilation (NIST table II), " + head.kernel;
            speedups.kernel = head.kernel;
        }
        derived_table t{.name = "nist_" + setting + "_" + app + "_" + std::to_string(nodes),
                        .title = setting + "-" + app + " on " + std::to_string(nodes) +
                                 " nodes (NIST tables A1-A6): normalised service states, T_D = T / D",
                        .kernel = head.kernel,
                        .lays_out_records = true,
                        .columns = {"D", "E_D[s]", "U_D[s]", "L_D[s]", "P_D[s]", "O_D[s]", "%LM", "A_D[ms]", "Max Log[ms]", "TM",
                                    "retries", "speedup", "estimate[s]"}};
        // A value's flag (stats/validity.hpp) names the value; here it flags its column.
        const std::pair<const char*, const char*> flagged_columns[] = {
            {"user", "U_D[s]"}, {"logical", "L_D[s]"}, {"physical", "P_D[s]"}, {"overhead", "O_D[s]"},
            {"speedup", "speedup"}, {"estimate", "estimate[s]"}};
        for (const record* r : series) {
            std::vector<flag> flags;
            for (const auto& [what, column] : flagged_columns)
                if (const flag* f = find_flag(r->flags, what)) flags.push_back({column, f->why});
            const auto retries = r->values.integer("retries");
            t.add({factor_cell(*r->params.number("dilation")), usable(*r) ? derived_table::cell(summarize(*r).median) : derived_table::cell{},
                   value(*r, "user"), value(*r, "logical"), value(*r, "physical"), value(*r, "overhead"), value(*r, "lm_percent"),
                   value(*r, "mean_logical", 1e3), value(*r, "max_logical", 1e3), r->values.integer("data_messages").value_or(0),
                   retries ? derived_table::cell(*retries) : derived_table::cell{}, value(*r, "speedup"), value(*r, "estimate")},
                  std::move(flags));
            for (const auto& n : r->notes)
                if (std::find(t.notes.begin(), t.notes.end(), "note: " + n) == t.notes.end()) t.notes.push_back("note: " + n);
        }
        out.push_back(std::move(t));
        const record* first = nullptr;
        const record* last = nullptr;
        for (const record* r : series) {
            const double d = *r->params.number("dilation");
            if (d == 1.0) first = r;
            if (!last || d > *last->params.number("dilation")) last = r;
        }
        if (!first || !last || !usable(*first) || !usable(*last)) continue;
        const double e1 = summarize(*first).median, ed = summarize(*last).median;
        speedups.add({setting + "-" + app, nodes, e1, factor_cell(*last->params.number("dilation")), ed, ed > 0 ? e1 / ed : 0.0});
    }
    if (!speedups.name.empty()) out.push_back(std::move(speedups));
    return out;
}

}  // namespace comet
