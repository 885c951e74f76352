// comet/analysis/loggp.ipp — the definitions of comet/analysis/loggp.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/analysis/loggp.hpp>
#include <comet/core/errors.hpp>
#include <comet/stats/least_squares.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

namespace comet {
namespace detail::loggp {

/// One size's four round trips, as found among the records.
struct trains {
    const record* single = nullptr;
    const record* back_to_back = nullptr;
    const record* spaced = nullptr;
    const record* late = nullptr;
};

inline std::string describe(const record& r) {
    std::ostringstream s;
    s << "PRTT(" << r.params.text("train_kind").value_or("?") << ", " << r.params.integer("size").value_or(-1) << " B)";
    return s.str();
}

inline std::string seconds(double x) {
    std::ostringstream s;
    s << x << " s";
    return s.str();
}

/// `e` flagged for `why` unless it already is.
inline void flag_estimate(loggp_estimate& e, const std::string& why) {
    if (e.flag.empty()) e.flag = why;
}

/// A line's intercept and slope as estimates (errors from three points on).
inline void from_line(const line_fit& f, loggp_estimate& intercept, loggp_estimate& slope) {
    intercept.value = f.intercept;
    slope.value = f.slope;
    if (f.intercept_se) intercept.se = *f.intercept_se;
    if (f.slope_se) slope.se = *f.slope_se;
}

/// Whether `e` lies below zero by more than twice its error (or at all, without one).
inline bool below_zero(const loggp_estimate& e) {
    const double margin = std::isfinite(e.se) ? 2 * e.se : 0.0;
    return e.value < -margin;
}

}  // namespace detail::loggp

COMET_DECL loggp_parameters fit_loggp(std::span<const record> records) {
    using namespace detail::loggp;
    std::map<std::int64_t, trains> by_size;
    std::optional<std::int64_t> train;
    for (const record& r : records) {
        if (r.kernel != "loggp") continue;
        const auto kind = r.params.text("train_kind");
        const auto size = r.params.integer("size");
        const auto n = r.params.integer("train");
        if (!kind || !size || !n) raise<invalid_argument>(-1, "fit_loggp: a loggp record without train_kind, size or train");
        if (train && *train != *n) raise<invalid_argument>(-1, "fit_loggp: trains of ", *train, " and ", *n, " messages; fit one length");
        train = n;
        trains& t = by_size[*size];
        const record** slot = *kind == "1,0" ? &t.single : *kind == "n,0" ? &t.back_to_back : *kind == "n,d" ? &t.spaced
                            : *kind == "late" ? &t.late : nullptr;
        if (!slot) raise<invalid_argument>(-1, "fit_loggp: train_kind '", *kind, "' is none of 1,0 n,0 n,d late");
        if (*slot) raise<invalid_argument>(-1, "fit_loggp: two ", describe(r), " records; measure each size once");
        *slot = &r;
    }
    if (!train) raise<invalid_argument>(-1, "fit_loggp: no loggp record");
    if (*train < 2) raise<invalid_argument>(-1, "fit_loggp: trains of ", *train, " messages; at least 2 are needed");

    loggp_parameters out;
    out.train = static_cast<std::size_t>(*train);
    const double n1 = static_cast<double>(*train - 1);
    // The estimates each round trip feeds: the single one all of them; the back-to-back train
    // the gap's; the spaced one the two ends' own; the late one the receiver's, the model's o
    // and O, and the line of L.
    const std::vector<loggp_estimate*> from_single{&out.L, &out.G_path, &out.g, &out.G, &out.o_s, &out.O_s,
                                                   &out.o_r, &out.O_r, &out.o, &out.O};
    const std::vector<loggp_estimate*> from_back_to_back{&out.g, &out.G};
    const std::vector<loggp_estimate*> from_spaced{&out.o_s, &out.O_s, &out.o_r, &out.O_r};
    const std::vector<loggp_estimate*> from_late{&out.o_r, &out.O_r, &out.o, &out.O, &out.L, &out.G_path};
    std::vector<std::pair<const std::vector<loggp_estimate*>*, std::string>> flagged;  // (what it feeds, why)
    for (const auto& [size, t] : by_size) {
        if (!t.single || !t.back_to_back || !t.spaced || !t.late) {
            out.notes.push_back("size " + std::to_string(size) + " B left out: not all four round trips were measured");
            continue;
        }
        if (!usable(*t.single) || !usable(*t.back_to_back) || !usable(*t.spaced) || !usable(*t.late)) {
            out.notes.push_back("size " + std::to_string(size) + " B left out: a round trip has no valid sample or is flagged as a whole");
            continue;
        }
        const double a = statistic_of(*t.single, statistic::median), b = statistic_of(*t.back_to_back, statistic::median),
                     c = statistic_of(*t.spaced, statistic::median), e = statistic_of(*t.late, statistic::median);
        const double d = t.spaced->values.number("delay").value_or(std::nan(""));
        const double dl = t.late->values.number("delay").value_or(std::nan(""));
        if (!std::isfinite(d) || !std::isfinite(dl)) {
            out.notes.push_back("size " + std::to_string(size) + " B left out: a spaced or late round trip without its delay");
            continue;
        }
        loggp_point p;
        for (const auto& [r, feeds] : {std::pair{t.single, &from_single}, std::pair{t.back_to_back, &from_back_to_back},
                                       std::pair{t.spaced, &from_spaced}, std::pair{t.late, &from_late}})
            if (const std::string why = median_flag(*r); !why.empty()) {
                flagged.emplace_back(feeds, describe(*r) + ": " + why);
                if (p.flag.empty()) p.flag = "a flagged median: " + describe(*r) + ": " + why;
            }
        p.size = static_cast<std::size_t>(size);
        p.single = a, p.back_to_back = b, p.spaced = c, p.late = e, p.spacing = d, p.late_delay = dl;
        p.gap = (b - a) / n1;
        p.send = (c - a) / n1 - d;
        p.receive = (e - dl) - p.send;
        p.path = a / 2 - (e - dl);
        out.points.push_back(p);
    }
    if (out.points.size() < 2)
        raise<invalid_argument>(-1, "fit_loggp: ", out.points.size(), " sizes with all four round trips; a line needs at least 2");

    std::vector<double> x, gap, send, receive, half, path;
    for (const auto& p : out.points) {
        x.push_back(static_cast<double>(p.size));
        gap.push_back(p.gap);
        send.push_back(p.send);
        receive.push_back(p.receive);
        half.push_back((p.send + p.receive) / 2);
        path.push_back(p.path);
    }
    from_line(fit_line(x, gap), out.g, out.G);
    from_line(fit_line(x, send), out.o_s, out.O_s);
    from_line(fit_line(x, receive), out.o_r, out.O_r);
    from_line(fit_line(x, half), out.o, out.O);
    from_line(fit_line(x, path), out.L, out.G_path);

    const auto note = [&](const std::string& why) {
        if (std::find(out.notes.begin(), out.notes.end(), why) == out.notes.end()) out.notes.push_back(why);
    };
    for (const auto& [feeds, why] : flagged) {
        for (loggp_estimate* e : *feeds) flag_estimate(*e, "from a flagged median: " + why);
        note("flagged median: " + why);
    }
    for (auto& p : out.points)
        if (p.spacing < p.gap) {
            const std::string why = "the spaced train of " + std::to_string(p.size) + " B was spaced " + seconds(p.spacing) +
                                    ", less than its gap " + seconds(p.gap) + ": it measured the gap, not the sender's overhead";
            for (loggp_estimate* e : from_spaced) flag_estimate(*e, why);
            if (p.flag.empty()) p.flag = why;
            note(why);
        }
    const std::pair<loggp_estimate*, const char*> named[] = {{&out.L, "L"},     {&out.G_path, "G_path"}, {&out.g, "g"},
                                                             {&out.G, "G"},     {&out.o, "o"},           {&out.O, "O"},
                                                             {&out.o_s, "o_s"}, {&out.O_s, "O_s"},       {&out.o_r, "o_r"},
                                                             {&out.O_r, "O_r"}};
    for (const auto& [e, name] : named)
        if (below_zero(*e)) {
            const std::string why = std::string(name) + " below zero: the model does not describe these round trips (a size sent by rendezvous among them?)";
            flag_estimate(*e, why);
            note(why);
        }
    // L and G_path are one line: either below zero says the line does not hold.
    if (below_zero(out.L) || below_zero(out.G_path)) {
        flag_estimate(out.L, out.G_path.flag);
        flag_estimate(out.G_path, out.L.flag);
    }
    return out;
}

}  // namespace comet
