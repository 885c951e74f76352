// Tests of comet/kernels/matrix/verify.hpp: the expected value of every kind of result, computed
// by hand here; exact detection of one changed bit, a misplaced element, a guard cell and a NaN;
// the one-line reports; and the collective check that makes every rank throw the same report.
#include <comet/kernels/matrix/verify.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <string>

namespace matrix_verify_test {

using comet::kernels::matrix_element_value;
using comet::kernels::matrix_expectation;
using comet::kernels::matrix_guard_value;

inline auto says_exactly(std::string text) {
    return [text](const comet::kernels::verification_error& e) {
        if (e.what() == text) return true;
        BOOST_TEST_MESSAGE("got: " << e.what());
        return false;
    };
}

}  // namespace matrix_verify_test

BOOST_AUTO_TEST_SUITE(matrix_verify)

using namespace matrix_test;
using namespace matrix_verify_test;

BOOST_AUTO_TEST_CASE(a_fresh_matrix_passes) {
    for (int nodes : mesh_sizes)
        for (int rank = 0; rank < nodes; ++rank) {
            const comet::kernels::distributed_matrix m(comet::processor_mesh(nodes), rank, 2);
            BOOST_TEST(!comet::kernels::find_mismatch(m, matrix_expectation::setup()));
            BOOST_CHECK_NO_THROW(comet::kernels::verify(m, matrix_expectation::setup()));
        }
}

BOOST_AUTO_TEST_CASE(a_misplaced_element_is_reported_with_both_values_decoded) {
    // 2 x 2 mesh, rank 1 at (0, 1) holds global rows 0..1, columns 2..3.
    comet::kernels::distributed_matrix m(comet::processor_mesh(4), 1, 2);
    m.local()(2, 1) = matrix_element_value(1, 3);
    const auto x = comet::kernels::find_mismatch(m, matrix_expectation::setup());
    BOOST_TEST_REQUIRE(x.has_value());
    BOOST_TEST(x->rank == 1);
    BOOST_TEST(x->local_row == 2);
    BOOST_TEST(x->local_col == 1);
    BOOST_TEST(x->expected == matrix_element_value(1, 2));
    BOOST_TEST(x->found == matrix_element_value(1, 3));
    BOOST_CHECK_EXCEPTION(comet::kernels::verify(m, matrix_expectation::setup()), comet::kernels::verification_error,
                          says_exactly("rank 1: setup: verification failed at global element (1, 2) (local cell (2, 1) "
                                       "of rank 1 at mesh position (0, 1)): expected 67108867 (global element (1, 2)), "
                                       "found 67108868 (global element (1, 3))"));
}

BOOST_AUTO_TEST_CASE(one_changed_bit_is_caught_and_shown) {
    comet::kernels::distributed_matrix m(comet::processor_mesh(4), 1, 2);
    m.local()(2, 1) = std::nextafter(m.local()(2, 1), std::numeric_limits<double>::infinity());
    BOOST_CHECK_EXCEPTION(comet::kernels::verify(m, matrix_expectation::setup()), comet::kernels::verification_error, [](const auto& e) {
        return mentions(e, {"global element (1, 2)",
                            "expected 67108867 (global element (1, 2)), found 67108867.00000001 (no setup value)"});
    });
}

BOOST_AUTO_TEST_CASE(guard_cells_are_checked_and_named) {
    comet::kernels::distributed_matrix m(comet::processor_mesh(4), 1, 2);
    m.local()(0, 2) = 0.0;
    BOOST_CHECK_EXCEPTION(comet::kernels::verify(m, matrix_expectation::setup()), comet::kernels::verification_error, [](const auto& e) {
        return mentions(
            e, {"rank 1: setup: verification failed at north guard cell (0, 2) of rank 1 at mesh position (0, 1)",
                "expected -19 (guard cell (0, 2) of rank 1), found 0 (no setup value)"});
    });
    m.setup();
    m.local()(3, 3) = std::nan("");
    BOOST_CHECK_EXCEPTION(comet::kernels::verify(m, matrix_expectation::setup()), comet::kernels::verification_error, [](const auto& e) {
        return mentions(e, {"corner guard cell (3, 3)", "found nan (no setup value)"});
    });
    m.setup();
    m.local()(2, 3) = -0.0;
    BOOST_CHECK_EXCEPTION(comet::kernels::verify(m, matrix_expectation::setup()), comet::kernels::verification_error,
                          [](const auto& e) { return mentions(e, {"east guard cell (2, 3)"}); });
}

BOOST_AUTO_TEST_CASE(the_first_wrong_cell_row_by_row_is_reported) {
    comet::kernels::distributed_matrix m(comet::processor_mesh(1), 0, 3);
    m.local()(3, 1) += 1;
    m.local()(1, 2) += 1;
    const auto x = comet::kernels::find_mismatch(m, matrix_expectation::setup());
    BOOST_TEST_REQUIRE(x.has_value());
    BOOST_TEST(x->local_row == 1);
    BOOST_TEST(x->local_col == 2);
}

