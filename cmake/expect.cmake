# Runs a program and checks how it ended (ctest calls this with -P).
#   -DPROGRAM=<path> -DARGS=<,-list> -DEXIT=<expected status, or nonzero>
#   -DSTDERR=<regex the error output must match, as exactly one line>
#   -DSTDOUT=<regex the output must match>  -DFILES=<;-list of files that must exist afterwards>
#   -DDIAGNOSTIC=<regex the error output must contain somewhere (several lines allowed)>
string(REPLACE "," ";" args "${ARGS}")
string(REPLACE "|" "," args "${args}")  # "|" stands for a literal comma inside an argument
execute_process(COMMAND ${PROGRAM} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if((EXIT STREQUAL "nonzero" AND rc EQUAL 0) OR (NOT EXIT STREQUAL "nonzero" AND NOT rc STREQUAL EXIT))
  message(FATAL_ERROR "exit status ${rc}, expected ${EXIT}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED STDERR)
  string(STRIP "${err}" line)
  if(line MATCHES "\n")
    message(FATAL_ERROR "the error is more than one line:\n${err}")
  endif()
  if(NOT line MATCHES "${STDERR}")
    message(FATAL_ERROR "the error\n  ${line}\ndoes not match\n  ${STDERR}")
  endif()
endif()
if(DEFINED DIAGNOSTIC AND NOT err MATCHES "${DIAGNOSTIC}")
  message(FATAL_ERROR "the error output does not contain ${DIAGNOSTIC}:\n${err}")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "the output does not match ${STDOUT}:\n${out}")
endif()
foreach(f ${FILES})
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "${f} was not written")
  endif()
endforeach()
