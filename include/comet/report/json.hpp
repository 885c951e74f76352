// comet/report/json.hpp — results.json: the context, every record with its params, summary
// and raw samples, the transfer fits (a flagged fit as `"valid": false`, its flags, and null
// coefficients — never its numbers) with their break tests, the bandwidth figures, the derived
// sections, and COMMTEST's statistics (a flagged a or b as `null`, its flags beside), in the
// schema documented in docs/results-schema.md (schema_version 2).
//
// The writer is hand-written (a few dozen lines; no JSON dependency for one output format) and
// deterministic: keys in a fixed order, params in the order the kernel set them, numbers in the
// shortest form that reads back to the same double (std::to_chars), so identical inputs give
// byte-identical files that diff cleanly. NaN, infinities and absent optionals are written as
// `null` — JSON has no NaN token, and a file with one is rejected by strict parsers.
// Deliberately not here: the Google-Benchmark-compatible JSON (a different schema).
#pragma once

#include <comet/report/context.hpp>
#include <comet/report/report.hpp>
#include <comet/stats/bandwidth.hpp>
#include <comet/stats/commtest.hpp>
#include <comet/stats/fit_results.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace comet {

/// The version of the results.json schema this header writes; bumped on any incompatible change.
inline constexpr int results_schema_version = 2;

namespace detail::json {

/// Appends `s` as a JSON string literal: quote and backslash escaped, control characters as
/// \u00XX, and any byte sequence that is not valid UTF-8 replaced by \ufffd (JSON text must be
/// UTF-8, and a host name or command line is not guaranteed to be).
inline void write_string(std::ostream& os, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    os << '"';
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = byte(i);
        if (c == '"' || c == '\\') {
            os << '\\' << static_cast<char>(c);
            ++i;
        } else if (c < 0x20 || c == 0x7f) {
            os << "\\u00" << hex[c >> 4] << hex[c & 0xf];
            ++i;
        } else if (c < 0x80) {
            os << static_cast<char>(c);
            ++i;
        } else {
            // Length and the allowed range of the second byte, per RFC 3629 (no overlongs, no
            // surrogates, nothing above U+10FFFF).
            std::size_t len = 0;
            unsigned char lo = 0x80, hi = 0xbf;
            if (c >= 0xc2 && c <= 0xdf) len = 2;
            else if (c >= 0xe0 && c <= 0xef) {
                len = 3;
                if (c == 0xe0) lo = 0xa0;
                if (c == 0xed) hi = 0x9f;
            } else if (c >= 0xf0 && c <= 0xf4) {
                len = 4;
                if (c == 0xf0) lo = 0x90;
                if (c == 0xf4) hi = 0x8f;
            }
            bool ok = len > 0 && i + len <= s.size();
            for (std::size_t k = 1; ok && k < len; ++k) {
                const unsigned char b = byte(i + k);
                ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xbf);
            }
            if (ok) {
                os.write(s.data() + i, static_cast<std::streamsize>(len));
                i += len;
            } else {
                os << "\\ufffd";
                ++i;
            }
        }
    }
    os << '"';
}

/// Appends `v` with the fewest digits that read back to the same double; `null` when not finite.
/// Plain notation for magnitudes in [1e-4, 1e16) and exponent notation outside it (Python's
/// repr rule): 0.0001 and 2500000 read better than 1e-04 and 2.5e+06, which plain to_chars
/// would pick for being one character shorter.
inline void write_number(std::ostream& os, double v) {
    if (!std::isfinite(v)) {
        os << "null";
        return;
    }
    char buf[400];  // fixed notation of a value just under 1e16 needs 17 digits; subnormals use exponents
    const double a = std::fabs(v);
    const auto fmt = (a == 0.0 || (a >= 1e-4 && a < 1e16)) ? std::chars_format::fixed : std::chars_format::scientific;
    const auto res = std::to_chars(buf, buf + sizeof buf, v, fmt);
    os.write(buf, res.ptr - buf);
}

template <class I>
    requires std::is_integral_v<I>
inline void write_integer(std::ostream& os, I v) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);  // never the stream: no locale grouping
    os.write(buf, res.ptr - buf);
}

/// A streaming writer that tracks commas and indentation. Containers opened `compact` (and
/// everything inside them) are written on one line: params, stats and samples stay readable
/// as one line each instead of one line per number.
class writer {
public:
    explicit writer(std::ostream& os) : os_(os) {}

