// comet/core/preemptions.hpp — how often the operating system took the CPU away from the calling
// thread: its involuntary context switches so far (getrusage's ru_nivcsw), which a transport on
// real hardware reports as its rank's disturbances (core/concepts.hpp, counts_disturbances).
//
// Why these and not time stolen: a thread cannot see how long it was off its CPU, but it can see
// that it was. An involuntary switch is the scheduler handing the CPU to someone else while the
// thread could run (another process, a kernel thread, a rank of the same run on too few cores);
// blocking for a message is a voluntary one and does not count. A timer interrupt that returns
// to the same thread is not a switch at all, which is why a quiet machine reads 0 over a sample.
#pragma once

#include <cstdint>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#endif
#if defined(__linux__)
#include <sched.h>
#endif

namespace comet {

/// The calling thread's involuntary context switches so far (its process's where the system
/// counts no thread's own; 0 where it counts neither).
inline std::uint64_t involuntary_switches() noexcept {
#if defined(__linux__)
    rusage u{};
    if (getrusage(RUSAGE_THREAD, &u) != 0) return 0;
    return static_cast<std::uint64_t>(u.ru_nivcsw);
#elif defined(__unix__) || defined(__APPLE__)
    rusage u{};
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
    return static_cast<std::uint64_t>(u.ru_nivcsw);
#else
    return 0;
#endif
}

/// The CPUs this process may run on (sched_getaffinity), or `fallback` where that cannot be asked.
inline int usable_cpu_count(int fallback) noexcept {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
    return fallback;
}

}  // namespace comet
