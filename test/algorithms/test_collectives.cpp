// Tests of comet/algorithms/collectives.hpp, called directly (not through comet::ops) on the
// threads transport, whose own collectives they thus do not use: every group size from 1 to 9
// (powers of two and not), every root, results exact and the same bits on every rank, and a
// size mismatch between ranks reported naming both sizes.
#include <comet/algorithms/collectives.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include <cstring>
#include <numeric>

namespace algorithms_test {

using threads_t = comet::threads::transport;

}  // namespace algorithms_test

BOOST_AUTO_TEST_SUITE(algorithms)

using namespace algorithms_test;

BOOST_AUTO_TEST_CASE(broadcast_reaches_every_rank_from_every_root) {
    for (int p = 1; p <= 9; ++p)
        comet::threads::run(p, [](threads_t& t) {
            for (int root = 0; root < t.size(); ++root) {
                std::vector<int> v(1000, t.rank() == root ? root * 7 + 1 : -1);
                comet::algorithms::broadcast(t, root, comet::writable_bytes_of(v));
                if (std::any_of(v.begin(), v.end(), [&](int x) { return x != root * 7 + 1; }))
                    throw std::logic_error("rank " + std::to_string(t.rank()) + ": broadcast from " + std::to_string(root) +
                                           " did not arrive");
            }
        });
}

BOOST_AUTO_TEST_CASE(allreduce_is_exact_and_bit_identical_at_every_group_size) {
    for (int p = 1; p <= 9; ++p)
        comet::threads::run(p, [](threads_t& t) {
            const int n = t.size();
            std::vector<double> sum(50), hi(50), lo(50), inexact(50);
            for (std::size_t i = 0; i < sum.size(); ++i) {
                sum[i] = t.rank() + static_cast<double>(i);
                hi[i] = lo[i] = static_cast<double>((t.rank() + static_cast<int>(i)) % n);
                inexact[i] = 1.0 / (3.0 + t.rank() + static_cast<double>(i));  // rounding depends on the order of additions
            }
            comet::algorithms::allreduce(t, sum, std::plus<>{});
            comet::algorithms::allreduce(t, hi, [](double a, double b) { return std::max(a, b); });
            comet::algorithms::allreduce(t, lo, [](double a, double b) { return std::min(a, b); });
            comet::algorithms::allreduce(t, inexact, std::plus<>{});
            for (std::size_t i = 0; i < sum.size(); ++i) {
                const double want = n * (n - 1) / 2.0 + n * static_cast<double>(i);
                if (sum[i] != want || hi[i] != n - 1 || lo[i] != 0)
                    throw std::logic_error("rank " + std::to_string(t.rank()) + " of " + std::to_string(n) + ": element " +
                                           std::to_string(i) + " wrong");
            }
            std::vector<double> root = inexact;
            comet::algorithms::broadcast(t, 0, comet::writable_bytes_of(root));
            if (std::memcmp(root.data(), inexact.data(), root.size() * sizeof(double)) != 0)
                throw std::logic_error("rank " + std::to_string(t.rank()) + " of " + std::to_string(n) +
                                       ": the inexact sum differs from rank 0's in its bits");
        });
}

BOOST_AUTO_TEST_CASE(barrier_and_gather_at_every_group_size) {
    for (int p = 1; p <= 9; ++p)
        comet::threads::run(p, [](threads_t& t) {
            for (int i = 0; i < 20; ++i) comet::algorithms::barrier(t);
            for (int root = 0; root < t.size(); ++root) {
                const std::vector<int> mine(3, t.rank() * 10 + root);
                std::vector<int> all(t.rank() == root ? 3 * static_cast<std::size_t>(t.size()) : 0);
                comet::algorithms::gather(t, root, comet::bytes_of(mine), comet::writable_bytes_of(all));
                if (t.rank() == root)
                    for (int r = 0; r < t.size(); ++r)
                        if (all[3 * static_cast<std::size_t>(r) + 2] != r * 10 + root)
                            throw std::logic_error("gather at root " + std::to_string(root) + ": block of rank " +
                                                   std::to_string(r) + " wrong");
            }
        });
}

BOOST_AUTO_TEST_CASE(a_size_mismatch_is_named_not_hidden) {
    BOOST_CHECK_EXCEPTION(comet::threads::run(2,
                                              [](threads_t& t) {
                                                  std::vector<std::byte> b(t.rank() == 0 ? 8 : 16);
                                                  comet::algorithms::broadcast(t, 0, b);
                                              }),
                          comet::invalid_argument, [](const comet::invalid_argument& e) {
                              const std::string w = e.what();
                              return w.find("rank 1: broadcast: rank 0 sent 8 bytes where this rank expects 16") == 0;
                          });
    BOOST_CHECK_EXCEPTION(comet::threads::run(2,
                                              [](threads_t& t) {
                                                  std::vector<std::byte> b(8);
                                                  comet::algorithms::broadcast(t, 2, b);
                                              }),
                          comet::invalid_argument,
                          [](const comet::invalid_argument& e) { return std::string(e.what()).find("root 2 is outside 0..1") != std::string::npos; });
    BOOST_CHECK_EXCEPTION(comet::threads::run(2,
                                              [](threads_t& t) {
                                                  const std::vector<std::byte> mine(4);
                                                  std::vector<std::byte> all(t.rank() == 0 ? 7 : 0);
                                                  comet::algorithms::gather(t, 0, mine, all);
                                              }),
                          comet::invalid_argument,
                          [](const comet::invalid_argument& e) { return std::string(e.what()).find("holds 7 bytes where 2 blocks of 4 need 8") != std::string::npos; });
}

BOOST_AUTO_TEST_SUITE_END()
