// comet/stats/message_trace.hpp — a rank's message trace as data: the sends it issued, the
// receives it posted with the intervals it waited for them, its computation and its
// retransmissions, in one global time base. The tracing decorator
// (transport/decorators/tracing.hpp) fills it; the delay decomposition (analysis/delays.hpp)
// reads it, without the decorator.
#pragma once

#include <comet/core/types.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace comet {

/// One message as its sender saw it.
struct traced_send {
    int dest = 0, tag = 0;
    std::size_t size = 0;
    double issued = 0.0;  ///< global time the send was issued
};

/// One receive as its receiver saw it. `blocked_*` is the interval the rank spent waiting for
/// this receive alone (0 to 0 when a `test` found it complete); a receive completed inside a
/// `wait_all` is given the part of the wait after the previous completion.
struct traced_receive {
    int source = any_source, tag = any_tag;  ///< as posted (any_source / any_tag allowed)
    int matched_source = -1, matched_tag = -1;  ///< from the status, once complete
    std::size_t size = 0;
    double blocked_from = 0.0, blocked_to = 0.0;
    double completed = -1.0;  ///< global time it completed; < 0 while incomplete
    double send_issued = -1.0;  ///< filled by `collect`; < 0 when unmatched
    /// Where the transport says (message_trace::wire_known): the message's packets' time on the
    /// wire, and the span from the first one's start to the last one's end (core/types.hpp,
    /// wire_span). 0 for a message to oneself.
    double wire_seconds = 0.0, wire_from = 0.0, wire_to = 0.0;
};

/// A rank's whole trace, in the global time base.
struct message_trace {
    int rank = 0, size = 0;
    double start = 0.0, stop = 0.0;  ///< the application's start and end (`start()`, `stop()`)
    double compute_seconds = 0.0;    ///< Σ the durations of `compute` calls between them
    /// Of compute_seconds, the CPU time the transport's interrupt handlers took during those
    /// calls, where it says (`counts_interrupt_time`: the simulator).
    double compute_interrupt_seconds = 0.0;
    bool interrupts_known = false;  ///< false: the transport does not say (not: there were none)
    bool wire_known = false;        ///< the receives' wire times are the transport's (else 0, unknown)
    std::size_t compute_calls = 0;
    std::vector<traced_send> sends;
    std::vector<traced_receive> receives;
    /// This rank's transmissions sent again between start and stop, where the transport counts them.
    std::uint64_t retransmissions = 0;
    bool retransmissions_known = false;  ///< false: the transport keeps no count (not: there were none)
};

}  // namespace comet
