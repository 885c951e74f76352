// Tests of comet/suite/suite.hpp: the kernel list, checking a request, which groups a kernel
// runs on, the points a run measures, running a suite on the threads transport, and its
// analysis.
#include <comet/suite/suite.hpp>
#include <comet/transport/adaptor.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "../support/messages.hpp"
#include "../support/minimal_transport.hpp"
#include "../support/suite_config.hpp"

namespace suite_test {

/// A small suite: a few sizes, few repetitions.
comet::suite_config small(std::vector<std::string> kernels) {
    comet::suite_config c{.kernels = std::move(kernels)};
    c.transfer.sizes = {0, 8, 64, 100, 128, 1024, 2048, 4096};
    c.transfer.sampling = c.broadcast.sampling = c.global_sum.sampling = c.barrier.sampling = comet::fixed_sampling(1, 20);
    c.broadcast.sizes = {8, 1024};
    c.global_sum.vector_lengths = {1, 100};
    c.matrix.dims = {2, 4, 8};
    c.matrix.sampling = comet::fixed_sampling(1, 5);
    return c;
}

}  // namespace suite_test

BOOST_AUTO_TEST_SUITE(suite)

using suite_test::small;

BOOST_AUTO_TEST_CASE(kernel_list_follows_the_thesis) {
    const auto& all = comet::suite_kernels();
    BOOST_REQUIRE_EQUAL(all.size(), 20u);
    BOOST_TEST(all.front().name == "echo");
    BOOST_TEST(all[11].name == "col_broadcast");
    BOOST_TEST(all[12].name == "commtest");  // the other seeds' kernels follow CoMet's
    BOOST_TEST(all[13].name == "sync");
    BOOST_TEST(all[14].name == "collectives");
    BOOST_TEST(all[15].name == "nbc");
    BOOST_TEST(all[16].name == "ring");
    BOOST_TEST(all[17].name == "rc");
    BOOST_TEST(all[18].name == "mesh");
    BOOST_TEST(all.back().name == "loggp");  // the round trips a LogGOPS machine is fitted to
    BOOST_TEST(comet::implemented_kernels().size() == 12u);  // "all": CoMet's
    BOOST_TEST(comet::is_matrix_kernel("transpose"));
    BOOST_TEST(!comet::is_matrix_kernel("barrier"));
}

BOOST_AUTO_TEST_CASE(unknown_kernels_are_named) {
    BOOST_CHECK_EXCEPTION(comet::check_suite({.kernels = {"echo", "teleport"}}), comet::invalid_argument,
                          [](const auto& e) { return comet_test::mentions(e, {"unknown kernel 'teleport'", "available: echo"}); });
}

BOOST_AUTO_TEST_CASE(kernels_skip_groups_too_small_for_them) {
    BOOST_TEST(!comet::suite_skip_reason("barrier", 1).has_value());
    BOOST_TEST(*comet::suite_skip_reason("echo", 1) == "needs at least 2 ranks");
    BOOST_TEST(*comet::suite_skip_reason("contention", 3) == "needs at least 4 ranks");
    BOOST_TEST(comet::suite_skip_reason("update_guard", 6)->find("processor mesh") != std::string::npos);
    BOOST_TEST(!comet::suite_skip_reason("update_guard", 8).has_value());
}

BOOST_AUTO_TEST_CASE(points_count_what_will_be_measured) {
    auto cfg = small({"echo", "pairwise"});
    cfg.transfer.sizes = {0, 8, 100};
    BOOST_TEST(comet::suite_points(cfg, 16) == 2u * 4u * 3u);  // 4 hop distances in a 16-node cube
    cfg.transfer.hops = {1};
    BOOST_TEST(comet::suite_points(cfg, 16) == 2u * 3u);
    cfg = small({"broadcast", "global_sum", "barrier", "contention"});
    BOOST_TEST(comet::suite_points(cfg, 2) == 2u + 2u + 1u);  // contention skipped on 2
    cfg = small({"update_guard", "shift_matrix"});
    BOOST_TEST(comet::suite_points(cfg, 4) == 3u + 2u * 3u);  // shift: north and east
    BOOST_TEST(comet::suite_points(cfg, 3) == 0u);
}

