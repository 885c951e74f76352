// Tests of comet/analysis/predict.hpp: the model evaluated by hand, the regime chosen by size on
// both sides of a break, the hop term, and every refusal (a flagged fit, a distance the fit
// cannot know, sizes that are no sizes).
#include <comet/analysis/predict.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/records.hpp"

#include <limits>
#include <vector>

namespace predict_test {

using namespace comet_test;

/// A fit of `kernel` in `regime` with t = startup + N·per_byte (+ hop), bounds as given.
inline comet::transfer_fit line(double startup, double per_byte, std::optional<double> lower = {},
                                std::optional<double> upper = {}, std::optional<double> hop = {}) {
    comet::transfer_fit f{"pairwise", "all", startup, per_byte, hop, 0.0, 10, {}};
    f.lower_break = lower;
    f.upper_break = upper;
    return f;
}

}  // namespace predict_test

BOOST_AUTO_TEST_SUITE(predict)

using namespace predict_test;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_CASE(one_regime_evaluates_the_line) {
    const auto f = line(10 * us, 2e-9);
    // 10 µs + 8192 · 2 ns = 26.384 µs.
    BOOST_TEST(comet::predict(f, 8192) == 26.384 * us, tt::tolerance(1e-12));
    BOOST_TEST(comet::predict(f, 0) == 10 * us, tt::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(the_regime_holding_the_size_predicts) {
    // small: sizes ≤ 100, 75 µs + 0.4 ns/B; large: sizes > 100, 136 µs + 0.36 ns/B.
    auto small = line(75 * us, 0.4e-9, {}, 100.0), large = line(136 * us, 0.36e-9, 100.0, {});
    small.regime = "small";
    large.regime = "large";
    const std::vector<comet::transfer_fit> fits{small, large};
    BOOST_TEST(comet::predict(fits, 100) == 75 * us + 100 * 0.4e-9, tt::tolerance(1e-12));   // the break: still small
    BOOST_TEST(comet::predict(fits, 101) == 136 * us + 101 * 0.36e-9, tt::tolerance(1e-12));  // just past it
    BOOST_TEST(comet::predict(fits, 1e6) == 136 * us + 1e6 * 0.36e-9, tt::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(the_hop_term_adds_per_extra_link) {
    const auto f = line(10 * us, 1e-9, {}, {}, 2 * us);
    BOOST_TEST(comet::predict(f, 1000, 1) == 11 * us, tt::tolerance(1e-12));
    BOOST_TEST(comet::predict(f, 1000, 3) == 15 * us, tt::tolerance(1e-12));  // two extra links
}

BOOST_AUTO_TEST_CASE(what_a_fit_cannot_say_is_an_error) {
    auto flagged = line(-1 * us, 1e-9);
    flagged.flags = {"negative_startup"};
    BOOST_CHECK_EXCEPTION(comet::predict(flagged, 8), comet::invalid_argument,
                          says("predict: the pairwise fit (regime all) is flagged: negative start-up; it predicts nothing"));
    BOOST_CHECK_EXCEPTION(comet::predict(line(1 * us, 1e-9), 8, 2), comet::invalid_argument,
                          says("has no hop term: its records spanned one distance, so it cannot say what 2 hops cost"));
    BOOST_CHECK_EXCEPTION(comet::predict(line(1 * us, 1e-9), -1), comet::invalid_argument,
                          says("predict: message size -1 is not a number of bytes >= 0"));
    BOOST_CHECK_EXCEPTION(comet::predict(line(1 * us, 1e-9), std::numeric_limits<double>::infinity()),
                          comet::invalid_argument, says("is not a number of bytes"));
    BOOST_CHECK_EXCEPTION(comet::predict(line(1 * us, 1e-9, {}, {}, 1 * us), 8, 0), comet::invalid_argument,
                          says("predict: hops = 0 is below 1"));
    BOOST_CHECK_EXCEPTION(comet::predict(std::vector<comet::transfer_fit>{}, 8), comet::invalid_argument,
                          says("predict: no fit to predict from"));
    auto other = line(1 * us, 1e-9);
    other.kernel = "echo";
    BOOST_CHECK_EXCEPTION(comet::predict(std::vector<comet::transfer_fit>{line(1 * us, 1e-9), other}, 8),
                          comet::invalid_argument, says("predict: fits of two kernels (pairwise, echo)"));
    // A hand-made list with a gap between its regimes.
    BOOST_CHECK_EXCEPTION(comet::predict(std::vector<comet::transfer_fit>{line(1 * us, 1e-9, {}, 100.0),
                                                                          line(1 * us, 1e-9, 200.0, {})},
                                         150),
                          comet::invalid_argument, says("predict: no regime of the pairwise fit holds 150 bytes"));
}

BOOST_AUTO_TEST_SUITE_END()
