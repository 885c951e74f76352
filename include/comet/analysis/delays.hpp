// comet/analysis/delays.hpp — the NIST seed's service states (section 4.1) from a message trace
// (transport/decorators/tracing.hpp), and its time-dilation analysis (section 4.3, equation 1).
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
//
// Dilation. With runs at factors D, normalised times T_D = T / D, E_D = E / D; the speedup is
// E_1 / E_D. Equation 1 estimates E_D ≈ Ū + P_1 / D + b1·MR + b0 (Ū the mean normalised user
// time, P_1 the undilated physical delay, MR the retransmissions): b1 and b0 are fitted by least
// squares to E_D − Ū − P_1 / D against MR; with every MR equal (no retransmissions, or a
// transport that counts none) only b0 can be fitted, and the fit says which. The estimate holds
// when it is within 10% (RMS) of the measured E_D and b1 does not rest on one run alone: two
// runs, or one run whose MR alone differs, are met exactly by b1 whatever the program does.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/stats/least_squares.hpp>
#include <comet/transport/decorators/tracing.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <span>
#include <string>
#include <vector>

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
inline delay_decomposition decompose(const message_trace& t) {
    if (!(t.stop >= t.start))
        raise<invalid_argument>(t.rank, "decompose: the trace stops at ", t.stop, " s, before its start at ", t.start, " s");
    delay_decomposition d;
    d.elapsed = t.stop - t.start;
    d.user = t.compute_seconds;
    d.sent = t.sends.size();
    d.retransmissions = t.retransmissions;
    d.retransmissions_known = t.retransmissions_known;
    for (const traced_receive& r : t.receives) {
        if (r.completed < 0.0) continue;
        if (r.send_issued < 0.0)
            raise<invalid_argument>(t.rank, "decompose: a receive from rank ", r.matched_source, " has no send time (collect the trace first)");
        ++d.received;
        const double a = r.blocked_from, b = r.blocked_to;
        if (b <= a) continue;
        const double s = std::clamp(r.send_issued, a, b);
        const double logical = s - a;
        d.logical += logical;
        d.physical += b - s;
        if (logical > 0.0) {
            ++d.logical_messages;
            d.max_logical = std::max(d.max_logical, logical);
        }
    }
    d.overhead = d.elapsed - d.user - d.logical - d.physical;
    return d;
}

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
inline service_states combine(std::span<const delay_decomposition> ranks) {
    if (ranks.empty()) raise<invalid_argument>(-1, "combine: no ranks' service states");
    service_states s;
    s.ranks = static_cast<int>(ranks.size());
    std::size_t received = 0, logical_messages = 0;
    double logical_total = 0.0;
    s.retries_known = true;
    for (const delay_decomposition& d : ranks) {
        s.elapsed += d.elapsed, s.user += d.user, s.logical += d.logical, s.physical += d.physical, s.overhead += d.overhead;
        received += d.received;
        logical_messages += d.logical_messages;
        logical_total += d.logical;
        s.max_logical = std::max(s.max_logical, d.max_logical);
        s.messages += d.sent;
        s.retries += d.retransmissions;
        s.retries_known = s.retries_known && d.retransmissions_known;
    }
    const double n = static_cast<double>(ranks.size());
    for (double* x : {&s.elapsed, &s.user, &s.logical, &s.physical, &s.overhead}) *x /= n;
    s.logical_message_percent = received ? 100.0 * static_cast<double>(logical_messages) / static_cast<double>(received) : 0.0;
    s.mean_logical = logical_messages ? logical_total / static_cast<double>(logical_messages) : 0.0;
    return s;
}

/// One dilated run: its factor and its (unnormalised) service states.
struct dilated_run {
    double factor = 1.0;
    service_states states;
};

/// Equation 1 fitted to a series of dilated runs, and what it says of each.
struct dilation_estimate {
    double mean_user = 0.0;     ///< Ū, the mean normalised user time over the runs
    double physical_1 = 0.0;    ///< P_1, the undilated run's physical delay
    double b1 = 0.0, b0 = 0.0;  ///< seconds per retransmission, seconds
    bool b1_fitted = false;     ///< false when every run had as many retransmissions (b1 = 0)
    std::vector<double> estimated;  ///< Ê_D per run, in the runs' order
    std::vector<double> speedup;    ///< E_1 / E_D per run
    double residual = 0.0;      ///< RMS of Ê_D − E_D, seconds
    double relative_residual = 0.0;  ///< residual / mean E_D
    /// The estimate is within 10% (RMS) of the measured E_D, and b1 was tested by more than one run.
    bool holds = true;
    std::string note;           ///< why the estimate is not to be trusted, or what it could not fit
};

