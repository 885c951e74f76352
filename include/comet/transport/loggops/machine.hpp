// comet/transport/loggops/machine.hpp — a LogGOPS machine as data (Alexandrov et al.'s LogGP
// with Hoefler, Schneider and Lumsdaine's O and S): every parameter, a preset, validation, a
// one-line description, and the machine file that `comet fit-machine` writes and
// `--transport loggops --machine FILE` reads.
//
// The parameters, as loggops/model.hpp uses them for one message of s bytes:
//   o_s + O_s·s   the sender's CPU in the send call, whatever the protocol (LogGOPS's);
//   g + G·s       each end's network interface is busy that long per message, so a train of
//                 messages leaves (and lands) at most one per g + G·s;
//   L             from its first byte leaving one interface to that byte reaching the other
//                 (on the shortest path of the topology); the last byte lands G·s after the
//                 first, so a message's time between the two interfaces is L + G·s;
//   hop           what each link beyond the shortest path's adds to L (a torus or a fat tree:
//                 loggops/topology.hpp), whose links carry a packet at G·s each and queue
//                 packets that meet on one;
//   o_r + O_r·s   the receiver's CPU when its receive completes;
//   S             messages of more than S bytes go by rendezvous: a request, a reply once a
//                 receive matches it, then the data (each control message a message of 0 bytes).
// Netgauge's parametrised round trips (kernels/loggp.hpp) measure exactly these, and
// `comet::fit_loggp` (analysis/loggp.hpp) gives them back with their errors.
//
// Bands: the per-message costs of a real transport are seldom one line over decades of sizes
// (a shared-memory copy's cost per byte falls as the messages leave the cache's reach). A band
// starts a new line at a size, as Kielmann, Bal and Verstoep's parametrised LogP (PLogP) does: from
// `from` bytes up to the next band's, a message of s bytes costs o_s + O_s·(s − from) at the
// sender, o_r + O_r·(s − from) at the receiver, and holds an interface g + stream(s), where
// stream(s), the time between its first and its last byte, runs on at the band's G from its
// value at `from` (it has no jump: a byte is a byte). The machine's own o_s, O_s, ... are the
// band from 0 B.
//
// Times are integer picoseconds as on the simulated iPSC/860 (nx2/time.hpp); costs per byte are
// integer femtoseconds per byte (a shared-memory copy moves a byte in a few tens of picoseconds,
// where whole picoseconds would be a few percent off).
//
// The machine file: one `key = value unit` per line, `#` starts a comment, and a `± error unit`
// after a value is kept as the parameter's error (the fit writes it; nothing reads it back into
// the model). Units: s, ms, us, ns, ps for times; s/B, us/B, ns/B, ps/B for costs per byte;
// B, KiB, MiB for sizes; `S = none` for no rendezvous. Keys: name, topology (`full`, `torus 3`,
// `torus 16x16x8`, `fat_tree 16`: loggops/topology.hpp), nodes, L, hop, o_s, o_r, O_s, O_r, o and
// O (both ends at once), g, G, S, flop_time, memory_per_byte, dependent_flop_time,
// cache_line_bytes. A line `[from SIZE]` opens a band; the keys after it, up to the next such
// line, are the band's (o_s, o_r, o, O_s, O_r, O, g, G), and a key it does not give runs on the
// band before's line. Unknown keys and bad values are errors naming the line.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/work.hpp>
#include <comet/transport/loggops/topology.hpp>
#include <comet/transport/nx2/machine.hpp>
#include <comet/transport/nx2/time.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <istream>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace comet::loggops {

using nx2::vtime;
using nx2::picoseconds;
using nx2::nanoseconds;
using nx2::microseconds;
using nx2::milliseconds;
using nx2::seconds;

/// Femtoseconds per byte: a cost per byte.
using per_byte = std::int64_t;
inline constexpr per_byte femtoseconds_per_byte = 1;
inline constexpr per_byte picoseconds_per_byte = 1'000;
inline constexpr per_byte nanoseconds_per_byte = 1'000'000;

/// S for a machine that sends every message eagerly.
inline constexpr std::size_t no_rendezvous = std::numeric_limits<std::size_t>::max();

