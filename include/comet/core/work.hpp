// comet/core/work.hpp — a unit of computation that a kernel asks its transport to perform.
//
// Kernels that mix communication with computation (CoMet's overlap kernel, NIST's synthetic
// applications, the nonblocking-collective overhead benchmark) describe the computation as a
// `work` value and call `t.compute(w)`. A transport on real hardware performs it with
// `perform(w)`; the simulated iPSC/860 charges virtual time from its CPU model instead, which
// keeps those kernels deterministic there. Decorators can scale it (time dilation).
//
// `work::copy` is different: it describes data the caller moves itself — assembling a strided
// column into a buffer, scattering one back, a local transpose — so that a simulated machine can
// charge what that movement cost the real one. `perform` does nothing for it: on real hardware
// the caller's own copy is the cost, and it is paid once.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace comet {

enum class work_kind : unsigned char {
    daxpy,  ///< y = a*x + y over `length` doubles: 2 flops and 24 bytes of memory traffic per element
    flops,  ///< `length` dependent floating-point multiply-adds: compute-bound, no memory traffic
    busy,   ///< keep the CPU busy for `seconds` of wall time (a calibrated delay)
    copy,   ///< `length` elements of `element` bytes the caller copies itself, `stride` bytes apart on one side
};

/// A description of computation; cheap to copy, compared by value.
struct work {
    work_kind kind = work_kind::daxpy;
    std::size_t length = 0;  ///< vector length (daxpy) or operation count (flops)
    double seconds = 0.0;    ///< duration (busy)
    std::size_t element = 0; ///< bytes per element (copy)
    std::size_t stride = 0;  ///< bytes from one element to the next on the strided side (copy; = element: contiguous)

    static constexpr work daxpy(std::size_t n) noexcept { return {work_kind::daxpy, n, 0.0}; }
    static constexpr work flops(std::size_t n) noexcept { return {work_kind::flops, n, 0.0}; }
    static constexpr work busy(double s) noexcept { return {work_kind::busy, 0, s}; }
    /// `count` elements of `element` bytes that the caller copies itself, read or written
    /// `stride` bytes apart on one side and contiguously on the other (a column of a row-major
    /// matrix: stride = its row's bytes); `stride == element` is a contiguous copy.
    static constexpr work copy(std::size_t count, std::size_t element, std::size_t stride) noexcept {
        return {work_kind::copy, count, 0.0, element, stride};
    }

    friend constexpr bool operator==(const work&, const work&) = default;
};

namespace detail {

/// The vectors the host DAXPY works on. One pair per thread, grown on demand and kept, so that
/// repeated calls touch warm, already-faulted memory: callers that time `perform` should call
/// it once untimed with the largest length first.
struct daxpy_vectors {
    std::vector<double> x, y;
    void reserve(std::size_t n) {
        if (x.size() < n) {
            x.resize(n, 1.0);
            y.resize(n, 0.0);
        }
    }
};

inline daxpy_vectors& thread_daxpy_vectors() {
    thread_local daxpy_vectors v;
    return v;
}

}  // namespace detail

/// Performs `w` on the calling thread's CPU. The results land in memory that outlives the call,
/// so no optimisation level can remove the work.
inline void perform(const work& w) {
    switch (w.kind) {
    case work_kind::daxpy: {
        auto& v = detail::thread_daxpy_vectors();
        v.reserve(w.length);
        const double a = 1.0000001;
        double* __restrict y = v.y.data();
        const double* __restrict x = v.x.data();
        for (std::size_t i = 0; i < w.length; ++i) y[i] = a * x[i] + y[i];
        break;
    }
    case work_kind::flops: {
        // A dependent chain: each step needs the previous result, so the loop cannot be
        // vectorised away and runs at the latency of one multiply-add per operation.
        volatile double sink = 0.0;
        double acc = 1.0;
        for (std::size_t i = 0; i < w.length; ++i) acc = acc * 0.9999999 + 1e-9;
        sink = acc;
        (void)sink;
        break;
    }
    case work_kind::busy: {
        using clock = std::chrono::steady_clock;
        const auto until = clock::now() + std::chrono::duration_cast<clock::duration>(
                                              std::chrono::duration<double>(std::max(0.0, w.seconds)));
        while (clock::now() < until) {
        }
        break;
    }
    case work_kind::copy: break;  // the caller moves the data itself; that is the cost
    }
}

}  // namespace comet
