// Tests of comet/stats/commtest.hpp on records built from known models: a and b of an exact
// linear model T_N = α·N + β·volume recovered (b the seed's min T_N / volume, which is
// β + α/volume), the latency and bandwidths of unordered and ordered protocols, the model's
// error in closed form (0 without a per-message cost); a protocol change found by its F test,
// with the error over the dominant protocol's range below the error over all the data; a noisy
// line with no break; a from the two largest N when N1 or N2 is missing; too few N for a; a
// group the transport could not run; flags on a negative a, a b of 0 and a model that misses
// by more than the time; records of one N pooled; and every error path.
#include <comet/stats/commtest.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/records.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace commtest_test {

namespace tt = boost::test_tools;

using comet_test::says;

/// N = 1, 2, 4, ..., `largest`.
inline std::vector<std::int64_t> counts(std::int64_t largest = 1024) {
    std::vector<std::int64_t> out;
    for (std::int64_t n = 1; n <= largest; n *= 2) out.push_back(n);
    return out;
}

/// A record as the commtest kernel makes it, with samples whose least is `t` (the others
/// slower, as a timing's are).
inline comet::record point(const std::string& protocol, std::int64_t volume, std::int64_t n, double t) {
    comet::record r{"commtest", {}, {t + 5e-6, t, t + 1e-6}};
    r.params.set("protocol", protocol).set("volume", volume).set("messages", n).set("size", volume / n);
    r.params.set("pair", "0-1").set("cache", "warm").set("prepost", "off").set("nodes", 2).set("handshake", "no");
    r.params.set("reduction", "max_over_ranks").set("order", "round_robin");
    return r;
}

/// The records of one experiment: T_N = time(N) for every N of `ns`.
inline void add(comet::result_set& rs, const std::string& protocol, std::int64_t volume, const std::vector<std::int64_t>& ns,
                const std::function<double(std::int64_t)>& time) {
    for (auto n : ns) rs.records.push_back(point(protocol, volume, n, time(n)));
}

/// A protocol the transport cannot run, as the kernel reports it: no samples, no messages.
inline comet::record unsupported(const std::string& protocol, std::int64_t volume) {
    comet::record r{"commtest", {}, {}};
    r.params.set("protocol", protocol).set("volume", volume);
    r.params.set("pair", "0-1").set("cache", "warm").set("prepost", "off").set("nodes", 2).set("handshake", "yes");
    r.notes.push_back("not supported: the transport has no ready send (rsend, irsend)");
    return r;
}

inline bool has_note(const comet::commtest_statistics& s, const std::string& text) {
    for (const auto& n : s.notes)
        if (n.find(text) != std::string::npos) return true;
    BOOST_TEST_MESSAGE("no note with \"" << text << "\"");
    return false;
}

/// A standard normal draw by Box–Muller from the engine's raw bits (the same on every library).
inline double gaussian(std::mt19937_64& rng) {
    const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

inline const std::vector<std::int64_t> volumes{8192, 131072, 2097152};

}  // namespace commtest_test

BOOST_AUTO_TEST_SUITE(commtest_stats)

using commtest_test::says;
using commtest_test::tt::tolerance;

