// Tests of comet/kernels/matrix/matrix.hpp, the matrix component as a whole: every kernel passes
// its verification on every mesh shape the thesis allows up to 18 nodes, on every in-process
// transport (the threads transport, and the same behind a forwarding decorator, which is a
// different type to the kernels).
#include <comet/kernels/matrix/matrix.hpp>

#include "support.hpp"

#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace matrix_whole_test {

struct on_threads {
    template <class F>
    auto operator()(int nodes, F&& body) const {
        return comet::threads::run(nodes, [&](comet::threads::transport& t) { return body(t); });
    }
};

/// The threads transport behind `corrupting_transport` set to corrupt nothing: a forwarding
/// decorator, so the kernels run on a second transport type.
struct on_decorated_threads {
    template <class F>
    auto operator()(int nodes, F&& body) const {
        return comet::threads::run(nodes, [&](comet::threads::transport& t) {
            matrix_test::corrupting_transport<comet::threads::transport> d(t, {.rank = -1});
            return body(d);
        });
    }
};

using runners = boost::mpl::list<on_threads, on_decorated_threads>;

}  // namespace matrix_whole_test

BOOST_AUTO_TEST_SUITE(matrix_whole)

BOOST_AUTO_TEST_CASE_TEMPLATE(every_kernel_verifies_on_every_mesh, Runner, matrix_whole_test::runners) {
    for (int nodes : matrix_test::mesh_sizes) {
        // Row and column 1 where the 1 x 1 blocks of the smallest dimension have them.
        // fixed_sampling(2, 1): one untimed calibration run, and 2 samples of one operation each
        // after one untimed operation, 5 operations per point. An odd count, so that a shift or transpose that did nothing
        // (or undid itself) cannot pass for the real one on the meshes where an even number of
        // them gives the setup back.
        const comet::processor_mesh mesh(nodes);
        const comet::kernels::matrix_config cfg{.dims = {1, 2, 4},
                                                .row = mesh.rows() > 1 ? 1 : 0,
                                                .col = mesh.cols() > 1 ? 1 : 0,
                                                .sampling = comet::fixed_sampling(2, 1)};
        BOOST_TEST_CONTEXT("nodes " << nodes) {
            std::vector<comet::result_set> r;
            matrix_test::check_no_throw([&] {
                r = Runner{}(nodes, [&](auto& t) {
                    comet::result_set all = comet::kernels::update_guard(t, cfg);
                    all.append(comet::kernels::shift_matrix(t, cfg));
                    all.append(comet::kernels::transpose(t, cfg));
                    all.append(comet::kernels::row_broadcast(t, cfg));
                    all.append(comet::kernels::col_broadcast(t, cfg));
                    return all;
                });
            });
            BOOST_TEST_REQUIRE(r.size() == static_cast<std::size_t>(nodes));
            std::vector<std::string> kernels;
            for (const auto& rec : r[0].records) kernels.push_back(rec.kernel);
            std::vector<std::string> want;
            for (const char* k :
                 {"update_guard", "shift_matrix", "shift_matrix", "transpose", "row_broadcast", "col_broadcast"})
                for (int i = 0; i < 3; ++i) want.emplace_back(k);
            BOOST_TEST(kernels == want, boost::test_tools::per_element());
            for (std::size_t rank = 1; rank < r.size(); ++rank) BOOST_TEST(r[rank].empty());
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
