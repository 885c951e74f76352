# Runs `comet --transport mpi ... --out OUT` as an MPI job and checks what it wrote (ctest calls
# this with -P):
#   -DLAUNCHER=<mpiexec> -DJOB=<its arguments, ,-separated; "|" stands for a comma inside one>
#   -DOUT=<the --out folder> -DNODES=<processes>
# The job must exit 0 and print the tables; results.json must say transport "mpi", the job's
# size, and hold echo and pairwise records measured on that many nodes.
string(REPLACE "," ";" args "${JOB}")
string(REPLACE "|" "," args "${args}")
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${LAUNCHER} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit status ${rc}, expected 0\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT out MATCHES "t_startup.*echo.*pairwise")
  message(FATAL_ERROR "the output lacks the fits of echo and pairwise:\n${out}")
endif()
foreach(f results.json results.csv fits.csv bandwidth.csv summary.txt)
  if(NOT EXISTS ${OUT}/${f})
    message(FATAL_ERROR "${OUT}/${f} was not written\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endforeach()
file(READ ${OUT}/results.json json)
foreach(pattern "\"transport\": *\"mpi\"" "\"nodes\": *${NODES}[,\n ]" "\"kernel\": *\"echo\"" "\"kernel\": *\"pairwise\""
                "\"mpi_library\"")
  if(NOT json MATCHES "${pattern}")
    message(FATAL_ERROR "results.json does not match ${pattern}:\n${json}")
  endif()
endforeach()
