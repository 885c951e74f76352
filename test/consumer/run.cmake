# Builds and runs one consumer project (ctest calls this with -P).
#   -DINSTALL_FROM=<comet build tree> -DPREFIX=<dir>: instead, installs comet's library (the
#     install component `development`: no program needs to be built) into an emptied <dir>
#   -DPROJECT=<dir> -DWORK=<scratch dir> -DRUN=<program to run after the build>
#   -DLAUNCH=<launcher and its arguments, ,-separated> (optional: e.g. mpiexec,-n,2)
#   -DPREFIX=<comet install prefix> (find_package) or -DCOMET_SOURCE_DIR=<tree> (add_subdirectory)
#   -DCONFIGURE_ARGS=<more configure arguments, ,-separated> (optional)
#   -DCONFIGURE_ERROR=<regex> (optional): the configure must fail, its output matching the
#     regex, and nothing is built
#   -DFILES=<files that must exist, ,-separated> (optional: checked before anything else)
#   -DDOCUMENT=<file> (optional): PROJECT is not a folder of this tree but a name, and the
#     project's files are the document's code blocks marked for it, copied verbatim into
#     <WORK>-src; in the document, the line before the block's opening fence says
#       <!-- test/consumer: <PROJECT>/<file name> -->
#     so the test fails when the document's snippet stops compiling, linking or passing.
cmake_minimum_required(VERSION 3.21)  # a script's policies: while(TRUE) and if(TRUE) as today's CMake reads them
if(INSTALL_FROM)
  file(REMOVE_RECURSE ${PREFIX})
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${INSTALL_FROM} --prefix ${PREFIX} --component development
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the install into ${PREFIX} failed (${rc})")
  endif()
  return()
endif()

string(REPLACE "," ";" FILES "${FILES}")
foreach(f ${FILES})
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "${f} was not installed")
  endif()
endforeach()

if(DOCUMENT)
  file(READ ${DOCUMENT} text)
  set(source ${WORK}-src)
  file(REMOVE_RECURSE ${source})
  set(marker "<!-- test/consumer: ${PROJECT}/")
  set(found "")
  while(TRUE)
    string(FIND "${text}" "${marker}" at)
    if(at EQUAL -1)
      break()
    endif()
    string(LENGTH "${marker}" skip)
    math(EXPR at "${at} + ${skip}")
    string(SUBSTRING "${text}" ${at} -1 text)
    # The file name, up to " -->"; then the fenced block that opens on the next line.
    string(FIND "${text}" " -->\n```" name_end)
    if(name_end EQUAL -1)
      message(FATAL_ERROR "${DOCUMENT}: a '${marker}' line must end with ' -->' and be followed by a ``` fence")
    endif()
    string(SUBSTRING "${text}" 0 ${name_end} name)
    string(SUBSTRING "${text}" ${name_end} -1 text)
    string(FIND "${text}" "\n" line_end)              # the end of the marker line
    string(SUBSTRING "${text}" ${line_end} -1 text)
    string(SUBSTRING "${text}" 1 -1 text)
    string(FIND "${text}" "\n" line_end)              # the end of the opening fence
    math(EXPR line_end "${line_end} + 1")
    string(SUBSTRING "${text}" ${line_end} -1 text)
    string(FIND "${text}" "\n```" block_end)          # the closing fence
    if(block_end EQUAL -1)
      message(FATAL_ERROR "${DOCUMENT}: the block of ${PROJECT}/${name} has no closing fence")
    endif()
    math(EXPR block_end "${block_end} + 1")
    string(SUBSTRING "${text}" 0 ${block_end} block)
    string(SUBSTRING "${text}" ${block_end} -1 text)
    file(WRITE ${source}/${name} "${block}")
    list(APPEND found ${name})
  endwhile()
  if(NOT found)
    message(FATAL_ERROR "${DOCUMENT} has no code block marked '${marker}...'")
  endif()
  message(STATUS "from ${DOCUMENT}: ${found}")
  set(PROJECT ${source})
endif()

file(REMOVE_RECURSE ${WORK})
set(args -S ${PROJECT} -B ${WORK} -DCMAKE_BUILD_TYPE=Release)
if(PREFIX)
  list(APPEND args -DCMAKE_PREFIX_PATH=${PREFIX})
endif()
if(COMET_SOURCE_DIR)
  list(APPEND args -DCOMET_SOURCE_DIR=${COMET_SOURCE_DIR})
endif()
string(REPLACE "," ";" more "${CONFIGURE_ARGS}")
list(APPEND args ${more})

if(DEFINED CONFIGURE_ERROR)
  execute_process(COMMAND ${CMAKE_COMMAND} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "consumer ${PROJECT}: the configure succeeded, expected it to fail\n${out}\n${err}")
  endif()
  # CMake wraps long messages; compare with the line breaks and indents folded to spaces.
  string(REGEX REPLACE "[ \n]+" " " said "${out} ${err}")
  if(NOT said MATCHES "${CONFIGURE_ERROR}")
    message(FATAL_ERROR "consumer ${PROJECT}: the configure failed without saying ${CONFIGURE_ERROR}:\n${out}\n${err}")
  endif()
  message(STATUS "the configure failed as expected:\n${err}")
  return()
endif()

foreach(step configure build run)
  if(step STREQUAL configure)
    set(cmd ${CMAKE_COMMAND} ${args})
  elseif(step STREQUAL build)
    set(cmd ${CMAKE_COMMAND} --build ${WORK} -j2)
  else()
    string(REPLACE "," ";" launch "${LAUNCH}")
    set(cmd ${launch} ${WORK}/${RUN})
  endif()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer ${PROJECT}: ${step} failed (${rc})")
  endif()
endforeach()
