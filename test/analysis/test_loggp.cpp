// Tests of comet/analysis/loggp.hpp: round trips made by hand from known parameters give them
// back exactly; what is not to be read at face value is flagged (a flagged median, a size with no
// valid sample, a spacing shorter than the gap, a parameter below zero); bad input is refused.
#include <comet/analysis/loggp.hpp>
#include <comet/stats/validity.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/records.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <cstdint>
#include <string>
#include <vector>

namespace loggp_test {

using namespace comet_test;

constexpr double ns = 1e-9;

/// A network with these parameters, and the four round trips it gives.
struct network {
    double L = 5 * us, G_path = 3 * ns;
    double o_s = 3 * us, O_s = 1 * ns, o_r = 2 * us, O_r = 0.5 * ns;
    double g = 4 * us, G = 2 * ns;
    std::int64_t n = 8;

    double send(double s) const { return o_s + O_s * s; }
    double receive(double s) const { return o_r + O_r * s; }
    double single(double s) const { return 2 * (send(s) + L + G_path * s + receive(s)); }
    double back_to_back(double s) const { return single(s) + static_cast<double>(n - 1) * (g + G * s); }
    double spaced(double s, double d) const { return single(s) + static_cast<double>(n - 1) * (send(s) + d); }
    double late(double s, double d) const { return send(s) + d + receive(s); }

    /// The records kernels::loggp would return for `sizes` (every sample the same).
    std::vector<comet::record> records(std::vector<std::int64_t> sizes) const {
        std::vector<comet::record> out;
        const auto add = [&](const char* kind, std::int64_t size, double t, std::optional<double> delay) {
            comet::params p{{"size", size}, {"hops", std::int64_t{1}}, {"nodes", std::int64_t{2}}, {"train_kind", kind}, {"train", n}};
            comet::record r = rec("loggp", p, {t, t, t});
            if (delay) r.values.set("delay", *delay);
            out.push_back(std::move(r));
        };
        for (auto size : sizes) add("1,0", size, single(static_cast<double>(size)), {});
        for (auto size : sizes) add("n,0", size, back_to_back(static_cast<double>(size)), {});
        for (auto size : sizes) {
            const double s = static_cast<double>(size), d = single(s);
            add("n,d", size, spaced(s, d), d);
        }
        for (auto size : sizes) {
            const double s = static_cast<double>(size), d = 2 * single(s);
            add("late", size, late(s, d), d);
        }
        return out;
    }
};

/// The record of `kind` at `size` in `records`.
comet::record& find(std::vector<comet::record>& records, const char* kind, std::int64_t size) {
    for (auto& r : records)
        if (r.params.text("train_kind") == kind && r.params.integer("size") == size) return r;
    BOOST_FAIL("no record " << kind << " at " << size);
    return records.front();
}

}  // namespace loggp_test

BOOST_AUTO_TEST_SUITE(loggp)

using namespace loggp_test;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_CASE(round_trips_of_known_parameters_give_them_back) {
    const network net;
    const auto m = comet::fit_loggp(net.records({0, 64, 256, 1024}));
    BOOST_TEST(m.valid());
    BOOST_TEST(m.train == 8u);
    BOOST_TEST(m.points.size() == 4u);
    const auto near = [](const comet::loggp_estimate& e, double want, double unit) {
        BOOST_TEST(e.value / unit == want / unit, tt::tolerance(1e-9));
        BOOST_TEST(e.se / unit < 1e-6);  // exact round trips: no scatter about the lines
        BOOST_TEST(e.flag.empty());
    };
    near(m.L, net.L, us);
    near(m.G_path, net.G_path, ns);
    near(m.g, net.g, us);
    near(m.G, net.G, ns);
    near(m.o_s, net.o_s, us);
    near(m.O_s, net.O_s, ns);
    near(m.o_r, net.o_r, us);
    near(m.O_r, net.O_r, ns);
    near(m.o, (net.o_s + net.o_r) / 2, us);  // the model's one o: the two ends' mean
    near(m.O, (net.O_s + net.O_r) / 2, ns);
    // Each point holds what the header's formulas make of its round trips.
    BOOST_TEST(m.points[1].size == 64u);
    BOOST_TEST(m.points[1].gap / us == (net.g + net.G * 64) / us, tt::tolerance(1e-9));
    BOOST_TEST(m.points[1].path / us == (net.L + net.G_path * 64) / us, tt::tolerance(1e-9));
    BOOST_TEST(m.points[1].spacing == net.single(64));
    BOOST_TEST(m.points[1].late_delay == 2 * net.single(64));
}

