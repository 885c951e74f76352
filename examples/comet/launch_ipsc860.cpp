// comet --transport ipsc860: the suite on the simulated iPSC/860 (default 16 nodes).
#include "program.hpp"

namespace comet_program {

#ifdef COMET_HAVE_NX2
outcome launch_ipsc860(const settings&) {
    throw usage_error("--transport ipsc860: the simulated iPSC/860 is not written yet");
}
#else
outcome launch_ipsc860(const settings&) {
    throw usage_error("--transport ipsc860: the simulated iPSC/860 is not part of this build (Boost.Context was not found)");
}
#endif

}  // namespace comet_program
