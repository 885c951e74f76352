// Tests of comet/kernels/contention.hpp: the node choice (hypercube rule and fallback), the
// load sizes derived from echo records or named (the thesis', given), and the kernel on the
// threads transport — its records,
// that the cross traffic really runs and stops, that every message sent is received (counted
// by a decorator, and nothing left to probe afterwards, run after run), the records landing on
// whichever rank is the test node, and every bad input.
#include <comet/kernels/contention.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace contention_test {

using comet::threads::run;
using comet::threads::transport;
using comet_test::mentions;
using counting = kernel_counting::counting_transport<transport>;

/// Small and fast: one eager (100 B) and one large (2000 B) cross-traffic size on the threads
/// transport, whose eager limit is 1000 bytes.
inline const comet::kernels::contention_config quick{.sizes = {0, 8, 1500},
                                            .load_sizes = {.half = 100, .ninety = 2000},
                                            .sampling = comet::fixed_sampling(2, 10)};

inline bool plausible(const std::vector<double>& samples) {
    for (double s : samples)
        if (!std::isfinite(s) || s < -1e-3 || s > 10.0) return false;
    return true;
}

struct outcome {
    comet::result_set records;
    kernel_counting::counts counts;
    bool leftover = false;  ///< a message still waiting for this rank after the kernel
};

/// Runs contention on `nodes` ranks through the counting decorator, then looks for any message
/// left undelivered.
inline std::vector<outcome> run_counted(int nodes, const comet::kernels::contention_config& cfg) {
    return run(nodes, [&](transport& t) {
        counting c(t);
        outcome o{comet::kernels::contention(c, cfg), c.c, false};
        t.barrier();  // every rank is past the kernel: whatever was sent to us has arrived
        o.leftover = t.iprobe(comet::any_source, comet::any_tag).has_value();
        t.barrier();
        return o;
    });
}

/// Echo records whose bandwidths (size / time) are the given ones.
inline comet::result_set echo_with_bandwidths(std::vector<std::pair<std::int64_t, double>> size_bw) {
    comet::result_set rs;
    for (auto [size, bw] : size_bw)
        rs.records.push_back({"echo", {{"size", size}, {"hops", std::int64_t{1}}}, {static_cast<double>(size) / bw}});
    return rs;
}

}  // namespace contention_test

BOOST_AUTO_TEST_SUITE(contention)

using namespace contention_test;

BOOST_AUTO_TEST_CASE(roles_follow_the_thesis_on_a_cube_of_8_or_more) {
    // Thesis 3.3.6: traffic 0 -> 7 on 8 nodes, routed 0 -> 1 -> 3 -> 7; nodes 1 and 3 echo.
    const comet::kernels::contention_nodes thesis{0, 7, 1, 3, 1, true, 1};
    BOOST_TEST((comet::kernels::contention_roles(8, 1) == thesis));
    BOOST_TEST((comet::kernels::contention_roles(16, 1) == thesis));
    BOOST_TEST((comet::kernels::contention_roles(128, 1) == thesis));
    // Two hops: traffic 0 -> 15 (0, 1, 3, 7, 15); echo 1 <-> 7 runs 1 -> 3 -> 7, both links loaded.
    BOOST_TEST((comet::kernels::contention_roles(16, 2) == comet::kernels::contention_nodes{0, 15, 1, 7, 2, true, 2}));
    BOOST_TEST((comet::kernels::contention_roles(32, 3) == comet::kernels::contention_nodes{0, 31, 1, 15, 3, true, 3}));
}

