// comet/transport/threads/sleep.hpp — the two primitives a waiting rank of the threads
// transport needs: a polite spin (cpu_relax) and sleeping on a 32-bit word until another
// thread changes it (a Linux futex; elsewhere C++20 atomic wait).
#pragma once

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#endif

namespace comet::threads::detail {

/// Tells the core this is a spin-wait: on x86 `pause` stops the loop from flooding the memory
/// system with speculative loads and hands the pipeline to a hyperthread sibling.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) &&
                  std::atomic<std::uint32_t>::is_always_lock_free,
              "the futex word must be a plain 32-bit integer");

/// Sleeps while `word` holds `expected`, at most `timeout` (a wake-up may also be spurious:
/// callers re-check their condition). The timeout is a safety net, not a mechanism: every
/// state change that can satisfy a sleeper also wakes it.
inline void sleep_while_equal(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                              std::chrono::milliseconds timeout) noexcept {
#if defined(__linux__)
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    ts.tv_nsec = static_cast<long>((timeout.count() % 1000) * 1000000);
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, &ts, nullptr, 0);
#else
    (void)timeout;
    word.wait(expected);
#endif
}

/// Wakes every thread sleeping on `word`.
inline void wake_all(std::atomic<std::uint32_t>& word) noexcept {
#if defined(__linux__)
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
#else
    word.notify_all();
#endif
}

}  // namespace comet::threads::detail
