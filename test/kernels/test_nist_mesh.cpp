// Tests of comet/kernels/nist/mesh.hpp: the NIST mesh finishes and verifies on the threads
// transport (2 x 2 and 3 x 3) and on the simulated iPSC/860 (4, 16, 64 nodes) with exact counts,
// talks only to hypercube neighbours on a cube, computes most of the time in the CP setting and
// less than half in the CM one, refuses groups that are not squares and other bad configurations, and
// catches a corrupted message. The runs on the simulator are built where it is
// (COMET_TEST_HAS_NX2: Boost.Context found); its machine presets, which need no fibers, everywhere.
#include <comet/kernels/nist/mesh.hpp>
#include <comet/transport/adaptor.hpp>
#include <comet/transport/nx2/machine.hpp>
#if COMET_TEST_HAS_NX2
#include <comet/transport/nx2.hpp>
#endif

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <set>
#include <vector>

namespace nist_mesh_test {

namespace nist = comet::kernels::nist;

/// A short mesh: 6 steps of 50 items, 2 flops each (grain 100), 72-byte messages.
inline const nist::mesh_config small{.steps = 6, .message_bytes = 72, .work_per_datum = 2, .items_per_step = 50};

inline void check_counts(const std::vector<nist::application_result>& rs, const nist::mesh_config& c) {
    for (std::size_t r = 0; r < rs.size(); ++r) {
        const auto& x = rs[r];
        BOOST_TEST_CONTEXT("rank " << r << " of " << rs.size()) {
            BOOST_TEST(x.application == "mesh");
            BOOST_TEST(x.rank == static_cast<int>(r));
            BOOST_TEST(x.messages_sent == 4 * c.steps);
            BOOST_TEST(x.messages_received == 4 * c.steps);
            BOOST_TEST(x.verified_messages == 4 * c.steps);
            BOOST_TEST(x.control_sent == 0u);
            BOOST_TEST(x.data_items == c.steps * c.items_per_step);
            BOOST_TEST(x.work == c.steps * c.items_per_step * c.work_per_datum);
            BOOST_TEST(x.bookkeeping == c.steps * c.items_per_step * c.bookkeeping_per_datum);
            BOOST_TEST(x.communication_points == c.steps);
            BOOST_TEST(x.grain == static_cast<double>(c.items_per_step * c.work_per_datum));
            BOOST_TEST(x.elapsed > 0.0);
        }
    }
}

/// Records the destinations of the mesh's messages.
template <comet::transport Inner>
struct recording : comet::transport_adaptor<Inner> {
    using comet::transport_adaptor<Inner>::transport_adaptor;
    std::set<int> destinations;
    typename Inner::request isend(int dest, int tag, comet::const_bytes b) {
        if (tag >= nist::mesh_tag && tag < nist::mesh_tag + 4) destinations.insert(dest);
        return this->inner().isend(dest, tag, b);
    }
};

}  // namespace nist_mesh_test

BOOST_AUTO_TEST_SUITE(nist_mesh)

using namespace nist_mesh_test;

BOOST_AUTO_TEST_CASE(the_settings_have_the_grain_of_table_one) {
    const auto cm = nist::mesh_setting(nist::setting::cm);
    const auto cp = nist::mesh_setting(nist::setting::cp);
    BOOST_TEST(cm.items_per_step * cm.work_per_datum == 640u);
    BOOST_TEST(cp.items_per_step * cp.work_per_datum == 102400u);
    // 16 nodes x 4 neighbours x steps: the seed's 25,600 and 3,200 user messages.
    BOOST_TEST(16 * 4 * cm.steps == 25600u);
    BOOST_TEST(16 * 4 * cp.steps == 3200u);
    // What a datum cost: tables A3 and A4's U_1 over steps x 640 items.
    const double op = comet::nx2::to_seconds(comet::nx2::ipsc1().dependent_flop_time);
    BOOST_TEST(cm.work_per_datum + cm.bookkeeping_per_datum == nist::operations_per_datum(4.16, 400 * 640, op));
    BOOST_TEST(cp.work_per_datum + cp.bookkeeping_per_datum == nist::operations_per_datum(21.91, 50 * 640, op));
}

