// The point-to-point kernels on one transport (src/instantiate.hpp): echo, pairwise,
// loggp, contention, overlap.
#include <comet/kernels/contention.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/kernels/loggp.hpp>
#include <comet/kernels/overlap.hpp>

#include "instantiate.hpp"
