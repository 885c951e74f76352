// Shared by the tests of every area: does an exception's message say what it should?
#pragma once

#include <boost/test/unit_test.hpp>

#include <exception>
#include <initializer_list>
#include <string>

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

}  // namespace comet_test
