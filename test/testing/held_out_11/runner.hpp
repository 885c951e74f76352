// held_out_11/runner.hpp — runs a conformance check's body on every rank of a mailbox world, each
// rank a thread. Deliberately without deadlock detection: a rank blocked forever (a lost
// message, a `test` that blocks) keeps `operator()` from returning, and it is the suite's job
// not to end up there. The driver (held_out_11.cpp) bounds that with a time limit per process.
#pragma once

#include "mailbox.hpp"

#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace held_out_11 {

template <class Endpoint>
struct runner {
    defect flaw = defect::none;

    /// A rank's exception ends the run: the others raise `comet::stopped` at their next call
    /// into the transport, every thread is joined, and the first failure is rethrown.
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = false;

    template <class F>
    void operator()(int ranks, F&& body) const {
        // On the heap, and left there when a rank failed: a witness may leave a call blocked on a
        // thread of its own, which still uses its endpoint and the world until it sees the stop.
        auto* w = new world(ranks, flaw);
        std::vector<std::unique_ptr<Endpoint>> endpoints;
        for (int r = 0; r < ranks; ++r) endpoints.push_back(std::make_unique<Endpoint>(*w, r));
        std::mutex m;
        std::exception_ptr first;
        std::vector<std::thread> threads;
        threads.reserve(static_cast<std::size_t>(ranks));
        for (int r = 0; r < ranks; ++r)
            threads.emplace_back([&, r] {
                try {
                    body(*endpoints[static_cast<std::size_t>(r)]);
                } catch (const comet::stopped&) {
                    // Unwound because another rank failed; that failure is the one reported.
                } catch (...) {
                    {
                        std::lock_guard l(m);
                        if (!first) first = std::current_exception();
                    }
                    w->stop();
                }
            });
        for (std::thread& t : threads) t.join();
        if (first) {
            for (auto& e : endpoints) (void)e.release();
            std::rethrow_exception(first);
        }
        endpoints.clear();
        delete w;
    }
};

}  // namespace held_out_11
