// comet/transport/nx2/memory.hpp — the host memory a run of the simulated machine needs, so that
// `nx2::run` refuses one the host cannot hold before it allocates (one line naming the machine's
// size, the estimate and the memory available) instead of failing with std::bad_alloc midway.
//
// Two parts: what every node of the machine costs whether a rank runs on it or not (the engine's
// and NX/2's state, its counters, its channels), and what every rank costs at least (its stack's
// touched pages and the rest of its share of the simulator's state).
#pragma once

#include <comet/core/errors.hpp>
#include <comet/transport/nx2/machine.hpp>
#include <comet/transport/nx2/network.hpp>
#include <comet/transport/nx2/world.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace comet::nx2::detail {

/// Bytes of memory the host has available now (MemAvailable in /proc/meminfo), or 0 if unknown.
inline std::uint64_t available_memory() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return 0;
}

/// The least memory a rank costs whatever it runs: the simulator's state for its node and the
/// stack pages its fiber touches (ten barriers on 65,536 ranks peak at 7.2 KiB per rank,
/// bench/bench_nx2.cpp).
inline constexpr std::uint64_t least_bytes_per_rank = 6 * 1024;

/// Refuses a run the host cannot hold (`have` bytes available; 0: unknown), before it
/// allocates: one line naming the size and the estimate.
inline void check_memory_for(int ranks, std::uint64_t have) {
    const std::uint64_t need = static_cast<std::uint64_t>(ranks) * least_bytes_per_rank;
    if (have != 0 && need > have)
        raise<error>(-1, "nx2::run: ", ranks, " ranks need at least ", need >> 20, " MiB (", least_bytes_per_rank / 1024,
                              " KiB each for the simulator's state and the stack pages a rank touches); this host has ",
                              have >> 20, " MiB available");
}

/// Bytes the simulator keeps for every node of machine `m`, whether a rank runs on it or not:
/// its process and kernel state, its counters, and both lanes of both directions of each of
/// its channels.
inline std::uint64_t bytes_per_node(const machine& m) {
    const auto ports = static_cast<std::uint64_t>(router(m).ports());
    return world::bytes_per_node() + sizeof(node_counters) + 2 * ports * network::bytes_per_lane();
}

/// The least memory a run of `ranks` ranks on machine `m` (already validated) needs.
inline std::uint64_t memory_needed(const machine& m, int ranks) {
    return static_cast<std::uint64_t>(m.nodes()) * bytes_per_node(m) + static_cast<std::uint64_t>(ranks) * least_bytes_per_rank;
}

/// Refuses a machine or a run the host cannot hold (`have` bytes available; 0: unknown) before
/// it allocates: one line naming the machine's size and the estimate, never std::bad_alloc.
inline void check_memory_for(const machine& m, int ranks, std::uint64_t have) {
    check_memory_for(ranks, have);
    const std::uint64_t need = memory_needed(m, ranks);
    if (have == 0 || need <= have) return;
    std::ostringstream what;
    if (m.network == topology::hypercube)
        what << "dimension = " << m.dimension;
    else
        what << "a " << m.columns << " x " << m.rows << " mesh";
    raise<error>(-1, "nx2::run: ", what.str(), " (", m.nodes(), " nodes) with ", ranks, " ranks needs at least ", need >> 20,
                 " MiB (", bytes_per_node(m), " bytes of the simulator's state per node, ", least_bytes_per_rank / 1024,
                 " KiB per rank); this host has ", have >> 20, " MiB available");
}

}  // namespace comet::nx2::detail
