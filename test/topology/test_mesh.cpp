// Tests for comet/topology/mesh.hpp: the thesis' processor mesh (figure 4.1, section 4.3), its
// neighbours with wrap-around, and the general torus.
#include <comet/topology/hypercube.hpp>
#include <comet/topology/mesh.hpp>

#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace topology_mesh_test {

inline auto mesh_says(std::string part) {
    return [part](const comet::invalid_argument& e) { return std::string(e.what()).find(part) != std::string::npos; };
}

inline auto mesh_says_exactly(std::string text) {
    return [text](const comet::invalid_argument& e) { return std::string(e.what()) == text; };
}

/// Thesis figure 4.1, transcribed: the snake fill of the adjacency matrix (k starting at 0,
/// value at 1, as the figure's surrounding code must set them for row 0 to fill left to right),
/// then the search for `node_id` and its four neighbours.
struct figure_4_1 {
    int proc_dim1, proc_dim2;  // columns, rows
    std::vector<int> adj_matrix;

    figure_4_1(int rows, int cols) : proc_dim1(cols), proc_dim2(rows), adj_matrix(static_cast<std::size_t>(rows * cols)) {
        int k = 0, value = 1;
        for (int i = 0; i < proc_dim2; i++) {
            for (int j = 0; j < proc_dim1; j++) {
                adj_matrix[static_cast<std::size_t>(i * proc_dim1 + k)] =
                    static_cast<int>(comet::gray(static_cast<std::uint32_t>(i * proc_dim1 + j)));
                k += value;
            }
            value *= -1;
            if (value < 0)
                k = proc_dim1 - 1;
            else
                k = 0;
        }
    }

    int at(int i, int j) const { return adj_matrix[static_cast<std::size_t>(i * proc_dim1 + j)]; }

    /// node_row, node_col, top, bottom, pred, succ for `node_id`, as the figure computes them.
    void locate(int node_id, comet::mesh_position& pos, comet::mesh_neighbours& n) const {
        int i = 0, j = 0;
        bool found = false;
        for (i = 0; i < proc_dim2 && !found; i++)
            for (j = 0; j < proc_dim1; j++)
                if (at(i, j) == node_id) {
                    found = true;
                    break;
                }
        --i;  // undo the outer loop's increment past the row found
        pos = {i, j};
        n.pred = at(i, (j + proc_dim1 - 1) % proc_dim1);
        n.succ = at(i, (j + 1) % proc_dim1);
        n.top = at((i + proc_dim2 - 1) % proc_dim2, j);
        n.bottom = at((i + 1) % proc_dim2, j);
    }
};

/// Shapes with a power-of-two node count: the thesis' own for 1..1024 nodes, and hand-specified ones.
inline std::vector<std::pair<int, int>> power_of_two_shapes() {
    std::vector<std::pair<int, int>> shapes;
    for (int r = 1; r <= 64; r *= 2)
        for (int c = 1; c <= 64; c *= 2) shapes.emplace_back(r, c);
    return shapes;
}

}  // namespace topology_mesh_test

BOOST_AUTO_TEST_SUITE(mesh)

using topology_mesh_test::mesh_says;
using topology_mesh_test::mesh_says_exactly;

