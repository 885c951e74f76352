// comet/report/json/context.ipp — the definitions of comet/report/json/context.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/json/context.hpp>

namespace comet::detail::json {

COMET_DECL void write_context(writer& w, const context& c) {
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

}  // namespace comet::detail::json
