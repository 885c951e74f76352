// Tests of comet/kernels/matrix/shift.hpp: north and east shifts, repeated, on every mesh shape and
// block size (checked exactly, guard included), a full turn giving the setup back, corruption
// caught, the kernel's records, and the errors.
#include <comet/kernels/matrix/shift.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>

BOOST_AUTO_TEST_SUITE(matrix_shift)

using namespace matrix_test;
using comet::kernels::shift_direction;

BOOST_AUTO_TEST_CASE(shifts_move_whole_local_matrices_on_every_mesh) {
    for (int nodes : mesh_sizes)
        for (int dim : {1, 2, 5})
            for (shift_direction d : {shift_direction::north, shift_direction::east}) {
                BOOST_TEST_CONTEXT("nodes " << nodes << ", dim " << dim << ", " << d) {
                    check_no_throw([&] {
                        run(nodes, [&](transport& t) {
                            comet::kernels::distributed_matrix m(t, dim);
                            for (int k = 1; k <= 3; ++k) {
                                comet::kernels::shift_matrix(t, m, d);
                                comet::kernels::verify_all(t, m, comet::kernels::matrix_expectation::shift(d, k));
                            }
                        });
                    });
                }
            }
}

BOOST_AUTO_TEST_CASE(a_full_turn_gives_the_setup_back) {
    run(8, [](transport& t) {  // 2 x 4: two shifts north, four east
        comet::kernels::distributed_matrix m(t, 3);
        for (int k = 0; k < 2; ++k) comet::kernels::shift_matrix(t, m, shift_direction::north);
        comet::kernels::verify_all(t, m, comet::kernels::matrix_expectation::setup());
        for (int k = 0; k < 4; ++k) comet::kernels::shift_matrix(t, m, shift_direction::east);
        comet::kernels::verify_all(t, m, comet::kernels::matrix_expectation::setup());
    });
}

BOOST_AUTO_TEST_CASE(north_brings_the_block_from_below) {
    const auto r = run(4, [](transport& t) {
        comet::kernels::distributed_matrix m(t, 2);
        comet::kernels::shift_matrix(t, m, shift_direction::north);
        return comet::kernels::distributed_matrix::storage(m.local());
    });
    // Rank 0 at (0, 0) now holds rank 2's block (global rows 2..3) and rank 2's guard.
    BOOST_TEST(r[0](1, 1) == comet::kernels::matrix_element_value(2, 0));
    BOOST_TEST(r[0](2, 2) == comet::kernels::matrix_element_value(3, 1));
    BOOST_TEST(r[0](0, 0) == comet::kernels::matrix_guard_value(2, 2, 0, 0));
}

BOOST_AUTO_TEST_CASE(a_corrupted_shift_is_caught) {
    // Rank 1 at (0, 1) of the 2 x 2 mesh receives from pred = rank 0 when shifting east; byte 40
    // is the sixth double of the 4 x 4 local matrix, cell (1, 1): global element (0, 0) after the shift.
    BOOST_CHECK_EXCEPTION(run(4,
                              [](transport& t) {
                                  corrupting_transport<transport> ct(t, {.rank = 1, .source = 0, .byte = 40});
                                  comet::kernels::distributed_matrix m(t, 2);
                                  comet::kernels::shift_matrix(ct, m, shift_direction::east);
                                  comet::kernels::verify_all(ct, m, comet::kernels::matrix_expectation::shift(shift_direction::east));
                              }),
                          comet::kernels::verification_error, [](const auto& e) {
                              return mentions(
                                  e, {"rank 1: shift_matrix(east) x 1: verification failed at global element (0, 2) "
                                      "(local cell (1, 1) of rank 1 at mesh position (0, 1)): expected 1 (global "
                                      "element (0, 0)), found 1.0000000000000002 (no setup value)"});
                          });
}

