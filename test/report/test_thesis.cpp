// Tests of comet/report/thesis.hpp: the figures, and a comparison of a report with them.
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

BOOST_AUTO_TEST_SUITE_END()
