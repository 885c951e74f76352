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
    loggp_parameters fit;            ///< on the sizes up to S
    std::vector<std::size_t> sizes;  ///< every size measured
    std::vector<std::string> notes;  ///< S's reason, every flag, what was left out
    bool valid() const noexcept { return fit.valid(); }
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

}  // namespace detail::fit_machine

/// Fits a LogGOPS machine to the loggp records among `records` (others are ignored). The machine
/// has 2 nodes (what was measured); set `machine.nodes` to predict a larger group.
/// @throws invalid_argument when fewer than two sizes have all four round trips (fit_loggp's
///         errors).
inline fitted_machine fit_machine(std::span<const record> records) {
    using namespace detail::fit_machine;
    fitted_machine out;
    std::set<std::size_t> sizes;
    for (const record& r : records)
        if (r.kernel == "loggp")
            if (const auto s = r.params.integer("size")) sizes.insert(static_cast<std::size_t>(*s));
    out.sizes.assign(sizes.begin(), sizes.end());
    if (out.sizes.size() < 2) raise<invalid_argument>(-1, "fit_machine: fewer than two sizes of loggp records");
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
    const auto ps = [](double s) { return static_cast<loggops::vtime>(std::llround(std::max(0.0, s) * 1e12)); };
    const auto fs_per_byte = [](double s) { return static_cast<loggops::per_byte>(std::llround(std::max(0.0, s) * 1e15)); };
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
