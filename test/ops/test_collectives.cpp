// Tests of comet/ops/: the dispatch (the transport's own member when it has one, the portable
// algorithm otherwise, and which one ran), and the whole conformance suite on a transport that
// has only the eight core members, so every operation beyond the core is comet's portable one.
// The reductions to a root, gather and alltoall run at group sizes 1, 2, 3, 4, 5, 7 and 8 and
// every root, portable on the threads transport and native on a test transport whose own
// versions are built differently (gathers onto each root), and both give the same results.
#include <comet/ops/ops.hpp>
#include <comet/testing/conformance.hpp>
#include <comet/transport/adaptor.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../support/minimal_transport.hpp"

namespace ops_test {

using comet::ops::implementation;
using comet_test::minimal_transport;
using threads_t = comet::threads::transport;

/// The threads transport plus a native `reduce_sum` and `alltoall` of its own, made of gathers
/// (reduce_sum: the root adds the gathered vectors in rank order; alltoall: one gather onto
/// every rank) — other algorithms than comet's portable ones, so a result both agree on is
/// not an artefact of one of them. `calls` counts how often they ran.
class native_extras : public comet::transport_adaptor<threads_t> {
public:
    using transport_adaptor::transport_adaptor;

    void reduce_sum(int root, std::span<double> values) {
        ++calls;
        const std::size_t n = values.size();
        std::vector<double> all(rank() == root ? n * static_cast<std::size_t>(size()) : 0);
        comet::algorithms::gather(*this, root, std::as_bytes(values), comet::writable_bytes_of(all));
        if (rank() != root) return;
        for (std::size_t i = 0; i < n; ++i) {
            double s = 0;
            for (int r = 0; r < size(); ++r) s += all[static_cast<std::size_t>(r) * n + i];
            values[i] = s;
        }
    }
    void alltoall(comet::const_bytes out, comet::mutable_bytes in) {
        ++calls;
        const std::size_t n = out.size() / static_cast<std::size_t>(size());
        for (int to = 0; to < size(); ++to)
            comet::algorithms::gather(*this, to, out.subspan(static_cast<std::size_t>(to) * n, n),
                                      rank() == to ? in : comet::mutable_bytes{});
    }
    int calls = 0;
};

constexpr int group_sizes[] = {1, 2, 3, 4, 5, 7, 8};

/// Byte j of the block rank `from` sends rank `to`: differs between every two blocks.
std::byte block_byte(int from, int to, std::size_t j) {
    return static_cast<std::byte>((static_cast<std::size_t>(from) * 29 + static_cast<std::size_t>(to) * 11 + j * 5 + 3) & 0xff);
}

template <class T, class... Parts>
void require(const T& t, bool ok, const Parts&... parts) {
    if (!ok) comet::raise<std::logic_error>(t.rank(), parts...);
}

/// Every root: the three reductions through ops on `t` (exact values, the extremes on a
/// different rank per element), gather, and alltoall; reduce_sum and alltoall must report
/// `expected`, the others what their implementation_for says.
template <class T>
void reductions_gather_alltoall(T& t, implementation expected) {
    const int p = t.size(), me = t.rank();
    for (int root = 0; root < p; ++root) {
        std::vector<double> sum(9), hi(9), lo(9);
        for (std::size_t i = 0; i < sum.size(); ++i) {
            sum[i] = me * 100.0 + static_cast<double>(i) - 0.5;
            hi[i] = lo[i] = static_cast<double>((me + root + static_cast<int>(i)) % p);
        }
        const std::vector<double> sum0 = sum;
        require(t, comet::ops::reduce_sum(t, root, sum) == expected, "reduce_sum: the wrong implementation ran");
        require(t, comet::ops::reduce_max(t, root, hi) == comet::ops::reduce_max.implementation_for<T>(),
                "reduce_max: the wrong implementation was reported");
        require(t, comet::ops::reduce_min(t, root, lo) == comet::ops::reduce_min.implementation_for<T>(),
                "reduce_min: the wrong implementation was reported");
        if (me == root)
            for (std::size_t i = 0; i < sum.size(); ++i) {
                require(t, sum[i] == 100.0 * p * (p - 1) / 2 + p * (static_cast<double>(i) - 0.5), "reduce_sum to ", root,
                        ": element ", i, " is ", sum[i]);
                require(t, hi[i] == p - 1, "reduce_max to ", root, ": element ", i, " is ", hi[i]);
                require(t, lo[i] == 0, "reduce_min to ", root, ": element ", i, " is ", lo[i]);
            }
        else
            require(t, sum == sum0, "reduce_sum to ", root, " changed this rank's values");

        const std::vector<int> mine{me, root, me * root};
        std::vector<int> all(me == root ? 3 * static_cast<std::size_t>(p) : 0);
        require(t, comet::ops::gather(t, root, comet::bytes_of(mine), comet::writable_bytes_of(all)) ==
                       comet::ops::gather.implementation_for<T>(),
                "gather: the wrong implementation was reported");
        if (me == root)
            for (int r = 0; r < p; ++r) {
                const auto at = 3 * static_cast<std::size_t>(r);
                require(t, all[at] == r && all[at + 1] == root && all[at + 2] == r * root, "gather to ", root, ": rank ", r,
                        "'s block is wrong");
            }
    }
    for (std::size_t block : {std::size_t{0}, std::size_t{3}, std::size_t{2500}}) {
        std::vector<std::byte> out(block * static_cast<std::size_t>(p)), in(out.size());
        for (int to = 0; to < p; ++to)
            for (std::size_t j = 0; j < block; ++j) out[static_cast<std::size_t>(to) * block + j] = block_byte(me, to, j);
        require(t, comet::ops::alltoall(t, out, in) == expected, "alltoall: the wrong implementation ran");
        for (int from = 0; from < p; ++from)
            for (std::size_t j = 0; j < block; ++j)
                require(t, in[static_cast<std::size_t>(from) * block + j] == block_byte(from, me, j), "alltoall of ", block,
                        "-byte blocks: byte ", j, " from rank ", from, " is wrong");
    }
}

}  // namespace ops_test