BOOST_AUTO_TEST_CASE(thesis_shapes) {
    struct expect {
        int nodes, rows, cols;
        comet::mesh_mapping mapping;
    };
    const auto g = comet::mesh_mapping::gray;
    const auto rm = comet::mesh_mapping::row_major;
    // Square when a perfect square; otherwise proc_dim1 (cols) = 2 * proc_dim2 (rows) = sqrt(2 * nodes).
    for (const expect& e : {expect{1, 1, 1, g}, expect{2, 1, 2, g}, expect{4, 2, 2, g}, expect{8, 2, 4, g},
                            expect{16, 4, 4, g}, expect{32, 4, 8, g}, expect{64, 8, 8, g}, expect{128, 8, 16, g},
                            expect{1024, 32, 32, g}, expect{9, 3, 3, rm}, expect{18, 3, 6, rm}, expect{36, 6, 6, rm},
                            expect{50, 5, 10, rm}, expect{72, 6, 12, rm}}) {
        const comet::processor_mesh m(e.nodes);
        BOOST_TEST(m.rows() == e.rows, e.nodes << " nodes");
        BOOST_TEST(m.cols() == e.cols, e.nodes << " nodes");
        BOOST_TEST(m.nodes() == e.nodes);
        BOOST_TEST((m.mapping() == e.mapping), e.nodes << " nodes");
    }
    // Every power of two up to 2^30 has one of the two shapes, and gets the gray mapping.
    for (int d = 0; d <= 30; ++d) {
        const comet::processor_mesh m(1 << d);
        BOOST_TEST(m.nodes() == (1 << d));
        BOOST_TEST(m.cols() == (d % 2 == 0 ? m.rows() : 2 * m.rows()));
        BOOST_TEST((m.mapping() == comet::mesh_mapping::gray));
    }
    // The largest int shapes do not overflow.
    BOOST_TEST(comet::processor_mesh(46340 * 46340).rows() == 46340);
    BOOST_TEST(comet::processor_mesh(2 * 32767 * 32767).cols() == 2 * 32767);
}

BOOST_AUTO_TEST_CASE(shape_error_paths_name_the_value) {
    BOOST_CHECK_EXCEPTION(comet::processor_mesh(6), comet::invalid_argument,
                          mesh_says_exactly("processor_mesh: 6 nodes is neither a perfect square nor twice one"));
    for (int bad : {3, 5, 6, 7, 12, 24, 48, 96})
        BOOST_CHECK_EXCEPTION(comet::processor_mesh{bad}, comet::invalid_argument,
                              mesh_says(std::to_string(bad) + " nodes is neither"));
    BOOST_CHECK_EXCEPTION(comet::processor_mesh(0), comet::invalid_argument,
                          mesh_says_exactly("processor_mesh: a mesh needs at least 1 node, not 0"));
    BOOST_CHECK_EXCEPTION(comet::processor_mesh(-16), comet::invalid_argument, mesh_says("not -16"));
    BOOST_CHECK_EXCEPTION(comet::processor_mesh(6, comet::mesh_mapping::row_major), comet::invalid_argument,
                          mesh_says("6 nodes is neither"));
    BOOST_CHECK_EXCEPTION(comet::processor_mesh(9, comet::mesh_mapping::gray), comet::invalid_argument,
                          mesh_says_exactly("processor_mesh: the gray mapping needs a power-of-two number of nodes, "
                                            "not 9 (3 x 3)"));
}

BOOST_AUTO_TEST_CASE(hand_specified_shapes) {
    const comet::processor_mesh a(3, 5, comet::mesh_mapping::row_major);
    BOOST_TEST(a.rows() == 3);
    BOOST_TEST(a.cols() == 5);
    BOOST_TEST(a.nodes() == 15);
    const comet::processor_mesh b(16, comet::mesh_mapping::row_major);
    BOOST_TEST(b.rows() == 4);
    BOOST_TEST((b.mapping() == comet::mesh_mapping::row_major));
    const comet::processor_mesh c(1, 16, comet::mesh_mapping::gray);
    BOOST_TEST(c.node_at(0, 15) == 8);  // gray(15)
    BOOST_TEST((comet::processor_mesh(16) == comet::processor_mesh(4, 4, comet::mesh_mapping::gray)));
    BOOST_TEST((comet::processor_mesh(16) != b));

    BOOST_CHECK_EXCEPTION(comet::processor_mesh(3, 4, comet::mesh_mapping::gray), comet::invalid_argument,
                          mesh_says("not 12 (3 x 4)"));
    BOOST_CHECK_EXCEPTION(comet::processor_mesh(0, 4, comet::mesh_mapping::row_major), comet::invalid_argument,
                          mesh_says_exactly("processor_mesh: a mesh needs at least 1 row, not 0"));
    BOOST_CHECK_EXCEPTION(comet::processor_mesh(4, -2, comet::mesh_mapping::row_major), comet::invalid_argument,
                          mesh_says_exactly("processor_mesh: a mesh needs at least 1 column, not -2"));
    BOOST_CHECK_EXCEPTION(comet::processor_mesh(65536, 65536, comet::mesh_mapping::row_major), comet::invalid_argument,
                          mesh_says("65536 x 65536 = 4294967296 nodes do not fit an int rank"));
    BOOST_CHECK_EXCEPTION(comet::processor_mesh(2, 2, static_cast<comet::mesh_mapping>(7)), comet::invalid_argument,
                          mesh_says_exactly("processor_mesh: unknown mapping 7"));
}

