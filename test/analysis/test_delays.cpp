// Tests of comet/analysis/delays.hpp: equation 1 recovers b1 and b0 from runs made to follow it
// and gives back the seed's equation 2 from its table A1 (and says so when retransmissions never vary, or when the runs do not follow it), and a
// study's records get their speedups and equation 1 per series, flagged where a run they read
// is flagged.
#include <comet/analysis/delays.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(delays)

BOOST_AUTO_TEST_CASE(equation_one_recovers_its_coefficients) {
    // Runs made to follow E_D = U + P1/D + b1·MR + b0 exactly, with U = 2.89, P1 = 0.86,
    // b1 = 0.024563, b0 = 1.5498 (the seed's equation 2).
    std::vector<comet::dilated_run> runs;
    const double mr[] = {120, 64, 18, 9, 6};
    int i = 0;
    for (double d : {1.0, 2.0, 4.0, 8.0, 16.0}) {
        comet::dilated_run r{d, {}};
        r.states.user = 2.89 * d;
        r.states.physical = 0.86;  // the transport's own time: not dilated
        r.states.retries = static_cast<std::uint64_t>(mr[i++]);
        // L + O is what b1·MR + b0 describes (the seed fits them, not E_D, against MR).
        const double lo = 0.024563 * static_cast<double>(r.states.retries) + 1.5498;
        r.states.logical = d * lo * 0.6, r.states.overhead = d * lo * 0.4;
        r.states.elapsed = d * (2.89 + 0.86 / d + lo);
        runs.push_back(r);
    }
    const comet::dilation_estimate e = comet::estimate_dilation(runs);
    BOOST_TEST(e.b1_fitted);
    BOOST_TEST(e.b1 == 0.024563, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(e.b0 == 1.5498, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(e.mean_user == 2.89, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(e.residual < 1e-9);
    BOOST_TEST(e.note.empty());
    BOOST_TEST(e.speedup[0] == 1.0);
    BOOST_TEST(e.speedup[1] == runs[0].states.elapsed / (runs[1].states.elapsed / 2.0), boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(table_a1_gives_back_equation_two) {
    // The seed's CM-Ring runs (table A1: D, E_D, U_D, L_D, P_D, O_D, retries), unnormalised as a
    // study measures them: equation 1 fitted to them is the seed's equation 2,
    // Ê_D ≈ 2.89 + .86 / D + .024563·MR + 1.5498, and within 12% of every E_D.
    const double a1[][7] = {{1, 17.86, 3.05, 9.25, 0.86, 4.70, 482}, {2, 9.71, 3.05, 3.83, 0.43, 2.40, 242},
                            {4, 6.43, 2.90, 1.70, 0.22, 1.61, 58},   {6, 6.20, 2.89, 1.64, 0.14, 1.53, 63},
                            {8, 5.67, 2.84, 1.25, 0.11, 1.47, 39},   {10, 5.62, 2.84, 1.24, 0.09, 1.45, 47},
                            {12, 5.60, 2.82, 1.23, 0.07, 1.48, 41},  {14, 5.29, 2.79, 0.98, 0.06, 1.46, 37},
                            {16, 5.38, 2.81, 1.09, 0.05, 1.43, 41}};
    std::vector<comet::dilated_run> runs;
    for (const auto& row : a1) {
        const double d = row[0];
        comet::dilated_run r{d, {}};
        r.states.elapsed = row[1] * d, r.states.user = row[2] * d, r.states.logical = row[3] * d;
        r.states.physical = row[4] * d, r.states.overhead = row[5] * d;
        r.states.retries = static_cast<std::uint64_t>(row[6]), r.states.retries_known = true;
        runs.push_back(r);
    }
    const comet::dilation_estimate e = comet::estimate_dilation(runs);
    BOOST_TEST(e.b1_fitted);
    BOOST_TEST(e.b1 == 0.024563, boost::test_tools::tolerance(0.5e-6 / 0.024563));  // the seed's six digits
    BOOST_TEST(e.b0 == 1.5498, boost::test_tools::tolerance(0.5e-4 / 1.5498));
    BOOST_TEST(e.mean_user == 2.89, boost::test_tools::tolerance(0.005 / 2.89));
    BOOST_TEST(e.physical_1 == 0.86, boost::test_tools::tolerance(1e-12));
    BOOST_TEST_REQUIRE(e.error.size() == runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        BOOST_TEST_INFO("D = " << runs[i].factor);
        BOOST_TEST(std::abs(e.error[i]) < 0.12);
        BOOST_TEST(e.error[i] == (e.estimated[i] - a1[i][1]) / a1[i][1], boost::test_tools::tolerance(1e-12));
    }
    BOOST_TEST(e.estimated[0] == 17.14, boost::test_tools::tolerance(0.005 / 17.14));  // 2.89 + .86 + .024563·482 + 1.5498
    BOOST_TEST(e.holds);
}

BOOST_AUTO_TEST_CASE(without_retransmissions_only_b0_is_fitted_and_a_poor_fit_is_flagged) {
    std::vector<comet::dilated_run> runs;
    for (double d : {1.0, 2.0, 4.0}) {
        comet::dilated_run r{d, {}};
        r.states.user = d, r.states.physical = 0.5, r.states.logical = 2.0 * d, r.states.elapsed = d * 3.0 + 0.5;
        runs.push_back(r);
    }
    comet::dilation_estimate e = comet::estimate_dilation(runs);
    BOOST_TEST(!e.b1_fitted);
    BOOST_TEST(e.note.find("b1 cannot be fitted") != std::string::npos);
    BOOST_TEST(e.b0 == 2.0);  // L_D + O_D of every run
    BOOST_TEST(e.holds);
    runs[2].states.elapsed = 100.0;  // a run the estimator cannot describe
    runs[0].states.retries = 5;
    e = comet::estimate_dilation(runs);
    BOOST_TEST(e.note.find("does not describe") != std::string::npos, e.note);
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused) {
    const auto says = [](std::initializer_list<const char*> w) {
        return [w](const std::exception& e) { return comet_test::mentions(e, w); };
    };
    const std::vector<comet::dilated_run> one{{1.0, {}}}, no_first{{2.0, {}}, {4.0, {}}}, shrunk{{1.0, {}}, {0.5, {}}};
    BOOST_CHECK_EXCEPTION(comet::estimate_dilation(one), comet::invalid_argument, says({"at least 2"}));
    BOOST_CHECK_EXCEPTION(comet::estimate_dilation(no_first), comet::invalid_argument, says({"no undilated run"}));
    BOOST_CHECK_EXCEPTION(comet::estimate_dilation(shrunk), comet::invalid_argument, says({"0.5 is below 1"}));
}

BOOST_AUTO_TEST_CASE(a_studys_records_get_their_speedups_and_equation_one_per_series) {
    // Two series (cm and cp) interleaved, a record of another kind between them: each series is
    // estimated from its own records alone, in its own order.
    const auto row = [](std::string setting, double d, double e_d, double u_d) {
        comet::record r{"ring", comet::params{}, {e_d}};
        r.params.set("setting", setting).set("dilation", d).set("nodes", 4);
        r.values.set("elapsed", e_d).set("user", u_d).set("physical", 0.0).set("retries", std::int64_t{0});
        return r;
    };
    std::vector<comet::record> records{row("cm", 1, 8.0, 1.0), row("cp", 1, 9.0, 8.0), {"echo", comet::params{{"size", std::int64_t{8}}}, {1e-6}},
                                       row("cm", 2, 5.0, 1.0), row("cp", 2, 8.5, 8.0)};
    comet::estimate_dilations(records);
    BOOST_TEST(*records[0].values.number("speedup") == 1.0);
    BOOST_TEST(*records[3].values.number("speedup") == 8.0 / 5.0);
    BOOST_TEST(*records[4].values.number("speedup") == 9.0 / 8.5);
    BOOST_TEST(!records[2].values.contains("speedup"));  // not a study's record: left alone
    BOOST_TEST(records[2].notes.empty());
    // Every run had 0 retransmissions: equation 1's note says b1 cannot be fitted.
    BOOST_TEST(records[0].notes.at(0).find("b1 cannot be fitted") != std::string::npos, records[0].notes.at(0));
    // A flagged E_D flags the speedups that read it, and equation 1 over its series.
    comet::add_flag(records[0], "point", "no valid sample");
    std::vector<comet::record> again{records[0], records[3]};
    for (auto& r : again) r.values = comet::params{{"elapsed", 8.0}, {"user", 1.0}, {"physical", 0.0}};
    again[1].values.set("elapsed", 5.0);
    comet::estimate_dilations(again);
    for (const auto& r : again) {
        BOOST_TEST(comet::find_flag(r.flags, "speedup") != nullptr);
        BOOST_TEST(comet::find_flag(r.flags, "estimate") != nullptr);
    }
    // A series without its undilated run: said in a note, nothing fitted.
    std::vector<comet::record> no_first{row("cm", 2, 5.0, 1.0), row("cm", 4, 4.0, 1.0)};
    comet::estimate_dilations(no_first);
    BOOST_TEST(!no_first[0].values.contains("speedup"));
    BOOST_TEST(no_first[0].notes.at(0).find("equation 1 not fitted: ") == 0u, no_first[0].notes.at(0));
}

BOOST_AUTO_TEST_CASE(the_seeds_tables_read_the_service_states_from_the_values) {
    // A study's records name their point by application, setting, D, nodes and trials; the
    // service states, counts and speedup a run measured are their values.
    const auto row = [](double d, double e, double u, double l, double p, double o) {
        comet::record r{"ring",
                        {{"application", "ring"}, {"setting", "cm"}, {"dilation", d}, {"nodes", std::int64_t{4}}, {"trials", std::int64_t{1}}},
                        {e}};
        r.values.set("elapsed", e).set("user", u).set("logical", l).set("physical", p).set("overhead", o);
        r.values.set("lm_percent", 100 * l / (l + p)).set("mean_logical", 0.5e-3).set("max_logical", 2e-3);
        r.values.set("data_messages", std::int64_t{96}).set("control_messages", std::int64_t{96}).set("retries", std::int64_t{0});
        return r;
    };
    std::vector<comet::record> records{row(1, 2.0, 0.5, 1.0, 0.25, 0.25), row(4, 1.0, 0.5, 0.25, 0.125, 0.125)};
    comet::estimate_dilations(records);
    auto tables = comet::dilation_tables(records);
    BOOST_TEST_REQUIRE(tables.size() == 3u);
    const comet::derived_table& a = tables[0];
    BOOST_TEST(a.name == "nist_cm_ring_4");
    BOOST_TEST(a.title == "cm-ring on 4 nodes (NIST table A1): normalised service states, T_D = T / D");
    BOOST_TEST_REQUIRE(a.rows.size() == 2u);
    using cells = std::vector<comet::derived_table::cell>;
    BOOST_TEST((a.rows[0].cells == cells{std::int64_t{1}, 2.0, 0.5, 1.0, 0.25, 0.25, 80.0, 0.5, 2.0, std::int64_t{96}, std::int64_t{0}, 1.0, {}, {}}));
    BOOST_TEST(std::get<double>(a.rows[1].cells[11]) == 2.0);  // E_1 / E_4
    BOOST_TEST(a.rows[1].flags.empty());
    const comet::derived_table& ii = tables[1];
    BOOST_TEST(ii.name == "nist_speedups_ring");
    BOOST_TEST(ii.title == "speedup with time dilation (NIST figure 7), ring");
    BOOST_TEST_REQUIRE(ii.rows.size() == 1u);
    BOOST_TEST((ii.rows[0].cells == cells{std::string("cm-ring"), std::int64_t{4}, 2.0, std::int64_t{4}, 1.0, 2.0}));
    const comet::derived_table& summary = tables[2];
    BOOST_TEST(summary.name == "nist_summary_ring");
    BOOST_TEST((summary.rows.at(0).cells == cells{std::string("cm-ring"), std::string("synchronous"), 50.0, std::string("large"), std::int64_t{4}, 2.0,
                                                  std::string("nice speedup"), std::string("application benefits from faster transport")}));
    // A run flagged as a whole reports no E_D, its speedup is flagged in its cell, and its
    // study has no speedup at the largest factor.
    comet::add_flag(records[1], "point", "interrupted before its first trial ended");
    for (auto& r : records) r.values = comet::params{{"elapsed", r.samples[0]}, {"user", 0.5}, {"physical", 0.0}};
    comet::estimate_dilations(records);
    tables = comet::dilation_tables(records);
    BOOST_TEST(std::holds_alternative<std::monostate>(tables[0].rows[1].cells[1]));
    BOOST_TEST(comet::find_flag(tables[0].rows[1].flags, "speedup") != nullptr);
    BOOST_TEST(tables[1].rows.empty());
    // Records of no study: no table.
    const std::vector<comet::record> echo{{"echo", comet::params{{"size", std::int64_t{8}}}, {1e-6}}};
    BOOST_TEST(comet::dilation_tables(echo).empty());
}

BOOST_AUTO_TEST_CASE(figure_fours_slopes_come_from_the_runs_at_d_1_and_2) {
    // The seed's CM-Ring and CM-Mesh at D = 1 and 2 (tables A1 and A3: E_D, P_D): the slopes of
    // E_D against P_D are figure 4's 18.95 and 27.13.
    const auto run = [](std::string app, double d, double e, double p) {
        comet::record r{app, {{"application", app}, {"setting", "cm"}, {"dilation", d}, {"nodes", std::int64_t{16}}, {"trials", std::int64_t{1}}}, {e}};
        r.values.set("elapsed", e).set("physical", p);
        return r;
    };
    const std::pair<std::string, std::vector<comet::record>> studies[] = {
        {"ring", {run("ring", 1, 17.86, 0.86), run("ring", 2, 9.71, 0.43), run("ring", 4, 6.43, 0.22)}},
        {"mesh", {run("mesh", 1, 18.91, 0.65), run("mesh", 2, 10.23, 0.33)}}};
    const double slopes[] = {18.95, 27.13};
    for (std::size_t i = 0; i < 2; ++i) {
        BOOST_TEST_CONTEXT(studies[i].first) {
            const auto tables = comet::dilation_tables(studies[i].second);
            const auto t = std::find_if(tables.begin(), tables.end(), [](const auto& x) { return x.name.starts_with("nist_sensitivity_"); });
            BOOST_TEST_REQUIRE((t != tables.end()));
            BOOST_TEST(t->title == "E_D against P_D from D = 1 to 2 (NIST figure 4), " + studies[i].first);
            BOOST_TEST_REQUIRE(t->rows.size() == 1u);
            BOOST_TEST(std::get<double>(t->rows[0].cells.at(t->column("slope dE_D/dP_D"))) == slopes[i], boost::test_tools::tolerance(0.006 / slopes[i]));  // the seed rounds 27.125 up
        }
    }
    // Without a run at D = 2, or with a P that did not change, no slope.
    std::vector<comet::record> no_two{run("ring", 1, 17.86, 0.86), run("ring", 4, 6.43, 0.22)};
    for (const auto& t : comet::dilation_tables(no_two)) BOOST_TEST(!t.name.starts_with("nist_sensitivity_"));
    std::vector<comet::record> flat{run("ring", 1, 17.86, 0.5), run("ring", 2, 9.71, 0.5)};
    for (const auto& t : comet::dilation_tables(flat))
        if (t.name.starts_with("nist_sensitivity_")) BOOST_TEST(std::holds_alternative<std::monostate>(t.rows.at(0).cells.back()));
}

BOOST_AUTO_TEST_CASE(the_seeds_six_studies_fall_in_table_twos_cells) {
    // Tables A1-A6 at D = 1 and 16 (E_D, L_D): each study's row of the computed table II says
    // what the seed's matrix says of its cell.
    struct study {
        const char *app, *setting;
        double e1, l1, e16;
        const char *logical, *speedup, *conclusion;
    };
    const study studies[] = {
        {"ring", "cm", 17.86, 9.25, 5.38, "large", "nice speedup", "application benefits from faster transport"},
        {"ring", "cp", 28.05, 2.06, 24.90, "small", "little improvement", "good match between algorithm-architecture; need faster cpu or more parallelism"},
        {"mesh", "cm", 18.91, 6.80, 5.46, "large", "nice speedup", "application benefits from faster transport"},
        {"mesh", "cp", 23.13, 0.16, 21.86, "small", "little improvement", "good match between algorithm-architecture; need faster cpu or more parallelism"},
        {"rc", "cm", 24.85, 1.61, 23.13, "small", "little improvement", "good match between algorithm-architecture; need faster cpu or more parallelism"},
        {"rc", "cp", 31.30, 15.16, 28.33, "large", "little improvement", "inefficient algorithm; consider algorithm redesign"}};
    for (const study& s : studies) {
        BOOST_TEST_CONTEXT(s.setting << "-" << s.app) {
            std::vector<comet::record> runs;
            for (const auto& [d, e, l] : {std::tuple{1.0, s.e1, s.l1}, std::tuple{16.0, s.e16, 0.0}}) {
                comet::record r{s.app, {{"application", s.app}, {"setting", s.setting}, {"dilation", d}, {"nodes", std::int64_t{16}}, {"trials", std::int64_t{1}}}, {e}};
                r.values.set("elapsed", e).set("logical", l);
                runs.push_back(r);
            }
            const auto tables = comet::dilation_tables(runs);
            const auto t = std::find_if(tables.begin(), tables.end(), [](const auto& x) { return x.name.starts_with("nist_summary_"); });
            BOOST_TEST_REQUIRE((t != tables.end()));
            BOOST_TEST(t->title == std::string("summary of results (NIST table II), ") + s.app);
            BOOST_TEST_REQUIRE(t->rows.size() == 1u);
            const auto& row = t->rows[0].cells;
            BOOST_TEST(std::get<std::string>(row.at(t->column("logical delay"))) == s.logical);
            BOOST_TEST(std::get<std::string>(row.at(t->column("improvement"))) == s.speedup);
            BOOST_TEST(std::get<std::string>(row.at(t->column("conclusion (NIST table II)"))) == s.conclusion);
            BOOST_TEST(std::get<double>(row.at(t->column("L_1/E_1[%]"))) == 100.0 * s.l1 / s.e1, boost::test_tools::tolerance(1e-12));
            BOOST_TEST(std::get<std::string>(row.at(t->column("paradigm"))) == (std::string(s.app) == "rc" ? "asynchronous" : "synchronous"));
        }
    }
    // Between the classes: no cell of table II, and said so.
    BOOST_TEST(comet::classify_study(0.15, 3.0).logical == "between");
    BOOST_TEST(comet::classify_study(0.5, 1.3).speedup == "some speedup");
    BOOST_TEST(comet::classify_study(0.05, 3.0).conclusion == "none: no cell of table II");
}

BOOST_AUTO_TEST_SUITE_END()
