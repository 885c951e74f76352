// comet --transport mpi: the suite on the processes of an MPI job (mpirun -np P comet ...).
#include "program.hpp"

namespace comet_program {

#ifdef COMET_HAVE_MPI
outcome launch_mpi(const settings&) { throw usage_error("--transport mpi: the MPI transport is not written yet"); }
#else
outcome launch_mpi(const settings&) { throw usage_error("--transport mpi: this comet was built without MPI support"); }
#endif

}  // namespace comet_program
