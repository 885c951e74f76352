# The MPI transport's tests, included by test/CMakeLists.txt when comet::mpi exists. Each runs a
# real MPI job through the MPI launcher CMake found (FindMPI: MPIEXEC_EXECUTABLE, ...):
#   mpi_1 ... mpi_5        the Boost.Test executable (four conformance suites + MPI tests) on
#                          1 to 5 processes (odd and prime counts too: collectives, any_source
#                          and the groups of the conformance checks differ)
#   mpi_truncation_plain   the thin transport's conformance truncation check (plain and with
#                          the watchdog), in a job whose MPI truncates correctly (see "single
#                          copy" below)
#   mpi_rank_throws,       a job whose rank 1 throws / calls abort while the others wait: it
#   mpi_rank_aborts        must end non-zero, naming the rank, instead of hanging
#   mpi_cli_report_2/_4    `comet --transport mpi` writes results.json for the whole job
#   mpi_cli_nodes_mismatch `--nodes 3` under 2 processes: a usage error, exit non-zero
#   mpi_cli_nbc_thread_2   `--progressions none,thread`: MPI started MPI_THREAD_SERIALIZED, the
#                          progress thread runs on the job
#   mpi_cli_nist_2/_4      the NIST applications traced and dilated (D = 1, 2) under 2 and 4
#                          processes (the mesh needs a square: 4 only); each verifies itself
#   mpi_example_stencil_links  examples/04_stencil_links.cpp on 4 processes
#   mpi_reliability_*      whole programs (test/mpi/reliability_programs.cpp): deadlocks the
#                          watchdog must end within seconds, naming each blocked rank's
#                          operation and peer; collectives whose ranks disagree on a size,
#                          which must end the job naming both sizes; blocking sends to oneself
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

# The thin transport's conformance checks of a receive into too small a buffer (in the plain
# and the watched conformance suites: receive_buffer_sizes sends 100,000 bytes into 10, the
# random rounds truncate messages of up to 1 MiB). On a single-copy path Open MPI 4.1 writes
# the whole message past the buffer before it reports MPI_ERR_TRUNCATE (docs/transports.md),
# so with single copy on, those cases run in a job of their own with single copy off, where MPI
# truncates as it should. (The guarded transport and comet::buffered over it run them everywhere.)
# The watched conformance suite runs on the thin transport too (its receives are MPI_Irecv).
set(plain_truncation)
set(filter)
foreach(suite mpi_conformance mpi_watched_conformance)
  foreach(check receive_buffer_sizes random_traffic random_operations)
    list(APPEND plain_truncation ${suite}/${check})
    list(APPEND filter !${suite}/${check})
  endforeach()
endforeach()
list(JOIN plain_truncation ":" plain_truncation)
list(JOIN filter ":" filter)
if(COMET_MPI_SINGLE_COPY)
  set(filter --run_test=${filter})
else()
  set(filter)
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
  # The NIST applications on MPI: traced through the synchronised global clock, dilated, and
  # each verifying that every message was delivered and processed once (an error exits non-zero).
  foreach(n 2 4)
    if(n EQUAL 4)
      set(apps ring|rc|mesh)
      set(shows "cm-ring +4 .*cm-rc +4 .*cm-mesh +4 ")
    else()
      set(apps ring|rc)
      set(shows "cm-ring +2 .*cm-rc +2 ")
    endif()
    comet_mpi_args(job ${n} $<TARGET_FILE:comet_cli> --transport mpi --kernels ${apps} --dilation 1|2
      --out ${CMAKE_CURRENT_BINARY_DIR}/mpi-nist-${n})
    string(REPLACE ";" "," job "${job}")
    comet_mpi_test(mpi_cli_nist_${n} ${n} 300 COMMAND ${CMAKE_COMMAND} "-DPROGRAM=${MPIEXEC_EXECUTABLE}" "-DARGS=${job}"
      -DEXIT=0 "-DSTDOUT=speedup with time dilation .NIST figure 7.*${shows}" -P ${PROJECT_SOURCE_DIR}/cmake/expect.cmake)
  endforeach()
  # The nonblocking collectives' thread progression named on the command line: the program
  # starts MPI with MPI_THREAD_SERIALIZED and a progress thread runs (figure 11's thread curve).
  comet_mpi_args(job 2 $<TARGET_FILE:comet_cli> --transport mpi --kernels nbc --operations iallreduce --sizes 8
    --progressions none|thread --measurements 3)
  string(REPLACE ";" "," job "${job}")
  comet_mpi_test(mpi_cli_nbc_thread_2 2 300 COMMAND ${CMAKE_COMMAND} "-DPROGRAM=${MPIEXEC_EXECUTABLE}" "-DARGS=${job}"
    -DEXIT=0 "-DSTDOUT=os_thread" -P ${PROJECT_SOURCE_DIR}/cmake/expect.cmake)
  comet_mpi_args(job 2 $<TARGET_FILE:comet_cli> --transport mpi --nodes 3)
  string(REPLACE ";" "," job "${job}")
  comet_mpi_test(mpi_cli_nodes_mismatch 2 120 COMMAND ${CMAKE_COMMAND} "-DPROGRAM=${MPIEXEC_EXECUTABLE}" "-DARGS=${job}"
    -DEXIT=nonzero "-DDIAGNOSTIC=comet: --nodes 3: this MPI job has 2 processes" -P ${PROJECT_SOURCE_DIR}/cmake/expect.cmake)
endif()