BOOST_AUTO_TEST_CASE(finishes_with_exact_counts_on_threads_on_2x2_and_3x3) {
    for (int p : {4, 9})
        BOOST_TEST_CONTEXT(p << " ranks") {
            check_counts(transfer_test::run(p, [](transfer_test::transport& t) { return nist::mesh(t, small); }), small);
        }
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(finishes_with_exact_counts_on_the_simulator_at_4_16_64_nodes) {
    for (int d : {2, 4, 6})
        BOOST_TEST_CONTEXT(d << "-cube") {
            const auto body = [](comet::nx2::transport& t) { return nist::mesh(t, small); };
            const auto first = comet::nx2::run(comet::nx2::ipsc860(d), body);
            check_counts(first, small);
            const auto again = comet::nx2::run(comet::nx2::ipsc860(d), body);
            for (std::size_t r = 0; r < first.size(); ++r) BOOST_TEST(first[r].elapsed == again[r].elapsed);
        }
}

BOOST_AUTO_TEST_CASE(on_a_cube_every_neighbour_is_one_link_away) {
    for (int d : {4, 6})
        BOOST_TEST_CONTEXT(d << "-cube") {
            const comet::hypercube cube(1 << d);
            const auto dests = comet::nx2::run(comet::nx2::ipsc860(d), [](comet::nx2::transport& t) {
                recording<comet::nx2::transport> r(t);
                nist::mesh(r, small);
                return r.destinations;
            });
            for (int r = 0; r < cube.nodes(); ++r) {
                BOOST_TEST(dests[r].size() == 4u);
                for (int n : dests[r]) BOOST_TEST(cube.distance(r, n) == 1, "rank " << r << " sends to " << n);
            }
        }
}

BOOST_AUTO_TEST_CASE(cp_spends_most_of_its_time_computing_and_cm_little) {
    const auto m = comet::nx2::ipsc860(4);
    auto cm = nist::mesh_setting(nist::setting::cm);
    auto cp = nist::mesh_setting(nist::setting::cp);
    cm.steps = cp.steps = 5;  // few steps keep the test fast; the grain is the setting's
    const auto a = comet::nx2::run(m, [&](comet::nx2::transport& t) { return nist::mesh(t, cm); });
    const auto b = comet::nx2::run(m, [&](comet::nx2::transport& t) { return nist::mesh(t, cp); });
    check_counts(a, cm);
    check_counts(b, cp);
    const auto share = [&](const nist::application_result& x) {
        return comet::nx2::to_seconds(comet::nx2::compute_time(m, comet::work::flops(x.work + x.bookkeeping))) / x.elapsed;
    };
    for (std::size_t r = 0; r < a.size(); ++r) {
        // Table I: CM-Mesh 22% user computation, CP-Mesh 94.7%.
        BOOST_TEST(share(a[r]) < 0.5, "CM-Mesh rank " << r << " computes " << share(a[r]) << " of its time");
        BOOST_TEST(share(b[r]) > 0.5, "CP-Mesh rank " << r << " computes " << share(b[r]) << " of its time");
    }
}
#endif

BOOST_AUTO_TEST_CASE(groups_that_are_not_squares_and_bad_configurations_are_refused) {
    const auto refused = [](int p, nist::mesh_config c, std::initializer_list<const char*> words) {
        BOOST_CHECK_EXCEPTION(transfer_test::run(p, [&](transfer_test::transport& t) { nist::mesh(t, c); }), comet::invalid_argument,
                              [&](const auto& e) { return comet_test::mentions(e, words); });
    };
    refused(1, small, {"rank 0: ", "mesh: the group has 1 rank;", "square"});
    refused(2, small, {"mesh: the group has 2 ranks", "at least 4"});
    refused(8, small, {"mesh: the group has 8 ranks", "square"});
    auto c = small;
    c.steps = 0;
    refused(4, c, {"mesh: steps = 0"});
    c = small;
    c.message_bytes = 16;
    refused(4, c, {"mesh: message_bytes = 16", "32-byte header"});
    c = small;
    c.tag = comet::max_tag - 1;
    refused(4, c, {"mesh: tag 32766 is outside 0..32764"});
    c = small;
    c.work_per_datum = std::uint64_t{1} << 32;
    refused(4, c, {"mesh: work_per_datum + bookkeeping_per_datum = 4294967296 + ", "x items_per_step = 50 overflows"});
    c = small;
    c.items_per_step = UINT64_MAX / 2;
    refused(4, c, {"mesh: work_per_datum + bookkeeping_per_datum = 2 + ", "x items_per_step = 9223372036854775807 overflows"});
    BOOST_CHECK_EXCEPTION(transfer_test::run(4, [&](transfer_test::transport& t) {
                              auto mine = small;
                              if (t.rank() == 3) mine.items_per_step = 51;
                              nist::mesh(t, mine);
                          }),
                          comet::invalid_argument,
                          [](const auto& e) { return comet_test::mentions(e, {"mesh: the ranks disagree on items_per_step"}); });
}

BOOST_AUTO_TEST_CASE(a_corrupted_message_raises_a_verification_error_naming_the_step_and_the_neighbour) {
    // Rank 0 of a 3 x 3 torus receives the message travelling north from rank 3 (its bottom).
    const auto corrupt = [](std::size_t byte) {
        return [byte](transfer_test::transport& t) {
            matrix_test::corrupting_transport c(t, {.rank = 0, .source = 3, .tag = nist::mesh_tag, .nth = 3, .byte = byte});
            nist::mesh(c, small);
        };
    };
    const auto caught = [](std::initializer_list<const char*> words) {
        return [words](const comet::verification_error& e) { return comet_test::mentions(e, words); };
    };
    BOOST_CHECK_EXCEPTION(transfer_test::run(9, corrupt(40)), comet::verification_error,
                          caught({"rank 0: mesh: step 2: the data from rank 3", "differs"}));
    BOOST_CHECK_EXCEPTION(transfer_test::run(9, corrupt(24)), comet::verification_error,
                          caught({"rank 0: mesh: step 2: rank 3's value is"}));
    BOOST_CHECK_EXCEPTION(transfer_test::run(9, corrupt(8)), comet::verification_error,
                          caught({"rank 0: mesh: step 2: the message travelling north from rank 3 names rank 3, step 3"}));
}

BOOST_AUTO_TEST_SUITE_END()
