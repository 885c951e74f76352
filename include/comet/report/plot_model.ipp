// comet/report/plot_model.ipp — the definitions of comet/report/plot_model.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/plot_model.hpp>

namespace comet {
namespace detail::plot {

COMET_DECL bool valid_name(std::string_view s) {
    if (s.empty() || s.front() == '.') return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
               c == '.';
    });
}

COMET_DECL std::string text(const param_value& v) {
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    char buf[64];
    const auto res = std::holds_alternative<std::int64_t>(v)
                         ? std::to_chars(buf, buf + sizeof buf, std::get<std::int64_t>(v))
                         : std::to_chars(buf, buf + sizeof buf, std::get<double>(v));
    return std::string(buf, res.ptr);
}

COMET_DECL std::optional<double> number(const param_value& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    return std::nullopt;
}

COMET_DECL bool same(const param_value& a, const param_value& b) {
    const auto x = number(a), y = number(b);
    if (x && y) return *x == *y;
    return a == b;
}

COMET_DECL std::optional<param_value> lookup(const record& r, const std::string& name) {
    if (name == "kernel") return param_value(r.kernel);
    if (const auto* v = r.params.find(name)) return *v;
    if (const auto* v = r.values.find(name)) return *v;
    return std::nullopt;
}

COMET_DECL void sort_values(std::vector<param_value>& values) {
    std::stable_sort(values.begin(), values.end(), [](const param_value& a, const param_value& b) {
        const auto x = number(a), y = number(b);
        if (x && y) return *x < *y;
        return x.has_value() && !y;
    });
}

COMET_DECL void add_distinct(std::vector<param_value>& values, const param_value& v) {
    for (const auto& w : values)
        if (same(w, v)) return;
    values.push_back(v);
}

COMET_DECL std::string replace_braces(std::string pattern, const std::string& value) {
    const auto at = pattern.find("{}");
    if (at != std::string::npos) pattern.replace(at, 2, value);
    return pattern;
}

COMET_DECL std::string file_part(std::string s) {
    for (char& c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
            c = '_';
    return s;
}

COMET_DECL void check_description(const plot_description& d) {
    if (!valid_name(d.name))
        raise<invalid_argument>(-1, "plot: name '", d.name,
                                "' is not a file stem of letters, digits, '_', '-' and '.'");
    if (d.kernels.empty()) raise<invalid_argument>(-1, "plot ", d.name, ": no kernel named");
    if (d.x.empty()) raise<invalid_argument>(-1, "plot ", d.name, ": no x parameter named");
    if (!d.y.of && d.curves.empty()) raise<invalid_argument>(-1, "plot ", d.name, ": y has no value function");
    if (!d.curves.empty() && !d.series.empty())
        raise<invalid_argument>(-1, "plot ", d.name, ": curves and series '", d.series, "' both split the points");
    for (const auto& c : d.curves)
        if (!c.of) raise<invalid_argument>(-1, "plot ", d.name, ": curve '", c.label, "' has no value function");
    for (int base : {d.log_base_x, d.log_base_y})
        if (base < 2) raise<invalid_argument>(-1, "plot ", d.name, ": log base ", base, " is not at least 2");
}

}  // namespace detail::plot
}  // namespace comet

