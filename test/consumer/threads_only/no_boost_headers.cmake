# Fails when the dependency list a compiler wrote (-M) names a Boost or MPI header.
file(READ ${HEADERS} deps)
string(REGEX MATCHALL "[^ \\\n]*(/boost/|/mpi\\.h|/mpi/|/openmpi/)[^ \\\n]*" found "${deps}")
if(found)
  file(REMOVE ${HEADERS})
  list(REMOVE_DUPLICATES found)
  string(REPLACE ";" "\n  " found "${found}")
  message(FATAL_ERROR "the threads-only program includes headers of a library it must not need:\n  ${found}")
endif()
