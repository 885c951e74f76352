// Tests of comet/timing/measure.hpp: the sampling engine on the threads transport.
//
// Almost every test runs on a virtual clock (`virtual_clock_transport` below): each rank's clock
// is a counter of nanoseconds that only the body advances, through `compute(work::busy(s))`,
// by exactly s — as the simulated iPSC/860 charges virtual time. Durations, calibrations,
// stopping rules and budgets then come out the same on any machine, however loaded. The one
// real-clock test checks only what the engine's own rules promise about the times it measured.
#include <comet/timing/measure.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace test_measure_detail {

using comet::threads::run;

/// A decorator on the threads transport with a clock of its own: a per-rank count of
/// nanoseconds, advanced only by `compute(work::busy(s))` (by s, rounded to whole ns) and, if
/// `read_cost_ns` is set, by that much after each reading. Messages pass through unchanged
/// (blocking ones too, so the threads transport still reports a deadlock); those on the
/// engine's tag are counted.
template <comet::transport Inner>
class virtual_clock_transport {
public:
    using request = typename Inner::request;
    explicit virtual_clock_transport(Inner& t, std::int64_t read_cost_ns = 0) : t_(&t), read_cost_ns_(read_cost_ns) {}

    std::size_t engine_sends = 0, engine_recvs = 0;  ///< messages on comet::detail::measure_tag

    int rank() const { return t_->rank(); }
    int size() const { return t_->size(); }
    void send(int d, int tag, comet::const_bytes b) {
        if (tag == comet::detail::measure_tag) ++engine_sends;
        t_->send(d, tag, b);
    }
    comet::status recv(int s, int tag, comet::mutable_bytes b) {
        if (tag == comet::detail::measure_tag) ++engine_recvs;
        return t_->recv(s, tag, b);
    }
    request isend(int d, int tag, comet::const_bytes b) { return t_->isend(d, tag, b); }
    request irecv(int s, int tag, comet::mutable_bytes b) { return t_->irecv(s, tag, b); }
    comet::status wait(request& r) { return t_->wait(r); }
    std::optional<comet::status> test(request& r) { return t_->test(r); }
    void wait_all(std::span<request> rs) { t_->wait_all(rs); }
    std::optional<comet::status> iprobe(int s, int tag) { return t_->iprobe(s, tag); }
    void barrier() { t_->barrier(); }
    double now() {
        const double seconds = static_cast<double>(ns_) * 1e-9;
        ns_ += read_cost_ns_;
        return seconds;
    }
    void compute(const comet::work& w) {
        if (w.kind == comet::work_kind::busy)
            ns_ += std::llround(w.seconds * 1e9);
        else
            t_->compute(w);
    }

private:
    Inner* t_;
    std::int64_t read_cost_ns_;
    std::int64_t ns_ = 1'000'000'000;  // starts at 1 s, as a real clock would not start at 0
};

using vtransport = virtual_clock_transport<comet::threads::transport>;
static_assert(comet::transport<vtransport>);

/// One call of the sample function: which point, with how many iterations.
struct call {
    std::size_t point = 0, iterations = 0;
    friend bool operator==(const call&, const call&) = default;
    friend std::ostream& operator<<(std::ostream& os, const call& c) {
        return os << "(point " << c.point << ", " << c.iterations << " iterations)";
    }
};

/// What a rank saw and got back from `sample_points`.
struct outcome {
    std::vector<call> calls;
    std::vector<comet::sampled_point> points;
    std::size_t engine_sends = 0, engine_recvs = 0;
};

/// A sample of `seconds` per iteration on `t`'s virtual clock: a repeat loop whose body is busy
/// work of that duration.
inline comet::repeat_result busy_sample(vtransport& t, std::size_t iterations, double seconds) {
    return comet::repeat(t, iterations, [&] { comet::ops::compute(t, comet::work::busy(seconds)); });
}

/// Runs `sample_points` on the virtual clock, on the ranks `ranks` of a group of `nodes` (the
/// others only wait at a closing barrier), with decider `decider`. A sample of point p on rank r
/// is a repeat loop whose body is `seconds(r, p, k)` of busy work, k counting that point's calls
/// on the rank (0: its first calibration run); with the `decider` reduction only the decider
/// times, with max_over_ranks every taking part rank does. Every taking part rank records its
/// calls.
struct virtual_run {
    int nodes = 1;
    std::vector<int> ranks = {0};
    int decider = 0;
    std::size_t points = 1;
    comet::sampling cfg = {};
    comet::sample_reduction reduction = comet::sample_reduction::decider;
    std::int64_t read_cost_ns = 0;

