// Tests of comet/kernels/matrix/update_guard.hpp: the guard holds the neighbours' edges on every
// mesh shape and block size (checked exactly), the figure 4.3 call pattern, a single corrupted
// element in one received message is caught and reported, the kernel's records, and the errors.
#include <comet/kernels/matrix/update_guard.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace matrix_update_guard_test {

/// A transport decorator that logs the point-to-point calls of rank 0: "isend 2", "irecv 1",
/// "wait_all 8", ...
template <comet::transport Inner>
class logging_transport {
public:
    using request = typename Inner::request;
    logging_transport(Inner& t, std::vector<std::string>& log) : t_(&t), log_(&log) {}
    int rank() const { return t_->rank(); }
    int size() const { return t_->size(); }
    void send(int d, int tag, comet::const_bytes b) { note("send", d), t_->send(d, tag, b); }
    comet::status recv(int s, int tag, comet::mutable_bytes b) { return note("recv", s), t_->recv(s, tag, b); }
    request isend(int d, int tag, comet::const_bytes b) { return note("isend", d), t_->isend(d, tag, b); }
    request irecv(int s, int tag, comet::mutable_bytes b) { return note("irecv", s), t_->irecv(s, tag, b); }
    comet::status wait(request& r) { return note("wait", 1), t_->wait(r); }
    std::optional<comet::status> test(request& r) { return t_->test(r); }
    void wait_all(std::span<request> rs) { note("wait_all", static_cast<int>(rs.size())), t_->wait_all(rs); }
    std::optional<comet::status> iprobe(int s, int tag) { return t_->iprobe(s, tag); }
    void barrier() { t_->barrier(); }
    void broadcast(int root, comet::mutable_bytes b) { t_->broadcast(root, b); }
    void allreduce_sum(std::span<double> v) { t_->allreduce_sum(v); }
    double now() { return t_->now(); }
    bool clock_is_global() const { return t_->clock_is_global(); }
    void compute(const comet::work& w) { t_->compute(w); }
    [[noreturn]] void abort(std::string_view m) { t_->abort(m); }

private:
    void note(const char* what, int n) {
        if (t_->rank() == 0) log_->push_back(std::string(what) + " " + std::to_string(n));
    }
    Inner* t_;
    std::vector<std::string>* log_;
};

}  // namespace matrix_update_guard_test

BOOST_AUTO_TEST_SUITE(matrix_update_guard)

using namespace matrix_test;

BOOST_AUTO_TEST_CASE(fills_every_guard_on_every_mesh_and_block_size) {
    for (int nodes : mesh_sizes)
        for (int dim : {1, 2, 5}) {
            BOOST_TEST_CONTEXT("nodes " << nodes << ", dim " << dim) {
                check_no_throw([&] {
                    run(nodes, [&](transport& t) {
                        comet::kernels::distributed_matrix m(t, dim);
                        comet::kernels::update_guard(t, m);
                        comet::kernels::verify_all(t, m, comet::kernels::matrix_expectation::update_guard());
                        comet::kernels::update_guard(t, m);  // idempotent
                        comet::kernels::verify_all(t, m, comet::kernels::matrix_expectation::update_guard());
                    });
                });
            }
        }
}

BOOST_AUTO_TEST_CASE(the_guard_holds_the_global_neighbours) {
    // 2 x 2 mesh of 2 x 2 blocks: rank 0 holds global (0..1, 0..1); its guard wraps around.
    const auto r = run(4, [](transport& t) {
        comet::kernels::distributed_matrix m(t, 2);
        comet::kernels::update_guard(t, m);
        return comet::kernels::distributed_matrix::storage(m.local());
    });
    const auto& a = r[0];
    using comet::kernels::matrix_element_value;
    BOOST_TEST(a(0, 1) == matrix_element_value(3, 0));  // north: the last global row
    BOOST_TEST(a(0, 2) == matrix_element_value(3, 1));
    BOOST_TEST(a(3, 1) == matrix_element_value(2, 0));             // south: global row 2
    BOOST_TEST(a(1, 0) == matrix_element_value(0, 3));             // west: the last global column
    BOOST_TEST(a(2, 3) == matrix_element_value(1, 2));             // east: global column 2
    BOOST_TEST(a(0, 0) == comet::kernels::matrix_guard_value(0, 2, 0, 0));  // corners untouched
}

