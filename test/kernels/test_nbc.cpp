// Tests of comet/kernels/nbc.hpp (the kernel `nbc`): a record per point on rank 0 with the
// params a reader needs, on the threads transport (every progression, the thread one included)
// and the simulated iPSC/860 (the seed's shape, in virtual time: without progression a 64 KiB
// broadcast on 16 nodes leaves most of its time to the wait, and test calls at shrinking
// intervals hide more and more of it); "not supported" records for what a transport lacks; bad
// input refused on every rank with the value. The simulator's cases are built where it is
// (COMET_TEST_HAS_NX2: Boost.Context found).
#include <comet/kernels/nbc.hpp>
#include <comet/stats/summary.hpp>
#include <comet/transport/threads.hpp>
#if COMET_TEST_HAS_NX2
#include <comet/transport/nx2.hpp>
#endif

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"
#include "../support/minimal_transport.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <set>
#include <stdexcept>
#include <string>

namespace nbc_kernel_test {

namespace k = comet::kernels;

inline const k::nbc_config quick{.operations = {k::nbc_operation::ibarrier, k::nbc_operation::ibcast, k::nbc_operation::iallreduce,
                                                k::nbc_operation::ialltoall, k::nbc_operation::igather},
                                 .sizes = {8, 4096},
                                 .intervals = {1024, 65536},
                                 .window = {.measurements = 4, .max_widenings = 3}};

/// The median of `r`'s valid samples.
inline double median(const comet::record& r) { return comet::summarize(r).median; }

/// The time-based record of `progression` at `interval` (0: none) in `r`.
inline const comet::record* find(const comet::result_set& r, std::string_view method, std::string_view progression, double interval) {
    for (const auto& rec : r.records)
        if (rec.params.text("method") == method && rec.params.text("progression") == progression &&
            rec.params.number("interval") == interval)
            return &rec;
    return nullptr;
}

}  // namespace nbc_kernel_test

BOOST_AUTO_TEST_SUITE(nbc_kernel)

using namespace nbc_kernel_test;