    template <class Seconds>
    std::vector<outcome> operator()(Seconds&& seconds) const {
        return run(nodes, [&](comet::threads::transport& inner) {
            vtransport t(inner, read_cost_ns);
            outcome o;
            const bool taking_part = std::find(ranks.begin(), ranks.end(), t.rank()) != ranks.end();
            if (taking_part) {
                std::vector<std::size_t> count(points, 0);
                o.points = comet::sample_points(
                    t, points, cfg, decider, ranks, reduction,
                    [&](std::size_t p, std::size_t iterations) -> std::optional<comet::repeat_result> {
                        // A runaway engine fails the test instead of hanging it: no test here
                        // needs more than a few hundred runs or a million iterations.
                        if (o.calls.size() > 10'000 || iterations > 1'000'000)
                            throw std::runtime_error("sample_points runs away: call " + std::to_string(o.calls.size()) +
                                                     " with " + std::to_string(iterations) + " iterations");
                        o.calls.emplace_back(p, iterations);
                        const std::size_t k = count[p]++;
                        if (t.rank() != decider && reduction == comet::sample_reduction::decider) return std::nullopt;
                        return busy_sample(t, iterations, seconds(t.rank(), p, k));
                    });
            }
            o.engine_sends = t.engine_sends;
            o.engine_recvs = t.engine_recvs;
            inner.barrier();
            return o;
        });
    }
};

/// The calls every rank makes for calibration runs `calibration` (one per point, in point
/// order) followed by `rounds`, each a list of points sampled with `iterations`, each sample
/// after its untimed iteration (the warm caches a sample starts from).
inline std::vector<call> expected_calls(std::size_t points, std::size_t calibration_iterations,
                                        const std::vector<std::vector<std::size_t>>& rounds, std::size_t iterations) {
    std::vector<call> out;
    for (std::size_t p = 0; p < points; ++p) out.emplace_back(p, calibration_iterations);
    for (const auto& round : rounds)
        for (std::size_t p : round) {
            out.emplace_back(p, 1);
            out.emplace_back(p, iterations);
        }
    return out;
}

/// `calls` without the untimed single iterations before each sample (when samples have more).
inline std::vector<call> timed(const std::vector<call>& calls) {
    std::vector<call> out;
    for (const call& c : calls)
        if (c.iterations != 1) out.push_back(c);
    return out;
}

/// Four points for the interleaving tests: points 0 and 2 take a constant time, so the 95%
/// interval of their median is a point and they close at min_samples (15) by `interval`;
/// points 1 and 3 take 1.0, 1.3 and 1.6 times their base in turn, an interval far wider than
/// 2%, so they run to max_samples (25).
inline double four_points(int, std::size_t p, std::size_t k) {
    const double base = (p == 0 ? 10 : p == 1 ? 20 : p == 2 ? 30 : 40) * 1e-6;
    return p % 2 == 0 ? base : base * (1.0 + 0.3 * static_cast<double>(k % 3));
}
inline comet::sampling four_points_sampling(comet::interleave order, std::uint64_t seed = 1993) {
    return {.min_samples = 15, .max_samples = 25, .target_ci = 0.02, .iterations = 10, .warmup_seconds = 0.0,
            .budget_seconds = 100.0, .order = order, .seed = seed};
}

/// The rounds that follow the calibration in `calls` (timed ones; 4 calibration calls): split
/// where a point comes back before every open point had its turn. Assumes the four-point run.
inline std::vector<std::vector<std::size_t>> rounds_of(const std::vector<call>& calls) {
    std::vector<std::vector<std::size_t>> rounds;
    for (std::size_t i = 4, round = 0; i < calls.size(); ++round) {
        const std::size_t size = round < 15 ? 4 : 2;  // all four open, then points 1 and 3
        rounds.emplace_back();
        for (std::size_t j = 0; j < size && i < calls.size(); ++j) rounds.back().push_back(calls[i++].point);
    }
    return rounds;
}

}  // namespace test_measure_detail

BOOST_AUTO_TEST_SUITE(measure)

using namespace test_measure_detail;

BOOST_AUTO_TEST_CASE(calibration_grows_the_iterations_until_a_sample_lasts_the_minimum) {
    // 10 µs per iteration, samples of at least 1 ms: from 1 iteration the engine grows at most
    // ×16 per step (1 → 16), then aims 20% past the minimum from what 16 took: 16 × 1.2 ×
    // 1 ms / 160 µs = 120 (121 if the division rounds up a hair). That run lasts 1.2 ms ≥ 1 ms.
    virtual_run v;
    v.cfg = {.min_samples = 3, .max_samples = 3, .min_sample_seconds = 1e-3, .warmup_seconds = 0.0};
    const auto r = v([](int, std::size_t, std::size_t) { return 10e-6; });
    const auto& calls = r[0].calls;
    BOOST_TEST_REQUIRE(calls.size() == 3u + 2u * 3u);
    BOOST_TEST(calls[0].iterations == 1u);
    BOOST_TEST(calls[1].iterations == 16u);
    const std::size_t it = calls[2].iterations;
    BOOST_TEST((it == 120u || it == 121u));
    for (std::size_t i = 3; i < calls.size(); i += 2) {
        BOOST_TEST(calls[i].iterations == 1u);       // the untimed iteration before a sample
        BOOST_TEST(calls[i + 1].iterations == it);  // the sample
    }
    const auto& p = r[0].points.at(0);
    BOOST_TEST(p.iterations == it);
    BOOST_TEST(static_cast<double>(p.iterations) * 10e-6 >= 1e-3);
    BOOST_TEST(!p.short_samples);
    BOOST_TEST_REQUIRE(p.samples.size() == 3u);
    for (double s : p.samples) BOOST_TEST(s == 10e-6, boost::test_tools::tolerance(1e-9));
    for (double o : p.overheads) BOOST_TEST(o == 0.0);  // nothing advances the clock in the empty loop
}

