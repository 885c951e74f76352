// Tests of comet/kernels/nist/ring.hpp: the NIST ring finishes and verifies on the threads
// transport (2 to 8 ranks) and on the simulated iPSC/860 (4, 16, 64 nodes) with exact counts,
// follows the Gray-code ring on a cube, spends most of its time computing in the CP setting and
// little in the CM one, refuses bad configurations, and catches a corrupted message. The runs on
// the simulator are built where it is (COMET_TEST_HAS_NX2: Boost.Context found); its machine
// presets, which need no fibers, everywhere.
#include <comet/kernels/nist/ring.hpp>
#include <comet/transport/adaptor.hpp>
#include <comet/transport/nx2/machine.hpp>
#if COMET_TEST_HAS_NX2
#include <comet/transport/nx2.hpp>
#endif

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace nist_ring_test {

namespace nist = comet::kernels::nist;

/// A small ring: 3 messages of 16 items, 2 flops each (grain 32).
inline const nist::ring_config small{.messages = 3, .message_bytes = nist::ring_header_bytes + 4 * 16 + 8, .work_per_datum = 2,
                                     .items_per_message = 16};

/// The counts every rank of a P-rank ring must report (see `ring`'s documentation).
inline void check_counts(const std::vector<nist::application_result>& results, const nist::ring_config& cfg) {
    const auto p = static_cast<std::uint64_t>(results.size());
    for (std::size_t r = 0; r < results.size(); ++r) {
        const auto& x = results[r];
        BOOST_TEST_CONTEXT("rank " << r << " of " << p) {
            BOOST_TEST(x.application == "ring");
            BOOST_TEST(x.rank == static_cast<int>(r));
            BOOST_TEST(x.nodes == static_cast<int>(p));
            BOOST_TEST(x.messages_sent == cfg.messages * p);
            BOOST_TEST(x.messages_received == cfg.messages * p);
            BOOST_TEST(x.control_sent == cfg.messages * p);
            BOOST_TEST(x.control_received == cfg.messages * p);
            BOOST_TEST(x.data_items == cfg.messages * p * cfg.items_per_message);
            BOOST_TEST(x.work == cfg.messages * p * cfg.items_per_message * cfg.work_per_datum);
            BOOST_TEST(x.bookkeeping == cfg.messages * p * cfg.items_per_message * cfg.bookkeeping_per_datum);
            BOOST_TEST(x.communication_points == cfg.messages * p);
            BOOST_TEST(x.grain == static_cast<double>(cfg.items_per_message * cfg.work_per_datum));
            BOOST_TEST(x.verified_messages == cfg.messages);
            BOOST_TEST(x.message_bytes == cfg.message_bytes);
            BOOST_TEST(x.elapsed > 0.0);
        }
    }
}

/// Records the destinations of the ring's messages (data and acknowledgements).
template <comet::transport Inner>
struct recording : comet::transport_adaptor<Inner> {
    using comet::transport_adaptor<Inner>::transport_adaptor;
    std::set<int> destinations;
    typename Inner::request isend(int dest, int tag, comet::const_bytes b) {
        if (tag == nist::ring_tag) destinations.insert(dest);
        return this->inner().isend(dest, tag, b);
    }
};

/// The share of `r.elapsed` its computation takes on the simulated iPSC/860's CPU model.
inline double compute_share(const nist::application_result& r, const comet::nx2::machine& m) {
    return comet::nx2::to_seconds(comet::nx2::compute_time(m, comet::work::flops(r.work + r.bookkeeping))) / r.elapsed;
}


}  // namespace nist_ring_test

BOOST_AUTO_TEST_SUITE(nist_ring)

using namespace nist_ring_test;

BOOST_AUTO_TEST_CASE(the_settings_have_the_grain_of_table_one) {
    const auto cm = nist::ring_setting(nist::setting::cm);
    const auto cp = nist::ring_setting(nist::setting::cp);
    BOOST_TEST(cm.items_per_message * cm.work_per_datum == 128u);
    BOOST_TEST(cp.items_per_message * cp.work_per_datum == 12800u);
    // The same message in both: the computation per datum sets the grain.
    BOOST_TEST(cm.message_bytes == cp.message_bytes);
    BOOST_TEST(cm.messages == 140u);
    BOOST_TEST(cp.messages == 20u);
    // What a datum cost: tables A1 and A2's U_1 over messages x 16 nodes x 128 items.
    const double op = comet::nx2::to_seconds(comet::nx2::ipsc1().dependent_flop_time);
    BOOST_TEST(cm.work_per_datum + cm.bookkeeping_per_datum == nist::operations_per_datum(3.05, 140 * 16 * 128, op));
    BOOST_TEST(cp.work_per_datum + cp.bookkeeping_per_datum == nist::operations_per_datum(24.68, 20 * 16 * 128, op));
}