BOOST_AUTO_TEST_CASE(a_and_b_of_a_linear_model_with_the_seeds_definitions) {
    // T_N = α·N + β·V over N = 1..1024 and three volumes, one unordered and one ordered protocol.
    constexpr double alpha = 20e-6, beta = 1e-8;
    comet::result_set rs;
    rs.records.push_back({"echo", {{"size", std::int64_t{8}}}, {1.0}});  // another kernel: ignored
    for (const char* protocol : {"(0,3)", "(1,0)"})
        for (auto v : commtest_test::volumes)
            commtest_test::add(rs, protocol, v, commtest_test::counts(),
                               [&](std::int64_t n) { return alpha * static_cast<double>(n) + beta * static_cast<double>(v); });
    const auto stats = comet::commtest_statistics_of(rs);
    BOOST_TEST_REQUIRE(stats.size() == 6u);  // descriptive params (reduction, order) make no group of their own
    for (std::size_t i = 0; i < stats.size(); ++i) {
        const auto& s = stats[i];
        const auto v = commtest_test::volumes[i % 3];
        const auto V = static_cast<double>(v);
        BOOST_TEST_CONTEXT(s.protocol << " " << v) {
            BOOST_TEST(s.kernel == "commtest");
            BOOST_TEST(s.protocol == (i < 3 ? "(0,3)" : "(1,0)"));
            BOOST_TEST(s.ordered == (i >= 3));
            BOOST_TEST(s.volume == v);
            BOOST_TEST((s.group == comet::params{{"protocol", s.protocol}, {"volume", v}, {"pair", "0-1"}, {"cache", "warm"},
                                                 {"prepost", "off"}, {"nodes", std::int64_t{2}}}));
            BOOST_TEST(s.supported);
            BOOST_TEST(s.valid());
            BOOST_TEST(s.notes.empty());
            BOOST_TEST_REQUIRE(s.data.size() == 11u);
            BOOST_TEST(s.data.front().messages == 1);
            BOOST_TEST(s.data.back().size == v / 1024);
            BOOST_TEST(s.data[3].time == alpha * 8 + beta * V);  // T_N: the least sample
            BOOST_TEST(*s.n1 == 512);
            BOOST_TEST(*s.n2 == 1024);
            BOOST_TEST(*s.a == alpha, tolerance(1e-9));
            // b = min T_N / V: the fastest point is N = 1, whose one message costs α too.
            BOOST_TEST(*s.b == (alpha + beta * V) / V, tolerance(1e-12));
            BOOST_TEST(*s.b_messages == 1);
            BOOST_TEST(*s.swap_bandwidth == 2.0 / *s.b, tolerance(1e-12));
            if (s.ordered) {
                BOOST_TEST(*s.latency == alpha / 2, tolerance(1e-9));  // sends and volume counted twice
                BOOST_TEST(*s.idle_bandwidth == 2.0 / *s.b, tolerance(1e-12));
                BOOST_TEST(!s.busy_bandwidth);
            } else {
                BOOST_TEST(*s.latency == alpha, tolerance(1e-9));
                BOOST_TEST(*s.busy_bandwidth == 1.0 / *s.b, tolerance(1e-12));  // half the swap bandwidth
                BOOST_TEST(!s.idle_bandwidth);
            }
            // The model a·N + b·V = T_N + α: relative error α/T_N, largest at N = 1.
            double mean = 0.0;
            for (auto n : commtest_test::counts()) mean += alpha / (alpha * static_cast<double>(n) + beta * V) / 11.0;
            BOOST_TEST(*s.max_error == alpha / (alpha + beta * V), tolerance(1e-6));
            BOOST_TEST(*s.mean_error == mean, tolerance(1e-6));
            // One line: no protocol change, the dominant range is all the data.
            BOOST_TEST(s.regimes == 1u);
            BOOST_TEST(s.dominant_is_all());
            BOOST_TEST(*s.dominant_min_size == v / 1024);
            BOOST_TEST(*s.dominant_max_size == v);
            BOOST_TEST(*s.dominant_max_error == *s.max_error);
            BOOST_TEST(*s.dominant_mean_error == *s.mean_error);
        }
    }
}

BOOST_AUTO_TEST_CASE(without_a_per_message_cost_b_is_exact_and_the_model_error_zero) {
    constexpr double beta = 1e-8;
    comet::result_set rs;
    commtest_test::add(rs, "(0,0)", 131072, commtest_test::counts(), [&](std::int64_t) { return beta * 131072; });
    const auto stats = comet::commtest_statistics_of(rs);
    BOOST_TEST_REQUIRE(stats.size() == 1u);
    const auto& s = stats[0];
    BOOST_TEST(*s.a == 0.0);  // zero is not negative: nothing flagged
    BOOST_TEST(s.valid());
    BOOST_TEST(*s.b == beta, tolerance(1e-15));
    BOOST_TEST(*s.swap_bandwidth == 2e8, tolerance(1e-12));
    BOOST_TEST(*s.busy_bandwidth == 1e8, tolerance(1e-12));
    BOOST_TEST(*s.max_error == 0.0);
    BOOST_TEST(*s.mean_error == 0.0);
    for (const auto& p : s.data) BOOST_TEST(p.error == 0.0);
}

