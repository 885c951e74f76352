// Tests of comet/kernels/matrix/distributed.hpp: the decomposition (positions, neighbours, global
// indices), the guard-wrapped Eigen storage and its setup, what transpose pairs on every mesh
// shape, and the errors.
#include <comet/kernels/matrix/distributed.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <vector>

BOOST_AUTO_TEST_SUITE(matrix_distributed)

using namespace matrix_test;

BOOST_AUTO_TEST_CASE(a_rank_holds_its_block_inside_a_guard_ring) {
    // 4 nodes: a 2 x 2 mesh in Gray order, node at (r, c) = gray(r)·2 + gray(c); 3 x 3 blocks of a 6 x 6 matrix.
    const comet::processor_mesh mesh(4);
    const comet::kernels::distributed_matrix m(mesh, 3, 3);
    BOOST_TEST(m.rank() == 3);
    BOOST_TEST(m.dim() == 3);
    BOOST_TEST((m.position() == comet::mesh_position{1, 1}));
    BOOST_TEST(m.global_rows() == 6);
    BOOST_TEST(m.global_cols() == 6);
    BOOST_TEST(m.first_row() == 3);
    BOOST_TEST(m.first_col() == 3);
    BOOST_TEST(m.local().rows() == 5);
    BOOST_TEST(m.local().cols() == 5);
    BOOST_TEST(m.block().rows() == 3);
    // Row-major like the thesis' C array: a block row is contiguous.
    BOOST_TEST(m.local().IsRowMajor);
    BOOST_TEST(&m.local()(2, 1) == &m.local()(1, 1) + 5);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) BOOST_TEST(m.block()(i, j) == comet::kernels::matrix_element_value(3 + i, 3 + j));
    for (int k = 0; k < 5; ++k) {
        BOOST_TEST(m.local()(0, k) == comet::kernels::matrix_guard_value(3, 3, 0, k));
        BOOST_TEST(m.local()(4, k) == comet::kernels::matrix_guard_value(3, 3, 4, k));
        BOOST_TEST(m.local()(k, 0) == comet::kernels::matrix_guard_value(3, 3, k, 0));
        BOOST_TEST(m.local()(k, 4) == comet::kernels::matrix_guard_value(3, 3, k, 4));
    }
}

BOOST_AUTO_TEST_CASE(neighbours_are_the_mesh_neighbours) {
    const comet::processor_mesh mesh(8);  // 2 x 4, Gray: row 0 holds 0 1 3 2, row 1 holds 4 5 7 6
    const comet::kernels::distributed_matrix m(mesh, 3, 2);
    BOOST_TEST((m.position() == comet::mesh_position{0, 2}));
    BOOST_TEST((m.neighbours() == comet::mesh_neighbours{7, 7, 1, 2}));
    BOOST_TEST(m.global_rows() == 4);
    BOOST_TEST(m.global_cols() == 8);
    BOOST_TEST(m.first_col() == 4);
}

BOOST_AUTO_TEST_CASE(setup_restores_every_cell) {
    comet::kernels::distributed_matrix m(comet::processor_mesh(2), 1, 4);
    const comet::kernels::distributed_matrix fresh = m;
    m.local().setZero();
    m.local()(2, 3) = 42.0;
    m.setup();
    BOOST_TEST((m.local() == fresh.local()));
}

BOOST_AUTO_TEST_CASE(spans_view_the_local_matrix) {
    comet::kernels::distributed_matrix m(comet::processor_mesh(1), 0, 3);
    const auto row = m.row_span(2);
    BOOST_TEST(row.size() == 3u);
    BOOST_TEST(row.data() == &m.local()(2, 1));
    BOOST_TEST(m.bytes().size() == 25u * sizeof(double));
    BOOST_TEST(static_cast<const void*>(m.bytes().data()) == static_cast<const void*>(m.local().data()));
}

BOOST_AUTO_TEST_CASE(built_from_a_transport_on_the_thesis_mesh) {
    const auto r = run(8, [](transport& t) {
        const comet::kernels::distributed_matrix m(t, 2);
        return m.mesh().rows() * 100 + m.mesh().cols() * 10 + m.position().row;
    });
    BOOST_TEST(r[0] == 240);
    BOOST_TEST(r[4] == 241);
}

