// comet/analysis/fit_machine.hpp — from measurements to a machine: the LogGOPS machine
// (transport/loggops/machine.hpp) whose messages cost what the parametrised round trips of
// kernels/loggp.hpp measured, with each parameter's error and what it came from.
//
//   S   the sizes are taken from the smallest up while each size's single round trip lies on
//       the line fitted to the sizes below it (within 10%):
//       the first size off the line is where the transport stops sending as it did (typically
//       its eager limit), and S is the largest size on it. No size off the line: S = none
//       (nothing measured went otherwise), said in the notes.
//   L, o_s, O_s, o_r, O_r   fit_loggp's on the sizes up to S.
//   G   the path's slope (G_path): what a message's bytes cost between its two ends.
//   g   what of the train's gap the bytes leave: the least of gap(s) − G·s over the sizes
//       (at least 0). Where the CPU sets a train's pace (the gap is o_s + O_s·s), the model's
//       gap is the CPU's too: LogGOPS's trains leave at the slowest of the sender's CPU, its
//       interface and the receiver's.
// Every parameter's flag (a median whose samples disagree, a fit that does not hold) goes into
// the notes; `valid()` says whether there is none.
//
// With `cost_lines::per_size` the per-message costs follow the sizes measured instead of one
// line (Kielmann, Bal and Verstoep's parametrised LogP): the machine's own line runs through the
// two smallest sizes, and a band (loggops/machine.hpp) starts at each larger size, its o_s, o_r
// and g that size's, its O_s, O_r and G the slopes to the next size (the last band's continuing
// the slope before it; a slope below zero is 0). L is the path's line through the two smallest
// sizes at 0 B. S = none: whatever a transport does from a size on (a rendezvous, a copy past the
// cache) is in that size's figures. The errors are not written (one median per band), and
// `valid()` says whether no size's median is flagged.
#pragma once

#include <comet/analysis/loggp.hpp>
#include <comet/core/errors.hpp>
#include <comet/stats/record.hpp>
#include <comet/transport/loggops/machine.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace comet {

/// A fitted machine: the machine, each parameter's error (as the machine file writes it), and
/// what it came from.
struct fitted_machine {
    loggops::machine machine;
    loggops::parameter_errors errors;
    loggp_parameters fit;            ///< on the sizes up to S (per size: on every size)
    std::vector<std::size_t> sizes;  ///< every size measured
    std::vector<std::string> notes;  ///< S's reason, every flag, what was left out
    bool per_size = false;           ///< fitted with `cost_lines::per_size`
    bool valid() const noexcept {
        if (!per_size) return fit.valid();
        return std::all_of(fit.points.begin(), fit.points.end(), [](const loggp_point& p) { return p.flag.empty(); });
    }
    /// The notes and the sizes, as the machine file's opening comments.
    std::string provenance() const {
        std::ostringstream os;
        os << "LogGOPS machine fitted by comet from Netgauge's parametrised round trips (kernel loggp, trains of "
           << fit.train << ")\nsizes measured:";
        for (std::size_t s : sizes) os << ' ' << s;
        os << " B\n";
        for (const auto& n : notes) os << n << '\n';
        return os.str();
    }
};

/// How `fit_machine` draws the per-message costs through the sizes measured.
enum class cost_lines {
    one,       ///< one line over the sizes up to S (LogGOPS's)
    per_size,  ///< a band from each size measured (the header says how)
};

