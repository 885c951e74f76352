// comet/stats/compare.ipp — the definitions of comet/stats/compare.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/compare.hpp>

namespace comet {
namespace detail::compare {

COMET_DECL std::string value_text(const param_value& value) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>) {
                return x;
            } else {
                char buf[64];
                const auto res = std::to_chars(buf, buf + sizeof buf, x);  // no locale, unlike a stream
                return std::string(buf, res.ptr);
            }
        },
        value);
}

}  // namespace detail::compare
}  // namespace comet

namespace comet {

COMET_DECL std::string point_name(const record& r) {
    std::string out = r.kernel;
    for (const auto& [name, value] : r.params) out += '/' + name + ':' + detail::compare::value_text(value);
    return out;
}

}  // namespace comet

namespace comet {
namespace detail::compare {

COMET_DECL std::pair<std::vector<double>, double> ranks(const std::vector<double>& pooled) {
    std::vector<std::size_t> order(pooled.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return pooled[i] < pooled[j]; });
    std::vector<double> rank(pooled.size());
    double ties = 0.0;
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && pooled[order[j + 1]] == pooled[order[i]]) ++j;
        const double mid = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;  // mean of ranks i+1 .. j+1
        for (std::size_t k = i; k <= j; ++k) rank[order[k]] = mid;
        const double t = static_cast<double>(j - i + 1);
        ties += t * t * t - t;
        i = j + 1;
    }
    return {rank, ties};
}

COMET_DECL double exact_sf(std::size_t u, std::size_t m, std::size_t n) {
    if (m > n) std::swap(m, n);
    const std::size_t top = m * n;
    std::vector<double> c(top + 1, 0.0);
    c[0] = 1.0;
    for (std::size_t i = 1; i <= m; ++i) {
        for (std::size_t k = top; k >= n + i; --k) c[k] -= c[k - (n + i)];  // × (1 − q^(n+i))
        for (std::size_t k = i; k <= top; ++k) c[k] += c[k - i];            // ÷ (1 − q^i), a series
    }
    const double total = std::accumulate(c.begin(), c.end(), 0.0);
    double tail = 0.0;
    for (std::size_t k = std::min(u, top + 1); k <= top; ++k) tail += c[k];
    return tail / total;
}

COMET_DECL double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace detail::compare
}  // namespace comet

namespace comet {

COMET_DECL mann_whitney mann_whitney_u(std::span<const double> a, std::span<const double> b) {
    if (a.empty() || b.empty()) raise<invalid_argument>(-1, "mann_whitney_u: ", a.empty() ? "the first" : "the second", " sample set is empty");
    detail::check_no_nan_samples(a, "mann_whitney_u");
    detail::check_no_nan_samples(b, "mann_whitney_u");
    const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size()), n = na + nb;
    std::vector<double> pooled(a.begin(), a.end());
    pooled.insert(pooled.end(), b.begin(), b.end());
    const auto [rank, ties] = detail::compare::ranks(pooled);
    const double ra = std::accumulate(rank.begin(), rank.begin() + static_cast<std::ptrdiff_t>(a.size()), 0.0);
    mann_whitney out;
    out.u = ra - na * (na + 1.0) / 2.0;
    const double big = std::max(out.u, na * nb - out.u);  // the farther of U_a and U_b from the middle
    if (ties == 0.0 && std::min(a.size(), b.size()) <= 8) {
        out.exact = true;
        // U of continuous data is a whole number; rounding only removes the sum's float error.
        out.p = 2.0 * detail::compare::exact_sf(static_cast<std::size_t>(std::llround(big)), a.size(), b.size());
    } else {
        const double var = na * nb / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
        out.p = var > 0.0 ? 2.0 * detail::compare::normal_sf((big - na * nb / 2.0 - 0.5) / std::sqrt(var)) : 1.0;
    }
    out.p = std::clamp(out.p, 0.0, 1.0);  // 2·P(U ≥ middle) exceeds 1
    return out;
}