BOOST_AUTO_TEST_CASE(the_kernel_records_each_direction_and_dimension) {
    const auto r = run(8, [](transport& t) { return comet::kernels::shift_matrix(t, quick); });
    const auto& recs = r[0].records;
    BOOST_TEST_REQUIRE(recs.size() == 6u);
    BOOST_TEST(comet::kernels::matrix_kernel_points("shift_matrix", quick) == 6u);
    std::size_t i = 0;
    for (const char* dir : {"north", "east"})
        for (int dim : quick.dims) {
            const auto& rec = recs[i++];
            BOOST_TEST(rec.kernel == "shift_matrix");
            BOOST_TEST(
                (rec.params ==
                 comet::params{{"matrix_dim", std::int64_t{dim}},
                               {"nodes", std::int64_t{8}},
                               {"direction", dir},
                               {"reduction", "max_over_ranks"},
                               {"cache", "warm"}}));
            BOOST_TEST((rec.values == comet::params{{"form", "send_recv"}, {"order", "round_robin"}}));
            BOOST_TEST_REQUIRE(rec.samples.size() == 2u);
            for (double s : rec.samples) BOOST_TEST((std::isfinite(s) && s > -1e-3 && s < 1.0));
        }
    for (std::size_t rank = 1; rank < 8; ++rank) BOOST_TEST(r[rank].empty());
    // One direction only.
    auto east = quick;
    east.directions = {shift_direction::east};
    east.dims = {4};
    const auto e = run(2, [&](transport& t) { return comet::kernels::shift_matrix(t, east); });
    BOOST_TEST_REQUIRE(e[0].size() == 1u);
    BOOST_TEST(*e[0].records[0].params.text("direction") == "east");
}

BOOST_AUTO_TEST_CASE(the_kernel_verifies_after_an_odd_number_of_shifts) {
    // fixed_sampling(2, 3): one untimed calibration run of 3 shifts, then 2 samples of 3, each
    // after one untimed shift, so 3 + 2 x (1 + 3) = 11 shifts north on a 2-row mesh leave every
    // block one row up: the kernel's
    // expectation must count them all, and a corrupted message among them (the 4th shift
    // message rank 2 receives; a shift moves whole blocks, so the damage travels on to the
    // end) must be caught.
    check_no_throw([&] {
        run(4, [](transport& t) {
            comet::kernels::shift_matrix(
                t, {.dims = {2}, .directions = {shift_direction::north}, .sampling = comet::fixed_sampling(2, 3)});
        });
    });
    BOOST_CHECK_EXCEPTION(
        run(4,
            [](transport& t) {
                corrupting_transport<transport> ct(
                    t, {.rank = 2, .tag = comet::kernels::default_matrix_tag, .nth = 4, .byte = 3, .mask = std::byte{0x40}});
                comet::kernels::shift_matrix(
                    ct,
                    {.dims = {2}, .directions = {shift_direction::north}, .sampling = comet::fixed_sampling(2, 3)});
            }),
        comet::kernels::verification_error,
        [](const auto& e) { return mentions(e, {"shift_matrix(north) x 11: verification failed"}); });
}

BOOST_AUTO_TEST_CASE(errors_name_the_rank_and_the_value) {
    BOOST_CHECK_EXCEPTION(run(2,
                              [](transport& t) {
                                  comet::kernels::distributed_matrix m(t, 2);
                                  comet::kernels::shift_matrix(t, m, static_cast<shift_direction>(7));
                              }),
                          comet::invalid_argument, [](const auto& e) {
                              return mentions(e, {"rank 0: shift_matrix: unknown direction 7 (north or east)"});
                          });
    BOOST_CHECK_EXCEPTION(run(2,
                              [](transport& t) {
                                  comet::kernels::shift_matrix(t,
                                                      {.dims = {2}, .directions = {static_cast<shift_direction>(2)}});
                              }),
                          comet::invalid_argument, [](const auto& e) { return mentions(e, {"unknown direction 2"}); });
    BOOST_CHECK_EXCEPTION(run(2,
                              [](transport& t) {
                                  comet::kernels::shift_matrix(t, {.dims = {2, 0}});
                              }),
                          comet::invalid_argument, [](const auto& e) {
                              return mentions(e, {"rank 0: shift_matrix: matrix dimension 0 is outside 1..16381"});
                          });
}

BOOST_AUTO_TEST_SUITE_END()
