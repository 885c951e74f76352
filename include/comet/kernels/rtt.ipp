// comet/kernels/rtt.ipp — the definitions of comet/kernels/rtt.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/core/hash.hpp>
#include <comet/kernels/rtt.hpp>
#include <comet/stats/least_squares.hpp>
#include <comet/stats/summary.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace comet::kernels {

COMET_DECL rtt_analysis analyse_round_trips(std::span<const double> at, std::span<const double> rtt, std::span<const double> diff) {
    if (at.size() != rtt.size() || at.size() != diff.size())
        raise<invalid_argument>(-1, "analyse_round_trips: ", at.size(), " times, ", rtt.size(), " round trips and ", diff.size(),
                                " clock differences; they must be as many");
    if (at.size() < 8) raise<invalid_argument>(-1, "analyse_round_trips: ", at.size(), " measurements; at least 8 are needed");
    rtt_analysis a;
    a.min_rtt = *std::min_element(rtt.begin(), rtt.end());
    const line_fit all = fit_line(at, diff);
    a.drift_all = all.slope;
    a.scatter_all = all.residual;
    // The quarter with the smallest round trips (at least 3 measurements, for a slope's error).
    std::vector<std::size_t> order(rtt.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t quarter = std::max<std::size_t>(3, rtt.size() / 4);
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(quarter - 1), order.end(),
                     [&](std::size_t i, std::size_t j) { return rtt[i] < rtt[j]; });
    order.resize(quarter);
    std::sort(order.begin(), order.end());
    std::vector<double> x, y;
    for (std::size_t i : order) {
        x.push_back(at[i]);
        y.push_back(diff[i]);
    }
    // Every smallest round trip at one instant cannot give a slope (a simulated machine whose
    // round trips are all alike puts the quarter at the start): the drift is then all's.
    if (std::all_of(x.begin(), x.end(), [&](double v) { return v == x.front(); })) {
        a.offset = all.intercept;
        a.drift = all.slope;
        a.drift_error = all.slope_se.value_or(0.0);
        a.scatter_quarter = all.residual;
        return a;
    }
    const line_fit best = fit_line(x, y);
    a.offset = best.intercept;
    a.drift = best.slope;
    a.drift_error = best.slope_se.value_or(0.0);
    a.scatter_quarter = best.residual;
    return a;
}

COMET_DECL patience_quality simulate_patience(std::span<const double> rtt, std::size_t patience, std::size_t trials, std::uint64_t seed) {
    if (rtt.empty()) raise<invalid_argument>(-1, "simulate_patience: no round trip to draw from");
    if (patience == 0) raise<invalid_argument>(-1, "simulate_patience: patience = 0; the rule needs N >= 1");
    if (trials == 0) raise<invalid_argument>(-1, "simulate_patience: trials = 0; at least one run is needed");
    const double smallest = *std::min_element(rtt.begin(), rtt.end());
    patience_quality q;
    q.minima.reserve(trials);
    std::uint64_t state = comet::detail::splitmix64(seed ^ (0x7274747175616cULL + patience));  // a stream per N
    double excess = 0.0, draws = 0.0;
    for (std::size_t trial = 0; trial < trials; ++trial) {
        double least = 0.0;
        std::size_t since = 0, n = 0;
        do {
            state = comet::detail::splitmix64(state);
            const double v = rtt[static_cast<std::size_t>(state % rtt.size())];
            ++n;
            if (n == 1 || v < least) {
                least = v;
                since = 0;
            } else {
                ++since;
            }
        } while (since < patience);
        q.minima.push_back(least);
        excess += smallest > 0.0 ? (least - smallest) / smallest : 0.0;
        draws += static_cast<double>(n);
    }
    q.quality = 100.0 * excess / static_cast<double>(trials);
    q.cost = draws / static_cast<double>(trials);
    return q;
}