# Reliability: whole programs, each checked for how its job ends (reliability_expect.cmake).
# The watchdog's limit is 2 s: a job that hangs past the TIMEOUT fails, one that ends within 30 s
# with the lines asked for passes. "." stands for a parenthesis in the patterns.
add_executable(reliability_programs ${CMAKE_CURRENT_LIST_DIR}/reliability_programs.cpp)
target_link_libraries(reliability_programs PRIVATE comet::mpi comet_warnings)
# comet_reliability_test(<name> <processes> <exit> <program and options> [LINES <regex>...] [STDOUT <regex>])
function(comet_reliability_test name processes exit)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "STDOUT" "LINES")
  comet_mpi_args(job ${processes} $<TARGET_FILE:reliability_programs> ${arg_UNPARSED_ARGUMENTS})
  string(REPLACE ";" "," job "${job}")
  string(REPLACE ";" "@@" lines "${arg_LINES}")
  comet_mpi_test(mpi_reliability_${name} ${processes} 120 COMMAND ${CMAKE_COMMAND} "-DLAUNCHER=${MPIEXEC_EXECUTABLE}"
    "-DJOB=${job}" -DEXIT=${exit} "-DLINES=${lines}" "-DSTDOUT=${arg_STDOUT}" -DSECONDS=30 -P ${CMAKE_CURRENT_LIST_DIR}/reliability_expect.cmake)
endfunction()
comet_reliability_test(watchdog_ssend_both 2 nonzero ssend_both watchdog_s=2
  LINES "comet: rank 0: watchdog: blocked for 2 s in ssend to rank 1 .tag 7, 8 bytes."
        "comet: rank 1: watchdog: blocked for 2 s in ssend to rank 0 .tag 7, 8 bytes.")
comet_reliability_test(watchdog_mixed 4 nonzero mixed watchdog_s=2
  LINES "comet: rank 0: watchdog: blocked for 2 s in recv from any rank .tag 3, up to 16 bytes."
        "comet: rank 1: watchdog: blocked for 2 s in barrier"
        "comet: rank 2: watchdog: blocked for 2 s in allreduce_sum .5 doubles."
        "comet: rank 3: watchdog: blocked for 2 s in barrier")
comet_reliability_test(watchdog_finished_peer 2 nonzero finished_peer watchdog_s=2
  LINES "comet: rank 0: watchdog: blocked for 2 s in recv from rank 1 .tag 1, up to 4 bytes.")
comet_reliability_test(watchdog_finished_peer_guarded 2 nonzero finished_peer watchdog_s=2 guard=1
  LINES "comet: rank 0: watchdog: blocked for 2 s in recv from rank 1 .tag 1, up to 4 bytes.")
comet_reliability_test(watchdog_isend_finished 2 nonzero isend_finished watchdog_s=2
  LINES "comet: rank 0: watchdog: blocked for 2 s in wait for isend to rank 1 .tag 4, 1048576 bytes.")
comet_reliability_test(watchdog_send_first 2 nonzero send_first watchdog_s=2
  LINES "comet: rank 1: watchdog: blocked for 2 s in send to rank 0 .tag 5, 1048576 bytes."
        "comet: rank 0: watchdog: blocked for 2 s in recv from rank 1 .tag 4, up to 1048576 bytes.")
foreach(n 2 3)
  comet_reliability_test(broadcast_sizes_${n} ${n} nonzero broadcast_sizes check=1
    LINES "comet: rank [0-9]: broadcast: the ranks disagree on the size: rank 0 passed 2000 bytes, rank 1 passed 1000 bytes .this rank passed [12]000")
  comet_reliability_test(allreduce_sizes_${n} ${n} nonzero allreduce_sizes check=1
    LINES "comet: rank [0-9]: allreduce_sum: the ranks disagree on the size: rank 0 passed 2000 doubles, rank 1 passed 1000 doubles")
  comet_reliability_test(gather_sizes_${n} ${n} nonzero gather_sizes check=1
    LINES "comet: rank [0-9]: gather: the ranks disagree on the size: rank 0 passed 2000 bytes each, rank 1 passed 1000 bytes each")
  comet_reliability_test(alltoall_sizes_${n} ${n} nonzero alltoall_sizes check=1
    LINES "comet: rank [0-9]: alltoall: the ranks disagree on the size: rank 0 passed 2000 bytes to each rank, rank 1 passed 1000 bytes to each rank")
  comet_reliability_test(portable_broadcast_sizes_${n} ${n} nonzero portable_broadcast_sizes
    LINES "comet: rank [1-9]: broadcast: rank [0-9] sent 1000 bytes where this rank expects 2000")
endforeach()
# Faults injected into echo and pairwise with verification (comet::faulty), on 2 processes,
# with the watchdog on (a rank left in a collective by its peer's failure ends the job too):
# a lost, duplicated or corrupted message ends the job with a one-line error naming a rank; a
# reordering or a delay is harmless here and the job finishes, having injected faults.
foreach(kernel echo pairwise)
  foreach(fault drop duplicate corrupt)
    comet_reliability_test(fault_${fault}_${kernel} 2 nonzero ${fault}_${kernel} watchdog_s=5
      LINES "^comet: rank [01]: ")
  endforeach()
  foreach(fault reorder delay)
    comet_reliability_test(fault_${fault}_${kernel} 2 0 ${fault}_${kernel}
      STDOUT "rank 0: completed, faults injected: [1-9]")
  endforeach()
endforeach()
comet_reliability_test(send_to_self 2 0 send_to_self
  STDOUT "rank 0: 63 sizes sent to itself and received")
comet_reliability_test(send_to_self_guarded 3 0 send_to_self guard=1
  STDOUT "rank 0: 63 sizes sent to itself and received")
comet_reliability_test(send_to_self_watched 2 0 send_to_self watchdog_s=60
  STDOUT "rank 0: 63 sizes sent to itself and received")
