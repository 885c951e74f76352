// comet/stats/delay_decomposition.hpp — the NIST seed's service states (section 4.1) from a
// message trace (stats/message_trace.hpp, as the tracing decorator fills it): one rank's, and
// the seed's row over every rank.
//
// A rank's elapsed time E splits into
//   U  user computation: the time in `compute` calls, less the CPU time interrupt handlers took
//      during them where the transport says (the simulator; the seed's U "does not include the
//      time for interrupts to handle communication tasks", which are overhead);
//   L  logical delay: time blocked waiting for a message before its sender had issued the send
//      (the receive was posted, the send not yet issued: the algorithm made the rank wait);
//   P  physical delay: where the transport says how long each message was on the wire (the
//      simulators), the seed's: "the time a message takes to travel over the physical medium",
//      each packet's time accumulated ("the packet is the element of measurement"), the
//      system's acknowledgements included, whether the rank waited for it or not; elsewhere,
//      time blocked waiting for a message after its send was issued (the message was on its
//      way: the transport made the rank wait), which is kept as `physical_wait` in both cases;
//   O  overhead: everything else, O = E − U − L − P (sending, polling, headers, buffers,
//      interrupts, retransmissions' cost, waiting for sends to complete).
// A wait interval [a, b] for a message whose send was issued at s gives L = clamp(s, a, b) − a
// and physical_wait = b − max(a, s); P is the sum of physical_wait, or where the transport
// knows them, of the received messages' wire times (the rest of a wait, the sender's call and
// the receiver's handlers among it, is then overhead; and a packet that lands while the rank
// computes counts in P and comes out of O). Intervals in which the rank is not blocked add to neither: a message
// that arrived before its receive was waited for has no delay, as in the seed.
//
// Across ranks (the seed's tables A1–A6): each state is the mean over the N ranks; %LM is the
// percentage of received user messages with L > 0; A is the mean L of those messages; Max Log
// the largest single L of a user message; TM the messages sent by all ranks; retries the transport's retransmissions
// during the run summed over ranks (known only where the transport counts them: the simulator).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/stats/message_trace.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace comet {

/// One rank's service states, seconds (not normalised).
struct delay_decomposition {
    double elapsed = 0.0;   ///< E
    double user = 0.0;      ///< U
    double logical = 0.0;   ///< L
    double physical = 0.0;  ///< P
    double overhead = 0.0;  ///< O = E − U − L − P
    /// The interrupt handlers' time during computation: in O, not U (U + interrupts is the time
    /// in `compute` calls). 0 where the transport does not say (`interrupts_known`).
    double interrupts = 0.0;
    bool interrupts_known = false;
    /// Time blocked after the sends were issued (P where the wire is not known).
    double physical_wait = 0.0;
    bool wire_known = false;  ///< P is the received messages' time on the wire
    std::size_t received = 0;          ///< user messages received (not the control messages)
    std::size_t logical_messages = 0;  ///< of them, with L > 0
    double user_logical = 0.0;         ///< their L (the part of L that A averages)
    double max_logical = 0.0;          ///< the largest L of one of them
    std::size_t sent = 0;              ///< messages sent
    std::uint64_t retransmissions = 0;
    bool retransmissions_known = false;
};

/// The service states of one rank's trace (its receives matched by `tracing::collect`).
/// Received messages of at most `control_bytes` bytes are the application's control messages
/// (acknowledgements and the like): their waits are in L and P, but %LM, A and Max Log count user
/// messages only, as the seed's tables do (none given: every message is a user message).
/// @throws invalid_argument naming the rank when a completed receive has no send time (the trace
///         was not collected), or the trace's stop precedes its start.
COMET_DECL delay_decomposition decompose(const message_trace& t, std::optional<std::size_t> control_bytes = std::nullopt);

/// The seed's row for one run: means over ranks (E, U, L, P, O), %LM, A, Max Log, TM, retries.
/// Not normalised: `normalised(D)` divides the times the seed divides.
struct service_states {
    int ranks = 0;
    double elapsed = 0.0, user = 0.0, logical = 0.0, physical = 0.0, overhead = 0.0;  ///< means over ranks
    double interrupts = 0.0;               ///< mean over ranks, in O (delay_decomposition::interrupts)
    bool interrupts_known = false;
    double physical_wait = 0.0;            ///< mean over ranks (delay_decomposition::physical_wait)
    bool wire_known = false;
    double logical_message_percent = 0.0;  ///< %LM
    double mean_logical = 0.0;             ///< A: the mean L of messages with L > 0
    double max_logical = 0.0;              ///< Max Log (never normalised)
    std::size_t messages = 0;              ///< TM
    std::uint64_t retries = 0;
    bool retries_known = false;

    /// The times divided by `d` (E_D, U_D, L_D, P_D, O_D, A_D); counts and Max Log as they are.
    service_states normalised(double d) const noexcept {
        service_states n = *this;
        for (double* x : {&n.elapsed, &n.user, &n.logical, &n.physical, &n.overhead, &n.interrupts, &n.physical_wait, &n.mean_logical})
            *x /= d;
        return n;
    }
};

/// Combines every rank's decomposition.
/// @throws invalid_argument when `ranks` is empty.
COMET_DECL service_states combine(std::span<const delay_decomposition> ranks);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/delay_decomposition.ipp>
#endif
