// comet/kernels/nist/kernel.ipp — the definitions of comet/kernels/nist/kernel.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/nist/kernel.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace comet::kernels::nist {
namespace detail {

/// One settable field of an application's configuration.
template <class Config>
struct parameter {
    std::string_view name;
    void (*set)(Config&, double);
    double (*get)(const Config&);
    bool real;  ///< a fraction (else a whole number)
};

/// A table row for field `F` of `Config`.
#define COMET_NIST_PARAMETER(Config, F)                                                          \
    parameter<Config> {                                                                          \
        #F, [](Config& c, double v) { c.F = static_cast<decltype(c.F)>(v); },                   \
            [](const Config& c) { return static_cast<double>(c.F); },                           \
            std::is_floating_point_v<decltype(Config::F)>                                       \
    }

inline constexpr parameter<ring_config> ring_parameters[] = {
    COMET_NIST_PARAMETER(ring_config, messages),
    COMET_NIST_PARAMETER(ring_config, message_bytes),
    COMET_NIST_PARAMETER(ring_config, items_per_message),
    COMET_NIST_PARAMETER(ring_config, work_per_datum),
    COMET_NIST_PARAMETER(ring_config, bookkeeping_per_datum),
};
inline constexpr parameter<rc_config> rc_parameters[] = {
    COMET_NIST_PARAMETER(rc_config, initial_items),
    COMET_NIST_PARAMETER(rc_config, dispatch_share),
    COMET_NIST_PARAMETER(rc_config, items_per_chunk),
    COMET_NIST_PARAMETER(rc_config, message_bytes),
    COMET_NIST_PARAMETER(rc_config, dispatch_frequency),
    COMET_NIST_PARAMETER(rc_config, work_per_datum),
    COMET_NIST_PARAMETER(rc_config, bookkeeping_per_datum),
    COMET_NIST_PARAMETER(rc_config, window),
    COMET_NIST_PARAMETER(rc_config, check_interval),
    COMET_NIST_PARAMETER(rc_config, seed),
};
inline constexpr parameter<mesh_config> mesh_parameters[] = {
    COMET_NIST_PARAMETER(mesh_config, steps),
    COMET_NIST_PARAMETER(mesh_config, message_bytes),
    COMET_NIST_PARAMETER(mesh_config, items_per_step),
    COMET_NIST_PARAMETER(mesh_config, work_per_datum),
    COMET_NIST_PARAMETER(mesh_config, bookkeeping_per_datum),
};
#undef COMET_NIST_PARAMETER

/// The row of `table` named `name`, or none.
template <class Config, std::size_t N>
const parameter<Config>* find_parameter(const parameter<Config> (&table)[N], std::string_view name) {
    const auto p = std::find_if(std::begin(table), std::end(table), [&](const auto& x) { return x.name == name; });
    return p == std::end(table) ? nullptr : p;
}

/// Wraps `fn` (or `seed` when empty) so that the setting(s) `only` names get `p`'s field = `value`.
template <class Config>
void wrap(std::function<Config(setting)>& fn, Config (*seed)(setting), const parameter<Config>& p, std::optional<setting> only,
          double value) {
    std::function<Config(setting)> before = fn ? std::move(fn) : std::function<Config(setting)>(seed);
    fn = [before = std::move(before), set = p.set, only, value](setting s) {
        Config c = before(s);
        if (!only || *only == s) set(c, value);
        return c;
    };
}

/// `table`'s names, comma-separated, a fraction said so.
template <class Config, std::size_t N>
std::string names_of(const parameter<Config> (&table)[N]) {
    std::string out;
    for (const auto& p : table) {
        if (!out.empty()) out += ", ";
        out += p.name;
        if (p.real) out += " (a fraction)";
    }
    return out;
}

/// The fields of `table` in which `c` differs from `seed`, as ("<app>.<name>", value).
template <class Config, std::size_t N>
void differences(std::string_view app, const Config& c, const Config& seed, const parameter<Config> (&table)[N],
                 std::vector<std::pair<std::string, double>>& out) {
    for (const auto& p : table)
        if (p.get(c) != p.get(seed)) out.emplace_back(std::string(app) + "." + std::string(p.name), p.get(c));
}

COMET_DECL std::vector<std::pair<std::string, double>> changed_parameters(application app, const study_config& cfg, setting s) {
    std::vector<std::pair<std::string, double>> out;
    switch (app) {
    case application::ring:
        if (cfg.ring) differences("ring", cfg.ring(s), ring_setting(s), ring_parameters, out);
        break;
    case application::rc:
        if (cfg.rc) differences("rc", cfg.rc(s), rc_setting(s), rc_parameters, out);
        break;
    case application::mesh:
        if (cfg.mesh) differences("mesh", cfg.mesh(s), mesh_setting(s), mesh_parameters, out);
        break;
    }
    return out;
}

}  // namespace detail

COMET_DECL std::string_view parameter_names(application app) {
    // Made from the tables once, so that the help and the errors list what set_parameter knows.
    static const std::string ring = detail::names_of(detail::ring_parameters), rc = detail::names_of(detail::rc_parameters),
                             mesh = detail::names_of(detail::mesh_parameters);
    switch (app) {
    case application::ring: return ring;
    case application::rc: return rc;
    case application::mesh: return mesh;
    }
    return {};
}

