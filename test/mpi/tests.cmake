# The MPI transport's tests, included by test/CMakeLists.txt when comet::mpi exists. Each runs a
# real MPI job through the MPI launcher CMake found (FindMPI: MPIEXEC_EXECUTABLE, ...):
#   mpi_2, mpi_3, mpi_4    the Boost.Test executable (conformance suite + MPI tests) on 2, 3
#                          and 4 processes (odd counts too: collectives and any_source differ)
#   mpi_rank_throws,       a job whose rank 1 throws / calls abort while the others wait: it
#   mpi_rank_aborts        must end non-zero, naming the rank, instead of hanging
#   mpi_cli_report_2/_4    `comet --transport mpi` writes results.json for the whole job
#   mpi_cli_nodes_mismatch `--nodes 3` under 2 processes: a usage error, exit non-zero
# All are labelled `mpi`, and each has a TIMEOUT so that a hang fails instead of blocking CI.

add_executable(test_mpi ${CMAKE_CURRENT_LIST_DIR}/test_mpi.cpp)
target_link_libraries(test_mpi PRIVATE comet::mpi comet_test_main comet_warnings)

# How to start a job here. Open MPI refuses more processes than cores without --oversubscribe
# (the tests run 4 on 2-core machines) and refuses to run as root (CI containers) without the
# two variables; its shared-memory transport copies large messages with process_vm_readv (CMA),
# which container seccomp profiles commonly forbid — the job then dies on the first large
# message — so the tests use its copy-in/copy-out path instead, which works everywhere. Other
# MPI libraries ignore the OMPI_ variables.
set(comet_mpiexec_flags ${MPIEXEC_PREFLAGS})
set(comet_mpi_environment
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none)
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE comet_mpiexec_version ERROR_QUIET)
if(comet_mpiexec_version MATCHES "Open MPI|OpenRTE" OR MPI_CXX_LIBRARY_VERSION_STRING MATCHES "Open MPI")
  list(PREPEND comet_mpiexec_flags --oversubscribe)
endif()

# comet_mpi_args(<var> <processes> <program> <arguments...>): the launcher's arguments for a
# job running <program> on <processes> processes.
function(comet_mpi_args var processes)
  set(${var} ${MPIEXEC_NUMPROC_FLAG} ${processes} ${comet_mpiexec_flags} ${ARGN} ${MPIEXEC_POSTFLAGS} PARENT_SCOPE)
endfunction()

# comet_mpi_test(<name> <processes> <timeout> COMMAND ...): a test labelled mpi that counts
# as <processes> processors for ctest -j, so parallel ctest runs do not pile jobs on the cores.
function(comet_mpi_test name processes timeout)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "" "COMMAND")
  add_test(NAME ${name} COMMAND ${arg_COMMAND})
  set_tests_properties(${name} PROPERTIES LABELS mpi TIMEOUT ${timeout} PROCESSORS ${processes}
    ENVIRONMENT "${comet_mpi_environment}")
endfunction()

foreach(n 2 3 4)
  comet_mpi_args(job ${n} $<TARGET_FILE:test_mpi> --log_level=test_suite --report_level=short)
  comet_mpi_test(mpi_${n} ${n} 600 COMMAND ${MPIEXEC_EXECUTABLE} ${job})
endforeach()

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
  comet_mpi_args(job 2 $<TARGET_FILE:comet_cli> --transport mpi --nodes 3)
  string(REPLACE ";" "," job "${job}")
  comet_mpi_test(mpi_cli_nodes_mismatch 2 120 COMMAND ${CMAKE_COMMAND} "-DPROGRAM=${MPIEXEC_EXECUTABLE}" "-DARGS=${job}"
    -DEXIT=nonzero "-DDIAGNOSTIC=comet: --nodes 3: this MPI job has 2 processes" -P ${PROJECT_SOURCE_DIR}/cmake/expect.cmake)
endif()
