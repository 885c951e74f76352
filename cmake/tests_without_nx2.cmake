# Checks that the unit tests build without the simulated iPSC/860, whose fibers need Boost.Context
# (ctest calls this with -P; test/CMakeLists.txt says how a build without it treats test files).
#   -DCOMPILER=<path> -DTESTS=<test/ of the source tree> -DWORK=<scratch directory>
#   -DFLAGS=<|-list: the language standard, include directories and warnings>
# For each area of test/, the files that keep their simulator cases under `#if COMET_TEST_HAS_NX2`
# are compiled together, as the area's unity build compiles them, with COMET_TEST_HAS_NX2=0 and for
# syntax only: a use of the simulator left outside the guard is an error here, a helper only the
# simulator's cases use is a warning in a test file (unused), and a Boost.Context header among
# those the compiler read (its -MD list) is what would not link on a machine without the library.
string(REPLACE "|" ";" flags "${FLAGS}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

file(GLOB sources ${TESTS}/*/test_*.cpp)
set(areas "")
foreach(source ${sources})
  file(READ ${source} text)
  if(text MATCHES "COMET_TEST_HAS_NX2")
    cmake_path(GET source PARENT_PATH dir)
    cmake_path(GET dir FILENAME area)
    list(APPEND areas ${area})
    list(APPEND guarded_${area} ${source})
  endif()
endforeach()
list(REMOVE_DUPLICATES areas)
if(NOT areas)
  message(FATAL_ERROR "no test file under ${TESTS} tests COMET_TEST_HAS_NX2: nothing was checked")
endif()

set(failures "")
foreach(area ${areas})
  set(unit ${WORK}/${area}.cpp)
  set(text "")
  foreach(source ${guarded_${area}})
    string(APPEND text "#include \"${source}\"\n")
  endforeach()
  file(WRITE ${unit} "${text}")
  execute_process(COMMAND ${COMPILER} ${flags} -DCOMET_TEST_HAS_NX2=0 -fsyntax-only -MD -MF ${WORK}/${area}.d ${unit}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  list(LENGTH guarded_${area} count)
  # Warnings count where they point into test/: those of the library's own headers are not
  # this check's business (clang's -Wpedantic has one there that GCC does not).
  set(test_warnings "")
  string(REGEX MATCHALL "[^\n]*: warning: [^\n]*" warnings "${err}")
  foreach(warning ${warnings})
    string(FIND "${warning}" "${TESTS}/" at)
    if(at EQUAL 0)
      list(APPEND test_warnings "${warning}")
    endif()
  endforeach()
  if(NOT rc EQUAL 0 OR test_warnings)
    string(APPEND failures "test/${area}/ without the simulator (status ${rc}):\n${err}\n")
    continue()
  endif()
  file(STRINGS ${WORK}/${area}.d context_headers REGEX "boost/context/")
  if(context_headers)
    list(GET context_headers 0 first)
    string(REGEX REPLACE "^ *([^ ]+).*" "\\1" first "${first}")
    string(APPEND failures "test/${area}/ without the simulator still includes Boost.Context (${first}): "
      "an #include <comet/transport/nx2.hpp> outside `#if COMET_TEST_HAS_NX2`?\n")
    continue()
  endif()
  message(STATUS "test/${area}/ builds without the simulator (guarded files: ${count})")
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
