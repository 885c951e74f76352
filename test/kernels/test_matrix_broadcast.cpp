// Tests of comet/kernels/matrix/broadcast.hpp: every global row and column broadcast on every mesh
// shape and block size (checked exactly), a corrupted column caught, the kernels' records, and
// the errors.
#include <comet/kernels/matrix/broadcast.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>

BOOST_AUTO_TEST_SUITE(matrix_broadcast)

using namespace matrix_test;

BOOST_AUTO_TEST_CASE(every_row_and_column_on_every_mesh) {
    for (int nodes : mesh_sizes)
        for (int dim : {1, 3}) {
            BOOST_TEST_CONTEXT("nodes " << nodes << ", dim " << dim) {
                check_no_throw([&] {
                    run(nodes, [&](transport& t) {
                        comet::kernels::distributed_matrix m(t, dim);
                        for (std::int64_t row = 0; row < m.global_rows(); ++row) {
                            m.setup();
                            comet::kernels::row_broadcast(t, m, row);
                            comet::kernels::verify_all(t, m, comet::kernels::matrix_expectation::row_broadcast(row));
                        }
                        for (std::int64_t col = 0; col < m.global_cols(); ++col) {
                            m.setup();
                            comet::kernels::col_broadcast(t, m, col);
                            comet::kernels::col_broadcast(t, m, col);  // again: the same result
                            comet::kernels::verify_all(t, m, comet::kernels::matrix_expectation::col_broadcast(col));
                        }
                    });
                });
            }
        }
}

BOOST_AUTO_TEST_CASE(receivers_store_the_row_in_the_same_local_row) {
    const auto r = run(4, [](transport& t) {
        comet::kernels::distributed_matrix m(t, 2);
        comet::kernels::row_broadcast(t, m, 3);  // held by mesh row 1 (ranks 2, 3) in local row 2
        return comet::kernels::distributed_matrix::storage(m.local());
    });
    BOOST_TEST(r[0](2, 1) == comet::kernels::matrix_element_value(3, 0));
    BOOST_TEST(r[0](2, 2) == comet::kernels::matrix_element_value(3, 1));
    BOOST_TEST(r[1](2, 1) == comet::kernels::matrix_element_value(3, 2));
    BOOST_TEST(r[0](1, 1) == comet::kernels::matrix_element_value(0, 0));
    BOOST_TEST(r[2](2, 1) == comet::kernels::matrix_element_value(3, 0));
}

BOOST_AUTO_TEST_CASE(a_corrupted_column_is_caught) {
    // Column 4 of the 6 x 6 matrix lives in mesh column 1, local column 2; rank 0 gets it from
    // rank 1 (tag + 2) and its element 1 lands at cell (2, 2): global (1, 1).
    BOOST_CHECK_EXCEPTION(
        run(4,
            [](transport& t) {
                corrupting_transport<transport> ct(
                    t, {.rank = 0, .source = 1, .tag = comet::kernels::default_matrix_tag + 2, .byte = 8});
                comet::kernels::distributed_matrix m(t, 3);
                comet::kernels::col_broadcast(ct, m, 4);
                comet::kernels::verify_all(ct, m, comet::kernels::matrix_expectation::col_broadcast(4));
            }),
        comet::kernels::verification_error, [](const auto& e) {
            return mentions(e, {"rank 0: col_broadcast(col 4): verification failed at global element (1, 1) (local "
                                "cell (2, 2) of rank 0 at mesh position (0, 0)): expected 67108869 (global element "
                                "(1, 4)), found 67108869.0000000"});
        });
}