BOOST_AUTO_TEST_CASE(sends_overlap_assembly_then_receives_then_one_wait_as_figure_4_3) {
    std::vector<std::string> log;
    run(4, [&](transport& t) {
        matrix_update_guard_test::logging_transport<transport> lt(t, log);
        comet::kernels::distributed_matrix m(t, 3);
        comet::kernels::update_guard(lt, m);
    });
    // Rank 0 at (0, 0) of the 2 x 2 Gray mesh: top = bottom = 2, pred = succ = 1.
    BOOST_TEST(log == (std::vector<std::string>{"isend 2", "isend 2", "isend 1", "isend 1", "irecv 2", "irecv 2",
                                                "irecv 1", "irecv 1", "wait_all 8"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_corrupted_row_message_is_caught) {
    // Rank 0's south guard comes from its bottom neighbour, rank 2, in a message tagged
    // default_matrix_tag (travelling north): flip the lowest bit of its second element.
    std::vector<std::size_t> flips(4);
    BOOST_CHECK_EXCEPTION(run(4,
                              [&](transport& t) {
                                  corrupting_transport<transport> ct(
                                      t, {.rank = 0, .source = 2, .tag = comet::kernels::default_matrix_tag, .byte = 8});
                                  comet::kernels::distributed_matrix m(t, 3);
                                  comet::kernels::update_guard(ct, m);
                                  flips[static_cast<std::size_t>(t.rank())] = ct.flips;
                                  comet::kernels::verify_all(ct, m, comet::kernels::matrix_expectation::update_guard());
                              }),
                          comet::kernels::verification_error, [](const auto& e) {
                              return mentions(
                                  e, {"rank 0: update_guard: verification failed at south guard cell (4, 2) of "
                                      "rank 0 at mesh position (0, 0): expected 201326594 (global element (3, 1)), "
                                      "found 201326594.0000000",
                                      "(no setup value)"});
                          });
    BOOST_TEST(flips == (std::vector<std::size_t>{1, 0, 0, 0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_corrupted_column_message_is_caught) {
    // Rank 0's west guard comes from pred = rank 1 (tag + 2, travelling east); element 2 of it is
    // global (2, 5) at cell (3, 0).
    BOOST_CHECK_EXCEPTION(run(4,
                              [&](transport& t) {
                                  corrupting_transport<transport> ct(
                                      t, {.rank = 0, .source = 1, .tag = comet::kernels::default_matrix_tag + 2, .byte = 16});
                                  comet::kernels::distributed_matrix m(t, 3);
                                  comet::kernels::update_guard(ct, m);
                                  comet::kernels::verify_all(ct, m, comet::kernels::matrix_expectation::update_guard());
                              }),
                          comet::kernels::verification_error, [](const auto& e) {
                              return mentions(e, {"rank 0: update_guard:", "west guard cell (3, 0) of rank 0",
                                                  "expected 134217734 (global element (2, 5))"});
                          });
}

BOOST_AUTO_TEST_CASE(the_kernel_records_each_dimension_on_the_test_node) {
    auto cfg = quick;
    cfg.test_node = 3;
    const auto r = run(4, [&](transport& t) { return comet::kernels::update_guard(t, cfg); });
    for (int rank : {0, 1, 2}) BOOST_TEST(r[static_cast<std::size_t>(rank)].empty());
    const auto& recs = r[3].records;
    BOOST_TEST_REQUIRE(recs.size() == 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        BOOST_TEST(recs[i].kernel == "update_guard");
        BOOST_TEST(
            (recs[i].params == comet::params{{"matrix_dim", std::int64_t{quick.dims[i]}},
                                             {"nodes", std::int64_t{4}},
                                             {"reduction", "max_over_ranks"},
                                             {"cache", "warm"}}));
        BOOST_TEST((recs[i].values == comet::params{{"order", "round_robin"}}));
        BOOST_TEST_REQUIRE(recs[i].samples.size() == 2u);
        for (double s : recs[i].samples) BOOST_TEST((std::isfinite(s) && s > -1e-3 && s < 1.0));
    }
}

BOOST_AUTO_TEST_CASE(the_kernel_throws_when_a_received_element_is_wrong) {
    // fixed_sampling(1, 1): one untimed calibration update, one untimed update (the caches
    // warm) and one sample of one, so rank 3 receives three messages with the south tag (its
    // top neighbour's last row). Each update rewrites the guard, so the damage must be in the
    // third, the last before the check.
    const comet::kernels::matrix_config once{.dims = {3}, .sampling = comet::fixed_sampling(1, 1)};
    BOOST_CHECK_EXCEPTION(
        run(4,
            [&](transport& t) {
                corrupting_transport<transport> ct(t, {.rank = 3, .tag = comet::kernels::default_matrix_tag + 1, .nth = 3});
                return comet::kernels::update_guard(ct, once);
            }),
        comet::kernels::verification_error, [](const auto& e) {
            return mentions(e, {"rank 3: update_guard: verification failed at north guard cell (0, 1) of rank 3"});
        });
}

BOOST_AUTO_TEST_CASE(errors_name_the_rank_and_the_value) {
    BOOST_CHECK_EXCEPTION(
        run(2,
            [](transport& t) {
                comet::kernels::distributed_matrix m(comet::processor_mesh(4), t.rank(), 2);
                comet::kernels::update_guard(t, m);
            }),
        comet::invalid_argument, [](const auto& e) {
            return mentions(e,
                            {"rank 0: update_guard: the matrix is decomposed over 4 nodes (2 x 2), the group has 2"});
        });
    BOOST_CHECK_EXCEPTION(run(2,
                              [](transport& t) {
                                  comet::kernels::distributed_matrix m(comet::processor_mesh(2), 1 - t.rank(), 2);
                                  comet::kernels::update_guard(t, m);
                              }),
                          comet::invalid_argument, [](const auto& e) {
                              return mentions(e,
                                              {"rank 0: update_guard: the matrix is rank 1's part, not this rank's"});
                          });
    BOOST_CHECK_EXCEPTION(
        run(1,
            [](transport& t) {
                comet::kernels::distributed_matrix m(t, 2);
                comet::kernels::update_guard(t, m, comet::max_tag - 2);
            }),
        comet::invalid_argument, [](const auto& e) {
            return mentions(e, {"rank 0: update_guard: tag 32765 is outside 0..32764 (it uses 4 tags from there)"});
        });
    BOOST_CHECK_EXCEPTION(
        run(3, [](transport& t) { comet::kernels::update_guard(t, quick); }), comet::invalid_argument, [](const auto& e) {
            return mentions(
                e, {"rank 0: update_guard: processor_mesh: 3 nodes is neither a perfect square nor twice one"});
        });
}

BOOST_AUTO_TEST_SUITE_END()
