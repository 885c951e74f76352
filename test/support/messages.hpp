// Shared by the tests of every area: does an exception's message say what it should?
#pragma once

#include <boost/test/unit_test.hpp>

#include <exception>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace comet_test {

/// True if `e.what()` contains every one of `words`; logs the first one missing.
inline bool mentions(const std::exception& e, std::initializer_list<const char*> words) {
    const std::string what = e.what();
    for (const char* w : words)
        if (what.find(w) == std::string::npos) {
            BOOST_TEST_MESSAGE("missing \"" << w << "\" in: " << what);
            return false;
        }
    return true;
}

/// Checks that every rank's message (`said[r]`, what rank r caught) names its rank ("rank r: ")
/// and every one of `words`: a refusal that every rank raises alike.
inline void said_by_every_rank(const std::vector<std::string>& said, std::initializer_list<const char*> words) {
    for (std::size_t rank = 0; rank < said.size(); ++rank) {
        const std::string with_rank = "rank " + std::to_string(rank) + ": ";
        BOOST_TEST(mentions(std::runtime_error(said[rank]), {with_rank.c_str()}));
        BOOST_TEST(mentions(std::runtime_error(said[rank]), words));
    }
}

}  // namespace comet_test