BOOST_AUTO_TEST_CASE(expected_values_after_update_guard) {
    // 2 x 2 mesh of 2 x 2 blocks (a 4 x 4 global matrix); rank 0 at (0, 0): its guard wraps around.
    const comet::kernels::distributed_matrix m(comet::processor_mesh(4), 0, 2);
    const auto e = matrix_expectation::update_guard();
    BOOST_TEST(comet::kernels::expected_value(m, e, 0, 1) == matrix_element_value(3, 0));  // north: global row -1 = 3
    BOOST_TEST(comet::kernels::expected_value(m, e, 0, 2) == matrix_element_value(3, 1));
    BOOST_TEST(comet::kernels::expected_value(m, e, 3, 1) == matrix_element_value(2, 0));      // south: global row 2
    BOOST_TEST(comet::kernels::expected_value(m, e, 1, 0) == matrix_element_value(0, 3));      // west: global column -1 = 3
    BOOST_TEST(comet::kernels::expected_value(m, e, 2, 3) == matrix_element_value(1, 2));      // east: global column 2
    BOOST_TEST(comet::kernels::expected_value(m, e, 0, 0) == matrix_guard_value(0, 2, 0, 0));  // corners stay
    BOOST_TEST(comet::kernels::expected_value(m, e, 3, 3) == matrix_guard_value(0, 2, 3, 3));
    BOOST_TEST(comet::kernels::expected_value(m, e, 1, 1) == matrix_element_value(0, 0));  // the block stays
}

BOOST_AUTO_TEST_CASE(expected_values_after_shifts) {
    // 2 x 2 mesh: rank 0 at (0, 0); north brings the block of (1, 0) = rank 2, twice brings its own back.
    const comet::kernels::distributed_matrix m(comet::processor_mesh(4), 0, 2);
    BOOST_TEST(comet::kernels::expected_value(m, matrix_expectation::shift(comet::kernels::shift_direction::north, 1), 1, 1) ==
               matrix_element_value(2, 0));
    BOOST_TEST(comet::kernels::expected_value(m, matrix_expectation::shift(comet::kernels::shift_direction::north, 1), 0, 0) ==
               matrix_guard_value(2, 2, 0, 0));
    BOOST_TEST(comet::kernels::expected_value(m, matrix_expectation::shift(comet::kernels::shift_direction::north, 2), 1, 1) ==
               matrix_element_value(0, 0));
    // 2 x 4 Gray mesh (row 0: 0 1 3 2): east brings rank 0 the block of (0, 3) = rank 2, global columns 6..7.
    const comet::kernels::distributed_matrix w(comet::processor_mesh(8), 0, 2);
    BOOST_TEST(comet::kernels::expected_value(w, matrix_expectation::shift(comet::kernels::shift_direction::east, 1), 1, 1) ==
               matrix_element_value(0, 6));
    BOOST_TEST(comet::kernels::expected_value(w, matrix_expectation::shift(comet::kernels::shift_direction::east, 3), 2, 2) ==
               matrix_element_value(1, 3));
    BOOST_TEST(comet::kernels::expected_value(w, matrix_expectation::shift(comet::kernels::shift_direction::east, 4), 1, 1) ==
               matrix_element_value(0, 0));
}

BOOST_AUTO_TEST_CASE(expected_values_after_transposes) {
    // 2 x 2 mesh, rank 1 at (0, 1) holds global (0..1, 2..3); transposed it holds A(2..3, 0..1)ᵀ
    // from rank 2, guard and all.
    const comet::kernels::distributed_matrix m(comet::processor_mesh(4), 1, 2);
    const auto once = matrix_expectation::transpose(1);
    BOOST_TEST(comet::kernels::expected_value(m, once, 1, 2) == matrix_element_value(3, 0));  // global (0, 3) <- A(3, 0)
    BOOST_TEST(comet::kernels::expected_value(m, once, 2, 1) == matrix_element_value(2, 1));  // global (1, 2) <- A(2, 1)
    BOOST_TEST(comet::kernels::expected_value(m, once, 0, 1) == matrix_guard_value(2, 2, 1, 0));
    BOOST_TEST(comet::kernels::expected_value(m, matrix_expectation::transpose(2), 1, 2) == matrix_element_value(0, 3));
    // 2 x 4 mesh: the right square {3 2 / 7 6} is transposed on its own: rank 2 at (0, 3)
    // pairs with rank 7 at (1, 2) and holds, at global (0, 6), A(2, 4) — element (0, 2) of the right
    // square's transpose.
    const comet::kernels::distributed_matrix w(comet::processor_mesh(8), 2, 2);
    BOOST_TEST(comet::kernels::expected_value(w, once, 1, 1) == matrix_element_value(2, 4));
}