/// The costs of the messages from `from` bytes up to the next band's (the header says how).
struct band {
    std::size_t from = 0;
    vtime o_s = 0, o_r = 0, g = 0;
    per_byte O_s = 0, O_r = 0, G = 0;
    friend bool operator==(const band&, const band&) = default;
};

/// Every parameter of a LogGOPS machine (the header says how each is used).
struct machine {
    std::string name = "loggops";
    shape network = {};  ///< fully connected unless given
    int nodes = 2;
    vtime L = 1 * microseconds;
    vtime hop = 100 * nanoseconds;  ///< per link beyond the shortest path's (a torus or a fat tree)
    vtime o_s = 300 * nanoseconds;
    vtime o_r = 300 * nanoseconds;
    per_byte O_s = 0;
    per_byte O_r = 0;
    vtime g = 500 * nanoseconds;
    per_byte G = 100 * picoseconds_per_byte;  ///< 10 GB/s
    std::size_t S = 64 * 1024;
    // The CPU (nx2::compute_time's model): a core of today by default.
    vtime flop_time = 500;             ///< a flop of compiled code: 2 GFLOPS
    vtime memory_per_byte = 100;       ///< streaming DRAM: 10 GB/s
    vtime dependent_flop_time = 1'000; ///< a multiply-add waiting for the previous one: 4 cycles at 4 GHz
    std::int64_t cache_line_bytes = 64;
    /// The bands from larger sizes on, their `from` rising and above 0 (none: one line).
    std::vector<band> bands = {};

    friend bool operator==(const machine&, const machine&) = default;
};

/// `cost` per byte times `bytes`, rounded up to the picosecond; saturates.
constexpr vtime bytes_time(per_byte cost, std::uint64_t bytes) noexcept {
    const vtime fs = nx2::times(cost, bytes);
    return fs / 1000 + (fs % 1000 != 0 ? 1 : 0);
}

namespace detail {

/// a + b, or the largest time where that overflows (both at least 0).
constexpr vtime saturating_add(vtime a, vtime b) noexcept {
    return a > std::numeric_limits<vtime>::max() - b ? std::numeric_limits<vtime>::max() : a + b;
}

}  // namespace detail

/// A machine's costs of a message by its size, bands included: each a lookup of the band (none
/// without bands) and one multiplication.
class cost_table {
public:
    cost_table() = default;
    explicit cost_table(const machine& m) : base_{0, m.o_s, m.o_r, m.g, m.O_s, m.O_r, m.G} {
        for (const band& b : m.bands) {
            const vtime stream = bands_.empty() ? bytes_time(base_.G, b.from)
                                                : detail::saturating_add(bands_.back().stream_at_from,
                                                                 bytes_time(bands_.back().costs.G, b.from - bands_.back().costs.from));
            bands_.push_back({b, stream});
        }
        if (!bands_.empty()) first_band_ = bands_.front().costs.from;
    }
    /// The sender's CPU.
    vtime send(std::size_t size) const noexcept {
        if (size < first_band_) return base_.o_s + bytes_time(base_.O_s, size);
        const entry& e = in_band(size);
        return e.costs.o_s + bytes_time(e.costs.O_s, size - e.costs.from);
    }
    /// The receiver's CPU.
    vtime receive(std::size_t size) const noexcept {
        if (size < first_band_) return base_.o_r + bytes_time(base_.O_r, size);
        const entry& e = in_band(size);
        return e.costs.o_r + bytes_time(e.costs.O_r, size - e.costs.from);
    }
    /// From the first byte to the last.
    vtime stream(std::size_t size) const noexcept { return wire(size).stream; }
    /// How long a message holds an interface (its g and its stream), and its stream.
    struct wire_time {
        vtime stream = 0, gap = 0;
    };
    wire_time wire(std::size_t size) const noexcept {
        if (size < first_band_) {
            const vtime stream = bytes_time(base_.G, size);
            return {stream, base_.g + stream};
        }
        const entry& e = in_band(size);
        const vtime stream = detail::saturating_add(e.stream_at_from, bytes_time(e.costs.G, size - e.costs.from));
        return {stream, detail::saturating_add(e.costs.g, stream)};
    }

private:
    struct entry {
        band costs;
        vtime stream_at_from = 0;
    };
    /// The band of a size at or above the first band's.
    const entry& in_band(std::size_t size) const noexcept {
        std::size_t i = bands_.size() - 1;
        while (size < bands_[i].costs.from) --i;
        return bands_[i];
    }
    band base_;                                                    ///< the machine's own line, from 0 B
    std::size_t first_band_ = std::numeric_limits<std::size_t>::max();  ///< where the bands start (none: never)
    std::vector<entry> bands_;                                     ///< the machine's bands, rising
};

