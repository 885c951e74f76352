# The randomized differential test on the MPI transport (test/mpi/test_differential.cpp), included
# by test/CMakeLists.txt after tests.cmake (whose comet_mpi_args and comet_mpi_test it uses): an
# executable of its own, run under the MPI launcher on 2, 3 and 4 processes (an odd count too:
# the programs' pairs and collectives differ), labelled mpi, each with a TIMEOUT so that a hang
# fails instead of blocking CI (the test's own watchdog names the seed first). The long run:
# COMET_DIFFERENTIAL_SEEDS=2000 ctest -R mpi_differential.
add_executable(test_mpi_differential ${CMAKE_CURRENT_LIST_DIR}/test_differential.cpp)
target_link_libraries(test_mpi_differential PRIVATE comet::mpi comet_test_main comet_warnings)
foreach(n 2 3 4)
  comet_mpi_args(job ${n} $<TARGET_FILE:test_mpi_differential> --log_level=test_suite --report_level=short)
  comet_mpi_test(mpi_differential_${n} ${n} 900 COMMAND ${MPIEXEC_EXECUTABLE} ${job})
endforeach()
