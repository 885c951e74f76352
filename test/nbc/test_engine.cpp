// Tests of comet/nbc/engine.hpp on the threads transport (1 to 8 ranks) and the simulated
// iPSC/860 (2 to 64 nodes, powers of two and not): every operation — ibarrier, ibroadcast from
// every root, iallreduce sum/max/min, ialltoall, igather to every root — gives exactly what the
// blocking collective (comet::ops) gives on the same inputs, and the same bits on every rank (each
// rank compares with the one exact result it computes itself, integer-valued data), for sizes
// from 0 to 1 MiB: both broadcast algorithms (binomial, and from 128 KiB on 3 ranks or more the
// pipeline) and both
// allreduces (recursive doubling below 2 KiB, reduce-scatter + allgather from it) with the fold of
// a group that is not a power of two. Then what the engine promises beyond one collective:
// persistent schedules started many times, several collectives outstanding at once completed in
// reverse order, progress() advancing all of them, test() on completed and default requests, a
// size mismatch between ranks named (and the run stopped on every rank), and the tag budget.
//
// The simulator's 1 MiB cases cost host time (every byte is copied, every packet an event): a few
// group sizes only. Under the sanitizers the largest cases shrink (see `sanitized`). The
// simulator's cases are built where it is (COMET_TEST_HAS_NX2: Boost.Context found); the threads
// cases everywhere.
#include <comet/nbc/engine.hpp>
#include <comet/ops/collectives.hpp>
#include <comet/transport/threads.hpp>
#if COMET_TEST_HAS_NX2
#include <comet/transport/nx2.hpp>
#endif

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace nbc_engine_test {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif

using comet::nbc::reduce_op;
using comet_test::mentions;
using threads_t = comet::threads::transport;
#if COMET_TEST_HAS_NX2
using nx2_t = comet::nx2::transport;
#endif

constexpr std::size_t kib = 1024, mib = kib * kib;
/// 1 MiB, or 256 KiB under a sanitizer (still past the pipeline's and reduce-scatter's thresholds).
constexpr std::size_t big = sanitized ? 256 * kib : mib;

/// Throws (failing the run, naming the rank) unless `ok`.
template <class T, class... Parts>
void require(const T& t, bool ok, const Parts&... parts) {
    if (!ok) comet::raise<std::logic_error>(t.rank(), parts...);
}

inline std::byte byte_of(int seed, std::size_t j) {
    return static_cast<std::byte>((static_cast<std::size_t>(seed) * 131 + j * 7 + 3) & 0xff);
}

inline std::vector<std::byte> pattern(std::size_t n, int seed) {
    std::vector<std::byte> v(n);
    for (std::size_t j = 0; j < n; ++j) v[j] = byte_of(seed, j);
    return v;
}

/// Rank r's element i: integer-valued, so every sum is exact whatever the order; the largest
/// and smallest on a different rank for each element.
inline double value(int rank, int size, std::size_t i) {
    return static_cast<double>(static_cast<long long>(i % 4093) - 2000 + 3 * static_cast<long long>((static_cast<std::size_t>(rank) + i) % static_cast<std::size_t>(size)));
}

/// The exact result of `op` over every rank's `value`s.
inline double reduced(reduce_op op, int size, std::size_t i) {
    const double base = static_cast<double>(static_cast<long long>(i % 4093) - 2000);
    switch (op) {
    case reduce_op::sum: return size * base + 3.0 * size * (size - 1) / 2;
    case reduce_op::max: return base + 3.0 * (size - 1);
    case reduce_op::min: return base;
    }
    return 0;
}

/// Which sizes one run covers (and which roots: every one, or one per size in turn).
struct plan {
    std::vector<std::size_t> broadcast_bytes;
    std::vector<std::size_t> allreduce_doubles;
    std::vector<std::size_t> alltoall_bytes;  ///< in all: split into size() blocks (rounded down)
    std::vector<std::size_t> gather_bytes;    ///< each rank's part
    bool every_root = true;
};

template <class T>
std::vector<int> roots_for(const T& t, const plan& pl, std::size_t k) {
    std::vector<int> roots;
    if (pl.every_root)
        for (int r = 0; r < t.size(); ++r) roots.push_back(r);
    else
        roots.push_back(static_cast<int>((k * 5 + 1) % static_cast<std::size_t>(t.size())));
    return roots;
}

template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// Every operation of the engine against the blocking one, on `t`, at the sizes of `pl`.
template <class T>
void every_operation(T& t, const plan& pl, const comet::nbc::engine_options& o = {}) {
    comet::nbc::engine<T> nb(t, o);
    const int p = t.size(), me = t.rank();
    const auto np = static_cast<std::size_t>(p);
    const auto check_request = [&](const comet::nbc::request<T>& r, std::string_view algorithm, const char* what) {
        require(t, !r.active(), what, ": still active after wait");
        require(t, r.implementation() == comet::nbc::implementation::schedule, what, ": not run as a schedule");
        require(t, r.algorithm() == algorithm, what, ": ran ", r.algorithm(), ", expected ", algorithm);
    };

    for (int i = 0; i < 3; ++i) {
        auto r = nb.ibarrier();
        nb.wait(r);
        check_request(r, "dissemination", "ibarrier");
    }

    for (std::size_t k = 0; k < pl.broadcast_bytes.size(); ++k) {
        const std::size_t n = pl.broadcast_bytes[k];
        const std::string_view algorithm = p > 2 && n >= o.schedules.pipeline_from ? "pipeline" : "binomial";
        for (int root : roots_for(t, pl, k)) {
            const std::vector<std::byte> want = pattern(n, root * 3 + static_cast<int>(k));
            std::vector<std::byte> mine = me == root ? want : std::vector<std::byte>(n, std::byte{0xee});
            std::vector<std::byte> blocking = mine;
            auto r = nb.ibroadcast(root, mine);
            nb.wait(r);
            check_request(r, algorithm, "ibroadcast");
            comet::ops::broadcast(t, root, blocking);
            require(t, same_bytes(mine, want), "ibroadcast of ", n, " bytes from ", root, ": wrong bytes");
            require(t, same_bytes(blocking, mine), "ibroadcast of ", n, " bytes from ", root, " differs from broadcast");
        }
    }

    const auto q = static_cast<std::size_t>(std::bit_floor(static_cast<unsigned>(p)));
    for (std::size_t n : pl.allreduce_doubles) {
        const std::string_view algorithm =
            n * sizeof(double) >= o.schedules.reduce_scatter_from && n >= q ? "reduce_scatter_allgather" : "recursive_doubling";
        for (reduce_op op : {reduce_op::sum, reduce_op::max, reduce_op::min}) {
            std::vector<double> v(n), want(n);
            for (std::size_t i = 0; i < n; ++i) v[i] = value(me, p, i), want[i] = reduced(op, p, i);
            std::vector<double> blocking = v;
            auto r = nb.iallreduce(v, op);
            nb.wait(r);
            check_request(r, algorithm, "iallreduce");
            if (op == reduce_op::sum) comet::ops::allreduce_sum(t, blocking);
            if (op == reduce_op::max) comet::ops::allreduce_max(t, blocking);
            if (op == reduce_op::min) comet::ops::allreduce_min(t, blocking);
            require(t, same_bytes(v, want), "iallreduce ", to_string(op), " of ", n, " doubles: not the exact result");
            require(t, same_bytes(blocking, v), "iallreduce ", to_string(op), " of ", n, " doubles differs from the blocking one");
        }
    }

    for (std::size_t total : pl.alltoall_bytes) {
        const std::size_t block = total / np;
        std::vector<std::byte> out(block * np), in(out.size(), std::byte{0xee}), blocking(out.size()), want(out.size());
        for (int r = 0; r < p; ++r)
            for (std::size_t j = 0; j < block; ++j) {
                out[static_cast<std::size_t>(r) * block + j] = byte_of(me * 64 + r, j);
                want[static_cast<std::size_t>(r) * block + j] = byte_of(r * 64 + me, j);
            }
        auto r = nb.ialltoall(out, in);
        nb.wait(r);
        check_request(r, "linear", "ialltoall");
        comet::ops::alltoall(t, out, blocking);
        require(t, same_bytes(in, want), "ialltoall of ", block, "-byte blocks: wrong bytes");
        require(t, same_bytes(blocking, in), "ialltoall of ", block, "-byte blocks differs from alltoall");
    }

    for (std::size_t k = 0; k < pl.gather_bytes.size(); ++k) {
        const std::size_t n = pl.gather_bytes[k];
        for (int root : roots_for(t, pl, k)) {
            const std::vector<std::byte> mine = pattern(n, me + 17 * root);
            std::vector<std::byte> all(me == root ? n * np : 0, std::byte{0xee}), blocking(all.size()), want;
            if (me == root)
                for (int r = 0; r < p; ++r) {
                    const auto part = pattern(n, r + 17 * root);
                    want.insert(want.end(), part.begin(), part.end());
                }
            auto r = nb.igather(root, mine, all);
            nb.wait(r);
            check_request(r, "linear", "igather");
            comet::ops::gather(t, root, mine, blocking);
            require(t, same_bytes(all, want), "igather of ", n, " bytes to ", root, ": wrong bytes");
            require(t, same_bytes(blocking, all), "igather of ", n, " bytes to ", root, " differs from gather");
        }
    }
    require(t, nb.outstanding() == 0, "requests left outstanding");
}

/// Low thresholds: the pipeline (uneven segments) and reduce-scatter on small sizes, cheap on
/// every group size.
const comet::nbc::engine_options low_thresholds{.schedules = {.pipeline_from = 1000, .segment = 300, .reduce_scatter_from = 8}};
const plan low_threshold_sizes{.broadcast_bytes = {999, 1000, 1001, 4096},
                               .allreduce_doubles = {1, 7, 64, 100},
                               .alltoall_bytes = {},
                               .gather_bytes = {},
                               .every_root = false};

#if COMET_TEST_HAS_NX2
/// Runs `fn` on `p` ranks of the smallest iPSC/860 cube that holds them.
template <class F>
void on_nx2(int p, F&& fn) {
    comet::nx2::run(comet::nx2::ipsc860(static_cast<int>(std::bit_width(static_cast<unsigned>(p - 1)))), std::forward<F>(fn),
                    {.ranks = p});
}
#endif

/// Several collectives at once on `nb` (distinct sizes, so that one taking another's message
/// would fail), completed by `finish`; then every result checked.
template <class T, class Finish>
void several_at_once(T& t, comet::nbc::engine<T>& nb, Finish finish) {
    const int p = t.size(), me = t.rank();
    const auto np = static_cast<std::size_t>(p);
    const int root = p / 2;
    std::vector<std::byte> data = me == root ? pattern(3000, 5) : std::vector<std::byte>(3000);
    std::vector<double> sum(300), hi(5);
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = value(me, p, i);
    for (std::size_t i = 0; i < hi.size(); ++i) hi[i] = value(me, p, i);
    std::vector<std::byte> out(24 * np), in(out.size());
    for (std::size_t j = 0; j < out.size(); ++j) out[j] = byte_of(me * 64 + static_cast<int>(j / 24), j % 24);
    const std::vector<std::byte> mine = pattern(40, me);
    std::vector<std::byte> all(me == 0 ? 40 * np : 0);
    std::vector<comet::nbc::request<T>> rs;
    rs.push_back(nb.ibroadcast(root, data));
    rs.push_back(nb.iallreduce(sum, reduce_op::sum));
    rs.push_back(nb.ialltoall(out, in));
    rs.push_back(nb.igather(0, mine, all));
    rs.push_back(nb.ibarrier());
    rs.push_back(nb.iallreduce(hi, reduce_op::max));
    require(t, nb.outstanding() <= rs.size(), "outstanding() counts more than were started");
    finish(rs);
    for (auto& r : rs) require(t, nb.test(r) && !r.active(), "a request is not complete after finishing");
    require(t, nb.outstanding() == 0, "outstanding() is ", nb.outstanding(), " after all completed");
    require(t, same_bytes(data, pattern(3000, 5)), "ibroadcast among others: wrong bytes");
    for (std::size_t i = 0; i < sum.size(); ++i) require(t, sum[i] == reduced(reduce_op::sum, p, i), "iallreduce sum among others: element ", i);
    for (std::size_t i = 0; i < hi.size(); ++i) require(t, hi[i] == reduced(reduce_op::max, p, i), "iallreduce max among others: element ", i);
    for (std::size_t j = 0; j < in.size(); ++j)
        require(t, in[j] == byte_of(static_cast<int>(j / 24) * 64 + me, j % 24), "ialltoall among others: byte ", j);
    if (me == 0)
        for (int r = 0; r < p; ++r)
            require(t, std::equal(all.begin() + 40 * r, all.begin() + 40 * (r + 1), pattern(40, r).begin()), "igather among others: rank ", r);
}

template <class T>
void reverse_order_and_progress(T& t) {
    comet::nbc::engine<T> nb(t);
    several_at_once(t, nb, [&](auto& rs) {
        for (auto r = rs.rbegin(); r != rs.rend(); ++r) nb.wait(*r);
    });
    several_at_once(t, nb, [&](auto& rs) {
        for (auto r = rs.rbegin(); r != rs.rend(); ++r) while (!nb.test(*r)) {}
    });
    several_at_once(t, nb, [&](auto&) {
        while (nb.outstanding() > 0) nb.progress();
    });
}

/// Persistent schedules: each built once, started `times` times on fresh inputs.
template <class T>
void persistent(T& t, int times) {
    comet::nbc::engine<T> nb(t);
    const int p = t.size(), me = t.rank();
    const auto np = static_cast<std::size_t>(p);
    std::vector<std::byte> data(5000);
    std::vector<double> v(600);
    std::vector<std::byte> out(10 * np), in(out.size()), mine(12), all(12 * np);
    const comet::nbc::schedule barrier = comet::nbc::barrier_schedule(me, p);
    const comet::nbc::schedule broadcast = comet::nbc::broadcast_schedule(me, p, p - 1, data, {.pipeline_from = 4096, .segment = 1024});
    const comet::nbc::schedule allreduce = comet::nbc::allreduce_schedule(me, p, v, reduce_op::sum);
    const comet::nbc::schedule alltoall = comet::nbc::alltoall_schedule(me, p, out, in);
    const comet::nbc::schedule gather = comet::nbc::gather_schedule(me, p, 0, mine, all);
    require(t, broadcast.algorithm() == (p > 2 ? "pipeline" : "binomial") && allreduce.algorithm() == "reduce_scatter_allgather",
            "unexpected algorithms");
    for (int k = 0; k < times; ++k) {
        auto b = nb.start(barrier);
        nb.wait(b);
        // New inputs in the same buffers: the schedules hold their addresses.
        const std::vector<std::byte> root_data = pattern(data.size(), k), own = pattern(12, me + k);
        if (me == p - 1) std::copy(root_data.begin(), root_data.end(), data.begin());
        else std::fill(data.begin(), data.end(), std::byte{0});
        std::copy(own.begin(), own.end(), mine.begin());
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(me, p, i + static_cast<std::size_t>(k));
        for (std::size_t j = 0; j < out.size(); ++j) out[j] = byte_of(me * 64 + static_cast<int>(j / 10) + k, j % 10);
        std::vector<comet::nbc::request<T>> rs;
        rs.push_back(nb.start(broadcast));
        rs.push_back(nb.start(allreduce));
        rs.push_back(nb.start(alltoall));
        rs.push_back(nb.start(gather));
        for (auto& r : rs) nb.wait(r);
        require(t, rs[1].algorithm() == "reduce_scatter_allgather", "the request names another algorithm than its schedule's");
        require(t, same_bytes(data, pattern(data.size(), k)), "persistent broadcast, start ", k, ": wrong bytes");
        for (std::size_t i = 0; i < v.size(); ++i)
            require(t, v[i] == reduced(reduce_op::sum, p, i + static_cast<std::size_t>(k)), "persistent allreduce, start ", k, ": element ", i);
        for (std::size_t j = 0; j < in.size(); ++j)
            require(t, in[j] == byte_of(static_cast<int>(j / 10) * 64 + me + k, j % 10), "persistent alltoall, start ", k, ": byte ", j);
        if (me == 0)
            for (int r = 0; r < p; ++r)
                require(t, std::equal(all.begin() + 12 * r, all.begin() + 12 * (r + 1), pattern(12, r + k).begin()),
                        "persistent gather, start ", k, ": rank ", r);
    }
    // A schedule handed over: the request keeps it.
    std::vector<double> w(3, 1.0);
    auto r = nb.start(comet::nbc::recursive_doubling_allreduce_schedule(me, p, w, reduce_op::sum));
    nb.wait(r);
    require(t, w[0] == p && w[2] == p && r.algorithm() == "recursive_doubling", "a handed-over schedule gave ", w[0]);
}

/// Runs `body` on `p` threads and checks that it raises `E` whose message contains `words`.
template <class E, class Body>
void expect_error(int p, Body body, std::initializer_list<const char*> words) {
    BOOST_CHECK_EXCEPTION(comet::threads::run(p, body), E, [&](const E& e) { return mentions(e, words); });
}

}  // namespace nbc_engine_test

