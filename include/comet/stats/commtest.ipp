// comet/stats/commtest.ipp — the definitions of comet/stats/commtest.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/commtest.hpp>

namespace comet {

COMET_DECL std::string commtest_flag_text(std::string_view flag) {
    if (flag == commtest_flag::negative_a) return "negative a";
    if (flag == commtest_flag::nonpositive_b) return "b not positive";
    if (flag == commtest_flag::model_error) return "model error too large";
    return std::string(flag);
}

COMET_DECL std::string commtest_flags_text(const std::vector<std::string>& flags) {
    std::string out = "flagged:";
    for (std::size_t i = 0; i < flags.size(); ++i) out += (i ? ", " : " ") + commtest_flag_text(flags[i]);
    return out;
}

}  // namespace comet

namespace comet {
namespace detail::commtest_stats {

COMET_DECL double weight(const commtest_point& p, bool relative) { return relative ? 1.0 / (p.time * p.time) : 1.0; }

COMET_DECL line least_squares_line(std::span<const commtest_point> pts, bool relative) {
    line l;
    if (pts.size() < 2) return l;
    double w_sum = 0.0, mx = 0.0, my = 0.0;
    for (const auto& p : pts) {
        const double w = weight(p, relative);
        w_sum += w;
        mx += w * static_cast<double>(p.messages);
        my += w * p.time;
    }
    mx /= w_sum;
    my /= w_sum;
    double sxx = 0.0, sxy = 0.0;
    for (const auto& p : pts) {
        const double w = weight(p, relative), dx = static_cast<double>(p.messages) - mx;
        sxx += w * dx * dx;
        sxy += w * dx * (p.time - my);
    }
    if (!(sxx > 0.0)) return l;
    l.singular = false;
    const double slope = sxy / sxx;
    for (const auto& p : pts) {
        const double r = p.time - my - slope * (static_cast<double>(p.messages) - mx);
        l.ssr += weight(p, relative) * r * r;
    }
    return l;
}

COMET_DECL regime_split find_regimes(std::span<const commtest_point> pts, const commtest_options& o) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    constexpr std::size_t coefficients = 2;  // per regime
    regime_split out;
    out.regimes = {{0, pts.size()}};
    const bool relative = std::all_of(pts.begin(), pts.end(), [](const commtest_point& p) { return p.time > 0.0; });
    const auto fit_of = [&](std::size_t b, std::size_t e) { return least_squares_line(pts.subspan(b, e - b), relative); };
    const line whole = fit_of(0, pts.size());
    if (whole.singular) return out;
    double y_max = 0.0;  // the largest (weighted) time: 1 with relative residuals
    for (const auto& p : pts) y_max = std::max(y_max, std::fabs(p.time) * std::sqrt(weight(p, relative)));
    // Every residual within 1e-12 of the largest time counts as exact (fit.hpp's `exact_ssr`):
    // noiseless data leave rounding residuals, and an F test on them would "find" breaks.
    const double exact = static_cast<double>(pts.size()) * (1e-12 * y_max) * (1e-12 * y_max);
    const std::size_t min_sizes = std::max<std::size_t>(o.min_sizes, 3);
    double ssr = whole.ssr;
    std::size_t params = coefficients;
    while (out.regimes.size() < std::max<std::size_t>(o.max_regimes, 1)) {
        struct candidate {
            std::size_t regime, cut;
            double ssr;
        };
        std::optional<candidate> best;
        std::size_t searched = 0;
        for (std::size_t r = 0; r < out.regimes.size(); ++r) {
            const auto [g0, g1] = out.regimes[r];
            const double parent = fit_of(g0, g1).ssr;
            for (std::size_t cut = g0 + min_sizes; cut + min_sizes <= g1; ++cut) {
                if (params + coefficients >= pts.size()) continue;  // no residual degree of freedom left
                ++searched;
                const double s = ssr - parent + fit_of(g0, cut).ssr + fit_of(cut, g1).ssr;
                if (!best || s < best->ssr) best = candidate{r, cut, s};  // the first on a tie
            }
        }
        if (!best) {  // no regime can be split further: say so rather than stop silently
            break_test none;
            none.regimes = out.regimes.size();
            none.break_size = none.f = none.p_nominal = none.p = nan;
            none.alpha = o.alpha;
            out.tests.push_back(none);
            break;
        }
        if (ssr <= exact) break;  // the current lines are exact: nothing is left to explain
        break_test t;
        t.regimes = out.regimes.size();
        t.break_size = static_cast<double>(pts[best->cut].size);  // the largest size of the small-message side
        t.df1 = coefficients;
        t.df2 = pts.size() - params - coefficients;
        t.candidates = searched;
        t.alpha = o.alpha;
        if (best->ssr <= exact)
            t.f = ssr > exact ? std::numeric_limits<double>::infinity() : nan;
        else
            t.f = (std::max(0.0, ssr - best->ssr) / static_cast<double>(t.df1)) /
                  (best->ssr / static_cast<double>(t.df2));
        t.p_nominal = std::isnan(t.f) ? nan : f_sf(t.f, static_cast<double>(t.df1), static_cast<double>(t.df2));
        t.p = std::isnan(t.p_nominal) ? nan : std::min(1.0, static_cast<double>(searched) * t.p_nominal);
        t.chosen = t.p < o.alpha;  // false for NaN
        out.tests.push_back(t);
        if (!t.chosen) break;
        const auto [g0, g1] = out.regimes[best->regime];
        out.regimes[best->regime] = {g0, best->cut};
        out.regimes.insert(out.regimes.begin() + static_cast<std::ptrdiff_t>(best->regime) + 1, {best->cut, g1});
        ssr = best->ssr;
        params += coefficients;
    }
    return out;
}

COMET_DECL std::string counts_text(const std::vector<std::int64_t>& ns) {
    std::string out = "N = ";
    for (std::size_t i = 0; i < ns.size(); ++i) out += (i == 0 ? "" : i + 1 == ns.size() ? " and " : ", ") + std::to_string(ns[i]);
    return out;
}

COMET_DECL std::string percent(double fraction) {
    const long long tenths = std::llround(fraction * 1000.0);
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
}

COMET_DECL void compute(group_records& g, const commtest_options& o) {
    commtest_statistics& s = g.stats;
    std::vector<commtest_point>& data = s.data;
    bool unsupported = !g.records.empty();
    std::map<std::int64_t, std::string> left_out;  // N -> why a record there is not read
    std::vector<std::string> unnumbered;           // records left out that do not say their N
    for (const record* r : g.records) {
        const std::string* why = unsupported_note(*r);
        if (!why) unsupported = false;
        else if (std::find(s.notes.begin(), s.notes.end(), *why) == s.notes.end()) s.notes.push_back(*why);
        // Grouping checks the message count of a record with samples only: one without may lack it.
        const std::optional<std::int64_t> messages = r->params.integer("messages");
        if (std::string unusable = unusable_why(*r); !unusable.empty()) {
            if (why) continue;
            if (messages) left_out.emplace(*messages, std::move(unusable));
            else unnumbered.push_back("left out: a record without a message count (" + unusable + ")");
            continue;
        }
        const std::int64_t n = *messages;
        const double t = summarize(*r).min;
        auto it = std::find_if(data.begin(), data.end(), [&](const commtest_point& p) { return p.messages == n; });
        if (it == data.end()) data.push_back({n, s.volume / n, t});
        else it->time = std::min(it->time, t);  // records of one N pool their samples
    }
    if (unsupported) {
        s.supported = false;
        data.clear();
        return;
    }
    s.notes = std::move(unnumbered);  // a "not supported" note of some records only is no statement about the group
    std::sort(data.begin(), data.end(), [](const commtest_point& x, const commtest_point& y) { return x.messages < y.messages; });
    if (!left_out.empty()) {
        std::set<std::int64_t> counts;
        for (const auto& p : data) counts.insert(p.messages);
        for (const auto& [n, why] : left_out) counts.insert(n);
        s.notes.push_back("left out (a record not read: every figure is from the others) at " +
                          points_listed(left_out, counts.size(), "message counts", ""));
    }
    if (data.empty()) {
        s.notes.push_back("no samples: no statistics");
        return;
    }

    // b: the least time of the group per byte.
    const auto fastest = std::min_element(data.begin(), data.end(),
                                          [](const commtest_point& x, const commtest_point& y) { return x.time < y.time; });
    s.b = fastest->time / static_cast<double>(s.volume);
    s.b_messages = fastest->messages;
    if (*s.b > 0.0) {
        s.swap_bandwidth = 2.0 / *s.b;
        if (s.ordered) s.idle_bandwidth = 2.0 / *s.b;
        else s.busy_bandwidth = 1.0 / *s.b;
    }

    // a: from N1 and N2, or the two largest N.
    if (data.size() < 2) {
        s.notes.push_back("a needs two message counts; the group has " + counts_text({data.front().messages}) + " only");
    } else {
        const auto at = [&](std::int64_t n) {
            return std::find_if(data.begin(), data.end(), [&](const commtest_point& p) { return p.messages == n; });
        };
        auto p1 = at(o.n1), p2 = at(o.n2);
        if (p1 == data.end() || p2 == data.end()) {
            std::vector<std::int64_t> missing;
            if (p1 == data.end()) missing.push_back(o.n1);
            if (p2 == data.end()) missing.push_back(o.n2);
            p1 = data.end() - 2;
            p2 = data.end() - 1;
            s.notes.push_back("a from " + counts_text({p1->messages, p2->messages}) + ", the two largest measured: the group has no " +
                              counts_text(missing));
        }
        s.n1 = p1->messages;
        s.n2 = p2->messages;
        s.a = (p2->time - p1->time) / static_cast<double>(*s.n2 - *s.n1);
        s.latency = s.ordered ? *s.a / 2.0 : *s.a;
    }

    // Regimes, found whether or not a exists (they are a fact about the data).
    const regime_split split = find_regimes(data, o);
    s.regimes = split.regimes.size();
    s.break_tests = split.tests;

    if (s.a && *s.a < 0.0) s.flags.emplace_back(commtest_flag::negative_a);
    if (!(*s.b > 0.0)) s.flags.emplace_back(commtest_flag::nonpositive_b);
    if (!s.a || !(*s.b > 0.0)) return;  // no model: no errors, no dominant range

    // The model's errors, over all N and over the dominant range.
    const double bv = *s.b * static_cast<double>(s.volume);
    double sum = 0.0, worst = 0.0;
    for (auto& p : data) {
        p.error = std::fabs(*s.a * static_cast<double>(p.messages) + bv - p.time) / p.time;
        sum += p.error;
        worst = std::max(worst, p.error);
    }
    s.max_error = worst;
    s.mean_error = sum / static_cast<double>(data.size());

    const auto regime_of = [&](std::int64_t n) {
        for (std::size_t r = 0; r < split.regimes.size(); ++r)
            for (std::size_t i = split.regimes[r].first; i < split.regimes[r].second; ++i)
                if (data[i].messages == n) return r;
        return std::size_t{0};  // unreachable: n1 and n2 are measured counts
    };
    const std::size_t r1 = regime_of(*s.n1), r2 = regime_of(*s.n2);
    const std::size_t begin = split.regimes[r1].first, end = split.regimes[r2].second;
    double dsum = 0.0, dworst = 0.0;
    for (std::size_t i = begin; i < end; ++i) {
        data[i].dominant = true;
        dsum += data[i].error;
        dworst = std::max(dworst, data[i].error);
    }
    s.dominant_points = end - begin;
    s.dominant_max_size = data[begin].size;  // the smallest N sends the largest messages
    s.dominant_min_size = data[end - 1].size;
    s.dominant_max_error = dworst;
    s.dominant_mean_error = dsum / static_cast<double>(s.dominant_points);
    if (dworst > o.max_model_error) s.flags.emplace_back(commtest_flag::model_error);

    if (r1 != r2)
        s.notes.push_back("a mixes protocols: a break lies between N1 = " + std::to_string(*s.n1) + " and N2 = " +
                          std::to_string(*s.n2) + ", so the dominant range spans their regimes");
    if (!s.dominant_is_all())
        s.notes.push_back("protocol change found: the dominant range is messages of " + std::to_string(*s.dominant_min_size) +
                          " to " + std::to_string(*s.dominant_max_size) + " bytes (" + std::to_string(s.dominant_points) +
                          " of " + std::to_string(data.size()) + " points), where its model error is at most " +
                          percent(dworst) + " against " + percent(worst) + " over all the data");
    if (!fastest->dominant)
        s.notes.push_back("b comes from N = " + std::to_string(fastest->messages) + ", outside the dominant range");
}

}  // namespace detail::commtest_stats
}  // namespace comet