/// Fits equation 1 to `runs` (one must have factor 1; every factor ≥ 1).
/// @throws invalid_argument when no run has factor 1, a factor is below 1, or there are
///         fewer than 2 runs.
inline dilation_estimate estimate_dilation(std::span<const dilated_run> runs) {
    if (runs.size() < 2) raise<invalid_argument>(-1, "estimate_dilation: ", runs.size(), " runs; the estimator needs at least 2");
    const dilated_run* first = nullptr;
    for (const dilated_run& r : runs) {
        if (!(r.factor >= 1.0)) raise<invalid_argument>(-1, "estimate_dilation: dilation factor ", r.factor, " is below 1");
        if (r.factor == 1.0) first = &r;
    }
    if (!first) raise<invalid_argument>(-1, "estimate_dilation: no undilated run (factor 1) among the ", runs.size());
    dilation_estimate e;
    e.physical_1 = first->states.physical;
    const double e1 = first->states.elapsed;
    for (const dilated_run& r : runs) e.mean_user += r.states.user / r.factor;
    e.mean_user /= static_cast<double>(runs.size());
    std::vector<double> mr, rest;
    for (const dilated_run& r : runs) {
        mr.push_back(static_cast<double>(r.states.retries));
        rest.push_back(r.states.elapsed / r.factor - e.mean_user - e.physical_1 / r.factor);
    }
    if (std::all_of(mr.begin(), mr.end(), [&](double v) { return v == mr.front(); })) {
        double mean = 0.0;
        for (double v : rest) mean += v;
        e.b0 = mean / static_cast<double>(rest.size());
        const bool counted = std::all_of(runs.begin(), runs.end(), [](const dilated_run& r) { return r.states.retries_known; });
        // Runs that differ in MR say they were counted, whatever their flag; equal ones from a
        // transport that counts none are not "0 retransmissions".
        e.note = counted ? "every run had " + std::to_string(static_cast<long long>(mr.front())) +
                               " retransmissions: b1 cannot be fitted, only b0"
                         : std::string("the transport counts no retransmissions (MR unknown): b1 cannot be fitted, only b0");
    } else {
        const line_fit f = fit_line(mr, rest);
        e.b1 = f.slope;
        e.b0 = f.intercept;
        e.b1_fitted = true;
    }
    double ss = 0.0, mean_e = 0.0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const double d = runs[i].factor, ed = runs[i].states.elapsed / d;
        e.estimated.push_back(e.mean_user + e.physical_1 / d + e.b1 * mr[i] + e.b0);
        e.speedup.push_back(ed > 0.0 ? e1 / ed : 0.0);
        ss += (e.estimated.back() - ed) * (e.estimated.back() - ed);
        mean_e += ed;
    }
    mean_e /= static_cast<double>(runs.size());
    e.residual = std::sqrt(ss / static_cast<double>(runs.size()));
    e.relative_residual = mean_e > 0.0 ? e.residual / mean_e : 0.0;
    // A run whose MR alone differs from the others' (leverage 1: two runs, or one run off the
    // others' common MR) is met exactly by b1, whatever its E_D: nothing tests b1 there.
    std::vector<double> exact;
    if (e.b1_fitted) {
        const double n = static_cast<double>(mr.size());
        double mean_mr = 0.0, sxx = 0.0;
        for (double v : mr) mean_mr += v / n;
        for (double v : mr) sxx += (v - mean_mr) * (v - mean_mr);
        for (std::size_t i = 0; i < mr.size(); ++i)
            if (1.0 / n + (mr[i] - mean_mr) * (mr[i] - mean_mr) / sxx > 1.0 - 1e-9) exact.push_back(runs[i].factor);
    }
    e.holds = e.relative_residual <= 0.10 && exact.empty();
    const auto add_note = [&](const std::string& s) { e.note += (e.note.empty() ? "" : "; ") + s; };
    if (e.relative_residual > 0.10)
        add_note("the estimate misses the measured E_D by " + std::to_string(e.relative_residual * 100.0).substr(0, 4) +
                 "% (RMS): equation 1 does not describe this program");
    else if (runs.size() == 2 && e.b1_fitted)
        add_note("2 runs determine b1 and b0 exactly: no run is left to test equation 1 against");
    else if (!exact.empty()) {
        std::ostringstream d;
        d << exact.front();
        add_note("b1 rests on the run at D = " + d.str() +
                 " alone (the only one whose MR differs), which it meets exactly: no run tests b1");
    }
    return e;
}

}  // namespace comet
