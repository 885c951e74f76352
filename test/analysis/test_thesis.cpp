// Tests of comet/analysis/thesis.hpp: the verdict on every kind of thesis shape from hand-made
// findings — yes, no, and not judged when the run lacks what it takes — and which findings a
// verdict reads (curves of 3 or more group sizes, cross traffic on the echo's route, every
// overlap group rather than the first).
#include <comet/analysis/thesis.hpp>

#include <boost/test/unit_test.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace thesis_verdict_test {

/// The verdict on the thesis shape `key` from `e`.
inline comet::shape_verdict verdict(std::string_view key, const comet::thesis_evidence& e) {
    for (const auto& v : comet::compare_shapes_with_thesis(e))
        if (v.shape->key == key) return v;
    BOOST_FAIL("no shape " << key);
    return {};
}

inline comet::log_p_fit log_p(std::string kernel, double per_doubling, bool logarithmic, std::size_t points) {
    comet::log_p_fit f;
    f.kernel = std::move(kernel);
    f.per_doubling = per_doubling;
    f.logarithmic = logarithmic;
    f.points = points;
    return f;
}

inline comet::growth_comparison growth(std::string kernel, comet::growth_model m) {
    comet::growth_comparison g;
    g.kernel = std::move(kernel);
    g.model = m;
    return g;
}

inline comet::contention_slowdown slowdown(double load, double ratio, comet::params group = {{"nodes", std::int64_t{8}}}) {
    comet::contention_slowdown s;
    s.kernel = "contention";
    s.group = std::move(group);
    s.load = load;
    s.median_ratio = ratio;
    return s;
}

inline comet::overlap_gain gain(std::int64_t nodes, double median_gain, double max_saved, std::size_t large_points = 4) {
    comet::overlap_gain g;
    g.kernel = "overlap";
    g.group = {{"nodes", nodes}};
    g.large_size = 85000;
    g.large_points = large_points;
    g.large_median_gain = median_gain;
    g.large_max_saved = max_saved;
    return g;
}

inline comet::record point(std::string kernel, comet::params p, double seconds) {
    return {.kernel = std::move(kernel), .params = std::move(p), .samples = {seconds, seconds * 1.01, seconds * 0.99}};
}

inline comet::overlap_gain tiny_gains(std::int64_t smallest, std::vector<double> gains) {
    comet::overlap_gain g;
    g.kernel = "overlap";
    g.group = {{"nodes", std::int64_t{16}}};
    std::int64_t length = 0;
    for (double x : gains) g.points.push_back({.size = smallest, .vector_length = length += 1000, .gain = x});
    g.points.push_back({.size = 85000, .vector_length = 1000, .gain = 1.5});
    return g;
}

}  // namespace thesis_verdict_test

BOOST_AUTO_TEST_SUITE(thesis_verdicts)

using namespace thesis_verdict_test;

BOOST_AUTO_TEST_CASE(every_shape_names_its_kernel_and_has_a_judgement) {
    for (const auto& s : comet::thesis_shapes()) {
        BOOST_TEST(s.key.substr(0, s.kernel.size()) == s.kernel);
        BOOST_TEST(static_cast<bool>(s.judge));
    }
    BOOST_TEST(comet::thesis_shapes_of("contention").size() == 2u);
    BOOST_TEST(comet::thesis_shapes_of("echo").size() == 1u);
    BOOST_TEST(comet::thesis_shapes_of("commtest").empty());
}

BOOST_AUTO_TEST_CASE(nothing_measured_is_not_judged) {
    for (const auto& v : comet::compare_shapes_with_thesis(comet::thesis_evidence{})) {
        BOOST_TEST_CONTEXT(v.shape->key) { BOOST_TEST(!v.holds.has_value()); }
    }
}

