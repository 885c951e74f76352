// comet/stats/validity.ipp — the definitions of comet/stats/validity.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/validity.hpp>

namespace comet {

COMET_DECL bool is_valid_sample(const record& r, std::size_t i) {
    return std::none_of(r.invalid.begin(), r.invalid.end(), [i](const invalid_sample& s) { return s.index == i; });
}

COMET_DECL std::vector<double> valid_samples(const record& r) {
    if (r.invalid.empty()) return r.samples;
    std::vector<double> out;
    out.reserve(r.samples.size());
    for (std::size_t i = 0; i < r.samples.size(); ++i)
        if (is_valid_sample(r, i)) out.push_back(r.samples[i]);
    return out;
}

COMET_DECL std::size_t valid_count(const record& r) { return r.samples.size() - r.invalid.size(); }

COMET_DECL std::size_t total_measurements(const record& r) {
    std::size_t n = r.samples.size();
    for (const auto& [why, count] : r.dropped) n += count;
    return n;
}

COMET_DECL void add_flag(record& r, std::string what, std::string why) {
    if (std::any_of(r.flags.begin(), r.flags.end(), [&](const flag& f) { return f.what == what; })) return;
    r.flags.push_back({std::move(what), std::move(why)});
}

COMET_DECL void mark_invalid(record& r, std::size_t i, std::string why) {
    if (i >= r.samples.size()) raise<invalid_argument>(-1, "mark_invalid: ", r.kernel, " has no sample ", i, " (", r.samples.size(), " samples)");
    if (!is_valid_sample(r, i)) return;
    const auto at = std::find_if(r.invalid.begin(), r.invalid.end(), [i](const invalid_sample& s) { return s.index > i; });
    r.invalid.insert(at, invalid_sample{i, std::move(why)});
    if (r.invalid.size() == r.samples.size()) {
        std::vector<std::pair<std::string, std::size_t>> by;
        for (const auto& x : r.invalid) {
            auto it = std::find_if(by.begin(), by.end(), [&](const auto& b) { return b.first == x.why; });
            if (it == by.end()) by.emplace_back(x.why, 1);
            else ++it->second;
        }
        std::string why_all;
        for (const auto& [w, n] : by) why_all += (why_all.empty() ? "" : ", ") + std::to_string(n) + " " + w;
        add_flag(r, "point", "no valid sample: all " + std::to_string(r.samples.size()) + " invalid (" + why_all + ")");
    }
}

COMET_DECL void mark_negative(record& r) {
    for (std::size_t i = 0; i < r.samples.size(); ++i)
        if (r.samples[i] < 0) mark_invalid(r, i, "negative");
}

COMET_DECL void add_dropped(record& r, std::string_view why, std::size_t count) {
    if (count == 0) return;
    for (auto& [w, n] : r.dropped)
        if (w == why) {
            n += count;
            return;
        }
    r.dropped.emplace_back(std::string(why), count);
}

}  // namespace comet

namespace comet {
namespace detail::validity {

COMET_DECL std::vector<double> weights(const record& r) {
    if (r.rounds.empty()) return {};
    std::vector<double> w;
    w.reserve(r.samples.size());
    for (const auto& round : r.rounds) w.insert(w.end(), round.samples, static_cast<double>(std::max<std::size_t>(round.iterations, 1)));
    if (w.size() != r.samples.size())
        raise<invalid_argument>(-1, r.kernel, ": its rounds hold ", w.size(), " samples, the record ", r.samples.size());
    return w;
}

}  // namespace detail::validity
}  // namespace comet

