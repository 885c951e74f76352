// Tests of comet/ops/: the dispatch (the transport's own member when it has one, the portable
// algorithm otherwise, and which one ran), and the whole conformance suite on a transport that
// has only the eight core members, so every operation beyond the core is comet's portable one.
#include <comet/ops/ops.hpp>
#include <comet/testing/conformance.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include <array>

#include "../support/minimal_transport.hpp"

namespace ops_test {

using comet::ops::implementation;
using comet_test::minimal_transport;
using threads_t = comet::threads::transport;

}  // namespace ops_test

COMET_TRANSPORT_CONFORMANCE(minimal_transport_conforms, comet_test::minimal_runner{})

BOOST_AUTO_TEST_SUITE(ops)

using namespace ops_test;

BOOST_AUTO_TEST_CASE(the_threads_transport_runs_its_own_operations) {
    static_assert(comet::ops::send.implementation_for<threads_t>() == implementation::native);
    static_assert(comet::ops::recv.implementation_for<threads_t>() == implementation::native);
    static_assert(comet::ops::wait.implementation_for<threads_t>() == implementation::native);
    static_assert(comet::ops::barrier.implementation_for<threads_t>() == implementation::native);
    static_assert(comet::ops::broadcast.implementation_for<threads_t>() == implementation::native);
    static_assert(comet::ops::allreduce_sum.implementation_for<threads_t>() == implementation::native);
    static_assert(comet::ops::compute.implementation_for<threads_t>() == implementation::native);
    // The threads transport has no max, min or gather of its own.
    static_assert(comet::ops::allreduce_max.implementation_for<threads_t>() == implementation::portable);
    static_assert(comet::ops::gather.implementation_for<threads_t>() == implementation::portable);
    // Boost.Test is not thread-safe: rank 0 records, the test thread checks.
    std::array<implementation, 3> used{};
    double sum = 0;
    comet::threads::run(2, [&](threads_t& t) {
        const auto barrier = comet::ops::barrier(t);
        std::vector<double> v{1.0};
        const auto allreduce = comet::ops::allreduce_sum(t, v);
        const double s = v[0];
        const auto max = comet::ops::allreduce_max(t, v);
        if (t.rank() == 0) used = {barrier, allreduce, max}, sum = s;
    });
    BOOST_TEST((used[0] == implementation::native));
    BOOST_TEST((used[1] == implementation::native));
    BOOST_TEST(sum == 2.0);
    BOOST_TEST((used[2] == implementation::portable));
}

BOOST_AUTO_TEST_CASE(a_core_only_transport_runs_every_operation_portably) {
    static_assert(comet::ops::send.implementation_for<minimal_transport>() == implementation::portable);
    static_assert(comet::ops::wait_all.implementation_for<minimal_transport>() == implementation::portable);
    static_assert(comet::ops::abort.implementation_for<minimal_transport>() == implementation::portable);
    static_assert(comet::ops::clock_is_global.implementation_for<minimal_transport>() == implementation::portable);
    std::array<implementation, 2> used{};
    std::array<std::byte, 3> received{};
    bool global = true;
    comet_test::minimal_runner{}(3, [&](minimal_transport& t) {
        const auto barrier = comet::ops::barrier(t);
        std::vector<std::byte> b(4, std::byte{t.rank() == 2 ? std::byte{7} : std::byte{0}});
        const auto broadcast = comet::ops::broadcast(t, 2, b);
        received[t.rank()] = b[3];
        if (t.rank() == 0) used = {barrier, broadcast}, global = comet::ops::clock_is_global(t);
    });
    BOOST_TEST((used[0] == implementation::portable));
    BOOST_TEST((used[1] == implementation::portable));
    for (auto r : received) BOOST_TEST((r == std::byte{7}));
    // Nothing says two ranks' clocks agree.
    BOOST_TEST(!global);
}

BOOST_AUTO_TEST_CASE(portable_abort_names_the_rank_and_stops_the_others) {
    BOOST_CHECK_EXCEPTION(comet_test::minimal_runner{}(3,
                                                       [](minimal_transport& t) {
                                                           if (t.rank() == 2) comet::ops::abort(t, "out of cheese");
                                                           comet::ops::barrier(t);
                                                       }),
                          comet::aborted, [](const comet::aborted& e) {
                              return std::string(e.what()) == "rank 2: out of cheese";
                          });
}

BOOST_AUTO_TEST_SUITE_END()
