// comet/report/json/derived.ipp — the definitions of comet/report/json/derived.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/json/derived.hpp>

namespace comet::detail::json {

COMET_DECL void write_break_test(writer& w, const break_test& t) {
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

COMET_DECL void write_fit(writer& w, const transfer_fit& f) {
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

COMET_DECL void write_string_array(writer& w, std::string_view name, const std::vector<std::string>& items) {
    w.key(name);
    w.begin_array(true);
    for (const auto& item : items) w.string(item);
    w.end_array();
}

COMET_DECL void write_bandwidth(writer& w, const bandwidth_figures& b) {
    w.begin_object(true);
    w.member("kernel", b.kernel);
    w.member("hops", b.hops);
    w.member("peak", b.peak);
    w.member("n_half", b.n_half);
    w.member("n_90", b.n_90);
    write_string_array(w, "flags", b.flags);
    w.end_object();
}

COMET_DECL void write_group(writer& w, const params& group) {
    w.key("group");
    w.begin_object(true);
    for (const auto& [name, value] : group) write_param(w, name, value);
    w.end_object();
}

COMET_DECL void write_points(writer& w, std::string_view x, const std::vector<growth_point>& data) {
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

COMET_DECL void write_polynomial(writer& w, std::string_view name, const polynomial_fit& f) {
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

COMET_DECL void write_log_p(writer& w, const log_p_fit& f) {
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
    write_string_array(w, "flags", f.flags);
    w.end_object();
}

COMET_DECL void write_growth(writer& w, const growth_comparison& g) {
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
    write_string_array(w, "flags", g.flags);
    w.end_object();
}

COMET_DECL void write_contention(writer& w, const contention_slowdown& c) {
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
    write_string_array(w, "flags", c.flags);
    w.key("points");
    w.begin_array(true);
    for (const auto& p : c.points) {
        w.begin_object(true);
        w.member("size", p.size);
        w.member("idle", p.idle);
        w.member("loaded", p.loaded);
        w.member("ratio", p.ratio);
        write_string_array(w, "flags", p.flags);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

COMET_DECL void write_overlap(writer& w, const overlap_gain& o) {
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
    write_string_array(w, "large_flags", o.large_flags);
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
        write_string_array(w, "flags", s.flags);
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
        write_string_array(w, "flags", p.flags);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

COMET_DECL void write_count(writer& w, std::string_view name, const std::optional<std::int64_t>& v) {
    w.key(name);
    if (v)
        w.integer(*v);
    else
        w.null();
}

COMET_DECL void write_commtest(writer& w, const commtest_statistics& s) {
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

COMET_DECL void write_table(writer& w, const derived_table& t) {
    check_table(t);
    w.begin_object();
    w.member("name", t.name);
    w.member("title", t.title);
    w.member("kernel", t.kernel);
    w.key("lays_out_records");
    w.boolean(t.lays_out_records);
    w.key("columns");
    w.begin_array(true);
    for (const auto& c : t.columns) w.string(c);
    w.end_array();
    w.key("rows");
    w.begin_array();
    for (const auto& row : t.rows) {
        w.begin_object();
        w.key("cells");
        w.begin_array(true);
        for (const auto& c : row.cells) {
            if (const auto* v = std::get_if<std::string>(&c)) w.string(*v);
            else if (const auto* i = std::get_if<std::int64_t>(&c)) w.integer(*i);
            else if (const auto* d = std::get_if<double>(&c)) w.number(*d);
            else w.null();
        }
        w.end_array();
        write_flags(w, row.flags);
        w.end_object();
    }
    w.end_array();
    w.key("notes");
    w.begin_array();
    for (const auto& n : t.notes) w.string(n);
    w.end_array();
    w.end_object();
}

}  // namespace comet::detail::json