namespace comet {

COMET_DECL summary summarize(const record& r) {
    std::vector<double> valid = valid_samples(r);
    summary s = summarize(std::span<const double>(valid));
    const std::vector<double> w = detail::validity::weights(r);
    if (w.empty() || valid.empty()) return s;
    double time = 0, iterations = 0;
    for (std::size_t i = 0; i < r.samples.size(); ++i)
        if (is_valid_sample(r, i)) time += r.samples[i] * w[i], iterations += w[i];
    s.mean = time / iterations;
    return s;
}

COMET_DECL double statistic_of(const record& r, statistic s) {
    const summary sum = summarize(r);
    switch (s) {
    case statistic::min: return sum.min;
    case statistic::mean: return sum.mean;
    default: return sum.median;
    }
}

COMET_DECL assessment assess(const record& r, const summary& s) {
    assessment a{valid_count(r), total_measurements(r), 0, std::numeric_limits<double>::quiet_NaN(), r.flags};
    const auto flag_once = [&](std::string what, std::string why) {
        if (!find_flag(a.flags, what)) a.flags.push_back({std::move(what), std::move(why)});
    };
    if (a.valid == 0) {
        if (a.total > 0) flag_once("point", "no valid measurement of " + std::to_string(a.total));
        return a;
    }
    if (!std::isfinite(s.median) || !std::isfinite(s.mad)) return a;
    const double sigma = std::max(s.mad, outlier_floor * std::fabs(s.median));
    a.fence = s.median + outlier_sigmas * sigma;
    const double low_fence = s.median - outlier_sigmas * sigma;
    std::size_t above = 0, below = 0;
    double in_sum = 0, in_n = 0, all_sum = 0, all_n = 0;
    const std::vector<double> w = detail::validity::weights(r);
    for (std::size_t i = 0; i < r.samples.size(); ++i) {
        if (!is_valid_sample(r, i)) continue;
        const double x = r.samples[i], weight = w.empty() ? 1.0 : w[i];
        all_sum += x * weight, all_n += weight;
        if (x > a.fence)
            ++above;
        else if (x < low_fence)
            ++below;
        else
            in_sum += x * weight, in_n += weight;
    }
    a.outliers = above + below;
    const auto percent = [](double x) { return std::to_string(static_cast<int>(std::lround(x * 100))) + "%"; };
    if (s.unstable)
        flag_once("statistics", "the samples disagree: spread (MAD/median) " + percent(*s.rel_spread) + " > " + percent(unstable_spread));
    else if (a.outliers * 10 >= a.valid && a.valid >= 10)
        flag_once("statistics", "the samples fall in more than one group: " + std::to_string(a.outliers) + " of " +
                                    std::to_string(a.valid) + " beyond median +- 3 sigma");
    const auto side = [&](std::size_t k, const char* where) {
        return std::to_string(k) + " of " + std::to_string(a.valid) + " samples " + where + " (a disturbed sample: a preemption, an interrupt)";
    };
    if (above > 0) {
        const std::string why = side(above, "above median + 3 sigma");
        flag_once("max", why);
        flag_once("stddev", why);
        if (s.p95 && *s.p95 > a.fence) flag_once("p95", why);
    }
    if (below > 0) {
        const std::string why = side(below, "below median - 3 sigma");
        flag_once("min", why);
        flag_once("stddev", why);
        if (s.p05 && *s.p05 < low_fence) flag_once("p05", why);
    }
    // The extremes are one sample each: one far from the median (over `unstable_spread` away,
    // whatever the spread of the rest) says more about that sample than about the point.
    if (s.max > s.median * (1 + unstable_spread)) flag_once("max", "one sample: " + percent(s.max / s.median - 1) + " above the median");
    if (s.min < s.median * (1 - unstable_spread)) flag_once("min", "one sample: " + percent(1 - s.min / s.median) + " below the median");
    if (in_n > 0 && a.outliers > 0 && std::fabs(all_sum / all_n - in_sum / in_n) > mean_pull_limit * (in_sum / in_n))
        flag_once("mean", "its " + std::to_string(a.outliers) + " outliers move it over 1% from the mean of the other samples");
    return a;
}

COMET_DECL assessment assess(const record& r) { return assess(r, summarize(r)); }

COMET_DECL bool usable(const record& r) { return valid_count(r) > 0 && !find_flag(r.flags, "point"); }

COMET_DECL std::string unusable_why(const record& r) {
    if (const flag* f = find_flag(r.flags, "point")) return f->why;
    if (valid_count(r) == 0) return "no valid sample";
    return {};
}

}  // namespace comet
