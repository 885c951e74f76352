// comet/stats/curves.ipp — the definitions of comet/stats/curves.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/curves.hpp>

namespace comet {
namespace detail::growth {

COMET_DECL params without(const params& p, std::initializer_list<std::string_view> names) {
    params out;
    for (const auto& [name, value] : p)
        if (std::find(names.begin(), names.end(), name) == names.end()) out.set(name, value);
    return out;
}

COMET_DECL std::vector<curve> curves(const result_set& results, std::string_view kernel, std::string_view x_param,
                                     std::initializer_list<std::string_view> also_ignore) {
    std::vector<curve> out;
    for (const record* r : results.of(kernel)) {
        const auto x = r->params.number(x_param);
        if (!x) continue;
        params key = without(r->params, {x_param});
        if (also_ignore.size() != 0) key = without(key, also_ignore);
        auto it = std::find_if(out.begin(), out.end(), [&](const curve& c) { return c.key == key; });
        if (it == out.end()) it = out.insert(out.end(), curve{std::move(key), {}, {}, {}});
        if (std::string why = unusable_why(*r); !why.empty()) {
            it->left_out.emplace(*x, std::move(why));
            continue;
        }
        it->records[*x].push_back(r);
        auto& s = it->by_x[*x];
        const std::vector<double> valid = valid_samples(*r);
        s.insert(s.end(), valid.begin(), valid.end());
    }
    return out;
}

COMET_DECL std::vector<growth_point> points_of(const curve& c, statistic s) {
    std::vector<growth_point> pts;
    for (const auto& [x, samples] : c.by_x) pts.push_back({x, statistic_of(samples, s)});
    return pts;
}

COMET_DECL std::vector<std::string> flags_of(const curve& c, statistic s, std::string_view x_param) {
    std::map<double, std::string> flagged;
    for (const auto& [x, recs] : c.records)
        for (const record* r : recs)
            if (std::string why = statistic_flag(*r, s); !why.empty()) {
                flagged.emplace(x, std::move(why));
                break;
            }
    std::set<double> xs;
    for (const auto& [x, samples] : c.by_x) xs.insert(x);
    for (const auto& [x, why] : c.left_out) xs.insert(x);
    const std::string values = "values of " + std::string(x_param);
    std::vector<std::string> out;
    if (!flagged.empty()) out.push_back("the " + std::string(to_string(s)) + " is flagged at " + points_listed(flagged, xs.size(), values, ""));
    if (!c.left_out.empty()) out.push_back("left out (a record not read) at " + points_listed(c.left_out, xs.size(), values, ""));
    return out;
}

COMET_DECL double median_of(std::vector<double> v) { return v.empty() ? nan : summarize(v).median; }

COMET_DECL double max_of(const std::vector<double>& v) { return v.empty() ? nan : *std::max_element(v.begin(), v.end()); }

}  // namespace detail::growth
}  // namespace comet
