// Tests of comet/report/thesis.hpp: the figures, a comparison of a report with them, a flagged
// fit shown as flagged rather than as a measurement, and the shape table. (The verdicts
// themselves: test/analysis/test_thesis.cpp.)
#include <comet/report/thesis.hpp>

#include <boost/test/unit_test.hpp>

#include <sstream>

BOOST_AUTO_TEST_SUITE(thesis)

BOOST_AUTO_TEST_CASE(figures_are_the_thesis_numbers) {
    const auto& f = comet::thesis_figures();
    BOOST_REQUIRE(f.size() >= 8u);
    BOOST_TEST(f[0].key == "echo.small.t_startup");
    BOOST_TEST(f[0].value == 79e-6);
    for (const auto& x : f) BOOST_TEST(!x.where.empty());
}

BOOST_AUTO_TEST_CASE(comparison_reads_fits_and_bandwidth) {
    comet::report r;
    r.fits.push_back({"echo", "small", 80e-6, 0.6e-6, std::nullopt, 1e-6, 9, 100.0});
    r.fits.push_back({"echo", "large", 150e-6, 0.4e-6, 24e-6, 1e-6, 20, 100.0});
    r.fits.push_back({"pairwise", "large", 1.0, 1.0, std::nullopt, 0.0, 20, 100.0});  // not echo: ignored
    r.bandwidth.push_back({"echo", 2, 9e6, 1, 1});                                  // not 1 hop: ignored
    r.bandwidth.push_back({"echo", 1, 2.4e6, 500, 5100});
    const auto rows = comet::compare_with_thesis(r);
    const auto value = [&](std::string_view key) {
        for (const auto& row : rows)
            if (row.figure->key == key) return row.measured;
        return std::optional<double>();
    };
    BOOST_TEST(*value("echo.small.t_startup") == 80e-6);
    BOOST_TEST(*value("echo.large.hop") == 24e-6);
    BOOST_TEST(*value("echo.peak") == 2.4e6);
    BOOST_TEST(*value("echo.n_90") == 5100);

    std::ostringstream os;
    comet::write_thesis_comparison(os, rows);
    BOOST_TEST(os.str().find("echo start-up, <= 100 B") != std::string::npos);
    BOOST_TEST(os.str().find("79.00       80.00    1.01") != std::string::npos);

    comet::report empty;
    for (const auto& row : comet::compare_with_thesis(empty)) BOOST_TEST(!row.measured.has_value());
}

BOOST_AUTO_TEST_CASE(a_flagged_fit_gives_no_figure) {
    comet::report r;
    r.fits.push_back({"echo", "small", 80e-6, 0.6e-6, std::nullopt, 1e-6, 9, 100.0});
    comet::transfer_fit large{"echo", "large", 150e-6, 0.4e-6, -24e-6, 1e-6, 20, 100.0};
    large.flags = {"negative_hop"};
    r.fits.push_back(large);
    const auto rows = comet::compare_with_thesis(r);
    for (const auto& row : rows) {
        const std::string_view key = row.figure->key;
        BOOST_TEST_CONTEXT(key) {
            if (key.substr(0, 11) == "echo.large.") {
                BOOST_TEST(!row.measured.has_value());
                BOOST_TEST(row.flags == std::vector<std::string>{"negative_hop"});
            } else if (key.substr(0, 11) == "echo.small.") {
                BOOST_TEST(row.measured.has_value());
                BOOST_TEST(row.flags.empty());
            }
        }
    }
    std::ostringstream os;
    comet::write_thesis_comparison(os, rows);
    BOOST_TEST(os.str().find("echo per extra hop, > 100 B              25.00     flagged       -  us  (flagged: negative hop)") !=
               std::string::npos);
    BOOST_TEST(os.str().find("-24") == std::string::npos);
}

// The shape table from a hand-made report: a verdict of each kind, yes, NO and - (not judged).
BOOST_AUTO_TEST_CASE(shape_table_says_yes_no_and_not_judged) {
    comet::report r;
    comet::growth_comparison linear;
    linear.kernel = "update_guard";
    linear.model = comet::growth_model::linear;
    r.growth.push_back(linear);
    comet::growth_comparison also_linear = linear;
    also_linear.kernel = "transpose";
    r.growth.push_back(also_linear);
    const auto verdicts = comet::compare_shapes_with_thesis(r);
    BOOST_TEST(verdicts.size() == comet::thesis_shapes().size());
    std::ostringstream os;
    comet::write_shape_comparison(os, verdicts);
    const std::string table = os.str();
    const auto verdict_of = [&](std::string_view claim) {
        const auto at = table.find(claim);
        BOOST_REQUIRE(at != std::string::npos);
        const auto word = table.find_first_not_of(' ', at + claim.size());
        return table.substr(word, table.find(' ', word) - word);
    };
    BOOST_TEST(verdict_of("update_guard time is linear in the matrix dimension") == "yes");
    BOOST_TEST(verdict_of("transpose time is quadratic in the matrix dimension") == "NO");
    BOOST_TEST(verdict_of("barrier time grows about logarithmically with P") == "-");
    // A NO says where to read why; a table without one does not.
    BOOST_TEST(table.find("docs/nx2-model.md (section 6)") != std::string::npos);
    r.growth.pop_back();
    std::ostringstream all_yes;
    comet::write_shape_comparison(all_yes, comet::compare_shapes_with_thesis(r));
    BOOST_TEST(all_yes.str().find("docs/nx2-model.md") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
