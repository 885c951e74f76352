// Tests of comet/core/errors.hpp: one-line messages that name the rank and the value.
#include <comet/core/errors.hpp>

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(errors)

BOOST_AUTO_TEST_CASE(raise_prefixes_the_rank) {
    BOOST_CHECK_EXCEPTION(comet::raise<comet::invalid_argument>(3, "echo: hop distance ", 5, " needs ", 32, " nodes"),
                          comet::invalid_argument,
                          [](const auto& e) { return std::string(e.what()) == "rank 3: echo: hop distance 5 needs 32 nodes"; });
    BOOST_CHECK_EXCEPTION(comet::raise<comet::deadlock_error>(-1, "no rank"), comet::deadlock_error,
                          [](const auto& e) { return std::string(e.what()) == "no rank"; });
}

BOOST_AUTO_TEST_CASE(every_error_is_a_comet_error) {
    const auto is_comet_error = [](auto&& thrower) {
        try {
            thrower();
        } catch (const comet::error&) {
            return true;
        } catch (...) {
        }
        return false;
    };
    BOOST_TEST(is_comet_error([] { comet::raise<comet::invalid_argument>(0, "x"); }));
    BOOST_TEST(is_comet_error([] { comet::raise<comet::deadlock_error>(0, "x"); }));
    BOOST_TEST(is_comet_error([] { comet::raise<comet::truncation_error>(0, "x"); }));
    BOOST_TEST(is_comet_error([] { comet::raise<comet::not_supported>(0, "x"); }));
    BOOST_TEST(is_comet_error([] { comet::raise<comet::aborted>(0, "x"); }));
    BOOST_TEST(is_comet_error([] { comet::raise<comet::stopped>(0, "x"); }));
}

BOOST_AUTO_TEST_SUITE_END()