/// Threads options for tests of what is derived rather than of validity: a rank's preemptions
/// are not its disturbances.
comet::threads::options preemptions_uncounted() {
    comet::threads::options o;
    o.count_preemptions = false;
    return o;
}

BOOST_AUTO_TEST_CASE(run_and_analyse_over_two_group_sizes) {
    const auto cfg_for = [](int) { return small({"pairwise", "echo", "barrier", "global_sum", "update_guard", "contention"}); };
    comet::report rep;
    // This tests what the analyses derive, not validity: preemptions are not counted. On a
    // busy machine (other tests beside this one) a point on 2 ranks (where each has a core and
    // they would be counted) can otherwise lose every sample to them; flagged, it is left out
    // of every analysis, which then has less to derive. A point still flagged (every sample
    // negative) has its runs taken again.
    const comet::threads::options uncounted = preemptions_uncounted();
    for (int attempt = 0; attempt < 5; ++attempt) {
        rep = {};
        std::size_t seen = 0;
        for (int p : {2, 4}) {
            auto cfg = cfg_for(p);
            cfg.contention.sizes = {8, 1024};
            cfg.contention.sampling = comet::fixed_sampling(1, 5);
            cfg.on_point = [&](const comet::record&) { ++seen; };
            const auto r = comet::threads::run(p, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg); }, uncounted);
            BOOST_TEST(r[1].empty());
            rep.results.append(r[0]);
            if (p == 4) BOOST_TEST(seen == comet::suite_points(cfg, 2) + comet::suite_points(cfg, 4));
        }
        if (std::ranges::all_of(rep.results.records, [](const comet::record& x) { return comet::usable(x); })) break;
    }
    BOOST_TEST_REQUIRE(std::ranges::all_of(rep.results.records, [](const comet::record& x) { return comet::usable(x); }));
    BOOST_TEST(rep.results.records.front().kernel == "pairwise");  // in the order asked
    comet::analyse(rep, {.break_size = 100});
    // Every analysis derived something. (A fit may still be flagged — a hop cost on threads is
    // noise around zero and can come out negative — and is then kept with a note saying so.)
    for (const auto& n : rep.notes) BOOST_TEST(n.find("fit of ") == 0u, "note: " << n);
    // Transfer fits on the largest group only: small and large for both kernels.
    BOOST_TEST(rep.fits.size() == 4u);
    for (const auto& f : rep.fits) BOOST_TEST(f.hop.has_value());  // 4 nodes: hop distances 1 and 2
    BOOST_TEST(rep.log_p.size() == 1u + 2u);  // barrier; global_sum per vector length
    BOOST_TEST(rep.growth.size() == 1u);      // update_guard on 4 nodes
    BOOST_TEST(rep.contention.size() == 2u);  // loads 0.5 and 0.9 against idle
}

// The whole suite on 2, 4 and 8 threads (8: more ranks than cores), every kernel that fits the
// group recording on rank 0 and the matrix kernels verifying their results exactly. Under
// ThreadSanitizer on 2 and 4 only: 8 threads on two cores, every switch under its runtime, took
// 146 s of the test command, and the state the ranks share is the same at 4, more ranks than
// cores already (8 runs in the AddressSanitizer build).
BOOST_AUTO_TEST_CASE(the_whole_suite_runs_on_2_4_and_8_ranks) {
#if defined(__SANITIZE_THREAD__)
    const std::vector<int> groups{2, 4};
#else
    const std::vector<int> groups{2, 4, 8};
#endif
    for (int p : groups) {
        const auto r = comet::threads::run(p, [](comet::threads::transport& t) {
            return comet::run_suite(t, comet_test::whole_suite_small());
        });
        comet_test::check_every_kernel_recorded(r[0], p);
        for (int rank = 1; rank < p; ++rank) BOOST_TEST(r[static_cast<std::size_t>(rank)].empty());
    }
}

