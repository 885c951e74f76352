// comet/timing/sampling.ipp — the definitions of comet/timing/sampling.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/timing/sampling.hpp>

namespace comet {

COMET_DECL sampling fixed_sampling(std::size_t samples, std::size_t iterations) {
    return {.min_samples = samples, .max_samples = samples, .target_ci = 0.0, .iterations = iterations, .warmup_seconds = 0.0};
}

COMET_DECL void check_sampling(int rank, std::string_view kernel, const sampling& s) {
    if (s.min_samples == 0) raise<invalid_argument>(rank, kernel, ": sampling.min_samples must be at least 1, got 0");
    if (s.max_samples < s.min_samples)
        raise<invalid_argument>(rank, kernel, ": sampling.max_samples = ", s.max_samples, " is below min_samples = ", s.min_samples);
    if (!(s.target_ci >= 0.0) || !std::isfinite(s.target_ci))
        raise<invalid_argument>(rank, kernel, ": sampling.target_ci = ", s.target_ci, " is not a fraction >= 0");
    for (const auto& [name, v] : {std::pair{"min_sample_seconds", s.min_sample_seconds},
                                  std::pair{"warmup_seconds", s.warmup_seconds}, std::pair{"budget_seconds", s.budget_seconds}})
        if (!(v >= 0.0) || !std::isfinite(v)) raise<invalid_argument>(rank, kernel, ": sampling.", name, " = ", v, " is not >= 0 seconds");
    if (s.iterations > 1'000'000'000) raise<invalid_argument>(rank, kernel, ": sampling.iterations = ", s.iterations, " is over 10^9");
    if (s.cache == cache_state::cold && (s.cold_bytes == 0 || s.cold_bytes > (std::size_t{1} << 34)))
        raise<invalid_argument>(rank, kernel, ": sampling.cold_bytes = ", s.cold_bytes, " is not in 1..2^34");
}

}  // namespace comet