namespace detail {

inline void check_range(const char* what, std::int64_t value, std::int64_t lo, std::int64_t hi) {
    if (value < lo || value > hi)
        raise<invalid_argument>(-1, "loggops machine: ", what, " = ", value, " is outside ", lo, "..", hi);
}

}  // namespace detail

/// The largest machine: 2^24 nodes.
inline constexpr int max_nodes = 1 << 24;

/// Checks every parameter; the message names the first bad one and its value.
/// @throws invalid_argument
inline void validate(const machine& m) {
    detail::check_range("nodes", m.nodes, 1, max_nodes);
    [[maybe_unused]] const links fits(m.network, m.nodes);  // a torus of another size is refused
    detail::check_range("L (ps)", m.L, 0, seconds);
    detail::check_range("hop (ps)", m.hop, 0, seconds);
    detail::check_range("o_s (ps)", m.o_s, 0, seconds);
    detail::check_range("o_r (ps)", m.o_r, 0, seconds);
    detail::check_range("g (ps)", m.g, 0, seconds);
    constexpr per_byte most = 1000 * nanoseconds_per_byte * 1000;  // 1 ms per byte
    detail::check_range("O_s (fs/B)", m.O_s, 0, most);
    detail::check_range("O_r (fs/B)", m.O_r, 0, most);
    detail::check_range("G (fs/B)", m.G, 0, most);
    detail::check_range("flop_time (ps)", m.flop_time, 0, milliseconds);
    detail::check_range("memory_per_byte (ps)", m.memory_per_byte, 0, milliseconds);
    detail::check_range("dependent_flop_time (ps)", m.dependent_flop_time, 0, milliseconds);
    detail::check_range("cache_line_bytes", m.cache_line_bytes, 1, 4096);
    std::size_t before = 0;
    for (const band& b : m.bands) {
        if (b.from <= before)
            raise<invalid_argument>(-1, "loggops machine: a band from ", b.from, " B follows one from ", before,
                                    " B; bands start above 0 B, each above the one before");
        before = b.from;
        const std::string at = " (band from " + std::to_string(b.from) + " B)";
        detail::check_range(("o_s (ps)" + at).c_str(), b.o_s, 0, seconds);
        detail::check_range(("o_r (ps)" + at).c_str(), b.o_r, 0, seconds);
        detail::check_range(("g (ps)" + at).c_str(), b.g, 0, seconds);
        detail::check_range(("O_s (fs/B)" + at).c_str(), b.O_s, 0, most);
        detail::check_range(("O_r (fs/B)" + at).c_str(), b.O_r, 0, most);
        detail::check_range(("G (fs/B)" + at).c_str(), b.G, 0, most);
    }
}

namespace detail {

/// A time in microseconds with up to six decimals (exact: picoseconds).
inline std::string us(vtime t) { return nx2::detail::fixed(t, 6) + " us"; }
/// A cost per byte in nanoseconds per byte with up to six decimals (exact: femtoseconds).
inline std::string ns_per_byte(per_byte c) { return nx2::detail::fixed(c, 6) + " ns/B"; }
inline std::string size(std::size_t s) { return s == no_rendezvous ? std::string("none") : std::to_string(s) + " B"; }

}  // namespace detail