/// The implementation (a value: how the point was measured) of every record of `kernel` in `r`.
std::vector<std::string> implementations(const comet::result_set& r, std::string_view kernel) {
    std::vector<std::string> out;
    for (const auto* rec : r.of(kernel)) out.push_back(rec->values.text("implementation").value_or("(none)"));
    return out;
}

// A transport with only the eight core members runs every kernel of the suite: comet::ops
// supplies the rest portably, and the records say so (the threads transport's say native).
// Every kernel on 2 ranks, and on 4 those that need more than 2: four ranks that poll on two
// cores keep missing the windows of nbc and collectives, which then widen to a second and run
// ten times their measurements before flagging the point (30-60 s, minutes under a sanitizer),
// which shows nothing the 2-rank run does not.
BOOST_AUTO_TEST_CASE(the_whole_suite_runs_on_a_core_only_transport) {
    for (int p : {2, 4}) {
        comet::suite_config cfg = comet_test::whole_suite_small();
        if (p == 4)
            std::erase_if(cfg.kernels, [](const std::string& k) { return !comet::suite_skip_reason(k, 2); });
        BOOST_TEST_REQUIRE(!cfg.kernels.empty());
        std::vector<comet::result_set> r(static_cast<std::size_t>(p));
        comet_test::minimal_runner{}(p, [&](comet_test::minimal_transport& t) {
            r[static_cast<std::size_t>(t.rank())] = comet::run_suite(t, cfg);
        });
        if (p == 4) {
            for (const auto& k : cfg.kernels) BOOST_TEST(!r[0].of(k).empty(), k << " on 4 ranks");
            continue;
        }
        comet_test::check_every_kernel_recorded(r[0], p);
        for (const char* k : {"broadcast", "global_sum", "barrier"})
            for (const auto& i : implementations(r[0], k)) BOOST_TEST(i == "portable");
        for (const auto* rec : r[0].of("pairwise")) BOOST_TEST(rec->values.text("form").value_or("(none)") == "isend_recv_wait");
    }
    const auto native = comet::threads::run(2, [](comet::threads::transport& t) {
        return comet::run_suite(t, comet_test::whole_suite_small());
    });
    for (const char* k : {"broadcast", "global_sum", "barrier"})
        for (const auto& i : implementations(native[0], k)) BOOST_TEST(i == "native");
    for (const auto* rec : native[0].of("pairwise")) BOOST_TEST(rec->values.text("form").value_or("(none)") == "send_recv");
}

BOOST_AUTO_TEST_CASE(a_stop_ends_the_suite_within_a_sample) {
    // A stop requested as echo starts: echo's engine reads it before its first sample, echo
    // ends with nothing measured (no record of it), and every rank throws the reason after it;
    // pairwise never starts. The kernels that start are named on every rank.
    comet::suite_config cfg = small({"barrier", "echo", "pairwise"});
    std::stop_source source;
    std::vector<std::string> points, started;
    std::mutex m;
    cfg.stop = source.get_token();
    cfg.stop_reason = [] { return std::string("enough"); };
    cfg.on_point = [&](const comet::record& r) {
        std::lock_guard lock(m);
        points.push_back(r.kernel);
    };
    cfg.on_kernel = [&](const std::string& k) {
        std::lock_guard lock(m);
        started.push_back(k);
        if (k == "echo") source.request_stop();
    };
    BOOST_CHECK_EXCEPTION(comet::threads::run(2, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg); }),
                          comet::suite_stopped, [](const comet::suite_stopped& e) { return std::string(e.what()) == "enough"; });
    BOOST_TEST((points == std::vector<std::string>{"barrier"}));
    std::sort(started.begin(), started.end());
    BOOST_TEST((started == std::vector<std::string>{"barrier", "barrier", "echo", "echo"}));
}

