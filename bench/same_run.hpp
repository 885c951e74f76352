// bench/same_run.hpp — what the benchmarks that compare comet with a baseline in the same run
// share: the median of per-trial figures, and the time per operation of a loop between two
// barriers on rank 0's clock.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/stats/summary.hpp>

#include <functional>
#include <vector>

namespace bench {

inline double median(const std::vector<double>& v) { return comet::percentile(v, 50.0); }

/// Seconds per operation of `op` run `reps` times between two barriers (this rank's clock).
template <comet::transport T>
double per_operation(T& t, int reps, const std::function<void()>& op) {
    comet::ops::barrier(t);
    const double s = t.now();
    for (int i = 0; i < reps; ++i) op();
    const double e = t.now();
    comet::ops::barrier(t);
    return (e - s) / reps;
}

}  // namespace bench
