// comet --transport threads: the suite on P threads of this process (default 2), for each P
// given (the body is launch_threads.hpp, which a test also runs with a kernel of its own).
#include "launch_threads.hpp"

namespace comet_program {

outcome launch_threads(const settings& s) { return run_threads(s); }

}  // namespace comet_program
