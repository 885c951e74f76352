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

COMET_DECL plot_key key_of(const record& r, const std::vector<std::string>& names) {
    plot_key key;
    for (const auto& n : names) key.push_back(lookup(r, n));
    return key;
}

COMET_DECL std::vector<std::pair<plot_key, std::vector<const record*>>> group_by(const std::vector<const record*>& recs,
                                                                              const std::vector<std::string>& names) {
    std::vector<std::pair<plot_key, std::vector<const record*>>> groups;
    const auto same_key = [](const plot_key& a, const plot_key& b) {
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i].has_value() != b[i].has_value() || (a[i] && !same(*a[i], *b[i]))) return false;
        return true;
    };
    for (const record* r : recs) {
        plot_key key = key_of(*r, names);
        auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return same_key(x.first, key); });
        if (g == groups.end()) groups.push_back({std::move(key), {r}});
        else g->second.push_back(r);
    }
    // Each name's values in order; a group's place is its values' ranks, the first name first.
    std::vector<std::vector<param_value>> order(names.size());
    for (const auto& [key, _] : groups)
        for (std::size_t i = 0; i < names.size(); ++i)
            if (key[i]) add_distinct(order[i], *key[i]);
    for (auto& o : order) sort_values(o);
    const auto rank = [&](const plot_key& key) {
        std::vector<std::size_t> out;
        for (std::size_t i = 0; i < names.size(); ++i) {
            std::size_t at = order[i].size();  // none: last
            if (key[i])
                for (std::size_t j = 0; j < order[i].size(); ++j)
                    if (same(order[i][j], *key[i])) at = j;
            out.push_back(at);
        }
        return out;
    };
    std::stable_sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
    return groups;
}