BOOST_AUTO_TEST_CASE(the_kernels_record_row_and_column) {
    auto cfg = quick;
    cfg.row = 1;
    cfg.col = 0;
    const auto r = run(8, [&](transport& t) {
        comet::result_set out = comet::kernels::row_broadcast(t, cfg);
        out.append(comet::kernels::col_broadcast(t, cfg));
        return out;
    });
    const auto& recs = r[0].records;
    BOOST_TEST_REQUIRE(recs.size() == 6u);
    for (std::size_t i = 0; i < 6; ++i) {
        const bool row = i < 3;
        BOOST_TEST(recs[i].kernel == (row ? "row_broadcast" : "col_broadcast"));
        const comet::params want{{"matrix_dim", std::int64_t{quick.dims[i % 3]}},
                                 {"nodes", std::int64_t{8}},
                                 {row ? "row" : "col", std::int64_t{row ? 1 : 0}},
                                 {"reduction", "max_over_ranks"},  // the slowest rank's time
                                 {"cache", "warm"}};
        BOOST_TEST((recs[i].params == want));
        BOOST_TEST((recs[i].values == comet::params{{"order", "round_robin"}}));
        BOOST_TEST_REQUIRE(recs[i].samples.size() == 2u);
        for (double s : recs[i].samples) BOOST_TEST((std::isfinite(s) && s > -1e-3 && s < 1.0));
        BOOST_TEST(recs[i].iterations == 3u);
        BOOST_TEST(recs[i].stop == "fixed");
    }
    // One node holds everything: nothing to send, still a record per dimension.
    const auto one = run(1, [](transport& t) { return comet::kernels::row_broadcast(t, quick); });
    BOOST_TEST(one[0].size() == 3u);
}

BOOST_AUTO_TEST_CASE(the_kernels_catch_corruption) {
    // fixed_sampling(1, 1): one untimed calibration run of one broadcast, then one untimed
    // broadcast (the caches warm) and one sample of one, so three row broadcasts, each sending
    // rank 0 one row message. Each overwrites the one before, so the damage must be in the
    // third (the last before the verification).
    const comet::kernels::matrix_config once{.dims = {2}, .row = 2, .sampling = comet::fixed_sampling(1, 1)};
    BOOST_CHECK_EXCEPTION(
        run(4,
            [&](transport& t) {
                corrupting_transport<transport> ct(
                    t, {.rank = 0, .tag = comet::kernels::default_matrix_tag, .nth = 3, .byte = 15, .mask = std::byte{0x10}});
                comet::kernels::row_broadcast(ct, once);
            }),
        comet::kernels::verification_error, [](const auto& e) {
            return mentions(e, {"rank 0: row_broadcast(row 2): verification failed at global element (0, 1)"});
        });
}

BOOST_AUTO_TEST_CASE(errors_name_the_rank_and_the_value) {
    BOOST_CHECK_EXCEPTION(
        run(4,
            [](transport& t) {
                comet::kernels::distributed_matrix m(t, 2);
                comet::kernels::row_broadcast(t, m, 4);
            }),
        comet::invalid_argument, [](const auto& e) {
            return mentions(
                e, {"rank 0: row_broadcast: row 4 is outside the 4 global rows of a 2 x 2 mesh of 2 x 2 blocks"});
        });
    BOOST_CHECK_EXCEPTION(
        run(4,
            [](transport& t) {
                comet::kernels::distributed_matrix m(t, 2);
                comet::kernels::col_broadcast(t, m, -1);
            }),
        comet::invalid_argument, [](const auto& e) {
            return mentions(e, {"rank 0: col_broadcast: column -1 is outside the 4 global columns of a 2 x 2 mesh"});
        });
    BOOST_CHECK_EXCEPTION(
        run(4,
            [](transport& t) {
                comet::kernels::row_broadcast(t, {.dims = {4, 1}, .row = 5});
            }),
        comet::invalid_argument, [](const auto& e) {
            return mentions(
                e, {"rank 0: row_broadcast: row 5 is outside the 2 global rows at matrix dimension 1 (2 x 2 mesh)"});
        });
    BOOST_CHECK_EXCEPTION(
        run(4, [](transport& t) { comet::kernels::col_broadcast(t, {.dims = {2}, .col = 9}); }), comet::invalid_argument,
        [](const auto& e) {
            return mentions(
                e,
                {"rank 0: col_broadcast: column 9 is outside the 4 global columns at matrix dimension 2 (2 x 2 mesh)"});
        });
}

BOOST_AUTO_TEST_SUITE_END()
