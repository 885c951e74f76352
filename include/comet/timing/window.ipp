// comet/timing/window.ipp — the definitions of comet/timing/window.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/timing/window.hpp>

namespace comet {
namespace detail::window {

COMET_DECL void check(int rank, int p, std::string_view who, const window_config& c) {
    if (c.measurements < 1) raise<invalid_argument>(rank, who, ": window.measurements must be at least 1, got 0");
    if (c.measurements > 1'000'000)
        raise<invalid_argument>(rank, who, ": window.measurements = ", c.measurements, " is over 10^6");
    if (c.pipeline < 1) raise<invalid_argument>(rank, who, ": window.pipeline must be at least 1, got 0");
    if (c.loop_barriers > 1000) raise<invalid_argument>(rank, who, ": window.loop_barriers = ", c.loop_barriers, " is over 1000");
    if (!std::isfinite(c.window_seconds) || c.window_seconds < 0.0)
        raise<invalid_argument>(rank, who, ": window.window_seconds = ", c.window_seconds, " is not >= 0 seconds");
    if (!(c.max_overrun_fraction >= 0.0 && c.max_overrun_fraction <= 1.0))
        raise<invalid_argument>(rank, who, ": window.max_overrun_fraction = ", c.max_overrun_fraction, " is not in [0, 1]");
    if (c.max_widenings < 0 || c.max_widenings > 30)
        raise<invalid_argument>(rank, who, ": window.max_widenings = ", c.max_widenings, " is not in 0..30");
    if (c.max_attempts < 1 || c.max_attempts > 1000)
        raise<invalid_argument>(rank, who, ": window.max_attempts = ", c.max_attempts, " is not in 1..1000");
    for (const auto& [name, v] : {std::pair{"late_slack", c.late_slack}, std::pair{"resync_error", c.resync_error}})
        if (!(v > 0.0) || !std::isfinite(v)) raise<invalid_argument>(rank, who, ": window.", name, " = ", v, " is not > 0 seconds");
    if (c.designated < 0 || c.designated >= p)
        raise<invalid_argument>(rank, who, ": window.designated rank ", c.designated, " is outside 0..", p - 1);
}

}  // namespace detail::window
}  // namespace comet

namespace comet {

COMET_DECL void describe_window(record& rec, const windowed_point& m, const window_config& c, std::size_t per) {
    if (m.windowed) add_dropped(rec, "late_start", m.late);
    add_dropped(rec, "preempted", m.preempted);
    if (m.windowed)
        rec.values.set("window", m.window).set("widenings", m.widenings).set("tolerance", m.tolerance);
    rec.values.set("clock_error", m.clock_error);
    rec.iterations = per;
    rec.stop = m.interrupted ? "interrupted" : "fixed";
    const auto us = [](double s) { return std::to_string(static_cast<long long>(std::llround(s * 1e6))); };
    const std::string valid = std::to_string(m.valid()) + " of " + std::to_string(m.attempts) + " measurements valid (" +
                              (m.windowed ? "started on time, undisturbed)" : "undisturbed)");
    if (m.interrupted)
        rec.notes.push_back("interrupted: " + valid);
    else if (2 * m.valid() < c.measurements && !m.windowed)
        add_flag(rec, "point", "its ranks kept being disturbed: " + valid);
    else if (2 * m.valid() < c.measurements)
        add_flag(rec, "point", "its windows kept failing: " + valid + " (tolerance " + us(m.tolerance) + " us, window " + us(m.window) +
                                   " us after " + std::to_string(m.widenings) + " doublings)");
    else if (m.valid() < c.measurements)
        rec.notes.push_back("only " + valid + ", " + std::to_string(c.measurements) + " wanted");
}

}  // namespace comet
