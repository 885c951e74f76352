// Tests of comet/report/files.hpp: a report's file is written whole or not at all.
#include <comet/report/files.hpp>

#include "../support/scratch.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <iterator>
#include <stdexcept>
#include <string>

BOOST_AUTO_TEST_SUITE(files)

BOOST_AUTO_TEST_CASE(a_file_is_replaced_whole_or_left_as_it_was) {
    const auto dir = comet_test::fresh_folder("files-atomic");
    const auto file = dir / "results.json";
    comet::write_file_atomically(file, [](std::ostream& os) { os << "first"; });
    BOOST_TEST(comet_test::contents(file) == "first");
    // A writer that fails half-way (an exception, as an interrupted report would) leaves the
    // previous file as it was, and nothing else in the folder.
    BOOST_CHECK_THROW(comet::write_file_atomically(file,
                                                   [](std::ostream& os) {
                                                       os << "half of the sec";
                                                       throw std::runtime_error("stopped");
                                                   }),
                      std::runtime_error);
    BOOST_TEST(comet_test::contents(file) == "first");
    comet::write_file_atomically(file, [](std::ostream& os) { os << "second"; });
    BOOST_TEST(comet_test::contents(file) == "second");
    BOOST_TEST(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(a_file_that_cannot_be_written_is_named) {
    const auto dir = comet_test::fresh_folder("files-unwritable");
    const auto file = dir / "no-such-folder" / "results.json";
    BOOST_CHECK_EXCEPTION(comet::write_file_atomically(file, [](std::ostream& os) { os << "x"; }), comet::error,
                          [](const comet::error& e) { return std::string(e.what()).find("no-such-folder") != std::string::npos; });
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
