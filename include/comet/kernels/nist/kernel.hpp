// comet/kernels/nist/kernel.hpp — the NIST seed's experiment as a kernel: each synthetic
// application (ring, rc, mesh; applications.hpp) run in its CM and CP settings at dilation
// factors D = 1, 2, 4, 6, 8, 10, 12, 14, 16 (the seed's nine), each run traced
// (transport/decorators/tracing.hpp) and its time split into the service states
// (stats/delay_decomposition.hpp): the seed's tables A1–A6 as records. The speedups and equation 1 over the factors of each setting are derived from
// them (analysis/delays.hpp, `estimate_dilations`; `comet::analyse` runs it for the suite).
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

#include <comet/core/compiled.hpp>
// Tells comet/compiled/<transport>.hpp that this kernel's declaration is in: see there.
#define COMET_KERNELS_NIST_STUDY

#include <comet/core/errors.hpp>
#include <comet/kernels/nist/applications.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/delay_decomposition.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>
#include <comet/transport/decorators/dilated.hpp>
#include <comet/transport/decorators/tracing.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
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
    /// Dilation factors (≥ 1); by default the seed's nine (tables A1–A6). Equation 1 needs
    /// factor 1 among them, figure 4's slope factor 2.
    std::vector<double> dilations = {1, 2, 4, 6, 8, 10, 12, 14, 16};
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
    /// Read on the test node before each run: once a stop is requested the study ends there,
    /// with the records of the factors it ran.
    std::stop_token stop = {};
};

/// Sets one of the applications' parameters in `cfg`: `spec` is "[cm.|cp.]application.name=value",
/// a whole number (a fraction for rc's dispatch_share), e.g. "ring.messages=40" (both settings)
/// or "cp.mesh.work_per_datum=200" (CP only). The names are the fields of ring_config, rc_config and mesh_config (the tags aside;
/// `parameter_names` lists them). What is not set keeps the seed's value (`ring_setting` ...) or
/// the one an earlier call or `cfg`'s own function gave. Whether the values fit together (a
/// message that holds its items, ...) is the application's to check when it runs.
/// @throws invalid_argument naming `spec` for an unknown setting, application or name, or a
///         value that is not a whole number (a number) from 0 to 10^15.
COMET_DECL void set_parameter(study_config& cfg, std::string_view spec);

/// The parameter names `set_parameter` knows for `app`, comma-separated.
COMET_DECL std::string_view parameter_names(application app);

namespace detail {

COMET_DECL void check_study(int rank, int p, application app, const study_config& cfg);

/// The application's parameters in setting `s` that differ from the seed's (`ring_setting` ...),
/// as ("<application>.<name>", value): a record names them among its parameters.
COMET_DECL std::vector<std::pair<std::string, double>> changed_parameters(application app, const study_config& cfg, setting s);

/// Room in the trace for one run's messages, so that it rarely grows inside the run.
COMET_DECL std::size_t expected_events(application app, int p, const study_config& cfg, setting s);

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
    // %LM, A_D and Max Log over user messages: the ring's acknowledgements (16 bytes) and RC's
    // acknowledgements, token and stop notices (its 32-byte header alone) are control messages;
    // every data message is longer (a header and at least one item).
    const std::optional<std::size_t> control = app == application::ring ? std::optional<std::size_t>(detail::ring_ack_bytes)
                                               : app == application::rc  ? std::optional<std::size_t>(rc_header_bytes)
                                                                         : std::nullopt;
    return {decompose(x.collect(), control), r};
}

/// The fields of a decomposition, and the application's own counts of the data and control
/// messages it sent, as doubles, for one gather.
inline constexpr std::size_t decomposition_fields = 18;
COMET_DECL std::array<double, decomposition_fields> pack(const delay_decomposition& d, const application_result& r);
/// One rank's gathered fields: its decomposition and its application's message counts.
struct unpacked {
    delay_decomposition decomposition;
    std::uint64_t data_messages = 0, control_messages = 0;
};
COMET_DECL unpacked unpack(std::span<const double> v);

}  // namespace detail

