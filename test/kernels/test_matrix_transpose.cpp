// Tests of comet/kernels/matrix/transpose.hpp: the global transpose on square meshes, the
// square-by-square transpose on meshes twice as wide (checked exactly, guard included), twice
// giving the setup back, the error on a mesh squares cannot tile, corruption caught, the kernel.
#include <comet/kernels/matrix/transpose.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>

BOOST_AUTO_TEST_SUITE(matrix_transpose)

using namespace matrix_test;

BOOST_AUTO_TEST_CASE(transposes_on_every_mesh_and_block_size) {
    for (int nodes : mesh_sizes)
        for (int dim : {1, 2, 5}) {
            BOOST_TEST_CONTEXT("nodes " << nodes << ", dim " << dim) {
                check_no_throw([&] {
                    run(nodes, [&](transport& t) {
                        comet::kernels::distributed_matrix m(t, dim);
                        comet::kernels::transpose(t, m);
                        comet::kernels::verify_all(t, m, comet::kernels::matrix_expectation::transpose(1));
                        comet::kernels::transpose(t, m);
                        comet::kernels::verify_all(t, m, comet::kernels::matrix_expectation::setup());
                    });
                });
            }
        }
}

BOOST_AUTO_TEST_CASE(on_a_square_mesh_it_is_the_global_transpose) {
    // 3 x 3 mesh of 2 x 2 blocks: a 6 x 6 global matrix; every rank's block must hold Aᵀ.
    const auto r = run(9, [](transport& t) {
        comet::kernels::distributed_matrix m(t, 2);
        comet::kernels::transpose(t, m);
        return std::make_pair(m.position(), comet::kernels::distributed_matrix::storage(m.local()));
    });
    for (const auto& [pos, a] : r)
        for (int i = 1; i <= 2; ++i)
            for (int j = 1; j <= 2; ++j) {
                const std::int64_t gi = pos.row * 2 + i - 1, gj = pos.col * 2 + j - 1;
                BOOST_TEST(a(i, j) == comet::kernels::matrix_element_value(gj, gi));
            }
}

BOOST_AUTO_TEST_CASE(on_a_wide_mesh_each_square_half_is_transposed) {
    // 1 x 2 mesh: each node is a 1 x 1 square and transposes its own block: [A0ᵀ | A1ᵀ].
    const auto two = run(2, [](transport& t) {
        comet::kernels::distributed_matrix m(t, 3);
        comet::kernels::transpose(t, m);
        return comet::kernels::distributed_matrix::storage(m.local());
    });
    BOOST_TEST(two[1](1, 2) ==
               comet::kernels::matrix_element_value(1, 3));  // global (0, 4) <- square-local (1, 0) = global (1, 3)
    // 3 x 6 mesh of 1 x 1 blocks: global (r, c) of the right half holds A(c - 3, r + 3).
    const auto eighteen = run(18, [](transport& t) {
        comet::kernels::distributed_matrix m(t, 1);
        comet::kernels::transpose(t, m);
        return std::make_pair(m.position(), m.local()(1, 1));
    });
    for (const auto& [pos, v] : eighteen) {
        const int base = pos.col / 3 * 3;
        BOOST_TEST(v == comet::kernels::matrix_element_value(pos.col - base, base + pos.row));
    }
}

BOOST_AUTO_TEST_CASE(a_mesh_squares_cannot_tile_is_not_supported) {
    BOOST_CHECK_EXCEPTION(
        run(6,
            [](transport& t) {
                comet::kernels::distributed_matrix m(comet::processor_mesh(2, 3, comet::mesh_mapping::row_major), t.rank(), 2);
                comet::kernels::transpose(t, m);
            }),
        comet::not_supported, [](const auto& e) {
            return mentions(
                e,
                {"rank 0: transpose: a 2 x 3 mesh cannot be tiled by squares, so it has no in-place block transpose"});
        });
}

BOOST_AUTO_TEST_CASE(a_corrupted_exchange_is_caught) {
    // Rank 1 at (0, 1) of the 2 x 2 mesh exchanges with rank 2; byte 8·6 + 7 is the sign and
    // exponent byte of received cell (1, 2), which after the local transpose sits at (2, 1).
    BOOST_CHECK_EXCEPTION(
        run(4,
            [](transport& t) {
                corrupting_transport<transport> ct(t, {.rank = 1, .source = 2, .byte = 55, .mask = std::byte{0x80}});
                comet::kernels::distributed_matrix m(t, 2);
                comet::kernels::transpose(ct, m);
                comet::kernels::verify_all(ct, m, comet::kernels::matrix_expectation::transpose(1));
            }),
        comet::kernels::verification_error, [](const auto& e) {
            return mentions(e, {"rank 1: transpose x 1: verification failed at global element (1, 2) (local "
                                "cell (2, 1) of rank 1 at mesh position (0, 1)): expected 134217730 (global "
                                "element (2, 1)), found -134217730"});
        });
}

BOOST_AUTO_TEST_CASE(the_kernel_records_each_dimension) {
    for (int nodes : {2, 4}) {
        const auto r = run(nodes, [](transport& t) { return comet::kernels::transpose(t, quick); });
        const auto& recs = r[0].records;
        BOOST_TEST_REQUIRE(recs.size() == 3u);
        for (std::size_t i = 0; i < 3; ++i) {
            BOOST_TEST(recs[i].kernel == "transpose");
            BOOST_TEST((recs[i].params ==
                        comet::params{{"matrix_dim", std::int64_t{quick.dims[i]}},
                                      {"nodes", std::int64_t{nodes}},
                                      {"reduction", "max_over_ranks"},
                                      {"cache", "warm"}}));
            BOOST_TEST((recs[i].values == comet::params{{"form", "send_recv"}, {"order", "round_robin"}}));
            BOOST_TEST_REQUIRE(recs[i].samples.size() == 2u);
            for (double s : recs[i].samples) BOOST_TEST((std::isfinite(s) && s > -1e-3 && s < 1.0));
        }
    }
}

BOOST_AUTO_TEST_CASE(the_kernel_counts_the_transposes_it_verifies) {
    // fixed_sampling(S, 2) runs one untimed calibration run of 2 transposes, then S samples of
    // 2, each after one untimed transpose: S = 1 gives 5 transposes (odd), S = 2 gives 8 (even:
    // the setup again). Both verify.
    for (std::size_t samples : {1u, 2u})
        check_no_throw([&] {
            run(4, [&](transport& t) {
                comet::kernels::transpose(t, {.dims = {3}, .sampling = comet::fixed_sampling(samples, 2)});
            });
        });
    // A damaged transpose message is caught: the third (last) one rank 2 receives under
    // fixed_sampling(1, 1) (a calibration transpose, an untimed one, the sample's), since the
    // transpose after a damaged one would carry the damage to rank 2's partner.
    BOOST_CHECK_EXCEPTION(
        run(4,
            [](transport& t) {
                corrupting_transport<transport> ct(
                    t, {.rank = 2, .tag = comet::kernels::default_matrix_tag, .nth = 3, .byte = 8});
                comet::kernels::transpose(ct, {.dims = {3}, .sampling = comet::fixed_sampling(1, 1)});
            }),
        comet::kernels::verification_error, [](const auto& e) {
            return mentions(e, {"rank 2: transpose x 3: verification failed at west guard cell (1, 0) of rank 2"});
        });
}

BOOST_AUTO_TEST_SUITE_END()