COMET_DECL std::string key_text(const std::vector<std::string>& names, const plot_key& key) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!key[i]) continue;
        if (!out.empty()) out += ", ";
        out += detail::concat(names[i], " = ", text(*key[i]));
    }
    return out;
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
        // A record without the parameter that names its plot or its series has no place.
        if (!d.per.empty()) keep = keep && lookup(r, d.per).has_value();
        if (!d.series.empty()) keep = keep && lookup(r, d.series).has_value();
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
    // The plots: a value of `per`, then of each experiment parameter holding more than one value.
    std::vector<std::string> page_names;
    if (!d.per.empty()) page_names.push_back(d.per);
    for (const auto& e : d.experiments)
        if (std::find(page_names.begin(), page_names.end(), e) == page_names.end() && e != d.series &&
            group_by(recs, {e}).size() > 1)
            page_names.push_back(e);
    // Parameters a further split must not use: what the plot already sorts its records by.
    std::vector<std::string> named = page_names;
    named.push_back(d.series);
    if (!d.x_is_value) named.push_back(d.x);
    const double base_x = d.log_base_x;

    std::vector<plot_data> out;
    for (const auto& [page, mine] : group_by(recs, page_names)) {
        plot_data p;
        p.name = d.name;
        p.title = d.title.empty() ? d.name : d.title;
        for (std::size_t i = 0; i < page_names.size(); ++i)
            if (page[i])
                // (concat, not "literal" + string: GCC 12 warns falsely about the latter, PR 105329)
                p.name += detail::concat('_', file_part(page_names[i]), '_', file_part(text(*page[i])));
        if (const std::string values = key_text(page_names, page); !values.empty())
            p.title += detail::concat(" (", values, ')');
        p.x_label = d.x_label.empty() ? d.x : d.x_label;
        p.y_label = d.y_label.empty() ? d.y.label : d.y_label;
        p.log_x = d.log_x;
        p.log_y = d.log_y;
        p.log_base_x = d.log_base_x;
        p.log_base_y = d.log_base_y;
        p.keyed = !d.series.empty() || !d.curves.empty();
        std::vector<const record*> drawn;  // the records that gave a point
        // The description's series: its curves, the groups of `series`, or all the records.
        struct base {
            std::string title;
            const plot_value* y;
            std::vector<const record*> recs;
        };
        std::vector<base> bases;
        if (!d.curves.empty()) {
            for (const auto& c : d.curves) bases.push_back({c.label, &c, mine});
        } else if (!d.series.empty()) {
            const std::string pattern = !d.series_title.empty() ? d.series_title
                                        : d.series == "kernel"  ? std::string("{}")
                                                                : detail::concat(d.series, " = {}");
            for (auto& [key, rs] : group_by(mine, {d.series}))
                bases.push_back({replace_braces(pattern, text(*key[0])), &d.y, std::move(rs)});
        } else {
            bases.push_back({{}, &d.y, mine});
        }
        for (const auto& b : bases) {
            const plot_value& y = *b.y;
            std::vector<std::pair<const record*, plot_point>> pts;
            for (const record* r : b.recs) {
                const auto xv = d.x_is_value ? r->values.number(d.x) : r->params.number(d.x);
                const auto yv = y.of(*r);
                if (!xv || !yv || !std::isfinite(*xv) || !std::isfinite(*yv)) continue;
                if ((d.log_x && *xv < 0) || (d.log_y && *yv <= 0)) continue;
                plot_point pt{*xv, *yv};
                pt.flagged = y.flag && !y.flag(*r).empty();
                if (y.interval)
                    if (const auto i = y.interval(*r);
                        i && std::isfinite(i->low) && std::isfinite(i->high) && (!d.log_y || i->low > 0))
                        pt.interval = i;
                if (pt.interval && p.interval_label.empty()) p.interval_label = y.interval_label;
                pts.emplace_back(r, pt);
                drawn.push_back(r);
            }
            // Records at the same x differ in parameters the description does not name: those
            // split the series (the parameters in the order the records set them).
            std::stable_sort(pts.begin(), pts.end(), [](const auto& a, const auto& c) { return a.second.x < c.second.x; });
            std::vector<std::string> split;
            for (std::size_t i = 0; i < pts.size(); ++i)
                for (std::size_t j = i + 1; j < pts.size() && pts[j].second.x == pts[i].second.x; ++j) {
                    for (const auto* r : {pts[i].first, pts[j].first})
                        for (const auto& [name, value] : r->params) {
                            if (std::find(named.begin(), named.end(), name) != named.end() ||
                                std::find(split.begin(), split.end(), name) != split.end())
                                continue;
                            const auto a = lookup(*pts[i].first, name), c = lookup(*pts[j].first, name);
                            if (a.has_value() != c.has_value() || (a && !same(*a, *c))) split.push_back(name);
                        }
                }
            std::vector<const record*> kept;
            for (const auto& [r, _] : pts) kept.push_back(r);
            std::size_t dash = 0;
            for (const auto& [key, rs] : group_by(kept, split)) {
                plot_series s;
                s.title = b.title;
                if (!split.empty()) {
                    const std::string more = key_text(split, key);
                    s.title += s.title.empty() || more.empty() ? more : ", " + more;
                }
                for (const auto& [r, pt] : pts)  // (in x order already)
                    if (std::find(rs.begin(), rs.end(), r) != rs.end()) s.points.push_back(pt);
                s.line = static_cast<std::size_t>(&b - bases.data());
                s.dash = dash++;
                if (!split.empty()) p.keyed = true;
                if (!s.points.empty()) p.series.push_back(std::move(s));
            }
        }
        p.left_out = static_cast<std::size_t>(std::count_if(mine.begin(), mine.end(), [&](const record* r) {
            return !usable(*r) && std::find(drawn.begin(), drawn.end(), r) == drawn.end();
        }));
        // x = 0 on a log axis: drawn a factor of the base (at least 4) below the smallest
        // positive x, far enough to stand apart and near enough to spend little of the width,
        // or left out when there is no positive x to place it by.
        if (d.log_x) {
            std::optional<double> least;
            for (const auto& s : p.series)
                for (const auto& pt : s.points)
                    if (pt.x > 0 && (!least || pt.x < *least)) least = pt.x;
            bool zero = false;
            for (auto& s : p.series) {
                if (!least) std::erase_if(s.points, [](const plot_point& pt) { return pt.x == 0; });
                zero = zero || (!s.points.empty() && s.points.front().x == 0);
            }
            std::erase_if(p.series, [](const plot_series& s) { return s.points.empty(); });
            if (zero) p.zero_x = *least / std::max(4.0, base_x);
        }
        // Lines counted over the series kept, and their flagged points.
        std::size_t line = 0;
        for (std::size_t k = 0; k < p.series.size(); ++k) {
            if (k > 0 && p.series[k].line != p.series[k - 1].line) ++line;
            p.series[k].line = line;
            p.flagged += static_cast<std::size_t>(std::ranges::count(p.series[k].points, true, &plot_point::flagged));
        }
        if (!p.series.empty()) out.push_back(std::move(p));
    }
    return out;
}

}  // namespace comet

