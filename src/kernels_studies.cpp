// The studies on one transport (src/instantiate.hpp): COMMTEST, and NIST's three synthetic
// applications and their dilation study.
#include <comet/kernels/commtest/commtest.hpp>
#include <comet/kernels/nist/applications.hpp>
#include <comet/kernels/nist/kernel.hpp>

#include "instantiate.hpp"
