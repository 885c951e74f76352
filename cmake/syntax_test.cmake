# comet_syntax_test(<test> <source> [MPI] [DEFINES <d>...] [LABELS <l>...]): the test <test>
# compiles <source> header-only for syntax and types only (-fsyntax-only: the compiler's front
# end, about a sixth of a -O3 build of a unit that instantiates kernels) with comet's headers,
# Eigen's and Boost's (and MPI's with MPI). For the programs a build does not compile in full:
# the comet program's units where it links the compiled part, the benchmarks where they are not
# built.
function(comet_syntax_test test source)
  cmake_parse_arguments(arg "MPI" "" "DEFINES;LABELS" ${ARGN})
  set(includes ${EIGEN3_INCLUDE_DIR} ${Boost_INCLUDE_DIRS})
  if(arg_MPI)
    get_target_property(mpi_includes MPI::MPI_CXX INTERFACE_INCLUDE_DIRECTORIES)
    if(mpi_includes)
      list(APPEND includes ${mpi_includes})
    endif()
  endif()
  list(REMOVE_ITEM includes ${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES})
  list(REMOVE_DUPLICATES includes)
  set(args -std=c++20 -fsyntax-only -I${PROJECT_SOURCE_DIR}/include)
  foreach(dir ${includes})
    list(APPEND args -isystem ${dir})
  endforeach()
  foreach(define ${arg_DEFINES})
    list(APPEND args -D${define})
  endforeach()
  list(APPEND args ${source})
  list(JOIN args "," args)
  add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -DPROGRAM=${CMAKE_CXX_COMPILER} "-DARGS=${args}" -DEXIT=0
    -P ${PROJECT_SOURCE_DIR}/cmake/expect.cmake)
  set_tests_properties(${test} PROPERTIES LABELS "${arg_LABELS}")
endfunction()