BOOST_AUTO_TEST_CASE(calibration_on_the_real_clock_keeps_its_own_rules) {
    // A body of at least 20 µs of busy waiting on the machine's clock. How long each run took
    // depends on the machine; what the engine does with those times does not: iterations start
    // at 1 and grow at most ×16 per run, every calibration run but the last was shorter than the
    // minimum, the last was not, and the samples use its iteration count.
    struct seen {
        std::size_t iterations;
        double loop;
    };
    const auto r = run(1, [](comet::threads::transport& t) {
        std::vector<seen> runs;
        const comet::sampling cfg{.min_samples = 2, .max_samples = 2, .min_sample_seconds = 1e-3, .warmup_seconds = 0.0};
        const std::vector<int> ranks{0};
        auto points = comet::sample_points(t, 1, cfg, 0, ranks, comet::sample_reduction::decider,
                                           [&](std::size_t, std::size_t iterations) -> std::optional<comet::repeat_result> {
                                               auto x = comet::repeat(t, iterations, [] { comet::perform(comet::work::busy(20e-6)); });
                                               runs.push_back({iterations, x.loop_seconds});
                                               return x;
                                           });
        return std::pair{runs, points.at(0)};
    });
    const auto& [runs, point] = r[0];
    BOOST_TEST_REQUIRE(runs.size() >= 5u);  // at least one calibration run, then the 2 samples, each after one iteration
    const std::size_t calibration = runs.size() - 4;
    BOOST_TEST(runs[0].iterations == 1u);
    BOOST_TEST(runs[0].loop >= 20e-6);  // a busy wait lasts at least as long as asked
    for (std::size_t i = 1; i < calibration; ++i) {
        BOOST_TEST(runs[i].iterations > runs[i - 1].iterations);
        BOOST_TEST(runs[i].iterations <= 16 * runs[i - 1].iterations);
    }
    for (std::size_t i = 0; i + 1 < calibration; ++i) BOOST_TEST(runs[i].loop < 1e-3);
    BOOST_TEST(runs[calibration - 1].loop >= 1e-3);
    BOOST_TEST(point.iterations == runs[calibration - 1].iterations);
    BOOST_TEST(runs[calibration].iterations == 1u);
    BOOST_TEST(runs[calibration + 1].iterations == point.iterations);
    BOOST_TEST(runs[calibration + 2].iterations == 1u);
    BOOST_TEST(runs[calibration + 3].iterations == point.iterations);
    BOOST_TEST(!point.short_samples);
}

