// Tests of comet/algorithms/collectives.hpp, called directly (not through comet::ops) on the
// threads transport, whose own collectives they thus do not use: every group size from 1 to 9
// (powers of two and not), every root, results exact and the same bits on every rank; reduce's
// rounded sums bit for bit those of the order it documents, at every root; alltoall's blocks
// byte for byte, below and above the threads transport's eager limit; and bad input (a root
// outside the group, buffers that do not fit, ranks disagreeing on a size) reported naming
// the value and the rank.
#include <comet/algorithms/collectives.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace algorithms_test {

using threads_t = comet::threads::transport;

/// The group sizes the reduce and alltoall tests run at: powers of two, odd, prime.
constexpr int group_sizes[] = {1, 2, 3, 4, 5, 7, 8};

/// The value rank r contributes at element i: magnitudes from 1e-4 to 1e4, so that rounding
/// makes the sum's bits depend on the order of the additions.
double inexact(int r, std::size_t i) {
    return 1.0 / (3.0 + r + static_cast<double>(i)) * std::pow(10.0, (r * 7 + static_cast<int>(i) * 3) % 9 - 4);
}

/// The sum reduce documents, written out independently of the tree: R(v, w) over the
/// values taken in the order root, root + 1, ... (mod p), halving blocks of a power of two.
double documented_sum(int p, int root, std::size_t i) {
    const std::function<double(int, int)> r = [&](int v, int w) -> double {
        if (w == 1) return inexact((v + root) % p, i);
        if (v + w / 2 >= p) return r(v, w / 2);
        return r(v, w / 2) + r(v + w / 2, w / 2);
    };
    return r(0, static_cast<int>(std::bit_ceil(static_cast<unsigned>(p))));
}

/// Byte j of the block rank `from` sends rank `to`: differs between every two blocks.
std::byte block_byte(int from, int to, std::size_t j) {
    return static_cast<std::byte>((static_cast<std::size_t>(from) * 31 + static_cast<std::size_t>(to) * 17 + j * 7 + 1) & 0xff);
}

[[noreturn]] void fail(const threads_t& t, const std::string& what) {
    throw std::logic_error("rank " + std::to_string(t.rank()) + " of " + std::to_string(t.size()) + ": " + what);
}

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

BOOST_AUTO_TEST_CASE(reduce_is_exact_at_every_root_and_group_size) {
    std::atomic<int> checked{0};  // reductions whose results a root checked
    int roots = 0;
    for (int p : group_sizes) {
        roots += p;
        comet::threads::run(p, [&checked](threads_t& t) {
            const int n = t.size(), me = t.rank();
            for (int root = 0; root < n; ++root) {
                std::vector<double> sum(40), hi(40), lo(40);
                for (std::size_t i = 0; i < sum.size(); ++i) {
                    sum[i] = me * 1000.0 + static_cast<double>(i) + 0.25;
                    // The extremes sit on a different rank for each element and root.
                    hi[i] = lo[i] = static_cast<double>((me + root + static_cast<int>(i)) % n) - 2.5;
                }
                const std::vector<double> sum0 = sum, hi0 = hi, lo0 = lo;
                comet::algorithms::reduce(t, root, sum, std::plus<>{});
                comet::algorithms::reduce(t, root, hi, [](double a, double b) { return std::max(a, b); });
                comet::algorithms::reduce(t, root, lo, [](double a, double b) { return std::min(a, b); });
                if (me != root) {
                    if (sum != sum0 || hi != hi0 || lo != lo0)
                        fail(t, "reduce to root " + std::to_string(root) + " changed a non-root's values");
                    continue;
                }
                for (std::size_t i = 0; i < sum.size(); ++i) {
                    const double want = 1000.0 * n * (n - 1) / 2 + n * (static_cast<double>(i) + 0.25);
                    if (sum[i] != want) fail(t, "reduce sum at root " + std::to_string(root) + ", element " + std::to_string(i));
                    if (hi[i] != n - 3.5) fail(t, "reduce max at root " + std::to_string(root) + ", element " + std::to_string(i));
                    if (lo[i] != -2.5) fail(t, "reduce min at root " + std::to_string(root) + ", element " + std::to_string(i));
                }
                ++checked;
            }
        });
    }
    BOOST_TEST(checked == roots);
}

