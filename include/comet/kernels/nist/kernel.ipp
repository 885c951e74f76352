// comet/kernels/nist/kernel.ipp — the definitions of comet/kernels/nist/kernel.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/nist/kernel.hpp>

namespace comet::kernels::nist {
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
            static_cast<double>(r.messages_sent), static_cast<double>(r.control_sent)};
}

COMET_DECL unpacked unpack(std::span<const double> v) {
    delay_decomposition d;
    d.elapsed = v[0], d.user = v[1], d.logical = v[2], d.physical = v[3], d.overhead = v[4];
    d.received = static_cast<std::size_t>(v[5]), d.logical_messages = static_cast<std::size_t>(v[6]);
    d.max_logical = v[7], d.sent = static_cast<std::size_t>(v[8]);
    d.retransmissions = static_cast<std::uint64_t>(v[9]), d.retransmissions_known = v[10] != 0.0;
    return {d, static_cast<std::uint64_t>(v[11]), static_cast<std::uint64_t>(v[12])};
}

}  // namespace detail
}  // namespace comet::kernels::nist
