// Tests of comet/suite/output.hpp: the report folder holds every output, derived tables as
// their own files; the summary of a run that stopped early says so first.
#include <comet/suite/output.hpp>
#include <comet/stats/derived_table.hpp>

#include "../support/scratch.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

BOOST_AUTO_TEST_SUITE(output)

BOOST_AUTO_TEST_CASE(the_folder_holds_every_output_and_refuses_two_tables_of_one_name) {
    const auto dir = comet_test::fresh_folder("output-folder");
    comet::report r;
    comet::derived_table t{.name = "gains", .title = "gains", .columns = {"nodes", "gain"}};
    t.add({std::int64_t{2}, 0.5});
    r.tables = {t};
    const comet::suite_files out = comet::write_suite_report(dir, r, "the summary\n", {});
    // results.json first (the program names it), then the CSV files, then summary.txt.
    BOOST_TEST(out.files.front() == dir / "results.json");
    for (const char* f : {"results.json", "results.csv", "fits.csv", "bandwidth.csv", "tables/gains.csv", "summary.txt"})
        BOOST_TEST(std::filesystem::exists(dir / f), f);
    BOOST_TEST(comet_test::contents(dir / "tables/gains.csv") == "nodes,gain,flags\n2,0.5,\n");
    BOOST_TEST(comet_test::contents(dir / "summary.txt") == "the summary\n");
    r.tables = {t, t};
    BOOST_CHECK_EXCEPTION(comet::write_suite_report(dir, r, "", {}), comet::invalid_argument, [](const comet::invalid_argument& e) {
        return std::string(e.what()).find("derived table 'gains': another table has that name") != std::string::npos;
    });
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(the_summary_of_a_stopped_run_says_where_first) {
    comet::report r;
    r.stopped = comet::stop_note{.kernel = "echo", .last_point = "echo/size:8/hops:1/nodes:2", .reason = "interrupted (SIGTERM)"};
    const std::string summary = comet::suite_summary(r);
    BOOST_TEST(summary.rfind("stopped in echo after echo/size:8/hops:1/nodes:2: interrupted (SIGTERM)\n", 0) == 0);
    BOOST_TEST(comet::suite_summary(comet::report{}).find("stopped") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