BOOST_AUTO_TEST_CASE(threads_every_operation_progression_and_method_has_its_record_on_rank_0) {
    // Two ranks: with a progress thread each, a third would oversubscribe a 2-core machine
    // further (groups that are not a power of two are covered by test/nbc).
    const auto out = comet::threads::run(2, [](comet::threads::transport& t) { return k::nbc(t, quick); });
    BOOST_TEST(out[1].empty());
    const comet::result_set& r = out[0];
    // Per operation and size (ibarrier: one): blocking, then 2 methods × (none, test at 2
    // intervals, thread) — the threads transport allows a progress thread.
    BOOST_TEST_REQUIRE(r.size() == k::nbc_points<comet::threads::transport>(quick));
    BOOST_TEST(r.size() == 9u * (1u + 2u * 4u));
    std::set<std::string> curves;
    const comet::record* blocking = nullptr;  // T_b's record of the point in progress
    for (const auto& rec : r.records) {
        BOOST_TEST(rec.kernel == "nbc");
        // The point's name: operation, size, nodes, implementation, algorithm, method, scheme
        // (and progression, interval); the window and what was measured in it are values.
        for (const char* name : {"operation", "size", "nodes", "implementation", "algorithm", "method", "scheme"})
            BOOST_TEST(rec.params.contains(name), name);
        for (const char* name : {"window", "widenings", "tolerance", "clock_error"})
            BOOST_TEST(rec.values.contains(name), name);
        // T_b is a value of every record but the blocking one whose windows all failed (a
        // loaded machine), which says so by its flag.
        if (comet::find_flag(rec.flags, "point") == nullptr || rec.params.text("method") != "blocking")
            BOOST_TEST(rec.values.contains("blocking"));
        for (const char* name : {"window", "overruns", "measurements", "blocking", "hidden", "curve"})
            BOOST_TEST(!rec.params.contains(name), name);
        BOOST_TEST((rec.params.text("implementation") == "schedule"));  // no native nonblocking collectives here
        // A window some rank started late, or lost its CPU in, is dropped, counted; valid +
        // dropped is every measurement made, at least the 4 wanted; fewer than 4 valid is said,
        // fewer than 2 flags the whole point (only on a loaded machine).
        BOOST_TEST(comet::total_measurements(rec) >= 4u);
        for (const auto& [why, n] : rec.dropped) BOOST_TEST((why == "late_start" || why == "preempted"), why);
        for (const auto& note : rec.notes) BOOST_TEST(comet_test::mentions(std::runtime_error(note), {"measurements valid", "4 wanted"}));
        if (comet::find_flag(rec.flags, "point") == nullptr) BOOST_TEST(comet::valid_count(rec) >= 2u);
        if (rec.params.text("method") == "blocking") {
            blocking = &rec;
            for (double x : rec.samples) BOOST_TEST(x > 0.0);
            // T_b: the median of the valid blocking measurements; a point without any (every
            // window failed, on a loaded machine) is flagged as a whole, and so is every record
            // sized from it (below).
            if (comet::valid_count(rec) > 0)
                BOOST_TEST(*rec.values.number("blocking") == median(rec));
            else
                BOOST_TEST(comet::find_flag(rec.flags, "point") != nullptr);
            continue;
        }
        BOOST_TEST_REQUIRE(blocking != nullptr);
        BOOST_TEST((blocking->params.text("operation") == rec.params.text("operation")));
        BOOST_TEST((blocking->params.number("size") == rec.params.number("size")));
        // T_b: none when its point kept no valid measurement (every window failed, or every
        // one was preempted on a loaded machine).
        const double t_b = blocking->values.number("blocking").value_or(0.0);
        if (const auto b = blocking->values.number("blocking"))
            BOOST_TEST(rec.values.number("blocking").value_or(-1.0) == *b);
        else
            BOOST_TEST(comet::find_flag(rec.flags, "point") != nullptr);  // sized from no T_b: flagged with it
        for (const char* name : {"progression", "interval"}) BOOST_TEST(rec.params.contains(name), name);
        for (const char* name : {"compute", "t_init", "t_test", "t_wait", "tests", "curve"}) BOOST_TEST(rec.values.contains(name), name);
        BOOST_TEST(rec.values.contains("workload") == (rec.params.text("method") == "work"));
        // N = ceil(size / interval) + 1 test calls.
        if (rec.params.text("progression") == "test") {
            const double n = *rec.params.number("size"), i = *rec.params.number("interval");
            BOOST_TEST(*rec.values.number("tests") == std::ceil(n / i) + 1);
        }
        // Time-based overhead is a sum of times a rank spent in calls: never negative. A
        // work-based one below zero is kept, marked invalid, and out of every figure.
        if (rec.params.text("method") == "time")
            for (double x : rec.samples) BOOST_TEST(x >= 0.0);
        // (A sample may also be invalid for a preemption of one of its ranks, on a loaded machine.)
        for (std::size_t i = 0; i < rec.samples.size(); ++i)
            if (rec.samples[i] < 0.0) BOOST_TEST(!comet::is_valid_sample(rec, i));
        // The share of T_b hidden: 1 − overhead / T_b within [0, 1], flagged when the overhead
        // exceeds T_b; and flagged with the whole point when T_b's point is.
        BOOST_TEST(rec.values.contains("hidden") == (comet::valid_count(rec) > 0 && t_b > 0));
        if (rec.values.contains("hidden")) {
            const double overhead = median(rec), hidden = *rec.values.number("hidden");
            BOOST_TEST((hidden >= 0.0 && hidden <= 1.0));
            BOOST_TEST(hidden == std::clamp(1.0 - overhead / t_b, 0.0, 1.0), boost::test_tools::tolerance(1e-9));
            if (overhead > t_b) BOOST_TEST(comet::find_flag(rec.flags, "hidden") != nullptr);
        }
        // A T_b whose samples disagree (its median flagged "statistics") flags the share too.
        if (rec.values.contains("hidden") && comet::find_flag(comet::assess(*blocking).flags, "statistics"))
            BOOST_TEST(comet::find_flag(rec.flags, "hidden") != nullptr);
        if (comet::find_flag(blocking->flags, "point")) {
            BOOST_TEST(comet::find_flag(rec.flags, "point") != nullptr);
            BOOST_TEST(comet::find_flag(rec.flags, "hidden") != nullptr);
        }
        curves.insert(*rec.values.text("curve"));
    }
    BOOST_TEST((curves == std::set<std::string>{"none", "test every 1024 B", "test every 65536 B", "thread"}));
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(the_simulator_shows_the_seeds_shape_for_a_64_KiB_broadcast_on_16_nodes) {
    // Virtual time: every figure is exact and the same on every run.
    const k::nbc_config cfg{.operations = {k::nbc_operation::ibcast},
                            .sizes = {65536},
                            .progressions = {k::progression::none, k::progression::test},
                            .intervals = {65536, 32768, 21846, 16384},
                            .methods = {k::overhead_method::time, k::overhead_method::work},
                            .window = {.measurements = 4}};
    const auto out = comet::nx2::run(comet::nx2::ipsc860(4), [&](comet::nx2::transport& t) { return k::nbc(t, cfg); });
    const comet::result_set& r = out[0];
    BOOST_TEST_REQUIRE(r.size() == k::nbc_points<comet::nx2::transport>(cfg));
    BOOST_TEST_REQUIRE((r.records.front().params.text("method") == "blocking"));
    const double t_b = median(r.records.front());
    BOOST_TEST(t_b == *r.records.front().values.number("blocking"));
    // Virtual time: every window starts on time, none is dropped, nothing is flagged.
    for (const auto& rec : r.records) {
        BOOST_TEST(rec.samples.size() == 4u);
        BOOST_TEST(rec.dropped.empty());
        BOOST_TEST(rec.flags.empty());
        BOOST_TEST(*rec.values.integer("widenings") == 0);
    }
    for (const char* method : {"time", "work"}) {
        BOOST_TEST_CONTEXT("method " << method) {
            // No progression: the tree's forwarding waits for the wait call.
            const comet::record* none = find(r, method, "none", 0);
            BOOST_TEST_REQUIRE(none);
            BOOST_TEST(median(*none) >= t_b / 2);
            // Tests at shrinking intervals: each extra test forwards a level earlier. (Two tests,
            // at the start and the end of the computation, hide nothing more than none.)
            double before = t_b;
            for (double interval : {65536.0, 32768.0, 21846.0, 16384.0}) {
                const comet::record* at = find(r, method, "test", interval);
                BOOST_TEST_REQUIRE(at);
                BOOST_TEST_CONTEXT("interval " << interval) {
                    BOOST_TEST(median(*at) < before);
                    BOOST_TEST(*at->values.number("hidden") == 1.0 - median(*at) / t_b, boost::test_tools::tolerance(1e-9));
                }
                before = median(*at);
            }
            BOOST_TEST(before < t_b / 10);  // at one test per tree level almost all of it is hidden
        }
    }
    // The workload was calibrated to T_b: computing it alone takes about as long.
    const comet::record* work = find(r, "work", "none", 0);
    BOOST_TEST(*work->values.number("compute") == t_b, boost::test_tools::tolerance(0.05));
}

BOOST_AUTO_TEST_CASE(the_simulators_progress_thread_is_modelled_in_time_slices) {
    // A node of the simulated iPSC/860 has one CPU and NX/2 no threads: the progress thread runs
    // after each quantum of the computation, its progress calls taken from the computation's
    // CPU (seed 002, figure 11's thread curve). On 4 nodes, a 4096-byte iallreduce: the thread
    // hides most of the collective's time from the time-based overhead (its own CPU is not
    // counted there), and the work-based overhead, which sees the stolen CPU, reads more.
    const k::nbc_config cfg{.operations = {k::nbc_operation::iallreduce},
                            .sizes = {4096},
                            .progressions = {k::progression::none, k::progression::thread},
                            .thread_quantum = 50e-6,
                            .window = {.measurements = 3}};
    const auto out = comet::nx2::run(comet::nx2::ipsc860(2), [&](comet::nx2::transport& t) { return k::nbc(t, cfg); });
    const comet::result_set& r = out[0];
    BOOST_TEST_REQUIRE(r.size() == k::nbc_points<comet::nx2::transport>(cfg));
    const comet::record* none_time = find(r, "time", "none", 0);
    const comet::record* thread_time = find(r, "time", "thread", 0);
    const comet::record* thread_work = find(r, "work", "thread", 0);
    BOOST_TEST_REQUIRE((none_time && thread_time && thread_work));
    for (const comet::record* rec : {thread_time, thread_work}) {
        BOOST_TEST((rec->values.text("thread") == "time_sliced"));
        BOOST_TEST(*rec->values.number("thread_quantum") == 50e-6);
        const double t_b = *rec->values.number("blocking");
        BOOST_TEST(*rec->values.integer("slices") == static_cast<std::int64_t>(std::ceil(t_b / 50e-6)));
        BOOST_TEST(rec->notes.empty());
        BOOST_TEST(comet::usable(*rec));
    }
    BOOST_TEST(!none_time->values.contains("thread"));
    BOOST_TEST(median(*thread_time) < median(*none_time) / 2);
    BOOST_TEST(median(*thread_work) > median(*thread_time));
}

BOOST_AUTO_TEST_CASE(what_a_transport_lacks_is_reported_not_supported) {
    // The simulator: no native nonblocking collectives.
    const k::nbc_config cfg{.operations = {k::nbc_operation::ibcast},
                            .sizes = {8},
                            .implementations = {comet::nbc::implementation::native, comet::nbc::implementation::schedule},
                            .progressions = {k::progression::thread},
                            .methods = {k::overhead_method::time},
                            .window = {.measurements = 3}};
    const auto out = comet::nx2::run(comet::nx2::ipsc860(2), [&](comet::nx2::transport& t) { return k::nbc(t, cfg); });
    const comet::result_set& r = out[0];
    BOOST_TEST_REQUIRE(r.size() == k::nbc_points<comet::nx2::transport>(cfg));
    BOOST_TEST_REQUIRE(r.size() == 3u);  // native: one "not supported"; schedule: blocking and thread
    BOOST_TEST((r.records[0].params.text("implementation") == "native"));
    BOOST_TEST(r.records[0].samples.empty());
    BOOST_TEST(comet_test::mentions(std::runtime_error(r.records[0].notes.at(0)), {"not supported", "nonblocking ibcast"}));
    BOOST_TEST((r.records[1].params.text("method") == "blocking"));
    BOOST_TEST(!r.records[1].samples.empty());
    BOOST_TEST((r.records[2].params.text("progression") == "thread"));
    BOOST_TEST(!r.records[2].samples.empty());  // modelled in time slices
}
#endif

BOOST_AUTO_TEST_CASE(a_transport_that_cannot_run_a_progress_thread_says_so) {
    // A transport of only the Transport concept's core: not thread_serialized, no time slices.
    const k::nbc_config cfg{.operations = {k::nbc_operation::ibcast},
                            .sizes = {8},
                            .progressions = {k::progression::thread},
                            .methods = {k::overhead_method::time},
                            .window = {.measurements = 3}};
    std::vector<comet::result_set> out(2);
    comet_test::minimal_runner{}(2, [&](comet_test::minimal_transport& t) { out[static_cast<std::size_t>(t.rank())] = k::nbc(t, cfg); });
    const comet::result_set& r = out[0];
    BOOST_TEST_REQUIRE(r.size() == 2u);  // blocking, and the thread's "not supported"
    BOOST_TEST((r.records[1].params.text("progression") == "thread"));
    BOOST_TEST(r.records[1].samples.empty());
    BOOST_TEST(comet_test::mentions(std::runtime_error(r.records[1].notes.at(0)), {"not supported", "progress thread"}));
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused_on_every_rank_with_the_value) {
    const auto refused = [](const k::nbc_config& c, std::initializer_list<const char*> words) {
        const auto said = comet::threads::run(3, [&](comet::threads::transport& t) -> std::string {
            try {
                (void)k::nbc(t, c);
            } catch (const comet::invalid_argument& e) {
                return e.what();
            }
            return "nothing raised";
        });
        comet_test::said_by_every_rank(said, words);
    };
    refused({.operations = {}}, {"no operation"});
    refused({.sizes = {}}, {"no size"});
    refused({.methods = {}}, {"no method"});
    refused({.root = 3}, {"root 3 is outside 0..2"});
    refused({.operations = {k::nbc_operation::iallreduce}, .sizes = {12}}, {"iallreduce size 12", "doubles"});
    refused({.operations = {k::nbc_operation::igather}, .sizes = {std::size_t{1} << 30}}, {"igather size 1073741824", "3 ranks"});
    refused({.intervals = {1024, 0}}, {"test interval of 0 bytes"});
    refused({.progressions = {k::progression::test}, .intervals = {}}, {"test progression", "without an interval"});
    refused({.schedules = {.segment = 0}}, {"segment of 0 bytes"});
    refused({.window = {.measurements = 0}}, {"window.measurements must be at least 1"});
    refused({.thread_quantum = 0.0}, {"thread_quantum = 0 s"});
}

BOOST_AUTO_TEST_CASE(operation_and_progression_names_read_back) {
    for (auto o : k::all_nbc_operations) BOOST_TEST((k::parse_nbc_operation(k::to_string(o)) == o));
    BOOST_TEST(!k::parse_nbc_operation("ibroadcast"));
    for (auto p : {k::progression::none, k::progression::test, k::progression::thread})
        BOOST_TEST((k::parse_progression(k::to_string(p)) == p));
    BOOST_TEST(!k::parse_progression("poll"));
}

BOOST_AUTO_TEST_SUITE_END()