BOOST_AUTO_TEST_CASE(two_sizes_fit_without_errors_and_other_kernels_are_ignored) {
    const network net;
    auto records = net.records({0, 512});
    records.push_back(rec("echo", {{"size", std::int64_t{0}}}, {1.0}));
    const auto m = comet::fit_loggp(records);
    BOOST_TEST(m.valid());
    BOOST_TEST(m.o_s.value / us == net.o_s / us, tt::tolerance(1e-9));
    BOOST_TEST(std::isnan(m.o_s.se));  // a line through two points has no error to tell
    BOOST_TEST(std::isnan(m.L.se));
}

BOOST_AUTO_TEST_CASE(a_median_whose_samples_disagree_flags_what_it_feeds) {
    const network net;
    // The back-to-back train's samples disagree (a spread far over 5%) around the same median:
    // its figure is kept, flagged, in g and G alone.
    auto records = net.records({0, 64, 256});
    auto& train = find(records, "n,0", 64);
    const double t = train.samples[0];
    train.samples = {0.2 * t, t, 5 * t};
    const auto m = comet::fit_loggp(records);
    BOOST_TEST(!m.valid());
    for (const auto* e : {&m.g, &m.G}) {
        BOOST_TEST(e->flag.find("from a flagged median: PRTT(n,0, 64 B): the samples disagree") == 0u, e->flag);
        BOOST_TEST(std::isfinite(e->value));
    }
    BOOST_TEST(m.g.value / us == net.g / us, tt::tolerance(1e-9));  // the median did not move
    for (const auto* e : {&m.L, &m.G_path, &m.o, &m.O, &m.o_s, &m.O_s, &m.o_r, &m.O_r}) BOOST_TEST(e->valid(), e->flag);
    BOOST_TEST(std::count(m.notes.begin(), m.notes.end(), "flagged median: " + m.g.flag.substr(23)) == 1);

    // The late round trip feeds the receiver's overhead, the model's o and O, and L's line.
    auto late_records = net.records({0, 64, 256});
    auto& late = find(late_records, "late", 0);
    const double u = late.samples[0];
    late.samples = {0.2 * u, u, 5 * u};
    const auto l = comet::fit_loggp(late_records);
    for (const auto* e : {&l.o_r, &l.O_r, &l.o, &l.O, &l.L, &l.G_path})
        BOOST_TEST(e->flag.find("from a flagged median: PRTT(late, 0 B)") == 0u, e->flag);
    for (const auto* e : {&l.g, &l.G, &l.o_s, &l.O_s}) BOOST_TEST(e->valid(), e->flag);

    // The single round trip feeds them all.
    auto single_records = net.records({0, 64, 256});
    auto& single = find(single_records, "1,0", 256);
    const double v = single.samples[0];
    single.samples = {0.2 * v, v, 5 * v};
    const auto a = comet::fit_loggp(single_records);
    for (const auto* e : {&a.L, &a.G_path, &a.g, &a.G, &a.o, &a.O, &a.o_s, &a.O_s, &a.o_r, &a.O_r})
        BOOST_TEST(e->flag.find("from a flagged median: PRTT(1,0, 256 B)") == 0u, e->flag);
}

BOOST_AUTO_TEST_CASE(a_round_trip_flagged_as_a_whole_leaves_its_size_out) {
    const network net;
    auto records = net.records({0, 64, 256});
    comet::add_flag(find(records, "n,d", 64), "point", "no clean trial");
    const auto m = comet::fit_loggp(records);
    BOOST_TEST(m.valid());
    BOOST_TEST(m.points.size() == 2u);
    BOOST_TEST(m.notes.front() == "size 64 B left out: a round trip has no valid sample or is flagged as a whole");
}

