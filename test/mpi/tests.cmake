# The MPI transport's tests, included by test/CMakeLists.txt when comet::mpi exists. Each runs a
# real MPI job through the MPI launcher CMake found (FindMPI: MPIEXEC_EXECUTABLE, ...):
#   mpi_1 ... mpi_5        the Boost.Test executable (three conformance suites + MPI tests) on
#                          1 to 5 processes (odd and prime counts too: collectives, any_source
#                          and the groups of the conformance checks differ)
#   mpi_truncation_plain   the thin transport's conformance truncation check, in a job whose
#                          MPI truncates correctly (see "single copy" below)
#   mpi_rank_throws,       a job whose rank 1 throws / calls abort while the others wait: it
#   mpi_rank_aborts        must end non-zero, naming the rank, instead of hanging
#   mpi_cli_report_2/_4    `comet --transport mpi` writes results.json for the whole job
#   mpi_cli_nodes_mismatch `--nodes 3` under 2 processes: a usage error, exit non-zero
#   mpi_example_stencil_links  examples/04_stencil_links.cpp on 4 processes
# All are labelled `mpi`, and each has a TIMEOUT so that a hang fails instead of blocking CI.

add_executable(test_mpi ${CMAKE_CURRENT_LIST_DIR}/test_mpi.cpp)
target_link_libraries(test_mpi PRIVATE comet::mpi comet_test_main comet_warnings)

# How to start a job here. Open MPI refuses more processes than cores without --oversubscribe
# (the tests run 5 on 2-core machines) and refuses to run as root (CI containers) without the
# two variables. Other MPI libraries ignore the OMPI_ variables.
set(comet_mpiexec_flags ${MPIEXEC_PREFLAGS})
set(comet_mpi_environment OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE comet_mpiexec_version ERROR_QUIET)
if(comet_mpiexec_version MATCHES "Open MPI|OpenRTE" OR MPI_CXX_LIBRARY_VERSION_STRING MATCHES "Open MPI")
  list(PREPEND comet_mpiexec_flags --oversubscribe)
endif()

# Single copy. Open MPI's shared-memory transport copies large messages straight from the
# sender's memory with process_vm_readv (CMA), which is the path applications get, so the tests
# use it where the machine allows it. Container seccomp profiles commonly forbid that system
# call (the job then dies on its first large message); there the tests fall back to the
# copy-in/copy-out path. The check: can this process read its own memory with process_vm_readv.
include(CheckCXXSourceRuns)
set(CMAKE_REQUIRED_QUIET ON)
check_cxx_source_runs([=[
#include <sys/uio.h>
#include <unistd.h>
int main() {
    char from[8] = "comet", into[8] = {};
    iovec local{into, sizeof into}, remote{from, sizeof from};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(sizeof from) ? 0 : 1;
}]=] COMET_MPI_SINGLE_COPY)
unset(CMAKE_REQUIRED_QUIET)
set(comet_mpi_no_single_copy OMPI_MCA_btl_vader_single_copy_mechanism=none)
if(NOT COMET_MPI_SINGLE_COPY)
  list(APPEND comet_mpi_environment ${comet_mpi_no_single_copy})
endif()

# comet_mpi_args(<var> <processes> <program> <arguments...>): the launcher's arguments for a
# job running <program> on <processes> processes.
function(comet_mpi_args var processes)
  set(${var} ${MPIEXEC_NUMPROC_FLAG} ${processes} ${comet_mpiexec_flags} ${ARGN} ${MPIEXEC_POSTFLAGS} PARENT_SCOPE)
endfunction()

# comet_mpi_test(<name> <processes> <timeout> [ENVIRONMENT ...] COMMAND ...): a test labelled
# mpi that counts as <processes> processors for ctest -j, so parallel ctest runs do not pile
# jobs on the cores.
function(comet_mpi_test name processes timeout)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "" "COMMAND;ENVIRONMENT")
  add_test(NAME ${name} COMMAND ${arg_COMMAND})
  set(environment ${comet_mpi_environment} ${arg_ENVIRONMENT})
  set_tests_properties(${name} PROPERTIES LABELS mpi TIMEOUT ${timeout} PROCESSORS ${processes}
    ENVIRONMENT "${environment}")
endfunction()

