# Runs one of test/mpi/reliability_programs.cpp's programs as an MPI job and checks how it ended
# (ctest calls this with -P):
#   -DLAUNCHER=<mpiexec> -DJOB=<its arguments, ,-separated>
#   -DEXIT=<0, or nonzero>
#   -DLINES=<regexes separated by @@: each must match one line of the error output>
#   -DSTDOUT=<a regex the output must match (may be empty)>
#   -DSECONDS=<the job must end within this many seconds of wall time>
# A job that ends by a signal or a crash (an abort inside the C library, a heap corruption) is
# not the clean end these programs promise, whatever its status: its output says so.
string(REPLACE "," ";" args "${JOB}")
string(TIMESTAMP start "%s" UTC)
execute_process(COMMAND ${LAUNCHER} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP end "%s" UTC)
math(EXPR took "${end} - ${start}")
set(said "exit status ${rc} after about ${took} s\nstdout:\n${out}\nstderr:\n${err}")
if((EXIT STREQUAL "nonzero" AND rc EQUAL 0) OR (NOT EXIT STREQUAL "nonzero" AND NOT rc STREQUAL EXIT))
  message(FATAL_ERROR "expected exit status ${EXIT}: ${said}")
endif()
if(DEFINED SECONDS AND took GREATER SECONDS)
  message(FATAL_ERROR "the job took longer than ${SECONDS} s: ${said}")
endif()
if(err MATCHES "free\\(\\)|corrupted|Segmentation|signal [0-9]+|core dumped")
  message(FATAL_ERROR "the job crashed: ${said}")
endif()
if(STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "the output does not match ${STDOUT}: ${said}")
endif()
string(REPLACE "\n" ";" err_lines "${err}")
string(REPLACE "@@" ";" wanted "${LINES}")
foreach(regex ${wanted})
  set(found FALSE)
  foreach(line ${err_lines})
    if(line MATCHES "${regex}")
      set(found TRUE)
      break()
    endif()
  endforeach()
  if(NOT found)
    message(FATAL_ERROR "no line of the error output matches\n  ${regex}\n${said}")
  endif()
endforeach()
