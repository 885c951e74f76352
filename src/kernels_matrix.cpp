// The matrix kernels on one transport (src/instantiate.hpp): update_guard, shift_matrix,
// transpose, row_broadcast, col_broadcast.
#include <comet/kernels/matrix/matrix.hpp>

#include "instantiate.hpp"
