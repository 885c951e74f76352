// comet/transport/nx2/machine.hpp — the simulated machine as data: every parameter of the
// network, of NX/2's protocol and software costs, and of the node CPU, with the `ipsc860()`
// preset the CoMet thesis measured, the `ipsc1()` preset the NIST study (seed 003) ran on, a 2-D
// mesh variant, validation, a one-line description, and the CPU model that turns a
// `comet::work` into virtual time.
//
// Where each value comes from is said next to it; docs/nx2-model.md derives the calibrated ones
// (the thesis' echo figures, section 5.1; the published iPSC/1 figures, section 9) step by step.
// The model is data: no parameter is a compile-time switch, and a "what if" machine is this
// struct with other values.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/work.hpp>
#include <comet/transport/nx2/time.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

namespace comet::nx2 {

/// The interconnect's shape.
enum class topology : unsigned char {
    hypercube,  ///< 2^dimension nodes, one channel per dimension, e-cube routing (the iPSC/860)
    mesh,       ///< columns x rows nodes, four channels, XY routing (Touchstone Delta / Paragon-like)
};

/// Every parameter of a simulated machine. Times are picoseconds (see time.hpp for the units:
/// `25 * microseconds`). Fill with designated initialisers or start from a preset:
/// @code
///   auto m = comet::nx2::ipsc860(7);                       // the largest real iPSC/860
///   auto fast = comet::nx2::ipsc860(10);                   // a what-if: 1024 nodes,
///   fast.link_bytes_per_second = fast.dma_bytes_per_second = 20'000'000;  // faster channels
/// @endcode
struct machine {
    /// Shown in reports and descriptions.
    std::string name = "ipsc860";

    // ---- the network (thesis 4.1) ----

    topology network = topology::hypercube;
    /// Hypercube: 2^dimension nodes. The iPSC/860 had 0..7 (one of the DCM's 8 channels goes to
    /// I/O, thesis 4.1); larger values are what-if machines.
    int dimension = 4;
    /// Mesh: columns x rows nodes.
    int columns = 0;
    int rows = 0;
    /// Each direction of each channel: 2.8 MB/s ("bit-serial and bidirectional with a bandwidth
    /// of 2.8 Mbytes per second", thesis 4.1). A separate resource per direction.
    std::int64_t link_bytes_per_second = 2'800'000;
    /// Whether a channel carries one transmission at a time in either direction, replies
    /// included (an Ethernet segment between two nodes, the iPSC/1), instead of one per
    /// direction plus a lane for replies (the iPSC/860's bidirectional Direct-Connect channels).
    bool half_duplex = false;
    /// The node's memory <-> network interface. A stream runs at the slower of this and the
    /// channels. Calibrated: the thesis' echo gives 0.41 us/B above 100 B, slower than the
    /// channel's 0.357 us/B; 1 / 0.41 us/B, in whole bytes per second.
    std::int64_t dma_bytes_per_second = 2'439'024;
    /// Per hop and per network traversal: the header reserving the next channel of its
    /// circuit. Calibrated: a message over 100 B crosses the route three times (request,
    /// acknowledgement, data), so the thesis' h = 25 us per extra hop is 3 x 8.333 us.
    vtime hop_latency = 8'333'333;
    /// Bytes of routing header every transmission carries (destination, source, type, length:
    /// four 32-bit words; NX/2's exact layout is not in the thesis).
    std::int64_t header_bytes = 16;

    // ---- NX/2's protocol (thesis 4.2) ----

    /// Messages of at most this many bytes go eagerly into reserved buffers; larger ones by
    /// request, acknowledgement and a circuit ("smaller than or equal to 100 bytes").
    std::size_t eager_limit = 100;
    /// Buffers of `eager_limit` bytes each node reserves for each other node ("a number of
    /// 100-byte buffers"; the number is not in the thesis: 4).
    int eager_buffers = 4;
    /// A receiver returns freed buffers piggy-backed on its next transmission to their owner;
    /// when this many are pending, or when its process waits, it sends them back on their own.
    int credit_batch = 2;

    // ---- NX/2's software costs (calibrated to thesis 5.1; docs/nx2-model.md) ----

    /// One NX/2 system call: csend, crecv, isend, irecv, msgwait, msgdone, iprobe.
    vtime call = 25 * microseconds;
    /// One interrupt handler: a message, request, acknowledgement or credit arriving, or a
    /// send's DMA finishing. Steals the CPU from a computing process.
    vtime interrupt = 23'606'666;
    /// A process blocked in NX/2 continuing once what it waited for happened.
    vtime resume = 15'500'000;
    /// NX/2 copying a byte between a user buffer and a system buffer (about 4.4 cycles of the
    /// 25 ns i860 clock per byte).
    vtime copy_per_byte = 110'000;