BOOST_AUTO_TEST_CASE(a_protocol_change_is_found_and_the_dominant_range_fits_better) {
    // 2 MB as 1..1024 messages: up to 16 messages (128 KB and more each) a rendezvous protocol
    // with 300 µs per message and 111 MB/s, from 32 messages (64 KB) an eager one with 10 µs per
    // message and 100 MB/s. a comes from N = 512 and 1024, both eager: the dominant range is
    // the eager sizes, 2048 to 65536 bytes.
    constexpr std::int64_t volume = 2097152;
    const auto time = [](std::int64_t n) {
        const double N = static_cast<double>(n), V = static_cast<double>(volume);
        return n <= 16 ? 300e-6 * N + 0.9e-8 * V : 10e-6 * N + 1e-8 * V;
    };
    comet::result_set rs;
    commtest_test::add(rs, "(0,1)", volume, commtest_test::counts(), time);
    const auto stats = comet::commtest_statistics_of(rs);
    BOOST_TEST_REQUIRE(stats.size() == 1u);
    const auto& s = stats[0];
    BOOST_TEST(*s.a == 10e-6, tolerance(1e-9));
    BOOST_TEST(*s.b_messages == 1);
    BOOST_TEST(*s.b == time(1) / static_cast<double>(volume));
    BOOST_TEST(s.regimes == 2u);
    BOOST_TEST_REQUIRE(s.break_tests.size() == 1u);  // the split; then both lines are exact
    const auto& t = s.break_tests[0];
    BOOST_TEST(t.chosen);
    BOOST_TEST(t.break_size == 65536.0);  // the largest message of the small-message side
    BOOST_TEST(t.df1 == 2u);
    BOOST_TEST(t.df2 == 7u);  // 11 points, 2 lines
    BOOST_TEST(t.candidates == 6u);  // cuts leaving at least 3 points on each side
    BOOST_TEST(!s.dominant_is_all());
    BOOST_TEST(s.dominant_points == 6u);
    BOOST_TEST(*s.dominant_min_size == 2048);
    BOOST_TEST(*s.dominant_max_size == 65536);
    for (const auto& p : s.data) BOOST_TEST(p.dominant == (p.messages >= 32), p.messages);
    // Eager points: the model misses by b's regime difference, (1e-8 − 0.9e-8)·V − 300 µs,
    // largest against the smallest eager time (N = 32); the rendezvous points by more.
    const double gap = (1e-8 - 0.9e-8) * static_cast<double>(volume) - 300e-6;
    BOOST_TEST(*s.dominant_max_error == gap / time(32), tolerance(1e-9));
    BOOST_TEST(*s.max_error == std::fabs(10e-6 * 16 + time(1) - time(16)) / time(16), tolerance(1e-9));
    BOOST_TEST(*s.dominant_max_error < *s.max_error);
    BOOST_TEST(s.valid());
    BOOST_TEST(commtest_test::has_note(s, "protocol change found: the dominant range is messages of 2048 to 65536 bytes (6 of 11 points)"));
    BOOST_TEST(commtest_test::has_note(s, "b comes from N = 1, outside the dominant range"));
}

BOOST_AUTO_TEST_CASE(a_noisy_line_finds_no_protocol_change) {
    // 2% noise on one line: the F test (Bonferroni over the 6 cuts) does not split it.
    std::mt19937_64 rng(11);
    comet::result_set rs;
    commtest_test::add(rs, "(0,3)", 131072, commtest_test::counts(), [&](std::int64_t n) {
        return (20e-6 * static_cast<double>(n) + 1e-8 * 131072) * (1.0 + 0.02 * commtest_test::gaussian(rng));
    });
    const auto s = comet::commtest_statistics_of(rs).at(0);
    BOOST_TEST(s.regimes == 1u);
    BOOST_TEST_REQUIRE(s.break_tests.size() == 1u);
    BOOST_TEST(!s.break_tests[0].chosen);
    BOOST_TEST(s.break_tests[0].p >= 0.05);
    BOOST_TEST(s.dominant_is_all());
    BOOST_TEST(*s.dominant_max_error == *s.max_error);
}

