// comet/analysis/thesis.ipp — the definitions of comet/analysis/thesis.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/analysis/thesis.hpp>

namespace comet {
namespace detail::thesis {

COMET_DECL std::optional<double> measured_figure(const thesis_evidence& e, std::string_view key) {
    const transfer_fit* fit = figure_fit(e, key);
    if (fit && !fit->valid()) return std::nullopt;  // a flagged fit's number is no measurement
    if (fit) {
        if (key.ends_with(".t_startup")) return fit->t_startup;
        if (key.ends_with(".t_per_byte")) return fit->t_per_byte;
        if (key.ends_with(".hop")) return fit->hop;
        return std::nullopt;
    }
    const bandwidth_figures* band = nullptr;
    for (const auto& b : e.bandwidth)
        if (b.kernel == "echo" && b.hops == 1) band = &b;
    if (!band) return std::nullopt;
    if (key == "echo.peak") return band->peak;
    if (key == "echo.n_half") return band->n_half;
    if (key == "echo.n_90") return band->n_90;
    return std::nullopt;
}

}  // namespace detail::thesis
}  // namespace comet

namespace comet {

COMET_DECL std::vector<thesis_comparison> compare_with_thesis(const thesis_evidence& e) {
    std::vector<thesis_comparison> rows;
    for (const auto& f : thesis_figures()) {
        thesis_comparison row{&f, detail::thesis::measured_figure(e, f.key), {}};
        if (const transfer_fit* fit = detail::thesis::figure_fit(e, f.key); fit && !fit->valid()) row.flags = fit->flags;
        const std::string_view key = f.key;
        if (key == "echo.peak" || key == "echo.n_half" || key == "echo.n_90")  // flagged with the medians it comes from
            for (const auto& b : e.bandwidth)
                if (b.kernel == "echo" && b.hops == 1) row.flags = b.flags;
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace comet

namespace comet {
namespace detail::thesis {

COMET_DECL std::string number(double v, int decimals) {
    std::ostringstream os;
    os.imbue(std::locale::classic());
    os << std::fixed << std::setprecision(decimals) << v;
    return os.str();
}

COMET_DECL shape_verdict log_p(const thesis_shape& s, const thesis_evidence& e) {
    std::size_t curves = 0, good = 0;
    std::vector<double> per;
    std::string failed;  // the first curve that does not, and why
    for (const auto& f : e.log_p) {
        if (f.kernel != s.kernel || f.points < 3) continue;
        ++curves;
        const bool follows = f.logarithmic && f.per_doubling > 0;
        good += follows;
        per.push_back(f.per_doubling);
        if (!follows && failed.empty()) {
            for (const auto& [name, value] : f.group) failed += (failed.empty() ? "" : ", ") + name + " " + detail::compare::value_text(value);
            failed = "; not " + (failed.empty() ? std::string("a curve") : failed) + ": R² log P " + number(f.r_squared, 3) + ", P " + number(f.r_squared_linear_p, 3);
            if (f.per_doubling <= 0) failed += ", not growing";
        }
    }
    if (curves == 0) return {&s, std::nullopt, "needs 3 or more group sizes (--nodes 2,4,8,16)"};
    std::sort(per.begin(), per.end());
    return {&s, good == curves,
            std::to_string(good) + " of " + std::to_string(curves) + " curves follow log P; median " +
                number(per[per.size() / 2] * 1e6, 1) + " us per doubling" + failed};
}

COMET_DECL shape_verdict growth(const thesis_shape& s, const thesis_evidence& e, growth_model want) {
    std::size_t curves = 0, good = 0;
    std::string detail;
    for (const auto& g : e.growth) {
        if (g.kernel != s.kernel) continue;
        ++curves;
        good += g.model == want;
        if (detail.empty())
            detail = "; square share " + number(g.quadratic_share, 2) + ", R² linear " + number(g.linear.r_squared, 3) +
                     ", quadratic " + number(g.quadratic.r_squared, 3);
    }
    if (curves == 0) return {&s, std::nullopt, "not measured"};
    return {&s, good == curves, std::to_string(good) + " of " + std::to_string(curves) + " curves " + to_string(want) + detail};
}

COMET_DECL bool on_route(const contention_slowdown& c) {
    if (const auto t = c.group.text("on_route")) return *t != "no" && *t != "off" && *t != "false";
    if (const auto i = c.group.integer("on_route")) return *i != 0;
    return true;
}

COMET_DECL std::optional<double> contention_ratio(const thesis_evidence& e, double load) {
    std::vector<double> ratios;
    for (const auto& c : e.contention)
        if (on_route(c) && std::fabs(c.load - load) < 1e-9 && std::isfinite(c.median_ratio)) ratios.push_back(c.median_ratio);
    if (ratios.empty()) return std::nullopt;
    std::sort(ratios.begin(), ratios.end());
    return ratios[ratios.size() / 2];
}

COMET_DECL shape_verdict contention(const thesis_shape& s, const thesis_evidence& e, bool heavier) {
    const auto half = contention_ratio(e, 0.5), ninety = contention_ratio(e, 0.9);
    if (!half || !ninety) return {&s, std::nullopt, "not measured (needs loads 0.5 and 0.9 on route of the echo)"};
    const std::string evidence =
        "median loaded/idle " + number(*half, 3) + " at 50%, " + number(*ninety, 3) + " at 90%";
    return {&s, heavier ? *ninety > *half : *half > 1 && *ninety > 1, evidence};
}

COMET_DECL shape_verdict overlap(const thesis_shape& s, const thesis_evidence& e) {
    std::size_t groups = 0, good = 0;
    const overlap_gain* largest = nullptr;
    for (const auto& g : e.overlap) {
        if (g.large_points == 0) continue;
        ++groups;
        good += g.large_median_gain > 1 && g.large_max_saved > 0.33;
        if (!largest || g.group.integer("nodes").value_or(0) >= largest->group.integer("nodes").value_or(0)) largest = &g;
    }
    if (!largest) return {&s, std::nullopt, "not measured"};
    std::string evidence = std::to_string(good) + " of " + std::to_string(groups) + " groups; ";
    if (const auto n = largest->group.integer("nodes")) evidence += "on " + std::to_string(*n) + " nodes, ";
    evidence += "at " + std::to_string(largest->large_size) + " B: sync/async median " + number(largest->large_median_gain, 2) +
                ", time saved median " + number(largest->large_median_saved * 100, 0) + "%, at most " +
                number(largest->large_max_saved * 100, 0) + "%";
    return {&s, good == groups, evidence};
}

COMET_DECL double median_of(const record& r) {
    return usable(r) ? statistic_of(r, statistic::median) : std::numeric_limits<double>::quiet_NaN();
}

COMET_DECL bool same_point(const record& a, const record& b, std::initializer_list<std::string_view> except) {
    const auto skip = [&](std::string_view name) { return std::find(except.begin(), except.end(), name) != except.end(); };
    for (const auto& [name, value] : a.params)
        if (!skip(name) && (!b.params.find(name) || *b.params.find(name) != value)) return false;
    for (const auto& [name, value] : b.params)
        if (!skip(name) && !a.params.contains(name)) return false;
    return true;
}

COMET_DECL shape_verdict against(const thesis_shape& s, const thesis_evidence& e, std::string_view other,
                                 std::initializer_list<std::string_view> except, double scale, std::string_view ratio_name,
                                 const std::function<bool(double, double)>& holds) {
    std::size_t points = 0, good = 0;
    double low = 0, high = 0;
    for (const auto& mine : e.records) {
        if (mine.kernel != s.kernel) continue;
        for (const auto& theirs : e.records) {
            if (theirs.kernel != other || !same_point(mine, theirs, except)) continue;
            const double a = median_of(mine), b = scale * median_of(theirs);
            if (!std::isfinite(a) || !std::isfinite(b) || b <= 0) continue;
            const double ratio = a / b;
            low = points ? std::min(low, ratio) : ratio;
            high = points ? std::max(high, ratio) : ratio;
            ++points;
            good += holds(a, b);
            break;
        }
    }
    if (points == 0) return {&s, std::nullopt, "needs both kernels at the same points"};
    return {&s, good == points,
            std::to_string(good) + " of " + std::to_string(points) + " points; " + std::string(ratio_name) + " " +
                number(low, 3) + " .. " + number(high, 3)};
}

COMET_DECL shape_verdict jump(const thesis_shape& s, const thesis_evidence& e, std::int64_t limit) {
    std::vector<const record*> mine;
    for (const auto& r : e.records)
        if (r.kernel == s.kernel && r.params.integer("size")) mine.push_back(&r);
    std::vector<bool> done(mine.size(), false);
    std::size_t curves = 0, good = 0;
    std::string detail;
    for (std::size_t i = 0; i < mine.size(); ++i) {
        if (done[i]) continue;
        // The curve of mine[i]: its sizes and medians, ascending.
        std::vector<std::pair<std::int64_t, double>> curve;
        for (std::size_t j = i; j < mine.size(); ++j)
            if (!done[j] && same_point(*mine[i], *mine[j], {"size"})) {
                done[j] = true;
                curve.emplace_back(*mine[j]->params.integer("size"), median_of(*mine[j]));
            }
        std::sort(curve.begin(), curve.end());
        const auto above = std::find_if(curve.begin(), curve.end(), [&](const auto& x) { return x.first > limit; });
        if (above == curve.end() || above - curve.begin() < 2 || above->first > 2 * limit) continue;
        const auto& [n1, t1] = *(above - 2);
        const auto& [n2, t2] = *(above - 1);
        const auto& [n3, t3] = *above;
        if (!std::isfinite(t1) || !std::isfinite(t2) || !std::isfinite(t3) || t2 <= 0) continue;
        const double slope = (t2 - t1) / static_cast<double>(n2 - n1);
        const double step = t3 - t2 - slope * static_cast<double>(n3 - n2);
        ++curves;
        const bool jumps = step > 0.1 * t2;
        good += jumps;
        // The first curve, and then each one that does not jump.
        if (curves == 1 || !jumps) {
            std::string where;
            if (const auto nodes = mine[i]->params.integer("nodes")) where += "on " + std::to_string(*nodes) + " nodes";
            if (const auto hops = mine[i]->params.integer("hops")) where += ", " + std::to_string(*hops) + " hop" + (*hops == 1 ? "" : "s");
            detail += (jumps ? "; " : "; not ") + where + (where.empty() ? "" : ": ") + std::to_string(n2) + " B " +
                      number(t2 * 1e6, 1) + " us, " + std::to_string(n3) + " B " + number(t3 * 1e6, 1) + " us (+" +
                      number(100 * (t3 - t2) / t2, 0) + "%)";
        }
    }
    if (curves == 0)
        return {&s, std::nullopt,
                "needs two sizes up to " + std::to_string(limit) + " B and one above it, up to " + std::to_string(2 * limit) + " B"};
    return {&s, good == curves,
            std::to_string(good) + " of " + std::to_string(curves) + " curves jump by over 10% beyond the slope" + detail};
}

COMET_DECL shape_verdict overlap_tiny(const thesis_shape& s, const thesis_evidence& e, std::int64_t tiny) {
    std::size_t groups = 0, good = 0;
    std::string detail;
    for (const auto& g : e.overlap) {
        if (g.points.empty() || g.points.front().size > tiny) continue;
        const std::int64_t smallest = g.points.front().size;
        std::vector<double> gains;
        for (const auto& p : g.points)
            if (p.size == smallest && std::isfinite(p.gain)) gains.push_back(p.gain);
        if (gains.empty()) continue;
        std::sort(gains.begin(), gains.end());
        const double median = gains[gains.size() / 2];
        ++groups;
        good += median < 1;
        if (detail.empty())
            detail = "; at " + std::to_string(smallest) + " B: sync/async median " + number(median, 3) + " over " +
                     std::to_string(gains.size()) + " vector lengths";
    }
    if (groups == 0) return {&s, std::nullopt, "needs a message size up to " + std::to_string(tiny) + " B"};
    return {&s, good == groups, std::to_string(good) + " of " + std::to_string(groups) + " groups" + detail};
}

}  // namespace detail::thesis
}  // namespace comet

namespace comet {

COMET_DECL std::vector<thesis_shape> thesis_shapes_of(std::string_view kernel) {
    std::vector<thesis_shape> out;
    for (const auto& s : thesis_shapes())
        if (s.kernel == kernel) out.push_back(s);
    return out;
}

namespace detail::thesis {

/// The group size shape `s` is judged on in `e`: its own (`thesis_shape::nodes`) when the run
/// measured its kernel there, else the largest the run measured it on; 0 for a shape about any
/// size, or when the kernel did not run.
inline int judged_nodes(const thesis_shape& s, const thesis_evidence& e) {
    if (s.nodes == 0) return 0;
    int largest = 0;
    for (const auto& r : e.records) {
        if (r.kernel != s.kernel) continue;
        const auto n = r.params.integer("nodes");
        if (!n) continue;
        if (*n == s.nodes) return s.nodes;
        largest = std::max(largest, static_cast<int>(*n));
    }
    return largest;
}

/// `e` with only what was measured on `nodes` (records, and the analyses of curves on them).
struct evidence_on {
    std::vector<record> records;
    std::vector<growth_comparison> growth;
    std::vector<contention_slowdown> contention;
    std::vector<overlap_gain> overlap;
    thesis_evidence view;

    evidence_on(const thesis_evidence& e, int nodes) : view(e) {
        const auto on = [&](const params& p) { return p.integer("nodes") == nodes; };
        for (const auto& r : e.records)
            if (on(r.params)) records.push_back(r);
        for (const auto& g : e.growth)
            if (on(g.group)) growth.push_back(g);
        for (const auto& c : e.contention)
            if (on(c.group)) contention.push_back(c);
        for (const auto& o : e.overlap)
            if (on(o.group)) overlap.push_back(o);
        view.records = records;
        view.growth = growth;
        view.contention = contention;
        view.overlap = overlap;
    }
    evidence_on(const evidence_on&) = delete;  // `view` points into this object's own vectors
    evidence_on& operator=(const evidence_on&) = delete;
};

}  // namespace detail::thesis

COMET_DECL std::vector<shape_verdict> compare_shapes_with_thesis(const thesis_evidence& e,
                                                                 std::span<const thesis_shape> shapes) {
    std::vector<shape_verdict> out;
    // The evidence on one group size, made once for every shape judged on it (built in place:
    // its view points into its own vectors).
    std::map<int, detail::thesis::evidence_on> on;
    for (const auto& s : shapes) {
        if (!s.judge) {
            out.push_back(shape_verdict{&s, std::nullopt, "no judgement given"});
            continue;
        }
        const int nodes = detail::thesis::judged_nodes(s, e);
        if (nodes == 0) {
            out.push_back(s.judge(s, e));
            continue;
        }
        const auto& only = on.try_emplace(nodes, e, nodes).first->second;
        shape_verdict v = s.judge(s, only.view);
        v.evidence = (nodes == s.nodes ? "on " + std::to_string(nodes) + " nodes as the thesis: "
                                       : "on " + std::to_string(nodes) + " nodes (the thesis: " + std::to_string(s.nodes) + "): ") +
                     v.evidence;
        out.push_back(std::move(v));
    }
    return out;
}

}  // namespace comet
