// Tests of comet/core/types.hpp: byte views of user data, status equality, the limits.
#include <comet/core/types.hpp>

#include <boost/test/unit_test.hpp>

#include <array>
#include <vector>

BOOST_AUTO_TEST_SUITE(types)

BOOST_AUTO_TEST_CASE(bytes_of_views_the_whole_range) {
    const std::vector<double> v{1.0, 2.0, 3.0};
    const comet::const_bytes b = comet::bytes_of(v);
    BOOST_TEST(b.size() == 3 * sizeof(double));
    BOOST_TEST(static_cast<const void*>(b.data()) == static_cast<const void*>(v.data()));

    std::array<int, 4> a{};
    comet::mutable_bytes w = comet::writable_bytes_of(a);
    BOOST_TEST(w.size() == 16u);
    w[4] = std::byte{1};  // writes through to a[1]
    BOOST_TEST(a[1] != 0);
}

BOOST_AUTO_TEST_CASE(status_compares_every_field) {
    const comet::status s{2, 7, 100};
    BOOST_TEST((s == comet::status{2, 7, 100}));
    BOOST_TEST(!(s == comet::status{2, 7, 99}));
    BOOST_TEST((comet::status{} == comet::status{comet::any_source, comet::any_tag, 0}));
}

BOOST_AUTO_TEST_CASE(limits_are_mpis) {
    static_assert(comet::max_tag == 32767);
    static_assert(comet::max_message_size == 2147483647u);
    static_assert(comet::any_source < 0 && comet::any_tag < 0);
}

BOOST_AUTO_TEST_SUITE_END()
