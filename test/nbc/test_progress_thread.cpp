// Tests of comet/nbc/progress_thread.hpp on the threads transport (2 to 4 ranks): a collective
// started, the thread resumed while the rank computes without calling the transport, paused, and
// the request then complete (or completing in wait) with the exact result; what progress raised
// in the thread rethrown by pause, once; a thread constructed and destroyed without ever
// resuming, and one destroyed while resumed. Run under ThreadSanitizer in CI: the hand-over
// between the rank's thread and the progress thread is what it checks.
#include <comet/nbc/progress_thread.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace nbc_progress_thread_test {

using comet::nbc::reduce_op;
using threads_t = comet::threads::transport;

static_assert(comet::nbc::thread_serialized_transport<threads_t>);

/// Busy work that never calls the transport: about `ms` milliseconds of arithmetic.
inline double busy(int ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    double x = 1;
    while (std::chrono::steady_clock::now() < until)
        for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
    return x;
}

template <class T, class... Parts>
void require(const T& t, bool ok, const Parts&... parts) {
    if (!ok) comet::raise<std::logic_error>(t.rank(), parts...);
}

}  // namespace nbc_progress_thread_test

BOOST_AUTO_TEST_SUITE(nbc_progress_thread)

using namespace nbc_progress_thread_test;

BOOST_AUTO_TEST_CASE(a_resumed_thread_advances_the_collectives_while_the_rank_computes) {
    for (int p = 2; p <= 4; ++p) {
        std::atomic<int> done_by_pause{0}, checked{0};
        std::atomic<unsigned long long> calls{0};
        comet::threads::run(p, [&](threads_t& t) {
            comet::nbc::engine<threads_t> nb(t);
            comet::nbc::progress_thread helper(nb);
            const int me = t.rank();
            for (int round = 0; round < 3; ++round) {
                // Large enough for reduce-scatter and the pipeline, and several rounds of each.
                std::vector<double> v(20000);
                for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(me + static_cast<int>(i % 100) + round);
                std::vector<std::byte> data(200 * 1024, me == 0 ? std::byte{7} : std::byte{0});
                auto a = nb.iallreduce(v, reduce_op::sum);
                auto b = nb.ibroadcast(0, data);
                helper.resume();
                busy(30);
                helper.pause();
                if (!a.active() && !b.active()) ++done_by_pause;
                nb.wait(a);
                nb.wait(b);
                for (std::size_t i = 0; i < v.size(); ++i)
                    require(t, v[i] == p * static_cast<double>(static_cast<int>(i % 100) + round) + p * (p - 1) / 2.0, "element ", i, " is ", v[i]);
                for (std::byte x : data) require(t, x == std::byte{7}, "the broadcast's bytes");
                require(t, a.algorithm() == "reduce_scatter_allgather" && b.algorithm() == (p > 2 ? "pipeline" : "binomial"),
                        "algorithms");
            }
            calls += helper.calls();
            ++checked;
        });
        BOOST_TEST(checked == p);
        BOOST_TEST(calls > 0u);  // the threads did call progress()
        // Usually every rank's collectives completed while it computed; on a loaded machine a
        // thread may not have run at all, which is allowed (wait completes them).
        BOOST_TEST_MESSAGE(p << " ranks: " << done_by_pause << " of " << 3 * p << " completed before pause");
    }
}

BOOST_AUTO_TEST_CASE(pause_rethrows_what_progress_raised_once) {
    std::string said;
    std::atomic<int> second_pause_quiet{0};
    comet::threads::run(2, [&](threads_t& t) {
        comet::nbc::engine<threads_t> nb(t);
        comet::nbc::progress_thread helper(nb);
        // Rank 1 expects 16 bytes where rank 0 sends 8: its progress thread finds out. Rank 0
        // starts only once rank 1 has (else rank 1's start could find the message itself).
        std::vector<std::byte> b(t.rank() == 1 ? 16 : 8);
        if (t.rank() == 0) t.recv(1, 1, {});
        auto r = nb.ibroadcast(0, b);
        if (t.rank() == 1) t.send(0, 1, {});
        helper.resume();
        if (t.rank() == 1) {
            try {
                // Until the thread has failed (it then stops calling progress; pause rethrows).
                for (int i = 0; i < 2000; ++i) {
                    busy(1);
                    helper.pause();
                    helper.resume();
                }
                helper.pause();
            } catch (const comet::invalid_argument& e) {
                said = e.what();
            }
            // The collective that raised is over: its receive dropped, never advanced again.
            if (!nb.test(r) || nb.outstanding() != 0) said += " (and the request is not over)";
            try {
                helper.pause();  // already rethrown: nothing more
                ++second_pause_quiet;
            } catch (...) {
            }
        } else {
            busy(5);
            helper.pause();
            nb.wait(r);
        }
    });
    BOOST_TEST(said.find("rank 1: nbc binomial: rank 0 sent 8 bytes where this rank expects 16") == 0, said);
    BOOST_TEST(second_pause_quiet == 1);
}

BOOST_AUTO_TEST_CASE(a_thread_never_resumed_or_still_resumed_ends_cleanly) {
    std::atomic<int> ended{0};
    comet::threads::run(3, [&](threads_t& t) {
        comet::nbc::engine<threads_t> nb(t);
        { comet::nbc::progress_thread idle(nb); }
        {
            comet::nbc::progress_thread idle(nb);
            idle.pause();  // pausing a parked thread is a no-op
            if (idle.calls() != 0) throw std::logic_error("a parked thread called progress");
        }
        auto r = nb.ibarrier();
        {
            comet::nbc::progress_thread running(nb);
            running.resume();
            busy(5);
        }  // destroyed while resumed: it stops, and the rank's thread has the engine back
        nb.wait(r);
        ++ended;
    });
    BOOST_TEST(ended == 3);
}

BOOST_AUTO_TEST_SUITE_END()
