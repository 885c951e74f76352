// Tests of comet/kernels/nist/rc.hpp: the NIST random communication application finishes,
// detects its termination and verifies on the threads transport (2 to 8 ranks, also under heavy
// traffic) and on the simulated iPSC/860 (4, 16, 64 nodes); its counts add up exactly; the
// seed's settings give the grain of table I and CP-RC idles for work, as the seed's did;
// bad configurations are refused; a corrupted message is caught. The runs on the simulator are
// built where it is (COMET_TEST_HAS_NX2: Boost.Context found); its machine presets, which need no
// fibers, everywhere.
#include <comet/kernels/nist/rc.hpp>
#include <comet/transport/nx2/machine.hpp>
#if COMET_TEST_HAS_NX2
#include <comet/transport/nx2.hpp>
#endif

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace nist_rc_test {

namespace nist = comet::kernels::nist;

/// A small pool: 2,000 items per node, a special value every 50 on average, each dispatching
/// any share of the pool (the seed's "determines how much to dispatch").
inline const nist::rc_config small{.initial_items = 2000, .dispatch_frequency = 50, .work_per_datum = 3, .window = 2,
                                   .check_interval = 100, .seed = 7};
/// The same with chunks of 16 items.
inline const nist::rc_config chunked{.initial_items = 2000, .dispatch_share = 0, .items_per_chunk = 16, .dispatch_frequency = 50,
                                     .work_per_datum = 3, .window = 2, .check_interval = 100, .seed = 7};

/// The special values among the items created on `p` nodes: each asks for exactly one dispatch,
/// wherever it ends up processed.
inline std::uint64_t specials_created(const nist::rc_config& c, int p) {
    std::uint64_t n = 0;
    for (int r = 0; r < p; ++r)
        for (std::uint64_t i = 0; i < c.initial_items; ++i) n += nist::detail::rc_item(c.seed, r, i) % c.dispatch_frequency == 0;
    return n;
}

/// What every run must satisfy (see `rc`'s documentation).
inline void check_counts(const std::vector<nist::application_result>& rs, const nist::rc_config& c) {
    const int p = static_cast<int>(rs.size());
    std::uint64_t sent = 0, received = 0, items = 0, work = 0, specials = 0, control_sent = 0, control_received = 0;
    for (std::size_t r = 0; r < rs.size(); ++r) {
        const auto& x = rs[r];
        BOOST_TEST_CONTEXT("rank " << r << " of " << p) {
            BOOST_TEST(x.application == "rc");
            BOOST_TEST(x.rank == static_cast<int>(r));
            BOOST_TEST(x.messages_sent == x.special_values - x.dispatches_skipped);
            BOOST_TEST(x.communication_points == x.messages_sent);
            BOOST_TEST(x.verified_messages == x.messages_received);
            BOOST_TEST(x.work == x.data_items * c.work_per_datum);
            BOOST_TEST(x.bookkeeping == x.data_items * c.bookkeeping_per_datum);
            BOOST_TEST(x.grain == rs[0].grain);  // the run's average, the same everywhere
            BOOST_TEST(x.elapsed > 0.0);
            if (r != 0) BOOST_TEST(x.termination_rounds == 0u);
        }
        sent += x.messages_sent;
        received += x.messages_received;
        items += x.data_items;
        work += x.work;
        specials += x.special_values;
        control_sent += x.control_sent;
        control_received += x.control_received;
    }
    BOOST_TEST(items == c.initial_items * static_cast<std::uint64_t>(p));
    BOOST_TEST(sent == received);
    BOOST_TEST(specials == specials_created(c, p));
    BOOST_TEST(rs[0].grain == static_cast<double>(work) / static_cast<double>(std::max<std::uint64_t>(1, sent)));
    // Control: an acknowledgement per work message, P token messages per round, P - 1 stops.
    const std::uint64_t rounds = rs[0].termination_rounds;
    BOOST_TEST(rounds >= 1u);
    BOOST_TEST(control_sent == sent + rounds * static_cast<std::uint64_t>(p) + static_cast<std::uint64_t>(p - 1));
    BOOST_TEST(control_received == control_sent);
}

}  // namespace nist_rc_test

BOOST_AUTO_TEST_SUITE(nist_rc)

using namespace nist_rc_test;

