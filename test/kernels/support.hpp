// Shared by the kernel tests: the threads transport and a quick configuration.
#pragma once

#include <comet/kernels/transfer.hpp>
#include <comet/transport/threads.hpp>

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <string>

namespace transfer_test {

using comet::threads::run;
using comet::threads::transport;

using comet_test::mentions;

inline const comet::transfer_config quick{.sizes = {0, 8, 100, 5000}, .max_times = 20, .samples = 2, .warmup = 2};

}  // namespace transfer_test