/// Runs `app` in each setting at each dilation factor on every rank of `t`'s group and returns,
/// on the test node, one record per (setting, factor): kernel `ring`, `rc` or `mesh`; params
/// application, setting, dilation, nodes, trials, and each application parameter that is not the
/// seed's ("ring.messages", ...: `set_parameter`); samples = E_D (normalised elapsed time, seconds; the
/// mean over ranks) per trial; the rest of the seed's row from the last trial, normalised as the
/// seed normalises: user, logical, physical, overhead (U_D, L_D, P_D, O_D), lm_percent (%LM),
/// mean_logical (A_D), max_logical (Max Log, not normalised), data_messages (TM: what
/// the seed's tables count — CM-Ring's 35,808 is within 32 of 16 nodes x 16 hops x 140 messages,
/// no acknowledgement among them), control_messages (acknowledgements, RC's token and stop notices:
/// the trace times their waits in L and P, while %LM, A_D and Max Log count data messages only,
/// as the seed's do), retries (where the
/// transport counts retransmissions), physical_wait (where P is the time on the wire, which
/// the transport says: the time blocked after the sends were issued, which P is elsewhere),
/// interrupts (where the transport says: the interrupt
/// handlers' time during computation, normalised, which the seed counts in O and not in U; U +
/// interrupts is the time in `compute`), grain, elapsed (E_D of the trial the row is from). The
/// speedup and equation 1 are `estimate_dilations`' (analysis/delays.hpp) to add. Other ranks
/// return an empty set.
/// @throws invalid_argument (every rank) for a bad configuration; verification_error when a run
///         lost, duplicated or damaged a message.
template <transport T>
result_set dilation_study(T& t, application app, const study_config& cfg = {}) {
    const int me = t.rank(), p = t.size();
    detail::check_study(me, p, app, cfg);
    result_set out;
    // A stop request, the same on every rank: the test node's, read after each trial and shared
    // in the same allreduce as whether a rank was disturbed during it (one collective between
    // trials, the only messages that are not the application's).
    // A disturbance counts against the next trial from the allreduce after the previous one (the
    // first: from one before it, which also holds up the ranks until one that comes late from what
    // ran before is there, and shares a stop requested before the study: no trial then runs).
    std::uint64_t seen = ops::disturbances(t);
    bool hit_last = false;        // the trial before was disturbed
    bool first_of_study = true;   // the trial about to run is the study's first
    std::array<double, 1> stop_first{me == cfg.test_node && cfg.stop.stop_requested() ? 1.0 : 0.0};
    ops::allreduce_max(t, std::span<double>(stop_first));
    bool stopped = stop_first[0] != 0.0;
    for (setting s : cfg.settings) {
        if (stopped) break;
        for (double d : cfg.dilations) {
            if (stopped) break;
            std::vector<double> samples;
            std::vector<std::size_t> disturbed;  // the trials during which some rank was disturbed
            std::vector<std::size_t> carried;    // the undisturbed trials right after a disturbed one
            std::size_t trials = 0;
            service_states last;
            bool last_clean = false;  // `last` is a trial no rank was disturbed in
            bool last_first = false;  // `last` is the study's first trial
            application_result result;
            std::uint64_t data_messages = 0, control_messages = 0;
            for (std::size_t trial = 0; trial < cfg.trials; ++trial) {
                if (stopped) break;
                ++trials;
                const auto [mine, r] = detail::traced_run(t, app, cfg, s, d);
                // Whether any rank lost its CPU to something else during the run, or during the
                // allreduce before it, which a rank held up there leaves late and so starts the
                // run late (core/concepts.hpp, counts_disturbances): its E is then not the
                // application's.
                const std::uint64_t now = ops::disturbances(t);
                std::array<double, 2> hit{now != seen ? 1.0 : 0.0, me == cfg.test_node && cfg.stop.stop_requested() ? 1.0 : 0.0};
                seen = now;
                ops::allreduce_max(t, std::span<double>(hit));
                stopped = hit[1] != 0.0;
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
                // The row's service states come from the last clean trial: undisturbed, after an
                // undisturbed one (or first), since a run starts from what the one before left (a
                // disturbed run's late messages and staggered ranks; on the simulated iPSC/860 a
                // mesh run after a disturbed one read 0.5% faster, its physical time 22% shorter).
                // The last trial when none was clean: the record then has no valid sample.
                const service_states states = combine(ranks);
                const bool after_disturbed = hit_last;
                hit_last = hit[0] != 0.0;
                if (hit_last) disturbed.push_back(samples.size());
                else if (after_disturbed) carried.push_back(samples.size());
                const bool clean = !hit_last && !after_disturbed;
                if (clean || !last_clean) last = states, last_clean = clean, last_first = first_of_study;
                first_of_study = false;
                samples.push_back(states.elapsed / d);
            }
            if (trials == 0 || me != cfg.test_node) continue;
            const service_states n = last.normalised(d);
            record rec{std::string(to_string(app)), params{}, std::move(samples)};
            rec.params.set("application", std::string(to_string(app))).set("setting", std::string(to_string(s))).set("dilation", d).set("nodes", p);
            rec.params.set("trials", static_cast<std::int64_t>(cfg.trials));
            for (const auto& [name, value] : detail::changed_parameters(app, cfg, s)) {
                if (value == std::floor(value)) rec.params.set(name, static_cast<std::int64_t>(value));
                else rec.params.set(name, value);
            }
            rec.values.set("elapsed", n.elapsed).set("user", n.user).set("logical", n.logical).set("physical", n.physical).set("overhead", n.overhead);
            rec.values.set("lm_percent", n.logical_message_percent).set("mean_logical", n.mean_logical);
            rec.values.set("max_logical", n.max_logical).set("data_messages", static_cast<std::int64_t>(data_messages));
            rec.values.set("control_messages", static_cast<std::int64_t>(control_messages));
            if (n.retries_known) rec.values.set("retries", static_cast<std::int64_t>(n.retries));
            if (n.interrupts_known) rec.values.set("interrupts", n.interrupts);
            if (n.wire_known) rec.values.set("physical_wait", n.physical_wait);
            rec.values.set("grain", result.grain);
            if (!last_clean)
                add_flag(rec, "point", "no clean trial (each was disturbed, a rank losing its CPU, or came right after one that was): the service states are not the application's");
            // The study's first trial starts from what ran before it (other kernels, cold
            // caches and buffers): its states differ from the later trials' (on the simulated
            // iPSC/860, ring's logical time 4.5 us in the first, 0 in the others), so states
            // read from it, when the later trials were disturbed, are flagged.
            if (last_clean && last_first && trials > 1)
                for (const char* v : {"user", "logical", "physical", "overhead"})
                    add_flag(rec, v, "from the study's first trial (the later ones were disturbed), which starts from what ran before");
            for (std::size_t i : disturbed) mark_invalid(rec, i, "preempted");
            for (std::size_t i : carried) mark_invalid(rec, i, "after_preempted");
            if (trials < cfg.trials) {
                rec.stop = "interrupted";
                rec.notes.push_back("interrupted after " + std::to_string(trials) + " of " + std::to_string(cfg.trials) + " trials");
            }
            if (cfg.on_point) cfg.on_point(rec);
            out.records.push_back(std::move(rec));
        }
    }
    return out;
}

}  // namespace comet::kernels::nist

#if !defined(COMET_COMPILED)
#include <comet/kernels/nist/kernel.ipp>
#endif
