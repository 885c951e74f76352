// comet/timing/sampling.hpp — how a kernel's points are sampled (SPEC 5, "sampling"): the
// policy every kernel's configuration embeds as `sampling` — samples at least and at most, the
// interval of the median a point aims at, iterations per sample (fixed, or calibrated to a
// least duration), warm-up, time budget, the order of the rounds, the caches a sample starts
// from, a stop request — with the reasons a point stops and the check of a policy's values.
//
// Only the policy: the engine that follows it is timing/measure.hpp, what it measured at a
// point timing/sampled_point.hpp.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stop_token>
#include <string_view>
#include <utility>

namespace comet {

/// The order in which a round visits the open points.
enum class interleave : unsigned char {
    round_robin,  ///< point order, every round
    shuffle,      ///< a fresh permutation per round, from `sampling::seed`
    none,         ///< all samples of a point before the next point (the thesis' sweep)
};

/// Which rank's time a sample is.
enum class sample_reduction : unsigned char {
    decider,         ///< the decider's (the test node's) own repeat loop
    max_over_ranks,  ///< the largest per-iteration time over every rank
};

constexpr std::string_view to_string(interleave i) noexcept {
    return i == interleave::round_robin ? "round_robin" : i == interleave::shuffle ? "shuffle" : "none";
}
constexpr std::string_view to_string(sample_reduction r) noexcept {
    return r == sample_reduction::decider ? "test_node" : "max_over_ranks";
}

/// The state of the caches a sample starts from.
enum class cache_state : unsigned char {
    warm,  ///< the point's own data in cache: one untimed iteration of it just before the sample
    cold,  ///< caches overwritten before the sample, which is one operation
};

constexpr std::string_view to_string(cache_state c) noexcept { return c == cache_state::warm ? "warm" : "cold"; }

/// How a kernel's points are sampled. Embedded in every kernel's configuration as `sampling`.
/// All ranks pass the same values (@pre), but for `stop`, which only the decider reads.
struct sampling {
    /// Samples every point gets at least. Fifteen give a 96.5% interval of the median
    /// (x_(4)..x_(12)); below 6 there is no 95% interval at all.
    std::size_t min_samples = 15;
    /// Samples a point gets at most.
    std::size_t max_samples = 101;
    /// A point stops once the half-width of the 95% interval of its median is within this
    /// fraction of the median (0: never stop early; the cap or the budget ends it).
    double target_ci = 0.02;
    /// Iterations of the body per sample; 0 calibrates them so a sample lasts
    /// `min_sample_seconds`. A fixed count shorter than that is kept, and said so in the record.
    std::size_t iterations = 0;
    /// The least duration of a sample; 0 means max(1000 × the clock's resolution, 200 µs), long
    /// enough that reading the clock twice is a negligible part of it.
    double min_sample_seconds = 0.0;
    /// Time a point runs untimed before its first sample (caches, page faults, the partner's
    /// first wake-up).
    double warmup_seconds = 1e-3;
    /// Time a point's samples may use before it stops short of the interval it aims at; 0 means
    /// three times what `min_samples` samples take.
    double budget_seconds = 0.0;
    interleave order = interleave::round_robin;
    /// Seed of the shuffled order (recorded with it).
    std::uint64_t seed = 1993;
    /// What the caches hold when a sample starts (recorded as the param `cache`). Why warm by
    /// default: interleaved points would otherwise start each sample with whatever the point
    /// before left in cache, cold for a cache-sized message and warm for a small one, and the
    /// figure would depend on the order of the sweep.
    cache_state cache = cache_state::warm;
    /// Bytes every rank overwrites before a cold sample: more than the caches hold.
    std::size_t cold_bytes = std::size_t{64} << 20;
    /// Read on the decider before every sample: once a stop is requested the engine ends, every
    /// point keeping the samples it has (stop reason "interrupted").
    std::stop_token stop = {};
};

/// Why a point stopped taking samples.
enum class stop_reason : unsigned char { interval, max_samples, budget, fixed, interrupted };

constexpr std::string_view to_string(stop_reason s) noexcept {
    switch (s) {
    case stop_reason::interval: return "interval";
    case stop_reason::max_samples: return "max_samples";
    case stop_reason::budget: return "budget";
    case stop_reason::fixed: return "fixed";
    case stop_reason::interrupted: return "interrupted";
    }
    return "?";
}

/// Exactly `samples` samples of `iterations` iterations each, one untimed run of as many before
/// them, no early stop: the thesis' fixed repeat loops (and what tests use to count calls).
COMET_DECL sampling fixed_sampling(std::size_t samples, std::size_t iterations);

/// Checks `s`; the message names the kernel, the field and its value.
COMET_DECL void check_sampling(int rank, std::string_view kernel, const sampling& s);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/timing/sampling.ipp>
#endif
