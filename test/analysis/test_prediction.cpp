// Tests of comet/analysis/prediction.hpp: each measured point beside its prediction, matched by
// name; the fit's own kernel and unmatched points left out; a point whose median is flagged on
// either side kept with its flag and not counted, a median of zero too; the counts in the notes;
// points matched across clock schemes where that is unambiguous; a bad tolerance.
#include <comet/analysis/prediction.hpp>

#include "../support/records.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <variant>

BOOST_AUTO_TEST_SUITE(prediction)

using comet_test::rec;
using comet_test::us;
using comet::derived_table;

namespace {

comet::record at(const char* kernel, std::int64_t size, double t) { return rec(kernel, {{"size", size}, {"nodes", 2}}, {t, t, t}); }

std::string word(const derived_table::cell& c) { return std::holds_alternative<std::string>(c) ? std::get<std::string>(c) : "(not a word)"; }

}  // namespace

BOOST_AUTO_TEST_CASE(each_point_beside_its_prediction_and_the_counts_in_the_notes) {
    comet::result_set measured, predicted;
    measured.records = {at("echo", 8, 10 * us), at("echo", 64, 20 * us), at("broadcast", 8, 4 * us), at("loggp", 8, 1 * us),
                        at("barrier", 0, 3 * us)};
    predicted.records = {at("broadcast", 8, 6 * us), at("echo", 64, 21 * us), at("echo", 8, 12 * us), at("loggp", 8, 1 * us)};
    const derived_table t = comet::prediction_table(measured, predicted);
    BOOST_TEST(t.name == "prediction");
    BOOST_TEST_REQUIRE(t.rows.size() == 3u);  // loggp (the fit's own) and barrier (not predicted) left out
    // In the measured run's order, each with both medians in µs, the ratio and the verdict.
    BOOST_TEST(word(t.rows[0].cells[0]) == comet::point_name(measured.records[0]));
    BOOST_TEST(std::get<double>(t.rows[0].cells[1]) == 10.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(std::get<double>(t.rows[0].cells[2]) == 12.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(std::get<double>(t.rows[0].cells[3]) == 1.2, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(word(t.rows[0].cells[4]) == "yes");
    BOOST_TEST(word(t.rows[1].cells[4]) == "yes");  // 1.05
    BOOST_TEST(word(t.rows[2].cells[4]) == "no");   // broadcast 1.5
    BOOST_TEST_REQUIRE(t.notes.size() == 2u);
    BOOST_TEST(t.notes[0] == "2 of 3 points within ±25%; by kernel: broadcast 0/1 echo 2/2");
    BOOST_TEST(t.notes[1] == "1 measured points have no prediction (kernels, group sizes or parameters not run on the model)");
    // A tighter tolerance calls 1.2 out.
    const derived_table tight = comet::prediction_table(measured, predicted, 0.1);
    BOOST_TEST(word(tight.rows[0].cells[4]) == "no");
    BOOST_TEST(tight.notes[0] == "1 of 3 points within ±10%; by kernel: broadcast 0/1 echo 1/2");
}

BOOST_AUTO_TEST_CASE(a_flagged_median_on_either_side_keeps_its_row_and_is_not_counted) {
    comet::result_set measured, predicted;
    measured.records = {rec("echo", {{"size", 8}, {"nodes", 2}}, {10 * us, 14 * us, 19 * us, 11 * us, 16 * us}),  // samples disagree
                        at("echo", 64, 20 * us)};
    predicted.records = {at("echo", 8, 12 * us), rec("echo", {{"size", 64}, {"nodes", 2}}, {})};  // no valid sample
    const derived_table t = comet::prediction_table(measured, predicted);
    BOOST_TEST_REQUIRE(t.rows.size() == 2u);
    for (const auto& row : t.rows) {
        BOOST_TEST(std::holds_alternative<std::monostate>(row.cells[4]));  // no verdict
        BOOST_TEST(row.flags.size() == 3u);  // the side's median, the ratio, the verdict
    }
    BOOST_TEST(t.rows[0].flags[0].what == "measured[µs]");
    BOOST_TEST(t.rows[0].flags[0].why.find("measured: the samples disagree") == 0u, t.rows[0].flags[0].why);
    BOOST_TEST(t.rows[1].flags[0].what == "predicted[µs]");
    BOOST_TEST(t.rows[1].flags[0].why == "predicted: no valid sample");
    BOOST_TEST(t.notes[0] == "0 of 0 points within ±25% (2 more flagged, not counted); by kernel: echo 0/0");
}

BOOST_AUTO_TEST_CASE(a_median_of_zero_flags_the_ratio_and_the_verdict_once_each) {
    comet::result_set measured, predicted;
    measured.records = {at("barrier", 0, 0)};
    predicted.records = {at("barrier", 0, 3 * us)};
    const derived_table t = comet::prediction_table(measured, predicted);
    BOOST_TEST_REQUIRE(t.rows.size() == 1u);
    BOOST_TEST(std::holds_alternative<std::monostate>(t.rows[0].cells[3]));
    BOOST_TEST_REQUIRE(t.rows[0].flags.size() == 2u);
    BOOST_TEST(t.rows[0].flags[0].what == "predicted/measured");
    BOOST_TEST(t.rows[0].flags[0].why == "a median is zero or not a number");
    BOOST_TEST(t.rows[0].flags[1].what == "within");
    BOOST_TEST(t.notes[0] == "0 of 0 points within ±25% (1 more flagged, not counted); by kernel: barrier 0/0");
}

BOOST_AUTO_TEST_CASE(points_that_differ_in_their_clock_scheme_only_are_matched_where_that_is_unambiguous) {
    // Measured with the clocks synchronized (log_p); predicted on a global clock (none).
    const auto nbc = [](const char* operation, const char* scheme, double t) {
        return rec("nbc", {{"operation", operation}, {"size", 8}, {"nodes", 2}, {"scheme", scheme}}, {t, t, t});
    };
    comet::result_set measured, predicted;
    measured.records = {nbc("ibcast", "log_p", 10 * us), nbc("iallreduce", "log_p", 10 * us), nbc("ibarrier", "log_p", 5 * us)};
    // ibcast: one point on the model; iallreduce: two that differ in scheme only (ambiguous);
    // ibarrier: under the same scheme, matched by its whole name.
    predicted.records = {nbc("ibcast", "none", 11 * us), nbc("iallreduce", "none", 9 * us), nbc("iallreduce", "offset", 30 * us),
                         nbc("ibarrier", "log_p", 6 * us)};
    const derived_table t = comet::prediction_table(measured, predicted);
    BOOST_TEST_REQUIRE(t.rows.size() == 2u);
    BOOST_TEST(word(t.rows[0].cells[0]) == comet::point_name(measured.records[0]));  // the measured point's name
    BOOST_TEST(std::get<double>(t.rows[0].cells[2]) == 11.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(word(t.rows[1].cells[0]) == comet::point_name(measured.records[2]));
    BOOST_TEST_REQUIRE(t.notes.size() == 3u);
    BOOST_TEST(t.notes[1].find("1 points matched across clock schemes") == 0u, t.notes[1]);
    BOOST_TEST(t.notes[2] == "1 measured points have no prediction (kernels, group sizes or parameters not run on the model)");
}

BOOST_AUTO_TEST_CASE(a_tolerance_that_is_not_a_number_above_zero_is_refused) {
    const comet::result_set none;
    BOOST_CHECK_EXCEPTION(comet::prediction_table(none, none, 0), comet::invalid_argument,
                          comet_test::says("prediction_table: tolerance = 0 is not a number above 0"));
    BOOST_CHECK_EXCEPTION(comet::prediction_table(none, none, std::nan("")), comet::invalid_argument, comet_test::says("tolerance = nan"));
}

BOOST_AUTO_TEST_SUITE_END()
