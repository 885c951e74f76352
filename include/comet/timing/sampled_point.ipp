// comet/timing/sampled_point.ipp — the definitions of comet/timing/sampled_point.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/timing/sampled_point.hpp>

namespace comet {

COMET_DECL void fill_record(record& rec, sampled_point&& p, const sampling& s, sample_reduction red, double scale) {
    for (double& x : p.samples) x *= scale;
    for (double& x : p.overheads) x *= scale;
    rec.samples = std::move(p.samples);
    rec.overheads = std::move(p.overheads);
    rec.iterations = p.iterations;
    rec.stop = std::string(to_string(p.stop));
    for (std::size_t i = 0; i < p.disturbed.size() && i < rec.samples.size(); ++i)
        if (p.disturbed[i]) mark_invalid(rec, i, "preempted");
    mark_negative(rec);
    if (p.short_samples) rec.notes.push_back("samples shorter than the minimum duration: fixed iterations too few for the clock");
    if (p.stop == stop_reason::interrupted)
        rec.notes.push_back("interrupted after " + std::to_string(rec.samples.size()) + " samples");
    rec.params.set("reduction", std::string(to_string(red)));
    if (!rec.params.contains("cache")) rec.params.set("cache", std::string(to_string(s.cache)));
    rec.values.set("order", std::string(to_string(s.order)));
    if (s.order == interleave::shuffle) rec.values.set("seed", static_cast<std::int64_t>(s.seed));
}

}  // namespace comet

namespace comet {
namespace detail {

COMET_DECL std::vector<double> pack_points(const std::vector<sampled_point>& measured) {
    std::vector<double> v;
    for (const auto& x : measured) {
        v.push_back(static_cast<double>(x.samples.size()));
        v.push_back(static_cast<double>(x.iterations));
        v.push_back(static_cast<double>(static_cast<int>(x.stop)));
        v.push_back(x.short_samples ? 1.0 : 0.0);
        v.insert(v.end(), x.samples.begin(), x.samples.end());
        v.insert(v.end(), x.overheads.begin(), x.overheads.end());
        for (std::size_t i = 0; i < x.samples.size(); ++i) v.push_back(i < x.disturbed.size() && x.disturbed[i] ? 1.0 : 0.0);
    }
    return v;
}

COMET_DECL std::vector<sampled_point> unpack_points(const std::vector<double>& v, std::size_t points, int rank, int from) {
    std::vector<sampled_point> out(points);
    std::size_t at = 0;
    for (auto& x : out) {
        if (at + 4 > v.size()) raise<error>(rank, "forward_points: the measurements from rank ", from, " are cut short");
        const auto n = static_cast<std::size_t>(v[at]);
        x.iterations = static_cast<std::size_t>(v[at + 1]);
        x.stop = static_cast<stop_reason>(static_cast<int>(v[at + 2]));
        x.short_samples = v[at + 3] != 0.0;
        at += 4;
        if (at + 3 * n > v.size()) raise<error>(rank, "forward_points: the measurements from rank ", from, " are cut short");
        x.samples.assign(v.begin() + static_cast<std::ptrdiff_t>(at), v.begin() + static_cast<std::ptrdiff_t>(at + n));
        x.overheads.assign(v.begin() + static_cast<std::ptrdiff_t>(at + n), v.begin() + static_cast<std::ptrdiff_t>(at + 2 * n));
        for (std::size_t i = 0; i < n; ++i) x.disturbed.push_back(v[at + 2 * n + i] != 0.0 ? 1 : 0);
        at += 3 * n;
    }
    return out;
}

}  // namespace detail
}  // namespace comet