namespace detail::fit_machine {

inline std::vector<record> up_to(std::span<const record> records, std::size_t limit) {
    std::vector<record> out;
    for (const record& r : records)
        if (r.kernel == "loggp" && static_cast<std::size_t>(r.params.integer("size").value_or(0)) <= limit) out.push_back(r);
    return out;
}

/// PRTT(1, 0, s) as the fit predicts it: twice the path and both ends' overheads.
inline double single(const loggp_parameters& f, std::size_t s) {
    const double x = static_cast<double>(s);
    return 2 * (f.L.value + f.G_path.value * x + f.o_s.value + f.O_s.value * x + f.o_r.value + f.O_r.value * x);
}

inline std::string error_text(double se, double scale, const char* unit) {
    if (!std::isfinite(se)) return {};
    std::ostringstream os;
    os << se * scale << ' ' << unit;
    return os.str();
}

inline loggops::vtime ps(double s) { return static_cast<loggops::vtime>(std::llround(std::max(0.0, s) * 1e12)); }
inline loggops::per_byte fs_per_byte(double s) { return static_cast<loggops::per_byte>(std::llround(std::max(0.0, s) * 1e15)); }

/// One size's figures as the bands take them (seconds).
struct band_point {
    std::size_t size = 0;
    double send = 0, receive = 0, path = 0, gap = 0;
    double cpu = 0;  ///< the larger of the two ends' overheads as measured (before giving up any)
};

/// The sizes fit_loggp kept, made fit for bands: the path of a size never below the size
/// before's (G >= 0). Where the round trips' decomposition gives less (the path below zero
/// under a rendezvous, whose handshake the trains charge to the two ends), the two ends' overheads
/// give up the difference, so that the single round trip stays as measured; the notes say so.
inline std::vector<band_point> band_points(const std::vector<loggp_point>& points, std::vector<std::string>& notes) {
    std::vector<band_point> out;
    for (const loggp_point& p : points) {
        band_point b{p.size, std::max(0.0, p.send), std::max(0.0, p.receive), p.path, p.gap, std::max(p.send, p.receive)};
        const double floor = out.empty() ? 0.0 : out.back().path;
        if (b.path < floor) {
            const double excess = floor - b.path, ends = b.send + b.receive;
            const double keep = ends > excess ? (ends - excess) / ends : 0.0;
            std::ostringstream os;
            os << "at " << p.size << " B the path came out " << p.path * 1e6 << " us, below "
               << (out.empty() ? "zero" : "the size before's");
            if (!out.empty()) os << " (" << floor * 1e6 << " us)";
            os << ": the round trips' decomposition does not hold there (a rendezvous, a shared-memory transport's "
                  "copies): the path is kept at "
               << (out.empty() ? "zero" : "that") << ", and the two ends' overheads give up the difference"
               << (keep > 0 ? " (the single round trip stays as measured)" : " (more than they had: the round trip comes out slower)");
            notes.push_back(os.str());
            b.path = floor;
            b.send *= keep;
            b.receive *= keep;
        }
        out.push_back(b);
    }
    return out;
}

/// The machine of `cost_lines::per_size` from the sizes fit_loggp kept.
inline void per_size(fitted_machine& out) {
    const std::vector<band_point> p = band_points(out.fit.points, out.notes);  // two at least, rising
    loggops::machine& m = out.machine;
    m.S = loggops::no_rendezvous;
    const auto slope = [&](std::size_t i, double band_point::*of) {  // from size i to the next (the last: the one before)
        const std::size_t a = i + 1 < p.size() ? i : i - 1;
        return std::max(0.0, (p[a + 1].*of - p[a].*of) / static_cast<double>(p[a + 1].size - p[a].size));
    };
    // g: where the interface sets a train's pace (its gap above both ends' overheads), what of
    // the gap the bytes leave; where a CPU does, the interface's gap is not seen, and the least
    // of those seen stands for it (fit_machine's g on one line).
    std::vector<double> interface(p.size(), std::numeric_limits<double>::quiet_NaN());
    double least = std::numeric_limits<double>::infinity();
    {
        loggops::machine path_only;  // the stream of each size, on the bands' G
        path_only.G = fs_per_byte(slope(0, &band_point::path));
        for (std::size_t i = 1; i < p.size(); ++i) path_only.bands.push_back({p[i].size, 0, 0, 0, 0, 0, fs_per_byte(slope(i, &band_point::path))});
        const loggops::cost_table streams(path_only);
        for (std::size_t i = 0; i < p.size(); ++i) {
            const double left = p[i].gap - static_cast<double>(streams.stream(p[i].size)) * 1e-12;
            if (p[i].gap > 1.05 * p[i].cpu) {
                interface[i] = left;
                least = std::min(least, left);
            }
        }
        if (!std::isfinite(least))  // no train paced by its interface: the least over all
            for (std::size_t i = 0; i < p.size(); ++i)
                least = std::min(least, p[i].gap - static_cast<double>(streams.stream(p[i].size)) * 1e-12);
    }
    const auto g_at = [&](std::size_t i) { return ps(std::isnan(interface[i]) ? least : interface[i]); };
    const double x0 = static_cast<double>(p[0].size);
    m.O_s = fs_per_byte(slope(0, &band_point::send));
    m.O_r = fs_per_byte(slope(0, &band_point::receive));
    m.G = fs_per_byte(slope(0, &band_point::path));
    m.o_s = ps(p[0].send - slope(0, &band_point::send) * x0);
    m.o_r = ps(p[0].receive - slope(0, &band_point::receive) * x0);
    m.L = ps(p[0].path - slope(0, &band_point::path) * x0);
    m.g = g_at(0);
    m.bands.clear();
    for (std::size_t i = 1; i < p.size(); ++i) {
        loggops::band b;
        b.from = p[i].size;
        b.o_s = ps(p[i].send);
        b.o_r = ps(p[i].receive);
        b.g = g_at(i);
        b.O_s = fs_per_byte(slope(i, &band_point::send));
        b.O_r = fs_per_byte(slope(i, &band_point::receive));
        b.G = fs_per_byte(slope(i, &band_point::path));
        m.bands.push_back(b);
    }
    out.notes.insert(out.notes.begin(), "per size: a band from each of " + std::to_string(p.size() - 1) +
                                            " sizes, through the medians measured there; S = none (what the transport does from "
                                            "a size on is in that size's figures); no errors (one median per band)");
    // fit_loggp's notes (sizes left out, flagged medians, spaced trains), but not its lines'
    // flags: the bands are not its lines.
    for (const auto& n : out.fit.notes)
        if (n.find(" below zero: the model does not describe") == std::string::npos) out.notes.push_back(n);
}

}  // namespace detail::fit_machine

