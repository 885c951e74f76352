// The collective kernels on one transport (src/instantiate.hpp): broadcast, global_sum,
// barrier, clock_sync, windowed_collectives, nbc.
#include <comet/kernels/clock_sync.hpp>
#include <comet/kernels/collectives.hpp>
#include <comet/kernels/nbc.hpp>
#include <comet/kernels/windowed_collectives.hpp>

#include "instantiate.hpp"