    void begin_object(bool compact = false) { open('{', compact); }
    void end_object() { close('}'); }
    void begin_array(bool compact = false) { open('[', compact); }
    void end_array() { close(']'); }

    void key(std::string_view k) {
        separate();
        write_string(os_, k);
        os_ << ": ";
        after_key_ = true;
    }

    void string(std::string_view s) {
        separate();
        write_string(os_, s);
    }
    void number(double v) {
        separate();
        write_number(os_, v);
    }
    void number(std::optional<double> v) {
        if (v)
            number(*v);
        else
            null();
    }
    template <class I>
        requires std::is_integral_v<I>
    void integer(I v) {
        separate();
        write_integer(os_, v);
    }
    void null() {
        separate();
        os_ << "null";
    }
    void boolean(bool b) {
        separate();
        os_ << (b ? "true" : "false");
    }

    template <class V>
    void member(std::string_view k, const V& v) {
        key(k);
        if constexpr (std::is_same_v<V, double> || std::is_same_v<V, std::optional<double>>)
            number(v);
        else if constexpr (std::is_same_v<V, bool>)  // before is_integral: true, not 1
            boolean(v);
        else if constexpr (std::is_integral_v<V>)
            integer(v);
        else
            string(v);
    }

    /// Call once at the end: the file ends with a newline.
    void finish() { os_ << '\n'; }

private:
    struct level {
        bool compact;
        bool empty = true;
    };

    void separate() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (stack_.empty()) return;
        auto& top = stack_.back();
        if (!top.empty) os_ << ',';
        if (top.compact) {
            if (!top.empty) os_ << ' ';
        } else {
            newline(stack_.size());
        }
        top.empty = false;
    }
    void open(char c, bool compact) {
        separate();
        os_ << c;
        stack_.push_back({compact || (!stack_.empty() && stack_.back().compact)});
    }
    void close(char c) {
        const level l = stack_.back();
        stack_.pop_back();
        if (!l.compact && !l.empty) newline(stack_.size());
        os_ << c;
    }
    void newline(std::size_t depth) {
        os_ << '\n';
        for (std::size_t i = 0; i < depth; ++i) os_ << "  ";
    }

    std::ostream& os_;
    std::vector<level> stack_;
    bool after_key_ = false;
};

