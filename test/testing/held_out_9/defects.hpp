// held_out_9/defects.hpp — the ninth held-out set: 48 deliberately broken transports, each the
// correct mailbox transport (mailbox.hpp, world.hpp) with exactly one defect switched on. Each
// row breaks one rule of core/concepts.hpp, core/types.hpp or an ops/ contract, quoted above it.
// The defects were chosen as an independent sample of bugs a competent transport author would
// plausibly make, without reading the conformance suite; witnesses_9.hpp shows each one.
#pragma once

#include <string_view>

namespace held_out_9 {

enum class defect {
    none,
    // core model
    size_cached_from_first_world,
    match_scan_from_back_long_queue,
    large_message_overtaken_by_small,
    any_source_posted_only_exact,
    tag_hashed_into_12_bits,
    posted_specific_list_before_wildcard,
    self_message_truncation_unchecked,
    posted_status_size_stale,
    isend_zero_copy_completes_early,
    test_blocks_in_poll_when_idle,
    send_status_names_self,
    test_completed_request_returns_last_status,
    zero_length_message_dropped,
    inbound_drained_only_by_irecv,
    iprobe_any_tag_unhandled,
    iprobe_reports_newest,
    now_in_milliseconds,
    irecv_source_bound_off_by_one,
    rejects_max_tag,
    chunked_copy_drops_last_full_chunk,
    any_source_status_reports_wildcard,
    request_move_assign_releases_after,
    // full model
    send_to_self_waits_for_receive,
    send_large_reads_buffer_after_return,
    recv_empty_buffer_shortcut,
    wait_default_request_waits_for_arrival,
    wait_all_skips_first,
    bsend_over_buffer_falls_back_to_sync,
    issend_acked_on_arrival,
    rsend_fills_first_posted,
    sendrecv_receive_before_send,
    barrier_dissemination_floor_log2,
    broadcast_scatter_allgather_remainder_lost,
    allreduce_sum_fold_counts_extra_twice,
    allreduce_max_init_numeric_min,
    allreduce_min_abs_compare,
    reduce_sum_tree_partials_left_in_place,
    reduce_max_root_ignored,
    reduce_min_skips_last_rank,
    gather_root_block_first,
    alltoall_self_block_skipped,
    compute_busy_below_1ms_skipped,
    now_epoch_lazy_per_rank,
    abort_message_dropped,
    ibarrier_done_on_count_minus_one,
    ibroadcast_segmented_tail_lost,
    iallreduce_sum_performer_accumulates_in_own,
    progress_reaps_completed_receives,
};

enum class model { core, full };

struct mutant {
    defect id;
    std::string_view name;
    model on;
    std::string_view rule;  ///< the rule broken, in short (the sentence is quoted above the row)
};

inline constexpr mutant mutants[] = {
    {defect::none, "correct_core", model::core, "(none: the correct core transport)"},
    {defect::none, "correct_full", model::full, "(none: the correct full transport)"},

    // ---- core model ---------------------------------------------------------------------------

    // concepts.hpp: "A transport is ONE rank's endpoint into a group of `size()` ranks."
    // size() is read once per process (a function-local static, as if from the environment) and
    // so is the size of the first group an endpoint was made for.
    {defect::size_cached_from_first_world, "size_cached_from_first_world", model::core, "rank/size: an endpoint into a group of size() ranks"},

    // concepts.hpp: "it matches the earliest-sent message from that source with that tag"
    // Once more than 16 messages wait unexpected, a receive scans them newest first ("the one
    // just sent is the likeliest").
    {defect::match_scan_from_back_long_queue, "match_scan_from_back_long_queue", model::core, "matching: the earliest-sent message"},

    // concepts.hpp: "Messages between one pair of ranks with the same tag are never reordered
    // ("non-overtaking")."
    // A message over 64 KiB that arrives unexpected waits in a separate rendezvous queue, which a
    // receive searches only after the eager queue: a later small message with the tag overtakes it.
    {defect::large_message_overtaken_by_small, "large_message_overtaken_by_small", model::core, "non-overtaking"},

    // concepts.hpp: "A receive names a source (or `any_source`) and a tag (or `any_tag`)"
    // The arrival path compares a posted receive's source with the message's exactly, so an
    // any_source receive posted before its message arrives is never matched (the unexpected-queue
    // path handles the wildcard).
    {defect::any_source_posted_only_exact, "any_source_posted_only_exact", model::core, "wildcards: any_source"},

    // concepts.hpp: "Every tag in 0..max_tag is distinct: none aliases another."
    // Matching compares the tags' 12-bit hash-bucket keys (tag & 0xFFF), not the tags: 1 and 4097 alias.
    {defect::tag_hashed_into_12_bits, "tag_hashed_into_12_bits", model::core, "tags: none aliases another"},

    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted."
    // Posted receives naming a source are searched before the any_source list, so an earlier
    // any_source receive loses the message to a later one naming the source.
    {defect::posted_specific_list_before_wildcard, "posted_specific_list_before_wildcard", model::core, "posted receives: matched in posting order"},

    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error`
    // (from the `test` that completes it)"
    // The loopback path (a message to oneself) copies what fits and never sets the truncation.
    {defect::self_message_truncation_unchecked, "self_message_truncation_unchecked", model::core, "truncation_error"},

    // concepts.hpp: "a smaller one fills a prefix and `status::size` says how much."
    // A receive posted before its message arrives keeps the status size it was initialised with
    // at posting (the buffer's size); only the unexpected-queue path writes the message's size.
    {defect::posted_status_size_stale, "posted_status_size_stale", model::core, "status::size of a short message"},

    // concepts.hpp: "the buffer belongs to the transport until a successful `test` (or `wait`)
    // completes it."
    // An isend of 64 KiB or more to another rank is zero-copy (the message refers to the caller's
    // buffer until matched), yet its request completes at once: after that test the transport
    // still reads the buffer.
    {defect::isend_zero_copy_completes_early, "isend_zero_copy_completes_early", model::core, "buffer ownership until test completes"},

    // concepts.hpp: "`test` never blocks: on an incomplete operation it returns nothing at once."
    // test on a pending receive polls the network with an infinite time-out when nothing at all
    // is queued for the rank, so it blocks until some message arrives.
    {defect::test_blocks_in_poll_when_idle, "test_blocks_in_poll_when_idle", model::core, "test never blocks"},

    // concepts.hpp: "A completed send's status names its destination, tag and size."
    // A send's status is filled like a receive's: source = the sending rank.
    {defect::send_status_names_self, "send_status_names_self", model::core, "send status: destination, tag, size"},

    // concepts.hpp: "`test` on a default-constructed or already completed request returns a
    // default `status` at once."
    // A completed request caches its status and returns it again on every later test.
    {defect::test_completed_request_returns_last_status, "test_completed_request_returns_last_status", model::core, "test on a completed request: default status"},

    // concepts.hpp: "Every message is delivered exactly once."
    // A zero-length message is taken for a keep-alive and never sent.
    {defect::zero_length_message_dropped, "zero_length_message_dropped", model::core, "exactly-once delivery"},

    // concepts.hpp: "A rank polling `test` or `iprobe` lets every other rank's operations progress"
    // Arrivals wait in an inbound queue drained only by the rank's irecv (the network poll lives
    // in the receive path); polling test or iprobe never moves them.
    {defect::inbound_drained_only_by_irecv, "inbound_drained_only_by_irecv", model::core, "progress by polling test/iprobe"},

    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has
    // arrived, if any"
    // iprobe compares tags exactly: any_tag is handled in the receive path but not in the probe's.
    {defect::iprobe_any_tag_unhandled, "iprobe_any_tag_unhandled", model::core, "iprobe: any matching message (any_tag)"},

    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has
    // arrived, if any"
    // iprobe scans the unexpected queue from its back and reports the newest matching message.
    {defect::iprobe_reports_newest, "iprobe_reports_newest", model::core, "iprobe: the earliest matching message"},

    // concepts.hpp: "`now()` returns seconds (any epoch, monotonic) from the transport's clock"
    // now() returns milliseconds (the unit of the transport's timer).
    {defect::now_in_milliseconds, "now_in_milliseconds", model::core, "now() in seconds"},

    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument`
    // naming the value and the rank."
    // irecv checks its source with `source > size()`: a receive from rank size() is posted.
    {defect::irecv_source_bound_off_by_one, "irecv_source_bound_off_by_one", model::core, "bad arguments raise invalid_argument"},

    // types.hpp: "The largest tag every transport must accept (MPI guarantees at least 32767 for
    // MPI_TAG_UB)."
    // The tag check is `tag >= max_tag`: max_tag itself is rejected.
    {defect::rejects_max_tag, "rejects_max_tag", model::core, "max_tag is accepted"},

    // types.hpp: "The largest message every transport must accept: MPI counts are `int`."
    // Messages are copied in 1 MiB chunks by a loop that stops one chunk early when the size is a
    // multiple of 1 MiB: the last MiB of such a message is never written.
    {defect::chunked_copy_drops_last_full_chunk, "chunked_copy_drops_last_full_chunk", model::core, "messages of every size up to max_message_size"},

    // types.hpp: "What a completed receive (or a probe) reports: who sent it, with which tag, and
    // how many bytes it carried."
    // The receive status' source is taken from the request's envelope: any_source (-1) for a
    // wildcard receive.
    {defect::any_source_status_reports_wildcard, "any_source_status_reports_wildcard", model::core, "receive status: who sent it"},

    // concepts.hpp: "using request = ...;  movable, default-constructible" (requires
    // std::movable<typename T::request>)
    // The request's move assignment releases *this after taking the other's operation instead of
    // before: a pending receive assigned into a request is withdrawn.
    {defect::request_move_assign_releases_after, "request_move_assign_releases_after", model::core, "request: movable"},

    // ---- full model ---------------------------------------------------------------------------

    // concepts.hpp: "A transport whose `bsend` is how all its sends behave: the system buffers
    // every message (NX/2's csend, the threads transport)"
    // The native send to oneself waits for the matching receive (the loopback path copies straight
    // into the posted receive), though the transport offers bsend without bsend_copies.
    {defect::send_to_self_waits_for_receive, "send_to_self_waits_for_receive", model::full, "buffering transport: sends never wait"},

    // ops/point_to_point.hpp: "Blocking send: returns once `data` may be reused (it may wait for
    // the matching receive)."
    // A native send of more than 64 KiB to another rank returns once it is queued for DMA; the
    // bytes are read at the rank's next call into the transport.
    {defect::send_large_reads_buffer_after_return, "send_large_reads_buffer_after_return", model::full, "send: returns once data may be reused"},

    // ops/point_to_point.hpp: "Blocking receive into `buffer`; returns the message's status."
    // A native recv into an empty buffer returns a default status at once ("nothing to receive"),
    // matching nothing.
    {defect::recv_empty_buffer_shortcut, "recv_empty_buffer_shortcut", model::full, "recv: receives and returns the status"},

    // ops/point_to_point.hpp: "Completes a request; a default-constructed or completed one returns
    // a default status."
    // The native wait on an empty request sleeps until the next message arrives for the rank
    // before returning its default status.
    {defect::wait_default_request_waits_for_arrival, "wait_default_request_waits_for_arrival", model::full, "wait: default request returns at once"},

    // ops/point_to_point.hpp: "Completes every request of `rs`."
    // The native wait_all's loop starts at index 1: the first request is never completed.
    {defect::wait_all_skips_first, "wait_all_skips_first", model::full, "wait_all: completes every request"},

    // concepts.hpp: "two ranks that both `bsend` and then receive always complete"
    // A bsend larger than the 1 MiB attached buffer falls back to a synchronous send.
    {defect::bsend_over_buffer_falls_back_to_sync, "bsend_over_buffer_falls_back_to_sync", model::full, "bsend never waits for the receiver"},

    // concepts.hpp: "Synchronous send: completes only once the receiver has matched the message
    // (MPI_Ssend, MPI_Issend)."
    // issend/ssend are acknowledged when the message arrives at the receiver, matched or not.
    {defect::issend_acked_on_arrival, "issend_acked_on_arrival", model::full, "ssend: completes once matched"},

    // concepts.hpp: "Ready send: the caller promises the matching receive is already posted, which
    // lets the transport skip its handshake" (matching: "A receive names a source ... and a tag")
    // The ready path writes into the first receive posted for the sender, whatever its tag.
    {defect::rsend_fills_first_posted, "rsend_fills_first_posted", model::full, "rsend: goes to the matching receive"},

    // concepts.hpp: "Combined send and receive that cannot deadlock against a matching sendrecv
    // (MPI_Sendrecv)."
    // sendrecv completes its receive before it starts its send: two ranks exchanging by sendrecv
    // deadlock.
    {defect::sendrecv_receive_before_send, "sendrecv_receive_before_send", model::full, "sendrecv cannot deadlock"},

    // ops/collectives.hpp: "Returns once every rank has entered the barrier."
    // A dissemination barrier with floor(log2 size()) rounds instead of ceil: right for
    // power-of-two groups only.
    {defect::barrier_dissemination_floor_log2, "barrier_dissemination_floor_log2", model::full, "barrier: every rank entered"},

    // ops/collectives.hpp: "Copies `root`'s bytes into every other rank's buffer of the same size."
    // Over 64 KiB the broadcast is a scatter + allgather in pieces of data.size() / size() bytes
    // (integer division): the last data.size() % size() bytes are never sent.
    {defect::broadcast_scatter_allgather_remainder_lost, "broadcast_scatter_allgather_remainder_lost", model::full, "broadcast: root's bytes everywhere"},

    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in every rank's `values`,
    // the same bits on every rank."
    // Recursive doubling whose fold-in of the extra ranks (groups not a power of two) adds their
    // values twice.
    {defect::allreduce_sum_fold_counts_extra_twice, "allreduce_sum_fold_counts_extra_twice", model::full, "allreduce_sum: the element-wise sum"},

    // ops/collectives.hpp: "Leaves the element-wise maximum over all ranks in every rank's `values`."
    // The accumulator starts at std::numeric_limits<double>::min() (the smallest positive double),
    // so a maximum over negative values comes out as 2.2e-308.
    {defect::allreduce_max_init_numeric_min, "allreduce_max_init_numeric_min", model::full, "allreduce_max: the element-wise maximum"},

    // ops/collectives.hpp: "Leaves the element-wise minimum over all ranks in every rank's `values`."
    // The comparison is by magnitude (shared with a max-abs-error helper): the value nearest 0 wins.
    {defect::allreduce_min_abs_compare, "allreduce_min_abs_compare", model::full, "allreduce_min: the element-wise minimum"},

    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in `root`'s `values`; the
    // other ranks' values are left as they were." (reduce_max, reduce_min: the same)
    // The binomial tree accumulates in place: an inner node of the tree is left holding the
    // partial sum of its subtree.
    {defect::reduce_sum_tree_partials_left_in_place, "reduce_sum_tree_partials_left_in_place", model::full, "reduce_sum: others left as they were"},

    // ops/collectives.hpp: "Leaves the element-wise maximum over all ranks in `root`'s `values`"
    // The result lands on rank 0 whatever the root (the root is only validated).
    {defect::reduce_max_root_ignored, "reduce_max_root_ignored", model::full, "reduce_max: the result on root"},

    // ops/collectives.hpp: "Leaves the element-wise minimum over all ranks in `root`'s `values`"
    // The combining loop runs `r < size() - 1`: the last rank's values are left out.
    {defect::reduce_min_skips_last_rank, "reduce_min_skips_last_rank", model::full, "reduce_min: over all ranks"},

    // ops/collectives.hpp: "Gathers every rank's `mine` into `all` on `root` (any rank), in rank order"
    // The root puts its own block first and then the others' in rank order (right for root 0 only).
    {defect::gather_root_block_first, "gather_root_block_first", model::full, "gather: in rank order"},

    // ops/collectives.hpp: "Sends block r of `out` to rank r and receives rank r's block for this
    // rank into block r of `in`, for every r (this rank's own block is copied)"
    // The exchange loop runs over the other ranks only; the own block is never copied.
    {defect::alltoall_self_block_skipped, "alltoall_self_block_skipped", model::full, "alltoall: own block copied"},

    // ops/process.hpp: "Performs `w` (or, on a simulated machine, charges its time)."
    // Busy work shorter than 1 ms (below the timer's resolution) is skipped.
    {defect::compute_busy_below_1ms_skipped, "compute_busy_below_1ms_skipped", model::full, "compute: performs the work"},

    // ops/process.hpp: "Whether two ranks' `now()` readings can be compared directly."
    // clock_is_global() says true, but each rank's clock starts at its own first now() call (a
    // lazily set epoch), so a rank that reads its clock late is behind the others.
    {defect::now_epoch_lazy_per_rank, "now_epoch_lazy_per_rank", model::full, "clock_is_global: readings comparable"},

    // ops/process.hpp: "Reports the rank and `message` and stops every rank (CoMet's error_exit)."
    // The aborted exception says "abort called" and drops the caller's message.
    {defect::abort_message_dropped, "abort_message_dropped", model::full, "abort: reports the rank and message"},

    // concepts.hpp: "Nonblocking collectives (MPI-3 MPI_Ibarrier, MPI_Ibcast, MPI_Iallreduce): same
    // contracts as the blocking ones" + ops/collectives.hpp: "Returns once every rank has entered
    // the barrier."
    // The ibarrier completes once size() - 1 ranks joined (its own join not counted).
    {defect::ibarrier_done_on_count_minus_one, "ibarrier_done_on_count_minus_one", model::full, "ibarrier: every rank entered"},

    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" +
    // ops/collectives.hpp: "Copies `root`'s bytes into every other rank's buffer of the same size."
    // Over 64 KiB the ibroadcast is pipelined in 64 KiB segments, data.size() / 64 KiB of them:
    // the trailing partial segment is never sent.
    {defect::ibroadcast_segmented_tail_lost, "ibroadcast_segmented_tail_lost", model::full, "ibroadcast: root's bytes everywhere"},

    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" +
    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in every rank's `values`,
    // the same bits on every rank."
    // The rank that completes the iallreduce_sum accumulates into its own buffer (its values
    // first, then the others' in rank order); the others get the rank-order sum: different bits.
    {defect::iallreduce_sum_performer_accumulates_in_own, "iallreduce_sum_performer_accumulates_in_own", model::full, "iallreduce_sum: same bits on every rank"},

    // concepts.hpp: "Explicit progress: lets outstanding nonblocking operations advance without
    // completing any request"
    // progress() reaps the rank's completed receives: a later test of such a request finds it
    // completed already and returns a default status.
    {defect::progress_reaps_completed_receives, "progress_reaps_completed_receives", model::full, "progress completes no request"},
};

constexpr bool is_base(const mutant& m) noexcept { return m.id == defect::none; }

}  // namespace held_out_9