BOOST_AUTO_TEST_CASE(figure_4_1_layout_of_16_nodes_by_hand) {
    // Figure 4.1 on 16 nodes: row 0 holds gray(0..3) left to right; row 1 holds gray(4..7) =
    // 6 7 5 4 right to left (the snake), which reads 4 5 7 6; and so on.
    const int expected[4][4] = {
        {0, 1, 3, 2},
        {4, 5, 7, 6},
        {12, 13, 15, 14},
        {8, 9, 11, 10},
    };
    const comet::processor_mesh m(16);
    const topology_mesh_test::figure_4_1 fig(4, 4);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
            BOOST_TEST(m.node_at(r, c) == expected[r][c], "(" << r << ", " << c << ")");
            BOOST_TEST(fig.at(r, c) == expected[r][c], "(" << r << ", " << c << ")");
            BOOST_TEST((m.position(expected[r][c]) == comet::mesh_position{r, c}));
        }
    // Neighbours of node 7 at (1, 2), by hand from the table above.
    BOOST_TEST((m.neighbours(7) == comet::mesh_neighbours{.top = 3, .bottom = 15, .pred = 5, .succ = 6}));
    // Node 0 at (0, 0) wraps both ways: top is row 3, pred is column 3.
    BOOST_TEST((m.neighbours(0) == comet::mesh_neighbours{.top = 8, .bottom = 4, .pred = 2, .succ = 1}));
    // Node 10 at (3, 3) wraps to row 0 and column 0.
    BOOST_TEST((m.neighbours(10) == comet::mesh_neighbours{.top = 14, .bottom = 2, .pred = 11, .succ = 8}));
}

BOOST_AUTO_TEST_CASE(figure_4_1_layout_of_8_nodes_by_hand) {
    // 8 nodes: proc_dim2 = 2 rows of proc_dim1 = 4; row 1 holds gray(4..7) = 6 7 5 4 reversed.
    const int expected[2][4] = {{0, 1, 3, 2}, {4, 5, 7, 6}};
    const comet::processor_mesh m(8);
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 4; ++c) BOOST_TEST(m.node_at(r, c) == expected[r][c]);
    // Two rows: top and bottom are the same node.
    BOOST_TEST((m.neighbours(1) == comet::mesh_neighbours{.top = 5, .bottom = 5, .pred = 0, .succ = 3}));
}

BOOST_AUTO_TEST_CASE(gray_mapping_agrees_with_figure_4_1_code) {
    for (const auto& [rows, cols] : topology_mesh_test::power_of_two_shapes()) {
        const comet::processor_mesh m(rows, cols, comet::mesh_mapping::gray);
        const topology_mesh_test::figure_4_1 fig(rows, cols);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) BOOST_TEST_REQUIRE(m.node_at(r, c) == fig.at(r, c), rows << " x " << cols);
        // The figure's search and neighbour code, for every node (small meshes: the search is quadratic).
        if (rows * cols > 256) continue;
        for (int node = 0; node < rows * cols; ++node) {
            comet::mesh_position pos;
            comet::mesh_neighbours n;
            fig.locate(node, pos, n);
            BOOST_TEST((m.position(node) == pos), rows << " x " << cols << ", node " << node);
            BOOST_TEST((m.neighbours(node) == n), rows << " x " << cols << ", node " << node);
        }
    }
}

