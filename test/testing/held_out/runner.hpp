// held_out/runner.hpp — runs a conformance check's body on every rank of a mailbox world, each
// rank a thread. Deliberately without deadlock detection: a rank blocked forever (a lost
// message, a `test` that blocks) keeps `operator()` from returning, and it is the suite's job
// not to end up there. The driver (held_out.cpp) bounds that with a time limit per process.
#pragma once

#include "mailbox.hpp"

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace held_out {

template <class Endpoint>
struct runner {
    defect flaw = defect::none;

    /// A rank's exception ends the run: the others raise `comet::stopped` at their next call
    /// into the transport, every thread is joined, and the first failure is rethrown.
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = false;

    template <class F>
    void operator()(int ranks, F&& body) const {
        world w(ranks, flaw);
        std::mutex m;
        std::exception_ptr first;
        std::vector<std::thread> threads;
        threads.reserve(static_cast<std::size_t>(ranks));
        for (int r = 0; r < ranks; ++r)
            threads.emplace_back([&, r] {
                try {
                    Endpoint e(w, r);
                    body(e);
                } catch (const comet::stopped&) {
                    // Unwound because another rank failed; that failure is the one reported.
                } catch (...) {
                    {
                        std::lock_guard l(m);
                        if (!first) first = std::current_exception();
                    }
                    w.stop();
                }
            });
        for (std::thread& t : threads) t.join();
        if (first) std::rethrow_exception(first);
    }
};

}  // namespace held_out