COMET_DECL welch welch_t(std::span<const double> a, std::span<const double> b) {
    for (auto [side, v] : {std::pair{"first", a}, std::pair{"second", b}})
        if (v.size() < 2) raise<invalid_argument>(-1, "welch_t: the ", side, " set has ", v.size(), " value", v.size() == 1 ? "" : "s", ", fewer than 2");
    detail::check_no_nan_samples(a, "welch_t");
    detail::check_no_nan_samples(b, "welch_t");
    const auto moments = [](std::span<const double> v) {
        const double n = static_cast<double>(v.size());
        const double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
        double ss = 0.0;
        for (double x : v) ss += (x - mean) * (x - mean);
        return std::pair{mean, ss / (n - 1.0) / n};  // the mean and its squared standard error
    };
    const auto [ma, ea] = moments(a);
    const auto [mb, eb] = moments(b);
    const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
    welch out;
    if (ea + eb == 0.0) {  // no spread on either side: the means are equal or certainly not
        out.dof = na + nb - 2.0;
        out.t = mb == ma ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), mb - ma);
        out.p = mb == ma ? 1.0 : 0.0;
        return out;
    }
    out.t = (mb - ma) / std::sqrt(ea + eb);
    out.dof = (ea + eb) * (ea + eb) / (ea * ea / (na - 1.0) + eb * eb / (nb - 1.0));
    out.p = std::clamp(2.0 * student_t_sf(std::fabs(out.t), out.dof), 0.0, 1.0);
    return out;
}

COMET_DECL bool u_test_resolves(std::size_t m, std::size_t n, double alpha) {
    if (m == 0 || n == 0) return false;
    double orderings = 1.0;  // C(m+n, m), built up as a product
    for (std::size_t i = 1; i <= std::min(m, n); ++i) orderings = orderings * static_cast<double>(std::max(m, n) + i) / static_cast<double>(i);
    return 2.0 / orderings <= alpha / 10.0;
}

COMET_DECL std::vector<double> round_medians(const record& r) {
    if (r.rounds.empty()) return {summarize(r).median};
    std::size_t total = 0;
    for (const auto& round : r.rounds) total += round.samples;
    if (total != r.samples.size())
        raise<invalid_argument>(-1, "round_medians: ", r.kernel, ": the rounds hold ", total, " samples, the record ", r.samples.size());
    std::vector<double> out, valid;
    std::size_t at = 0;
    for (std::size_t i = 0; i < r.rounds.size(); ++i) {
        if (r.rounds[i].samples == 0) raise<invalid_argument>(-1, "round_medians: ", r.kernel, ": round ", i, " has no samples");
        valid.clear();
        for (std::size_t k = at; k < at + r.rounds[i].samples; ++k)
            if (is_valid_sample(r, k)) valid.push_back(r.samples[k]);
        if (!valid.empty()) out.push_back(summarize(std::span<const double>(valid)).median);
        at += r.rounds[i].samples;
    }
    return out;
}

COMET_DECL std::string_view to_string(change_verdict v) noexcept {
    switch (v) {
        case change_verdict::faster: return "faster";
        case change_verdict::slower: return "slower";
        case change_verdict::unresolved: return "unresolved";
        default: return "same";
    }
}

COMET_DECL std::string_view to_string(compare_unit u) noexcept { return u == compare_unit::rounds ? "rounds" : "samples"; }

COMET_DECL std::vector<kernel_change> by_kernel(const run_comparison& c) {
    std::vector<kernel_change> out;
    std::vector<std::vector<double>> changes;
    for (const auto& p : c.points) {
        auto at = std::find_if(out.begin(), out.end(), [&](const kernel_change& k) { return k.kernel == p.kernel; });
        if (at == out.end()) {
            kernel_change first;
            first.kernel = p.kernel;
            out.push_back(std::move(first));
            changes.emplace_back();
            at = out.end() - 1;
        }
        ++at->points;
        at->slower += p.verdict == change_verdict::slower;
        at->faster += p.verdict == change_verdict::faster;
        if (p.change) {
            changes[static_cast<std::size_t>(at - out.begin())].push_back(*p.change);
            at->up += *p.change > 0.0;
            at->down += *p.change < 0.0;
        }
    }
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!changes[i].empty()) out[i].median_change = summarize(changes[i]).median;
    return out;
}

}  // namespace comet

namespace comet {
namespace detail::compare {

COMET_DECL std::vector<std::pair<std::string, const record*>> named(const result_set& run, const char* which) {
    std::vector<std::pair<std::string, const record*>> out;
    for (const auto& r : run.records) {
        std::string name = point_name(r);
        for (const auto& [n, rec] : out)
            if (n == name) raise<invalid_argument>(-1, "compare_runs: run ", which, " has two records of ", name);
        out.emplace_back(std::move(name), &r);
    }
    return out;
}

}  // namespace detail::compare
}  // namespace comet

