// bench/ping_pong.hpp — the simulators' message rate: ranks 0 and 1 bouncing 8-byte messages
// (bench_nx2, bench_loggops); how many messages a second of host time that makes is each
// benchmark's to say.
#pragma once

#include <cstddef>
#include <vector>

namespace bench {

/// `round_trips` 8-byte round trips between ranks 0 and 1 of `t` (other ranks do nothing).
template <class Transport>
void ping_pong(Transport& t, std::size_t round_trips) {
    std::vector<std::byte> b(8);
    for (std::size_t i = 0; i < round_trips; ++i) {
        if (t.rank() == 0) {
            t.send(1, 1, b);
            t.recv(1, 1, b);
        } else if (t.rank() == 1) {
            t.recv(0, 1, b);
            t.send(0, 1, b);
        }
    }
}

}  // namespace bench
