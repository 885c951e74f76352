// Tests of comet/stats/compare.hpp: the Mann–Whitney U test against U and p computed by hand
// (each computation in the comment beside it; SciPy 1.10's mannwhitneyu prints the same
// numbers), and compare_runs: matching by name without the descriptive params, the verdicts
// and the threshold, points in one run only, and its one-line errors; Welch's t test against t
// and its degrees of freedom computed by hand, and the test on rounds: a state of the machine
// that moves a run's rounds is not a change, a change every round shows is, and a side of one
// round falls back to the samples.
#include <comet/stats/compare.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace compare_test {

/// Whether calling `f` throws comet::invalid_argument whose message contains `part`.
template <class F>
bool throws_saying(F&& f, const std::string& part) {
    try {
        f();
    } catch (const comet::invalid_argument& e) {
        const std::string what = e.what();
        BOOST_TEST_MESSAGE(what);
        return what.find(part) != std::string::npos && what.find('\n') == std::string::npos;
    }
    return false;
}

inline comet::record echo(std::int64_t size, std::vector<double> samples, const char* implementation = nullptr) {
    comet::record r{.kernel = "echo", .params = {{"size", size}, {"hops", 1}, {"nodes", 2}}, .samples = std::move(samples)};
    if (implementation) r.values.set("implementation", implementation);
    return r;
}

/// `v` with every sample multiplied by `f`.
inline std::vector<double> scaled(std::vector<double> v, double f) {
    for (double& x : v) x *= f;
    return v;
}

/// 15 distinct samples around `median` (±1.4%), in a scrambled order.
inline std::vector<double> around(double median) {
    std::vector<double> out;
    for (int i = 0; i < 15; ++i) out.push_back(median * (1.0 + 0.002 * ((i * 7) % 15 - 7)));
    return out;
}

/// A record of `levels.size()` rounds, the i-th round 15 samples around levels[i] (around()).
inline comet::record in_rounds(std::int64_t size, const std::vector<double>& levels) {
    comet::record r = echo(size, {});
    for (double level : levels) {
        const auto round = around(level);
        r.samples.insert(r.samples.end(), round.begin(), round.end());
        r.rounds.push_back({round.size(), 1});
    }
    return r;
}

}  // namespace compare_test

BOOST_AUTO_TEST_SUITE(compare)

