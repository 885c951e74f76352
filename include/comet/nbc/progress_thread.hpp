// comet/nbc/progress_thread.hpp — a thread that advances an engine's nonblocking collectives while
// the rank's own thread computes (asynchronous progress by a thread: Hoefler and Lumsdaine, "To
// thread or not to thread?", 2008; seed 002, section 4.2).
//
//   comet::nbc::progress_thread helper(nb);    // parked
//   auto r = nb.ibroadcast(0, data);
//   helper.resume();                            // calls nb.progress() until paused
//   compute();                                  // must not call the transport meanwhile
//   helper.pause();                             // returns once the thread is out of the engine
//   nb.wait(r);
//
// Only for a transport that may be called from a thread other than its rank's own, one thread at
// a time (MPI_THREAD_SERIALIZED's promise): it says so with `static constexpr bool
// thread_serialized = true;`. The threads transport does, and so does the MPI transport where
// MPI provided MPI_THREAD_SERIALIZED or more (`serialized_threads()`, which
// `comet::mpi::initialize(boost::mpi::threading::serialized)` asks for); the simulator cannot (its ranks are fibers in virtual
// time). The thread is
// inside the engine only while it holds a lock that `pause` takes, so the two threads never touch
// the engine at once and each sees what the other did.
//
// Resumed, the thread spins (yielding now and then): on a machine with a core to spare it
// progresses at once; on one without, it takes the computing thread's core, which a time-based
// overhead measurement does not see and a work-based one does (the seed's point). Parked, it
// sleeps.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/nbc/engine.hpp>

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

namespace comet::nbc {

using comet::thread_serialized_transport;  // core/concepts.hpp

/// A parked thread that calls `engine::progress()` between `resume()` and `pause()`.
template <transport T>
class progress_thread {
public:
    explicit progress_thread(engine<T>& e) : engine_(e), thread_([this] { loop(); }) {
        static_assert(thread_serialized_transport<T>, "a progress thread needs a transport that says thread_serialized");
    }
    progress_thread(const progress_thread&) = delete;
    progress_thread& operator=(const progress_thread&) = delete;
    ~progress_thread() {
        command_.store(quit, std::memory_order_release);
        command_.notify_one();
        thread_.join();
    }

    /// From now on the thread advances the engine; the caller must not call the engine or its
    /// transport until `pause` returns.
    void resume() {
        command_.store(run, std::memory_order_release);
        command_.notify_one();
    }
    /// Stops the thread advancing the engine and returns once it has left it; rethrows what the
    /// engine raised in the thread.
    void pause() {
        command_.store(park, std::memory_order_release);
        // The thread holds the lock for as long as it is inside the engine, and reads the command
        // under it: once the lock is ours, it is out and will see "park".
        { std::lock_guard<std::mutex> inside(inside_); }
        if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
    }
    /// Calls the thread made to `progress()` since it was created.
    unsigned long long calls() const noexcept { return calls_.load(std::memory_order_relaxed); }

private:
    enum : int { park, run, quit };

    void loop() {
        for (unsigned spins = 1;; ++spins) {
            const int c = command_.load(std::memory_order_acquire);
            if (c == quit) return;
            if (c == park) {
                command_.wait(park, std::memory_order_acquire);  // blocks: a parked thread takes no CPU
                continue;
            }
            {
                std::lock_guard<std::mutex> inside(inside_);
                if (command_.load(std::memory_order_acquire) != run || failure_) continue;
                try {
                    engine_.progress();
                } catch (...) {
                    failure_ = std::current_exception();
                }
                calls_.fetch_add(1, std::memory_order_relaxed);
            }
            if (spins % 64 == 0) std::this_thread::yield();
        }
    }

    engine<T>& engine_;
    std::atomic<int> command_{park};
    std::mutex inside_;
    std::atomic<unsigned long long> calls_{0};
    std::exception_ptr failure_;  ///< written under inside_, read by pause after taking it
    std::thread thread_;
};

}  // namespace comet::nbc