COMET_DECL void set_parameter(study_config& cfg, std::string_view spec) {
    const auto fail = [&](auto&&... why) { raise<invalid_argument>(-1, "NIST parameter '", spec, "': ", why...); };
    const auto eq = spec.find('=');
    if (eq == std::string_view::npos) fail("not [cm.|cp.]application.name=value");
    std::string_view path = spec.substr(0, eq);
    const std::string_view text = spec.substr(eq + 1);
    std::optional<setting> only;
    if (path.starts_with("cm.")) only = setting::cm, path.remove_prefix(3);
    else if (path.starts_with("cp.")) only = setting::cp, path.remove_prefix(3);
    const auto dot = path.find('.');
    if (dot == std::string_view::npos) fail("not [cm.|cp.]application.name=value");
    const std::string_view app = path.substr(0, dot), name = path.substr(dot + 1);
    const auto names = [&] {
        return parameter_names(app == "ring" ? application::ring : app == "rc" ? application::rc : application::mesh);
    };
    // The parameter first (whether it is a fraction or a whole number), then its value.
    const detail::parameter<ring_config>* ring_p = nullptr;
    const detail::parameter<rc_config>* rc_p = nullptr;
    const detail::parameter<mesh_config>* mesh_p = nullptr;
    if (app == "ring") ring_p = detail::find_parameter(detail::ring_parameters, name);
    else if (app == "rc") rc_p = detail::find_parameter(detail::rc_parameters, name);
    else if (app == "mesh") mesh_p = detail::find_parameter(detail::mesh_parameters, name);
    else fail("no application '", app, "' (ring, rc, mesh)");
    if (!ring_p && !rc_p && !mesh_p) fail(app, " has no parameter '", name, "' (", names(), ")");
    const bool real = ring_p ? ring_p->real : rc_p ? rc_p->real : mesh_p->real;
    double value = 0.0;
    constexpr double most = 1e15;
    if (real) {
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || !(value >= 0.0 && value <= most))
            fail("'", text, "' is not a number from 0 to 10^15");
    } else {
        if (text.empty() || text.size() > 16 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
            fail("'", text, "' is not a whole number from 0 to 10^15");
        std::uint64_t whole = 0;
        for (char c : text) whole = whole * 10 + static_cast<std::uint64_t>(c - '0');
        if (whole > static_cast<std::uint64_t>(most)) fail("'", text, "' is not a whole number from 0 to 10^15");
        value = static_cast<double>(whole);
    }
    if (ring_p) detail::wrap(cfg.ring, &ring_setting, *ring_p, only, value);
    if (rc_p) detail::wrap(cfg.rc, &rc_setting, *rc_p, only, value);
    if (mesh_p) detail::wrap(cfg.mesh, &mesh_setting, *mesh_p, only, value);
}

namespace detail {

COMET_DECL void check_study(int rank, int p, application app, const study_config& cfg) {
    const std::string_view name = to_string(app);
    if (cfg.settings.empty()) raise<invalid_argument>(rank, name, ": no setting given (cm, cp)");
    if (cfg.dilations.empty()) raise<invalid_argument>(rank, name, ": no dilation factor given");
    for (double d : cfg.dilations)
        if (!(d >= 1.0 && d <= 1e6)) raise<invalid_argument>(rank, name, ": dilation factor ", d, " is outside 1..1e6");
    if (cfg.trials == 0 || cfg.trials > 1000) raise<invalid_argument>(rank, name, ": trials = ", cfg.trials, " is outside 1..1000");
    if (cfg.test_node < 0 || cfg.test_node >= p)
        raise<invalid_argument>(rank, name, ": test node ", cfg.test_node, " is outside 0..", p - 1);
}

COMET_DECL std::size_t expected_events(application app, int p, const study_config& cfg, setting s) {
    switch (app) {
    case application::ring: {
        const ring_config c = cfg.ring ? cfg.ring(s) : ring_setting(s);
        return static_cast<std::size_t>(c.messages) * static_cast<std::size_t>(p) * 2 + 256;
    }
    case application::mesh: {
        const mesh_config c = cfg.mesh ? cfg.mesh(s) : mesh_setting(s);
        return static_cast<std::size_t>(c.steps) * 4 + 256;
    }
    case application::rc: break;
    }
    return std::size_t{1} << 14;
}

COMET_DECL std::array<double, decomposition_fields> pack(const delay_decomposition& d, const application_result& r) {
    return {d.elapsed, d.user, d.logical, d.physical, d.overhead, static_cast<double>(d.received),
            static_cast<double>(d.logical_messages), d.max_logical, static_cast<double>(d.sent),
            static_cast<double>(d.retransmissions), d.retransmissions_known ? 1.0 : 0.0,
            static_cast<double>(r.messages_sent), static_cast<double>(r.control_sent), d.interrupts,
            d.interrupts_known ? 1.0 : 0.0, d.physical_wait, d.wire_known ? 1.0 : 0.0, d.user_logical};
}

COMET_DECL unpacked unpack(std::span<const double> v) {
    delay_decomposition d;
    d.elapsed = v[0], d.user = v[1], d.logical = v[2], d.physical = v[3], d.overhead = v[4];
    d.received = static_cast<std::size_t>(v[5]), d.logical_messages = static_cast<std::size_t>(v[6]);
    d.max_logical = v[7], d.sent = static_cast<std::size_t>(v[8]);
    d.retransmissions = static_cast<std::uint64_t>(v[9]), d.retransmissions_known = v[10] != 0.0;
    d.interrupts = v[13], d.interrupts_known = v[14] != 0.0;
    d.physical_wait = v[15], d.wire_known = v[16] != 0.0;
    d.user_logical = v[17];
    return {d, static_cast<std::uint64_t>(v[11]), static_cast<std::uint64_t>(v[12])};
}

}  // namespace detail
}  // namespace comet::kernels::nist