BOOST_AUTO_TEST_CASE(transpose_partners_on_square_meshes_swap_row_and_column) {
    for (int nodes : {1, 4, 9, 16}) {
        const comet::processor_mesh mesh(nodes);
        for (int n = 0; n < nodes; ++n) {
            const auto p = mesh.position(n);
            const int partner = comet::kernels::transpose_partner(mesh, n);
            BOOST_TEST((mesh.position(partner) == comet::mesh_position{p.col, p.row}));
        }
    }
}

BOOST_AUTO_TEST_CASE(transpose_partners_on_wide_meshes_stay_in_their_square) {
    // 2 x 4 Gray mesh: squares {0 1 / 4 5} and {3 2 / 7 6}.
    const comet::processor_mesh eight(8);
    std::vector<int> partners;
    for (int n = 0; n < 8; ++n) partners.push_back(comet::kernels::transpose_partner(eight, n));
    BOOST_TEST(partners == (std::vector<int>{0, 4, 7, 3, 1, 5, 6, 2}), boost::test_tools::per_element());
    // 1 x 2: two 1 x 1 squares, every node its own partner.
    const comet::processor_mesh two(2);
    BOOST_TEST(comet::kernels::transpose_partner(two, 0) == 0);
    BOOST_TEST(comet::kernels::transpose_partner(two, 1) == 1);
    // 3 x 6 row-major: node 4 at (0, 4) pairs with (1, 3) = node 9.
    const comet::processor_mesh eighteen(18);
    BOOST_TEST(comet::kernels::transpose_partner(eighteen, 4) == 9);
    BOOST_TEST(comet::kernels::transpose_partner(eighteen, 9) == 4);
    // A hand-made 4 x 2 mesh: squares stacked; (2, 1) = node 5 pairs with (3, 0) = node 6.
    const comet::processor_mesh tall(4, 2, comet::mesh_mapping::row_major);
    BOOST_TEST(comet::kernels::transpose_partner(tall, 5) == 6);
    BOOST_TEST(comet::kernels::transpose_partner(tall, 2) == 1);
    // Always an involution.
    for (int nodes : {2, 8, 18, 32})
        for (int n = 0; n < nodes; ++n) {
            const comet::processor_mesh mesh(nodes);
            BOOST_TEST(comet::kernels::transpose_partner(mesh, comet::kernels::transpose_partner(mesh, n)) == n);
        }
}

BOOST_AUTO_TEST_CASE(a_mesh_squares_cannot_tile_has_no_transpose) {
    const comet::processor_mesh mesh(2, 3, comet::mesh_mapping::row_major);
    BOOST_CHECK_EXCEPTION(comet::kernels::transpose_partner(mesh, 0), comet::not_supported, [](const auto& e) {
        return std::string(e.what()) ==
               "transpose: a 2 x 3 mesh cannot be tiled by squares, so it has no in-place block transpose";
    });
}

BOOST_AUTO_TEST_CASE(which_node_counts_have_a_mesh) {
    for (int n : {1, 2, 4, 8, 9, 16, 18, 25, 32, 128}) BOOST_TEST(comet::kernels::has_processor_mesh(n));
    for (int n : {0, 3, 5, 6, 7, 10, 12, 24}) BOOST_TEST(!comet::kernels::has_processor_mesh(n));
}

BOOST_AUTO_TEST_CASE(bad_construction_names_the_value) {
    const comet::processor_mesh mesh(4);
    BOOST_CHECK_EXCEPTION(comet::kernels::distributed_matrix(mesh, 4, 2), comet::invalid_argument, [](const auto& e) {
        return mentions(e, {"rank 4: distributed_matrix: rank 4 is outside the 4 nodes of a 2 x 2 mesh"});
    });
    BOOST_CHECK_EXCEPTION(comet::kernels::distributed_matrix(mesh, 1, 0), comet::invalid_argument, [](const auto& e) {
        return mentions(e, {"rank 1: distributed_matrix: matrix dimension 0 is outside 1..16381"});
    });
    BOOST_CHECK_EXCEPTION(comet::kernels::distributed_matrix(mesh, 1, 16382), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"matrix dimension 16382"}); });
    BOOST_CHECK_EXCEPTION(
        run(6, [](transport& t) { comet::kernels::distributed_matrix m(t, 2); }), comet::invalid_argument, [](const auto& e) {
            return mentions(
                e, {"rank 0: distributed_matrix: processor_mesh: 6 nodes is neither a perfect square nor twice one"});
        });
}

BOOST_AUTO_TEST_SUITE_END()