BOOST_AUTO_TEST_CASE(gray_mesh_neighbours_are_hypercube_neighbours) {
    // The point of figure 4.1: on 2..1024 nodes (the thesis' shapes), every mesh neighbour,
    // wrap-around included, is one hypercube link away.
    for (int nodes = 2; nodes <= 1024; nodes *= 2) {
        const comet::processor_mesh m(nodes);
        const comet::hypercube cube(nodes);
        BOOST_TEST_REQUIRE((m.mapping() == comet::mesh_mapping::gray));
        for (int node = 0; node < nodes; ++node) {
            const auto n = m.neighbours(node);
            for (int other : {n.top, n.bottom, n.pred, n.succ}) {
                // A side of length 1 makes the node its own neighbour (nodes = 2 is 1 x 2).
                if (other == node) continue;
                BOOST_TEST(cube.distance(node, other) == 1, nodes << " nodes: " << node << " and " << other);
            }
            if (m.cols() > 1) {
                BOOST_TEST(n.pred != node);
                BOOST_TEST(n.succ != node);
            }
        }
    }
    // Hand-specified power-of-two shapes keep the property too.
    for (const auto& [rows, cols] : topology_mesh_test::power_of_two_shapes()) {
        const comet::processor_mesh m(rows, cols, comet::mesh_mapping::gray);
        const comet::hypercube cube(rows * cols);
        for (int node = 0; node < m.nodes(); ++node) {
            const auto n = m.neighbours(node);
            for (int other : {n.top, n.bottom, n.pred, n.succ})
                if (other != node) BOOST_TEST_REQUIRE(cube.distance(node, other) == 1, rows << " x " << cols);
        }
    }
    // Row-major on the same 16 nodes does not have it: the wrap from node 3 to node 0 is 2 hops.
    const comet::processor_mesh rm(16, comet::mesh_mapping::row_major);
    BOOST_TEST(rm.neighbours(3).succ == 0);
    BOOST_TEST(comet::hypercube(16).distance(3, 0) == 2);
}

BOOST_AUTO_TEST_CASE(position_and_node_at_are_inverse) {
    std::vector<comet::processor_mesh> meshes{comet::processor_mesh(1), comet::processor_mesh(2),
                                              comet::processor_mesh(32), comet::processor_mesh(512),
                                              comet::processor_mesh(18), comet::processor_mesh(50),
                                              comet::torus(3, 7), comet::processor_mesh(8, 1, comet::mesh_mapping::gray)};
    for (const auto& m : meshes) {
        std::vector<int> seen(static_cast<std::size_t>(m.nodes()), 0);
        for (int r = 0; r < m.rows(); ++r)
            for (int c = 0; c < m.cols(); ++c) {
                const int node = m.node_at(r, c);
                BOOST_TEST_REQUIRE(node >= 0);
                BOOST_TEST_REQUIRE(node < m.nodes());
                ++seen[static_cast<std::size_t>(node)];
                BOOST_TEST((m.position(node) == comet::mesh_position{r, c}));
            }
        // Every node sits at exactly one place.
        for (int count : seen) BOOST_TEST(count == 1);
    }
}

BOOST_AUTO_TEST_CASE(neighbours_are_adjacent_with_wrap_around) {
    for (const auto& m : {comet::processor_mesh(16), comet::processor_mesh(128), comet::processor_mesh(18),
                          comet::torus(5, 3), comet::torus(2, 2)}) {
        for (int node = 0; node < m.nodes(); ++node) {
            const auto [row, col] = m.position(node);
            const auto n = m.neighbours(node);
            BOOST_TEST(n.top == m.node_at((row + m.rows() - 1) % m.rows(), col));
            BOOST_TEST(n.bottom == m.node_at((row + 1) % m.rows(), col));
            BOOST_TEST(n.pred == m.node_at(row, (col + m.cols() - 1) % m.cols()));
            BOOST_TEST(n.succ == m.node_at(row, (col + 1) % m.cols()));
            // The relation is symmetric: my top's bottom is me, my pred's succ is me.
            BOOST_TEST(m.neighbours(n.top).bottom == node);
            BOOST_TEST(m.neighbours(n.bottom).top == node);
            BOOST_TEST(m.neighbours(n.pred).succ == node);
            BOOST_TEST(m.neighbours(n.succ).pred == node);
        }
    }
}

