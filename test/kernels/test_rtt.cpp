// Tests of comet/kernels/rtt.hpp (the round-trip study of the `sync` kernel: seed 002, listing
// 4, figures 4-6): the analysis of round trips (the drift over the smallest quarter, the
// offset, the scatter), the seed's stopping-rule simulation against exact expectations, the
// records (every study, histogram counts that add up, drift segments in time order) on the
// threads transport, the drift against the decorator's known skews exactly on the simulated
// iPSC/860 (where built: COMET_TEST_HAS_NX2) and within a few ppm on threads, and bad input
// refused on every rank with the value.
#include <comet/kernels/rtt.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>
#include <comet/transport/threads.hpp>
#if COMET_TEST_HAS_NX2
#include <comet/transport/nx2.hpp>
#endif

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"
#include "../support/minimal_transport.hpp"

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace rtt_test {

namespace k = comet::kernels;

/// The records of `study` for `partner`, in order.
inline std::vector<comet::record> of(const comet::result_set& r, const std::string& study, int partner) {
    std::vector<comet::record> out;
    for (const auto& rec : r.records)
        if (rec.params.text("study") == study && rec.params.integer("partner") == partner) out.push_back(rec);
    return out;
}

/// The minimal transport with a disturbance counter that logs what its rank does: 'I' a
/// receive posted, 'S' a send, 'N' a clock reading, 'D' a reading of the counter, which moves
/// from 0 to 1 at rank `moves_on`'s `moves_at`-th reading (1-based).
class logged_transport : public comet_test::minimal_transport {
public:
    logged_transport(comet::threads::transport& inner, std::string& log, int moves_on, int moves_at)
        : minimal_transport(inner), log_(&log), moves_on_(moves_on), moves_at_(moves_at) {}
    request isend(int dest, int tag, comet::const_bytes data) {
        *log_ += 'S';
        return minimal_transport::isend(dest, tag, data);
    }
    request irecv(int source, int tag, comet::mutable_bytes data) {
        *log_ += 'I';
        return minimal_transport::irecv(source, tag, data);
    }
    double now() {
        *log_ += 'N';
        return minimal_transport::now();
    }
    std::uint64_t disturbances() {
        *log_ += 'D';
        return rank() == moves_on_ && ++reads_ >= moves_at_ ? 1 : 0;
    }

private:
    std::string* log_;
    int moves_on_, moves_at_, reads_ = 0;
};

}  // namespace rtt_test

BOOST_AUTO_TEST_SUITE(rtt)

// The partner does nothing but read its clock between its receive and its reply: its counter
// readings (a system call on threads) come after each reply, and its verdicts travel after the
// last measurement, when the test node asks. A move of its counter drops the one measurement
// whose window it falls in, and nothing else.
BOOST_AUTO_TEST_CASE(the_partner_reads_its_counter_outside_the_round_trips_and_its_verdict_counts) {
    // Reading 1 is before the first receive, reading i + 2 after reply i: the 7th after reply 5,
    // the 4th measured one (after 2 warm-up round trips).
    std::string logs[2];
    std::vector<comet::result_set> out(2);
    comet::threads::run(2, [&](comet::threads::transport& inner) {
        rtt_test::logged_transport t(inner, logs[inner.rank()], 1, 7);
        out[static_cast<std::size_t>(inner.rank())] = comet::kernels::rtt_study(t, {.partners = {1}, .measurements = 12, .bins = 4, .segments = 2});
    });
    const auto main = rtt_test::of(out[0], "latency", 1);
    BOOST_TEST_REQUIRE(main.size() == 1u);
    BOOST_TEST(main[0].samples.size() == 11u);
    BOOST_TEST_REQUIRE(main[0].dropped.size() == 1u);
    BOOST_TEST(main[0].dropped[0].first == "preempted");
    BOOST_TEST(main[0].dropped[0].second == 1u);
    // The partner's log: between posting a receive and the send that follows it, nothing but
    // the clock (and the receive's own polling, which logs nothing).
    const std::string& log = logs[1];
    std::size_t replies = 0;
    for (std::size_t i = log.find('I'); i != std::string::npos; i = log.find('I', i + 1)) {
        const std::size_t send = log.find('S', i);
        if (send == std::string::npos) break;
        const std::string between = log.substr(i + 1, send - i - 1);
        if (between == "N") ++replies;  // a measurement's: receive, clock, reply
        BOOST_TEST(between.find('D') == std::string::npos, "a counter reading inside a round trip: " << between);
    }
    BOOST_TEST(replies == 14u);  // 2 warm-up round trips and 12 measured
}

