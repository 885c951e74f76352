# Interrupts a long run of the comet program and checks what it leaves (ctest calls this with -P):
# SIGINT after AFTER seconds must end the run with status 130 and a report folder holding
# everything measured up to there: a results.json that reads back (`comet compare` of the folder
# with itself reads it with comet's own JSON reader), with a "stopped" member, and a
# summary.txt whose first line says where (kernel and point) and why the run stopped.
#   -DPROGRAM=<comet> -DOUT=<report folder> -DAFTER=<seconds> -DARGS=<,-list of options>
string(REPLACE "," ";" args "${ARGS}")
file(REMOVE_RECURSE ${OUT})
set(words "")
foreach(a ${args})
  string(APPEND words " '${a}'")
endforeach()
# The program runs in the background of a shell that sends the signal; `wait` gives its status.
execute_process(
  COMMAND sh -c "'${PROGRAM}'${words} --out '${OUT}' & pid=$!; sleep ${AFTER}; kill -INT $pid; wait $pid"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(NOT rc EQUAL 130)
  message(FATAL_ERROR "exit status ${rc}, expected 130 (SIGINT)\nstdout:\n${out}\nstderr:\n${err}")
endif()
string(STRIP "${err}" line)
if(NOT line MATCHES "^comet: stopped in [a-z_0-9]+ (after [^ ]+|before any point was measured): interrupted \\(SIGINT\\)[^\n]*$")
  message(FATAL_ERROR "the error is not one line saying where the run stopped:\n${err}")
endif()
foreach(f results.json results.csv summary.txt gbench.json)
  if(NOT EXISTS ${OUT}/${f})
    message(FATAL_ERROR "${OUT}/${f} was not written\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endforeach()
file(GLOB leftovers ${OUT}/.*.tmp)
if(leftovers)
  message(FATAL_ERROR "temporary files left behind: ${leftovers}")
endif()
file(STRINGS ${OUT}/summary.txt first LIMIT_COUNT 1)
if(NOT first MATCHES "^stopped in [a-z_0-9]+ (after|before) .*: interrupted \\(SIGINT\\)$")
  message(FATAL_ERROR "summary.txt does not start by saying where the run stopped:\n${first}")
endif()
file(READ ${OUT}/results.json json)
string(REGEX REPLACE "[ \n]+" " " json "${json}")
if(NOT json MATCHES "\"stopped\": { \"kernel\": \"[a-z_0-9]+\", \"last_point\": \"[^\"]*\", \"reason\": \"interrupted \\(SIGINT\\)\" }")
  message(FATAL_ERROR "results.json has no \"stopped\" member saying where and why")
endif()
execute_process(COMMAND ${PROGRAM} compare ${OUT} ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "results.json does not read back (comet compare: exit ${rc}):\n${err}${out}")
endif()
message(STATUS "stopped as asked: ${line}")
