// Tests of comet/ops/describe.hpp: describe_capabilities names what a transport type offers
// beyond the core — its optional capabilities, then each operation it implements itself — and
// nothing it does not.
#include <comet/ops/describe.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace describe_test {

/// A transport with the eight-member core only (declared: describe_capabilities looks, never calls).
struct core_only {
    using request = int;
    int rank() const;
    int size() const;
    request isend(int, int, comet::const_bytes);
    request irecv(int, int, comet::mutable_bytes);
    std::optional<comet::status> test(request&);
    std::optional<comet::status> iprobe(int, int);
    double now();
};

/// The core plus a buffered send and its own barrier.
struct core_bsend_barrier : core_only {
    void bsend(int, int, comet::const_bytes);
    void barrier();
};

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace describe_test

BOOST_AUTO_TEST_SUITE(describe)

using describe_test::has;

BOOST_AUTO_TEST_CASE(describe_capabilities_names_what_the_type_offers) {
    BOOST_TEST(comet::describe_capabilities<describe_test::core_only>().empty());  // everything portable
    BOOST_TEST(comet::describe_capabilities<describe_test::core_bsend_barrier>() ==
                   std::vector<std::string>({"bsend", "native barrier"}),
               boost::test_tools::per_element());
    const auto threads = comet::describe_capabilities<comet::threads::transport>();
    for (const char* expected : {"ssend", "bsend", "sendrecv", "progress", "native barrier", "native allreduce_sum",
                                 "native compute", "native clock_is_global"})
        BOOST_TEST(has(threads, expected), expected);
}

BOOST_AUTO_TEST_SUITE_END()