BOOST_AUTO_TEST_CASE(row_major_and_torus_by_hand) {
    const comet::processor_mesh m(9);  // 3 x 3, row-major: 0 1 2 / 3 4 5 / 6 7 8
    BOOST_TEST((m.mapping() == comet::mesh_mapping::row_major));
    BOOST_TEST((m.neighbours(0) == comet::mesh_neighbours{.top = 6, .bottom = 3, .pred = 2, .succ = 1}));
    BOOST_TEST((m.neighbours(4) == comet::mesh_neighbours{.top = 1, .bottom = 7, .pred = 3, .succ = 5}));
    BOOST_TEST((m.neighbours(8) == comet::mesh_neighbours{.top = 5, .bottom = 2, .pred = 7, .succ = 6}));
    BOOST_TEST((m.position(5) == comet::mesh_position{1, 2}));

    const auto t = comet::torus(3, 5);
    BOOST_TEST(t.rows() == 3);
    BOOST_TEST(t.cols() == 5);
    BOOST_TEST((t.mapping() == comet::mesh_mapping::row_major));
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 5; ++c) BOOST_TEST(t.node_at(r, c) == r * 5 + c);
    BOOST_TEST((t.neighbours(10) == comet::mesh_neighbours{.top = 5, .bottom = 0, .pred = 14, .succ = 11}));
    // A torus of any power-of-two size is still row-major (NIST's N x N mesh numbers nodes so).
    BOOST_TEST((comet::torus(4, 4).mapping() == comet::mesh_mapping::row_major));
    // Degenerate sides: a 1 x 1 torus is its own neighbour everywhere; 1 x 4 has top == bottom == self.
    BOOST_TEST((comet::torus(1, 1).neighbours(0) == comet::mesh_neighbours{0, 0, 0, 0}));
    BOOST_TEST((comet::torus(1, 4).neighbours(2) == comet::mesh_neighbours{.top = 2, .bottom = 2, .pred = 1, .succ = 3}));

    BOOST_CHECK_EXCEPTION(comet::torus(0, 3), comet::invalid_argument,
                          mesh_says_exactly("torus: a mesh needs at least 1 row, not 0"));
    BOOST_CHECK_EXCEPTION(comet::torus(3, -1), comet::invalid_argument, mesh_says("torus: a mesh needs at least 1 column, not -1"));
    BOOST_CHECK_EXCEPTION(comet::torus(100000, 100000), comet::invalid_argument, mesh_says("torus: 100000 x 100000"));
}

BOOST_AUTO_TEST_CASE(node_and_position_error_paths_name_the_value) {
    const comet::processor_mesh m(16);
    BOOST_CHECK_EXCEPTION(m.node_at(4, 0), comet::invalid_argument,
                          mesh_says_exactly("processor_mesh::node_at: row 4 is outside the 4 rows [0, 4)"));
    BOOST_CHECK_EXCEPTION(m.node_at(-1, 0), comet::invalid_argument, mesh_says("row -1"));
    BOOST_CHECK_EXCEPTION(m.node_at(0, -1), comet::invalid_argument,
                          mesh_says_exactly("processor_mesh::node_at: column -1 is outside the 4 columns [0, 4)"));
    BOOST_CHECK_EXCEPTION(m.node_at(0, 4), comet::invalid_argument, mesh_says("column 4"));
    BOOST_CHECK_EXCEPTION(m.position(16), comet::invalid_argument,
                          mesh_says_exactly("processor_mesh::position: node 16 is outside the 16 nodes [0, 16)"));
    BOOST_CHECK_EXCEPTION(m.position(-1), comet::invalid_argument, mesh_says("node -1"));
    BOOST_CHECK_EXCEPTION(m.neighbours(99), comet::invalid_argument,
                          mesh_says_exactly("processor_mesh::neighbours: node 99 is outside the 16 nodes [0, 16)"));
}

BOOST_AUTO_TEST_CASE(printing) {
    std::ostringstream os;
    os << comet::mesh_position{1, 2} << ' ' << comet::mesh_neighbours{3, 15, 5, 6} << ' ' << comet::mesh_mapping::gray
       << ' ' << comet::mesh_mapping::row_major;
    BOOST_TEST(os.str() == "(1, 2) {top 3, bottom 15, pred 5, succ 6} gray row_major");
}

BOOST_AUTO_TEST_SUITE_END()