namespace detail::rtt {

COMET_DECL std::vector<int> partners(const rtt_config& cfg, int p) {
    if (!cfg.partners.empty()) return cfg.partners;
    std::vector<int> out;
    for (int r = 0; r < p && out.size() < 3; ++r)
        if (r != cfg.test_node) out.push_back(r);
    return out;
}

COMET_DECL void check(int rank, int p, const rtt_config& cfg) {
    if (p < 2) raise<invalid_argument>(rank, "sync: the round-trip study needs 2 ranks, the group has ", p);
    if (cfg.test_node < 0 || cfg.test_node >= p)
        raise<invalid_argument>(rank, "sync: round-trip test node ", cfg.test_node, " is outside 0..", p - 1);
    for (int r : cfg.partners) {
        if (r < 0 || r >= p) raise<invalid_argument>(rank, "sync: round-trip partner ", r, " is outside 0..", p - 1);
        if (r == cfg.test_node) raise<invalid_argument>(rank, "sync: round-trip partner ", r, " is the test node itself");
    }
    if (cfg.measurements < 8)
        raise<invalid_argument>(rank, "sync: round-trip measurements = ", cfg.measurements, "; at least 8 are needed for a drift");
    if (!std::isfinite(cfg.interval) || cfg.interval < 0.0)
        raise<invalid_argument>(rank, "sync: round-trip interval = ", cfg.interval, " s is not >= 0");
    if (cfg.bins == 0) raise<invalid_argument>(rank, "sync: round-trip bins = 0; the histogram needs at least 1");
    if (cfg.segments == 0 || cfg.segments > cfg.measurements)
        raise<invalid_argument>(rank, "sync: round-trip segments = ", cfg.segments, " is not in 1..", cfg.measurements, " (the measurements)");
    for (std::size_t n : cfg.patience)
        if (n == 0) raise<invalid_argument>(rank, "sync: round-trip patience 0; the rule needs N >= 1");
    if (cfg.trials == 0) raise<invalid_argument>(rank, "sync: round-trip trials = 0; at least one run is needed");
    if (cfg.tag < 0 || cfg.tag > max_tag) raise<invalid_argument>(rank, "sync: round-trip tag ", cfg.tag, " is outside 0..", max_tag);
    (void)seeded_skew(cfg.seed, rank, cfg.skew);
}

COMET_DECL void describe(result_set& out, const rtt_config& cfg, int nodes, int partner, bool skewed, double true_drift,
                         std::span<const double> at, std::span<const double> rtt, std::span<const double> diff, std::size_t preempted) {
    const auto make = [&](const char* study) {
        record rec{"rtt", params{}, {}};
        rec.params.set("study", study).set("nodes", nodes).set("partner", partner).set("skew", skewed ? "decorator" : "none");
        rec.iterations = 1;
        rec.stop = "fixed";
        return rec;
    };
    record main = make("latency");
    add_dropped(main, "preempted", preempted);
    for (double r : rtt) main.samples.push_back(0.5 * r);
    if (rtt.size() < 8) {
        add_flag(main, "point",
                 std::to_string(rtt.size()) + " of " + std::to_string(cfg.measurements) + " round trips undisturbed; a drift needs 8");
        out.records.push_back(std::move(main));
        return;
    }
    const double first = at.front();
    std::vector<double> since(at.size());
    for (std::size_t i = 0; i < at.size(); ++i) since[i] = at[i] - first;
    const rtt_analysis a = analyse_round_trips(since, rtt, diff);
    main.values.set("interval", cfg.interval).set("duration", since.back()).set("min_rtt", a.min_rtt);
    main.values.set("offset", a.offset).set("drift", a.drift).set("drift_error", a.drift_error).set("scatter_quarter", a.scatter_quarter);
    main.values.set("drift_all", a.drift_all).set("scatter_all", a.scatter_all);
    if (skewed) main.values.set("true_drift", true_drift);
    out.records.push_back(std::move(main));

    // Figure 4: the latencies in uniform bins from the least up to the 99th percentile or ten
    // interquartile ranges above the median, whichever is lower: on a loaded machine a few
    // preempted round trips a hundred times the rest would otherwise squeeze the distribution
    // into its first bin.
    std::vector<double> latency(rtt.size());
    for (std::size_t i = 0; i < rtt.size(); ++i) latency[i] = 0.5 * rtt[i];
    const double lo = *std::min_element(latency.begin(), latency.end());
    const double hi = std::min(percentile(latency, 99.0),
                               percentile(latency, 50.0) + 10.0 * (percentile(latency, 75.0) - percentile(latency, 25.0)));
    // Bins no narrower than a picosecond (the simulators' resolution): latencies that differ
    // by a rounding of the clock's arithmetic share one.
    constexpr double finest = 1e-12;
    const double width = hi - lo >= finest ? std::max((hi - lo) / static_cast<double>(cfg.bins), finest) : 0.0;
    std::vector<std::vector<double>> bins(width > 0.0 ? static_cast<std::size_t>(std::ceil((hi - lo) / width)) : 1);
    std::size_t beyond = 0;
    for (double v : latency) {
        if (v > hi) {
            ++beyond;
            continue;
        }
        const auto b = width > 0.0 ? std::min(bins.size() - 1, static_cast<std::size_t>((v - lo) / width)) : std::size_t{0};
        bins[b].push_back(v);
    }
    bool first_bin = true;
    for (std::size_t b = 0; b < bins.size(); ++b) {
        if (bins[b].empty()) continue;
        record rec = make("histogram");
        rec.params.set("bin", b);  // the point's name: its place, not what it measured
        rec.values.set("latency_us", (lo + (static_cast<double>(b) + 0.5) * width) * 1e6);
        rec.values.set("count", bins[b].size());
        rec.samples = std::move(bins[b]);
        if (first_bin && beyond > 0)
            rec.notes.push_back(std::to_string(beyond) + " latencies above " + std::to_string(hi * 1e6) +
                                " us (the 99th percentile, or the median + 10 interquartile ranges) are not drawn");
        first_bin = false;
        out.records.push_back(std::move(rec));
    }

    // Figure 5: the clock difference in time order, the smallest-quarter round trips of each
    // part, less the fitted difference at the first measurement (a second of offset would hide
    // microseconds of drift).
    const std::size_t parts = std::min(cfg.segments, rtt.size());
    for (std::size_t k = 0; k < parts; ++k) {
        const std::size_t begin = k * rtt.size() / parts, end = (k + 1) * rtt.size() / parts;
        std::vector<std::size_t> idx(end - begin);
        std::iota(idx.begin(), idx.end(), begin);
        const std::size_t keep = std::max<std::size_t>(1, idx.size() / 4);
        std::nth_element(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(keep - 1), idx.end(),
                         [&](std::size_t i, std::size_t j) { return rtt[i] < rtt[j]; });
        idx.resize(keep);
        std::sort(idx.begin(), idx.end());
        record rec = make("drift");
        rec.params.set("part", k);
        rec.values.set("at_s", 0.5 * (since[begin] + since[end - 1]));
        for (std::size_t i : idx) rec.samples.push_back(diff[i] - a.offset);
        out.records.push_back(std::move(rec));
    }

    // Figure 6: the stopping rule's quality and cost against N.
    for (std::size_t n : cfg.patience) {
        patience_quality q = simulate_patience(rtt, n, cfg.trials, cfg.seed);
        record rec = make("quality");
        rec.params.set("patience", n);
        rec.values.set("quality", q.quality).set("cost", q.cost).set("trials", cfg.trials);
        rec.samples = std::move(q.minima);
        out.records.push_back(std::move(rec));
    }
}

}  // namespace detail::rtt
}  // namespace comet::kernels