BOOST_AUTO_TEST_CASE(u_test_exact_without_ties) {
    // a = {19, 22, 16, 29, 24}, b = {20, 11, 17, 12}. Pooled and sorted:
    //   11b 12b 16a 17b 19a 20b 22a 24a 29a  → ranks of a: 3, 5, 7, 8, 9, R_a = 32,
    //   U_a = R_a − 5·6/2 = 17, U_b = 5·4 − 17 = 3.
    // No ties and a side of 4 ≤ 8: exact. P(U ≥ 17) = P(U ≤ 3) by symmetry = (orderings with
    // U = 0, 1, 2, 3: the partitions of 0..3 into at most 4 parts of at most 5: 1 + 1 + 2 + 3 = 7)
    // / C(9, 4) = 7/126, so p = 2·7/126 = 1/9.
    const std::vector<double> a{19, 22, 16, 29, 24}, b{20, 11, 17, 12};
    const comet::mann_whitney t = comet::mann_whitney_u(a, b);
    BOOST_TEST(t.exact);
    BOOST_TEST(t.u == 17.0);
    BOOST_TEST(t.p == 1.0 / 9.0, boost::test_tools::tolerance(1e-12));
    // The other way round: U of the first sample is 3, p the same.
    const comet::mann_whitney r = comet::mann_whitney_u(b, a);
    BOOST_TEST(r.u == 3.0);
    BOOST_TEST(r.p == t.p, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(u_test_exact_with_one_large_side) {
    // a = {1, 2, 3} all below b = {4, ..., 30} (27 samples): U_a = 0, and only 1 of the
    // C(30, 3) = 4060 orderings puts a's three lowest, so p = 2/4060 = 4.926e-4.
    std::vector<double> b(27);
    std::iota(b.begin(), b.end(), 4.0);
    const comet::mann_whitney t = comet::mann_whitney_u(std::vector<double>{1, 2, 3}, b);
    BOOST_TEST(t.exact);
    BOOST_TEST(t.u == 0.0);
    BOOST_TEST(t.p == 2.0 / 4060.0, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(u_test_normal_with_ties) {
    // a = {1, 2, 2, 3}, b = {2, 4, 5}. Sorted: 1a 2a 2a 2b 3a 4b 5b; the three 2s share ranks
    // 2, 3, 4 → 3 each. R_a = 1 + 3 + 3 + 5 = 12, U_a = 12 − 4·5/2 = 2, U_b = 12 − 2 = 10.
    // Ties: the normal approximation. N = 7, one group of t = 3: Σ(t³ − t) = 24.
    //   σ² = 4·3/12 · ((7 + 1) − 24/(7·6)) = 8 − 4/7 = 7.428571, σ = 2.725541
    //   z = (max(U_a, U_b) − 4·3/2 − ½)/σ = 3.5/2.725541 = 1.284152
    //   p = 2·(1 − Φ(1.284152)) = 2·0.0995449 = 0.199090
    const comet::mann_whitney t = comet::mann_whitney_u(std::vector<double>{1, 2, 2, 3}, std::vector<double>{2, 4, 5});
    BOOST_TEST(!t.exact);
    BOOST_TEST(t.u == 2.0);
    BOOST_TEST(t.p == 0.19908985214820463, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(u_test_normal_for_large_samples) {
    // a = 1..10 all below b = 11..20: U_a = 0, U = 100; 10 a side > 8: normal.
    //   σ² = 10·10/12 · 21 = 175, z = (100 − 50 − ½)/√175 = 49.5/13.228757 = 3.741848,
    //   p = 2·(1 − Φ(3.741848)) = 1.8267e-4
    std::vector<double> a(10), b(10);
    std::iota(a.begin(), a.end(), 1.0);
    std::iota(b.begin(), b.end(), 11.0);
    const comet::mann_whitney t = comet::mann_whitney_u(a, b);
    BOOST_TEST(!t.exact);
    BOOST_TEST(t.u == 0.0);
    BOOST_TEST(t.p == 0.00018267179110955002, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(u_test_of_equal_samples_is_one) {
    // Every value equal: σ = 0, no evidence either way. A set against itself: U = n²/2, the
    // middle, p = 1 (2·P(U ≥ middle) > 1 is clipped).
    const comet::mann_whitney t = comet::mann_whitney_u(std::vector<double>{5, 5, 5}, std::vector<double>{5, 5});
    BOOST_TEST(t.u == 3.0);
    BOOST_TEST(t.p == 1.0);
    const auto s = compare_test::around(1e-6);
    const comet::mann_whitney self = comet::mann_whitney_u(s, s);
    BOOST_TEST(self.u == 15.0 * 15.0 / 2.0);
    BOOST_TEST(self.p == 1.0);
}

BOOST_AUTO_TEST_CASE(u_test_rejects_empty_and_nan) {
    const std::vector<double> none, some{1.0}, nan{1.0, std::nan("")};
    BOOST_TEST(compare_test::throws_saying([&] { comet::mann_whitney_u(none, some); }, "mann_whitney_u: the first sample set is empty"));
    BOOST_TEST(compare_test::throws_saying([&] { comet::mann_whitney_u(some, none); }, "the second sample set is empty"));
    BOOST_TEST(compare_test::throws_saying([&] { comet::mann_whitney_u(some, nan); }, "sample 1 is NaN"));
}

BOOST_AUTO_TEST_CASE(point_names) {
    comet::record r{.kernel = "contention",
                    .params = {{"size", 8}, {"hops", 1}, {"nodes", 4}, {"load", 0.5}, {"cross_size", 486}},
                    .values = {{"implementation", "native"}}};
    BOOST_TEST(comet::point_name(r) == "contention/size:8/hops:1/nodes:4/load:0.5/cross_size:486");
    // The values are left out; a word is written as it is; an integral real as an integer.
    comet::record o{.kernel = "overlap", .params = {{"mode", "sync"}, {"reduction", "test_node"}, {"vector_length", 2.0}},
                    .values = {{"form", "send_recv"}, {"order", "shuffle"}, {"seed", 7}, {"closing_barrier", 1e-6}}};
    BOOST_TEST(comet::point_name(o) == "overlap/mode:sync/reduction:test_node/vector_length:2");
    // Whose time a sample is names the point: a windowed collective has a record per reduction,
    // and its window and overruns say only how it was measured.
    comet::record w{.kernel = "collectives", .params = {{"operation", "barrier"}, {"measure", "window"}, {"reduction", "max"}},
                    .values = {{"window", 2e-5}, {"overruns", 1}, {"clock_error", 0.0}}};
    BOOST_TEST(comet::point_name(w) == "collectives/operation:barrier/measure:window/reduction:max");
}

BOOST_AUTO_TEST_CASE(runs_match_by_name_and_list_the_rest) {
    using compare_test::around;
    using compare_test::echo;
    const comet::result_set a{{echo(0, around(1e-6), "native"), echo(8, around(1e-6)), echo(64, around(2e-6))}};
    const comet::result_set b{{echo(4096, around(5e-6)), echo(64, around(2e-6)), echo(0, around(1e-6), "portable")}};
    const comet::run_comparison c = comet::compare_runs(a, b);
    BOOST_TEST_REQUIRE(c.points.size() == 2u);
    BOOST_TEST(c.points[0].name == "echo/size:0/hops:1/nodes:2");  // A's order; implementation differs, same point
    BOOST_TEST(c.points[1].name == "echo/size:64/hops:1/nodes:2");
    BOOST_TEST(c.only_in_a == std::vector<std::string>{"echo/size:8/hops:1/nodes:2"});
    BOOST_TEST(c.only_in_b == std::vector<std::string>{"echo/size:4096/hops:1/nodes:2"});
    for (const auto& p : c.points) {  // identical samples on both sides
        BOOST_TEST(p.test.p == 1.0);
        BOOST_TEST(*p.change == 0.0);
        BOOST_TEST((p.verdict == comet::change_verdict::same));
        BOOST_TEST(!p.regression);
    }
    BOOST_TEST(c.points[0].params == a.records[0].params);  // A's params, as they were
    BOOST_TEST(!c.regressed());
}

BOOST_AUTO_TEST_CASE(verdicts_need_significance_and_the_threshold) {
    using compare_test::around;
    using compare_test::echo;
    using compare_test::scaled;
    // around() spans ±1.4%, so 1.5×, 0.5× and 1.03× all separate the samples completely:
    // U_a = 0, U = 225 and (15 a side > 8: normal) σ² = 15·15/12 · 31 = 581.25,
    // p = 2·(1 − Φ((225 − 112.5 − ½)/24.1091)) = 2·(1 − Φ(4.64555)) = 3.392e-6 — significant,
    // but at 1.03× within the default 10%. 1.20× with 3 samples a side cannot be significant at
    // 1%: the exact p of a complete separation is 2/C(6, 3) = 0.1; beyond the threshold, that
    // point is unresolved, not the same.
    const comet::result_set a{{echo(0, around(1e-6)), echo(8, around(1e-6)), echo(64, around(1e-6)), echo(100, {1e-6, 1.01e-6, 0.99e-6})}};
    const comet::result_set b{{echo(0, scaled(around(1e-6), 1.5)), echo(8, scaled(around(1e-6), 0.5)), echo(64, scaled(around(1e-6), 1.03)),
                               echo(100, {1.2e-6, 1.212e-6, 1.188e-6})}};
    const comet::run_comparison c = comet::compare_runs(a, b);
    BOOST_TEST_REQUIRE(c.points.size() == 4u);
    const auto& slower = c.points[0];
    BOOST_TEST(*slower.change == 0.5, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(slower.test.p == 3.3918213908250945e-06, boost::test_tools::tolerance(1e-6));
    BOOST_TEST((slower.verdict == comet::change_verdict::slower));
    BOOST_TEST(slower.regression);
    BOOST_TEST((c.points[1].verdict == comet::change_verdict::faster));
    BOOST_TEST(!c.points[1].regression);
    BOOST_TEST(c.points[2].significant);
    BOOST_TEST((c.points[2].verdict == comet::change_verdict::same));
    BOOST_TEST(!c.points[3].significant);
    BOOST_TEST(c.points[3].test.exact);
    BOOST_TEST(c.points[3].test.p == 0.1, boost::test_tools::tolerance(1e-12));
    BOOST_TEST((c.points[3].verdict == comet::change_verdict::unresolved));
    BOOST_TEST(comet::to_string(c.points[3].verdict) == "unresolved");
    BOOST_TEST(!c.points[3].regression);
    BOOST_TEST(c.regressed());
    BOOST_TEST(c.count(comet::change_verdict::slower) == 1u);
    BOOST_TEST(c.count(comet::change_verdict::faster) == 1u);
    BOOST_TEST(c.significant() == 3u);
    // A threshold of 60% lets the 50% slowdown pass.
    BOOST_TEST(!comet::compare_runs(a, b, {.threshold = 0.6}).regressed());
}

BOOST_AUTO_TEST_CASE(the_default_threshold_passes_a_runs_drift_and_flags_a_microsecond) {
    // The default threshold (10%) sits between what two runs of one build differ by on a
    // shared machine (kernels' medians moved by 5-10%, bench/compare_same_build.sh) and the
    // least 1 µs more per message adds to a small echo: +11% on the slowest 8-byte echo seen,
    // 9 µs, with both cores of the machine busy with other work.
    using compare_test::around;
    using compare_test::echo;
    using compare_test::scaled;
    const comet::result_set a{{echo(8, around(9e-6)), echo(64, around(9e-6))}};
    const comet::result_set drift{{echo(8, scaled(around(9e-6), 1.07)), echo(64, scaled(around(9e-6), 0.93))}};
    const comet::result_set held{{echo(8, around(10e-6)), echo(64, around(10e-6))}};
    BOOST_TEST(comet::compare_options{}.threshold == 0.10);
    const comet::run_comparison d = comet::compare_runs(a, drift);
    BOOST_TEST(d.significant() == 2u);  // the U test sees the drift ...
    BOOST_TEST(d.count(comet::change_verdict::same) == 2u);  // ... and the threshold lets it pass
    BOOST_TEST(!d.regressed());
    const comet::run_comparison h = comet::compare_runs(a, held);
    BOOST_TEST(h.count(comet::change_verdict::slower) == 2u);
    BOOST_TEST(h.regressed());
}

BOOST_AUTO_TEST_CASE(no_ratio_below_zero) {
    // Overhead subtraction can leave a median at or below zero: no ratio, and the verdict is
    // significance and the sign of the difference.
    const comet::result_set a{{compare_test::echo(0, {-3e-9, -2e-9, -1e-9, -2.5e-9, -1.5e-9, -2.2e-9, -1.8e-9, -2.1e-9, -1.9e-9})}};
    const comet::result_set b{{compare_test::echo(0, {3e-9, 2e-9, 1e-9, 2.5e-9, 1.5e-9, 2.2e-9, 1.8e-9, 2.1e-9, 1.9e-9})}};
    const comet::run_comparison c = comet::compare_runs(a, b);
    BOOST_TEST(!c.points[0].change.has_value());
    BOOST_TEST((c.points[0].verdict == comet::change_verdict::slower));
}

BOOST_AUTO_TEST_CASE(a_point_without_a_figure_is_not_compared) {
    using compare_test::around;
    using compare_test::echo;
    comet::record flagged = echo(64, around(2e-6));
    comet::add_flag(flagged, "point", "the windows kept failing");
    comet::record negative = echo(8, {-1e-9});
    comet::mark_negative(negative);
    const comet::result_set a{{echo(0, around(1e-6)), echo(8, around(1e-6)), echo(64, around(2e-6))}};
    const comet::result_set b{{echo(0, around(1e-6)), negative, flagged}};
    const comet::run_comparison c = comet::compare_runs(a, b);
    BOOST_TEST_REQUIRE(c.points.size() == 1u);
    BOOST_TEST_REQUIRE(c.not_compared.size() == 2u);
    BOOST_TEST(c.not_compared[0].first == "echo/size:8/hops:1/nodes:2");
    BOOST_TEST(c.not_compared[0].second == "B: flagged (no valid sample: all 1 invalid (1 negative))");
    BOOST_TEST(c.not_compared[1].second == "B: flagged (the windows kept failing)");
}

BOOST_AUTO_TEST_CASE(errors_are_one_line) {
    using compare_test::echo;
    using compare_test::throws_saying;
    const comet::result_set a{{echo(8, {1e-6, 2e-6})}}, b{{echo(64, {1e-6})}};
    BOOST_TEST(throws_saying([&] { comet::compare_runs(a, b); },
                             "compare_runs: the runs have no point in common (A: 1 point, echo/size:8/hops:1/nodes:2; "
                             "B: 1 point, echo/size:64/hops:1/nodes:2)"));
    const comet::result_set two{{echo(0, {1e-6}), echo(1, {1e-6})}};
    BOOST_TEST(throws_saying([&] { comet::compare_runs({}, two); }, "(A: no points; B: 2 points, e.g. echo/size:0/hops:1/nodes:2)"));
    const comet::result_set empty{{echo(8, {})}};
    BOOST_TEST(throws_saying([&] { comet::compare_runs(a, empty); },
                             "compare_runs: none of the 1 points both runs measured can be compared (echo/size:8/hops:1/nodes:2: B: no samples)"));
    const comet::result_set twice{{echo(8, {1e-6}, "native"), echo(8, {1e-6}, "portable")}};
    BOOST_TEST(throws_saying([&] { comet::compare_runs(twice, a); }, "compare_runs: run A has two records of echo/size:8/hops:1/nodes:2"));
    BOOST_TEST(throws_saying([&] { comet::compare_runs(a, a, {.alpha = 0.0}); }, "compare_runs: alpha = 0 is outside (0, 1)"));
    BOOST_TEST(throws_saying([&] { comet::compare_runs(a, a, {.threshold = -0.1}); }, "threshold = -0.1 is not a finite number >= 0"));
}

BOOST_AUTO_TEST_CASE(welch_t_by_hand) {
    // a = {1, 2, 3, 4}: mean 2.5, s² = (2.25 + 0.25 + 0.25 + 2.25)/3 = 5/3, s²/n = 5/12.
    // b = {3, 4, 5, 6, 7}: mean 5, s² = (4 + 1 + 0 + 1 + 4)/4 = 2.5, s²/n = 1/2.
    //   t = (5 − 2.5)/√(5/12 + 1/2) = 2.5/√(11/12) = 2.611165
    //   ν = (11/12)² / ((5/12)²/3 + (1/2)²/4) = 0.840278/0.120370 = 6.980769
    const std::vector<double> a{1, 2, 3, 4}, b{3, 4, 5, 6, 7};
    const comet::welch w = comet::welch_t(a, b);
    BOOST_TEST(w.t == 2.5 / std::sqrt(11.0 / 12.0), boost::test_tools::tolerance(1e-12));
    BOOST_TEST(w.dof == (121.0 / 144.0) / (25.0 / 432.0 + 1.0 / 16.0), boost::test_tools::tolerance(1e-12));
    BOOST_TEST(w.p == 2.0 * comet::student_t_sf(w.t, w.dof), boost::test_tools::tolerance(1e-12));
    BOOST_TEST(w.p > 0.01);  // 0.035: between the 5% and the 1% level
    BOOST_TEST(w.p < 0.05);
    // The other way round: t changes sign, p stays.
    const comet::welch r = comet::welch_t(b, a);
    BOOST_TEST(r.t == -w.t, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(r.p == w.p, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(welch_t_without_spread_and_its_errors) {
    // No spread on either side: equal values are no change (p = 1), different ones a certain one (p = 0).
    const std::vector<double> two{2, 2, 2}, three{3, 3};
    BOOST_TEST(comet::welch_t(two, two).p == 1.0);
    const comet::welch w = comet::welch_t(two, three);
    BOOST_TEST(w.p == 0.0);
    BOOST_TEST(w.t > 0.0);
    const std::vector<double> one{1.0}, nan{1.0, std::nan("")};
    BOOST_TEST(compare_test::throws_saying([&] { comet::welch_t(one, two); }, "welch_t: the first set has 1 value, fewer than 2"));
    BOOST_TEST(compare_test::throws_saying([&] { comet::welch_t(two, nan); }, "welch_t: sample 1 is NaN"));
}

BOOST_AUTO_TEST_CASE(round_medians_split_the_samples) {
    comet::record r = compare_test::echo(8, {1, 5, 3, 10, 20});
    BOOST_TEST(comet::round_medians(r) == std::vector<double>{5.0});  // one round: the median of all samples
    r.rounds = {{3, 1}, {2, 1}};
    BOOST_TEST(comet::round_medians(r) == (std::vector<double>{3.0, 15.0}));
    r.rounds = {{3, 1}, {3, 1}};
    BOOST_TEST(compare_test::throws_saying([&] { comet::round_medians(r); }, "round_medians: echo: the rounds hold 6 samples, the record 5"));
}

BOOST_AUTO_TEST_CASE(a_state_that_moves_the_rounds_is_not_a_change) {
    // Each run's rounds sit at levels up to 15% apart (the machine's state of each round's
    // stretch), every round's samples within ±1.4%. B's levels are another draw: its pooled
    // median is 15% above A's, and the U test of the pooled samples finds that certain. On the
    // rounds: means 1.01 and 1.14, each with s² = 0.037/4 = 0.00925, s²/n = 0.00185;
    // t = 0.13/√0.0037 = 2.137 with ν = 8, p = 0.065: what the rounds vary by explains it.
    const comet::result_set a{{compare_test::in_rounds(8, {1.00e-6, 1.15e-6, 0.90e-6, 1.05e-6, 0.95e-6})}};
    const comet::result_set b{{compare_test::in_rounds(8, {1.20e-6, 1.00e-6, 1.25e-6, 1.10e-6, 1.15e-6})}};
    const comet::run_comparison c = comet::compare_runs(a, b);
    BOOST_TEST_REQUIRE(c.points.size() == 1u);
    const auto& p = c.points[0];
    BOOST_TEST((p.unit == comet::compare_unit::rounds));
    BOOST_TEST(p.rounds_a == 5u);
    BOOST_TEST(p.rounds_b == 5u);
    BOOST_TEST(*p.change > c.options.threshold);  // the medians moved by more than the threshold ...
    BOOST_TEST(p.test.p < c.options.alpha);       // ... and the samples' U test calls it certain ...
    BOOST_TEST_REQUIRE(p.round_test.has_value());
    BOOST_TEST(p.round_test->dof == 8.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(p.round_test->t == 0.13 / std::sqrt(0.0037), boost::test_tools::tolerance(1e-9));
    BOOST_TEST(p.p == p.round_test->p);
    BOOST_TEST(!p.significant);  // ... but the rounds vary as much: no verdict either way
    BOOST_TEST((p.verdict == comet::change_verdict::unresolved));
    BOOST_TEST(!c.regressed());
    BOOST_TEST(c.tested_on(comet::compare_unit::rounds) == 1u);
}

BOOST_AUTO_TEST_CASE(a_change_every_round_shows_is_flagged_point_by_point) {
    // A transport 20% slower everywhere: every point of the kernel, every round, ×1.2, the
    // rounds 3% apart. Each point is slower on its own, and the kernel's line says all moved.
    const std::vector<double> levels{1.00e-6, 1.03e-6, 0.98e-6, 1.02e-6, 0.97e-6};
    comet::result_set a, b;
    for (std::int64_t size : {0, 8, 64, 512}) {
        a.records.push_back(compare_test::in_rounds(size, levels));
        b.records.push_back(compare_test::in_rounds(size, compare_test::scaled(levels, 1.2)));
    }
    const comet::run_comparison c = comet::compare_runs(a, b);
    BOOST_TEST(c.count(comet::change_verdict::slower) == 4u);
    for (const auto& p : c.points) {
        BOOST_TEST((p.unit == comet::compare_unit::rounds));
        BOOST_TEST(p.p < c.options.alpha);
        BOOST_TEST(p.round_test->t > 0.0);
    }
    BOOST_TEST(c.regressed());
    const auto k = comet::by_kernel(c);
    BOOST_TEST_REQUIRE(k.size() == 1u);
    BOOST_TEST(k[0].kernel == "echo");
    BOOST_TEST(k[0].points == 4u);
    BOOST_TEST(k[0].slower == 4u);
    BOOST_TEST(k[0].up == 4u);
    BOOST_TEST(*k[0].median_change == 0.2, boost::test_tools::tolerance(1e-9));
    // The same runs the other way round: faster, no regression.
    const comet::run_comparison back = comet::compare_runs(b, a);
    BOOST_TEST(back.count(comet::change_verdict::faster) == 4u);
    BOOST_TEST(!back.regressed());
}

BOOST_AUTO_TEST_CASE(enough_rounds_are_ranked_so_a_jumping_round_hides_nothing) {
    // 1 µs more per message on a 6 µs echo, 16 rounds a side, 3 of each side's rounds caught
    // in the other state of the machine (0.2 µs, and 1.2 µs with the delay). Welch's t sees
    // the spread of the jumping rounds and calls the +18% unsure; ranked, the 13 steady rounds
    // of B stand above the 13 of A, and only A's 13 against B's 3 jumping ones are out of
    // order: U_a = 39 of 256, z = (128 − 39 − ½)/√(16·16·33/12) = 3.34, p = 0.0008.
    std::vector<double> plain(13, 6.0e-6), held(13, 7.1e-6);
    for (std::size_t i = 0; i < plain.size(); ++i) plain[i] += 0.01e-6 * static_cast<double>(i), held[i] += 0.01e-6 * static_cast<double>(i);
    plain.insert(plain.end(), {0.20e-6, 0.21e-6, 0.22e-6});
    held.insert(held.end(), {1.20e-6, 1.21e-6, 1.22e-6});
    const comet::result_set a{{compare_test::in_rounds(8, plain)}}, b{{compare_test::in_rounds(8, held)}};
    BOOST_TEST(comet::u_test_resolves(16, 16, 0.01));
    const std::vector<double> ma = comet::round_medians(a.records[0]), mb = comet::round_medians(b.records[0]);
    BOOST_TEST(comet::welch_t(ma, mb).p > 0.01);  // what Welch's t would say
    const comet::run_comparison c = comet::compare_runs(a, b);
    const auto& p = c.points[0];
    BOOST_TEST((p.unit == comet::compare_unit::rounds));
    BOOST_TEST_REQUIRE(p.round_u.has_value());
    BOOST_TEST(!p.round_test.has_value());
    BOOST_TEST(p.p == p.round_u->p);
    BOOST_TEST(p.round_u->u == 39.0);
    BOOST_TEST(p.p < c.options.alpha);
    BOOST_TEST((p.verdict == comet::change_verdict::slower));
    // The U test's resolution: 5 a side reach 0.01 by a complete separation only (Welch's t
    // then), 7 a side reach a tenth of it.
    BOOST_TEST(!comet::u_test_resolves(5, 5, 0.01));
    BOOST_TEST(comet::u_test_resolves(7, 7, 0.01));
    BOOST_TEST(!comet::u_test_resolves(6, 6, 0.01));
}

BOOST_AUTO_TEST_CASE(one_round_on_a_side_falls_back_to_the_samples) {
    // A run measured in one stretch has no spread of rounds to test against: the point is
    // tested on the samples, and says so.
    using compare_test::around;
    const comet::result_set a{{compare_test::in_rounds(8, {1e-6, 1.01e-6, 0.99e-6})}};
    const comet::result_set b{{compare_test::echo(8, compare_test::scaled(around(1e-6), 1.5))}};
    const comet::run_comparison c = comet::compare_runs(a, b);
    const auto& p = c.points[0];
    BOOST_TEST((p.unit == comet::compare_unit::samples));
    BOOST_TEST(p.rounds_a == 3u);
    BOOST_TEST(p.rounds_b == 1u);
    BOOST_TEST(!p.round_test.has_value());
    BOOST_TEST(p.p == p.test.p);
    BOOST_TEST((p.verdict == comet::change_verdict::slower));
    BOOST_TEST(c.tested_on(comet::compare_unit::samples) == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
