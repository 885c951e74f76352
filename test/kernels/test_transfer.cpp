// Tests of comet/kernels/transfer.hpp (through echo, the simplest kernel built on it, and
// pairwise): default hop distances, the on_point hook, the links an application names (one at a
// time and all at once, on a stencil's neighbours), and every bad input.
#include <comet/kernels/echo.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/topology/mesh.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <string>
#include <vector>


BOOST_AUTO_TEST_SUITE(transfer)

using namespace transfer_test;

BOOST_AUTO_TEST_CASE(default_hops_follow_the_group) {
    const auto hops_of = [](int nodes, int test_node) {
        auto cfg = quick;
        cfg.sizes = {8};
        cfg.test_node = test_node;
        const auto r = run(nodes, [&](transport& t) { return comet::kernels::echo(t, cfg); });
        std::vector<std::int64_t> hops;
        for (const auto& rec : r[static_cast<std::size_t>(test_node)].records) hops.push_back(*rec.params.integer("hops"));
        return hops;
    };
    BOOST_TEST(hops_of(2, 0) == (std::vector<std::int64_t>{1}), boost::test_tools::per_element());
    BOOST_TEST(hops_of(16, 0) == (std::vector<std::int64_t>{1, 2, 3, 4}), boost::test_tools::per_element());
    // Six ranks: from node 5, one hop reaches 4, two hops would reach 6 (outside), three reach 2.
    BOOST_TEST(hops_of(6, 5) == (std::vector<std::int64_t>{1, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(on_point_sees_each_record) {
    std::vector<std::string> seen;
    auto cfg = quick;
    cfg.on_point = [&](const comet::record& rec) { seen.push_back(rec.kernel + std::to_string(*rec.params.integer("size"))); };
    run(2, [&](transport& t) { comet::kernels::echo(t, cfg); });
    BOOST_TEST(seen == (std::vector<std::string>{"echo0", "echo8", "echo100", "echo5000"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_shuffled_order_is_recorded_with_its_seed_and_the_records_stay_in_point_order) {
    auto cfg = quick;
    cfg.sampling.order = comet::interleave::shuffle;
    cfg.sampling.seed = 7;
    const auto r = run(4, [&](transport& t) { return comet::kernels::echo(t, cfg); });
    const auto& records = r[0].records;
    BOOST_REQUIRE_EQUAL(records.size(), 2u * 4u);  // hops 1, 2 of 4 nodes, 4 sizes
    std::size_t i = 0;
    for (std::int64_t h : {1, 2})
        for (std::int64_t size : {0, 8, 100, 5000}) {
            const auto& rec = records[i++];
            BOOST_TEST(*rec.params.integer("hops") == h);
            BOOST_TEST(*rec.params.integer("size") == size);
            // How the points were sampled is what the run did, not which point it is.
            BOOST_TEST((rec.values == comet::params{{"order", "shuffle"}, {"seed", std::int64_t{7}}}));
            BOOST_TEST(!rec.params.contains("order"));
            BOOST_TEST(!rec.params.contains("seed"));
            BOOST_TEST(rec.samples.size() == 2u);
        }
    // Round robin records no seed: it would say nothing.
    const auto rr = run(2, [&](transport& t) { return comet::kernels::echo(t, quick); });
    BOOST_TEST((rr[0].records.at(0).values == comet::params{{"order", "round_robin"}}));
}

BOOST_AUTO_TEST_CASE(links_of_a_mesh_rank_skip_repeats_and_itself) {
    using comet::kernels::link;
    BOOST_TEST((comet::kernels::links_to(4, {1, 7, 3, 5}) == std::vector<link>{{4, 1}, {4, 7}, {4, 3}, {4, 5}}));
    // Two rows high: top == bottom; one column wide: pred == succ == the rank itself.
    BOOST_TEST((comet::kernels::links_to(0, {1, 1, 0, 0}) == std::vector<link>{{0, 1}}));
}

BOOST_AUTO_TEST_CASE(links_one_at_a_time_give_a_record_per_link_and_size_on_the_test_node) {
    // A 3 x 3 torus: rank 4 and its four neighbours; the records come back to rank 0, which
    // is not in any link.
    auto cfg = quick;
    cfg.sizes = {8, 100};
    cfg.links = comet::kernels::links_to(4, {1, 7, 3, 5});
    const auto r = run(9, [&](transport& t) { return comet::kernels::pairwise(t, cfg); });
    for (int rank = 1; rank < 9; ++rank) BOOST_TEST(r[static_cast<std::size_t>(rank)].records.empty());
    const auto& records = r[0].records;
    BOOST_REQUIRE_EQUAL(records.size(), 4u * 2u);
    std::size_t i = 0;
    for (int to : {1, 7, 3, 5})
        for (std::int64_t size : {8, 100}) {
            const auto& rec = records[i++];
            BOOST_TEST(*rec.params.integer("from") == 4);
            BOOST_TEST(*rec.params.integer("to") == to);
            BOOST_TEST(*rec.params.integer("size") == size);
            BOOST_TEST(*rec.params.integer("hops") == std::popcount(static_cast<unsigned>(4 ^ to)));
            BOOST_TEST(*rec.params.text("mode") == "one_at_a_time");
            BOOST_TEST(*rec.params.text("reduction") == "from");
            BOOST_TEST(*rec.params.text("cache") == "warm");
            BOOST_TEST(rec.params.size() == 8u);  // size, hops, nodes, from, to, mode, reduction, cache
            // the threads transport buffers its sends
            BOOST_TEST((rec.values == comet::params{{"form", "send_recv"}, {"order", "round_robin"}}));
            BOOST_TEST(rec.samples.size() == 2u);
            for (double x : rec.samples) BOOST_TEST(x > 0.0);
        }
}

BOOST_AUTO_TEST_CASE(links_at_once_run_every_link_together_even_where_they_form_a_ring) {
    // Every rank of a 3 x 3 torus with its succ: a ring of links through every rank, each rank
    // the `from` of one and the `to` of another. Blocking echoes would wait on each other here;
    // the concurrent mode must not.
    auto cfg = quick;
    cfg.sizes = {0, 64, 5000};
    const auto mesh = comet::torus(3, 3);
    for (int rank = 0; rank < 9; ++rank) cfg.links.push_back({rank, mesh.neighbours(rank).succ});
    cfg.concurrent = true;
    for (bool exchange : {false, true}) {
        const auto r = run(9, [&](transport& t) {
            return exchange ? comet::kernels::pairwise(t, cfg) : comet::kernels::echo(t, cfg);
        });
        const auto& records = r[0].records;
        BOOST_REQUIRE_EQUAL(records.size(), 9u * 3u);
        for (const auto& rec : records) {
            BOOST_TEST(*rec.params.text("mode") == "concurrent");
            BOOST_TEST(rec.samples.size() == 2u);
            BOOST_TEST(rec.iterations == 20u);
            BOOST_TEST(rec.stop == "fixed");
            for (double x : rec.samples) BOOST_TEST(x > 0.0);
        }
        if (exchange) BOOST_TEST(*records[0].values.text("form") == "isend_irecv_wait_all");
        if (!exchange) BOOST_TEST(*records[0].params.text("buffer") == "same");  // a received message echoed back
        BOOST_TEST(*records[3].params.integer("from") == 1);
        BOOST_TEST(*records[3].params.integer("to") == 2);
    }
}

BOOST_AUTO_TEST_CASE(links_at_once_serve_every_link_in_every_iteration) {
    // The center of a 3 x 3 torus and its four neighbours at once: per iteration the center
    // posts one receive per link (the answers), each neighbour one (the request), rank 0 none.
    auto cfg = quick;
    cfg.sizes = {4096};
    cfg.links = comet::kernels::links_to(4, {1, 7, 3, 5});
    cfg.concurrent = true;
    std::array<std::size_t, 9> receives{}, sends{};
    run(9, [&](transport& t) {
        kernel_counting::counting_transport<transport> c(t);
        comet::kernels::echo(c, cfg);
        receives[static_cast<std::size_t>(t.rank())] = c.c.irecvs;
        sends[static_cast<std::size_t>(t.rank())] = c.c.isends;
    });
    BOOST_TEST(receives[1] > 0u);
    for (std::size_t r : {1u, 3u, 5u, 7u}) {
        BOOST_TEST(receives[r] == receives[1]);
        BOOST_TEST(sends[r] == receives[1]);
    }
    BOOST_TEST(receives[4] == 4 * receives[1]);
    BOOST_TEST(sends[4] == 4 * receives[1]);
    BOOST_TEST(receives[0] == 0u);
}

BOOST_AUTO_TEST_CASE(bad_inputs_name_the_value_and_rank) {
    const auto fails_with = [](int nodes, comet::kernels::transfer_config cfg, std::initializer_list<const char*> words) {
        BOOST_CHECK_EXCEPTION(run(nodes, [&](transport& t) { comet::kernels::echo(t, cfg); }), comet::invalid_argument,
                              [&](const auto& e) { return mentions(e, words); });
    };
    fails_with(1, quick, {"rank 0", "echo needs at least 2 ranks; the group has 1"});
    auto c = quick;
    c.hops = {3};
    fails_with(4, c, {"echo", "3 hops from node 0 reach node 7, outside the 4 nodes"});
    c.hops = {-1};
    fails_with(4, c, {"echo: hop distance -1 is negative"});
    c = quick;
    c.sizes = {8, comet::max_message_size + 1};
    fails_with(2, c, {"message size 2147483648 exceeds"});
    c = quick;
    c.test_node = 2;
    fails_with(2, c, {"test node 2 is outside 0..1"});
    // Sampling values fail in check_sampling, which names the kernel, the field and its value.
    c = quick;
    c.sampling = {.max_samples = 2};  // below the default min_samples of 15
    fails_with(2, c, {"rank 0", "echo: sampling.max_samples = 2 is below min_samples = 15"});
    c = quick;
    c.sampling.min_samples = 0;
    fails_with(2, c, {"echo: sampling.min_samples must be at least 1, got 0"});
    c = quick;
    c.sampling.iterations = 2'000'000'000;
    fails_with(2, c, {"echo: sampling.iterations = 2000000000 is over 10^9"});
    c = quick;
    c.tag = 40000;
    fails_with(2, c, {"tag 40000"});
    // Links.
    c = quick;
    c.links = {{0, 1}};
    c.hops = {1};
    fails_with(2, c, {"rank 0", "echo: give links or hops, not both (1 links, 1 hop distances)"});
    c.hops = {};
    c.links = {{0, 2}};
    fails_with(2, c, {"rank 0", "echo: link 0 -> 2: rank 2 is outside 0..1"});
    c.links = {{1, 1}};
    fails_with(2, c, {"echo: link 1 -> 1 joins a rank to itself"});
    c.links = {{0, 1}, {2, 3}, {1, 0}};
    fails_with(4, c, {"echo: link 1 -> 0 repeats link 0 -> 1"});
    c.links = {};
    c.concurrent = true;
    fails_with(2, c, {"echo: concurrent needs links, and none are given"});
}

BOOST_AUTO_TEST_SUITE_END()

// ---- verification against injected faults (comet/transport/decorators/faulty.hpp) ----

#include <comet/transport/decorators/faulty.hpp>
#if COMET_TEST_HAS_NX2
#include <comet/transport/nx2.hpp>
#endif

#include <mutex>
#include <typeinfo>

namespace transfer_faults {

/// What one case of the fault matrix ended as: the exception's type and message if a rank
/// failed, and what the decorators injected on every rank.
struct outcome {
    std::string error_type, error;
    comet::fault_counts injected;
    std::size_t records = 0;
};

/// A kernel run with `verify` through comet::faulty on each rank of `run_group`.
template <class RunGroup>
outcome run_faulty(RunGroup&& run_group, const comet::fault_rates& rates, const std::string& kernel, bool links) {
    std::mutex m;
    outcome o;
    comet::kernels::transfer_config cfg{.sizes = {0, 8, 100, 5000}, .sampling = comet::fixed_sampling(3, 10), .verify = true};
    if (links) {
        cfg.links = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
        cfg.concurrent = true;
    }
    const auto body = [&](auto& inner) {
        comet::faulty t(inner, rates);
        const auto tally = [&] {
            const std::lock_guard lock(m);
            const comet::fault_counts& c = t.counts();
            o.injected.messages += c.messages, o.injected.dropped += c.dropped, o.injected.delayed += c.delayed;
            o.injected.duplicated += c.duplicated, o.injected.reordered += c.reordered, o.injected.corrupted += c.corrupted;
        };
        try {
            const comet::result_set r = kernel == "echo" ? comet::kernels::echo(t, cfg) : comet::kernels::pairwise(t, cfg);
            tally();
            const std::lock_guard lock(m);
            o.records += r.records.size();
        } catch (...) {
            tally();
            throw;
        }
    };
    try {
        run_group(body);
    } catch (const comet::error& e) {
        o.error_type = typeid(e).name();
        o.error = e.what();
    }
    return o;
}

/// The fault matrix's transports: four threads ranks, and two nodes of the simulated iPSC/860
/// where the simulator is built (COMET_TEST_HAS_NX2: Boost.Context found).
constexpr int transports = COMET_TEST_HAS_NX2 ? 2 : 1;
constexpr const char* transport_names[] = {"threads", "ipsc860"};

/// run_faulty on transport `which` (an index into transport_names).
inline outcome run_faulty_on([[maybe_unused]] int which, const comet::fault_rates& rates, const std::string& kernel, bool links) {
#if COMET_TEST_HAS_NX2
    if (which == 1) return run_faulty([](auto&& body) { comet::nx2::run(comet::nx2::ipsc860(2), body); }, rates, kernel, links);
#endif
    return run_faulty([](auto&& body) { comet::threads::run(4, body); }, rates, kernel, links);
}

}  // namespace transfer_faults

BOOST_AUTO_TEST_SUITE(transfer_faults)

using namespace transfer_faults;

// Every fault × echo and pairwise (a pair, and four links at once) × the threads transport and
// the simulated iPSC/860: each injected fault is either reported as an error — naming the rank,
// and the kernel where a kernel found it — or harmless (a delay; a reordering the kernel's one
// message in flight cannot show), never a set of records with a damaged, lost or extra message
// behind it; and no case hangs (a lost message times out).
BOOST_AUTO_TEST_CASE(every_injected_fault_is_reported_or_harmless) {
    struct fault_kind {
        const char* name;
        comet::fault_rates rates;
        bool harmless;  ///< a run it touched may still be right
    };
    const fault_kind kinds[] = {
        {"drop", {.drop = 0.02, .wait_timeout = 0.5}, false},
        {"duplicate", {.duplicate = 0.02, .wait_timeout = 0.5}, false},
        {"corrupt", {.corrupt = 0.02, .wait_timeout = 0.5}, false},
        {"reorder", {.reorder = 0.05, .wait_timeout = 0.5}, true},
        {"delay", {.delay = 0.05, .delay_seconds = 20e-6, .wait_timeout = 0.5}, true},
    };
    int errors = 0, touched = 0;
    for (const fault_kind& k : kinds)
        for (const char* kernel : {"echo", "pairwise"})
            for (bool links : {false, true})
                for (int which = 0; which < transports; ++which) {
                    comet::fault_rates rates = k.rates;
                    rates.seed = 11;
                    const outcome o = run_faulty_on(which, rates, kernel, links);
                    const std::string where = std::string(k.name) + " " + kernel + (links ? " links " : " pair ") +
                                              transport_names[which] + ": " + (o.error.empty() ? "completed" : o.error);
                    BOOST_TEST_MESSAGE(where << " (" << o.injected.injected() << " faults in " << o.injected.messages << " messages)");
                    BOOST_TEST(o.injected.messages > 0u, where);
                    touched += o.injected.injected() > 0;
                    if (!o.error.empty()) {
                        ++errors;
                        BOOST_TEST(o.injected.injected() > 0u, where);  // no error without a fault
                        BOOST_TEST(o.error.find("rank ") != std::string::npos, where);
                        const bool known = o.error_type == typeid(comet::verification_error).name() ||
                                           o.error_type == typeid(comet::timeout_error).name() ||
                                           o.error_type == typeid(comet::deadlock_error).name() ||
                                           // a duplicated message of the sampling engine's, arriving where a shorter one is due
                                           o.error_type == typeid(comet::truncation_error).name();
                        BOOST_TEST(known, where << " (" << o.error_type << ")");
                        if (o.error_type == typeid(comet::verification_error).name())
                            BOOST_TEST((o.error.find(kernel) != std::string::npos || o.error.find("forward_points") != std::string::npos), where);
                    } else if (!k.harmless) {
                        BOOST_TEST(o.injected.injected() == 0u, where << ": faults went unnoticed");
                    }
                }
    // The rates are high enough that faults happen and are caught in most of each transport's 20
    // cases.
    BOOST_TEST(touched >= 15 * transports);
    BOOST_TEST(errors >= 8 * transports);
}

BOOST_AUTO_TEST_CASE(a_verified_run_without_faults_says_so_in_its_records) {
    const auto r = transfer_test::run(2, [](transfer_test::transport& t) {
        auto cfg = transfer_test::quick;
        cfg.verify = true;
        return comet::kernels::pairwise(t, cfg);
    });
    BOOST_REQUIRE_EQUAL(r[0].records.size(), 4u);
    for (const auto& rec : r[0].records) BOOST_TEST(*rec.params.text("verify") == "payload");
}

BOOST_AUTO_TEST_SUITE_END()
