// comet/report/json/record.ipp — the definitions of comet/report/json/record.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/json/record.hpp>

namespace comet::detail::json {

COMET_DECL void write_param(writer& w, std::string_view name, const param_value& v) {
    w.key(name);
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>)
                w.string(x);
            else if constexpr (std::is_same_v<T, double>)
                w.number(x);
            else
                w.integer(x);
        },
        v);
}

COMET_DECL void write_flags(writer& w, std::span<const flag> flags) {
    w.key("flags");
    w.begin_array();
    for (const auto& f : flags) {
        w.begin_object(true);
        w.member("what", f.what);
        w.member("why", f.why);
        w.end_object();
    }
    w.end_array();
}

COMET_DECL void write_record(writer& w, const record& r) {
    w.begin_object();
    w.member("kernel", r.kernel);
    w.key("params");
    w.begin_object(true);
    for (const auto& [name, value] : r.params) write_param(w, name, value);
    w.end_object();
    if (!r.values.empty()) {
        w.key("values");
        w.begin_object(true);
        for (const auto& [name, value] : r.values) write_param(w, name, value);
        w.end_object();
    }
    const summary all = summarize(r);
    const assessment a = assess(r, all);
    // A point flagged as a whole reports no statistic: every one of them null.
    const summary s = find_flag(a.flags, "point") ? summarize(std::span<const double>{}) : all;
    w.key("stats");
    w.begin_object(true);
    w.member("min", s.min);
    w.member("median", s.median);
    w.member("mean", s.mean);
    w.member("max", s.max);
    w.member("n", a.valid);
    w.member("total", a.total);
    w.member("stddev", s.stddev);
    w.member("p05", s.p05);
    w.member("p95", s.p95);
    w.member("median_ci_low", s.median_ci_low);
    w.member("median_ci_high", s.median_ci_high);
    w.member("ci_coverage", s.ci_coverage);
    w.member("mad", s.mad);
    w.member("rel_spread", s.rel_spread);
    w.member("unstable", s.unstable);
    w.member("outliers", a.outliers);
    w.end_object();
    if (!a.flags.empty()) write_flags(w, a.flags);
    w.key("samples");
    w.begin_array(true);
    for (double x : r.samples) w.number(x);
    w.end_array();
    if (!r.invalid.empty()) {  // by reason: "negative": [3, 17]
        std::vector<std::string> reasons;
        for (const auto& x : r.invalid)
            if (std::find(reasons.begin(), reasons.end(), x.why) == reasons.end()) reasons.push_back(x.why);
        w.key("invalid");
        w.begin_object(true);
        for (const auto& why : reasons) {
            w.key(why);
            w.begin_array(true);
            for (const auto& x : r.invalid)
                if (x.why == why) w.integer(x.index);
            w.end_array();
        }
        w.end_object();
    }
    if (!r.dropped.empty()) {
        w.key("dropped");
        w.begin_object(true);
        for (const auto& [why, n] : r.dropped) w.member(why, n);
        w.end_object();
    }
    // What the sampling engine decided (timing/measure.hpp), where it made the record.
    if (r.iterations) w.member("iterations", r.iterations);
    if (!r.overheads.empty()) {
        w.key("overheads");
        w.begin_array(true);
        for (double x : r.overheads) w.number(x);
        w.end_array();
    }
    if (!r.stop.empty()) w.member("stop", r.stop);
    if (!r.rounds.empty()) {
        w.key("rounds");
        w.begin_array(true);
        for (const auto& round : r.rounds) {
            w.begin_object(true);
            w.member("samples", round.samples);
            w.member("iterations", round.iterations);
            w.end_object();
        }
        w.end_array();
    }
    if (!r.notes.empty()) {
        w.key("notes");
        w.begin_array(true);
        for (const auto& n : r.notes) w.string(n);
        w.end_array();
    }
    w.end_object();
}

}  // namespace comet::detail::json