BOOST_AUTO_TEST_CASE(without_n1_or_n2_a_comes_from_the_two_largest_counts) {
    constexpr double alpha = 20e-6, beta = 1e-8;
    comet::result_set rs;
    commtest_test::add(rs, "(1,3)", 8192, commtest_test::counts(256),
                       [&](std::int64_t n) { return alpha * static_cast<double>(n) + beta * 8192; });
    const auto s = comet::commtest_statistics_of(rs).at(0);
    BOOST_TEST(*s.n1 == 128);
    BOOST_TEST(*s.n2 == 256);
    BOOST_TEST(*s.a == alpha, tolerance(1e-9));
    BOOST_TEST(*s.latency == alpha / 2, tolerance(1e-9));
    BOOST_TEST(s.valid());
    BOOST_TEST(commtest_test::has_note(s, "a from N = 128 and 256, the two largest measured: the group has no N = 512 and 1024"));

    // Other counts, asked for: used as given, without a note.
    const auto t = comet::commtest_statistics_of(rs, {.n1 = 4, .n2 = 16}).at(0);
    BOOST_TEST(*t.n1 == 4);
    BOOST_TEST(*t.n2 == 16);
    BOOST_TEST(*t.a == alpha, tolerance(1e-9));
    BOOST_TEST(t.notes.empty());
}

BOOST_AUTO_TEST_CASE(one_count_gives_b_but_no_a) {
    comet::result_set rs;
    rs.records.push_back(commtest_test::point("(0,0)", 8192, 4, 1e-4));
    const auto s = comet::commtest_statistics_of(rs).at(0);
    BOOST_TEST(!s.a);
    BOOST_TEST(!s.latency);
    BOOST_TEST(!s.n1);
    BOOST_TEST(!s.n2);
    BOOST_TEST(*s.b == 1e-4 / 8192);
    BOOST_TEST(s.b_valid());
    BOOST_TEST(!s.a_valid());
    BOOST_TEST(!s.max_error);  // no model without a
    BOOST_TEST(!s.dominant_min_size);
    BOOST_TEST(s.dominant_points == 0u);
    BOOST_TEST(!s.dominant_is_all());
    BOOST_TEST(s.valid());  // nothing is wrong with what there is
    BOOST_TEST(commtest_test::has_note(s, "a needs two message counts; the group has N = 4 only"));
}

BOOST_AUTO_TEST_CASE(a_protocol_the_transport_cannot_run_is_not_supported) {
    comet::result_set rs;
    commtest_test::add(rs, "(0,3)", 8192, commtest_test::counts(), [](std::int64_t n) { return 1e-4 + 1e-6 * static_cast<double>(n); });
    for (auto v : commtest_test::volumes) rs.records.push_back(commtest_test::unsupported("(0,4)", v));
    const auto stats = comet::commtest_statistics_of(rs);
    BOOST_TEST_REQUIRE(stats.size() == 4u);
    BOOST_TEST(stats[0].supported);
    for (std::size_t i = 1; i < 4; ++i) {
        const auto& s = stats[i];
        BOOST_TEST(s.protocol == "(0,4)");
        BOOST_TEST(s.volume == commtest_test::volumes[i - 1]);
        BOOST_TEST(!s.supported);
        BOOST_TEST(!s.valid());
        BOOST_TEST(s.data.empty());
        BOOST_TEST(!s.a);
        BOOST_TEST(!s.b);
        BOOST_TEST(s.regimes == 0u);
        BOOST_TEST_REQUIRE(s.notes.size() == 1u);
        BOOST_TEST(s.notes[0] == "not supported: the transport has no ready send (rsend, irsend)");
    }
}

BOOST_AUTO_TEST_CASE(a_negative_a_is_flagged_and_b_kept) {
    // T_1024 below T_512: the overhead is below what the times resolve.
    comet::result_set rs;
    commtest_test::add(rs, "(0,6)", 131072, commtest_test::counts(), [](std::int64_t n) { return 2e-3 - 1e-7 * static_cast<double>(n); });
    const auto s = comet::commtest_statistics_of(rs).at(0);
    BOOST_TEST(*s.a == -1e-7, tolerance(1e-9));  // kept for diagnosis
    BOOST_TEST(s.flagged(comet::commtest_flag::negative_a));
    BOOST_TEST(s.flags.size() == 1u);
    BOOST_TEST(!s.valid());
    BOOST_TEST(!s.a_valid());
    BOOST_TEST(s.b_valid());  // the least time per byte does not depend on a
    BOOST_TEST(*s.b == (2e-3 - 1e-7 * 1024) / 131072, tolerance(1e-12));
    BOOST_TEST(comet::commtest_flags_text(s.flags) == "flagged: negative a");
}