BOOST_AUTO_TEST_CASE(reduce_sums_in_the_order_it_documents) {
    std::atomic<int> checked{0};
    int roots = 0;
    for (int p : group_sizes) {
        roots += 3 * p;
        comet::threads::run(p, [&checked](threads_t& t) {
            for (int root = 0; root < t.size(); ++root)
                for (int repeat = 0; repeat < 3; ++repeat) {
                    std::vector<double> v(17);
                    for (std::size_t i = 0; i < v.size(); ++i) v[i] = algorithms_test::inexact(t.rank(), i);
                    comet::algorithms::reduce(t, root, v, std::plus<>{});
                    if (t.rank() != root) continue;
                    for (std::size_t i = 0; i < v.size(); ++i) {
                        const double want = documented_sum(t.size(), root, i);
                        if (std::memcmp(&v[i], &want, sizeof want) != 0)
                            fail(t, "reduce to root " + std::to_string(root) + ": element " + std::to_string(i) +
                                        " is not the documented pairwise sum bit for bit");
                    }
                    ++checked;
                }
        });
    }
    BOOST_TEST(checked == roots);
    // The order matters: for some elements the documented grouping and a plain sum in rank
    // order differ, and so do the groupings from two roots, so the test above could not pass
    // by summing in rank order.
    for (int p : {5, 7, 8}) {
        int differ = 0, between_roots = 0;
        for (std::size_t i = 0; i < 17; ++i) {
            double left = 0;
            for (int r = 0; r < p; ++r) left += algorithms_test::inexact(r, i);
            differ += left != algorithms_test::documented_sum(p, 0, i);
            between_roots += algorithms_test::documented_sum(p, 0, i) != algorithms_test::documented_sum(p, 1, i);
        }
        BOOST_TEST(differ > 0, "P = " << p);
        BOOST_TEST(between_roots > 0, "P = " << p);
    }
}

