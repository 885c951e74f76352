// The one Boost.Test main every test area links (built once, as a library).
#define BOOST_TEST_MODULE comet
#include <boost/test/unit_test.hpp>