BOOST_AUTO_TEST_CASE(expected_values_after_broadcasts) {
    // 2 x 2 mesh of 2 x 2 blocks. Row 3 lives in mesh row 1, local row 2.
    const comet::kernels::distributed_matrix m(comet::processor_mesh(4), 1, 2);  // at (0, 1): a receiver
    const auto row = matrix_expectation::row_broadcast(3);
    BOOST_TEST(comet::kernels::expected_value(m, row, 2, 1) == matrix_element_value(3, 2));
    BOOST_TEST(comet::kernels::expected_value(m, row, 2, 2) == matrix_element_value(3, 3));
    BOOST_TEST(comet::kernels::expected_value(m, row, 1, 1) == matrix_element_value(0, 2));
    BOOST_TEST(comet::kernels::expected_value(m, row, 2, 0) == matrix_guard_value(1, 2, 2, 0));  // the guard is not broadcast
    const comet::kernels::distributed_matrix holder(comet::processor_mesh(4), 2, 2);             // at (1, 0)
    BOOST_TEST(comet::kernels::expected_value(holder, row, 2, 1) == matrix_element_value(3, 0));
    // Column 1 lives in mesh column 0, local column 2; rank 1 receives it.
    const auto col = matrix_expectation::col_broadcast(1);
    BOOST_TEST(comet::kernels::expected_value(m, col, 1, 2) == matrix_element_value(0, 1));
    BOOST_TEST(comet::kernels::expected_value(m, col, 2, 2) == matrix_element_value(1, 1));
    BOOST_TEST(comet::kernels::expected_value(m, col, 2, 1) == matrix_element_value(1, 2));
}

BOOST_AUTO_TEST_CASE(bad_expectations_name_the_value) {
    const comet::kernels::distributed_matrix m(comet::processor_mesh(4), 1, 2);
    BOOST_CHECK_EXCEPTION(
        comet::kernels::expected_value(m, matrix_expectation::row_broadcast(4), 1, 1), comet::invalid_argument,
        [](const auto& e) { return mentions(e, {"rank 1: expected_value: row 4 is outside the 4 global rows"}); });
    BOOST_CHECK_EXCEPTION(comet::kernels::expected_value(m, matrix_expectation::col_broadcast(-1), 1, 1),
                          comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"column -1 is outside the 4 global columns"}); });
    BOOST_CHECK_EXCEPTION(comet::kernels::expected_value(m, matrix_expectation::transpose(-1), 1, 1), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"transpose count -1 is negative"}); });
    BOOST_CHECK_EXCEPTION(comet::kernels::expected_value(m, matrix_expectation::setup(), 4, 0), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"cell (4, 0) is outside the 4 x 4 local matrix"}); });
}

BOOST_AUTO_TEST_CASE(expectation_names) {
    BOOST_TEST(matrix_expectation::setup().name() == "setup");
    BOOST_TEST(matrix_expectation::shift(comet::kernels::shift_direction::east, 3).name() == "shift_matrix(east) x 3");
    BOOST_TEST(matrix_expectation::transpose(1).name() == "transpose x 1");
    BOOST_TEST(matrix_expectation::row_broadcast(5).name() == "row_broadcast(row 5)");
    BOOST_TEST(matrix_expectation::col_broadcast(0).name() == "col_broadcast(col 0)");
}

BOOST_AUTO_TEST_CASE(verify_all_makes_every_rank_report_the_failing_one) {
    // Rank 2 damages one element; every rank throws the same report, naming rank 2.
    const std::string report =
        "rank 2: setup: verification failed at global element (2, 1) (local cell (1, 2) of rank 2 at mesh "
        "position (1, 0)): expected 134217730 (global element (2, 1)), found 7 (no setup value)";
    std::vector<std::string> messages(4);
    BOOST_CHECK_EXCEPTION(run(4,
                              [&](transport& t) {
                                  comet::kernels::distributed_matrix m(t, 2);
                                  if (t.rank() == 2) m.local()(1, 2) = 7.0;
                                  try {
                                      comet::kernels::verify_all(t, m, matrix_expectation::setup());
                                  } catch (const comet::kernels::verification_error& e) {
                                      messages[static_cast<std::size_t>(t.rank())] = e.what();
                                      throw;
                                  }
                              }),
                          comet::kernels::verification_error, says_exactly(report));
    // Every rank that got out of the check threw the same report; a rank still leaving the
    // allreduce when the first one threw was stopped instead (the threads transport's rule).
    std::size_t reported = 0;
    for (const auto& s : messages)
        if (!s.empty()) {
            ++reported;
            BOOST_TEST(s == report);
        }
    BOOST_TEST(reported >= 1u);
    BOOST_CHECK_EXCEPTION(
        run(4,
            [](transport& t) {
                comet::kernels::distributed_matrix m(t, 2);
                if (t.rank() >= 1) m.local()(0, 0) = 1.5;
                comet::kernels::verify_all(t, m, matrix_expectation::setup());
            }),
        comet::kernels::verification_error, [](const auto& e) {
            return mentions(e, {"rank 1: setup:", "corner guard cell (0, 0)", "(2 more ranks failed too)"});
        });
    check_no_throw([&] {
        run(9, [](transport& t) {
            comet::kernels::distributed_matrix m(t, 3);
            comet::kernels::verify_all(t, m, matrix_expectation::setup());
        });
    });
}

BOOST_AUTO_TEST_SUITE_END()
