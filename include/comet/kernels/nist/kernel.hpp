// comet/kernels/nist/kernel.hpp — the NIST seed's experiment as a kernel: each synthetic
// application (ring, rc, mesh; applications.hpp) run in its CM and CP settings at dilation
// factors D = 1, 2, 4, 8, 16, each run traced (transport/decorators/tracing.hpp) and its
// time split into the service states (analysis/delays.hpp): the seed's tables A1–A6 as
// records, and equation 1 fitted over the factors of each setting.
//
//   comet::result_set r = comet::kernels::nist::dilation_study(t, comet::kernels::nist::application::ring);
//
// A run is, on every rank: `dilated d(t, D)` (compute does D times the work), `tracing x(d)`
// (records messages and computation in the global time base), the application on `x`, then the
// trace collected, decomposed, and every rank's decomposition gathered on the test node. What
// comet puts between the application and the transport is the two decorators: the dilation is
// the experiment; the tracing costs a clock reading or two per message (bench_tracing), and its
// collection happens after the run.
#pragma once

#include <comet/analysis/delays.hpp>
#include <comet/core/errors.hpp>
#include <comet/kernels/nist/applications.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/record.hpp>
#include <comet/transport/decorators/dilated.hpp>
#include <comet/transport/decorators/tracing.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace comet::kernels::nist {

enum class application { ring, rc, mesh };

constexpr std::string_view to_string(application a) noexcept {
    return a == application::ring ? "ring" : a == application::rc ? "rc" : "mesh";
}
constexpr std::string_view to_string(setting s) noexcept { return s == setting::cm ? "cm" : "cp"; }

/// What `dilation_study` runs. All ranks pass the same values (@pre).
struct study_config {
    std::vector<setting> settings = {setting::cm, setting::cp};
    /// Dilation factors (≥ 1); the seed's are 1, 2, 4, 8, 16. Equation 1 needs factor 1 among them.
    std::vector<double> dilations = {1, 2, 4, 8, 16};
    /// Runs per (setting, factor): each is one sample of E_D. The seed shows one ("the variation
    /// from one run to another is minimal"); on the simulator every run is the same.
    std::size_t trials = 1;
    /// The applications' configurations per setting; empty: the seed's (`ring_setting` ...).
    std::function<ring_config(setting)> ring = {};
    std::function<rc_config(setting)> rc = {};
    std::function<mesh_config(setting)> mesh = {};
    /// The rank that returns the records.
    int test_node = 0;
    std::function<void(const record&)> on_point = {};
};