BOOST_AUTO_TEST_CASE(the_settings_aim_at_the_grain_of_table_one) {
    const auto cm = nist::rc_setting(nist::setting::cm);
    const auto cp = nist::rc_setting(nist::setting::cp);
    BOOST_TEST(cm.dispatch_frequency * cm.work_per_datum == 383u);
    BOOST_TEST(cp.dispatch_frequency * cp.work_per_datum == 17430u);
    BOOST_TEST(cm.initial_items == cp.initial_items);
    // What a datum cost: tables A5 and A6's U_1 over the 320,000 items a node processes on average.
    const double op = comet::nx2::to_seconds(comet::nx2::ipsc1().dependent_flop_time);
    BOOST_TEST(cm.work_per_datum + cm.bookkeeping_per_datum == nist::operations_per_datum(21.65, 320000, op));
    BOOST_TEST(cp.work_per_datum + cp.bookkeeping_per_datum == nist::operations_per_datum(16.11, 320000, op));
}

BOOST_AUTO_TEST_CASE(finishes_and_adds_up_on_threads_from_2_to_8_ranks) {
    for (int p = 2; p <= 8; ++p)
        BOOST_TEST_CONTEXT(p << " ranks") {
            check_counts(transfer_test::run(p, [](transfer_test::transport& t) { return nist::rc(t, small); }), small);
        }
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(a_dispatch_yields_a_share_of_the_pool_or_a_chunk) {
    // Work travels as ranges, so a message carries any amount of it in its fixed length; with a
    // share, a dispatch moves far more than a chunk of 16 items does.
    const auto dispatched = [](const nist::rc_config& c) {
        const auto rs = comet::nx2::run(comet::nx2::ipsc860(2), [&](comet::nx2::transport& t) { return nist::rc(t, c); });
        check_counts(rs, c);
        std::uint64_t items = 0, sent = 0;
        for (const auto& x : rs) items += x.items_dispatched, sent += x.messages_sent;
        BOOST_TEST(sent > 0u);
        return static_cast<double>(items) / static_cast<double>(sent);
    };
    const double per_chunk = dispatched(chunked), per_share = dispatched(small);
    BOOST_TEST(per_chunk <= 16.0);
    BOOST_TEST(per_chunk > 8.0);
    BOOST_TEST(per_share > 100.0, "items a dispatch: " << per_share);
}
#endif

BOOST_AUTO_TEST_CASE(terminates_correctly_under_heavy_traffic) {
    // Every value special, one-item chunks, a window of 1: work bounces between the nodes all
    // the time, and the termination token keeps meeting busy nodes.
    const nist::rc_config busy{.initial_items = 300, .dispatch_share = 0, .items_per_chunk = 1, .dispatch_frequency = 1, .window = 1,
                               .check_interval = 1, .seed = 3};
    for (int p : {2, 5})
        BOOST_TEST_CONTEXT(p << " ranks") {
            const auto rs = transfer_test::run(p, [&](transfer_test::transport& t) { return nist::rc(t, busy); });
            check_counts(rs, busy);
            std::uint64_t sent = 0;
            for (const auto& x : rs) sent += x.messages_sent;
            BOOST_TEST(sent > 0u);
        }
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(finishes_and_adds_up_on_the_simulator_at_4_16_64_nodes) {
    for (int d : {2, 4, 6})
        BOOST_TEST_CONTEXT(d << "-cube") {
            const auto body = [](comet::nx2::transport& t) { return nist::rc(t, small); };
            const auto first = comet::nx2::run(comet::nx2::ipsc860(d), body);
            check_counts(first, small);
            const auto again = comet::nx2::run(comet::nx2::ipsc860(d), body);
            for (std::size_t r = 0; r < first.size(); ++r) {
                BOOST_TEST(first[r].elapsed == again[r].elapsed);
                BOOST_TEST(first[r].messages_sent == again[r].messages_sent);
            }
        }
}

BOOST_AUTO_TEST_CASE(the_settings_run_with_about_their_grain_and_cp_idles_for_work) {
    // The seed's settings in full on its 16-node iPSC/1 (320,000 items each; a fraction of a
    // second of simulation): the grain is an average, so it lands near the setting's, not on it.
    const auto m = comet::nx2::ipsc1(4);
    const auto cm = nist::rc_setting(nist::setting::cm);
    const auto cp = nist::rc_setting(nist::setting::cp);
    const auto a = comet::nx2::run(m, [&](comet::nx2::transport& t) { return nist::rc(t, cm); });
    const auto b = comet::nx2::run(m, [&](comet::nx2::transport& t) { return nist::rc(t, cp); });
    check_counts(a, cm);
    check_counts(b, cp);
    BOOST_TEST(std::abs(a[0].grain / 383.0 - 1.0) < 0.05, "CM-RC grain " << a[0].grain);
    BOOST_TEST(std::abs(b[0].grain / 17430.0 - 1.0) < 0.05, "CP-RC grain " << b[0].grain);
    // The share of the run the whole pool spent computing, from the CPU model.
    const auto share = [&](const std::vector<nist::application_result>& rs) {
        double work = 0, longest = 0;
        for (const auto& x : rs) work += static_cast<double>(x.work + x.bookkeeping), longest = std::max(longest, x.elapsed);
        const double per_flop = comet::nx2::to_seconds(comet::nx2::compute_time(m, comet::work::flops(1)));
        return work * per_flop / (static_cast<double>(rs.size()) * longest);
    };
    // Table I: user computation is most of CM-RC (87.1%) and about half of CP-RC (51.5%), the
    // rest of CP-RC idling for work: its few dispatches, each any share of a node's pool, leave
    // the pool unbalanced, where CM-RC's many even it out.
    BOOST_TEST(share(a) > 0.6, "CM-RC computes " << share(a) << " of its time");
    BOOST_TEST(share(b) < share(a) - 0.1, "CP-RC computes " << share(b) << " of its time, CM-RC " << share(a));
}
#endif

BOOST_AUTO_TEST_CASE(bad_configurations_are_refused_naming_the_field_the_value_and_the_rank) {
    const auto refused = [](int p, nist::rc_config c, std::initializer_list<const char*> words) {
        BOOST_CHECK_EXCEPTION(transfer_test::run(p, [&](transfer_test::transport& t) { nist::rc(t, c); }), comet::invalid_argument,
                              [&](const auto& e) { return comet_test::mentions(e, words); });
    };
    refused(1, small, {"rank 0: ", "rc: the group has 1 rank"});
    auto c = small;
    c.initial_items = 0;
    refused(2, c, {"rc: initial_items = 0"});
    c = chunked;
    c.items_per_chunk = 0;
    refused(2, c, {"rc: items_per_chunk = 0 with dispatch_share = 0"});
    c = small;
    c.items_per_chunk = 0;  // no chunk needed where a share is dispatched
    check_counts(transfer_test::run(2, [&](transfer_test::transport& t) { return nist::rc(t, c); }), c);
    c = small;
    c.dispatch_share = 1.5;
    refused(2, c, {"rc: dispatch_share = 1.5 is outside 0..1"});
    c = small;
    c.message_bytes = 40;
    refused(2, c, {"rc: message_bytes = 40 is outside 52.."});
    c = small;
    c.dispatch_frequency = 0;
    refused(2, c, {"rc: dispatch_frequency = 0"});
    c = small;
    c.window = 0;
    refused(2, c, {"rc: window = 0"});
    c = small;
    c.check_interval = 0;
    refused(2, c, {"rc: check_interval = 0"});
    c = small;
    c.tag = comet::max_tag + 1;
    refused(2, c, {"rc: tag 32768"});
    BOOST_CHECK_EXCEPTION(transfer_test::run(2, [&](transfer_test::transport& t) {
                              auto mine = small;
                              if (t.rank() == 1) mine.seed = 8;
                              nist::rc(t, mine);
                          }),
                          comet::invalid_argument,
                          [](const auto& e) { return comet_test::mentions(e, {"rc: the ranks disagree on seed"}); });
}

BOOST_AUTO_TEST_CASE(a_corrupted_message_raises_a_verification_error) {
    // Any message rank 1 receives first (work, acknowledgement, token or stop): one bit of its
    // header flipped is caught.
    BOOST_CHECK_EXCEPTION(transfer_test::run(3,
                                             [](transfer_test::transport& t) {
                                                 matrix_test::corrupting_transport c(t, {.rank = 1, .tag = nist::rc_tag, .byte = 9});
                                                 nist::rc(c, small);
                                             }),
                          comet::verification_error,
                          [](const auto& e) { return comet_test::mentions(e, {"rank 1: rc: ", "arrived changed"}); });
}

BOOST_AUTO_TEST_SUITE_END()