BOOST_AUTO_TEST_CASE(alltoall_delivers_every_block_byte_for_byte) {
    std::atomic<int> checked{0};  // calls whose received blocks a rank checked
    int calls = 0;
    for (int p : group_sizes) {
        calls += 5 * p;
        comet::threads::run(p, [&checked](threads_t& t) {
            const int n = t.size(), me = t.rank();
            // Empty blocks, odd ones, and blocks above the eager limit (a single copy from the
            // sender's buffer), one call after another.
            for (std::size_t block : {std::size_t{0}, std::size_t{1}, std::size_t{13}, std::size_t{3000}, std::size_t{5}}) {
                std::vector<std::byte> out(block * static_cast<std::size_t>(n)), in(out.size(), std::byte{0xee});
                for (int to = 0; to < n; ++to)
                    for (std::size_t j = 0; j < block; ++j) out[static_cast<std::size_t>(to) * block + j] = block_byte(me, to, j);
                const std::vector<std::byte> sent = out;
                comet::algorithms::alltoall(t, out, in);
                if (out != sent) fail(t, "alltoall changed the send buffer");
                for (int from = 0; from < n; ++from)
                    for (std::size_t j = 0; j < block; ++j)
                        if (in[static_cast<std::size_t>(from) * block + j] != block_byte(from, me, j))
                            fail(t, "alltoall of " + std::to_string(block) + "-byte blocks: byte " + std::to_string(j) +
                                        " of rank " + std::to_string(from) + "'s block is wrong");
                ++checked;
            }
        });
    }
    BOOST_TEST(checked == calls);
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

/// Runs `body` on `p` threads and checks that it raises `E` whose message contains `words`.
template <class E, class Body>
void expect_error(int p, Body body, std::initializer_list<std::string> words) {
    BOOST_CHECK_EXCEPTION(comet::threads::run(p, body), E, [&](const E& e) {
        const std::string w = e.what();
        for (const auto& word : words)
            if (w.find(word) == std::string::npos) {
                BOOST_TEST_MESSAGE("missing \"" << word << "\" in: " << w);
                return false;
            }
        return true;
    });
}

BOOST_AUTO_TEST_CASE(bad_roots_and_buffers_name_the_value_and_the_rank) {
    // Every rank checks the root before it sends anything, so every rank fails; run reports
    // rank 0's.
    for (int root : {-1, 3})
        expect_error<comet::invalid_argument>(
            3,
            [root](threads_t& t) {
                std::vector<double> v(2);
                comet::algorithms::reduce(t, root, v, std::plus<>{});
            },
            {"rank 0: reduce: root " + std::to_string(root) + " is outside 0..2"});
    expect_error<comet::invalid_argument>(
        4,
        [](threads_t& t) {
            const std::vector<std::byte> mine(2);
            std::vector<std::byte> all(8);
            comet::algorithms::gather(t, 4, mine, all);
        },
        {"rank 0: gather: root 4 is outside 0..3"});
    // Only rank 2 is the root, so only it finds its buffer short.
    expect_error<comet::invalid_argument>(
        3,
        [](threads_t& t) {
            const std::vector<std::byte> mine(4);
            std::vector<std::byte> all(t.rank() == 2 ? 11 : 0);
            comet::algorithms::gather(t, 2, mine, all);
        },
        {"rank 2: gather: the root's buffer holds 11 bytes where 3 blocks of 4 need 12"});
    expect_error<comet::invalid_argument>(
        3,
        [](threads_t& t) {
            const std::vector<std::byte> out(7);
            std::vector<std::byte> in(7);
            comet::algorithms::alltoall(t, out, in);
        },
        {"rank 0: alltoall: the send buffer's 7 bytes are not 3 equal blocks"});
    expect_error<comet::invalid_argument>(
        3,
        [](threads_t& t) {
            const std::vector<std::byte> out(6);
            std::vector<std::byte> in(t.rank() == 1 ? 4 : 6);
            comet::algorithms::alltoall(t, out, in);
        },
        {"rank 1: alltoall: the receive buffer holds 4 bytes where 3 blocks of 2 need 6"});
}

BOOST_AUTO_TEST_CASE(ranks_disagreeing_on_a_size_are_named) {
    // Rank 1 is a leaf of the tree rooted at 0: its 16 bytes go out eagerly, and only the
    // root, expecting 24, fails.
    expect_error<comet::invalid_argument>(
        2,
        [](threads_t& t) {
            std::vector<double> v(t.rank() == 0 ? 3 : 2);
            comet::algorithms::reduce(t, 0, v, std::plus<>{});
        },
        {"rank 0: reduce: rank 1 sent 16 bytes where this rank expects 24"});
    // In an alltoall both sides of a mismatch fail: the rank with the smaller blocks receives
    // a message too long for its block (truncation_error), the other one too short. Whichever
    // the run reports, it names the rank and both sizes.
    BOOST_CHECK_EXCEPTION(comet::threads::run(2,
                                              [](threads_t& t) {
                                                  const std::vector<std::byte> out(t.rank() == 0 ? 8 : 16);
                                                  std::vector<std::byte> in(out.size());
                                                  comet::algorithms::alltoall(t, out, in);
                                              }),
                          comet::error, [](const comet::error& e) {
                              const std::string w = e.what();
                              BOOST_TEST_MESSAGE("alltoall mismatch: " << w);
                              if (dynamic_cast<const comet::truncation_error*>(&e))
                                  return w.find("rank 0: ") == 0 && w.find("8-byte message from rank 1") != std::string::npos &&
                                         w.find("4-byte buffer") != std::string::npos;
                              return dynamic_cast<const comet::invalid_argument*>(&e) &&
                                     w.find("rank 1: alltoall: rank 0 sent 4 bytes where this rank expects 8") == 0;
                          });
}

BOOST_AUTO_TEST_SUITE_END()
