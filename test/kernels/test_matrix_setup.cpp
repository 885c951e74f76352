// Tests of comet/kernels/matrix/setup.hpp: the fixed values are exact, unique over the whole
// distributed matrix, never 0, and decode back to where they came from.
#include <comet/kernels/matrix/setup.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <set>

BOOST_AUTO_TEST_SUITE(matrix_setup)

BOOST_AUTO_TEST_CASE(element_and_guard_values_follow_their_formulas) {
    BOOST_TEST(comet::kernels::matrix_element_value(0, 0) == 1.0);
    BOOST_TEST(comet::kernels::matrix_element_value(0, 7) == 8.0);
    BOOST_TEST(comet::kernels::matrix_element_value(2, 5) == 2.0 * 67108864.0 + 6.0);
    // The largest global element is still an exact integer.
    const std::int64_t top = comet::kernels::matrix_max_global_dim - 1;
    BOOST_TEST(comet::kernels::matrix_element_value(top, top) ==
               static_cast<double>(top * comet::kernels::matrix_max_global_dim + top + 1));
    // Guard cell (i, j) of node r in a (dim+2)² local matrix: −(r·(dim+2)² + i·(dim+2) + j + 1).
    BOOST_TEST(comet::kernels::matrix_guard_value(0, 2, 0, 0) == -1.0);
    BOOST_TEST(comet::kernels::matrix_guard_value(3, 2, 0, 1) == -(3.0 * 16 + 0 * 4 + 1 + 1));
    BOOST_TEST(comet::kernels::matrix_guard_value(1, 2, 3, 3) == -(1.0 * 16 + 3 * 4 + 3 + 1));
}

BOOST_AUTO_TEST_CASE(every_cell_of_a_distributed_matrix_is_unique_and_nonzero) {
    for (int nodes : {2, 8, 9}) {
        const comet::processor_mesh mesh(nodes);
        std::set<double> seen;
        std::size_t cells = 0;
        for (int rank = 0; rank < nodes; ++rank) {
            const comet::kernels::distributed_matrix m(mesh, rank, 3);
            for (Eigen::Index i = 0; i < m.local().rows(); ++i)
                for (Eigen::Index j = 0; j < m.local().cols(); ++j) {
                    const double v = m.local()(i, j);
                    BOOST_TEST(v != 0.0);
                    BOOST_TEST(v == std::floor(v));
                    seen.insert(v);
                    ++cells;
                }
        }
        BOOST_TEST(cells == static_cast<std::size_t>(nodes) * 25u);
        BOOST_TEST(seen.size() == cells);
    }
}

BOOST_AUTO_TEST_CASE(values_decode_to_where_they_came_from) {
    // A 2 x 2 mesh of 3 x 3 blocks: a 6 x 6 global matrix, 5 x 5 local matrices.
    const auto said = [](double v) { return comet::kernels::describe_matrix_value(v, 3, 4, 6, 6); };
    BOOST_TEST(said(comet::kernels::matrix_element_value(0, 0)) == "global element (0, 0)");
    BOOST_TEST(said(comet::kernels::matrix_element_value(5, 4)) == "global element (5, 4)");
    BOOST_TEST(said(comet::kernels::matrix_guard_value(3, 3, 0, 2)) == "guard cell (0, 2) of rank 3");
    BOOST_TEST(said(comet::kernels::matrix_guard_value(1, 3, 4, 4)) == "guard cell (4, 4) of rank 1");
    // Not a value the setup writes: outside the global matrix, a cell inside the block, another
    // rank count, a fraction, zero, NaN.
    BOOST_TEST(said(comet::kernels::matrix_element_value(6, 0)) == "no setup value");
    BOOST_TEST(said(comet::kernels::matrix_element_value(0, 6)) == "no setup value");
    BOOST_TEST(said(comet::kernels::matrix_guard_value(1, 3, 2, 2)) == "no setup value");
    BOOST_TEST(said(comet::kernels::matrix_guard_value(4, 3, 0, 0)) == "no setup value");
    BOOST_TEST(said(std::nextafter(comet::kernels::matrix_element_value(1, 1), 1e300)) == "no setup value");
    BOOST_TEST(said(0.0) == "no setup value");
    BOOST_TEST(said(std::nan("")) == "no setup value");
}

BOOST_AUTO_TEST_SUITE_END()