# The thin transport's conformance check of a receive into too small a buffer sends 100,000
# bytes into 10. On a single-copy path Open MPI 4.1 writes the whole message past the buffer
# before it reports MPI_ERR_TRUNCATE (comet/transport/mpi.hpp), so with single copy on, that
# one case runs in a job of its own with single copy off, where MPI truncates as it should.
# (The guarded transport and comet::buffered over it run it everywhere.)
set(plain_truncation mpi_conformance/receive_buffer_sizes)
set(filter)
if(COMET_MPI_SINGLE_COPY)
  set(filter --run_test=!${plain_truncation})
endif()
foreach(n 1 2 3 4 5)
  comet_mpi_args(job ${n} $<TARGET_FILE:test_mpi> ${filter} --log_level=test_suite --report_level=short)
  comet_mpi_test(mpi_${n} ${n} 900 COMMAND ${MPIEXEC_EXECUTABLE} ${job})
endforeach()
if(COMET_MPI_SINGLE_COPY)
  comet_mpi_args(job 2 $<TARGET_FILE:test_mpi> --run_test=${plain_truncation} --log_level=test_suite)
  comet_mpi_test(mpi_truncation_plain 2 120 ENVIRONMENT ${comet_mpi_no_single_copy} COMMAND ${MPIEXEC_EXECUTABLE} ${job})
endif()

# A failing rank ends the job: non-zero status, and its one line naming the rank.
foreach(case throws aborts)
  if(case STREQUAL throws)
    set(says "comet: rank 1: thrown on purpose")
  else()
    set(says "comet: rank 1: aborted on purpose")
  endif()
  comet_mpi_args(job 3 $<TARGET_FILE:test_mpi> --run_test=failure/rank_${case})
  string(REPLACE ";" "," job "${job}")
  comet_mpi_test(mpi_rank_${case} 3 120 COMMAND ${CMAKE_COMMAND} "-DPROGRAM=${MPIEXEC_EXECUTABLE}" "-DARGS=${job}"
    -DEXIT=nonzero "-DDIAGNOSTIC=${says}" -P ${PROJECT_SOURCE_DIR}/cmake/expect.cmake)
endforeach()

# The comet program under mpiexec (built with the examples; comet_cli is defined after this).
if(COMET_BUILD_EXAMPLES)
  foreach(n 2 4)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/mpi-report-${n})
    comet_mpi_args(job ${n} $<TARGET_FILE:comet_cli> --transport mpi --kernels echo|pairwise
      --sizes 0|8|100|1024|4096|65536 --reps 20 --out ${out})
    string(REPLACE ";" "," job "${job}")
    comet_mpi_test(mpi_cli_report_${n} ${n} 300 COMMAND ${CMAKE_COMMAND} "-DLAUNCHER=${MPIEXEC_EXECUTABLE}" "-DJOB=${job}"
      -DOUT=${out} -DNODES=${n}
      -P ${CMAKE_CURRENT_LIST_DIR}/expect_report.cmake)
  endforeach()
  # The stencil example's links (one at a time and all at once) on a 2 x 2 mesh of processes.
  comet_mpi_args(job 4 $<TARGET_FILE:example_04_stencil_links> mpi)
  string(REPLACE ";" "," job "${job}")
  comet_mpi_test(mpi_example_stencil_links 4 300 COMMAND ${CMAKE_COMMAND} "-DPROGRAM=${MPIEXEC_EXECUTABLE}" "-DARGS=${job}"
    -DEXIT=0 "-DSTDOUT=MPI, 4 ranks .2 x 2 mesh.; rank [0-9] and its 2 neighbours.*one at a time.*all at once"
    -P ${PROJECT_SOURCE_DIR}/cmake/expect.cmake)
  comet_mpi_args(job 2 $<TARGET_FILE:comet_cli> --transport mpi --nodes 3)
  string(REPLACE ";" "," job "${job}")
  comet_mpi_test(mpi_cli_nodes_mismatch 2 120 COMMAND ${CMAKE_COMMAND} "-DPROGRAM=${MPIEXEC_EXECUTABLE}" "-DARGS=${job}"
    -DEXIT=nonzero "-DDIAGNOSTIC=comet: --nodes 3: this MPI job has 2 processes" -P ${PROJECT_SOURCE_DIR}/cmake/expect.cmake)
endif()