inline void write_param(writer& w, std::string_view name, const param_value& v) {
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

inline void write_context(writer& w, const context& c) {
    w.key("context");
    w.begin_object();
    w.member("comet_version", c.comet_version);
    w.member("host", c.host);
    w.member("date", c.date);
    w.member("compiler", c.compiler);
    w.member("command_line", c.command_line);
    w.key("build");
    w.begin_object(true);
    w.member("type", c.build.type);
    w.key("optimized");
    if (c.build.optimized)
        w.boolean(*c.build.optimized);
    else
        w.null();
    w.key("sanitizers");
    w.begin_array(true);
    for (const auto& s : c.build.sanitizers) w.string(s);
    w.end_array();
    w.end_object();
    const machine_readings& m = c.machine;
    w.key("machine");
    w.begin_object();
    w.member("cpu_model", m.cpu_model);
    // 0 cores means not known: null, as for any value that does not exist.
    for (const auto& [name, n] : {std::pair{"logical_cores", m.logical_cores}, std::pair{"usable_cores", m.usable_cores}}) {
        w.key(name);
        if (n > 0)
            w.integer(n);
        else
            w.null();
    }
    w.key("caches");
    w.begin_array(true);
    for (const auto& cache : m.caches) {
        w.begin_object(true);
        w.member("level", cache.level);
        w.member("type", cache.type);
        w.member("size", cache.size);
        w.end_object();
    }
    w.end_array();
    w.member("governor", m.governor);
    w.member("turbo", m.turbo);
    for (const auto& [name, load] : {std::pair{"load_start", &m.load_start}, std::pair{"load_end", &m.load_end}}) {
        w.key(name);
        if (!*load) {
            w.null();
            continue;
        }
        w.begin_array(true);  // [1, 5, 15 minutes], as google/benchmark's load_avg
        for (double v : {(*load)->one, (*load)->five, (*load)->fifteen}) w.number(v);
        w.end_array();
    }
    w.member("local_ranks", m.local_ranks);
    w.end_object();
    w.key("mpi_library");
    if (c.mpi_library.empty())
        w.null();
    else
        w.string(c.mpi_library);
    w.key("transport_capabilities");
    w.begin_array(true);
    for (const auto& cap : c.transport_capabilities) w.string(cap);
    w.end_array();
    w.key("notes");  // derived from the readings when written, so they always match them
    w.begin_array();
    for (const auto& note : context_notes(c)) w.string(note);
    w.end_array();
    w.key("extra");
    w.begin_object();
    // One member per name, at the place it first appears, with the value it last had: a JSON
    // object's names should be unique (RFC 8259 4), and readers disagree about duplicates.
    for (std::size_t i = 0; i < c.extra.size(); ++i) {
        bool seen = false;
        for (std::size_t k = 0; k < i && !seen; ++k) seen = c.extra[k].first == c.extra[i].first;
        if (seen) continue;
        const std::string* value = &c.extra[i].second;
        for (std::size_t k = i + 1; k < c.extra.size(); ++k)
            if (c.extra[k].first == c.extra[i].first) value = &c.extra[k].second;
        w.member(c.extra[i].first, *value);
    }
    w.end_object();
    w.end_object();
}

inline void write_record(writer& w, const record& r) {
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
    if (!a.flags.empty()) {
        w.key("flags");
        w.begin_array();
        for (const auto& f : a.flags) {
            w.begin_object(true);
            w.member("what", f.what);
            w.member("why", f.why);
            w.end_object();
        }
        w.end_array();
    }
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

inline void write_break_test(writer& w, const break_test& t) {
    w.begin_object(true);
    w.member("regimes", t.regimes);
    w.member("break_size", t.break_size);
    w.member("f", t.f);
    w.member("df1", t.df1);
    w.member("df2", t.df2);
    w.member("p_nominal", t.p_nominal);
    w.member("candidates", t.candidates);
    w.member("p", t.p);
    w.member("alpha", t.alpha);
    w.member("given", t.given);
    w.member("chosen", t.chosen);
    w.end_object();
}

/// A fit; a flagged one (`valid` false) has every coefficient and standard error `null`, so
/// no script can read a hop of −414.9 µs as a result: the reasons are in `flags`.
inline void write_fit(writer& w, const transfer_fit& f) {
    const bool ok = f.valid();
    const auto shown = [&](std::optional<double> v) { return ok ? v : std::nullopt; };
    w.begin_object(true);
    w.member("kernel", f.kernel);
    w.member("regime", f.regime);
    w.member("valid", ok);
    w.key("flags");
    w.begin_array(true);
    for (const auto& flag : f.flags) w.string(flag);
    w.end_array();
    w.member("t_startup", shown(f.t_startup));
    w.member("t_startup_se", shown(f.t_startup_se));
    w.member("t_per_byte", shown(f.t_per_byte));
    w.member("t_per_byte_se", shown(f.t_per_byte_se));
    w.member("hop", shown(f.hop));
    w.member("hop_se", shown(f.hop_se));
    w.member("residual", f.residual);
    w.member("sigma", f.sigma);
    w.member("points", f.points);
    w.member("dof", f.dof);
    w.member("break_size", f.break_size);
    w.member("lower_break", f.lower_break);
    w.member("upper_break", f.upper_break);
    w.member("regimes", f.regimes);
    w.key("break_tests");
    w.begin_array(true);
    for (const auto& t : f.break_tests) write_break_test(w, t);
    w.end_array();
    w.end_object();
}

inline void write_bandwidth(writer& w, const bandwidth_figures& b) {
    w.begin_object(true);
    w.member("kernel", b.kernel);
    w.member("hops", b.hops);
    w.member("peak", b.peak);
    w.member("n_half", b.n_half);
    w.member("n_90", b.n_90);
    w.end_object();
}

inline void write_group(writer& w, const params& group) {
    w.key("group");
    w.begin_object(true);
    for (const auto& [name, value] : group) write_param(w, name, value);
    w.end_object();
}

inline void write_points(writer& w, std::string_view x, const std::vector<growth_point>& data) {
    w.key("data");
    w.begin_array(true);
    for (const auto& p : data) {
        w.begin_object(true);
        w.member(x, p.x);
        w.member("time", p.time);
        w.end_object();
    }
    w.end_array();
}

inline void write_polynomial(writer& w, std::string_view name, const polynomial_fit& f) {
    w.key(name);
    w.begin_object(true);
    w.key("coefficients");
    w.begin_array(true);
    for (double c : f.coefficients) w.number(c);
    w.end_array();
    w.member("residual", f.residual);
    w.member("r_squared", f.r_squared);
    w.end_object();
}

inline void write_log_p(writer& w, const log_p_fit& f) {
    w.begin_object();
    w.member("kernel", f.kernel);
    write_group(w, f.group);
    w.member("statistic", std::string(to_string(f.stat)));
    w.member("intercept", f.intercept);
    w.member("per_doubling", f.per_doubling);
    w.member("residual", f.residual);
    w.member("r_squared", f.r_squared);
    w.member("r_squared_linear_p", f.r_squared_linear_p);
    w.key("logarithmic");
    w.boolean(f.logarithmic);
    w.member("points", f.points);
    write_points(w, "nodes", f.data);
    w.end_object();
}

inline void write_growth(writer& w, const growth_comparison& g) {
    w.begin_object();
    w.member("kernel", g.kernel);
    w.member("x", g.x);
    write_group(w, g.group);
    w.member("statistic", std::string(to_string(g.stat)));
    write_polynomial(w, "linear", g.linear);
    write_polynomial(w, "quadratic", g.quadratic);
    w.member("quadratic_share", g.quadratic_share);
    w.member("f_statistic", g.f_statistic);
    w.member("f_critical", g.f_critical);
    w.member("model", std::string(to_string(g.model)));
    w.member("points", g.points);
    write_points(w, g.x, g.data);
    w.end_object();
}

inline void write_contention(writer& w, const contention_slowdown& c) {
    w.begin_object();
    w.member("kernel", c.kernel);
    write_group(w, c.group);
    w.member("load", c.load);
    w.member("cross_size", c.cross_size);
    w.member("statistic", std::string(to_string(c.stat)));
    w.member("median_ratio", c.median_ratio);
    w.member("geometric_mean_ratio", c.geometric_mean_ratio);
    w.member("min_ratio", c.min_ratio);
    w.member("max_ratio", c.max_ratio);
    w.key("points");
    w.begin_array(true);
    for (const auto& p : c.points) {
        w.begin_object(true);
        w.member("size", p.size);
        w.member("idle", p.idle);
        w.member("loaded", p.loaded);
        w.member("ratio", p.ratio);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

inline void write_overlap(writer& w, const overlap_gain& o) {
    w.begin_object();
    w.member("kernel", o.kernel);
    write_group(w, o.group);
    w.member("statistic", std::string(to_string(o.stat)));
    w.member("large_size", o.large_size);
    w.member("large_points", o.large_points);
    w.member("large_median_gain", o.large_median_gain);
    w.member("large_max_gain", o.large_max_gain);
    w.member("large_median_saved", o.large_median_saved);
    w.member("large_max_saved", o.large_max_saved);
    w.key("sizes");
    w.begin_array();
    for (const auto& s : o.sizes) {
        w.begin_object(true);
        w.member("size", s.size);
        w.member("points", s.points);
        w.member("median_gain", s.median_gain);
        w.member("max_gain", s.max_gain);
        w.member("median_saved", s.median_saved);
        w.member("max_saved", s.max_saved);
        w.end_object();
    }
    w.end_array();
    w.key("points");
    w.begin_array();
    for (const auto& p : o.points) {
        w.begin_object(true);
        w.member("size", p.size);
        w.member("vector_length", p.vector_length);
        w.member("sync", p.sync);
        w.member("async", p.async);
        w.member("gain", p.gain);
        w.member("saved", p.saved);
        w.member("hidden", p.hidden);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

/// An optional integer: the integer or `null`.
inline void write_count(writer& w, std::string_view name, const std::optional<std::int64_t>& v) {
    w.key(name);
    if (v)
        w.integer(*v);
    else
        w.null();
}

/// COMMTEST's statistics of one experiment. A flagged a (b) has a and the latency (b and the
/// bandwidths) `null`, so no script reads a negative latency as a result: the reasons are in
/// `flags`. The model's errors stay: they are facts about the data, and say why `model_error`.
inline void write_commtest(writer& w, const commtest_statistics& s) {
    const auto shown = [](std::optional<double> v, bool ok) { return ok ? v : std::nullopt; };
    const bool a_ok = s.a_valid(), b_ok = s.b_valid();
    w.begin_object();
    w.member("kernel", s.kernel);
    write_group(w, s.group);
    w.member("protocol", s.protocol);
    w.member("ordered", s.ordered);
    w.member("volume", s.volume);
    w.member("supported", s.supported);
    w.member("valid", s.valid());
    w.key("flags");
    w.begin_array(true);
    for (const auto& flag : s.flags) w.string(flag);
    w.end_array();
    write_count(w, "n1", s.n1);
    write_count(w, "n2", s.n2);
    w.member("a", shown(s.a, a_ok));
    w.member("latency", shown(s.latency, a_ok));
    w.member("b", shown(s.b, b_ok));
    w.member("swap_bandwidth", shown(s.swap_bandwidth, b_ok));
    w.member("busy_bandwidth", shown(s.busy_bandwidth, b_ok));
    w.member("idle_bandwidth", shown(s.idle_bandwidth, b_ok));
    write_count(w, "b_messages", s.b_messages);
    w.member("points", s.data.size());
    w.member("max_error", s.max_error);
    w.member("mean_error", s.mean_error);
    w.member("regimes", s.regimes);
    w.key("break_tests");
    w.begin_array(true);
    for (const auto& t : s.break_tests) write_break_test(w, t);
    w.end_array();
    w.member("dominant_all", s.dominant_is_all());
    w.member("dominant_points", s.dominant_points);
    write_count(w, "dominant_min_size", s.dominant_min_size);
    write_count(w, "dominant_max_size", s.dominant_max_size);
    w.member("dominant_max_error", s.dominant_max_error);
    w.member("dominant_mean_error", s.dominant_mean_error);
    w.key("data");
    w.begin_array(true);
    for (const auto& p : s.data) {
        w.begin_object(true);
        w.member("messages", p.messages);
        w.member("size", p.size);
        w.member("time", p.time);
        w.member("error", p.error);
        w.member("dominant", p.dominant);
        w.end_object();
    }
    w.end_array();
    w.key("notes");
    w.begin_array(true);
    for (const auto& n : s.notes) w.string(n);
    w.end_array();
    w.end_object();
}

}  // namespace detail::json

/// Writes `r` as results.json (schema_version 2, documented in docs/results-schema.md): keys
/// `schema_version`, `context`, `transport`, `nodes`, `results`, `fits`, `bandwidth`,
/// `log_p_fits`, `growth`, `contention`, `overlap`, `commtest`, `notes` (and `stopped`, for a run
/// that ended early), in that order. Times in seconds, sizes in bytes, bandwidths in bytes per second; NaN → null.
/// @throws invalid_argument when a record holds a NaN sample (see `summarize`).
/// @code  std::ofstream f(dir / "results.json"); comet::write_json(f, report);  @endcode
inline void write_json(std::ostream& os, const report& r) {
    detail::json::writer w(os);
    w.begin_object();
    w.member("schema_version", results_schema_version);
    detail::json::write_context(w, r.ctx);
    w.member("transport", r.ctx.transport);
    w.member("nodes", r.ctx.nodes);
    w.key("results");
    w.begin_array();
    for (const auto& rec : r.results.records) detail::json::write_record(w, rec);
    w.end_array();
    w.key("fits");
    w.begin_array();
    for (const auto& f : r.fits) detail::json::write_fit(w, f);
    w.end_array();
    w.key("bandwidth");
    w.begin_array();
    for (const auto& b : r.bandwidth) detail::json::write_bandwidth(w, b);
    w.end_array();
    w.key("log_p_fits");
    w.begin_array();
    for (const auto& f : r.log_p) detail::json::write_log_p(w, f);
    w.end_array();
    w.key("growth");
    w.begin_array();
    for (const auto& g : r.growth) detail::json::write_growth(w, g);
    w.end_array();
    w.key("contention");
    w.begin_array();
    for (const auto& c : r.contention) detail::json::write_contention(w, c);
    w.end_array();
    w.key("overlap");
    w.begin_array();
    for (const auto& o : r.overlap) detail::json::write_overlap(w, o);
    w.end_array();
    w.key("commtest");
    w.begin_array();
    for (const auto& c : r.commtest) detail::json::write_commtest(w, c);
    w.end_array();
    w.key("notes");
    w.begin_array();
    for (const auto& n : r.notes) w.string(n);
    w.end_array();
    if (r.stopped) {  // only in the file of a run that ended early
        w.key("stopped");
        w.begin_object();
        w.member("kernel", r.stopped->kernel);
        w.member("last_point", r.stopped->last_point);
        w.member("reason", r.stopped->reason);
        w.end_object();
    }
    w.end_object();
    w.finish();
}

}  // namespace comet
