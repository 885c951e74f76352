// comet/kernels/matrix/matrix.hpp — CoMet's matrix component in one include (thesis 3.2.2,
// 3.3.8–3.3.11, 4.3): the distributed guard-wrapped matrix and its fixed setup, the verification
// module, the five operations on any transport, and the kernels that time them over block
// dimensions (figures 5.13–5.16).
//
//   distributed.hpp   the matrix (Eigen, (dim+2)² per rank over the processor mesh), transpose_partner
//   setup.hpp         the fixed values (the thesis' setup.c)
//   verify.hpp        exact checks (the thesis' check.c), verification_error
//   kernel.hpp        matrix_config and the point loop the kernels share
//   update_guard.hpp  update_guard                     figure 5.13
//   shift.hpp         shift_matrix(north | east)       figure 5.14
//   broadcast.hpp     row_broadcast, col_broadcast     figure 5.15
//   transpose.hpp     transpose                        figure 5.16
//
// Each operation is overloaded: `op(t, m, ...)` performs it on a matrix (the "embed in your own
// code" use), `op(t, cfg)` is the kernel that times and verifies it and returns records.
// @code
//   comet::threads::run(4, [](auto& t) {
//       comet::kernels::distributed_matrix m(t, 64);
//       comet::kernels::update_guard(t, m);                                        // the operation
//       comet::kernels::verify_all(t, m, comet::kernels::matrix_expectation::update_guard());
//       comet::result_set r = comet::kernels::transpose(t, {.dims = {16, 64}});    // the kernel
//   });
// @endcode
#pragma once

#include <comet/kernels/matrix/broadcast.hpp>
#include <comet/kernels/matrix/distributed.hpp>
#include <comet/kernels/matrix/kernel.hpp>
#include <comet/kernels/matrix/setup.hpp>
#include <comet/kernels/matrix/shift.hpp>
#include <comet/kernels/matrix/transpose.hpp>
#include <comet/kernels/matrix/update_guard.hpp>
#include <comet/kernels/matrix/verify.hpp>
