// comet/analysis/delays.ipp — the definitions of comet/analysis/delays.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/analysis/delays.hpp>

namespace comet {

COMET_DECL dilation_estimate estimate_dilation(std::span<const dilated_run> runs) {
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
    // b1·MR + b0 is the logical and overhead delay (the seed, section 5.0.1): the line is fitted
    // to L_D + O_D against MR, as equation 2 is to table A1.
    std::vector<double> mr, rest;
    for (const dilated_run& r : runs) {
        mr.push_back(static_cast<double>(r.states.retries));
        rest.push_back((r.states.logical + r.states.overhead) / r.factor);
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
        e.error.push_back(ed > 0.0 ? (e.estimated.back() - ed) / ed : std::numeric_limits<double>::quiet_NaN());
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

COMET_DECL void estimate_dilations(std::span<record> records) {
    for (const std::vector<record*>& series : detail::dilation_series(records)) {
        std::vector<dilated_run> runs;
        for (const record* r : series) {
            const double d = *r->params.number("dilation");
            dilated_run run{d, {}};
            run.states.elapsed = r->values.number("elapsed").value_or(0.0) * d;
            run.states.user = r->values.number("user").value_or(0.0) * d;
            run.states.physical = r->values.number("physical").value_or(0.0) * d;
            run.states.logical = r->values.number("logical").value_or(0.0) * d;
            run.states.overhead = r->values.number("overhead").value_or(0.0) * d;
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
                if (e->holds)
                    rec.values.set("estimate", e->estimated[i]).set("estimate_error", e->error[i]).set("estimate_b1", e->b1).set("estimate_b0", e->b0);
                if (!e->note.empty()) rec.notes.push_back("equation 1: " + e->note);
            } else {
                rec.notes.push_back("equation 1 not fitted: " + why);
            }
        }
    }
}

COMET_DECL study_class classify_study(double logical_share, double speedup) {
    study_class c;
    c.logical = logical_share >= 0.20 ? "large" : logical_share <= 0.10 ? "small" : "between";
    c.speedup = speedup >= 1.5 ? "nice speedup" : speedup <= 1.2 ? "little improvement" : "some speedup";
    if (c.logical == "large" && speedup >= 1.5)
        c.conclusion = "application benefits from faster transport";
    else if (c.logical == "small" && speedup <= 1.2)
        c.conclusion = "good match between algorithm-architecture; need faster cpu or more parallelism";
    else if (c.logical == "large" && speedup <= 1.2)
        c.conclusion = "inefficient algorithm; consider algorithm redesign";
    else
        c.conclusion = "none: no cell of table II";
    return c;
}

COMET_DECL std::vector<derived_table> dilation_tables(std::span<const record> records) {
    std::vector<derived_table> out;
    derived_table speedups{.name = "", .title = "", .kernel = "",
                           .columns = {"study", "nodes", "E_1[s]", "largest D", "E_D[s]", "speedup E_1/E_D"}};
    // Table II: where each study stands (classify_study).
    derived_table summary{.name = "", .title = "", .kernel = "",
                          .columns = {"study", "paradigm", "L_1/E_1[%]", "logical delay", "largest D", "speedup E_1/E_D", "improvement",
                                      "conclusion (NIST table II)"}};
    // Figure 4: how far E_D moves for a change of P_D, between D = 1 and D = 2.
    derived_table sensitivity{.name = "", .title = "", .kernel = "",
                              .columns = {"study", "nodes", "E_1[s]", "E_2[s]", "P_1[s]", "P_2[s]", "slope dE_D/dP_D"}};
    // The seed's table of a study: A1 CM-Ring, A2 CP-Ring, A3 CM-Mesh, A4 CP-Mesh, A5 CM-RC,
    // A6 CP-RC; another application or setting is laid out as they are.
    const auto seed_table = [](std::string_view setting, std::string_view app) -> std::string {
        const std::string_view apps[] = {"ring", "mesh", "rc"};
        const auto a = std::find(std::begin(apps), std::end(apps), app);
        if (a == std::end(apps) || (setting != "cm" && setting != "cp")) return "as NIST tables A1-A6";
        return "NIST table A" + std::to_string(2 * (a - std::begin(apps)) + (setting == "cm" ? 1 : 2));
    };
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
            summary.name = "nist_summary_" + head.kernel;
            summary.title = "summary of results (NIST table II), " + head.kernel;
            summary.kernel = head.kernel;
            sensitivity.name = "nist_sensitivity_" + head.kernel;
            sensitivity.title = "E_D against P_D from D = 1 to 2 (NIST figure 4), " + head.kernel;
            sensitivity.kernel = head.kernel;
            speedups.name = "nist_speedups_" + head.kernel;
            speedups.title = "speedup with time dilation (NIST figure 7), " + head.kernel;
            speedups.kernel = head.kernel;
        }
        derived_table t{.name = "nist_" + setting + "_" + app + "_" + std::to_string(nodes),
                        .title = setting + "-" + app + " on " + std::to_string(nodes) + " nodes (" + seed_table(setting, app) +
                                 "): normalised service states, T_D = T / D",
                        .kernel = head.kernel,
                        .lays_out_records = true,
                        .columns = {"D", "E_D[s]", "U_D[s]", "L_D[s]", "P_D[s]", "O_D[s]", "%LM", "A_D[ms]", "Max Log[ms]", "TM",
                                    "retries", "speedup", "estimate[s]", "estimate error[%]"}};
        // A value's flag (stats/validity.hpp) names the value; here it flags its column.
        const std::pair<const char*, const char*> flagged_columns[] = {
            {"user", "U_D[s]"}, {"logical", "L_D[s]"}, {"physical", "P_D[s]"}, {"overhead", "O_D[s]"},
            {"speedup", "speedup"}, {"estimate", "estimate[s]"}, {"estimate", "estimate error[%]"}};
        for (const record* r : series) {
            std::vector<flag> flags;
            for (const auto& [what, column] : flagged_columns)
                if (const flag* f = find_flag(r->flags, what)) flags.push_back({column, f->why});
            const auto retries = r->values.integer("retries");
            t.add({factor_cell(*r->params.number("dilation")), usable(*r) ? derived_table::cell(summarize(*r).median) : derived_table::cell{},
                   value(*r, "user"), value(*r, "logical"), value(*r, "physical"), value(*r, "overhead"), value(*r, "lm_percent"),
                   value(*r, "mean_logical", 1e3), value(*r, "max_logical", 1e3), r->values.integer("data_messages").value_or(0),
                   retries ? derived_table::cell(*retries) : derived_table::cell{}, value(*r, "speedup"), value(*r, "estimate"),
                   value(*r, "estimate_error", 100.0)},
                  std::move(flags));
            for (const auto& n : r->notes)
                if (std::find(t.notes.begin(), t.notes.end(), "note: " + n) == t.notes.end()) t.notes.push_back("note: " + n);
        }
        out.push_back(std::move(t));
        const record* first = nullptr;
        const record* second = nullptr;
        const record* last = nullptr;
        for (const record* r : series) {
            const double d = *r->params.number("dilation");
            if (d == 1.0) first = r;
            if (d == 2.0) second = r;
            if (!last || d > *last->params.number("dilation")) last = r;
        }
        if (first && second && usable(*first) && usable(*second)) {
            const double e1 = summarize(*first).median, e2 = summarize(*second).median;
            const auto p1 = first->values.number("physical"), p2 = second->values.number("physical");
            std::vector<flag> flags;
            for (const record* r : {first, second})
                if (const flag* f = find_flag(r->flags, "physical")) flags.push_back({"slope dE_D/dP_D", f->why});
            derived_table::cell slope;
            if (p1 && p2 && *p1 != *p2) slope = (e1 - e2) / (*p1 - *p2);
            sensitivity.add({setting + "-" + app, nodes, e1, e2, p1 ? derived_table::cell(*p1) : derived_table::cell{},
                             p2 ? derived_table::cell(*p2) : derived_table::cell{}, slope},
                            std::move(flags));
        }
        if (!first || !last || !usable(*first) || !usable(*last)) continue;
        const double e1 = summarize(*first).median, ed = summarize(*last).median;
        speedups.add({setting + "-" + app, nodes, e1, factor_cell(*last->params.number("dilation")), ed, ed > 0 ? e1 / ed : 0.0});
        // The logical share of the undilated run, from its own trial's values (the seed's table I).
        const auto l1 = first->values.number("logical");
        const auto run1 = first->values.number("elapsed");
        if (l1 && run1 && *run1 > 0.0 && ed > 0.0) {
            const study_class c = classify_study(*l1 / *run1, e1 / ed);
            const std::string paradigm = app == "rc" ? "asynchronous" : app == "ring" || app == "mesh" ? "synchronous" : "?";
            std::vector<flag> flags;
            if (const flag* f = find_flag(first->flags, "logical"))
                for (const char* column : {"L_1/E_1[%]", "logical delay", "conclusion (NIST table II)"}) flags.push_back({column, f->why});
            summary.add({setting + "-" + app, paradigm, 100.0 * *l1 / *run1, c.logical, factor_cell(*last->params.number("dilation")),
                         e1 / ed, c.speedup, c.conclusion},
                        std::move(flags));
        }
    }
    if (!speedups.name.empty()) out.push_back(std::move(speedups));
    if (!sensitivity.rows.empty()) out.push_back(std::move(sensitivity));
    if (!summary.rows.empty()) out.push_back(std::move(summary));
    return out;
}

}  // namespace comet