BOOST_AUTO_TEST_CASE(a_size_with_no_valid_sample_is_left_out_and_named) {
    const network net;
    auto records = net.records({0, 64, 256, 1024});
    auto& late = find(records, "late", 256);
    for (std::size_t i = 0; i < late.samples.size(); ++i) comet::mark_invalid(late, i, "preempted");
    const auto m = comet::fit_loggp(records);
    BOOST_TEST(m.valid());  // three sizes remain, exact
    BOOST_TEST(m.points.size() == 3u);
    BOOST_TEST(m.o_r.value / us == net.o_r / us, tt::tolerance(1e-9));
    BOOST_REQUIRE(!m.notes.empty());
    BOOST_TEST(m.notes.front() == "size 256 B left out: a round trip has no valid sample or is flagged as a whole");

    // A size missing one of its four round trips is left out too.
    auto partial = net.records({0, 64, 256});
    std::erase_if(partial, [](const comet::record& r) { return r.params.text("train_kind") == "n,d" && r.params.integer("size") == 64; });
    const auto p = comet::fit_loggp(partial);
    BOOST_TEST(p.points.size() == 2u);
    BOOST_TEST(p.notes.front() == "size 64 B left out: not all four round trips were measured");
}

BOOST_AUTO_TEST_CASE(a_spacing_shorter_than_the_gap_flags_the_overheads) {
    network net;
    net.g = 50 * us;  // a gap longer than the single round trip (≈ 20 us) used as the spacing
    const auto m = comet::fit_loggp(net.records({0, 64, 256}));
    for (const auto* e : {&m.o_s, &m.O_s, &m.o_r, &m.O_r})
        BOOST_TEST(e->flag.find("the spaced train of 0 B was spaced 2e-05 s, less than its gap 5e-05 s") == 0u, e->flag);
    // The model's o and O come from the late round trip, which the spacing does not touch.
    for (const auto* e : {&m.o, &m.O, &m.g, &m.G, &m.L, &m.G_path}) BOOST_TEST(e->valid(), e->flag);
}

BOOST_AUTO_TEST_CASE(a_parameter_below_zero_says_the_model_does_not_hold) {
    network net;
    net.L = -4 * us;  // round trips shorter than the two ends' overheads: no network is that
    net.g = 1 * us;   // (and a gap the spacing exceeds, so the overheads stand)
    const auto m = comet::fit_loggp(net.records({0, 64, 256}));
    BOOST_TEST(m.L.flag.find("L below zero") == 0u, m.L.flag);
    BOOST_TEST(m.G_path.flag == m.L.flag);  // one line gave both
    BOOST_TEST(!m.valid());
    BOOST_TEST(m.o_s.valid());

    network slope;
    slope.O_s = -2 * ns;  // a sender that gets faster per byte
    const auto n = comet::fit_loggp(slope.records({0, 64, 256}));
    BOOST_TEST(n.O_s.flag.find("O_s below zero") == 0u, n.O_s.flag);
    BOOST_TEST((std::find(m.notes.begin(), m.notes.end(), m.L.flag) != m.notes.end()));
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused_with_the_value) {
    const network net;
    BOOST_CHECK_EXCEPTION(comet::fit_loggp(std::vector<comet::record>{}), comet::invalid_argument, says("no loggp record"));
    BOOST_CHECK_EXCEPTION(comet::fit_loggp(net.records({64})), comet::invalid_argument,
                          says("1 sizes with all four round trips; a line needs at least 2"));
    auto mixed = net.records({0, 64});
    mixed.front().params.set("train", std::int64_t{4});
    BOOST_CHECK_EXCEPTION(comet::fit_loggp(mixed), comet::invalid_argument, says("trains of 4 and 8 messages"));
    auto odd = net.records({0, 64});
    odd.front().params.set("train_kind", "2,0");
    BOOST_CHECK_EXCEPTION(comet::fit_loggp(odd), comet::invalid_argument, says("train_kind '2,0'"));
    const std::vector<comet::record> bare{rec("loggp", {{"size", std::int64_t{0}}}, {1.0})};
    BOOST_CHECK_EXCEPTION(comet::fit_loggp(bare), comet::invalid_argument, says("without train_kind, size or train"));
    auto twice = net.records({0, 64});
    twice.push_back(twice.front());
    BOOST_CHECK_EXCEPTION(comet::fit_loggp(twice), comet::invalid_argument, says("two PRTT(1,0, 0 B) records"));
    auto one = net.records({0, 64});
    for (auto& r : one) r.params.set("train", std::int64_t{1});
    BOOST_CHECK_EXCEPTION(comet::fit_loggp(one), comet::invalid_argument, says("trains of 1 messages; at least 2"));
}

BOOST_AUTO_TEST_SUITE_END()
