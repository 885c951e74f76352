# Interrupts a long run of the comet program and checks what it leaves (ctest calls this with -P):
# SIGINT after AFTER seconds must end the run within WITHIN seconds (default 5) with status 130
# and a report folder holding everything measured up to there: a results.json that reads back
# (`comet compare` of the folder with itself reads it with comet's own JSON reader), with a
# "stopped" member, and a summary.txt whose first line says where (kernel and point) and why the
# run stopped. With -DTWICE=1 a second SIGINT follows the first at once: the report is then
# written from the signal's thread, and must say the same.
#   -DPROGRAM=<comet> -DOUT=<report folder> -DAFTER=<seconds> -DARGS=<,-list of options>
#   [-DWITHIN=<seconds>] [-DTWICE=1]
string(REPLACE "," ";" args "${ARGS}")
# AFTER=random:<N>: a moment drawn at random in 0.5 .. N s (said in the test's output, so a failing
# moment can be tried again).
if(AFTER MATCHES "^random:([0-9]+)$")
  math(EXPR span_ms "${CMAKE_MATCH_1} * 1000 - 500")
  string(RANDOM LENGTH 6 ALPHABET 0123456789 draw)
  math(EXPR at_ms "500 + 1${draw} % ${span_ms}")
  math(EXPR whole "${at_ms} / 1000")
  math(EXPR part "${at_ms} % 1000")
  string(LENGTH "${part}" digits)
  if(digits EQUAL 1)
    set(part "00${part}")
  elseif(digits EQUAL 2)
    set(part "0${part}")
  endif()
  set(AFTER "${whole}.${part}")
  message(STATUS "SIGINT after ${AFTER} s")
endif()
file(REMOVE_RECURSE ${OUT})
set(words "")
foreach(a ${args})
  string(APPEND words " '${a}'")
endforeach()
# The program runs in the background of a shell that sends the signal; `wait` gives its status.
# The shell prints how long the program took from the first signal to its end, in milliseconds.
if(NOT DEFINED WITHIN)
  set(WITHIN 5)
endif()
set(again "")
if(TWICE)
  # A run that ended within the 50 ms on the first signal has no process left to signal.
  set(again "sleep 0.05; kill -INT $pid 2>/dev/null || echo 'the run ended before the second signal';")
endif()
execute_process(
  COMMAND sh -c "'${PROGRAM}'${words} --out '${OUT}' & pid=$!; sleep ${AFTER}; t0=$(date +%s%N); kill -INT $pid; ${again} wait $pid; rc=$?; t1=$(date +%s%N); echo \"took $(( (t1 - t0) / 1000000 )) ms\"; exit $rc"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
string(REGEX MATCH "took ([0-9]+) ms\n?$" took "${out}")
set(took_ms ${CMAKE_MATCH_1})
if(took_ms STREQUAL "" OR took_ms GREATER "${WITHIN}000")
  message(FATAL_ERROR "the run took '${took_ms}' ms after SIGINT to end, more than ${WITHIN} s\nstderr:\n${err}")
endif()
if(NOT rc EQUAL 130)
  message(FATAL_ERROR "exit status ${rc}, expected 130 (SIGINT)\nstdout:\n${out}\nstderr:\n${err}")
endif()
# The first signal is answered at once with what it does, and the run ends saying where it stopped.
string(STRIP "${err}" err_lines)
if(NOT err_lines MATCHES "^comet: interrupted \\(SIGINT\\): stopping after the sample in progress [^\n]*\n")
  message(FATAL_ERROR "the first signal was not answered with one line saying what it does:\n${err}")
endif()
string(REGEX MATCH "[^\n]*$" line "${err_lines}")
if(NOT line MATCHES "^comet: stopped in [a-z_0-9]+ (after [^ ]+|before any point was measured): interrupted \\(SIGINT\\)[^\n]*$")
  message(FATAL_ERROR "the error does not end with one line saying where the run stopped:\n${err}")
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
# When the sample in progress outlasts the grace (a loaded machine), or a second signal came, the
# report is written at once and the reason says so (file(STRINGS) gives its ';' as '\;').
set(at_once "(\\\\?; (twice|the sample in progress outlasted [0-9]+ s): the report was written at once, without the points still being sampled)?")
file(STRINGS ${OUT}/summary.txt first LIMIT_COUNT 1)
if(NOT first MATCHES "^stopped in [a-z_0-9]+ (after|before) .*: interrupted \\(SIGINT\\)${at_once}$")
  message(FATAL_ERROR "summary.txt does not start by saying where the run stopped:\n${first}")
endif()
file(READ ${OUT}/results.json json)
string(REGEX REPLACE "[ \n]+" " " json "${json}")
if(NOT json MATCHES "\"stopped\": { \"kernel\": \"[a-z_0-9]+\", \"last_point\": \"[^\"]*\", \"reason\": \"interrupted \\(SIGINT\\)${at_once}\" }")
  message(FATAL_ERROR "results.json has no \"stopped\" member saying where and why")
endif()
execute_process(COMMAND ${PROGRAM} compare ${OUT} ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# A signal before the first sample of the first point leaves a report without points: it reads
# back, and has nothing to compare. On a loaded machine every point measured before the signal
# may be flagged (all its samples preempted): it reads back too, and compare refuses flagged
# points, naming them.
if(rc EQUAL 2 AND err MATCHES "the runs have no point in common \\(A: no points; B: no points\\)")
  set(rc 0)
elseif(rc EQUAL 2 AND err MATCHES "none of the [0-9]+ points both runs measured can be compared[ \n]+\\(.*A: flagged")
  set(rc 0)
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "results.json does not read back (comet compare: exit ${rc}):\n${err}${out}")
endif()
message(STATUS "stopped as asked in ${took_ms} ms: ${line}")
