// Tests of comet/suite/output.hpp: report files are written whole or not at all, and the
// summary of a run that stopped early says so first.
#include <comet/suite/output.hpp>

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace output_test {

std::string contents(const std::filesystem::path& p) {
    std::ifstream f(p);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

/// A fresh folder of its own under the system's temporary folder.
std::filesystem::path fresh_folder(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("comet-test-output-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace output_test

BOOST_AUTO_TEST_SUITE(output)

BOOST_AUTO_TEST_CASE(a_file_is_replaced_whole_or_left_as_it_was) {
    const auto dir = output_test::fresh_folder("atomic");
    const auto file = dir / "results.json";
    comet::write_file_atomically(file, [](std::ostream& os) { os << "first"; });
    BOOST_TEST(output_test::contents(file) == "first");
    // A writer that fails half-way (an exception, as an interrupted report would) leaves the
    // previous file as it was, and nothing else in the folder.
    BOOST_CHECK_THROW(comet::write_file_atomically(file,
                                                   [](std::ostream& os) {
                                                       os << "half of the sec";
                                                       throw std::runtime_error("stopped");
                                                   }),
                      std::runtime_error);
    BOOST_TEST(output_test::contents(file) == "first");
    comet::write_file_atomically(file, [](std::ostream& os) { os << "second"; });
    BOOST_TEST(output_test::contents(file) == "second");
    BOOST_TEST(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(a_file_that_cannot_be_written_is_named) {
    const auto dir = output_test::fresh_folder("unwritable");
    const auto file = dir / "no-such-folder" / "results.json";
    BOOST_CHECK_EXCEPTION(comet::write_file_atomically(file, [](std::ostream& os) { os << "x"; }), comet::error,
                          [](const comet::error& e) { return std::string(e.what()).find("no-such-folder") != std::string::npos; });
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