/// Fits a LogGOPS machine to the loggp records among `records` (others are ignored), with one
/// line through the sizes up to S or a band from each size (`lines`). The machine has 2 nodes
/// (what was measured); set `machine.nodes` to predict a larger group.
/// @throws invalid_argument when fewer than two sizes have all four round trips (fit_loggp's
///         errors).
inline fitted_machine fit_machine(std::span<const record> records, cost_lines lines = cost_lines::one) {
    using namespace detail::fit_machine;
    fitted_machine out;
    std::set<std::size_t> sizes;
    for (const record& r : records)
        if (r.kernel == "loggp")
            if (const auto s = r.params.integer("size")) sizes.insert(static_cast<std::size_t>(*s));
    out.sizes.assign(sizes.begin(), sizes.end());
    if (out.sizes.size() < 2) raise<invalid_argument>(-1, "fit_machine: fewer than two sizes of loggp records");
    out.machine.name = "fitted";
    if (lines == cost_lines::per_size) {
        out.per_size = true;
        out.fit = fit_loggp(records);
        per_size(out);
        return out;
    }
    // S: grow the sizes while the next one lies on the line of those below it.
    std::size_t k = std::min<std::size_t>(3, out.sizes.size());
    loggp_parameters f = fit_loggp(up_to(records, out.sizes[k - 1]));
    for (; k < out.sizes.size(); ++k) {
        const std::size_t next = out.sizes[k];
        const loggp_parameters more = fit_loggp(up_to(records, next));
        const auto at = std::find_if(more.points.begin(), more.points.end(), [&](const loggp_point& p) { return p.size == next; });
        if (at == more.points.end()) break;  // left out (no valid sample): stop here
        const double predicted = single(f, next), measured = at->single;
        // Only a round trip above the line marks S: a rendezvous adds a handshake to every
        // message from there. One below it says that the sizes below gave too steep a slope (a
        // shared-memory transport's few small sizes, each with its noise): it joins the line.
        if (measured > 1.10 * predicted) {
            std::ostringstream os;
            os << "S = " << out.sizes[k - 1] << " B: at " << next << " B the single round trip took " << measured * 1e6
               << " us where the line of the sizes below gives " << predicted * 1e6
               << " us (the transport sends otherwise from there: by rendezvous, or past a cache)";
            out.notes.push_back(os.str());
            break;
        }
        if (measured < 0.90 * predicted) {
            std::ostringstream os;
            os << "at " << next << " B the single round trip took " << measured * 1e6 << " us, below the "
               << predicted * 1e6 << " us of the line of the sizes below: the line is fitted with it";
            out.notes.push_back(os.str());
        }
        f = more;
    }
    loggops::machine& m = out.machine;
    m.name = "fitted";
    if (k == out.sizes.size()) {
        m.S = loggops::no_rendezvous;
        out.notes.push_back("S = none: every size measured (up to " + std::to_string(out.sizes.back()) +
                            " B) lies on one line; measure larger sizes to find where the transport stops sending eagerly");
    } else {
        m.S = out.sizes[k - 1];
    }
    out.fit = f;
    m.L = ps(f.L.value);
    m.o_s = ps(f.o_s.value);
    m.o_r = ps(f.o_r.value);
    m.O_s = fs_per_byte(f.O_s.value);
    m.O_r = fs_per_byte(f.O_r.value);
    m.G = fs_per_byte(f.G_path.value);
    double g = std::numeric_limits<double>::infinity();
    for (const loggp_point& p : f.points) g = std::min(g, p.gap - f.G_path.value * static_cast<double>(p.size));
    m.g = ps(std::isfinite(g) ? g : 0.0);
    auto& e = out.errors.by_key;
    const auto put = [&](const char* key, double se, double scale, const char* unit) {
        if (const std::string t = error_text(se, scale, unit); !t.empty()) e[key] = t;
    };
    put("L", f.L.se, 1e6, "us");
    put("o_s", f.o_s.se, 1e6, "us");
    put("o_r", f.o_r.se, 1e6, "us");
    put("O_s", f.O_s.se, 1e9, "ns/B");
    put("O_r", f.O_r.se, 1e9, "ns/B");
    put("G", f.G_path.se, 1e9, "ns/B");
    put("g", f.g.se, 1e6, "us");
    for (const auto& [name, est] : {std::pair<const char*, const loggp_estimate*>{"L", &f.L}, {"o_s", &f.o_s}, {"o_r", &f.o_r},
                                    {"O_s", &f.O_s}, {"O_r", &f.O_r}, {"g", &f.g}, {"G", &f.G_path}})
        if (!est->flag.empty()) out.notes.push_back(std::string(name) + " flagged: " + est->flag);
    for (const auto& n : f.notes) out.notes.push_back(n);
    return out;
}

}  // namespace comet