namespace comet {

COMET_DECL std::vector<commtest_statistics> commtest_statistics_of(const result_set& results, const commtest_options& options,
                                                                   std::string_view kernel) {
    using detail::commtest_stats::group_records;
    if (options.n1 < 1 || options.n2 <= options.n1)
        raise<invalid_argument>(-1, "commtest_statistics_of: n1 = ", options.n1, " and n2 = ", options.n2,
                                " must satisfy 1 <= n1 < n2");
    if (!(options.max_model_error > 0.0))
        raise<invalid_argument>(-1, "commtest_statistics_of: max_model_error = ", options.max_model_error, " must be > 0");
    if (!(options.alpha > 0.0 && options.alpha < 1.0))
        raise<invalid_argument>(-1, "commtest_statistics_of: alpha = ", options.alpha, " is outside (0, 1)");

    std::vector<group_records> groups;
    for (const record* r : results.of(kernel)) {
        const auto protocol = r->params.text("protocol");
        if (!protocol || protocol->size() < 5 || !protocol->starts_with("(") || !protocol->ends_with(")") ||
            ((*protocol)[1] != '0' && (*protocol)[1] != '1') || (*protocol)[2] != ',')
            raise<invalid_argument>(-1, "commtest_statistics_of: kernel '", kernel, "' has a record whose protocol is ",
                                    protocol ? "'" + *protocol + "'" : std::string("missing"),
                                    "; expected \"(0,k)\" (unordered) or \"(1,k)\" (ordered)");
        const auto volume = r->params.integer("volume");
        if (!volume || *volume <= 0)
            raise<invalid_argument>(-1, "commtest_statistics_of: kernel '", kernel, "' has a ", *protocol,
                                    " record without an integer volume > 0");
        if (!r->samples.empty()) {
            const auto n = r->params.integer("messages");
            if (!n || *n <= 0)
                raise<invalid_argument>(-1, "commtest_statistics_of: kernel '", kernel, "' has a ", *protocol,
                                        " record of volume ", *volume, " with samples but no integer messages > 0");
        }
        params key;
        for (std::string_view name : detail::commtest_stats::group_params)
            if (const auto* v = r->params.find(name)) key.set(name, *v);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const group_records& g) { return g.stats.group == key; });
        if (it == groups.end()) {
            group_records g;
            g.stats.kernel = std::string(kernel);
            g.stats.group = std::move(key);
            g.stats.protocol = *protocol;
            g.stats.ordered = (*protocol)[1] == '1';
            g.stats.volume = *volume;
            it = groups.insert(groups.end(), std::move(g));
        }
        it->records.push_back(r);
    }
    std::vector<commtest_statistics> out;
    out.reserve(groups.size());
    for (auto& g : groups) {
        detail::commtest_stats::compute(g, options);
        out.push_back(std::move(g.stats));
    }
    return out;
}

}  // namespace comet
