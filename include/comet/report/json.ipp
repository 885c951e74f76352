// comet/report/json.ipp — the definitions of comet/report/json.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/json.hpp>

namespace comet {

COMET_DECL void write_json(std::ostream& os, const report& r) {
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
    w.key("tables");
    w.begin_array();
    for (const auto& t : r.tables) detail::json::write_table(w, t);
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
