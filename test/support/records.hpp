// Shared by the tests of comet/stats/ and comet/analysis/: records made by hand.
#pragma once

#include <comet/stats/record.hpp>

#include <boost/test/unit_test.hpp>

#include <exception>
#include <string>
#include <vector>

namespace comet_test {

namespace tt = boost::test_tools;

inline auto says(std::string text) {
    return [text](const std::exception& e) {
        const bool found = std::string(e.what()).find(text) != std::string::npos;
        if (!found) BOOST_TEST_MESSAGE("missing \"" << text << "\" in: " << e.what());
        return found;
    };
}

constexpr double us = 1e-6;

/// A record of `kernel` with the given params and samples.
inline comet::record rec(std::string kernel, comet::params p, std::vector<double> samples) {
    return {std::move(kernel), std::move(p), std::move(samples)};
}

/// Three samples whose median is `t` (a slow outlier and a fast one around it).
inline std::vector<double> around(double t) { return {t + 40 * us, t, t - 0.5 * us}; }

/// Every record's samples made alike, three of its `around` median: no flag (around's samples
/// disagree at small medians, a 0.5 µs step being above 5% of them).
inline void steady(comet::result_set& rs) {
    for (auto& r : rs.records) r.samples.assign(3, r.samples[1]);
}

}  // namespace comet_test