using namespace rtt_test;

BOOST_AUTO_TEST_CASE(the_smallest_quarter_gives_the_drift_that_slow_round_trips_hide) {
    // 100 round trips, one in four quick (1 µs) and exact; the others slow (1 ms) with a clock
    // difference off by up to half of it, as an asymmetric path makes it.
    std::vector<double> at, rtt, diff;
    for (int i = 0; i < 100; ++i) {
        at.push_back(0.01 * i);
        const bool quick = i % 4 == 0;
        rtt.push_back(quick ? 1e-6 : 1e-3);
        diff.push_back(0.25 + 20e-6 * at.back() + (quick ? 0.0 : 4e-4 * ((i * 7) % 5) / 4.0));
    }
    const k::rtt_analysis a = k::analyse_round_trips(at, rtt, diff);
    BOOST_TEST(a.min_rtt == 1e-6);
    BOOST_TEST(a.drift == 20e-6, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(a.offset == 0.25, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(a.scatter_quarter < 1e-12);
    BOOST_TEST(a.scatter_all > 1e-4);
    BOOST_TEST(std::fabs(a.drift_all - 20e-6) > 1e-7);  // the slow ones move the line

    BOOST_CHECK_THROW(k::analyse_round_trips(std::vector<double>(7), std::vector<double>(7), std::vector<double>(7)), comet::invalid_argument);
    BOOST_CHECK_THROW(k::analyse_round_trips(std::vector<double>(9), std::vector<double>(8), std::vector<double>(9)), comet::invalid_argument);
}

BOOST_AUTO_TEST_CASE(the_stopping_rule_simulation_meets_its_exact_expectations) {
    // One value: every trial stops after its first draw and N more, at the smallest.
    for (std::size_t n : {1u, 5u, 100u}) {
        const k::patience_quality q = k::simulate_patience(std::vector<double>{7e-6}, n, 50, 3);
        BOOST_TEST(q.quality == 0.0);
        BOOST_TEST(q.cost == static_cast<double>(n + 1));
        BOOST_TEST(q.minima.size() == 50u);
    }
    // Two values, 1 and 2 (twice as slow): a trial ends above the smallest only when it draws 2
    // first and then N more 2s, probability 2^-(N+1); its quality is then 100%.
    const std::vector<double> two{1.0, 2.0};
    for (std::size_t n : {1u, 2u, 3u}) {
        const std::size_t trials = 40000;
        const k::patience_quality q = k::simulate_patience(two, n, trials, 11);
        const double p = std::pow(0.5, static_cast<double>(n + 1));
        const double sigma = 100.0 * std::sqrt(p * (1 - p) / static_cast<double>(trials));
        BOOST_TEST(std::fabs(q.quality - 100.0 * p) < 4 * sigma, "N = " << n << ": " << q.quality << "% against " << 100 * p << "%");
        BOOST_TEST(q.cost >= static_cast<double>(n + 1));
    }
    // Seeded: the same seed, the same minima.
    BOOST_TEST(k::simulate_patience(two, 2, 100, 5).minima == k::simulate_patience(two, 2, 100, 5).minima);
    BOOST_CHECK_THROW(k::simulate_patience({}, 2, 10, 1), comet::invalid_argument);
    BOOST_CHECK_THROW(k::simulate_patience(two, 0, 10, 1), comet::invalid_argument);
    BOOST_CHECK_THROW(k::simulate_patience(two, 2, 0, 1), comet::invalid_argument);
}

BOOST_AUTO_TEST_CASE(threads_give_every_study_and_the_skews_drift_within_a_few_ppm) {
    // The threads transport's clock is global: the study skews each rank's (±100 ppm) and the
    // drift it measures has a true value. 2,000 round trips of about a microsecond, 50 us
    // apart, span 0.1 s: a clock difference off by half a round trip moves a line over that
    // span by a few ppm at most. The smallest quarter's line finds the drift within 10 ppm,
    // where every round trip's line (slow round trips included) may be far off.
    const k::rtt_config cfg{.measurements = 2000, .interval = 50e-6, .patience = {1, 10, 100}, .trials = 200};
    // On a machine so loaded that nearly every round trip loses a CPU, the point is flagged,
    // saying so, and the study is taken again (up to three times).
    comet::result_set r;
    for (int attempt = 0; attempt < 3; ++attempt) {
        const auto out = comet::threads::run(2, [&](comet::threads::transport& t) { return k::rtt_study(t, cfg); });
        BOOST_TEST(out[1].empty());
        r = out[0];
        const auto first = of(r, "latency", 1);
        BOOST_TEST_REQUIRE(first.size() == 1u);
        BOOST_TEST_MESSAGE("threads: " << first[0].samples.size() << " of 2000 round trips undisturbed");
        if (comet::usable(first[0])) break;
        BOOST_TEST_REQUIRE(comet::find_flag(first[0].flags, "point") != nullptr);
        BOOST_TEST(comet::find_flag(first[0].flags, "point")->why.ends_with("a drift needs 8"));
    }
    const auto main = of(r, "latency", 1);
    const comet::record& m = main[0];
    if (!comet::usable(m)) return;  // flagged three times over, each saying why (above)
    BOOST_TEST((m.params.text("skew") == "decorator"));
    BOOST_TEST(m.samples.size() + (m.dropped.empty() ? 0u : m.dropped[0].second) == 2000u);
    for (double x : m.samples) BOOST_TEST(x > 0.0);
    const double truth = *m.values.number("true_drift");
    BOOST_TEST(std::fabs(truth) <= 2 * 100e-6);
    BOOST_TEST(std::fabs(*m.values.number("drift") - truth) < 10e-6,
               "drift " << *m.values.number("drift") << " against " << truth);
    // The scatters are RMS residuals: the quarter's need not be below all's (where every round
    // trip is quick alike, a line through fewer points can scatter more).
    for (const char* scatter : {"scatter_quarter", "scatter_all"}) BOOST_TEST(*m.values.number(scatter) >= 0.0, scatter);
    BOOST_TEST(*m.values.number("min_rtt") == 2 * *std::min_element(m.samples.begin(), m.samples.end()),
               boost::test_tools::tolerance(1e-12));

    // Figure 4: the bins hold every latency up to the 99th percentile (or fewer, where the
    // median + 10 interquartile ranges is lower), a note says how many lay beyond.
    std::size_t binned = 0, beyond_notes = 0;
    double last = -1.0;
    for (const auto& bin : of(r, "histogram", 1)) {
        BOOST_TEST(*bin.values.integer("count") == static_cast<std::int64_t>(bin.samples.size()));
        BOOST_TEST(*bin.values.number("latency_us") > last);
        last = *bin.values.number("latency_us");
        binned += bin.samples.size();
        beyond_notes += bin.notes.size();
    }
    BOOST_TEST(binned <= m.samples.size());
    BOOST_TEST(binned >= m.samples.size() * 3 / 4);  // everything up to the third quartile at least
    BOOST_TEST(beyond_notes == (binned < m.samples.size() ? 1u : 0u));

    // Figure 5: 20 parts in time order, each its quarter of quick round trips.
    const auto drift = of(r, "drift", 1);
    BOOST_TEST_REQUIRE(drift.size() == 20u);
    for (std::size_t i = 1; i < drift.size(); ++i) {
        BOOST_TEST(*drift[i].params.integer("part") == static_cast<std::int64_t>(i));
        BOOST_TEST(*drift[i].values.number("at_s") > *drift[i - 1].values.number("at_s"));
    }
    for (const auto& d : drift) BOOST_TEST(!d.samples.empty());

    // Figure 6: a record per N; a larger N costs more and finds a minimum at least as good.
    const auto quality = of(r, "quality", 1);
    BOOST_TEST_REQUIRE(quality.size() == 3u);
    for (std::size_t i = 0; i < quality.size(); ++i) {
        BOOST_TEST(*quality[i].params.integer("patience") == static_cast<std::int64_t>(cfg.patience[i]));
        BOOST_TEST(quality[i].samples.size() == 200u);
        BOOST_TEST(*quality[i].values.number("quality") >= 0.0);
    }
    BOOST_TEST(*quality[2].values.number("cost") > *quality[0].values.number("cost"));
    BOOST_TEST(*quality[2].values.number("quality") <= *quality[0].values.number("quality"));
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(on_the_ipsc860_the_drift_is_the_skews_exactly_and_every_round_trip_alike) {
    const auto out = comet::nx2::run(comet::nx2::ipsc860(2), [](comet::nx2::transport& t) {
        return k::rtt_study(t, {.partners = {1, 3}, .measurements = 200, .interval = 1e-3, .segments = 10});
    });
    const comet::result_set& r = out[0];
    for (int partner : {1, 3}) {
        BOOST_TEST_CONTEXT("partner " << partner) {
            const auto main = of(r, "latency", partner);
            BOOST_TEST_REQUIRE(main.size() == 1u);
            const comet::record& m = main[0];
            BOOST_TEST(m.samples.size() == 200u);
            BOOST_TEST(m.dropped.empty());
            const double truth = *m.values.number("true_drift");
            BOOST_TEST(truth != 0.0);
            BOOST_TEST(std::fabs(*m.values.number("drift") - truth) < 1e-12);
            BOOST_TEST(*m.values.number("duration") >= 199 * 1e-3);
            // Virtual time: every round trip is the same, read on a clock that drifts.
            BOOST_TEST(*std::max_element(m.samples.begin(), m.samples.end()) - *std::min_element(m.samples.begin(), m.samples.end()) < 1e-12);
            BOOST_TEST(of(r, "histogram", partner).size() == 1u);
            // The clock difference grows by the drift: each part's within truth x its span of
            // time (its quarter of alike round trips may lie anywhere in it).
            const double part = *m.values.number("duration") / 10;
            for (const auto& d : of(r, "drift", partner))
                BOOST_TEST(std::fabs(comet::summarize(d).median - truth * *d.values.number("at_s")) <= std::fabs(truth) * part / 2 + 1e-12);
            for (const auto& q : of(r, "quality", partner)) BOOST_TEST(*q.values.number("quality") < 1e-6);
        }
    }
}
#endif

BOOST_AUTO_TEST_CASE(bad_input_is_refused_on_every_rank_with_the_value) {
    const auto refused = [](int ranks, const k::rtt_config& cfg, std::initializer_list<const char*> words) {
        std::vector<std::string> said(static_cast<std::size_t>(ranks));
        comet::threads::run(ranks, [&](comet::threads::transport& t) {
            try {
                (void)k::rtt_study(t, cfg);
            } catch (const comet::invalid_argument& e) {
                said[static_cast<std::size_t>(t.rank())] = e.what();
            }
            return 0;
        });
        comet_test::said_by_every_rank(said, words);
    };
    refused(1, {}, {"2 ranks", "has 1"});
    refused(2, {.partners = {0}}, {"partner 0", "test node itself"});
    refused(2, {.partners = {2}}, {"partner 2", "0..1"});
    refused(2, {.measurements = 7}, {"measurements = 7"});
    refused(2, {.interval = -1.0}, {"interval = -1"});
    refused(2, {.bins = 0}, {"bins = 0"});
    refused(2, {.measurements = 10, .segments = 11}, {"segments = 11", "1..10"});
    refused(2, {.patience = {5, 0}}, {"patience 0"});
    refused(2, {.trials = 0}, {"trials = 0"});
    refused(2, {.tag = -3}, {"tag -3"});
    refused(2, {.test_node = 2}, {"test node 2"});
    refused(2, {.skew = {.max_drift_ppm = -1.0}}, {"max_drift_ppm -1"});
}

BOOST_AUTO_TEST_SUITE_END()