/// A transport that requests a stop once rank 0 has read its clock `reads` times (the sampling
/// engine reads it four times a sample: the repeat loop and its empty twin).
template <comet::transport Inner>
struct stop_after_reads : comet::transport_adaptor<Inner> {
    stop_after_reads(Inner& inner, std::stop_source& source, int reads) : comet::transport_adaptor<Inner>(inner), source_(&source), left_(reads) {}
    double now() {
        if (this->rank() == 0 && --left_ == 0) source_->request_stop();
        return this->inner().now();
    }

private:
    std::stop_source* source_;
    int left_;
};

BOOST_AUTO_TEST_CASE(a_stop_in_the_middle_of_a_kernel_keeps_its_samples) {
    // Stopped while echo samples its 8 points (200 samples each): the points keep the samples
    // they took, "interrupted", and pairwise never starts.
    comet::suite_config cfg = small({"echo", "pairwise"});
    cfg.transfer.hops = {1};
    cfg.sampling = comet::fixed_sampling(200, 4);
    cfg.sampling->min_sample_seconds = 1e-6;  // no reading of the clock's step (it reads the clock thousands of times)
    std::stop_source source;
    cfg.stop = source.get_token();
    std::vector<comet::record> kept;
    std::mutex m;
    cfg.on_point = [&](const comet::record& r) {
        std::lock_guard lock(m);
        kept.push_back(r);
    };
    BOOST_CHECK_THROW(comet::threads::run(2,
                                          [&](comet::threads::transport& t) {
                                              stop_after_reads s(t, source, 4 * 8 * 10);
                                              return comet::run_suite(s, cfg);
                                          }),
                      comet::suite_stopped);
    BOOST_TEST_REQUIRE(kept.size() == 8u);  // every echo point had samples by then
    for (const auto& r : kept) {
        BOOST_TEST(r.kernel == "echo");
        BOOST_TEST(r.stop == "interrupted");
        BOOST_TEST(r.samples.size() >= 1u);
        BOOST_TEST(r.samples.size() < 20u);  // ten rounds at most: the stop was read before the next sample
        BOOST_TEST(r.notes.back().starts_with("interrupted after"));
    }
}

BOOST_AUTO_TEST_CASE(attached_and_configured_carry_the_stop_request_to_every_measurement_scheme) {
    // The suite's stop request reaches a kernel whatever it measures with: the sampling engine
    // (sampling.stop), the window scheme (window.stop) or its own loop (stop); configured also
    // sets the suite's sampling, attached leaves a kernel's own.
    std::stop_source source;
    comet::suite_config cfg;
    cfg.stop = source.get_token();
    int points = 0;
    cfg.on_point = [&](const comet::record&) { ++points; };
    cfg.sampling = comet::fixed_sampling(3, 7);
    const auto echo = cfg.configured(comet::kernels::transfer_config{});
    const auto windowed = cfg.attached(comet::kernels::windowed_collectives_config{});
    const auto nbc = cfg.attached(comet::kernels::nbc_config{});
    const auto sync = cfg.attached(comet::kernels::clock_sync_config{});
    const auto nist = cfg.attached(comet::kernels::nist::study_config{});
    const auto own = cfg.attached(comet::kernels::transfer_config{});
    BOOST_TEST(echo.sampling.max_samples == 3u);
    BOOST_TEST(echo.sampling.iterations == 7u);
    BOOST_TEST(own.sampling.iterations == 0u);  // attached: the kernel's own sampling
    BOOST_TEST(!echo.sampling.stop.stop_requested());
    source.request_stop();
    for (bool requested : {echo.sampling.stop.stop_requested(), own.sampling.stop.stop_requested(),
                           windowed.window.stop.stop_requested(), nbc.window.stop.stop_requested(), sync.stop.stop_requested(),
                           nist.stop.stop_requested()})
        BOOST_TEST(requested);
    for (const auto* f : {&echo.on_point, &windowed.on_point, &nbc.on_point, &sync.on_point, &nist.on_point}) (*f)(comet::record{});
    BOOST_TEST(points == 5);
}