    // ---- the node CPU (thesis 4.1: i860XR, 25 ns cycle, 70 ns DRAM, 60 MFLOPS peak in 64-bit,
    //      "less than one-third of the peak" achieved) ----

    /// One 64-bit floating-point operation of compiled code: 20 MFLOPS, a third of the peak.
    vtime flop_time = 50'000;
    /// Streaming a byte from or to DRAM with no cache reuse: one 70 ns access per 8-byte word.
    vtime memory_per_byte = 8'750;
    /// One multiply-add that waits for the previous one (work::flops): the i860's 3-stage
    /// multiplier and 3-stage adder, 6 cycles.
    vtime dependent_flop_time = 150'000;
    /// Bytes the data cache fetches from DRAM at a time: an element read (or written) far from
    /// the previous one costs a whole line of DRAM traffic. 32 bytes is an assumption: the thesis
    /// gives the i860XR's 8 KB two-way set-associative write-back data cache (4.1), not its line.
    std::int64_t cache_line_bytes = 32;

    // ---- optional: retransmission under congestion (the NIST iPSC-1 counted retries) ----

    /// A header that has waited this long for a channel gives its circuit up and the message
    /// is sent again after `retry_backoff` x attempts. 0: off (the iPSC/860's DCM waits).
    vtime retry_timeout = 0;
    vtime retry_backoff = 100 * microseconds;

    /// The number of nodes: 2^dimension, or columns x rows.
    int nodes() const noexcept {
        return network == topology::hypercube ? (dimension >= 0 && dimension < 31 ? 1 << dimension : 0) : columns * rows;
    }