namespace comet {

namespace detail::plot {

COMET_DECL std::optional<plot_interval> median_interval_s(const record& r) {
    if (!usable(r)) return std::nullopt;
    const summary s = summarize(r);
    if (!s.median_ci_low || !s.median_ci_high) return std::nullopt;
    return plot_interval{*s.median_ci_low, *s.median_ci_high};
}

COMET_DECL std::string median_interval_label() {
    char level[16];
    const auto res = std::to_chars(level, level + sizeof level, median_ci_level * 100);
    return detail::concat("the median's ", std::string_view(level, static_cast<std::size_t>(res.ptr - level)),
                          "% confidence interval");
}

}  // namespace detail::plot

COMET_DECL plot_value plot_value::median_time_us(std::string label) {
    return {std::move(label),
            [](const record& r) -> std::optional<double> {
                if (!usable(r)) return std::nullopt;
                return summarize(r).median * 1e6;
            },
            [](const record& r) -> std::optional<plot_interval> {
                const auto i = detail::plot::median_interval_s(r);
                if (!i) return std::nullopt;
                return plot_interval{i->low * 1e6, i->high * 1e6};
            },
            detail::plot::median_interval_label(), median_flag};
}

COMET_DECL plot_value plot_value::time_us(statistic s, std::string label) {
    if (s == statistic::median) return median_time_us(label.empty() ? std::string("median time [µs]") : std::move(label));
    if (label.empty()) label = detail::concat(s == statistic::min ? "least" : to_string(s), " time [µs]");
    return {std::move(label),
            [s](const record& r) -> std::optional<double> {
                if (!usable(r)) return std::nullopt;
                return statistic_of(r, s) * 1e6;
            },
            {},
            {},
            [s](const record& r) { return statistic_flag(r, s); }};
}

COMET_DECL plot_value plot_value::min_time_us(std::string label) {
    return {std::move(label),
            [](const record& r) -> std::optional<double> {
                if (!usable(r)) return std::nullopt;
                return summarize(r).min * 1e6;
            },
            {},
            {},
            [](const record& r) { return statistic_flag(r, statistic::min); }};
}

COMET_DECL plot_value plot_value::bandwidth_mbs(std::string label) {
    return {std::move(label),
            [](const record& r) -> std::optional<double> {
                const auto size = r.params.number("size");
                if (!size || *size <= 0 || !usable(r)) return std::nullopt;
                const double median = summarize(r).median;
                if (!(median > 0)) return std::nullopt;
                return *size / median / 1e6;
            },
            // The longest time of the interval gives its least bandwidth.
            [](const record& r) -> std::optional<plot_interval> {
                const auto size = r.params.number("size");
                const auto i = detail::plot::median_interval_s(r);
                if (!size || *size <= 0 || !i || !(i->low > 0)) return std::nullopt;
                return plot_interval{*size / i->high / 1e6, *size / i->low / 1e6};
            },
            detail::plot::median_interval_label(), median_flag};
}

COMET_DECL plot_value plot_value::value(std::string name, std::string label, double scale) {
    return {std::move(label), [name, scale](const record& r) -> std::optional<double> {
                const auto v = r.values.number(name);
                if (!v) return std::nullopt;
                return *v * scale;
            },
            {}, {}, [name](const record& r) {
                for (const char* what : {"point", name.c_str()})
                    if (const comet::flag* f = find_flag(r.flags, what)) return f->why;
                return std::string();
            }};
}

}  // namespace comet