BOOST_AUTO_TEST_CASE(roles_fall_back_to_four_distinct_ranks) {
    // Echo between 1 and hop_node(1, hops); the two lowest other ranks carry the traffic.
    BOOST_TEST((comet::kernels::contention_roles(4, 1) == comet::kernels::contention_nodes{2, 3, 1, 0, 1, false, 0}));
    BOOST_TEST((comet::kernels::contention_roles(4, 2) == comet::kernels::contention_nodes{0, 3, 1, 2, 2, false, 0}));
    BOOST_TEST((comet::kernels::contention_roles(8, 2) == comet::kernels::contention_nodes{0, 3, 1, 2, 2, false, 0}));  // cube too small for 2
    BOOST_TEST((comet::kernels::contention_roles(6, 1) == comet::kernels::contention_nodes{2, 3, 1, 0, 1, false, std::nullopt}));
    BOOST_TEST((comet::kernels::contention_roles(7, 3) == comet::kernels::contention_nodes{0, 2, 1, 6, 3, false, std::nullopt}));
}

BOOST_AUTO_TEST_CASE(roles_refuse_what_cannot_be_chosen) {
    BOOST_CHECK_EXCEPTION(comet::kernels::contention_roles(3, 1), comet::invalid_argument, [](const auto& e) {
        return mentions(e, {"contention needs at least 4 ranks (two carry cross traffic, two echo); the group has 3"});
    });
    BOOST_CHECK_EXCEPTION(comet::kernels::contention_roles(8, 0), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"hop distance 0 is less than 1"}); });
    BOOST_CHECK_EXCEPTION(comet::kernels::contention_roles(5, 3), comet::invalid_argument, [](const auto& e) {
        return mentions(e, {"contention_roles", "3 hops from node 1 reach node 6, outside the 5 nodes"});
    });
}

BOOST_AUTO_TEST_CASE(load_sizes_come_from_echo_bandwidth) {
    // Bandwidths 1, 4.5 (the peak) and 4 at 100, 400 and 800 bytes. 50% of peak = 2.25 is
    // reached between 100 and 400: 100 + (2.25 - 1) * 300 / 3.5 = 207.14 -> 208 bytes; 90% =
    // 4.05: 100 + (4.05 - 1) * 300 / 3.5 = 361.43 -> 362 bytes.
    const auto echo = echo_with_bandwidths({{100, 1.0}, {400, 4.5}, {800, 4.0}});
    const auto s = comet::kernels::contention_loads_from_echo(echo);
    BOOST_TEST(s.half == 208u);
    BOOST_TEST(s.ninety == 362u);
    BOOST_CHECK_EXCEPTION(comet::kernels::contention_loads_from_echo(echo, 2), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"no echo records", "at 2 hops"}); });
    BOOST_CHECK_EXCEPTION(comet::kernels::contention_loads_from_echo(comet::result_set{}), comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"contention_loads_from_echo", "at 1 hops"}); });
}

BOOST_AUTO_TEST_CASE(load_sizes_reach_every_rank_from_the_root) {
    const auto echo = echo_with_bandwidths({{100, 1.0}, {400, 4.5}, {800, 4.0}});
    const auto r = run(4, [&](transport& t) {
        // Only rank 2 holds echo records, as only echo's test node does after echo.
        const comet::result_set mine = t.rank() == 2 ? echo : comet::result_set{};
        const auto found = comet::kernels::contention_loads_from_echo(t, 2, mine);
        const auto fallback = comet::kernels::contention_loads_from_echo(t, 0, mine, 1, {.half = 7, .ninety = 9});
        return std::vector<std::size_t>{found.first.half, found.first.ninety, found.second ? 1u : 0u,
                                        fallback.first.half, fallback.first.ninety, fallback.second ? 1u : 0u};
    });
    for (const auto& v : r)
        BOOST_TEST(v == (std::vector<std::size_t>{208, 362, 1, 7, 9, 0}), boost::test_tools::per_element());
    BOOST_CHECK_EXCEPTION(run(2, [&](transport& t) { comet::kernels::contention_loads_from_echo(t, 2, echo); }),
                          comet::invalid_argument,
                          [](const auto& e) { return mentions(e, {"rank 0", "contention_loads_from_echo: root 2 is outside 0..1"}); });
}

