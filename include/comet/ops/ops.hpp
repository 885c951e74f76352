// comet/ops/ops.hpp — every operation kernels call on a transport (SPEC 3): the transport's own
// member when it has one, comet's portable algorithm otherwise, and which one ran.
//
//   comet::ops::barrier(t);                       // -> ops::implementation::native | portable
//   comet::ops::send(t, 1, tag, comet::bytes_of(v));
//   comet::ops::allreduce_sum(t, std::span<double>(x));
#pragma once

#include <comet/ops/collectives.hpp>
#include <comet/ops/describe.hpp>
#include <comet/ops/implementation.hpp>
#include <comet/ops/point_to_point.hpp>
#include <comet/ops/process.hpp>