BOOST_AUTO_TEST_SUITE(nbc_engine)

using namespace nbc_engine_test;

/// Ranks that finished a body (Boost.Test is not thread-safe: the ranks count, the test checks).
std::atomic<int> finished{0};

BOOST_AUTO_TEST_CASE(every_operation_equals_the_blocking_one_on_threads) {
    static_assert(!comet::nbc::engine<threads_t>::has_native());
    const plan full{.broadcast_bytes = {0, 1, 7, 8, 100, 4096, 65536, 128 * kib, 128 * kib + 1, big},
                    .allreduce_doubles = {0, 1, 3, 255, 256, big / sizeof(double)},
                    .alltoall_bytes = {0, 8, 800, 40000, big},
                    .gather_bytes = {0, 1, 100, 5000, big / 8},
                    .every_root = true};
    for (int p = 1; p <= 8; ++p) {
        BOOST_TEST_CONTEXT("P = " << p) {
            // Every root for every size at a few group sizes; elsewhere one root per size, in turn.
            plan pl = full;
            pl.every_root = p <= 3 || p == 5;
            finished = 0;
            comet::threads::run(p, [&](threads_t& t) {
                every_operation(t, pl);
                every_operation(t, low_threshold_sizes, low_thresholds);
                ++finished;
            });
            BOOST_TEST(finished == p);
        }
    }
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(every_operation_equals_the_blocking_one_on_the_simulator) {
    static_assert(!comet::nbc::engine<nx2_t>::has_native());
    const plan small{.broadcast_bytes = {0, 1, 7, 100, 4096},
                     .allreduce_doubles = {0, 1, 3, 255, 256},
                     .alltoall_bytes = {0, 64 * 8},
                     .gather_bytes = {0, 8, 1000},
                     .every_root = false};
    for (int p : {2, 3, 4, 5, 6, 7, 8, 11, 12, 16, 17, 31, 32, 33, 64}) {
        BOOST_TEST_CONTEXT("P = " << p) {
            finished = 0;
            on_nx2(p, [&](nx2_t& t) {
                every_operation(t, small);
                every_operation(t, low_threshold_sizes, low_thresholds);
                ++finished;
            });
            BOOST_TEST(finished == p);
        }
    }
    // Every root at a group that is not a power of two.
    on_nx2(6, [](nx2_t& t) { every_operation(t, {.broadcast_bytes = {1, 100}, .gather_bytes = {8}, .every_root = true}); });
    // The large sizes, on a few groups: the pipeline and reduce-scatter at their default
    // thresholds, with and without the fold.
    on_nx2(3, [](nx2_t& t) {
        every_operation(t, {.broadcast_bytes = {128 * kib, big}, .allreduce_doubles = {big / sizeof(double)},
                            .alltoall_bytes = {big}, .gather_bytes = {big / 4}, .every_root = false});
    });
    on_nx2(8, [](nx2_t& t) { every_operation(t, {.broadcast_bytes = {big}, .allreduce_doubles = {big / sizeof(double)}, .every_root = false}); });
    if (!sanitized)
        on_nx2(64, [](nx2_t& t) {
            every_operation(t, {.broadcast_bytes = {128 * kib, big}, .allreduce_doubles = {big / sizeof(double)}, .every_root = false});
        });
    on_nx2(17, [](nx2_t& t) { every_operation(t, {.allreduce_doubles = {big / sizeof(double)}, .gather_bytes = {big / 16}}); });
}
#endif

BOOST_AUTO_TEST_CASE(persistent_schedules_start_again_and_again) {
    finished = 0;
    for (int p : {1, 2, 3, 4, 7}) comet::threads::run(p, [](threads_t& t) { persistent(t, sanitized ? 10 : 50), ++finished; });
#if COMET_TEST_HAS_NX2
    for (int p : {5, 8}) on_nx2(p, [](nx2_t& t) { persistent(t, 10), ++finished; });
#endif
    BOOST_TEST(finished == 1 + 2 + 3 + 4 + 7 + (COMET_TEST_HAS_NX2 ? 5 + 8 : 0));
}

BOOST_AUTO_TEST_CASE(collectives_outstanding_at_once_complete_in_any_order) {
    finished = 0;
    for (int p = 1; p <= 8; ++p) comet::threads::run(p, [](threads_t& t) { reverse_order_and_progress(t), ++finished; });
#if COMET_TEST_HAS_NX2
    for (int p : {3, 8, 13}) on_nx2(p, [](nx2_t& t) { reverse_order_and_progress(t), ++finished; });
#endif
    BOOST_TEST(finished == 36 + (COMET_TEST_HAS_NX2 ? 3 + 8 + 13 : 0));
}

BOOST_AUTO_TEST_CASE(test_is_true_once_complete_and_for_a_default_request) {
    std::atomic<int> checked{0};
    comet::threads::run(3, [&](threads_t& t) {
        comet::nbc::engine<threads_t> nb(t);
        comet::nbc::request<threads_t> none;
        require(t, nb.test(none) && !none.active() && none.algorithm().empty(), "a default request is not complete");
        require(t, none.implementation() == comet::nbc::implementation::schedule, "a default request says native");
        nb.wait(none);  // nothing to wait for
        std::vector<double> v(10, 1.0);
        auto r = nb.iallreduce(v, reduce_op::sum);
        while (!nb.test(r)) {}
        require(t, !r.active() && nb.test(r) && nb.test(r), "test is not true after completion");
        nb.wait(r);  // waiting again is a no-op
        require(t, v[9] == 3.0, "iallreduce tested to completion gave ", v[9]);
        nb.progress();  // nothing outstanding: nothing to do
        require(t, nb.outstanding() == 0, "outstanding after completion");
        require(t, &nb.transport() == &t && nb.options().prefer_native, "the engine's transport or options");
        ++checked;
    });
    BOOST_TEST(checked == 3);
}

BOOST_AUTO_TEST_CASE(a_size_mismatch_names_the_rank_and_both_sizes_and_stops_every_rank) {
    // Rank 1 is a leaf of the tree from rank 0 and expects 16 bytes where 8 come (found by wait);
    // the others go on to a barrier rank 1 never reaches, and are stopped.
    std::atomic<int> passed{0};
    expect_error<comet::invalid_argument>(
        3,
        [&](threads_t& t) {
            comet::nbc::engine<threads_t> nb(t);
            std::vector<std::byte> b(t.rank() == 1 ? 16 : 8);
            auto r = nb.ibroadcast(0, b);
            nb.wait(r);
            comet::ops::barrier(t);
            ++passed;
        },
        {"rank 1: nbc binomial: rank 0 sent 8 bytes where this rank expects 16"});
    BOOST_TEST(passed == 0);
    // The root of a gather finds a short part (found by test).
    expect_error<comet::invalid_argument>(
        3,
        [&](threads_t& t) {
            comet::nbc::engine<threads_t> nb(t);
            const std::vector<std::byte> mine(t.rank() == 2 ? 4 : 8);
            std::vector<std::byte> all(t.rank() == 0 ? 24 : 0);
            auto r = nb.igather(0, mine, all);
            while (!nb.test(r)) {}
            comet::ops::barrier(t);
            ++passed;
        },
        {"rank 0: nbc linear: rank 2 sent 4 bytes where this rank expects 8"});
    BOOST_TEST(passed == 0);
    // Found by progress(), in reduce-scatter's first exchange: rank 0 holds 300 doubles, rank 1
    // 301, so rank 1 keeps 151 and receives rank 0's 150 (the engine's check). Had rank 0 got as
    // far as the allgather it would receive 151 into 150 (the transport's truncation).
    BOOST_CHECK_EXCEPTION(comet::threads::run(2,
                                              [&](threads_t& t) {
                                                  comet::nbc::engine<threads_t> nb(t);
                                                  std::vector<double> v(t.rank() == 0 ? 300 : 301);
                                                  const auto r = nb.iallreduce(v, reduce_op::sum);
                                                  require(t, r.active() || t.size() == 1, "completed at once");
                                                  while (nb.outstanding()) nb.progress();
                                                  ++passed;
                                              }),
                          comet::error, [](const comet::error& e) {
                              BOOST_TEST_MESSAGE("allreduce mismatch: " << e.what());
                              if (dynamic_cast<const comet::truncation_error*>(&e))
                                  return mentions(e, {"rank 0: ", "1208-byte message from rank 1", "1200-byte buffer"});
                              return dynamic_cast<const comet::invalid_argument*>(&e) &&
                                     mentions(e, {"rank 1: nbc reduce_scatter_allgather: rank 0 sent 1200 bytes where this rank expects 1208"});
                          });
    BOOST_TEST(passed == 0);
#if COMET_TEST_HAS_NX2
    // On the simulator too: the lowest failing rank's message.
    BOOST_CHECK_EXCEPTION(on_nx2(4,
                                 [](nx2_t& t) {
                                     comet::nbc::engine<nx2_t> nb(t);
                                     std::vector<std::byte> b(t.rank() == 3 ? 10 : 6);
                                     auto r = nb.ibroadcast(2, b);
                                     nb.wait(r);
                                     comet::ops::barrier(t);
                                 }),
                          comet::invalid_argument, [](const comet::invalid_argument& e) {
                              return mentions(e, {"rank 3: nbc binomial: rank 2 sent 6 bytes where this rank expects 10"});
                          });
#endif
}

BOOST_AUTO_TEST_CASE(bad_arguments_raise_before_anything_is_sent) {
    expect_error<comet::invalid_argument>(
        2,
        [](threads_t& t) {
            comet::nbc::engine<threads_t> nb(t);
            std::vector<std::byte> b(8);
            nb.ibroadcast(2, b);
        },
        {"rank 0: ibroadcast: root 2 is outside 0..1"});
    expect_error<comet::invalid_argument>(
        3,
        [](threads_t& t) {
            comet::nbc::engine<threads_t> nb(t);
            std::vector<std::byte> out(7), in(7);
            nb.ialltoall(out, in);
        },
        {"rank 0: ialltoall: the send buffer's 7 bytes are not 3 equal blocks"});
    expect_error<comet::invalid_argument>(
        3,
        [](threads_t& t) {
            comet::nbc::engine<threads_t> nb(t);
            const std::vector<std::byte> mine(4);
            std::vector<std::byte> all(t.rank() == 1 ? 11 : 0);
            nb.igather(1, mine, all);
            comet::ops::barrier(t);
        },
        {"rank 1: igather: the root's buffer holds 11 bytes where 3 blocks of 4 need 12"});
}

BOOST_AUTO_TEST_CASE(more_than_tag_count_outstanding_raises) {
    // On one rank, receives from itself that nothing has sent yet keep every collective open.
    std::string said;
    std::size_t open = 0, after = 1;
    comet::threads::run(1, [&](threads_t& t) {
        comet::nbc::engine<threads_t> nb(t);
        std::vector<std::byte> b(comet::nbc::tag_count + 1);
        std::vector<comet::nbc::request<threads_t>> rs;
        const auto waiting = [&](std::size_t i) {
            comet::nbc::schedule s;
            s.recv(0, comet::mutable_bytes(b).subspan(i, 1));
            return s;
        };
        for (std::size_t i = 0; i < static_cast<std::size_t>(comet::nbc::tag_count); ++i) rs.push_back(nb.start(waiting(i)));
        open = nb.outstanding();
        try {
            nb.start(waiting(comet::nbc::tag_count));
        } catch (const comet::invalid_argument& e) {
            said = e.what();
        }
        // Send what they wait for, each in its tag, and they all complete.
        for (int i = 0; i < comet::nbc::tag_count; ++i) {
            const std::byte one{1};
            t.send(0, comet::nbc::first_tag + i, comet::const_bytes(&one, 1));
        }
        while (nb.outstanding()) nb.progress();
        after = nb.outstanding();
        auto r = nb.ibarrier();  // there is room again
        nb.wait(r);
    });
    BOOST_TEST(open == static_cast<std::size_t>(comet::nbc::tag_count));
    BOOST_TEST(said.find("rank 0: nbc: 400 nonblocking collectives outstanding; at most 400 may be") == 0, said);
    BOOST_TEST(after == 0u);
}

BOOST_AUTO_TEST_CASE(a_tag_still_in_use_is_never_taken_again) {
    // The first collective waits while tag_count − 1 others run and complete: the next start
    // would take the first one's tag again, and its receive (posted first) would take the new
    // collective's message. It must raise instead.
    std::string said;
    comet::threads::run(1, [&](threads_t& t) {
        comet::nbc::engine<threads_t> nb(t);
        std::vector<std::byte> first(8), second(8);
        comet::nbc::schedule waits;
        waits.recv(0, first);
        auto r0 = nb.start(std::move(waits));
        for (int i = 1; i < comet::nbc::tag_count; ++i) {
            auto r = nb.ibarrier();
            nb.wait(r);
        }
        const std::vector<std::byte> fresh = pattern(8, 1);
        comet::nbc::schedule s;
        s.send(0, fresh).recv(0, second);
        try {
            auto r = nb.start(std::move(s));
            nb.wait(r);
            said = std::string("no error; the first collective got ") + (first == fresh ? "the new one's message" : "nothing");
        } catch (const comet::invalid_argument& e) {
            said = e.what();
        }
        t.send(0, comet::nbc::first_tag, pattern(8, 2));
        nb.wait(r0);
    });
    BOOST_TEST(said.find("rank 0: nbc: ") == 0, said);
    BOOST_TEST(said.find("tag " + std::to_string(comet::nbc::first_tag)) != std::string::npos, said);
}

BOOST_AUTO_TEST_SUITE_END()