BOOST_AUTO_TEST_CASE(default_hops_are_every_distance_the_cube_rule_allows) {
    using v = std::vector<int>;
    BOOST_TEST(comet::kernels::default_contention_hops(4) == v{1}, boost::test_tools::per_element());
    BOOST_TEST(comet::kernels::default_contention_hops(6) == v{1}, boost::test_tools::per_element());
    BOOST_TEST(comet::kernels::default_contention_hops(8) == v{1}, boost::test_tools::per_element());
    BOOST_TEST(comet::kernels::default_contention_hops(16) == (v{1, 2}), boost::test_tools::per_element());
    BOOST_TEST(comet::kernels::default_contention_hops(128) == (v{1, 2, 3, 4, 5}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(records_for_every_load_and_size) {
    for (int nodes : {4, 8}) {
        BOOST_TEST_CONTEXT("nodes " << nodes) {
            const auto r = run_counted(nodes, quick);
            for (int rank = 1; rank < nodes; ++rank) BOOST_TEST(r[static_cast<std::size_t>(rank)].records.empty());
            const auto& records = r[0].records.records;
            BOOST_REQUIRE_EQUAL(records.size(), 3u * 3u);
            std::size_t i = 0;
            for (auto [load, cross] : {std::pair{0.0, 0}, {0.5, 100}, {0.9, 2000}})
                for (std::int64_t size : {0, 8, 1500}) {
                    const auto& rec = records[i++];
                    BOOST_TEST(rec.kernel == "contention");
                    BOOST_TEST(rec.params.size() == 9u);
                    // A sample is the deciding rank's own time: here the echoing node's.
                    BOOST_TEST(*rec.params.text("reduction") == "echo_node");
                    BOOST_TEST(*rec.params.text("load_source") == "configured");
                    BOOST_TEST(*rec.params.text("on_route") == (comet::kernels::contention_roles(nodes, 1).on_route ? "yes" : "no"));
                    BOOST_TEST(*rec.params.text("cache") == "warm");
                    BOOST_TEST((rec.values == comet::params{{"order", "round_robin"}}));
                    BOOST_TEST(rec.iterations == 10u);
                    BOOST_TEST(rec.stop == "fixed");
                    BOOST_TEST(rec.overheads.size() == 2u);
                    BOOST_TEST(*rec.params.integer("size") == size);
                    BOOST_TEST(*rec.params.integer("hops") == 1);
                    BOOST_TEST(*rec.params.integer("nodes") == nodes);
                    BOOST_TEST(*rec.params.number("load") == load);
                    BOOST_TEST(*rec.params.integer("cross_size") == cross);
                    BOOST_REQUIRE_EQUAL(rec.samples.size(), 2u);
                    BOOST_TEST(plausible(rec.samples));
                }
            // The engine runs on the echo pair alone, once per load: the echoing node decides
            // (3 sizes, fixed_sampling(2, 10)) and its partner receives each decision and answers
            // it; nobody else hears of it.
            const auto roles = comet::kernels::contention_roles(nodes, 1);
            const std::size_t decisions = 3 * kernel_counting::engine_decisions(3, 2);
            for (int rank = 0; rank < nodes; ++rank) {
                const auto& c = r[static_cast<std::size_t>(rank)].counts;
                if (rank == roles.echo_node) {
                    BOOST_TEST(c.engine_sends == decisions);
                    BOOST_TEST(c.engine_recvs == decisions);  // the answers
                } else if (rank == roles.echo_partner) {
                    BOOST_TEST(c.engine_sends == decisions);
                    BOOST_TEST(c.engine_recvs == decisions);
                } else {
                    BOOST_TEST(c.engine_sends + c.engine_recvs == 0u);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(cross_traffic_runs_stops_and_leaves_nothing_behind) {
    // Again and again: a stop message lost, or a cross-traffic message left unreceived, would
    // show as a hang (reported by the threads transport as a deadlock), a count mismatch or a
    // leftover sooner or later.
    for (int nodes : {4, 8})
        for (int round = 0; round < (nodes == 4 ? 12 : 6); ++round) {
            BOOST_TEST_CONTEXT("nodes " << nodes << ", round " << round) {
                const auto r = run_counted(nodes, quick);
                const auto roles = comet::kernels::contention_roles(nodes, 1);
                std::size_t sent = 0, received = 0;
                for (const auto& o : r) {
                    sent += o.counts.messages_sent();
                    received += o.counts.messages_received();
                    BOOST_TEST(!o.leftover);
                }
                BOOST_TEST(sent == received);
                // The source found the stop message once per loaded run, and sent at least one
                // cross-traffic message (the echo waits for it) plus the end marker in each.
                const auto& source = r[static_cast<std::size_t>(roles.traffic_source)].counts;
                BOOST_TEST(source.probe_hits == 2u);
                BOOST_TEST(source.sends >= 2u * 2u);
                // Ranks without a role send nothing.
                for (int rank = 0; rank < nodes; ++rank)
                    if (rank != roles.traffic_source && rank != roles.traffic_sink && rank != roles.echo_node &&
                        rank != roles.echo_partner && rank != 0)
                        BOOST_TEST(r[static_cast<std::size_t>(rank)].counts.messages_sent() == 0u);
            }
        }
}

BOOST_AUTO_TEST_CASE(idle_only_runs_no_traffic) {
    auto cfg = quick;
    cfg.loads = {0.0};
    const auto r = run_counted(4, cfg);
    const auto roles = comet::kernels::contention_roles(4, 1);
    BOOST_TEST(r[static_cast<std::size_t>(roles.traffic_source)].counts.messages_sent() == 0u);
    BOOST_TEST(r[static_cast<std::size_t>(roles.traffic_sink)].counts.messages_sent() == 0u);
    BOOST_TEST(r[0].records.size() == 3u);
}

BOOST_AUTO_TEST_CASE(records_land_on_the_test_node_whatever_its_role) {
    // On 4 ranks the roles are source 2, sink 3, echo 1, partner 0: try each as the test node,
    // and an idle rank on 5.
    for (auto [nodes, test_node] : {std::pair{4, 0}, {4, 1}, {4, 2}, {4, 3}, {5, 4}}) {
        BOOST_TEST_CONTEXT("nodes " << nodes << ", test node " << test_node) {
            auto cfg = quick;
            cfg.test_node = test_node;
            cfg.sizes = {8, 1500};
            const auto r = run_counted(nodes, cfg);
            for (int rank = 0; rank < nodes; ++rank) {
                const auto& o = r[static_cast<std::size_t>(rank)];
                BOOST_TEST(o.records.size() == (rank == test_node ? 6u : 0u));
                BOOST_TEST(!o.leftover);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(several_hop_distances_on_a_larger_cube) {
    auto cfg = quick;
    cfg.hops = {};  // every distance the cube rule allows on 16 nodes: 1 and 2
    cfg.sizes = {8};
    cfg.sampling.iterations = 4;
    const auto r = run_counted(16, cfg);
    const auto& records = r[0].records.records;
    BOOST_REQUIRE_EQUAL(records.size(), 2u * 3u);
    BOOST_TEST(*records[0].params.integer("hops") == 1);
    BOOST_TEST(*records[3].params.integer("hops") == 2);
    for (const auto& o : r) BOOST_TEST(!o.leftover);
}

BOOST_AUTO_TEST_CASE(on_point_sees_each_record) {
    std::vector<std::string> seen;
    auto cfg = quick;
    cfg.sizes = {8};
    cfg.on_point = [&](const comet::record& rec) { seen.push_back(std::to_string(*rec.params.integer("cross_size"))); };
    run(4, [&](transport& t) { comet::kernels::contention(t, cfg); });
    BOOST_TEST(seen == (std::vector<std::string>{"0", "100", "2000"}), boost::test_tools::per_element());
}

// The thesis' loads (5.1: "around message sizes of 486 bytes", "around 5000 bytes") are the
// defaults and what load_source "thesis" names; a record says which sizes loaded the machine
// and where they came from, whichever they were.
BOOST_AUTO_TEST_CASE(records_name_the_load_sizes_and_their_source) {
    BOOST_TEST(comet::kernels::thesis_load_sizes.half == 486u);
    BOOST_TEST(comet::kernels::thesis_load_sizes.ninety == 5000u);
    BOOST_TEST((comet::kernels::contention_config{}.load_sizes == comet::kernels::thesis_load_sizes));
    for (const auto& [source, sizes] : {std::pair{std::string("thesis"), comet::kernels::thesis_load_sizes},
                                        std::pair{std::string("given"), comet::kernels::contention_load_sizes{300, 700}}}) {
        BOOST_TEST_CONTEXT("load_source " << source) {
            auto c = quick;
            c.sizes = {8};
            c.load_source = source;
            c.load_sizes = sizes;
            const auto r = run_counted(4, c);
            const auto& records = r[0].records.records;
            BOOST_REQUIRE_EQUAL(records.size(), 3u);
            for (std::size_t i = 0; i < 3; ++i) BOOST_TEST(*records[i].params.text("load_source") == source);
            BOOST_TEST(*records[0].params.integer("cross_size") == 0);
            BOOST_TEST(*records[1].params.integer("cross_size") == static_cast<std::int64_t>(sizes.half));
            BOOST_TEST(*records[2].params.integer("cross_size") == static_cast<std::int64_t>(sizes.ninety));
            for (const auto& o : r) BOOST_TEST(!o.leftover);
        }
    }
}

BOOST_AUTO_TEST_CASE(bad_inputs_name_the_value_and_rank) {
    const auto fails_with = [](int nodes, const comet::kernels::contention_config& cfg, std::initializer_list<const char*> words) {
        BOOST_CHECK_EXCEPTION(run(nodes, [&](transport& t) { comet::kernels::contention(t, cfg); }), comet::invalid_argument,
                              [&](const auto& e) { return mentions(e, words); });
    };
    fails_with(3, quick, {"rank 0", "contention needs at least 4 ranks (two carry cross traffic, two echo); the group has 3"});
    auto c = quick;
    c.loads = {0.0, 0.7};
    fails_with(4, c, {"rank 0", "contention: unknown load 0.7 (known: 0 idle, 0.5 and 0.9 of peak)"});
    c = quick;
    c.load_sizes.ninety = 0;
    fails_with(4, c, {"contention: the 0.9 load's cross-traffic size is 0 bytes"});
    c = quick;
    c.load_sizes.half = comet::max_message_size + 1;
    fails_with(4, c, {"contention: the 0.5 load's cross-traffic size 2147483648 exceeds"});
    c = quick;
    c.hops = {3};
    fails_with(5, c, {"rank 0", "3 hops from node 1 reach node 6, outside the 5 nodes"});
    c.hops = {0};
    fails_with(4, c, {"contention: echo pair hop distance 0 is less than 1"});
    c = quick;
    c.test_node = 4;
    fails_with(4, c, {"contention: test node 4 is outside 0..3"});
    c = quick;
    c.traffic_window = 1;
    fails_with(4, c, {"contention: traffic_window must be at least 2, got 1"});
    c = quick;
    c.sampling = {.max_samples = 2};  // below the default min_samples of 15
    fails_with(4, c, {"contention: sampling.max_samples = 2 is below min_samples = 15"});
    c = quick;
    c.sampling.min_samples = 0;
    fails_with(4, c, {"contention: sampling.min_samples must be at least 1, got 0"});
    c = quick;
    c.tag = -2;
    fails_with(4, c, {"contention: tag -2 is outside 0..32767"});
    c = quick;
    c.sizes = {comet::max_message_size + 1};
    fails_with(4, c, {"contention: message size 2147483648 exceeds"});
    c = quick;
    c.load_source = "thesis";  // with quick's 100 and 2000 bytes
    fails_with(4, c, {"rank 0", "contention: load_source 'thesis' names the thesis' 486 and 5000 bytes, but the load sizes are 100 and 2000"});
    c.load_source = "";
    fails_with(4, c, {"rank 0", "contention: load_source is empty"});
}

BOOST_AUTO_TEST_SUITE_END()
