// comet/stats/delay_decomposition.ipp — the definitions of comet/stats/delay_decomposition.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/delay_decomposition.hpp>

namespace comet {

COMET_DECL delay_decomposition decompose(const message_trace& t, std::optional<std::size_t> control_bytes) {
    if (!(t.stop >= t.start))
        raise<invalid_argument>(t.rank, "decompose: the trace stops at ", t.stop, " s, before its start at ", t.start, " s");
    delay_decomposition d;
    d.elapsed = t.stop - t.start;
    d.interrupts = t.interrupts_known ? std::clamp(t.compute_interrupt_seconds, 0.0, t.compute_seconds) : 0.0;
    d.interrupts_known = t.interrupts_known;
    d.user = t.compute_seconds - d.interrupts;
    d.sent = t.sends.size();
    d.retransmissions = t.retransmissions;
    d.retransmissions_known = t.retransmissions_known;
    d.wire_known = t.wire_known;
    for (const traced_receive& r : t.receives) {
        if (r.completed < 0.0) continue;
        if (r.send_issued < 0.0)
            raise<invalid_argument>(t.rank, "decompose: a receive from rank ", r.matched_source, " has no send time (collect the trace first)");
        const bool user = !control_bytes || r.size > *control_bytes;
        if (user) ++d.received;
        if (t.wire_known) d.physical += r.wire_seconds;  // each packet's time, waited for or not
        const double a = r.blocked_from, b = r.blocked_to;
        if (b <= a) continue;
        const double s = std::clamp(r.send_issued, a, b);
        const double logical = s - a;
        d.logical += logical;
        d.physical_wait += b - s;
        if (!t.wire_known) d.physical += b - s;
        if (user && logical > 0.0) {
            ++d.logical_messages;
            d.user_logical += logical;
            d.max_logical = std::max(d.max_logical, logical);
        }
    }
    d.overhead = d.elapsed - d.user - d.logical - d.physical;
    return d;
}

COMET_DECL service_states combine(std::span<const delay_decomposition> ranks) {
    if (ranks.empty()) raise<invalid_argument>(-1, "combine: no ranks' service states");
    service_states s;
    s.ranks = static_cast<int>(ranks.size());
    std::size_t received = 0, logical_messages = 0;
    double logical_total = 0.0;
    s.retries_known = true;
    s.interrupts_known = true;
    s.wire_known = true;
    for (const delay_decomposition& d : ranks) {
        s.physical_wait += d.physical_wait;
        s.wire_known = s.wire_known && d.wire_known;
        s.interrupts += d.interrupts;
        s.interrupts_known = s.interrupts_known && d.interrupts_known;
        s.elapsed += d.elapsed, s.user += d.user, s.logical += d.logical, s.physical += d.physical, s.overhead += d.overhead;
        received += d.received;
        logical_messages += d.logical_messages;
        logical_total += d.user_logical;
        s.max_logical = std::max(s.max_logical, d.max_logical);
        s.messages += d.sent;
        s.retries += d.retransmissions;
        s.retries_known = s.retries_known && d.retransmissions_known;
    }
    const double n = static_cast<double>(ranks.size());
    for (double* x : {&s.elapsed, &s.user, &s.logical, &s.physical, &s.overhead, &s.interrupts, &s.physical_wait}) *x /= n;
    s.logical_message_percent = received ? 100.0 * static_cast<double>(logical_messages) / static_cast<double>(received) : 0.0;
    s.mean_logical = logical_messages ? logical_total / static_cast<double>(logical_messages) : 0.0;
    return s;
}

}  // namespace comet