namespace detail {

inline void check_study(int rank, int p, application app, const study_config& cfg) {
    const std::string_view name = to_string(app);
    if (cfg.settings.empty()) raise<invalid_argument>(rank, name, ": no setting given (cm, cp)");
    if (cfg.dilations.empty()) raise<invalid_argument>(rank, name, ": no dilation factor given");
    for (double d : cfg.dilations)
        if (!(d >= 1.0 && d <= 1e6)) raise<invalid_argument>(rank, name, ": dilation factor ", d, " is outside 1..1e6");
    if (cfg.trials == 0 || cfg.trials > 1000) raise<invalid_argument>(rank, name, ": trials = ", cfg.trials, " is outside 1..1000");
    if (cfg.test_node < 0 || cfg.test_node >= p)
        raise<invalid_argument>(rank, name, ": test node ", cfg.test_node, " is outside 0..", p - 1);
}

/// Room in the trace for one run's messages, so that it rarely grows inside the run.
inline std::size_t expected_events(application app, int p, const study_config& cfg, setting s) {
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

/// One traced run of `app` at factor `d` on every rank: this rank's decomposition and result.
template <transport T>
std::pair<delay_decomposition, application_result> traced_run(T& t, application app, const study_config& cfg, setting s,
                                                             double d) {
    dilated<T> slow(t, d);
    tracing<dilated<T>> x(slow, expected_events(app, t.size(), cfg, s));
    // Each application marks its own run on `x` (start after its start barrier, stop at its
    // last message: common.hpp), so its configuration check and verification are not in it.
    application_result r;
    switch (app) {
    case application::ring: r = ring(x, cfg.ring ? cfg.ring(s) : ring_setting(s)); break;
    case application::rc: r = rc(x, cfg.rc ? cfg.rc(s) : rc_setting(s)); break;
    case application::mesh: r = mesh(x, cfg.mesh ? cfg.mesh(s) : mesh_setting(s)); break;
    }
    return {decompose(x.collect()), r};
}

/// The fields of a decomposition, and the application's own counts of the data and control
/// messages it sent, as doubles, for one gather.
inline constexpr std::size_t decomposition_fields = 13;
inline std::array<double, decomposition_fields> pack(const delay_decomposition& d, const application_result& r) {
    return {d.elapsed, d.user, d.logical, d.physical, d.overhead, static_cast<double>(d.received),
            static_cast<double>(d.logical_messages), d.max_logical, static_cast<double>(d.sent),
            static_cast<double>(d.retransmissions), d.retransmissions_known ? 1.0 : 0.0,
            static_cast<double>(r.messages_sent), static_cast<double>(r.control_sent)};
}
/// One rank's gathered fields: its decomposition and its application's message counts.
struct unpacked {
    delay_decomposition decomposition;
    std::uint64_t data_messages = 0, control_messages = 0;
};
inline unpacked unpack(std::span<const double> v) {
    delay_decomposition d;
    d.elapsed = v[0], d.user = v[1], d.logical = v[2], d.physical = v[3], d.overhead = v[4];
    d.received = static_cast<std::size_t>(v[5]), d.logical_messages = static_cast<std::size_t>(v[6]);
    d.max_logical = v[7], d.sent = static_cast<std::size_t>(v[8]);
    d.retransmissions = static_cast<std::uint64_t>(v[9]), d.retransmissions_known = v[10] != 0.0;
    return {d, static_cast<std::uint64_t>(v[11]), static_cast<std::uint64_t>(v[12])};
}

}  // namespace detail

/// Runs `app` in each setting at each dilation factor on every rank of `t`'s group and returns,
/// on the test node, one record per (setting, factor): kernel `ring`, `rc` or `mesh`; params
/// application, setting, dilation, nodes; samples = E_D (normalised elapsed time, seconds; the
/// mean over ranks) per trial; the rest of the seed's row from the last trial, normalised as the
/// seed normalises: user, logical, physical, overhead (U_D, L_D, P_D, O_D), lm_percent (%LM),
/// mean_logical (A_D), max_logical (Max Log, not normalised), data_messages (TM: what
/// the seed's tables count — CM-Ring's 35,808 is within 32 of 16 nodes x 16 hops x 140 messages,
/// no acknowledgement among them), control_messages (acknowledgements, RC's token and stop notices:
/// each is a message the trace times, and %LM, A_D and Max Log include them), retries (where the
/// transport counts retransmissions), grain, speedup (E_1 / E_D), and equation 1's estimate with
/// its coefficients, residual and, when it does not hold, a note. Other ranks return an empty set.
/// @throws invalid_argument (every rank) for a bad configuration; verification_error when a run
///         lost, duplicated or damaged a message.
template <transport T>
result_set dilation_study(T& t, application app, const study_config& cfg = {}) {
    const int me = t.rank(), p = t.size();
    detail::check_study(me, p, app, cfg);
    result_set out;
    for (setting s : cfg.settings) {
        std::vector<dilated_run> runs;
        std::vector<record> records;
        for (double d : cfg.dilations) {
            std::vector<double> samples;
            service_states last;
            application_result result;
            std::uint64_t data_messages = 0, control_messages = 0;
            for (std::size_t trial = 0; trial < cfg.trials; ++trial) {
                const auto [mine, r] = detail::traced_run(t, app, cfg, s, d);
                result = r;
                // Every message the trace saw is one the application counted, as data or control.
                if (mine.sent != r.messages_sent + r.control_sent)
                    raise<verification_error>(me, to_string(app), ": the trace saw ", mine.sent, " messages sent, the application ",
                                              r.messages_sent, " data and ", r.control_sent, " control messages");
                const auto packed = detail::pack(mine, r);
                std::vector<double> all(me == cfg.test_node ? detail::decomposition_fields * static_cast<std::size_t>(p) : 0);
                ops::gather(t, cfg.test_node, std::as_bytes(std::span(packed)), std::as_writable_bytes(std::span(all)));
                if (me != cfg.test_node) continue;
                std::vector<delay_decomposition> ranks;
                data_messages = control_messages = 0;
                for (int i = 0; i < p; ++i) {
                    const auto fields = std::span(all).subspan(static_cast<std::size_t>(i) * detail::decomposition_fields,
                                                               detail::decomposition_fields);
                    const detail::unpacked u = detail::unpack(fields);
                    ranks.push_back(u.decomposition);
                    data_messages += u.data_messages;
                    control_messages += u.control_messages;
                }
                last = combine(ranks);
                samples.push_back(last.elapsed / d);
            }
            if (me != cfg.test_node) continue;
            runs.push_back({d, last});
            const service_states n = last.normalised(d);
            record rec{std::string(to_string(app)), params{}, std::move(samples)};
            rec.params.set("application", std::string(to_string(app))).set("setting", std::string(to_string(s))).set("dilation", d).set("nodes", p);
            rec.params.set("user", n.user).set("logical", n.logical).set("physical", n.physical).set("overhead", n.overhead);
            rec.params.set("lm_percent", n.logical_message_percent).set("mean_logical", n.mean_logical);
            rec.params.set("max_logical", n.max_logical).set("data_messages", static_cast<std::int64_t>(data_messages));
            rec.params.set("control_messages", static_cast<std::int64_t>(control_messages));
            if (n.retries_known) rec.params.set("retries", static_cast<std::int64_t>(n.retries));
            rec.params.set("grain", result.grain);
            rec.params.set("trials", static_cast<std::int64_t>(cfg.trials));
            records.push_back(std::move(rec));
        }
        if (me != cfg.test_node) continue;
        // Speedup and equation 1 over the factors of this setting.
        std::optional<dilation_estimate> e;
        std::string why;
        try {
            e = estimate_dilation(runs);
        } catch (const invalid_argument& x) {
            why = x.what();
        }
        for (std::size_t i = 0; i < records.size(); ++i) {
            record& rec = records[i];
            if (e) {
                rec.params.set("speedup", e->speedup[i]).set("estimate_residual", e->residual);
                // An estimate that misses the measurements is named in a note, not printed as one.
                if (e->holds) rec.params.set("estimate", e->estimated[i]).set("estimate_b1", e->b1).set("estimate_b0", e->b0);
                if (!e->note.empty()) rec.notes.push_back("equation 1: " + e->note);
            } else {
                rec.notes.push_back("equation 1 not fitted: " + why);
            }
            if (cfg.on_point) cfg.on_point(rec);
            out.records.push_back(std::move(rec));
        }
    }
    return out;
}

}  // namespace comet::kernels::nist
