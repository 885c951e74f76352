// comet/stats/delay_decomposition.hpp — the NIST seed's service states (section 4.1) from a
// message trace (stats/message_trace.hpp, as the tracing decorator fills it): one rank's, and
// the seed's row over every rank.
//
// A rank's elapsed time E splits into
//   U  user computation: the time in `compute` calls;
//   L  logical delay: time blocked waiting for a message before its sender had issued the send
//      (the receive was posted, the send not yet issued: the algorithm made the rank wait);
//   P  physical delay: time blocked waiting for a message after its send was issued (the
//      message was on its way: the transport made the rank wait);
//   O  overhead: everything else, O = E − U − L − P (sending, polling, headers, buffers,
//      retransmissions' cost, waiting for sends to complete).
// A wait interval [a, b] for a message whose send was issued at s gives L = clamp(s, a, b) − a
// and P = b − max(a, s). Intervals in which the rank is not blocked add to neither: a message
// that arrived before its receive was waited for has no delay, as in the seed.
//
// Across ranks (the seed's tables A1–A6): each state is the mean over the N ranks; %LM is the
// percentage of received messages with L > 0; A is the mean L of those messages; Max Log the
// largest single L; TM the messages sent by all ranks; retries the transport's retransmissions
// during the run summed over ranks (known only where the transport counts them: the simulator).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/stats/message_trace.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace comet {

/// One rank's service states, seconds (not normalised).
struct delay_decomposition {
    double elapsed = 0.0;   ///< E
    double user = 0.0;      ///< U
    double logical = 0.0;   ///< L
    double physical = 0.0;  ///< P
    double overhead = 0.0;  ///< O = E − U − L − P
    std::size_t received = 0;          ///< messages received
    std::size_t logical_messages = 0;  ///< of them, with L > 0
    double max_logical = 0.0;          ///< the largest L of one message
    std::size_t sent = 0;              ///< messages sent
    std::uint64_t retransmissions = 0;
    bool retransmissions_known = false;
};

/// The service states of one rank's trace (its receives matched by `tracing::collect`).
/// @throws invalid_argument naming the rank when a completed receive has no send time (the trace
///         was not collected), or the trace's stop precedes its start.
COMET_DECL delay_decomposition decompose(const message_trace& t);

/// The seed's row for one run: means over ranks (E, U, L, P, O), %LM, A, Max Log, TM, retries.
/// Not normalised: `normalised(D)` divides the times the seed divides.
struct service_states {
    int ranks = 0;
    double elapsed = 0.0, user = 0.0, logical = 0.0, physical = 0.0, overhead = 0.0;  ///< means over ranks
    double logical_message_percent = 0.0;  ///< %LM
    double mean_logical = 0.0;             ///< A: the mean L of messages with L > 0
    double max_logical = 0.0;              ///< Max Log (never normalised)
    std::size_t messages = 0;              ///< TM
    std::uint64_t retries = 0;
    bool retries_known = false;

    /// The times divided by `d` (E_D, U_D, L_D, P_D, O_D, A_D); counts and Max Log as they are.
    service_states normalised(double d) const noexcept {
        service_states n = *this;
        for (double* x : {&n.elapsed, &n.user, &n.logical, &n.physical, &n.overhead, &n.mean_logical}) *x /= d;
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
