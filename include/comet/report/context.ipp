// comet/report/context.ipp — the definitions of comet/report/context.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/context.hpp>

namespace comet {
namespace detail {

COMET_DECL std::string host_name() {
#ifdef COMET_HAS_GETHOSTNAME
    std::array<char, 256> buf{};
    if (::gethostname(buf.data(), buf.size() - 1) == 0) return std::string(buf.data());  // NUL kept by size − 1
#endif
    return "unknown";
}

COMET_DECL std::string utc_now_iso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
#if defined(_WIN32)
    gmtime_s(&tm, &now);
#else
    gmtime_r(&now, &tm);  // gmtime() shares one static buffer between threads
#endif
    std::array<char, 32> buf{};
    const std::size_t n = std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return std::string(buf.data(), n);
}

COMET_DECL std::string trimmed(std::string s) {
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!s.empty() && blank(s.back())) s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && blank(s[i])) ++i;
    return s.substr(i);
}

COMET_DECL std::optional<std::string> first_line(const std::string& path) {
    std::ifstream f(path);
    std::string line;
    if (!f || !std::getline(f, line)) return std::nullopt;
    return trimmed(line);
}

COMET_DECL std::uint64_t cache_size_bytes(const std::string& text) {
    std::uint64_t n = 0;
    std::size_t i = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) n = n * 10 + static_cast<std::uint64_t>(text[i] - '0');
    if (i == 0) return 0;
    const std::string unit = text.substr(i);
    if (unit.empty()) return n;
    if (unit == "K") return n << 10;
    if (unit == "M") return n << 20;
    if (unit == "G") return n << 30;
    return 0;
}

COMET_DECL std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    for (std::string line; std::getline(f, line);) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        if (trimmed(line.substr(0, colon)) == "model name") return trimmed(line.substr(colon + 1));
    }
    return "unknown";  // no /proc (not Linux), or an architecture whose cpuinfo names no model
}

COMET_DECL std::vector<cache_info> caches() {
    std::vector<cache_info> out;
    for (int i = 0;; ++i) {  // index0, index1, ... without gaps
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
        const auto level = first_line(dir + "level");
        if (!level) break;
        cache_info c;
        c.level = std::atoi(level->c_str());
        c.type = first_line(dir + "type").value_or("unknown");
        c.size = cache_size_bytes(first_line(dir + "size").value_or(""));
        out.push_back(std::move(c));
    }
    return out;
}

COMET_DECL std::string turbo() {
    if (const auto no_turbo = first_line("/sys/devices/system/cpu/intel_pstate/no_turbo"))
        return *no_turbo == "1" ? "off" : *no_turbo == "0" ? "on" : "unknown";
    if (const auto boost = first_line("/sys/devices/system/cpu/cpufreq/boost"))
        return *boost == "1" ? "on" : *boost == "0" ? "off" : "unknown";
    return "unknown";
}

COMET_DECL int usable_cores() {
#ifdef COMET_HAS_SCHED_GETAFFINITY
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
    return 0;
}

COMET_DECL std::string fixed2(double v) {
    std::array<char, 32> buf{};
    const int n = std::snprintf(buf.data(), buf.size(), "%.2f", v);
    return std::string(buf.data(), n > 0 ? static_cast<std::size_t>(n) : 0);
}

}  // namespace detail
}  // namespace comet

namespace comet {

COMET_DECL std::optional<load_average> read_load_average() {
#ifdef COMET_HAS_GETLOADAVG
    std::array<double, 3> l{};
    if (::getloadavg(l.data(), 3) == 3) return load_average{l[0], l[1], l[2]};
#endif
    return std::nullopt;
}

COMET_DECL machine_readings read_machine() {
    machine_readings m;
    m.cpu_model = detail::cpu_model();
    m.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
    m.usable_cores = detail::usable_cores();
    if (m.usable_cores == 0) m.usable_cores = m.logical_cores;  // no affinity call: all of them, as far as we know
    m.caches = detail::caches();
    m.governor = detail::first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").value_or("unknown");
    if (m.governor.empty()) m.governor = "unknown";
    m.turbo = detail::turbo();
    m.load_start = read_load_average();
    return m;
}

COMET_DECL std::vector<std::string> context_notes(const machine_readings& m, const build_info& b) {
    std::vector<std::string> notes;
    // The load average is the whole machine's, so it is held against the machine's cores, not
    // against the few this process may be bound to (MPI binds each process to one).
    const int cores = std::max(1, m.logical_cores > 0 ? m.logical_cores : m.usable_cores);
    const std::string on_cores = " on " + std::to_string(cores) + (cores == 1 ? " core" : " cores");
    const double limit = loaded_per_core * cores;
    // At the end the run's own busy ranks are in the average too; up to one each is theirs.
    const bool loaded_start = m.load_start && m.load_start->one > limit;
    const bool loaded_end = m.load_end && m.load_end->one - m.local_ranks > limit;
    if (loaded_start || loaded_end) {
        // One note, with both readings when both are high.
        std::string when = loaded_start ? detail::fixed2(m.load_start->one) + on_cores + " at the start"
                                        : detail::fixed2(m.load_end->one) + on_cores + " at the end";
        if (loaded_start && loaded_end) when += " and " + detail::fixed2(m.load_end->one) + " at the end";
        if (loaded_end && m.local_ranks > 0)
            when += " (at most " + std::to_string(m.local_ranks) + " of it this run's own ranks)";
        notes.push_back("load average " + when + ": results may be slowed by other work");
    }
    // More of the run's own ranks on this machine than cores: a rank that waits shares a core
    // with another's turn, and a message can cost a context switch (microseconds) instead of a
    // cache line's trip (tens of nanoseconds).
    if (m.local_ranks > cores)
        notes.push_back(std::to_string(m.local_ranks) + " ranks of this run" + on_cores +
                        ": oversubscribed, a waiting rank may cost a context switch (microseconds)");
    if (!m.governor.empty() && m.governor != "unknown" && m.governor != "performance")
        notes.push_back("frequency scaling governor '" + m.governor +
                        "': the clock speed follows the load, times may drift");
    if (m.turbo == "on")
        notes.push_back("turbo on: the clock speed depends on temperature and busy cores, times may drift");
    if (!b.sanitizers.empty()) {
        std::string list;
        for (const auto& s : b.sanitizers) list += (list.empty() ? "" : ", ") + s;
        notes.push_back("sanitizer build (" + list + "): times are not the machine's");
    }
    const bool debug = b.type == "debug";
    const bool unoptimized = b.optimized && !*b.optimized;
    if (debug || unoptimized)
        notes.push_back(std::string(debug && unoptimized ? "debug build (assertions on, not optimised)"
                                    : debug             ? "debug build (assertions on)"
                                                        : "unoptimised build") +
                        ": times are not the machine's");
    return notes;
}

COMET_DECL std::vector<std::string> context_notes(const context& c) { return context_notes(c.machine, c.build); }

COMET_DECL void record_load_at_end(context& c, int local_ranks) {
    c.machine.load_end = read_load_average();
    c.machine.local_ranks = local_ranks;
}

COMET_DECL std::string command_line_of(int argc, const char* const* argv) {
    std::string out;
    for (int i = 0; i < argc; ++i) {
        if (i > 0) out += ' ';
        const std::string arg = argv[i] ? argv[i] : "";
        if (!arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos) {
            out += arg;
            continue;
        }
        out += '\'';
        for (char c : arg) {
            if (c == '\'')
                out += "'\\''";
            else
                out += c;
        }
        out += '\'';
    }
    return out;
}

}  // namespace comet