    friend bool operator==(const machine&, const machine&) = default;
};

/// The iPSC/860 of the thesis (chapter 4) on a cube of `dimension` (the thesis used 1..4; the
/// real machine stopped at 7, larger cubes are what-if machines).
/// @throws invalid_argument for a dimension outside 0..20.
inline machine ipsc860(int dimension = 4) {
    if (dimension < 0 || dimension > 20)
        raise<invalid_argument>(-1, "nx2::ipsc860: dimension ", dimension, " is outside 0..20");
    machine m;
    m.dimension = dimension;
    return m;
}

/// The iPSC/1 of the NIST study (seed 003: a 16-node iPSC/1, section 4.2) on a cube of
/// `dimension`: 80286 nodes at 8 MHz, seven 10 Mbit/s Ethernet channels each (82586
/// controllers, one transmission at a time per channel), NX/1's messages of up to 1 KB as one
/// packet, and retransmission under congestion on. Each value's public source is given beside it
/// and in docs/nx2-model.md (section 9); none was chosen from the NIST applications' results.
/// The real machine had 5 to 7 dimensions (a 16-node d4 too); larger cubes are what-if machines.
/// @throws invalid_argument for a dimension outside 0..20.
inline machine ipsc1(int dimension = 4) {
    if (dimension < 0 || dimension > 20)
        raise<invalid_argument>(-1, "nx2::ipsc1: dimension ", dimension, " is outside 0..20");
    machine m;
    m.name = "ipsc1";
    m.dimension = dimension;
    // Network: an Ethernet (IEEE 802.3) segment per channel, driven by an 82586 at each end.
    m.link_bytes_per_second = 1'250'000;  // 10 Mbit/s
    m.half_duplex = true;                 // one shared medium: one frame at a time, either way
    // The node's side: the iPSC/2's 2.8 MB/s each way, full duplex, was "ten times the bandwidth
    // of the iPSC/1" (Intel, iPSC/2 paper, 1988): 5.6 MB/s / 10.
    m.dma_bytes_per_second = 560'000;
    m.hop_latency = 16 * microseconds;  // 802.3: 64-bit preamble (6.4 us) + 96-bit interframe gap (9.6 us)
    m.header_bytes = 18;                // 802.3: 14-byte header + 4-byte frame check sequence
    // NX/1: a message of up to one 1 KB packet goes at once into a buffer the receiver keeps;
    // the receiving system acknowledges each packet (seed 003, 4.1).
    m.eager_limit = 1024;
    m.credit_batch = 1;
    // Software: a zero-byte message to a neighbour took about three times the iPSC/2's 350 us
    // (Intel, 1988): 1050 us = C + I + R + H*w + h, so C + I + R = 1001.857143 us, split as the
    // iPSC/860's calibration splits it (docs/nx2-model.md, section 9).
    m.call = 390'699'285;
    m.interrupt = 368'924'301;
    m.resume = 242'233'557;
    m.copy_per_byte = 250'000;  // 80286 REP MOVSW: 4 clocks per 2-byte word at 8 MHz
    // CPU: 80286 + 80287 at 8 MHz, no cache.
    m.flop_time = 64 * microseconds;              // 2 MFLOPS for 128 nodes: 15.6 kFLOPS a node
    m.memory_per_byte = 125 * nanoseconds;        // a 16-bit bus cycle (2 clocks) per 2 bytes
    m.dependent_flop_time = 3'875 * nanoseconds;  // integer multiply-add: IMUL m16 (24) + ADD (7) clocks
    m.cache_line_bytes = 2;                       // no cache: an element costs its own bus words
    // Retransmission: a packet that finds its channel busy for longer than a whole packet takes
    // (1 KB and its header at 0.56 MB/s) gives up, and is sent again 100 times a neighbour's
    // latency later ("delayed by a factor of 100 or more", seed 003, 4.1).
    m.retry_timeout = 1'860'714'286;
    m.retry_backoff = 105 * milliseconds;
    return m;
}

/// The iPSC/860's nodes, channels and NX/2 on a `columns` x `rows` 2-D mesh with XY routing (the
/// layout of the Touchstone Delta and the Paragon): a what-if machine.
/// @throws invalid_argument for a side below 1 or more than 2^20 nodes.
inline machine mesh(int columns, int rows) {
    if (columns < 1 || rows < 1 || std::int64_t{columns} * rows > (std::int64_t{1} << 20))
        raise<invalid_argument>(-1, "nx2::mesh: ", columns, " x ", rows, " is not a mesh of 1 to 1048576 nodes");
    machine m;
    m.name = "ipsc860-mesh";
    m.network = topology::mesh;
    m.columns = columns;
    m.rows = rows;
    return m;
}

namespace detail {

/// `value` / 10^decimals as an exact decimal, trailing zeros dropped: 23766667, 6 -> "23.766667".
inline std::string fixed(std::int64_t value, int decimals) {
    std::int64_t scale = 1;
    for (int i = 0; i < decimals; ++i) scale *= 10;
    std::string s = std::to_string(value / scale);
    std::int64_t frac = value % scale;
    if (frac < 0) frac = -frac;
    if (frac != 0) {
        std::string f = std::to_string(frac);
        f.insert(0, static_cast<std::size_t>(decimals) - f.size(), '0');
        while (!f.empty() && f.back() == '0') f.pop_back();
        s += '.' + f;
    }
    return s;
}

inline void check_range(const char* what, std::int64_t value, std::int64_t lo, std::int64_t hi) {
    if (value < lo || value > hi)
        raise<invalid_argument>(-1, "nx2 machine: ", what, " = ", value, " is outside ", lo, "..", hi);
}

}  // namespace detail

/// Checks every parameter of `m`; the message names the first bad one and its value.
/// @throws invalid_argument
inline void validate(const machine& m) {
    if (m.network == topology::hypercube) {
        detail::check_range("dimension", m.dimension, 0, 20);
    } else if (m.network == topology::mesh) {
        detail::check_range("columns", m.columns, 1, 1 << 20);
        detail::check_range("rows", m.rows, 1, 1 << 20);
        if (std::int64_t{m.columns} * m.rows > (std::int64_t{1} << 20))
            raise<invalid_argument>(-1, "nx2 machine: a ", m.columns, " x ", m.rows, " mesh has more than 1048576 nodes");
    } else {
        raise<invalid_argument>(-1, "nx2 machine: unknown topology ", static_cast<int>(m.network));
    }
    constexpr std::int64_t tera = 1'000'000'000'000;
    detail::check_range("link_bytes_per_second", m.link_bytes_per_second, 1, tera);
    detail::check_range("dma_bytes_per_second", m.dma_bytes_per_second, 1, tera);
    detail::check_range("hop_latency (ps)", m.hop_latency, 0, seconds);
    detail::check_range("header_bytes", m.header_bytes, 0, 1 << 16);
    if (m.eager_limit > std::size_t{1} << 20)
        raise<invalid_argument>(-1, "nx2 machine: eager_limit = ", m.eager_limit, " is outside 0..", 1 << 20);
    detail::check_range("eager_buffers", m.eager_buffers, 1, 65535);
    detail::check_range("credit_batch", m.credit_batch, 1, m.eager_buffers);
    detail::check_range("call (ps)", m.call, 0, seconds);
    detail::check_range("interrupt (ps)", m.interrupt, 0, seconds);
    detail::check_range("resume (ps)", m.resume, 0, seconds);
    detail::check_range("copy_per_byte (ps)", m.copy_per_byte, 0, milliseconds);
    detail::check_range("flop_time (ps)", m.flop_time, 0, milliseconds);
    detail::check_range("memory_per_byte (ps)", m.memory_per_byte, 0, milliseconds);
    detail::check_range("dependent_flop_time (ps)", m.dependent_flop_time, 0, milliseconds);
    detail::check_range("cache_line_bytes", m.cache_line_bytes, 1, 4096);
    detail::check_range("retry_timeout (ps)", m.retry_timeout, 0, seconds);
    detail::check_range("retry_backoff (ps)", m.retry_backoff, m.retry_timeout > 0 ? 1 : 0, seconds);
    // A hypercube's e-cube routes take one channel per dimension in ascending order, whichever
    // way they go, so shared half-duplex channels still form no cycle; XY routes going east and
    // west along a row take the same channels in opposite orders, and two such circuits could
    // wait for each other for ever unless one gives up.
    if (m.half_duplex && m.network == topology::mesh && m.retry_timeout == 0)
        raise<invalid_argument>(-1, "nx2 machine: half_duplex on a mesh needs retransmission (retry_timeout > 0): circuits "
                                    "going opposite ways along a row or column would wait for each other for ever");
}

/// One line naming every parameter, for reports ("ipsc860: hypercube d=4 (16 nodes), ...").
/// Exact decimals from the integers, so the same machine always gives the same text.
inline std::string describe(const machine& m) {
    using detail::fixed;
    std::ostringstream os;
    os << m.name << ": ";
    if (m.network == topology::hypercube)
        os << "hypercube d=" << m.dimension << " (" << m.nodes() << " nodes, e-cube routing)";
    else
        os << "mesh " << m.columns << "x" << m.rows << " (" << m.nodes() << " nodes, XY routing)";
    os << ", link " << fixed(m.link_bytes_per_second, 6) << " MB/s " << (m.half_duplex ? "half" : "full")
       << " duplex, dma " << fixed(m.dma_bytes_per_second, 6) << " MB/s, hop " << fixed(m.hop_latency, 6) << " us, header "
       << m.header_bytes << " B; eager <= " << m.eager_limit << " B into " << m.eager_buffers
       << " buffers per sender, credits back in batches of " << m.credit_batch
       << "; call " << fixed(m.call, 6) << " us, interrupt " << fixed(m.interrupt, 6) << " us, resume "
       << fixed(m.resume, 6) << " us, copy " << fixed(m.copy_per_byte, 6) << " us/B; flop " << fixed(m.flop_time, 3)
       << " ns, memory " << fixed(m.memory_per_byte, 3) << " ns/B, dependent flop " << fixed(m.dependent_flop_time, 3)
       << " ns, cache line " << m.cache_line_bytes << " B; retransmission ";
    if (m.retry_timeout > 0)
        os << "after " << fixed(m.retry_timeout, 6) << " us waiting, backoff " << fixed(m.retry_backoff, 6) << " us";
    else
        os << "off";
    return os.str();
}

/// The virtual time `w` takes on a node of `m` (the CPU model; docs/nx2-model.md):
/// - daxpy(n): n x max(2 flops, 24 bytes of DRAM traffic): the i860 overlaps its pipelined loads
///   with the floating-point units, so the slower of the two sets the pace; with the preset,
///   memory (210 ns per element, 9.5 MFLOPS) — DAXPY on vectors far larger than the 8 KB data
///   cache is memory-bound;
/// - flops(n): n dependent multiply-adds at the pipelines' latency;
/// - busy(s): s, to the picosecond;
/// - copy(n, e, s): the DRAM traffic of n elements of e bytes, each read on one side and written
///   on the other: e for the contiguous side, and min(s, line) (at least e) for the strided
///   one, since an element far from the last costs a whole cache line — a strided column costs
///   (32 + 8) / (8 + 8) = 2.5 times a contiguous row of the same doubles.
/// Any machine with these four CPU parameters (the LogGOPS machine's too, loggops/machine.hpp).
template <class Machine>
vtime compute_time(const Machine& m, const work& w) {
    switch (w.kind) {
    case work_kind::daxpy:
        return times(std::max(times(m.flop_time, 2), times(m.memory_per_byte, 24)), w.length);
    case work_kind::flops: return times(m.dependent_flop_time, w.length);
    case work_kind::busy: return from_seconds(w.seconds);
    case work_kind::copy: {
        const std::uint64_t line = static_cast<std::uint64_t>(m.cache_line_bytes);
        const std::uint64_t strided = std::max<std::uint64_t>(w.element, std::min<std::uint64_t>(w.stride, line));
        return times(m.memory_per_byte, (strided + w.element) * w.length);
    }
    }
    raise<invalid_argument>(-1, "nx2: unknown work kind ", static_cast<int>(w.kind));
}

/// The time to add `n` doubles into a vector (gdsum's combining step): one flop and 24 bytes
/// (two loads, one store) per element, paced like DAXPY.
inline vtime vector_add_time(const machine& m, std::size_t n) {
    return times(std::max(m.flop_time, times(m.memory_per_byte, 24)), n);
}

}  // namespace comet::nx2
