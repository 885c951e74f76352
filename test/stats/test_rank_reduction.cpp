// Tests of comet/stats/rank_reduction.hpp: one measurement of four ranks reduced every way, by
// hand; odd and even group sizes for the median; one rank.
#include <comet/stats/rank_reduction.hpp>

#include <boost/test/unit_test.hpp>

#include <array>
#include <set>
#include <string_view>

BOOST_AUTO_TEST_SUITE(rank_reduction)

BOOST_AUTO_TEST_CASE(four_ranks_every_reduction_by_hand) {
    // Durations 3, 1, 6, 2 (rank 2 the slowest); the first start is rank 1's (9), the last end
    // rank 2's (17).
    const std::array<double, 4> start{10.0, 9.0, 11.0, 12.0};
    const std::array<double, 4> end{13.0, 10.0, 17.0, 14.0};
    const comet::rank_times m{start, end};
    using comet::rank_reduction;
    BOOST_TEST(comet::reduce_ranks(m, rank_reduction::designated) == 3.0);
    BOOST_TEST(comet::reduce_ranks(m, rank_reduction::designated, 2) == 6.0);
    BOOST_TEST(comet::reduce_ranks(m, rank_reduction::max) == 6.0);
    BOOST_TEST(comet::reduce_ranks(m, rank_reduction::min) == 1.0);
    BOOST_TEST(comet::reduce_ranks(m, rank_reduction::mean) == 3.0);
    BOOST_TEST(comet::reduce_ranks(m, rank_reduction::median) == 2.5);  // (2 + 3) / 2
    BOOST_TEST(comet::reduce_ranks(m, rank_reduction::span) == 8.0);    // 17 − 9
}

BOOST_AUTO_TEST_CASE(odd_groups_take_the_middle_rank_and_one_rank_is_every_reduction) {
    const std::array<double, 3> start{0.0, 0.0, 0.0}, end{5.0, 1.0, 4.0};
    BOOST_TEST(comet::reduce_ranks({start, end}, comet::rank_reduction::median) == 4.0);
    const std::array<double, 1> s1{2.0}, e1{2.5};
    for (auto r : comet::all_rank_reductions) BOOST_TEST(comet::reduce_ranks({s1, e1}, r) == 0.5, comet::to_string(r));
}

BOOST_AUTO_TEST_CASE(every_reduction_has_its_own_name) {
    std::set<std::string_view> names;
    for (auto r : comet::all_rank_reductions) names.insert(comet::to_string(r));
    BOOST_TEST(names.size() == comet::all_rank_reductions.size());
    BOOST_TEST(names.count("first_start_to_last_finish") == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