BOOST_AUTO_TEST_CASE(a_model_that_misses_by_more_than_the_time_flags_a) {
    // Flat at 10 ms but for N = 1024 at 30 ms: a = 20 ms / 512, and the model puts N = 512 at
    // 30 ms, 200% above its time — a·N alone is twice the whole time there.
    comet::result_set rs;
    commtest_test::add(rs, "(1,1)", 131072, commtest_test::counts(), [](std::int64_t n) { return n == 1024 ? 30e-3 : 10e-3; });
    const auto s = comet::commtest_statistics_of(rs).at(0);
    BOOST_TEST(*s.a == 20e-3 / 512, tolerance(1e-9));
    BOOST_TEST(*s.dominant_max_error == 2.0, tolerance(1e-9));
    BOOST_TEST(s.flagged(comet::commtest_flag::model_error));
    BOOST_TEST(!s.a_valid());
    BOOST_TEST(s.b_valid());
    BOOST_TEST(comet::commtest_flags_text(s.flags) == "flagged: model error too large");
    // A looser limit lets it pass.
    BOOST_TEST(comet::commtest_statistics_of(rs, {.max_model_error = 3.0}).at(0).a_valid());
}

BOOST_AUTO_TEST_CASE(a_time_of_zero_flags_b_and_leaves_no_model) {
    // A clock too coarse for 8 KB: every exchange took "0 s".
    comet::result_set rs;
    commtest_test::add(rs, "(0,2)", 8192, commtest_test::counts(), [](std::int64_t) { return 0.0; });
    const auto s = comet::commtest_statistics_of(rs).at(0);
    BOOST_TEST(*s.b == 0.0);
    BOOST_TEST(s.flagged(comet::commtest_flag::nonpositive_b));
    BOOST_TEST(!s.b_valid());
    BOOST_TEST(!s.swap_bandwidth);
    BOOST_TEST(*s.a == 0.0);
    BOOST_TEST(!s.max_error);  // relative to a time of 0: no error can be given
    BOOST_TEST(!s.dominant_max_error);
}