BOOST_AUTO_TEST_CASE(a_point_warms_up_for_its_warmup_time) {
    // Fixed 100 iterations of 10 µs: 1 ms per run. With 4.5 ms of warm-up each point runs 5
    // untimed runs (1, 2, 3, 4 ms are not enough, 5 is), then its samples; the next point warms
    // up afresh.
    virtual_run v;
    v.points = 2;
    v.cfg = {.min_samples = 2, .max_samples = 2, .iterations = 100, .warmup_seconds = 4.5e-3};
    const auto r = v([](int, std::size_t, std::size_t) { return 10e-6; });
    std::vector<call> want;
    for (std::size_t p : {0u, 1u})
        for (int i = 0; i < 5; ++i) want.emplace_back(p, 100);
    for (int round = 0; round < 2; ++round)
        for (std::size_t p : {0u, 1u}) {
            want.emplace_back(p, 1);
            want.emplace_back(p, 100);
        }
    BOOST_TEST(r[0].calls == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(fixed_iterations_shorter_than_the_minimum_are_kept_and_said_so) {
    // 10 iterations of 1 µs are 10 µs, a hundredth of the 1 ms asked for: kept, and flagged.
    virtual_run v;
    v.cfg = {.min_samples = 3, .max_samples = 3, .iterations = 10, .min_sample_seconds = 1e-3, .warmup_seconds = 0.0};
    auto r = v([](int, std::size_t, std::size_t) { return 1e-6; });
    auto& p = r[0].points.at(0);
    BOOST_TEST(p.iterations == 10u);
    BOOST_TEST(p.short_samples);
    comet::record rec{"k", {}, {}};
    comet::fill_record(rec, std::move(p), v.cfg, comet::sample_reduction::decider);
    BOOST_TEST_REQUIRE(rec.notes.size() == 1u);
    BOOST_TEST(rec.notes[0].find("shorter than the minimum duration") != std::string::npos);
    BOOST_TEST(rec.iterations == 10u);

    // 2000 iterations of 1 µs last 2 ms: no flag, no note.
    v.cfg.iterations = 2000;
    auto ok = v([](int, std::size_t, std::size_t) { return 1e-6; });
    BOOST_TEST(!ok[0].points.at(0).short_samples);
    comet::record fine{"k", {}, {}};
    comet::fill_record(fine, std::move(ok[0].points.at(0)), v.cfg, comet::sample_reduction::decider);
    BOOST_TEST(fine.notes.empty());
}

BOOST_AUTO_TEST_CASE(a_body_the_clock_cannot_see_ends_calibration_and_warm_up) {
    // A body that costs no time on a clock that only the body advances (a local operation on
    // the simulated iPSC/860): more iterations cannot make a sample last longer, and no warm-up
    // time ever passes. The engine takes one iteration and stops, instead of looping for ever.
    virtual_run v;
    v.cfg = {};  // the defaults: calibrated iterations, 1 ms of warm-up, 15 to 101 samples
    auto r = v([](int, std::size_t, std::size_t) { return 0.0; });
    const auto& p = r[0].points.at(0);
    BOOST_TEST(p.iterations == 1u);
    BOOST_TEST(!p.short_samples);  // exact zeros, not too short for the clock
    BOOST_TEST(p.samples.size() == 15u);
    for (double s : p.samples) BOOST_TEST(s == 0.0);
    // Fixed iterations and a warm-up time: the same.
    v.cfg = {.iterations = 5};
    r = v([](int, std::size_t, std::size_t) { return 0.0; });
    BOOST_TEST(r[0].points.at(0).iterations == 5u);
    BOOST_TEST(r[0].points.at(0).samples.size() == 15u);
}

BOOST_AUTO_TEST_CASE(stop_by_interval) {
    // The default sampling and bodies of exactly 1 and 2 µs: every sample of a point is the
    // same, the 95% interval of its median is a point, and each point closes at its 15th sample.
    // Calibration of the first: 1 → 16 (×16 at most) → 240 (or 241) iterations, 240 µs ≥
    // 200 µs; warm-up adds runs until 1 ms of virtual time has passed.
    virtual_run v;
    v.points = 2;
    const auto micros = [](std::size_t p) { return p == 0 ? 1e-6 : 2e-6; };
    const auto r = v([&](int, std::size_t p, std::size_t) { return micros(p); });
    for (std::size_t q = 0; q < 2; ++q) {
        const auto& p = r[0].points.at(q);
        BOOST_TEST(comet::to_string(p.stop) == "interval");
        BOOST_TEST(p.samples.size() == 15u);
        BOOST_TEST(static_cast<double>(p.iterations) * micros(q) >= 200e-6);
        for (double s : p.samples) BOOST_TEST(s == micros(q), boost::test_tools::tolerance(1e-9));
    }
    BOOST_TEST((r[0].points[0].iterations == 240u || r[0].points[0].iterations == 241u));
}

BOOST_AUTO_TEST_CASE(stop_by_max_samples) {
    // Never early (target_ci 0), a budget far away: the cap ends it.
    virtual_run v;
    v.cfg = {.min_samples = 3, .max_samples = 7, .target_ci = 0.0, .iterations = 10, .warmup_seconds = 0.0,
             .budget_seconds = 100.0};
    const auto r = v([](int, std::size_t, std::size_t) { return 10e-6; });
    BOOST_TEST(comet::to_string(r[0].points.at(0).stop) == "max_samples");
    BOOST_TEST(r[0].points.at(0).samples.size() == 7u);
}

BOOST_AUTO_TEST_CASE(stop_by_budget) {
    // Samples of 10 × 100 µs = 1 ms, never early: a 4.5 ms budget is spent by the 5th sample.
    virtual_run v;
    v.cfg = {.min_samples = 3, .target_ci = 0.0, .iterations = 10, .warmup_seconds = 0.0, .budget_seconds = 4.5e-3};
    auto r = v([](int, std::size_t, std::size_t) { return 100e-6; });
    BOOST_TEST(comet::to_string(r[0].points.at(0).stop) == "budget");
    BOOST_TEST(r[0].points.at(0).samples.size() == 5u);
    // But never before min_samples: with 8 the budget is long spent, and the 8th sample stops it.
    v.cfg.min_samples = 8;
    r = v([](int, std::size_t, std::size_t) { return 100e-6; });
    BOOST_TEST(comet::to_string(r[0].points.at(0).stop) == "budget");
    BOOST_TEST(r[0].points.at(0).samples.size() == 8u);
    // The default budget: three times what min_samples samples take (3 × 3 × 1 ms = 9 ms), so
    // 9 samples (10 if the sum of nine 1 ms samples rounds just below 9 ms).
    v.cfg.min_samples = 3;
    v.cfg.budget_seconds = 0.0;
    r = v([](int, std::size_t, std::size_t) { return 100e-6; });
    BOOST_TEST(comet::to_string(r[0].points.at(0).stop) == "budget");
    const std::size_t n = r[0].points.at(0).samples.size();
    BOOST_TEST((n == 9u || n == 10u));
}

BOOST_AUTO_TEST_CASE(stop_fixed_takes_exactly_the_samples_asked_for) {
    // fixed_sampling(4, 3): one untimed run of 3 iterations, then 4 samples of 3.
    virtual_run v;
    v.cfg = comet::fixed_sampling(4, 3);
    const auto r = v([](int, std::size_t, std::size_t) { return 5e-6; });
    BOOST_TEST(r[0].calls == expected_calls(1, 3, {{0}, {0}, {0}, {0}}, 3), boost::test_tools::per_element());
    BOOST_TEST(comet::to_string(r[0].points.at(0).stop) == "fixed");
    BOOST_TEST(r[0].points.at(0).samples.size() == 4u);
    BOOST_TEST(r[0].points.at(0).iterations == 3u);
}

BOOST_AUTO_TEST_CASE(round_robin_every_rank_runs_the_same_sequence) {
    // Three ranks take part (decider 1); rank 3 of the group does not call the engine at all.
    virtual_run v;
    v.nodes = 4;
    v.ranks = {0, 1, 2};
    v.decider = 1;
    v.points = 4;
    v.cfg = four_points_sampling(comet::interleave::round_robin);
    const auto r = v(four_points);
    std::vector<std::vector<std::size_t>> rounds(15, {0, 1, 2, 3});
    rounds.insert(rounds.end(), 10, {1, 3});
    const auto want = expected_calls(4, 10, rounds, 10);
    for (int rank : {0, 1, 2})
        BOOST_TEST(r[static_cast<std::size_t>(rank)].calls == want, boost::test_tools::per_element());
    BOOST_TEST(r[3].calls.empty());
    const auto& points = r[1].points;
    for (std::size_t p : {0u, 2u}) {
        BOOST_TEST(comet::to_string(points[p].stop) == "interval");
        BOOST_TEST(points[p].samples.size() == 15u);
    }
    for (std::size_t p : {1u, 3u}) {
        BOOST_TEST(comet::to_string(points[p].stop) == "max_samples");
        BOOST_TEST(points[p].samples.size() == 25u);
    }
    // Only the decider has the samples.
    for (int rank : {0, 2})
        for (const auto& p : r[static_cast<std::size_t>(rank)].points) BOOST_TEST(p.samples.empty());
}

BOOST_AUTO_TEST_CASE(shuffle_every_rank_runs_the_same_sequence_reproducibly_per_seed) {
    virtual_run v;
    v.nodes = 3;
    v.ranks = {0, 1, 2};
    v.decider = 2;
    v.points = 4;
    v.cfg = four_points_sampling(comet::interleave::shuffle, 7);
    const auto a = v(four_points);
    const auto again = v(four_points);
    v.cfg.seed = 8;
    const auto b = v(four_points);
    for (int rank : {0, 1})
        BOOST_TEST(a[static_cast<std::size_t>(rank)].calls == a[2].calls, boost::test_tools::per_element());
    for (int rank : {0, 1})
        BOOST_TEST(b[static_cast<std::size_t>(rank)].calls == b[2].calls, boost::test_tools::per_element());
    BOOST_TEST(again[2].calls == a[2].calls, boost::test_tools::per_element());  // one seed, one order
    BOOST_TEST((b[2].calls != a[2].calls));                                     // another seed, another
    // Each round visits every open point once, in some order; calibration stays in point order.
    for (const auto* x : {&a, &b}) {
        BOOST_TEST_REQUIRE((*x)[2].calls.size() == 4u + 2u * (15u * 4u + 10u * 2u));
        const auto calls = timed((*x)[2].calls);
        BOOST_TEST_REQUIRE(calls.size() == 4u + 15u * 4u + 10u * 2u);
        for (std::size_t p = 0; p < 4; ++p) BOOST_TEST(calls[p].point == p);
        const auto rounds = rounds_of(calls);
        for (std::size_t i = 0; i < rounds.size(); ++i) {
            auto sorted = rounds[i];
            std::sort(sorted.begin(), sorted.end());
            BOOST_TEST(sorted == (i < 15 ? std::vector<std::size_t>{0, 1, 2, 3} : std::vector<std::size_t>{1, 3}),
                       boost::test_tools::per_element());
        }
        // Some round is not in point order (the shuffle did something).
        bool shuffled = false;
        for (const auto& round : rounds) shuffled = shuffled || !std::is_sorted(round.begin(), round.end());
        BOOST_TEST(shuffled);
        // The stopping rule sees the same samples whatever the order.
        const auto& points = (*x)[2].points;
        BOOST_TEST(points[0].samples.size() == 15u);
        BOOST_TEST(points[1].samples.size() == 25u);
    }
}

BOOST_AUTO_TEST_CASE(order_none_takes_every_sample_of_a_point_before_the_next) {
    virtual_run v;
    v.nodes = 2;
    v.ranks = {0, 1};
    v.points = 4;
    v.cfg = four_points_sampling(comet::interleave::none);
    const auto r = v(four_points);
    std::vector<std::vector<std::size_t>> rounds;
    for (std::size_t p = 0; p < 4; ++p) rounds.insert(rounds.end(), p % 2 == 0 ? 15 : 25, {p});
    const auto want = expected_calls(4, 10, rounds, 10);
    BOOST_TEST(r[0].calls == want, boost::test_tools::per_element());
    BOOST_TEST(r[1].calls == want, boost::test_tools::per_element());
    BOOST_TEST(comet::to_string(r[0].points[0].stop) == "interval");
    BOOST_TEST(comet::to_string(r[0].points[1].stop) == "max_samples");
}

BOOST_AUTO_TEST_CASE(decisions_are_messages_to_the_ranks_taking_part_only) {
    // fixed_sampling(3, 2), 2 points, decider 2 of ranks {0, 2, 3} in a group of 4: the decider
    // sends every other taking part rank 1 (the clock's step) + 2 (one calibration run per
    // point) + 2 × 3 ("go" before each sample) + 3 (one per round) decisions; in order none,
    // the one per round is one per sample. Every decision is answered: the answer to a "go"
    // is what says the rank is ready, so the common start time is one all ranks can reach.
    // This transport counts no disturbances, so no rank asks the others for theirs.
    for (auto order : {comet::interleave::round_robin, comet::interleave::none}) {
        BOOST_TEST_CONTEXT("order " << comet::to_string(order)) {
            virtual_run v;
            v.nodes = 4;
            v.ranks = {0, 2, 3};
            v.decider = 2;
            v.points = 2;
            v.cfg = comet::fixed_sampling(3, 2);
            v.cfg.order = order;
            const auto r = v([](int, std::size_t, std::size_t) { return 1e-6; });
            const std::size_t decisions = 1 + 2 + 2 * 3 + (order == comet::interleave::none ? 2 * 3 : 3);
            BOOST_TEST(r[2].engine_sends == 2 * decisions);
            BOOST_TEST(r[2].engine_recvs == 2 * decisions);  // the answers
            for (int rank : {0, 3}) {
                BOOST_TEST(r[static_cast<std::size_t>(rank)].engine_recvs == decisions);
                BOOST_TEST(r[static_cast<std::size_t>(rank)].engine_sends == decisions);
            }
            BOOST_TEST(r[1].engine_sends + r[1].engine_recvs == 0u);
        }
    }
}

BOOST_AUTO_TEST_CASE(max_over_ranks_takes_the_slowest_ranks_time_and_its_overhead) {
    // Three ranks time their own loops: ranks 0 and 2 busy 10 µs per iteration, rank 1 busy
    // 30 µs. Each reading of rank r's clock costs (r + 1) × 100 ns, so a repeat loop's empty loop
    // (two readings apart) measures (r + 1) × 100 ns: the overhead says whose sample it is.
    virtual_run v;
    v.nodes = 3;
    v.ranks = {0, 1, 2};
    v.decider = 0;
    v.cfg = comet::fixed_sampling(3, 4);
    v.reduction = comet::sample_reduction::max_over_ranks;
    const auto slow_rank_1 = [](int rank, std::size_t, std::size_t) { return rank == 1 ? 30e-6 : 10e-6; };
    const auto r = run(3, [&](comet::threads::transport& inner) {
        vtransport t(inner, 100 * (inner.rank() + 1));
        const std::vector<int> ranks{0, 1, 2};
        return comet::sample_points(t, 1, v.cfg, 0, ranks, v.reduction,
                                    [&](std::size_t p, std::size_t iterations) -> std::optional<comet::repeat_result> {
                                        return busy_sample(t, iterations, slow_rank_1(t.rank(), p, 0));
                                    });
    });
    const auto& p = r[0].at(0);
    BOOST_TEST_REQUIRE(p.samples.size() == 3u);
    // Rank 1's: (loop − empty) / 4 = (4 × 30 µs + 200 ns − 200 ns) / 4 = 30 µs, overhead 200 ns / 4.
    for (double s : p.samples) BOOST_TEST(s == 30e-6, boost::test_tools::tolerance(1e-9));
    for (double o : p.overheads) BOOST_TEST(o == 200e-9 / 4, boost::test_tools::tolerance(1e-6));
    // The whole group given as its size, not as a list, measures the same (by one allreduce
    // instead of messages to the decider).
    const auto whole = run(3, [&](comet::threads::transport& inner) {
        vtransport t(inner, 100 * (inner.rank() + 1));
        return comet::sample_points(t, 1, v.cfg, 0, comet::rank_set::every(3), v.reduction,
                                    [&](std::size_t point, std::size_t iterations) -> std::optional<comet::repeat_result> {
                                        return busy_sample(t, iterations, slow_rank_1(t.rank(), point, 0));
                                    });
    });
    BOOST_TEST(whole[0].at(0).samples == p.samples, boost::test_tools::per_element());
    // The decider's own time alone is rank 0's.
    v.reduction = comet::sample_reduction::decider;
    const auto own = v(slow_rank_1);
    for (double s : own[0].points.at(0).samples) BOOST_TEST(s == 10e-6, boost::test_tools::tolerance(1e-9));
    // With max_over_ranks every taking part rank must time its sample.
    BOOST_CHECK_EXCEPTION(
        run(2,
            [](comet::threads::transport& inner) {
                vtransport t(inner);
                std::vector<int> ranks{0, 1};
                comet::sample_points(t, 1, comet::fixed_sampling(1, 1), 0, ranks, comet::sample_reduction::max_over_ranks,
                                     [&](std::size_t, std::size_t n) -> std::optional<comet::repeat_result> {
                                         if (t.rank() == 1) return std::nullopt;
                                         return busy_sample(t, n, 1e-6);
                                     });
            }),
        comet::invalid_argument,
        [](const auto& e) { return comet_test::mentions(e, {"rank 1: sample_points: a timing rank did not time its sample"}); });
}

BOOST_AUTO_TEST_CASE(a_rank_set_is_a_list_or_the_whole_group) {
    const auto visited = [](const comet::rank_set& s) {
        std::vector<int> v;
        s.for_each([&](int r) { v.push_back(r); });
        return v;
    };
    const std::vector<int> list{0, 2, 5};
    const comet::rank_set some(list);
    BOOST_TEST(some.size() == 3u);
    BOOST_TEST(!some.whole_of(6));
    BOOST_TEST(visited(some) == list, boost::test_tools::per_element());
    const auto all = comet::rank_set::every(4);
    BOOST_TEST(all.size() == 4u);
    BOOST_TEST(all.whole_of(4));
    BOOST_TEST(!all.whole_of(5));
    BOOST_TEST(visited(all) == (std::vector<int>{0, 1, 2, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(zero_points_return_at_once) {
    // Only rank 0 calls it, with nobody to decide with: it must neither sample nor send.
    const auto r = run(2, [](comet::threads::transport& t) {
        bool called = false;
        std::size_t points = 99;
        if (t.rank() == 0) {
            const std::vector<int> ranks{0, 1};
            points = comet::sample_points(t, 0, comet::sampling{}, 0, ranks, comet::sample_reduction::max_over_ranks,
                                          [&](std::size_t, std::size_t) -> std::optional<comet::repeat_result> {
                                              called = true;
                                              return std::nullopt;
                                          })
                         .size();
        }
        t.barrier();
        const bool message = t.iprobe(comet::any_source, comet::any_tag).has_value();
        t.barrier();
        return std::tuple{called, points, message};
    });
    BOOST_TEST(std::get<0>(r[0]) == false);
    BOOST_TEST(std::get<1>(r[0]) == 0u);
    BOOST_TEST(std::get<2>(r[1]) == false);
}

BOOST_AUTO_TEST_CASE(check_sampling_names_each_bad_field_and_its_value) {
    const auto fails_with = [](const comet::sampling& s, const char* words) {
        BOOST_CHECK_EXCEPTION(comet::check_sampling(3, "kernel_x", s), comet::invalid_argument,
                              [&](const auto& e) { return comet_test::mentions(e, {"rank 3: kernel_x: ", words}); });
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    fails_with({.min_samples = 0}, "sampling.min_samples must be at least 1, got 0");
    fails_with({.max_samples = 2}, "sampling.max_samples = 2 is below min_samples = 15");
    fails_with({.min_samples = 40, .max_samples = 39}, "sampling.max_samples = 39 is below min_samples = 40");
    fails_with({.target_ci = -0.25}, "sampling.target_ci = -0.25 is not a fraction >= 0");
    fails_with({.target_ci = nan}, "sampling.target_ci = nan is not a fraction >= 0");
    fails_with({.target_ci = inf}, "sampling.target_ci = inf is not a fraction >= 0");
    fails_with({.iterations = 1'000'000'001}, "sampling.iterations = 1000000001 is over 10^9");
    fails_with({.min_sample_seconds = -1e-3}, "sampling.min_sample_seconds = -0.001 is not >= 0 seconds");
    fails_with({.min_sample_seconds = nan}, "sampling.min_sample_seconds = nan is not >= 0 seconds");
    fails_with({.warmup_seconds = -2}, "sampling.warmup_seconds = -2 is not >= 0 seconds");
    fails_with({.budget_seconds = inf}, "sampling.budget_seconds = inf is not >= 0 seconds");
    // No rank: no "rank" in the message.
    BOOST_CHECK_EXCEPTION(comet::check_sampling(-1, "k", {.min_samples = 0}), comet::invalid_argument,
                          [](const auto& e) { return std::string(e.what()).rfind("k: sampling.min_samples", 0) == 0; });
    // What is allowed.
    BOOST_CHECK_NO_THROW(comet::check_sampling(0, "k", {}));
    BOOST_CHECK_NO_THROW(comet::check_sampling(0, "k", comet::fixed_sampling(1, 1)));
    BOOST_CHECK_NO_THROW(comet::check_sampling(0, "k", {.min_samples = 1, .max_samples = 1, .target_ci = 0.0, .iterations = 1'000'000'000}));
}

BOOST_AUTO_TEST_CASE(fill_record_writes_what_the_engine_decided) {
    comet::sampled_point p{.samples = {1.0, 2.0},
                           .overheads = {0.1, 0.2},
                           .iterations = 7,
                           .stop = comet::stop_reason::budget,
                           .short_samples = false};
    comet::record rec{"k", {{"size", std::int64_t{8}}}, {}};
    comet::sampling s{.order = comet::interleave::shuffle, .seed = 42};
    comet::fill_record(rec, std::move(p), s, comet::sample_reduction::max_over_ranks, 0.5);
    BOOST_TEST(rec.samples == (std::vector<double>{0.5, 1.0}), boost::test_tools::per_element());
    BOOST_TEST(rec.overheads == (std::vector<double>{0.05, 0.1}), boost::test_tools::per_element());
    BOOST_TEST(rec.iterations == 7u);
    BOOST_TEST(rec.stop == "budget");
    BOOST_TEST(rec.notes.empty());
    const comet::params want{{"size", std::int64_t{8}}, {"reduction", "max_over_ranks"}, {"cache", "warm"}};
    BOOST_TEST((rec.params == want));
    BOOST_TEST((rec.values == comet::params{{"order", "shuffle"}, {"seed", std::int64_t{42}}}));

    comet::record plain{"k", {}, {}};
    comet::fill_record(plain, comet::sampled_point{.samples = {3.0, -1e-9}, .overheads = {0.0, 0.0}, .iterations = 1,
                                                   .stop = comet::stop_reason::fixed},
                       comet::sampling{.cache = comet::cache_state::cold}, comet::sample_reduction::decider);
    BOOST_TEST((plain.params == comet::params{{"reduction", "test_node"}, {"cache", "cold"}}));
    BOOST_TEST((plain.values == comet::params{{"order", "round_robin"}}));
    BOOST_TEST(plain.stop == "fixed");
    // A sample below zero stays raw and is marked.
    BOOST_TEST_REQUIRE(plain.invalid.size() == 1u);
    BOOST_TEST(plain.invalid[0].index == 1u);
    BOOST_TEST(comet::valid_count(plain) == 1u);
    // A kernel's own cache param (COMMTEST's modes) stays.
    comet::record own{"k", {{"cache", "flushed"}}, {}};
    comet::fill_record(own, comet::sampled_point{.samples = {1.0}, .overheads = {0.0}, .iterations = 1}, comet::sampling{},
                       comet::sample_reduction::decider);
    BOOST_TEST((own.params.text("cache") == "flushed"));
    BOOST_TEST(comet::to_string(comet::interleave::none) == "none");
    BOOST_TEST(comet::to_string(comet::stop_reason::interval) == "interval");
    BOOST_TEST(comet::to_string(comet::stop_reason::max_samples) == "max_samples");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(measure_validity)

using namespace test_measure_detail;

BOOST_AUTO_TEST_CASE(a_negative_sample_counts_for_no_stop_rule) {
    // Every third sample of the point comes out below zero (its empty loop caught a preemption
    // the body loop did not): the engine samples on until six are not negative, the budget
    // being spent at once; the cap on samples still bounds it.
    virtual_run v;
    v.cfg = {.min_samples = 6, .max_samples = 30, .target_ci = 0.0, .iterations = 1, .warmup_seconds = 0.0, .budget_seconds = 1e-9};
    int k = 0;
    const auto r = run(1, [&](comet::threads::transport& inner) {
        vtransport t(inner);
        const std::vector<int> ranks{0};
        return comet::sample_points(t, 1, v.cfg, 0, ranks, comet::sample_reduction::decider,
                                    [&](std::size_t, std::size_t iterations) -> std::optional<comet::repeat_result> {
                                        comet::repeat_result x = busy_sample(t, iterations, 1e-6);
                                        if (iterations == 1 && ++k % 3 == 0) x.per_iteration = -1e-7;
                                        return x;
                                    });
    });
    const auto& p = r[0].at(0);
    const auto valid = std::count_if(p.samples.begin(), p.samples.end(), [](double x) { return x >= 0; });
    BOOST_TEST(valid == 6);  // the budget was spent at once: it stops at six valid samples
    BOOST_TEST(p.samples.size() > 6u);
    comet::record rec{"k", {}, {}};
    comet::fill_record(rec, comet::sampled_point(p), v.cfg, comet::sample_reduction::decider);
    BOOST_TEST(comet::valid_count(rec) == 6u);
    BOOST_TEST(comet::summarize(rec).min >= 0.0);
}

BOOST_AUTO_TEST_CASE(a_cold_sample_is_one_operation_after_the_caches_are_overwritten) {
    // No calibration (a cold sample is one operation), no untimed iteration before a sample.
    virtual_run v;
    v.points = 2;
    v.cfg = {.min_samples = 3, .max_samples = 3, .iterations = 50, .warmup_seconds = 0.0, .cache = comet::cache_state::cold,
             .cold_bytes = 1 << 20};
    const auto r = v([](int, std::size_t, std::size_t) { return 10e-6; });
    std::vector<call> want{{0, 1}, {1, 1}};
    for (int round = 0; round < 3; ++round)
        for (std::size_t p : {0u, 1u}) want.emplace_back(p, 1);
    BOOST_TEST(r[0].calls == want, boost::test_tools::per_element());
    BOOST_TEST(r[0].points[0].iterations == 1u);
    BOOST_TEST(!r[0].points[0].short_samples);
    BOOST_CHECK_THROW(comet::check_sampling(0, "k", {.cache = comet::cache_state::cold, .cold_bytes = 0}), comet::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_stop_request_ends_every_point_within_one_sample) {
    // The decider's stop token is read before every sample and its answer reaches every rank
    // with the "go": once it is requested, no rank takes another sample, and every open point
    // says it was interrupted with what it had.
    std::stop_source source;
    const auto r = run(3, [&](comet::threads::transport& inner) {
        vtransport t(inner);
        comet::sampling cfg = comet::fixed_sampling(50, 2);
        cfg.stop = source.get_token();
        std::size_t samples = 0;
        auto points = comet::sample_points(t, 3, cfg, 1, comet::rank_set::every(3), comet::sample_reduction::decider,
                                           [&](std::size_t, std::size_t iterations) -> std::optional<comet::repeat_result> {
                                               if (iterations == 2 && ++samples == 20 && t.rank() == 1) source.request_stop();
                                               if (t.rank() != 1) return std::nullopt;
                                               return busy_sample(t, iterations, 1e-6);
                                           });
        return std::pair{points, samples};
    });
    // Runs of 2 iterations: three calibration runs, then samples; the 20th run asked for the
    // stop, which was read before the next sample on the decider: no rank ran a 21st.
    for (const auto& [points, calls] : r) BOOST_TEST(calls == 20u);
    const auto& points = r[1].first;
    for (std::size_t p = 0; p < 3; ++p) {
        BOOST_TEST(comet::to_string(points[p].stop) == "interrupted");
        BOOST_TEST(points[p].samples.size() == (p < 2 ? 6u : 5u));  // 17 samples, round robin
    }
}

BOOST_AUTO_TEST_CASE(the_ranks_start_every_sample_together) {
    // A point whose operation leaves the ranks apart (rank 0 returns at once, rank 1 takes
    // 1 ms: a collective of 0 bytes that does not synchronise) followed by one that needs both:
    // without a start together, rank 1's lag lands in the second point's first iterations.
    // On the virtual clock nothing else moves, so the second point reads exactly its body.
    virtual_run v;
    v.nodes = 2;
    v.ranks = {0, 1};
    v.points = 2;
    v.cfg = comet::fixed_sampling(5, 4);
    const auto r = v([](int rank, std::size_t p, std::size_t) { return p == 0 ? (rank == 1 ? 1e-3 : 0.0) : 10e-6; });
    for (double s : r[0].points[1].samples) BOOST_TEST(s == 10e-6, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_SUITE_END()