COMET_TRANSPORT_CONFORMANCE(minimal_transport_conformance, comet_test::minimal_runner{})

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
    // The threads transport has no max, min, gather, reduction to a root or alltoall of its own.
    static_assert(comet::ops::allreduce_max.implementation_for<threads_t>() == implementation::portable);
    static_assert(comet::ops::gather.implementation_for<threads_t>() == implementation::portable);
    static_assert(comet::ops::reduce_sum.implementation_for<threads_t>() == implementation::portable);
    static_assert(comet::ops::reduce_max.implementation_for<threads_t>() == implementation::portable);
    static_assert(comet::ops::reduce_min.implementation_for<threads_t>() == implementation::portable);
    static_assert(comet::ops::alltoall.implementation_for<threads_t>() == implementation::portable);
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

BOOST_AUTO_TEST_CASE(a_native_reduction_or_alltoall_is_taken_and_forwarded) {
    static_assert(comet::ops::reduce_sum.implementation_for<native_extras>() == implementation::native);
    static_assert(comet::ops::alltoall.implementation_for<native_extras>() == implementation::native);
    // Only what it has: its max, min and gather stay portable.
    static_assert(comet::ops::reduce_max.implementation_for<native_extras>() == implementation::portable);
    static_assert(comet::ops::gather.implementation_for<native_extras>() == implementation::portable);
    // A decorator over it forwards its natives (transport/adaptor.hpp).
    using decorated = comet::transport_adaptor<native_extras>;
    static_assert(comet::ops::reduce_sum.implementation_for<decorated>() == implementation::native);
    static_assert(comet::ops::alltoall.implementation_for<decorated>() == implementation::native);
    static_assert(comet::ops::reduce_min.implementation_for<decorated>() == implementation::portable);
    std::array<int, 2> calls{};
    comet::threads::run(3, [&](threads_t& t) {
        native_extras x(t);
        decorated d(x);
        std::vector<double> v{1.5, -2.0};
        const auto how = comet::ops::reduce_sum(d, 1, v);
        std::vector<std::byte> out(6, std::byte{1}), in(6);
        const auto how2 = comet::ops::alltoall(d, out, in);
        if (how != implementation::native || how2 != implementation::native) throw std::logic_error("not native");
        if (t.rank() == 1 && (v[0] != 4.5 || v[1] != -6.0)) throw std::logic_error("wrong sum");
        if (t.rank() == 0) calls = {x.calls, static_cast<int>(std::count(in.begin(), in.end(), std::byte{1}))};
    });
    BOOST_TEST(calls[0] == 2);  // the decorator's calls reached native_extras' own members
    BOOST_TEST(calls[1] == 6);
}

BOOST_AUTO_TEST_CASE(reductions_gather_and_alltoall_at_every_group_size_and_root) {
    std::atomic<int> finished{0};  // ranks that made every check
    int ranks = 0;
    for (int p : group_sizes) {
        ranks += p;
        comet::threads::run(p, [&finished](threads_t& t) {
            reductions_gather_alltoall(t, implementation::portable);
            native_extras x(t);
            reductions_gather_alltoall(x, implementation::native);
            // Portable and native agree, and both agree with the threads transport's own
            // allreduce_sum, on sums that are exact.
            for (int root = 0; root < t.size(); ++root) {
                std::vector<double> portable(6), native(6), everywhere(6);
                for (std::size_t i = 0; i < portable.size(); ++i)
                    portable[i] = native[i] = everywhere[i] = 0.125 * (t.rank() + 1) * static_cast<double>(i + 1);
                comet::ops::reduce_sum(t, root, portable);
                comet::ops::reduce_sum(x, root, native);
                comet::ops::allreduce_sum(t, everywhere);
                if (t.rank() == root)
                    require(t, portable == native && native == everywhere, "reduce_sum to ", root,
                            ": portable, native and allreduce_sum differ");
            }
            ++finished;
        });
    }
    BOOST_TEST(finished == ranks);
}

BOOST_AUTO_TEST_CASE(a_core_only_transport_reduces_gathers_and_exchanges) {
    std::atomic<int> finished{0};
    for (int p : {3, 4, 5})
        comet_test::minimal_runner{}(p, [&finished](minimal_transport& t) {
            reductions_gather_alltoall(t, implementation::portable);
            ++finished;
        });
    BOOST_TEST(finished == 3 + 4 + 5);
}

BOOST_AUTO_TEST_CASE(bad_input_through_ops_names_the_value_and_the_rank) {
    BOOST_CHECK_EXCEPTION(comet::threads::run(2,
                                              [](threads_t& t) {
                                                  std::vector<double> v(1);
                                                  comet::ops::reduce_max(t, 2, v);
                                              }),
                          comet::invalid_argument, [](const comet::invalid_argument& e) {
                              return std::string(e.what()) == "rank 0: reduce: root 2 is outside 0..1";
                          });
    BOOST_CHECK_EXCEPTION(comet::threads::run(2,
                                              [](threads_t& t) {
                                                  const std::vector<std::byte> out(5);
                                                  std::vector<std::byte> in(5);
                                                  comet::ops::alltoall(t, out, in);
                                              }),
                          comet::invalid_argument, [](const comet::invalid_argument& e) {
                              return std::string(e.what()) == "rank 0: alltoall: the send buffer's 5 bytes are not 2 equal blocks";
                          });
}

BOOST_AUTO_TEST_SUITE_END()
