// comet/transport/threads/copy.hpp — how the threads transport copies a large message out of
// its sender's buffer.
//
// A large message is copied once, by the receiver, straight from the sender's buffer; in an
// echo the receiver's buffer then goes back the other way, so each copy writes lines the other
// core held a moment ago. glibc's memcpy changes method with the size: from about 2 KiB it uses
// the string instruction `rep movsb`, and above a threshold derived from the cache size (on
// AMD Zen with glibc 2.36: 1 MiB, the L2) a vector loop with ordinary stores, which must take
// each destination line over from the other core one by one. Measured on such a machine, a
// two-thread ping-pong of 1 MiB took 3× longer with that loop than with `rep movsb` (and 4 MiB
// 3.5×), while below the threshold the two are the same. So a large message is copied with
// `rep movsb` wherever the processor says it is fast (ERMS, CPUID leaf 7), and with memcpy
// elsewhere. bench/bench_threads.cpp measures the transport against a floor that copies the
// same way.
#pragma once

#include <cstddef>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define COMET_THREADS_REP_MOVSB 1
#endif

namespace comet::threads::detail {

/// Messages from this size are copied with copy_bulk's string instruction, where there is one.
inline constexpr std::size_t bulk_copy_from = 64 * 1024;

#ifdef COMET_THREADS_REP_MOVSB
/// True if this processor has Enhanced REP MOVSB (CPUID.(EAX=7,ECX=0):EBX bit 9).
inline bool has_fast_rep_movsb() noexcept {
    static const bool yes = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (__get_cpuid_max(0, nullptr) < 7) return false;
        __cpuid_count(7, 0, a, b, c, d);
        return (b & (1u << 9)) != 0;
    }();
    return yes;
}
#endif

/// Copies `n` bytes of a message from `src` to `dst` (not overlapping).
inline void copy_bulk(std::byte* dst, const std::byte* src, std::size_t n) noexcept {
#ifdef COMET_THREADS_REP_MOVSB
    if (n >= bulk_copy_from && has_fast_rep_movsb()) {
        asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
        return;
    }
#endif
    if (n) std::memcpy(dst, src, n);
}

}  // namespace comet::threads::detail
