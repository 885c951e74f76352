// comet/suite/suite.ipp — the definitions of comet/suite/suite.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/suite/suite.hpp>

namespace comet {

COMET_DECL const std::vector<kernel_descriptor>& suite_kernels() {
    static const std::vector<kernel_descriptor> all =
        std::apply([](const auto&... k) { return std::vector<kernel_descriptor>{k.descriptor...}; }, builtin_kernels());
    return all;
}

COMET_DECL bool is_matrix_kernel(std::string_view name) {
    return name == "update_guard" || name == "shift_matrix" || name == "transpose" || name == "row_broadcast" ||
           name == "col_broadcast";
}

COMET_DECL void check_suite(const suite_config& cfg, std::span<const kernel_descriptor> all) {
    if (cfg.rounds < 1) raise<invalid_argument>(-1, "suite: rounds ", cfg.rounds, " is below 1");
    for (auto d = all.begin(); d != all.end(); ++d)
        if (std::any_of(all.begin(), d, [&](const kernel_descriptor& e) { return e.name == d->name; }))
            raise<invalid_argument>(-1, "kernel '", d->name, "' is described twice");
    for (const auto& name : cfg.kernels) {
        if (find_kernel(name, all)) continue;
        std::string known;
        for (const auto& d : all) known += (known.empty() ? "" : ", ") + d.name;
        raise<invalid_argument>(-1, "unknown kernel '", name, "' (available: ", known, ")");
    }
}

COMET_DECL std::optional<std::string> suite_skip_reason(std::string_view kernel, int nodes,
                                                        std::span<const kernel_descriptor> all) {
    const kernel_descriptor* d = find_kernel(kernel, all);
    return d ? d->skip_reason(nodes) : std::nullopt;
}

COMET_DECL std::size_t suite_points(const suite_config& cfg, int nodes, std::span<const kernel_descriptor> all) {
    std::size_t points = 0;
    for (const auto& name : cfg.kernels)
        if (const kernel_descriptor* d = find_kernel(name, all); d && !d->skip_reason(nodes) && d->points)
            points += d->points(cfg, nodes);
    return points;
}

COMET_DECL void add_round(result_set& into, const result_set& round) {
    const bool first = into.records.empty();
    for (std::size_t i = 0; i < round.records.size(); ++i) {
        const record& r = round.records[i];
        record* at = nullptr;
        if (!first) {
            // The same config measures the same points in the same order: look there first.
            const std::string name = point_name(r);
            if (i < into.records.size() && point_name(into.records[i]) == name) at = &into.records[i];
            for (std::size_t j = 0; !at && j < into.records.size(); ++j)
                if (point_name(into.records[j]) == name) at = &into.records[j];
        }
        if (!at) {
            into.records.push_back(r);
            into.records.back().rounds = {{r.samples.size(), r.iterations}};
            continue;
        }
        if (at->overheads.size() == at->samples.size() && r.overheads.size() == r.samples.size())
            at->overheads.insert(at->overheads.end(), r.overheads.begin(), r.overheads.end());
        else
            at->overheads.clear();
        const std::size_t offset = at->samples.size();
        at->samples.insert(at->samples.end(), r.samples.begin(), r.samples.end());
        for (const auto& x : r.invalid) at->invalid.push_back({offset + x.index, x.why});
        for (const auto& [why, n] : r.dropped) add_dropped(*at, why, n);
        for (const auto& f : r.flags) add_flag(*at, f.what, f.why);
        at->rounds.push_back({r.samples.size(), r.iterations});
        for (const auto& n : r.notes)
            if (std::find(at->notes.begin(), at->notes.end(), n) == at->notes.end()) at->notes.push_back(n);
    }
    // A round that kept no sample of a point is no round of it.
    for (auto& r : into.records) std::erase_if(r.rounds, [](const round_count& c) { return c.samples == 0; });
}

COMET_DECL suite_config suite_later_rounds(suite_config cfg, std::span<const kernel_descriptor> all) {
    std::erase_if(cfg.kernels, [&](const std::string& name) {
        const kernel_descriptor* d = find_kernel(name, all);
        return d && d->one_run;
    });
    return cfg;
}

COMET_DECL void analyse(report& r, std::span<const kernel_descriptor> all, const analysis_options& opt) {
    for (const auto& d : all) {
        if (r.results.of(d.name).empty()) continue;
        for (const auto& a : d.analyses)
            if (a) a(r, d, opt);
    }
}

COMET_DECL void analyse(report& r, const analysis_options& opt) { analyse(r, suite_kernels(), opt); }

COMET_DECL std::vector<plot_description> suite_plots(std::span<const kernel_descriptor> all) {
    std::vector<plot_description> out;
    for (const auto& d : all)
        for (const auto& p : d.plots)
            if (std::none_of(out.begin(), out.end(), [&](const plot_description& q) { return q.name == p.name; }))
                out.push_back(p);
    return out;
}

COMET_DECL std::vector<thesis_shape> suite_shapes(std::span<const kernel_descriptor> all) {
    std::vector<thesis_shape> out;
    for (const auto& d : all) out.insert(out.end(), d.shapes.begin(), d.shapes.end());
    const auto& catalogue = thesis_shapes();
    const auto rank = [&](const thesis_shape& s) {
        const auto at = std::find_if(catalogue.begin(), catalogue.end(), [&](const thesis_shape& c) { return c.key == s.key; });
        return at - catalogue.begin();
    };
    std::stable_sort(out.begin(), out.end(), [&](const thesis_shape& a, const thesis_shape& b) { return rank(a) < rank(b); });
    return out;
}

}  // namespace comet
