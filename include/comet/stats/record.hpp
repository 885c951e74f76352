// comet/stats/record.hpp — what a kernel returns: one record per measured point, holding the
// point's parameters and every raw sample taken there.
//
// Summaries (stats/summary.hpp) and fits (stats/fit.hpp) are derived from these records and
// never replace them: a reporter can always write the raw samples next to the summary.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace comet {

/// A parameter of a measured point: an integer (size, hops, nodes), a real number (load) or a
/// word (mode, protocol).
using param_value = std::variant<std::int64_t, double, std::string>;

/// The named parameters of one measured point, in the order the kernel set them. Names follow
/// SPEC 9: size (bytes), hops, nodes, vector_length, matrix_dim, mode, load, protocol, ...
class params {
public:
    params() = default;

    /// @code  comet::params p{{"size", 8}, {"hops", 1}};  @endcode
    params(std::initializer_list<std::pair<std::string, param_value>> entries) {
        for (const auto& [name, value] : entries) set(name, value);
    }

    /// Sets `name`, replacing an earlier value of the same name.
    params& set(std::string_view name, param_value value) {
        for (auto& [n, v] : entries_)
            if (n == name) {
                v = std::move(value);
                return *this;
            }
        entries_.emplace_back(std::string(name), std::move(value));
        return *this;
    }
    template <std::integral I>
        requires(!std::same_as<I, bool>)
    params& set(std::string_view name, I value) {
        return set(name, param_value(static_cast<std::int64_t>(value)));
    }
    params& set(std::string_view name, double value) { return set(name, param_value(value)); }
    params& set(std::string_view name, const char* value) { return set(name, param_value(std::string(value))); }
    /// A flag has no parameter type: say "on"/"off" (or 1/0) instead of silently storing 1.0.
    params& set(std::string_view name, bool value) = delete;

    const param_value* find(std::string_view name) const noexcept {
        for (const auto& [n, v] : entries_)
            if (n == name) return &v;
        return nullptr;
    }
    bool contains(std::string_view name) const noexcept { return find(name) != nullptr; }

    /// The value of an integer parameter, if present and an integer.
    std::optional<std::int64_t> integer(std::string_view name) const noexcept {
        if (const auto* v = find(name); v && std::holds_alternative<std::int64_t>(*v)) return std::get<std::int64_t>(*v);
        return std::nullopt;
    }
    /// The value of a numeric parameter (integer or real), if present.
    std::optional<double> number(std::string_view name) const noexcept {
        if (const auto* v = find(name)) {
            if (std::holds_alternative<std::int64_t>(*v)) return static_cast<double>(std::get<std::int64_t>(*v));
            if (std::holds_alternative<double>(*v)) return std::get<double>(*v);
        }
        return std::nullopt;
    }
    /// The value of a word parameter, if present and a word.
    std::optional<std::string> text(std::string_view name) const {
        if (const auto* v = find(name); v && std::holds_alternative<std::string>(*v)) return std::get<std::string>(*v);
        return std::nullopt;
    }

    auto begin() const noexcept { return entries_.begin(); }
    auto end() const noexcept { return entries_.end(); }
    std::size_t size() const noexcept { return entries_.size(); }
    bool empty() const noexcept { return entries_.empty(); }

    friend bool operator==(const params&, const params&) = default;

private:
    std::vector<std::pair<std::string, param_value>> entries_;
};

/// What a NIST application's run measured besides E_D (kernels/nist/kernel.hpp): the service
/// states, the message counts, the grain as run, the speedup and equation 1's fit.
inline bool is_nist_measurement(std::string_view name) noexcept {
    return name == "user" || name == "logical" || name == "physical" || name == "overhead" || name == "lm_percent" ||
           name == "mean_logical" || name == "max_logical" || name == "data_messages" || name == "control_messages" ||
           name == "retries" || name == "grain" || name == "speedup" || name == "estimate" || name == "estimate_b0" ||
           name == "estimate_b1" || name == "estimate_residual";
}

/// Whether a param says how a point was measured rather than which point it is: the
/// implementation that ran (native / portable), the send form of a both-send-first exchange,
/// the sampling order and its seed, and a figure measured beside the point (a broadcast's
/// closing barrier, COMMTEST's global elapsed time and whether its protocol shakes hands;
/// a windowed point's window, overruns and clock error; a clock sync's exchanges and errors; a
/// nonblocking collective's parts of its overhead and the curve it is drawn on). Analyses that line points up across
/// records (a curve over group sizes, sync against async) leave these out of the points'
/// identity. Not `reduction`: whose time a sample is (the test node's, the slowest rank's,
/// first start to last finish) makes it a different quantity, and a windowed collective has a
/// record per reduction of the same operation. And what a NIST application's run measured.
inline bool is_descriptive_param(std::string_view name) noexcept {
    return name == "implementation" || name == "form" || name == "order" || name == "seed" || name == "closing_barrier" ||
           name == "elapsed" || name == "handshake" || name == "window" || name == "widenings" || name == "overruns" ||
           name == "measurements" || name == "clock_error" || name == "lead" || name == "exchanges" ||
           name == "estimated_error" || name == "true_error" || name == "blocking" || name == "compute" || name == "t_init" ||
           name == "t_test" || name == "t_wait" || name == "hidden" || name == "tests" || name == "workload" || name == "curve" ||
           is_nist_measurement(name);
}

/// One measured point: which kernel, where (its parameters), and every raw sample in seconds.
/// What a sample means is the kernel's to say (echo: one-way time, half a round trip, averaged
/// over one timed repeat loop).
struct record {
    std::string kernel;
    comet::params params;
    std::vector<double> samples;
    /// The loop overhead subtracted from each sample (same unit and scale as the samples), as
    /// the sampling engine (timing/measure.hpp) measured it; empty for records not made by it.
    std::vector<double> overheads = {};
    /// Iterations of the body per sample (0: not recorded).
    std::size_t iterations = 0;
    /// Why the point stopped taking samples: "interval" (its median's 95% interval reached the
    /// target), "max_samples", "budget" or "fixed"; empty when not recorded.
    std::string stop = {};
    /// What a reader must know about this point ("samples shorter than the clock allows ...").
    std::vector<std::string> notes = {};
    /// How many of `samples` each round took, in order, when the point was measured in rounds
    /// spread over the run (the samples are stored round after round; the counts add up to
    /// `samples.size()`); empty when it was measured in one stretch. Why rounds: a point's
    /// samples of one stretch are milliseconds apart and share the machine's state of that
    /// moment; rounds seconds apart show how much that state moves the point
    /// (stats/compare.hpp tests on them).
    std::vector<std::size_t> rounds = {};

    friend bool operator==(const record&, const record&) = default;
};

/// The records a kernel (or a whole suite run) produced, in measurement order.
struct result_set {
    std::vector<record> records;

    void append(const result_set& other) { records.insert(records.end(), other.records.begin(), other.records.end()); }
    bool empty() const noexcept { return records.empty(); }
    std::size_t size() const noexcept { return records.size(); }

    /// The records of one kernel, in order.
    std::vector<const record*> of(std::string_view kernel) const {
        std::vector<const record*> out;
        for (const auto& r : records)
            if (r.kernel == kernel) out.push_back(&r);
        return out;
    }

    friend bool operator==(const result_set&, const result_set&) = default;
};

}  // namespace comet