BOOST_AUTO_TEST_CASE(records_of_one_count_pool_their_samples) {
    comet::result_set rs;
    rs.records.push_back(commtest_test::point("(0,0)", 8192, 1, 3e-4));
    rs.records.push_back(commtest_test::point("(0,0)", 8192, 1, 2e-4));
    rs.records.back().params.set("seed", 42);  // descriptive: same group
    rs.records.push_back(commtest_test::point("(0,0)", 8192, 2, 4e-4));
    auto other_pair = commtest_test::point("(0,0)", 8192, 2, 4e-4);
    other_pair.params.set("pair", "0-2+1-3");  // another experiment
    rs.records.push_back(other_pair);
    const auto stats = comet::commtest_statistics_of(rs);
    BOOST_TEST_REQUIRE(stats.size() == 2u);
    BOOST_TEST_REQUIRE(stats[0].data.size() == 2u);
    BOOST_TEST(stats[0].data[0].time == 2e-4);
    BOOST_TEST(*stats[0].a == 2e-4);
    BOOST_TEST(stats[1].group.text("pair").value() == "0-2+1-3");
    BOOST_TEST(stats[1].data.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_count_left_out_is_noted) {
    // N = 256 flagged as a whole: a comes from the two largest counts left (64 and 128), and a
    // note names the one left out.
    constexpr double alpha = 20e-6, beta = 1e-8;
    comet::result_set rs;
    commtest_test::add(rs, "(1,3)", 8192, commtest_test::counts(256),
                       [&](std::int64_t n) { return alpha * static_cast<double>(n) + beta * 8192; });
    comet::add_flag(rs.records.back(), "point", "every sample preempted");
    const auto s = comet::commtest_statistics_of(rs).at(0);
    BOOST_TEST(s.data.size() == 8u);
    BOOST_TEST(*s.n2 == 128);
    BOOST_TEST(commtest_test::has_note(
        s, "left out (a record not read: every figure is from the others) at 1 of 9 message counts (256; at 256: every sample preempted)"));
}

BOOST_AUTO_TEST_CASE(a_record_without_samples_or_count_is_noted) {
    // A record with no samples says no message count (grouping asks it of records with samples
    // only): it is left out, and a note says so without a count to name.
    constexpr double alpha = 20e-6, beta = 1e-8;
    comet::result_set rs;
    commtest_test::add(rs, "(1,3)", 8192, commtest_test::counts(8),
                       [&](std::int64_t n) { return alpha * static_cast<double>(n) + beta * 8192; });
    const comet::record like = commtest_test::point("(1,3)", 8192, 16, 0.0);
    comet::record empty{"commtest", {}, {}};
    for (const auto& [name, value] : like.params)
        if (name != "messages") empty.params.set(name, value);
    rs.records.push_back(empty);
    const auto s = comet::commtest_statistics_of(rs).at(0);
    BOOST_TEST(s.data.size() == 4u);
    BOOST_TEST(commtest_test::has_note(s, "left out: a record without a message count (no valid sample)"));
}

BOOST_AUTO_TEST_CASE(nothing_to_read_is_no_statistics) {
    comet::result_set rs;
    BOOST_TEST(comet::commtest_statistics_of(rs).empty());
    rs.records.push_back({"echo", {{"size", std::int64_t{8}}}, {1.0}});
    BOOST_TEST(comet::commtest_statistics_of(rs).empty());
    // Another kernel name, for a COMMTEST run under its own name.
    rs.records.push_back(commtest_test::point("(0,0)", 8192, 1, 3e-4));
    rs.records.back().kernel = "commtest_mpi";
    BOOST_TEST(comet::commtest_statistics_of(rs, {}, "commtest_mpi").size() == 1u);
}

BOOST_AUTO_TEST_CASE(errors_name_what_is_wrong) {
    comet::result_set rs;
    rs.records.push_back(commtest_test::point("(0,0)", 8192, 1, 3e-4));
    BOOST_CHECK_EXCEPTION(comet::commtest_statistics_of(rs, {.n1 = 1024, .n2 = 512}), comet::invalid_argument,
                          says("n1 = 1024 and n2 = 512 must satisfy 1 <= n1 < n2"));
    BOOST_CHECK_EXCEPTION(comet::commtest_statistics_of(rs, {.n1 = 0}), comet::invalid_argument, says("1 <= n1 < n2"));
    BOOST_CHECK_EXCEPTION(comet::commtest_statistics_of(rs, {.max_model_error = 0.0}), comet::invalid_argument,
                          says("max_model_error = 0 must be > 0"));
    BOOST_CHECK_EXCEPTION(comet::commtest_statistics_of(rs, {.alpha = 1.0}), comet::invalid_argument,
                          says("alpha = 1 is outside (0, 1)"));

    const auto with = [](const std::function<void(comet::record&)>& change) {
        comet::result_set bad;
        bad.records.push_back(commtest_test::point("(0,0)", 8192, 1, 3e-4));
        change(bad.records.back());
        return bad;
    };
    BOOST_CHECK_EXCEPTION(comet::commtest_statistics_of(with([](comet::record& r) { r.params.set("protocol", "(2,0)"); })),
                          comet::invalid_argument, says("protocol is '(2,0)'; expected \"(0,k)\" (unordered) or \"(1,k)\""));
    BOOST_CHECK_EXCEPTION(comet::commtest_statistics_of(with([](comet::record& r) { r.params = comet::params{{"volume", std::int64_t{8}}}; })),
                          comet::invalid_argument, says("protocol is missing"));
    BOOST_CHECK_EXCEPTION(comet::commtest_statistics_of(with([](comet::record& r) { r.params.set("volume", 0); })),
                          comet::invalid_argument, says("(0,0) record without an integer volume > 0"));
    BOOST_CHECK_EXCEPTION(comet::commtest_statistics_of(with([](comet::record& r) { r.params.set("messages", "many"); })),
                          comet::invalid_argument, says("record of volume 8192 with samples but no integer messages > 0"));
}

BOOST_AUTO_TEST_SUITE_END()
