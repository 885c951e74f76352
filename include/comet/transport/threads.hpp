// comet/transport/threads.hpp — the threads transport: P ranks as threads of one process.
//
//   comet::threads::run(4, [](comet::threads::transport& t) { ... });
//
// Messages up to `options::eager_limit` bytes are copied into a channel between the two ranks;
// larger ones are copied once, by the receiver, straight out of the sender's buffer. A blocking
// `send` never waits for a matching receive (`ssend` does). Matching happens only on the
// receiving thread, when it drains its channels. Collectives are native: the ranks read each
// other's buffers. Waiting spins briefly, then sleeps; a global deadlock raises
// `comet::deadlock_error` on every rank, and an exception on one rank stops the others and is
// rethrown by `run`. docs/transports.md describes it for users.
//
// The transport in focused headers under comet/transport/threads/ (this one includes them all):
//   transport.hpp    comet::threads::transport: point-to-point, send modes, the collectives' entry
//   inbox.hpp        a rank's receiving side: posted receives, unexpected messages, matching
//   request.hpp      comet::threads::request
//   handoff.hpp      the hand-over of a large message between sender and receiver
//   collectives.hpp  barrier, broadcast and allreduce_sum over the shared world
//   waiting.hpp      how a rank waits: spin, then sleep on its doorbell
//   world.hpp        what the ranks share, and the stop on a failure or deadlock; threads::options
//   channel.hpp      the one-way path between two ranks      copy.hpp, sleep.hpp  their primitives
//   run.hpp          comet::threads::run
#pragma once

#include <comet/transport/threads/request.hpp>
#include <comet/transport/threads/run.hpp>
#include <comet/transport/threads/transport.hpp>
#include <comet/transport/threads/world.hpp>
