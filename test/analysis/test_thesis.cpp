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

}  // namespace thesis_verdict_test

BOOST_AUTO_TEST_SUITE(thesis_verdicts)

using namespace thesis_verdict_test;

BOOST_AUTO_TEST_CASE(every_shape_names_its_kernel_and_has_a_judgement) {
    for (const auto& s : comet::thesis_shapes()) {
        BOOST_TEST(s.key.substr(0, s.kernel.size()) == s.kernel);
        BOOST_TEST(static_cast<bool>(s.judge));
    }
    BOOST_TEST(comet::thesis_shapes_of("contention").size() == 2u);
    BOOST_TEST(comet::thesis_shapes_of("echo").empty());
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
    fits.push_back(log_p("broadcast", 10e-6, false, 4));  // follows P better: no
    BOOST_TEST(!*verdict("broadcast.log_p", {.log_p = fits}).holds);
    const std::vector<comet::log_p_fit> shrinking{log_p("barrier", -1e-6, true, 4)};
    BOOST_TEST(!*verdict("barrier.log_p", {.log_p = shrinking}).holds);
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

BOOST_AUTO_TEST_SUITE_END()