/// One line naming every parameter ("cluster: 16 nodes fully connected, L 1 us, ...", "...: 64
/// nodes on a 4 x 4 x 4 torus (hop 0.1 us), L ...").
inline std::string describe(const machine& m) {
    using namespace detail;
    std::ostringstream os;
    os << m.name << ": LogGOPS, " << m.nodes << " nodes ";
    if (m.network.kind == topology::full)
        os << "fully connected";
    else
        os << "on " << links(m.network, m.nodes).describe() << " (hop " << us(m.hop) << ")";
    os << ", L " << us(m.L) << ", o_s " << us(m.o_s) << " + "
       << ns_per_byte(m.O_s) << ", o_r " << us(m.o_r) << " + " << ns_per_byte(m.O_r) << ", g " << us(m.g) << ", G "
       << ns_per_byte(m.G) << ", rendezvous above " << size(m.S) << "; flop " << nx2::detail::fixed(m.flop_time, 3)
       << " ns, memory " << nx2::detail::fixed(m.memory_per_byte, 3) << " ns/B, dependent flop "
       << nx2::detail::fixed(m.dependent_flop_time, 3) << " ns, cache line " << m.cache_line_bytes << " B";
    for (const band& b : m.bands)
        os << "; from " << b.from << " B: o_s " << us(b.o_s) << " + " << ns_per_byte(b.O_s) << ", o_r " << us(b.o_r) << " + "
           << ns_per_byte(b.O_r) << ", g " << us(b.g) << ", G " << ns_per_byte(b.G);
    return os.str();
}

/// A parameter's error, as the machine file keeps it beside the value (NaN: not known).
struct parameter_errors {
    std::map<std::string, std::string> by_key;  ///< key -> "0.02 us"
};

namespace detail {

[[noreturn]] inline void bad_line(const std::string& where, int line, const std::string& what) {
    raise<invalid_argument>(-1, "loggops machine file ", where, ", line ", line, ": ", what);
}

/// `text` as a number of `scale`-units per `unit`: "1.5 us" with the time units, etc.
inline std::int64_t scaled(const std::string& where, int line, const std::string& key, const std::string& number,
                           const std::string& unit, const std::map<std::string, double>& units) {
    const auto u = units.find(unit);
    if (u == units.end()) {
        std::string known;
        for (const auto& [k, v] : units) known += (known.empty() ? "" : ", ") + k;
        bad_line(where, line, key + " = " + number + " " + unit + ": the unit must be one of " + known);
    }
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(number, &used);
    } catch (...) {
        used = 0;
    }
    if (used != number.size() || !std::isfinite(v) || v < 0)
        bad_line(where, line, key + " = " + number + ": not a number of zero or more");
    const double x = std::round(v * u->second);
    if (x > 9.0e18) bad_line(where, line, key + " = " + number + " " + unit + " is too large");
    return static_cast<std::int64_t>(x);
}