BOOST_AUTO_TEST_CASE(the_common_block_reaches_every_kernel_alike) {
    // The suite's test node goes to every kernel that measures on one, whatever its scheme.
    comet::suite_config cfg;
    cfg.test_node = 1;
    BOOST_TEST(cfg.configured(comet::kernels::transfer_config{}).test_node == 1);
    BOOST_TEST(cfg.attached(comet::kernels::clock_sync_config{}).test_node == 1);
    BOOST_TEST(cfg.attached(comet::kernels::nist::study_config{}).test_node == 1);
    BOOST_TEST(cfg.configured(comet::kernels::matrix_config{}).test_node == 1);
    BOOST_TEST(cfg.configured(comet::kernels::commtest::commtest_config{}).test_node == 1);
    cfg.test_node.reset();
    comet::kernels::transfer_config own;
    own.test_node = 1;
    BOOST_TEST(cfg.configured(own).test_node == 1);  // unset: the kernel's own
    // run_suite: rank 1 measures and returns the records, rank 0 none.
    auto c = small({"echo", "barrier"});
    c.transfer.sizes = {8};
    c.transfer.hops = {1};
    c.test_node = 1;
    const auto per_rank = comet::threads::run(2, [&](comet::threads::transport& t) { return comet::run_suite(t, c); }, preemptions_uncounted());
    BOOST_TEST(per_rank[0].records.empty());
    BOOST_TEST(per_rank[1].of("echo").size() == 1u);
    BOOST_TEST(per_rank[1].of("barrier").size() == 1u);
    // A test node outside the group, refused on every rank naming it.
    c.test_node = 2;
    std::array<std::string, 2> said;
    comet::threads::run(2, [&](comet::threads::transport& t) {
        try {
            comet::run_suite(t, c);
        } catch (const comet::invalid_argument& e) {
            said[static_cast<std::size_t>(t.rank())] = e.what();
        }
    });
    for (const std::string& s : said) BOOST_TEST(s.find("test node 2 is outside the group of 2 ranks") != std::string::npos, s);
}

BOOST_AUTO_TEST_CASE(rounds_pool_each_points_samples_and_one_run_kernels_run_once) {
    auto c = small({"barrier", "sync"});
    c.rounds = 3;
    c.sync.repetitions = 2;
    const auto per_rank = comet::threads::run(2, [&](comet::threads::transport& t) { return comet::run_suite(t, c); }, preemptions_uncounted());
    const comet::result_set& r = per_rank[0];
    BOOST_TEST_REQUIRE(r.of("barrier").size() == 1u);
    const comet::record& barrier = *r.of("barrier")[0];
    BOOST_TEST_REQUIRE(barrier.rounds.size() == 3u);  // three rounds of one point
    std::size_t pooled = 0;
    for (const auto& round : barrier.rounds) pooled += round.samples;
    BOOST_TEST(pooled == barrier.samples.size());
    BOOST_TEST(barrier.samples.size() == 3u);  // fixed_sampling(1, 20): one sample a round
    for (const comet::record* s : r.of("sync")) BOOST_TEST(s->rounds.size() == 1u);  // describes one run: the first round only
    BOOST_TEST(!r.of("sync").empty());
    c.rounds = 0;
    BOOST_CHECK_EXCEPTION(comet::check_suite(c), comet::invalid_argument,
                          [](const auto& e) { return comet_test::mentions(e, {"rounds 0 is below 1"}); });
}

BOOST_AUTO_TEST_CASE(what_cannot_be_derived_becomes_a_note) {
    auto cfg = small({"pairwise", "barrier"});
    cfg.transfer.sizes = {8};
    comet::report rep;
    // What is noted is tested here, not validity: preemptions are not counted. Otherwise, on a
    // busy machine (other tests beside this one), the one pairwise point could lose every sample
    // to them. A point still flagged (every sample negative) leaves nothing to fit, said so,
    // and the run is taken again.
    const comet::threads::options uncounted = preemptions_uncounted();
    for (int attempt = 0; attempt < 5; ++attempt) {
        rep = {};
        rep.results = comet::threads::run(2, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg); }, uncounted)[0];
        comet::analyse(rep);
        BOOST_REQUIRE_EQUAL(rep.notes.size(), 2u);
        if (std::ranges::all_of(rep.results.of("pairwise"), [](const comet::record* x) { return comet::usable(*x); })) break;
        BOOST_TEST(rep.notes[0].find("(1 flagged: no valid sample)") != std::string::npos, rep.notes[0]);
    }
    // One size cannot carry a line: the fit is kept, flagged, and the note says why.
    BOOST_TEST(rep.notes[0].find("fit of pairwise all: flagged: ") == 0u, rep.notes[0]);
    BOOST_TEST(rep.notes[1].find("no growth with P for barrier") == 0u);
}

