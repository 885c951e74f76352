// comet/stats/record.hpp — what a kernel returns: one record per measured point, holding the
// point's identity (params), what was measured there besides the samples (values), every raw
// sample taken there, and which samples and figures can be trusted.
//
// Summaries (stats/summary.hpp, stats/validity.hpp) and fits (stats/fit.hpp) are derived from
// these records and never replace them: a reporter can always write the raw samples next to
// the summary. Nothing here knows a kernel's names: which params name a point is the kernel's
// choice (it puts them in `params`), and everything else it measured goes in `values`.
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

/// A sample kept out of every statistic: its index in `record::samples` and why ("negative":
/// below zero once the loop overhead was subtracted). It stays in the raw samples, marked.
struct invalid_sample {
    std::size_t index = 0;
    std::string why;
    friend bool operator==(const invalid_sample&, const invalid_sample&) = default;
};

/// A figure of a record that must not be read at face value, and why. `what` names it: "point"
/// (the whole record: no statistic of it is reported, no analysis uses it), a statistic of the
/// samples ("mean", "max", "stddev", "p95"), or one of the record's `values` ("hidden").
struct flag {
    std::string what;
    std::string why;
    friend bool operator==(const flag&, const flag&) = default;
};

/// One round of a point measured in rounds: how many samples it took and of how many
/// iterations each.
struct round_count {
    std::size_t samples = 0;
    std::size_t iterations = 0;
    friend bool operator==(const round_count&, const round_count&) = default;
};

/// One measured point: which kernel, which point (its identity, `params`), what was measured
/// there besides the samples (`values`), every raw sample in seconds, and whether each can be
/// trusted. What a sample means is the kernel's to say (echo: one-way time, half a round trip,
/// averaged over one timed repeat loop).
///
/// Identity and measured values are apart so that nothing outside a kernel needs to know its
/// names: `params` name the point wherever points are lined up (across runs by `comet compare`,
/// across group sizes by a curve, sync against async), `values` are this run's measurements
/// beside the samples (a window's length and overruns, a broadcast's closing barrier, a NIST
/// run's service states), written beside the params and never part of a point's name.
struct record {
    std::string kernel;
    comet::params params;
    std::vector<double> samples;
    /// What the run measured at this point besides the samples (seconds, counts, words), in the
    /// order the kernel set them.
    comet::params values = {};
    /// The loop overhead subtracted from each sample (same unit and scale as the samples), as
    /// the sampling engine (timing/measure.hpp) measured it; empty for records not made by it.
    std::vector<double> overheads = {};
    /// Iterations of the body per sample (0: not recorded); with `rounds`, the first round's.
    std::size_t iterations = 0;
    /// Why the point stopped taking samples: "interval" (its median's 95% interval reached the
    /// target), "max_samples", "budget", "fixed" or "interrupted"; empty when not recorded.
    std::string stop = {};
    /// What a reader must know about this point ("samples shorter than the clock allows ...").
    std::vector<std::string> notes = {};
    /// Each round's samples and iterations, in order, when the point was measured in rounds
    /// spread over the run (the samples are stored round after round; the counts add up to
    /// `samples.size()`); empty when it was measured in one stretch. Why rounds: a point's
    /// samples of one stretch are milliseconds apart and share the machine's state of that
    /// moment; rounds seconds apart show how much that state moves the point
    /// (stats/compare.hpp tests on them).
    std::vector<round_count> rounds = {};
    /// The samples that never reach a statistic, by index (rising), with the reason.
    std::vector<invalid_sample> invalid = {};
    /// Measurements made at this point and not kept as samples, by reason, e.g. {"late_start",
    /// 8}: a window measurement in which some rank started late. valid + invalid + dropped is
    /// every measurement the point made (stats/validity.hpp).
    std::vector<std::pair<std::string, std::size_t>> dropped = {};
    /// Figures of this record that must not be read at face value, and why.
    std::vector<flag> flags = {};

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