inline const std::map<std::string, double>& time_units() {
    static const std::map<std::string, double> u{{"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}, {"ps", 1}};
    return u;
}
inline const std::map<std::string, double>& per_byte_units() {
    static const std::map<std::string, double> u{{"s/B", 1e15}, {"ms/B", 1e12}, {"us/B", 1e9}, {"ns/B", 1e6}, {"ps/B", 1e3}, {"fs/B", 1}};
    return u;
}
inline const std::map<std::string, double>& size_units() {
    static const std::map<std::string, double> u{{"B", 1}, {"KiB", 1024}, {"MiB", 1024 * 1024}, {"GiB", 1024.0 * 1024 * 1024}};
    return u;
}

inline std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace detail

/// Reads a machine file from `in` (`where` names it in errors); keys it does not give keep
/// their defaults. `errors`, if given, receives the errors written beside values.
/// @throws invalid_argument naming the line of an unknown key, a bad value or unit, a key given
///         twice, or a machine that then fails `validate`.
inline machine read_machine(std::istream& in, const std::string& where = "<input>", parameter_errors* errors = nullptr) {
    using namespace detail;
    machine m;
    std::map<std::string, int> seen;
    band* in_band = nullptr;  // the band the keys are for (none: the machine's own)
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
        if (const auto hash = text.find('#'); hash != std::string::npos) text.resize(hash);
        text = trim(text);
        if (text.empty()) continue;
        if (text.front() == '[') {
            const std::string inside = text.back() == ']' ? trim(text.substr(1, text.size() - 2)) : std::string();
            if (!inside.starts_with("from ") && !inside.starts_with("from\t"))
                bad_line(where, line, "'" + text + "' is not a band's opening '[from SIZE]' (e.g. [from 4 KiB])");
            const std::string size_text = trim(inside.substr(5));
            std::string number = size_text, unit = "B";
            if (const auto sp = size_text.find_first_of(" \t"); sp != std::string::npos) {
                number = size_text.substr(0, sp);
                unit = trim(size_text.substr(sp));
            }
            const auto from = static_cast<std::size_t>(scaled(where, line, "from", number, unit, size_units()));
            const band before = m.bands.empty() ? band{0, m.o_s, m.o_r, m.g, m.O_s, m.O_r, m.G} : m.bands.back();
            if (from <= before.from)
                bad_line(where, line, "a band from " + std::to_string(from) + " B must start above " +
                                          std::to_string(before.from) + " B (the band before)");
            // What the band does not give runs on the line of the one before.
            band b = before;
            b.from = from;
            b.o_s = saturating_add(before.o_s, bytes_time(before.O_s, from - before.from));
            b.o_r = saturating_add(before.o_r, bytes_time(before.O_r, from - before.from));
            m.bands.push_back(b);
            in_band = &m.bands.back();
            seen.clear();
            continue;
        }
        const auto eq = text.find('=');
        if (eq == std::string::npos) bad_line(where, line, "'" + text + "' is not 'key = value'");
        const std::string key = trim(text.substr(0, eq));
        std::string value = trim(text.substr(eq + 1));
        std::string error;
        for (const char* pm : {"±", "+-"})
            if (const auto at = value.find(pm); at != std::string::npos) {
                error = trim(value.substr(at + std::string(pm).size()));
                value = trim(value.substr(0, at));
                break;
            }
        if (auto [it, fresh] = seen.emplace(key, line); !fresh)
            bad_line(where, line, key + " is given twice (first on line " + std::to_string(it->second) + ")");
        std::string number = value, unit;
        if (const auto sp = value.find_first_of(" \t"); sp != std::string::npos) {
            number = value.substr(0, sp);
            unit = trim(value.substr(sp));
        }
        const auto time = [&] { return scaled(where, line, key, number, unit, time_units()); };
        const auto cost = [&] { return scaled(where, line, key, number, unit, per_byte_units()); };
        if (in_band) {
            band& b = *in_band;
            if (key == "o_s") b.o_s = time();
            else if (key == "o_r") b.o_r = time();
            else if (key == "o") b.o_s = b.o_r = time();
            else if (key == "g") b.g = time();
            else if (key == "O_s") b.O_s = cost();
            else if (key == "O_r") b.O_r = cost();
            else if (key == "O") b.O_s = b.O_r = cost();
            else if (key == "G") b.G = cost();
            else
                bad_line(where, line, "'" + key + "' in the band from " + std::to_string(b.from) +
                                          " B: a band gives o, o_s, o_r, O, O_s, O_r, g and G only (the machine's other keys go before the first band)");
            if (errors && !error.empty()) errors->by_key["from " + std::to_string(b.from) + " B: " + key] = error;
            continue;
        }
        if (key == "name") {
            m.name = value;
        } else if (key == "topology") {
            try {
                m.network = parse_shape(value);
            } catch (const invalid_argument& e) {
                bad_line(where, line, e.what());
            }
        } else if (key == "nodes") {
            const std::int64_t n = scaled(where, line, key, number, unit.empty() ? "B" : unit, size_units());
            if (!unit.empty() || n < 1 || n > max_nodes)
                bad_line(where, line, "nodes = " + value + " is not a whole number of 1.." + std::to_string(max_nodes));
            m.nodes = static_cast<int>(n);
        } else if (key == "L") {
            m.L = time();
        } else if (key == "hop") {
            m.hop = time();
        } else if (key == "o_s") {
            m.o_s = time();
        } else if (key == "o_r") {
            m.o_r = time();
        } else if (key == "o") {
            m.o_s = m.o_r = time();
        } else if (key == "g") {
            m.g = time();
        } else if (key == "O_s") {
            m.O_s = cost();
        } else if (key == "O_r") {
            m.O_r = cost();
        } else if (key == "O") {
            m.O_s = m.O_r = cost();
        } else if (key == "G") {
            m.G = cost();
        } else if (key == "S") {
            m.S = value == "none" ? no_rendezvous : static_cast<std::size_t>(scaled(where, line, key, number, unit, size_units()));
        } else if (key == "flop_time") {
            m.flop_time = time();
        } else if (key == "memory_per_byte") {
            m.memory_per_byte = scaled(where, line, key, number, unit, per_byte_units()) / 1000;
        } else if (key == "dependent_flop_time") {
            m.dependent_flop_time = time();
        } else if (key == "cache_line_bytes") {
            m.cache_line_bytes = scaled(where, line, key, number, unit.empty() ? "B" : unit, size_units());
        } else {
            bad_line(where, line, "unknown key '" + key +
                                      "' (known: name, topology, nodes, L, hop, o, o_s, o_r, O, O_s, O_r, g, G, S, flop_time, "
                                      "memory_per_byte, dependent_flop_time, cache_line_bytes)");
        }
        if (errors && !error.empty()) errors->by_key[key] = error;
    }
    try {
        validate(m);
    } catch (const invalid_argument& e) {
        raise<invalid_argument>(-1, "loggops machine file ", where, ": ", e.what());
    }
    return m;
}

/// Reads the machine file at `path`. @throws invalid_argument (as above, or a file that cannot be read)
inline machine read_machine_file(const std::string& path, parameter_errors* errors = nullptr) {
    std::ifstream in(path);
    if (!in) raise<invalid_argument>(-1, "loggops machine file ", path, ": cannot be read");
    return read_machine(in, path, errors);
}

/// Writes `m` as a machine file; `notes` (one per line) go first as comments, and `errors`
/// beside their parameters. `read_machine` gives `m` back exactly.
inline void write_machine(std::ostream& out, const machine& m, const parameter_errors& errors = {},
                          const std::string& notes = {}) {
    using namespace detail;
    std::istringstream lines(notes);
    for (std::string l; std::getline(lines, l);) out << "# " << l << '\n';
    const auto line = [&](const std::string& key, const std::string& value, const char* what) {
        out << key << " = " << value;
        if (const auto e = errors.by_key.find(key); e != errors.by_key.end()) out << " ± " << e->second;
        out << "  # " << what << '\n';
    };
    line("name", m.name, "shown in reports");
    line("topology", to_string(m.network), "full: every pair of nodes has its own path; torus D, torus AxBxC, fat_tree K");
    line("nodes", std::to_string(m.nodes), "how many");
    line("L", us(m.L), "latency: first byte out of one interface to first byte into the other");
    line("hop", us(m.hop), "what each link beyond the shortest path's adds (torus, fat tree)");
    line("o_s", us(m.o_s), "the sender's CPU per message");
    line("O_s", ns_per_byte(m.O_s), "the sender's CPU per byte");
    line("o_r", us(m.o_r), "the receiver's CPU per message");
    line("O_r", ns_per_byte(m.O_r), "the receiver's CPU per byte");
    line("g", us(m.g), "each interface's gap per message");
    line("G", ns_per_byte(m.G), "each interface's gap per byte (a message's last byte lands G*s after its first)");
    line("S", size(m.S), "messages of more bytes go by rendezvous");
    line("flop_time", nx2::detail::fixed(m.flop_time, 3) + " ns", "CPU: a flop of compiled code");
    line("memory_per_byte", nx2::detail::fixed(m.memory_per_byte, 3) + " ns/B", "CPU: streaming memory");
    line("dependent_flop_time", nx2::detail::fixed(m.dependent_flop_time, 3) + " ns", "CPU: a dependent multiply-add");
    line("cache_line_bytes", std::to_string(m.cache_line_bytes) + " B", "CPU: bytes fetched at a time");
    for (const band& b : m.bands) {
        const std::string at = "from " + std::to_string(b.from) + " B: ";
        out << "[from " << b.from << " B]  # the costs of the messages from here to the next band (o's, g: at "
            << b.from << " B; the per-byte costs beyond)\n";
        const auto band_line = [&](const char* key, const std::string& value) {
            out << key << " = " << value;
            if (const auto e = errors.by_key.find(at + key); e != errors.by_key.end()) out << " ± " << e->second;
            out << '\n';
        };
        band_line("o_s", us(b.o_s));
        band_line("O_s", ns_per_byte(b.O_s));
        band_line("o_r", us(b.o_r));
        band_line("O_r", ns_per_byte(b.O_r));
        band_line("g", us(b.g));
        band_line("G", ns_per_byte(b.G));
    }
}

}  // namespace comet::loggops
