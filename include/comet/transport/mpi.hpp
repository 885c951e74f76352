// comet/transport/mpi.hpp — the MPI transport (SPEC 4.2): each rank is a process of an MPI job.
// Thin by design: every operation is the one MPI call named beside it, so what a kernel
// measures on it is MPI's, not a protocol of comet's. Not part of comet/comet.hpp: it needs an
// MPI library; link the comet::mpi CMake target.
//
//   comet::mpi::run([](comet::mpi::transport& t) { ... });      // under mpirun -np P
//
// What each member calls (MPI-3.1 section in brackets):
//   isend irecv test iprobe now     MPI_Isend MPI_Irecv MPI_Test MPI_Iprobe MPI_Wtime [3.7, 3.8.1, 8.6]
//   send recv wait wait_all         MPI_Send MPI_Recv MPI_Wait MPI_Waitall          [3.2, 3.7.3, 3.7.5]
//                                   (send to oneself: MPI_Isend of a copy, mpi/sent_copies.hpp)
//   ssend issend rsend irsend       MPI_Ssend MPI_Issend MPI_Rsend MPI_Irsend      [3.4, 3.7.2]
//   bsend                           MPI_Bsend, into a buffer the transport attaches  [3.4, 3.6]
//   sendrecv                        MPI_Sendrecv                                    [3.10]
//   barrier broadcast gather        MPI_Barrier MPI_Bcast MPI_Gather                [5.3, 5.4, 5.5]
//   allreduce_sum / _max / _min     MPI_Allreduce, MPI_DOUBLE, in place             [5.9.6]
//   reduce_sum / _max / _min        MPI_Reduce, MPI_DOUBLE, in place at the root    [5.9.1]
//   alltoall                        MPI_Alltoall                                    [5.8]
//   ibarrier ibroadcast iallreduce_sum  MPI_Ibarrier MPI_Ibcast MPI_Iallreduce      [5.12]
//   progress                        MPI_Iprobe on any source and tag (drives MPI's progress engine)
//   clock_is_global                 the MPI_WTIME_IS_GLOBAL attribute               [8.1.2]
//   abort                           prints "comet: rank R: <message>", MPI_Abort     [8.7]
//
// The transport in focused headers under comet/transport/mpi/ (this one includes them all):
//   transport.hpp    comet::mpi::transport and its options: point-to-point, send modes, progress
//   collectives.hpp  the blocking and nonblocking collectives, and the check of their arguments
//   endpoint.hpp     what every operation shares: the communicator, the options, argument checks,
//                    how a blocking operation completes (MPI's call, or its twin polled)
//   request.hpp      comet::mpi::request: completing one, dropping one while pending
//   status.hpp       MPI's statuses and receive errors in comet's terms
//   bsend.hpp        the buffer MPI_Bsend copies into      sent_copies.hpp  sends of a copy
//   guard.hpp        the truncation guard                  watchdog.hpp     the watchdog
//   environment.hpp  starting MPI, MPI's errors, ending a job
//   run.hpp          comet::mpi::run
// How the transport behaves where MPI leaves a choice, and why: docs/transports.md.
#pragma once

#include <comet/transport/mpi/environment.hpp>
#include <comet/transport/mpi/run.hpp>
#include <comet/transport/mpi/transport.hpp>