namespace comet {

COMET_DECL run_comparison compare_runs(const result_set& a, const result_set& b, compare_options options) {
    if (!(options.alpha > 0.0 && options.alpha < 1.0))
        raise<invalid_argument>(-1, "compare_runs: alpha = ", options.alpha, " is outside (0, 1)");
    if (!(options.threshold >= 0.0 && std::isfinite(options.threshold)))
        raise<invalid_argument>(-1, "compare_runs: threshold = ", options.threshold, " is not a finite number >= 0");
    const auto in_a = detail::compare::named(a, "A");
    const auto in_b = detail::compare::named(b, "B");
    const auto find = [](const auto& list, const std::string& name) -> const record* {
        for (const auto& [n, r] : list)
            if (n == name) return r;
        return nullptr;
    };
    run_comparison out;
    out.options = options;
    for (const auto& [name, ra] : in_a) {
        const record* rb = find(in_b, name);
        if (!rb) {
            out.only_in_a.push_back(name);
            continue;
        }
        std::string why;
        for (const auto& [side, r] : {std::pair{"A", ra}, std::pair{"B", rb}})
            if (!usable(*r)) {
                const flag* f = find_flag(r->flags, "point");
                why += std::string(why.empty() ? "" : "; ") + side + ": " +
                       (f ? "flagged (" + f->why + ")" : r->samples.empty() ? std::string("no samples") : std::string("no valid sample"));
            }
        if (!why.empty()) {
            out.not_compared.emplace_back(name, why);
            continue;
        }
        point_change p;
        p.name = name;
        p.kernel = ra->kernel;
        p.params = ra->params;
        const std::vector<double> valid_a = valid_samples(*ra), valid_b = valid_samples(*rb);
        p.n_a = valid_a.size();
        p.n_b = valid_b.size();
        p.median_a = summarize(std::span<const double>(valid_a)).median;
        p.median_b = summarize(std::span<const double>(valid_b)).median;
        if (p.median_a > 0.0) p.change = (p.median_b - p.median_a) / p.median_a;
        p.test = mann_whitney_u(valid_a, valid_b);
        const std::vector<double> rounds_a = round_medians(*ra), rounds_b = round_medians(*rb);
        p.rounds_a = rounds_a.size();
        p.rounds_b = rounds_b.size();
        if (p.rounds_a >= 2 && p.rounds_b >= 2) {
            p.unit = compare_unit::rounds;
            if (u_test_resolves(p.rounds_a, p.rounds_b, options.alpha)) {
                p.round_u = mann_whitney_u(rounds_a, rounds_b);
                p.p = p.round_u->p;
            } else {
                p.round_test = welch_t(rounds_a, rounds_b);
                p.p = p.round_test->p;
            }
        } else {
            p.p = p.test.p;
        }
        p.significant = p.p < options.alpha;
        if (p.significant) {
            // On rounds, the test's direction (of the rounds' medians) must agree with the
            // change of the pooled median it is reported by.
            bool up = true, down = true;
            if (p.round_test) up = p.round_test->t > 0.0, down = p.round_test->t < 0.0;
            if (p.round_u) {  // U of A's rounds below the middle: B's rank higher
                const double middle = static_cast<double>(p.rounds_a * p.rounds_b) / 2.0;
                up = p.round_u->u < middle, down = p.round_u->u > middle;
            }
            const bool slower = up && (p.change ? *p.change > options.threshold : p.median_b > p.median_a);
            const bool faster = down && (p.change ? *p.change < -options.threshold : p.median_b < p.median_a);
            p.verdict = slower ? change_verdict::slower : faster ? change_verdict::faster : change_verdict::same;
        } else if (p.change && std::fabs(*p.change) > options.threshold) {
            p.verdict = change_verdict::unresolved;
        }
        p.regression = p.verdict == change_verdict::slower;
        out.points.push_back(std::move(p));
    }
    for (const auto& [name, r] : in_b)
        if (!find(in_a, name)) out.only_in_b.push_back(name);
    if (out.points.empty() && !out.not_compared.empty())
        raise<invalid_argument>(-1, "compare_runs: none of the ", out.not_compared.size(), " points both runs measured can be compared (",
                                out.not_compared.front().first, ": ", out.not_compared.front().second, ")");
    if (out.points.empty()) {
        const auto what = [](const auto& list) {
            if (list.empty()) return std::string("no points");
            return std::to_string(list.size()) + (list.size() == 1 ? " point, " : " points, e.g. ") + list.front().first;
        };
        raise<invalid_argument>(-1, "compare_runs: the runs have no point in common (A: ", what(in_a), "; B: ", what(in_b), ")");
    }
    return out;
}

}  // namespace comet