BOOST_AUTO_TEST_CASE(log_p_yes_no_and_too_few_group_sizes) {
    std::vector<comet::log_p_fit> fits{log_p("broadcast", 20e-6, true, 4), log_p("broadcast", 30e-6, true, 3)};
    BOOST_TEST(*verdict("broadcast.log_p", {.log_p = fits}).holds);
    BOOST_TEST(verdict("broadcast.log_p", {.log_p = fits}).evidence == "2 of 2 curves follow log P; median 30.0 us per doubling");
    fits.push_back(log_p("broadcast", 10e-6, false, 4));  // follows P better: no, and which one says so
    fits.back().group = {{"size", std::int64_t{16}}};
    fits.back().r_squared = 0.9;
    fits.back().r_squared_linear_p = 0.95;
    const auto no = verdict("broadcast.log_p", {.log_p = fits});
    BOOST_TEST(!*no.holds);
    BOOST_TEST(no.evidence.find("2 of 3 curves follow log P; median 20.0 us per doubling; not size 16: R² log P 0.900, P 0.950") !=
                   std::string::npos,
               no.evidence);
    const std::vector<comet::log_p_fit> shrinking{log_p("barrier", -1e-6, true, 4)};
    const auto falling = verdict("barrier.log_p", {.log_p = shrinking});
    BOOST_TEST(!*falling.holds);
    BOOST_TEST(falling.evidence.find("not a curve: R² log P 0.000, P 0.000, not growing") != std::string::npos, falling.evidence);
    // Two group sizes: any line passes through two points, so nothing is judged.
    const std::vector<comet::log_p_fit> two{log_p("global_sum", 5e-6, true, 2)};
    const auto v = verdict("global_sum.log_p", {.log_p = two});
    BOOST_TEST(!v.holds.has_value());
    BOOST_TEST(v.evidence.find("3 or more group sizes") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(growth_yes_no_and_not_measured) {
    const std::vector<comet::growth_comparison> g{growth("update_guard", comet::growth_model::linear),
                                                  growth("transpose", comet::growth_model::linear)};
    BOOST_TEST(*verdict("update_guard.linear", {.growth = g}).holds);
    BOOST_TEST(!*verdict("transpose.quadratic", {.growth = g}).holds);
    BOOST_TEST(!verdict("shift_matrix.quadratic", {.growth = g}).holds.has_value());
}

BOOST_AUTO_TEST_CASE(contention_yes_no_and_not_judged) {
    std::vector<comet::contention_slowdown> s{slowdown(0.5, 1.2), slowdown(0.9, 1.6)};
    BOOST_TEST(*verdict("contention.loaded", {.contention = s}).holds);
    BOOST_TEST(*verdict("contention.heavier", {.contention = s}).holds);
    s = {slowdown(0.5, 1.3), slowdown(0.9, 1.1)};
    BOOST_TEST(*verdict("contention.loaded", {.contention = s}).holds);
    BOOST_TEST(!*verdict("contention.heavier", {.contention = s}).holds);
    s = {slowdown(0.5, 0.9), slowdown(0.9, 1.1)};
    BOOST_TEST(!*verdict("contention.loaded", {.contention = s}).holds);
    s = {slowdown(0.5, 1.2)};  // no 90% load
    BOOST_TEST(!verdict("contention.loaded", {.contention = s}).holds.has_value());
}

// Cross traffic that does not share the echo's links loads the machine, not the links: such
// groups are left out of the verdict.
BOOST_AUTO_TEST_CASE(contention_reads_only_groups_on_the_echos_route) {
    const comet::params off{{"nodes", std::int64_t{4}}, {"on_route", "no"}};
    std::vector<comet::contention_slowdown> s{slowdown(0.5, 0.8, off), slowdown(0.9, 0.7, off)};
    BOOST_TEST(!verdict("contention.loaded", {.contention = s}).holds.has_value());
    s.push_back(slowdown(0.5, 1.2));
    s.push_back(slowdown(0.9, 1.5));
    BOOST_TEST(*verdict("contention.loaded", {.contention = s}).holds);
    BOOST_TEST(verdict("contention.loaded", {.contention = s}).evidence == "median loaded/idle 1.200 at 50%, 1.500 at 90%");
}

BOOST_AUTO_TEST_CASE(overlap_yes_no_and_not_judged) {
    std::vector<comet::overlap_gain> g{gain(2, 1.4, 0.4), gain(16, 1.5, 0.45)};
    const auto yes = verdict("overlap.large", {.overlap = g});
    BOOST_TEST(*yes.holds);
    BOOST_TEST(yes.evidence.find("2 of 2 groups; on 16 nodes") == 0u);
    // Every group is read, not only the first one measured.
    g.push_back(gain(4, 1.1, 0.2));
    BOOST_TEST(!*verdict("overlap.large", {.overlap = g}).holds);
    const std::vector<comet::overlap_gain> small_only{gain(2, 1.4, 0.4, 0)};
    BOOST_TEST(!verdict("overlap.large", {.overlap = small_only}).holds.has_value());
}

BOOST_AUTO_TEST_CASE(figures_read_valid_fits_only) {
    std::vector<comet::transfer_fit> fits{{"echo", "small", 80e-6, 0.6e-6, std::nullopt, 1e-6, 9, 100.0}};
    fits.push_back({"echo", "large", -5e-6, 0.4e-6, 24e-6, 1e-6, 20, 100.0});
    fits.back().flags = {"negative_startup"};
    const auto rows = comet::compare_with_thesis(comet::thesis_evidence{.fits = fits});
    for (const auto& row : rows) {
        BOOST_TEST_CONTEXT(row.figure->key) {
            const std::string_view key = row.figure->key;
            if (key == "echo.small.t_startup") BOOST_TEST(*row.measured == 80e-6);
            if (key.starts_with("echo.large.")) {
                BOOST_TEST(!row.measured.has_value());
                BOOST_TEST(row.flags.size() == 1u);
            }
            if (key == "echo.peak") BOOST_TEST(!row.measured.has_value());
        }
    }
}

BOOST_AUTO_TEST_CASE(pairwise_against_the_echo_round_trip_at_the_same_point) {
    const comet::params at{{"size", std::int64_t{8}}, {"hops", std::int64_t{1}}, {"nodes", std::int64_t{16}}};
    std::vector<comet::record> r{point("echo", at, 100e-6), point("pairwise", at, 150e-6)};
    r[1].values.set("form", "sendrecv");  // how it was measured: a value, not part of the point
    const auto yes = verdict("pairwise.faster", {.records = r});
    BOOST_TEST((yes.holds == std::optional<bool>(true)));
    BOOST_TEST(yes.evidence.find("1 of 1 points; pairwise / echo round trip 0.750 .. 0.750") != std::string::npos, yes.evidence);
    r[1].samples = {250e-6};
    BOOST_TEST((verdict("pairwise.faster", {.records = r}).holds == std::optional<bool>(false)));
    // Only valid samples count: with both 250 µs marked invalid, 150 µs is the median again.
    r[1].samples = {150e-6, 250e-6, 250e-6};
    comet::mark_invalid(r[1], 1, "negative");
    comet::mark_invalid(r[1], 2, "negative");
    BOOST_TEST((verdict("pairwise.faster", {.records = r}).holds == std::optional<bool>(true)));
    // An echo flagged as a whole is not reported, so no partner.
    std::vector<comet::record> flagged = r;
    comet::add_flag(flagged[0], "point", "its windows kept failing");
    BOOST_TEST(!verdict("pairwise.faster", {.records = flagged}).holds.has_value());
    // An echo at another hop distance is no partner.
    r[0].params.set("hops", std::int64_t{2});
    BOOST_TEST(!verdict("pairwise.faster", {.records = r}).holds.has_value());
    // The echo's records name their buffer: the thesis' (same) is the partner, a clean one is not.
    r[0].params.set("hops", std::int64_t{1});
    r[0].params.set("buffer", std::string("same"));
    BOOST_TEST((verdict("pairwise.faster", {.records = r}).holds == std::optional<bool>(true)));
    r[0].params.set("buffer", std::string("clean"));
    BOOST_TEST(!verdict("pairwise.faster", {.records = r}).holds.has_value());
}

BOOST_AUTO_TEST_CASE(column_against_row_broadcast_at_each_dimension) {
    std::vector<comet::record> r;
    for (std::int64_t dim : {16, 64}) {
        r.push_back(point("row_broadcast", {{"matrix_dim", dim}, {"nodes", std::int64_t{16}}, {"row", std::int64_t{0}}}, 1e-3));
        r.push_back(point("col_broadcast", {{"matrix_dim", dim}, {"nodes", std::int64_t{16}}, {"col", std::int64_t{0}}}, 1.02e-3));
    }
    const auto yes = verdict("col_broadcast.slower", {.records = r});
    BOOST_TEST((yes.holds == std::optional<bool>(true)));
    BOOST_TEST(yes.evidence.find("2 of 2 points; column / row 1.020 .. 1.020") != std::string::npos, yes.evidence);
    r[3].samples = {1e-3};  // equal at 64: not slower
    BOOST_TEST((verdict("col_broadcast.slower", {.records = r}).holds == std::optional<bool>(false)));
}

// A shape the thesis shows on one group size is judged on that size, and says so: the column
// broadcast reaches three nodes on an 8-node 4 x 2 mesh where a row reaches one, so a ratio
// from 8 nodes says nothing about figure 5.15's 16. A run without 16 nodes is judged on its
// largest, named as not the thesis'.
BOOST_AUTO_TEST_CASE(a_shape_is_judged_on_the_group_size_of_the_thesis_figure) {
    std::vector<comet::record> r;
    for (std::int64_t nodes : {8, 16})
        for (std::int64_t dim : {16, 64}) {
            r.push_back(point("row_broadcast", {{"matrix_dim", dim}, {"nodes", nodes}, {"row", std::int64_t{0}}}, 1e-3));
            r.push_back(point("col_broadcast", {{"matrix_dim", dim}, {"nodes", nodes}, {"col", std::int64_t{0}}}, nodes == 8 ? 2.9e-3 : 1.02e-3));
        }
    const auto on_16 = verdict("col_broadcast.slower", {.records = r});
    BOOST_TEST((on_16.holds == std::optional<bool>(true)));
    BOOST_TEST(on_16.evidence.starts_with("on 16 nodes as the thesis: 2 of 2 points; column / row 1.020 .. 1.020"), on_16.evidence);
    std::vector<comet::record> without_16(r.begin(), r.begin() + 4);
    const auto on_8 = verdict("col_broadcast.slower", {.records = without_16});
    BOOST_TEST(on_8.evidence.starts_with("on 8 nodes (the thesis: 16): 2 of 2 points; column / row 2.900 .. 2.900"), on_8.evidence);
    // Contention (figure 5.5, 8 nodes): the 4-node fallback, whose cross traffic misses the
    // echo's route, does not dilute the 8-node ratios.
    std::vector<comet::record> c{point("contention", {{"nodes", std::int64_t{4}}}, 1e-4), point("contention", {{"nodes", std::int64_t{8}}}, 1e-4)};
    const comet::params four{{"nodes", std::int64_t{4}}};
    std::vector<comet::contention_slowdown> s{slowdown(0.5, 1.0, four), slowdown(0.9, 1.0, four), slowdown(0.5, 1.2), slowdown(0.9, 3.6)};
    const auto loaded = verdict("contention.loaded", {.contention = s, .records = c});
    BOOST_TEST((loaded.holds == std::optional<bool>(true)));
    BOOST_TEST(loaded.evidence.starts_with("on 8 nodes as the thesis: median loaded/idle 1.200 at 50%, 3.600 at 90%"), loaded.evidence);
    // Shapes about any size, or about several, are judged on everything as before.
    BOOST_TEST(verdict("pairwise.faster", {.records = r}).evidence.find("nodes as the thesis") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_jump_at_100_bytes_beyond_the_slope_below_it) {
    // 79 us + 0.63 us/B up to 100 B; 104 B on the long-message protocol.
    const auto echo_at = [](std::int64_t size, double seconds) {
        return point("echo", {{"size", size}, {"hops", std::int64_t{1}}, {"nodes", std::int64_t{16}}}, seconds);
    };
    std::vector<comet::record> r{echo_at(0, 79e-6), echo_at(64, 119.32e-6), echo_at(100, 142e-6), echo_at(104, 197.6e-6)};
    const auto yes = verdict("echo.jump", {.records = r});
    BOOST_TEST((yes.holds == std::optional<bool>(true)));
    BOOST_TEST(yes.evidence.find("1 of 1 curves jump by over 10% beyond the slope; on 16 nodes, 1 hop: 100 B 142.0 us, 104 B 197.6 us (+39%)") !=
                   std::string::npos,
               yes.evidence);
    r[3].samples = {144.52e-6};  // the same slope across 100 B: no jump
    const auto no = verdict("echo.jump", {.records = r});
    BOOST_TEST((no.holds == std::optional<bool>(false)));
    BOOST_TEST(no.evidence.find("; not on 16 nodes, 1 hop: 100 B 142.0 us, 104 B 144.5 us (+2%)") != std::string::npos,
               no.evidence);
    // Nothing above 100 B, or the next size too far above it to tell: not judged.
    r.pop_back();
    BOOST_TEST(!verdict("echo.jump", {.records = r}).holds.has_value());
    r.push_back(echo_at(4096, 1.8e-3));
    BOOST_TEST(!verdict("echo.jump", {.records = r}).holds.has_value());
}

BOOST_AUTO_TEST_CASE(asynchronous_slower_at_the_smallest_size) {
    const comet::overlap_gain slower = tiny_gains(0, {0.95, 0.98, 1.01});
    const auto yes = verdict("overlap.tiny", {.overlap = std::span(&slower, 1)});
    BOOST_TEST((yes.holds == std::optional<bool>(true)));
    BOOST_TEST(yes.evidence.find("at 0 B: sync/async median 0.980 over 3 vector lengths") != std::string::npos, yes.evidence);
    const comet::overlap_gain faster = tiny_gains(0, {1.05, 1.1, 0.9});
    BOOST_TEST((verdict("overlap.tiny", {.overlap = std::span(&faster, 1)}).holds == std::optional<bool>(false)));
    const comet::overlap_gain large_only = tiny_gains(1000, {0.9});
    BOOST_TEST(!verdict("overlap.tiny", {.overlap = std::span(&large_only, 1)}).holds.has_value());
}

BOOST_AUTO_TEST_SUITE_END()