BOOST_AUTO_TEST_CASE(growth_with_p_from_flagged_points_is_said_so) {
    // Barrier on 2 and 4 ranks, the 2-rank point without a valid sample (every one preempted):
    // no growth with P, and the note says why, not that the run had one group size.
    comet::report rep;
    for (const std::int64_t nodes : {2, 4}) {
        comet::record rec{"barrier", {{"nodes", nodes}}, {1e-6, 1.1e-6}};
        if (nodes == 2)
            for (std::size_t i : {0u, 1u}) comet::mark_invalid(rec, i, "preempted");
        rep.results.records.push_back(std::move(rec));
    }
    comet::analyse(rep);
    BOOST_REQUIRE_EQUAL(rep.notes.size(), 1u);
    BOOST_TEST(rep.notes[0] == "no growth with P for barrier: its points on 2 nodes are flagged (no valid sample), too few group sizes are left");
    rep.results.records.pop_back();  // now one group size, which is what the note says
    rep.notes.clear();
    comet::analyse(rep);
    BOOST_REQUIRE_EQUAL(rep.notes.size(), 1u);
    BOOST_TEST(rep.notes[0].find("it was measured on one group size") != std::string::npos, rep.notes[0]);
}

// Without an echo in the run, contention does not label the iPSC/860's sizes 50% and 90% of
// this machine's peak: it measures a short echo first and says so; after an echo it uses that.
BOOST_AUTO_TEST_CASE(contention_loads_come_from_this_machine) {
    for (const bool with_echo : {false, true}) {
        auto cfg = comet_test::whole_suite_small();
        cfg.kernels = with_echo ? std::vector<std::string>{"echo", "contention"} : std::vector<std::string>{"contention"};
        const auto r = comet::threads::run(4, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg); });
        const auto recs = r[0].of("contention");
        BOOST_REQUIRE(!recs.empty());
        for (const auto* rec : recs) BOOST_TEST(*rec->params.text("load_source") == (with_echo ? "echo" : "short_echo"));
        BOOST_TEST(r[0].of("echo").size() == (with_echo ? cfg.transfer.sizes.size() * 2 : 0u));  // the short echo is not reported
    }
}

// Load sizes named in the config (the thesis', or one's own) are kept and named in the records:
// a suite run measures this machine's only in place of "configured" ones.
BOOST_AUTO_TEST_CASE(contention_keeps_named_load_sizes) {
    for (const auto& [source, sizes] : {std::pair{std::string("thesis"), comet::kernels::thesis_load_sizes},
                                        std::pair{std::string("given"), comet::kernels::contention_load_sizes{300, 700}}}) {
        BOOST_TEST_CONTEXT("load_source " << source) {
            auto cfg = comet_test::whole_suite_small();
            cfg.kernels = {"contention"};
            cfg.contention.load_source = source;
            cfg.contention.load_sizes = sizes;
            const auto r = comet::threads::run(4, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg); });
            const auto recs = r[0].of("contention");
            BOOST_REQUIRE(!recs.empty());
            std::vector<std::int64_t> cross;
            for (const auto* rec : recs) {
                BOOST_TEST(*rec->params.text("load_source") == source);
                if (std::find(cross.begin(), cross.end(), *rec->params.integer("cross_size")) == cross.end())
                    cross.push_back(*rec->params.integer("cross_size"));
            }
            BOOST_TEST((cross == std::vector<std::int64_t>{0, static_cast<std::int64_t>(sizes.half), static_cast<std::int64_t>(sizes.ninety)}));
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
