// Tests of comet/kernels/matrix/kernel.hpp: the defaults, what a sample is (the largest of the
// ranks' times per operation, shown with a clock that only advances when a rank sends), the
// on_point hook, the point count, and every bad input.
#include <comet/kernels/matrix/kernel.hpp>
#include <comet/kernels/matrix/transpose.hpp>
#include <comet/kernels/matrix/update_guard.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace matrix_kernel_test {

/// A transport decorator with a clock of its own that advances (rank + 1) µs per isend and
/// never otherwise: an update_guard (4 isends) then costs rank r exactly 4·(r + 1) µs, and the
/// repeat loop's empty loop nothing.
template <comet::transport Inner>
class stepping_clock_transport {
public:
    using request = typename Inner::request;
    explicit stepping_clock_transport(Inner& t) : t_(&t) {}
    int rank() const { return t_->rank(); }
    int size() const { return t_->size(); }
    void send(int d, int tag, comet::const_bytes b) { t_->send(d, tag, b); }
    comet::status recv(int s, int tag, comet::mutable_bytes b) { return t_->recv(s, tag, b); }
    request isend(int d, int tag, comet::const_bytes b) {
        ticks_ += static_cast<std::uint64_t>(t_->rank() + 1);
        return t_->isend(d, tag, b);
    }
    request irecv(int s, int tag, comet::mutable_bytes b) { return t_->irecv(s, tag, b); }
    comet::status wait(request& r) { return t_->wait(r); }
    std::optional<comet::status> test(request& r) { return t_->test(r); }
    void wait_all(std::span<request> rs) { t_->wait_all(rs); }
    std::optional<comet::status> iprobe(int s, int tag) { return t_->iprobe(s, tag); }
    void barrier() { t_->barrier(); }
    void broadcast(int root, comet::mutable_bytes b) { t_->broadcast(root, b); }
    void allreduce_sum(std::span<double> v) { t_->allreduce_sum(v); }
    double now() { return static_cast<double>(ticks_) * 1e-6; }
    bool clock_is_global() const { return false; }
    void compute(const comet::work& w) { t_->compute(w); }
    [[noreturn]] void abort(std::string_view m) { t_->abort(m); }

private:
    Inner* t_;
    std::uint64_t ticks_ = 1000000;
};

}  // namespace matrix_kernel_test

BOOST_AUTO_TEST_SUITE(matrix_kernel)

using namespace matrix_test;

BOOST_AUTO_TEST_CASE(defaults_follow_the_thesis) {
    const comet::kernels::matrix_config cfg;
    // The sampling engine's defaults: calibrated iterations, at least 15 samples.
    BOOST_TEST(cfg.sampling.iterations == 0u);
    BOOST_TEST(cfg.sampling.min_samples == 15u);
    BOOST_TEST(cfg.tag == comet::kernels::default_matrix_tag);
    BOOST_TEST(cfg.row == 0);
    BOOST_TEST(cfg.col == 0);
    BOOST_TEST(cfg.dims == comet::kernels::default_matrix_dims(), boost::test_tools::per_element());
    BOOST_TEST(cfg.directions.size() == 2u);
    BOOST_TEST(comet::kernels::default_matrix_dims().front() >= 1);
}

BOOST_AUTO_TEST_CASE(a_sample_is_the_largest_of_the_ranks_times) {
    const comet::kernels::matrix_config cfg{.dims = {2, 3}, .test_node = 2, .sampling = comet::fixed_sampling(3, 5)};
    const auto r = run(4, [&](transport& t) {
        matrix_kernel_test::stepping_clock_transport<transport> st(t);
        return comet::kernels::update_guard(st, cfg);
    });
    BOOST_TEST(r[0].empty());
    BOOST_TEST_REQUIRE(r[2].size() == 2u);
    for (const auto& rec : r[2].records) {
        BOOST_TEST_REQUIRE(rec.samples.size() == 3u);
        for (double s : rec.samples) BOOST_TEST(s == 16e-6, boost::test_tools::tolerance(1e-9));  // rank 3: 4 x 4 µs
    }
}

BOOST_AUTO_TEST_CASE(on_point_runs_on_the_test_node_after_each_point) {
    std::vector<std::vector<std::int64_t>> seen(4);
    auto cfg = quick;
    cfg.test_node = 1;
    run(4, [&](transport& t) {
        auto c = cfg;
        c.on_point = [&seen, &t](const comet::record& rec) {
            seen[static_cast<std::size_t>(t.rank())].push_back(*rec.params.integer("matrix_dim"));
        };
        comet::kernels::transpose(t, c);
    });
    BOOST_TEST(seen[0].empty());
    BOOST_TEST(seen[1] == (std::vector<std::int64_t>{1, 2, 5}), boost::test_tools::per_element());
    BOOST_TEST(seen[2].empty());
}

BOOST_AUTO_TEST_CASE(point_counts_for_progress) {
    BOOST_TEST(comet::kernels::matrix_kernel_points("update_guard", quick) == 3u);
    BOOST_TEST(comet::kernels::matrix_kernel_points("shift_matrix", quick) == 6u);
    BOOST_TEST(comet::kernels::matrix_kernel_points("transpose", quick) == 3u);
    BOOST_TEST(comet::kernels::matrix_kernel_points("row_broadcast", quick) == 3u);
    BOOST_TEST(comet::kernels::matrix_kernel_points("col_broadcast", quick) == 3u);
    BOOST_TEST(comet::kernels::matrix_kernel_points("echo", quick) == 0u);
}

BOOST_AUTO_TEST_CASE(no_dimensions_no_records) {
    const auto r = run(2, [](transport& t) { return comet::kernels::update_guard(t, {.dims = {}}); });
    BOOST_TEST(r[0].empty());
}

BOOST_AUTO_TEST_CASE(bad_configs_name_the_value_and_rank) {
    const auto fails_with = [](int nodes, comet::kernels::matrix_config cfg, const char* words) {
        BOOST_CHECK_EXCEPTION(run(nodes, [&](transport& t) { comet::kernels::update_guard(t, cfg); }), comet::invalid_argument,
                              [&](const auto& e) { return mentions(e, {words}); });
    };
    auto c = quick;
    c.test_node = 4;
    fails_with(4, c, "rank 0: update_guard: test node 4 is outside 0..3");
    c = quick;
    c.sampling = {.max_samples = 2};  // below the default min_samples of 15
    fails_with(4, c, "rank 0: update_guard: sampling.max_samples = 2 is below min_samples = 15");
    c = quick;
    c.sampling.min_samples = 0;
    fails_with(2, c, "rank 0: update_guard: sampling.min_samples must be at least 1, got 0");
    c = quick;
    c.sampling.budget_seconds = std::numeric_limits<double>::infinity();
    fails_with(2, c, "rank 0: update_guard: sampling.budget_seconds = inf is not >= 0 seconds");
    c = quick;
    c.tag = comet::max_tag - 1;
    fails_with(2, c, "rank 0: update_guard: tag 32766 is outside 0..32764 (it uses 4 tags from there)");
    c.tag = -1;
    fails_with(2, c, "tag -1 is outside");
    c = quick;
    c.dims = {2, 16382};
    fails_with(2, c, "rank 0: update_guard: matrix dimension 16382 is outside 1..16381");
    fails_with(5, quick, "rank 0: update_guard: processor_mesh: 5 nodes is neither a perfect square nor twice one");
}

BOOST_AUTO_TEST_SUITE_END()
