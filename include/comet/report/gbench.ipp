// comet/report/gbench.ipp — the definitions of comet/report/gbench.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/gbench.hpp>

namespace comet {
namespace detail::gbench {

COMET_DECL std::string executable_of(std::string_view line) {
    if (!line.empty() && line.front() == '\'') {
        const auto end = line.find('\'', 1);
        return std::string(line.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
    }
    return std::string(line.substr(0, line.find(' ')));
}

COMET_DECL std::string label_of(const record& r) {
    std::string out;
    for (const auto& [name, value] : r.values) out += (out.empty() ? "" : "/") + name + ':' + compare::value_text(value);
    return out;
}

COMET_DECL void write_context(json::writer& w, const context& c) {
    const machine_readings& m = c.machine;
    w.key("context");
    w.begin_object();
    std::string date = c.date;  // Google writes the offset: 2024-05-01T12:34:56+00:00
    if (!date.empty() && date.back() == 'Z') date.replace(date.size() - 1, 1, "+00:00");
    w.member("date", date);
    w.member("host_name", c.host);
    w.member("executable", executable_of(c.command_line));
    if (m.logical_cores > 0) w.member("num_cpus", m.logical_cores);
    // Google calls scaling enabled when cpu0's governor is anything but "performance".
    if (!m.governor.empty() && m.governor != "unknown") w.member("cpu_scaling_enabled", m.governor != "performance");
    w.key("caches");
    w.begin_array();
    for (const auto& cache : m.caches) {
        w.begin_object(true);
        w.member("type", cache.type);
        w.member("level", cache.level);
        w.member("size", cache.size);
        w.end_object();
    }
    w.end_array();
    w.key("load_avg");
    w.begin_array(true);
    if (m.load_start)
        for (double v : {m.load_start->one, m.load_start->five, m.load_start->fifteen}) w.number(v);
    w.end_array();
    if (!c.build.type.empty()) w.member("library_build_type", c.build.type);
    w.member("comet_version", c.comet_version);
    w.member("comet_transport", c.transport);
    w.member("comet_nodes", c.nodes);
    w.member("comet_compiler", c.compiler);
    w.member("comet_command_line", c.command_line);
    w.member("comet_cpu_time", std::string("a copy of real_time: comet measures wall-clock time only"));
    w.key("comet_notes");  // what a reader must know before trusting the times, as in results.json
    w.begin_array();
    for (const auto& note : context_notes(c)) w.string(note);
    w.end_array();
    w.key("comet_extra");
    w.begin_object();
    for (std::size_t i = 0; i < c.extra.size(); ++i) {  // unique names, the last value, as results.json
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

COMET_DECL void write_entry(json::writer& w, const entry_head& h, std::string_view suffix, std::string_view label, bool aggregate,
                            std::size_t repetitions) {
    w.begin_object(true);
    w.member("name", h.name + std::string(suffix));
    w.member("family_index", h.family);
    w.member("per_family_instance_index", h.instance);
    w.member("run_name", h.name);
    w.member("run_type", std::string(aggregate ? "aggregate" : "iteration"));
    w.member("repetitions", repetitions);
    if (!label.empty()) w.member("label", label);
}

COMET_DECL void end_entry(json::writer& w, double ns) {
    w.member("real_time", ns);
    w.member("cpu_time", ns);
    w.member("time_unit", std::string("ns"));
    w.end_object();
}

}  // namespace detail::gbench
}  // namespace comet

namespace comet {

COMET_DECL void write_gbench(std::ostream& os, const result_set& results, const context& ctx) {
    using detail::gbench::entry_head;
    detail::json::writer w(os);
    w.begin_object();
    detail::gbench::write_context(w, ctx);
    w.key("benchmarks");
    w.begin_array();
    std::vector<std::string> families;  // kernels in order of appearance: Google's family_index
    std::vector<std::size_t> instances;  // records written per family so far
    for (const auto& r : results.records) {
        if (!usable(r)) continue;
        const summary s = summarize(r);  // also rejects NaN
        std::size_t f = 0;
        while (f < families.size() && families[f] != r.kernel) ++f;
        if (f == families.size()) {
            families.push_back(r.kernel);
            instances.push_back(0);
        }
        const entry_head head{.name = point_name(r), .family = f, .instance = instances[f]++};
        const std::string label = detail::gbench::label_of(r);
        // The valid samples are the repetitions (an invalid one is no measurement of the point),
        // each with the iterations of its round.
        const std::size_t n = valid_count(r);
        std::vector<std::size_t> iterations(r.samples.size(), r.iterations);
        for (std::size_t k = 0, at = 0; k < r.rounds.size(); at += r.rounds[k].samples, ++k)
            std::fill_n(iterations.begin() + static_cast<std::ptrdiff_t>(at), r.rounds[k].samples, r.rounds[k].iterations);
        for (std::size_t i = 0, repetition = 0; i < r.samples.size(); ++i) {
            if (!is_valid_sample(r, i)) continue;
            detail::gbench::write_entry(w, head, "", label, false, n);
            w.member("repetition_index", repetition++);
            w.member("iterations", iterations[i]);
            detail::gbench::end_entry(w, r.samples[i] * 1e9);
        }
        const auto aggregate = [&](std::string_view name, std::string_view unit, double value) {
            detail::gbench::write_entry(w, head, "_" + std::string(name), label, true, n);
            w.member("aggregate_name", name);
            w.member("aggregate_unit", unit);
            w.member("iterations", n);  // as Google: an aggregate's iterations are the repetitions
            detail::gbench::end_entry(w, value);
        };
        aggregate("mean", "time", s.mean * 1e9);
        aggregate("median", "time", s.median * 1e9);
        if (n >= 2) {
            aggregate("stddev", "time", s.stddev * 1e9);
            if (s.mean != 0.0) aggregate("cv", "percentage", s.stddev / s.mean);
        }
    }
    w.end_array();
    w.end_object();
    w.finish();
}

COMET_DECL void write_gbench(std::ostream& os, const report& r) { write_gbench(os, r.results, r.ctx); }

}  // namespace comet