namespace comet {

COMET_DECL std::vector<plot_data> collect_plots(const plot_description& d, const result_set& results) {
    using namespace detail::plot;
    check_description(d);
    std::vector<const record*> recs;
    for (const auto& r : results.records) {
        if (std::find(d.kernels.begin(), d.kernels.end(), r.kernel) == d.kernels.end()) continue;
        bool keep = true;
        for (const auto& [name, value] : d.where) {
            const auto v = lookup(r, name);
            keep = keep && v && same(*v, value);
        }
        if (keep) recs.push_back(&r);
    }
    if (!d.largest.empty()) {
        std::optional<double> top;
        for (const record* r : recs)
            if (const auto v = r->params.number(d.largest); v && (!top || *v > *top)) top = v;
        std::erase_if(recs, [&](const record* r) {
            const auto v = r->params.number(d.largest);
            return !v || !top || *v != *top;
        });
    }
    std::vector<param_value> pages;  // the values of `per`, or one empty page
    if (!d.per.empty()) {
        for (const record* r : recs)
            if (const auto v = lookup(*r, d.per)) add_distinct(pages, *v);
        sort_values(pages);
    }
    std::vector<plot_data> out;
    const std::size_t page_count = d.per.empty() ? 1 : pages.size();
    for (std::size_t page = 0; page < page_count; ++page) {
        plot_data p;
        p.name = d.name;
        p.title = d.title.empty() ? d.name : d.title;
        if (!d.per.empty()) {
            // (concat, not "literal" + string: GCC 12 warns falsely about the latter, PR 105329)
            p.name += detail::concat('_', file_part(d.per), '_', file_part(text(pages[page])));
            p.title += detail::concat(" (", d.per, " = ", text(pages[page]), ')');
        }
        p.x_label = d.x_label.empty() ? d.x : d.x_label;
        p.y_label = d.y_label.empty() ? d.y.label : d.y_label;
        p.log_x = d.log_x;
        p.log_y = d.log_y;
        p.log_base_x = d.log_base_x;
        p.log_base_y = d.log_base_y;
        p.keyed = !d.series.empty() || !d.curves.empty();
        std::vector<const record*> mine;
        for (const record* r : recs) {
            if (d.per.empty()) {
                mine.push_back(r);
                continue;
            }
            const auto v = lookup(*r, d.per);
            if (v && same(*v, pages[page])) mine.push_back(r);
        }
        std::vector<param_value> keys;
        if (!d.series.empty()) {
            for (const record* r : mine)
                if (const auto v = lookup(*r, d.series)) add_distinct(keys, *v);
            sort_values(keys);
        }
        const std::size_t series_count = !d.curves.empty() ? d.curves.size() : d.series.empty() ? 1 : keys.size();
        for (std::size_t k = 0; k < series_count; ++k) {
            plot_series s;
            const plot_value& y = d.curves.empty() ? d.y : d.curves[k];
            if (!d.curves.empty()) {
                s.title = y.label;
            } else if (!d.series.empty()) {
                const std::string pattern = !d.series_title.empty() ? d.series_title
                                            : d.series == "kernel"  ? std::string("{}")
                                                                    : detail::concat(d.series, " = {}");
                s.title = replace_braces(pattern, text(keys[k]));
            }
            for (const record* r : mine) {
                if (!d.series.empty()) {
                    const auto v = lookup(*r, d.series);
                    if (!v || !same(*v, keys[k])) continue;
                }
                const auto xv = d.x_is_value ? r->values.number(d.x) : r->params.number(d.x);
                const auto yv = y.of(*r);
                if (!xv || !yv || !std::isfinite(*xv) || !std::isfinite(*yv)) continue;
                if ((d.log_x && *xv <= 0) || (d.log_y && *yv <= 0)) continue;
                s.points.emplace_back(*xv, *yv);
            }
            std::stable_sort(s.points.begin(), s.points.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
            if (!s.points.empty()) p.series.push_back(std::move(s));
        }
        if (!p.series.empty()) out.push_back(std::move(p));
    }
    return out;
}

}  // namespace comet

namespace comet {

COMET_DECL plot_value plot_value::median_time_us(std::string label) {
    return {std::move(label), [](const record& r) -> std::optional<double> {
                if (!usable(r)) return std::nullopt;
                return summarize(r).median * 1e6;
            }};
}

COMET_DECL plot_value plot_value::time_us(statistic s, std::string label) {
    if (label.empty()) label = detail::concat(s == statistic::min ? "least" : to_string(s), " time [µs]");
    return {std::move(label), [s](const record& r) -> std::optional<double> {
                if (!usable(r)) return std::nullopt;
                return statistic_of(r, s) * 1e6;
            }};
}

COMET_DECL plot_value plot_value::min_time_us(std::string label) {
    return {std::move(label), [](const record& r) -> std::optional<double> {
                if (!usable(r)) return std::nullopt;
                return summarize(r).min * 1e6;
            }};
}

COMET_DECL plot_value plot_value::bandwidth_mbs(std::string label) {
    return {std::move(label), [](const record& r) -> std::optional<double> {
                const auto size = r.params.number("size");
                if (!size || *size <= 0 || !usable(r)) return std::nullopt;
                const double median = summarize(r).median;
                if (!(median > 0)) return std::nullopt;
                return *size / median / 1e6;
            }};
}

}  // namespace comet
