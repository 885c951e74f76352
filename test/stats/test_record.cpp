// Tests of comet/stats/record.hpp: params keep their order and replace by name, the typed
// accessors answer only for the right alternative, result_set selects and appends records.
#include <comet/stats/record.hpp>

#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(record)

BOOST_AUTO_TEST_CASE(params_keep_insertion_order_and_replace_in_place) {
    comet::params p{{"size", std::int64_t{8}}, {"hops", std::int64_t{1}}, {"mode", std::string("sync")}};
    p.set("load", 0.5);
    p.set("size", 16);  // replaces, keeps position 0

    std::vector<std::string> names;
    for (const auto& [name, value] : p) names.push_back(name);
    BOOST_TEST(names == (std::vector<std::string>{"size", "hops", "mode", "load"}), boost::test_tools::per_element());
    BOOST_TEST(p.size() == 4u);
    BOOST_TEST(*p.integer("size") == 16);
}

BOOST_AUTO_TEST_CASE(typed_accessors_answer_only_for_their_alternative) {
    comet::params p;
    p.set("size", std::size_t{4096}).set("load", 0.9).set("protocol", "(0,3)");

    BOOST_TEST(p.integer("size").value() == 4096);
    BOOST_TEST(p.number("size").value() == 4096.0);
    BOOST_TEST(!p.text("size"));

    BOOST_TEST(!p.integer("load"));  // a real is not an integer, even when whole
    BOOST_TEST(p.number("load").value() == 0.9);

    BOOST_TEST(p.text("protocol").value() == "(0,3)");
    BOOST_TEST(!p.number("protocol"));

    BOOST_TEST(!p.contains("hops"));
    BOOST_TEST(p.find("hops") == nullptr);
    BOOST_TEST(!p.integer("hops"));
}

BOOST_AUTO_TEST_CASE(params_compare_by_order_and_value) {
    const comet::params a{{"size", std::int64_t{8}}, {"hops", std::int64_t{1}}};
    const comet::params b{{"hops", std::int64_t{1}}, {"size", std::int64_t{8}}};
    BOOST_TEST((a == a));
    BOOST_TEST(!(a == b));  // order is part of a record: reporters write params in it
    BOOST_TEST(comet::params{}.empty());
}

BOOST_AUTO_TEST_CASE(result_set_selects_kernel_records_in_order_and_appends) {
    comet::result_set rs;
    rs.records.push_back({"echo", {{"size", std::int64_t{0}}}, {1e-6}});
    rs.records.push_back({"barrier", {{"nodes", std::int64_t{4}}}, {2e-6}});
    rs.records.push_back({"echo", {{"size", std::int64_t{8}}}, {3e-6, 4e-6}});

    const auto echo = rs.of("echo");
    BOOST_TEST_REQUIRE(echo.size() == 2u);
    BOOST_TEST(echo[0] == &rs.records[0]);
    BOOST_TEST(echo[1] == &rs.records[2]);
    BOOST_TEST(rs.of("transpose").empty());

    comet::result_set more;
    more.records.push_back({"echo", {{"size", std::int64_t{16}}}, {}});
    rs.append(more);
    BOOST_TEST(rs.size() == 4u);
    BOOST_TEST(rs.records.back().kernel == "echo");
    BOOST_TEST(!rs.empty());
    BOOST_TEST(comet::result_set{}.empty());
}

BOOST_AUTO_TEST_SUITE_END()