BOOST_AUTO_TEST_CASE(finishes_with_exact_counts_on_threads_from_2_to_8_ranks) {
    for (int p = 2; p <= 8; ++p)
        BOOST_TEST_CONTEXT(p << " ranks") {
            check_counts(transfer_test::run(p, [](transfer_test::transport& t) { return nist::ring(t, small); }), small);
        }
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(finishes_with_exact_counts_on_the_simulator_at_4_16_64_nodes) {
    for (int d : {2, 4, 6})
        BOOST_TEST_CONTEXT(d << "-cube") {
            const auto body = [](comet::nx2::transport& t) { return nist::ring(t, small); };
            const auto first = comet::nx2::run(comet::nx2::ipsc860(d), body);
            check_counts(first, small);
            // Deterministic: the same virtual times again, to the bit.
            const auto again = comet::nx2::run(comet::nx2::ipsc860(d), body);
            for (std::size_t r = 0; r < first.size(); ++r) BOOST_TEST(first[r].elapsed == again[r].elapsed);
        }
}

BOOST_AUTO_TEST_CASE(a_cube_runs_the_gray_code_ring_and_other_sizes_rank_order) {
    // On 16 nodes every message and acknowledgement crosses one hypercube link.
    const comet::hypercube cube(16);
    const auto dests = comet::nx2::run(comet::nx2::ipsc860(4), [](comet::nx2::transport& t) {
        recording<comet::nx2::transport> r(t);
        nist::ring(r, small);
        return r.destinations;
    });
    for (int r = 0; r < 16; ++r) {
        BOOST_TEST(dests[r].size() == 2u);  // successor (data) and predecessor (acknowledgements)
        for (int d : dests[r]) BOOST_TEST(cube.distance(r, d) == 1, "rank " << r << " sends to " << d);
    }
    // On 6 ranks: rank order, r - 1 and r + 1 around.
    const auto six = comet::nx2::run(comet::nx2::ipsc860(3), [](comet::nx2::transport& t) {
        recording<comet::nx2::transport> r(t);
        nist::ring(r, small);
        return r.destinations;
    }, {.ranks = 6});
    for (int r = 0; r < 6; ++r) BOOST_TEST((six[r] == std::set<int>{(r + 5) % 6, (r + 1) % 6}));
}

BOOST_AUTO_TEST_CASE(cp_spends_most_of_its_time_computing_and_cm_little) {
    const auto m = comet::nx2::ipsc860(4);
    auto cm = nist::ring_setting(nist::setting::cm);
    auto cp = nist::ring_setting(nist::setting::cp);
    cm.messages = cp.messages = 2;  // few messages keep the test fast; the grain is the setting's
    const auto run = [&](const nist::ring_config& c) {
        return comet::nx2::run(m, [&](comet::nx2::transport& t) { return nist::ring(t, c); });
    };
    const auto a = run(cm);
    const auto b = run(cp);
    check_counts(a, cm);
    check_counts(b, cp);
    BOOST_TEST(a[0].grain == 128.0);
    BOOST_TEST(b[0].grain == 12800.0);
    for (std::size_t r = 0; r < a.size(); ++r) {
        BOOST_TEST(compute_share(a[r], m) < 0.25);
        BOOST_TEST(compute_share(b[r], m) > 0.5);
        // 100 times the computation, the same communication: the CP run takes several times as long.
        BOOST_TEST(b[r].elapsed > 3.0 * a[r].elapsed);
    }
}
#endif

BOOST_AUTO_TEST_CASE(bad_configurations_are_refused_naming_the_field_the_value_and_the_rank) {
    const auto refused = [](int p, nist::ring_config c, std::initializer_list<const char*> words) {
        BOOST_CHECK_EXCEPTION(transfer_test::run(p, [&](transfer_test::transport& t) { nist::ring(t, c); }), comet::invalid_argument,
                              [&](const auto& e) { return comet_test::mentions(e, words); });
    };
    refused(1, small, {"rank 0: ", "ring: the group has 1 rank", "at least 2"});
    auto c = small;
    c.messages = 0;
    refused(2, c, {"ring: messages = 0"});
    c = small;
    c.items_per_message = 0;
    refused(2, c, {"ring: items_per_message = 0"});
    c = small;
    c.message_bytes = 50;
    refused(3, c, {"ring: message_bytes = 50", "needs 104"});
    c = small;
    c.tag = -1;
    refused(2, c, {"ring: tag -1"});
    c = small;
    c.bookkeeping_per_datum = std::uint64_t{1} << 32;
    refused(2, c, {"ring: work_per_datum + bookkeeping_per_datum = 2 + 4294967296 x items_per_message = 16 overflows"});
    // Ranks that disagree are refused before anything is sent, not left waiting.
    BOOST_CHECK_EXCEPTION(transfer_test::run(3, [&](transfer_test::transport& t) {
                              auto mine = small;
                              if (t.rank() == 2) mine.messages = 4;
                              nist::ring(t, mine);
                          }),
                          comet::invalid_argument, [](const auto& e) {
                              return comet_test::mentions(e, {"ring: the ranks disagree on messages", "from 3 to 4"});
                          });
}

BOOST_AUTO_TEST_CASE(a_corrupted_message_raises_a_verification_error) {
    // 4 ranks: the Gray ring 0 -> 1 -> 3 -> 2 -> 0, so rank 1 receives data only from rank 0.
    const auto corrupt = [](std::size_t byte) {
        return [byte](transfer_test::transport& t) {
            matrix_test::corrupting_transport c(t, {.rank = 1, .source = 0, .tag = nist::ring_tag, .nth = 2, .byte = byte});
            nist::ring(c, small);
        };
    };
    // A data item: the originator finds it changed when the message comes back.
    BOOST_CHECK_EXCEPTION(transfer_test::run(4, corrupt(nist::ring_header_bytes + 5)), comet::verification_error,
                          [](const auto& e) { return comet_test::mentions(e, {"ring: ", "came back with its data changed"}); });
    // The count of nodes that processed it: rank 1 notices at once.
    BOOST_CHECK_EXCEPTION(transfer_test::run(4, corrupt(16)), comet::verification_error, [](const auto& e) {
        return comet_test::mentions(e, {"rank 1: ring: message ", "should have processed it"});
    });
}

BOOST_AUTO_TEST_SUITE_END()
