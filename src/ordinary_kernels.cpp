// The ordinary (non-template) functions of kernels/, timing/, topology/ and the threads
// transport's set-up (transport/threads/): the definitions a header-only unit compiles and a
// compiled one only declares (comet/core/compiled.hpp), compiled here once.
// Every .ipp under include/ is in exactly one src/ordinary_*.cpp (CMakeLists.txt checks it).
#include <comet/core/compiled.hpp>

#if !defined(COMET_COMPILED)
#error "src/: the compiled part is built with COMET_COMPILED defined"
#endif

#include <comet/kernels/clock_sync.ipp>
#include <comet/kernels/collectives.ipp>
#include <comet/kernels/commtest/commtest.ipp>
#include <comet/kernels/commtest/protocol.ipp>
#include <comet/kernels/contention.ipp>
#include <comet/kernels/matrix/broadcast.ipp>
#include <comet/kernels/matrix/kernel.ipp>
#include <comet/kernels/matrix/setup.ipp>
#include <comet/kernels/matrix/verify.ipp>
#include <comet/kernels/nbc.ipp>
#include <comet/kernels/nist/kernel.ipp>
#include <comet/kernels/nist/mesh.ipp>
#include <comet/kernels/nist/rc.ipp>
#include <comet/kernels/nist/ring.ipp>
#include <comet/kernels/overlap.ipp>
#include <comet/kernels/rtt.ipp>
#include <comet/kernels/transfer.ipp>
#include <comet/kernels/windowed_collectives.ipp>
#include <comet/timing/sampled_point.ipp>
#include <comet/timing/sampling.ipp>
#include <comet/timing/sync.ipp>
#include <comet/timing/window.ipp>
#include <comet/topology/hypercube.ipp>
#include <comet/transport/threads/run.ipp>
#include <comet/transport/threads/world.ipp>
