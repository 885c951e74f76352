// held_out_11/defects.hpp — the eleventh held-out set: 48 deliberately broken transports, each the
// correct in-process transport of mailbox.hpp with exactly one defect switched on. Written
// without reading the conformance suite, from the rules of core/concepts.hpp, core/types.hpp and
// the contracts of comet/ops/ only. Above each row: the sentence it breaks, and the kind of
// transport whose author would plausibly make the mistake.
//
// `model::core` rows run against `endpoint` (the eight core members); `model::full` rows against
// `full_endpoint` (every native member, the nonblocking collectives and `progress`).
#pragma once

#include <cstddef>
#include <string_view>

namespace held_out_11 {

enum class defect {
    none,
    // core
    tag_bucket_mod_4096_aliases,
    max_tag_rejected,
    any_source_skips_loopback,
    large_queue_overtaken_by_eager,
    posted_receives_matched_lifo,
    posted_wildcard_tag_after_exact,
    eager_truncation_silent,
    truncation_raised_by_irecv,
    unexpected_status_size_is_room,
    short_recv_clears_tail,
    zero_length_message_lost,
    test_blocks_1s_on_pending,
    send_status_source_is_self,
    completed_request_repeats_status,
    any_source_loopback_not_erased,
    iprobe_any_source_stashes,
    iprobe_returns_latest,
    iprobe_any_tag_literal,
    now_in_milliseconds,
    irecv_tag_unchecked,
    dest_equal_size_wraps,
    iprobe_does_not_pull_rendezvous,
    isend_large_zero_copy_completes_early,
    // full
    send_native_tag_14_bits,
    recv_native_status_requested_tag,
    wait_default_returns_last_status,
    wait_all_stops_at_empty_request,
    bsend_pool_64k_rendezvous,
    issend_completes_on_arrival,
    rsend_ignores_any_source_receive,
    sendrecv_large_sends_first,
    barrier_last_rank_skips_wait,
    ibarrier_released_by_rank_0,
    broadcast_segments_floor,
    ibroadcast_root_ignored,
    allreduce_sum_rotated_order,
    allreduce_max_starts_at_zero,
    allreduce_min_starts_at_dbl_min,
    reduce_sum_result_everywhere,
    reduce_max_result_at_rank_0,
    reduce_min_group_of_one_identity,
    gather_root_block_first,
    alltoall_own_block_skipped,
    iallreduce_wait_skips_copy_out,
    progress_reaps_completions,
    compute_busy_capped_100ms,
    clock_epoch_at_first_now,
    abort_message_truncated_32,
};

enum class model { core, full };

struct mutant {
    defect id;
    std::string_view name;
    model on;
    std::string_view rule;  ///< the rule broken, short
};

inline constexpr mutant mutants[] = {
    {defect::none, "correct_core", model::core, "-"},
    {defect::none, "correct_full", model::full, "-"},

    // ---- core -----------------------------------------------------------------------------

    // "Every tag in 0..max_tag is distinct: none aliases another."
    // TCP transport: receives are indexed in a 4096-bucket table by tag, and the match compares
    // buckets, not tags.
    {defect::tag_bucket_mod_4096_aliases, "tag_bucket_mod_4096_aliases", model::core, "tags distinct"},
    // types.hpp: "The largest tag every transport must accept (MPI guarantees at least 32767 for MPI_TAG_UB)."
    // Validation written as `tag < max_tag`.
    {defect::max_tag_rejected, "max_tag_rejected", model::core, "max_tag accepted"},
    // "with `any_source`, that of whichever source it takes"
    // Shared-memory ring: messages to oneself go through a loopback queue that only receives
    // naming a source look at.
    {defect::any_source_skips_loopback, "any_source_skips_loopback", model::core, "any_source matches every source"},
    // "Messages between one pair of ranks with the same tag are never reordered (non-overtaking)."
    // RDMA-style transport: large (rendezvous) messages wait in a queue of their own, searched
    // only when the eager queue has no match.
    {defect::large_queue_overtaken_by_eager, "large_queue_overtaken_by_eager", model::core, "non-overtaking"},
    // "Receives posted with `irecv` are matched in the order they were posted."
    // The posted list is kept as a stack (push/pop at the back) and an arrival takes the newest.
    {defect::posted_receives_matched_lifo, "posted_receives_matched_lifo", model::core, "posted order"},
    // "Receives posted with `irecv` are matched in the order they were posted."
    // An arrival looks for a receive posted with its exact tag first and tries the any_tag
    // receives only after that.
    {defect::posted_wildcard_tag_after_exact, "posted_wildcard_tag_after_exact", model::core, "posted order"},
    // "A message larger than the matched receive buffer raises `truncation_error`"
    // Only the rendezvous path checks the length; an eager message (<= 4 KiB) is cut silently.
    {defect::eager_truncation_silent, "eager_truncation_silent", model::core, "truncation raised"},
    // "raises `truncation_error` (from the `test` that completes it)"
    // A receive that matches an already-arrived message checks the size at once and throws from
    // `irecv`.
    {defect::truncation_raised_by_irecv, "truncation_raised_by_irecv", model::core, "truncation from test"},
    // "a smaller one fills a prefix and `status::size` says how much."
    // The unexpected-message path reports the receive buffer's size.
    {defect::unexpected_status_size_is_room, "unexpected_status_size_is_room", model::core, "status::size of short message"},
    // "a smaller one fills a prefix"
    // The receive clears the whole buffer before copying a shorter message in.
    {defect::short_recv_clears_tail, "short_recv_clears_tail", model::core, "short message fills a prefix"},
    // "Every message is delivered exactly once."
    // Shared-memory ring: a slot of length 0 means "empty", so a zero-length message is skipped.
    {defect::zero_length_message_lost, "zero_length_message_lost", model::core, "delivered exactly once"},
    // "`test` never blocks: on an incomplete operation it returns nothing at once."
    // Socket transport: test on a pending receive does a poll() with a 1 s timeout.
    {defect::test_blocks_1s_on_pending, "test_blocks_1s_on_pending", model::core, "test never blocks"},
    // "A completed send's status names its destination, tag and size."
    // The send's status is filled from the message header, whose source is this rank.
    {defect::send_status_source_is_self, "send_status_source_is_self", model::core, "send status names destination"},
    // "`test` on a default-constructed or already completed request returns a default `status` at once."
    // The request keeps its status after completion and reports it again.
    {defect::completed_request_repeats_status, "completed_request_repeats_status", model::core, "test on completed request"},
    // "Every message is delivered exactly once."
    // An any_source receive served from the loopback queue copies the message but does not
    // advance the queue.
    {defect::any_source_loopback_not_erased, "any_source_loopback_not_erased", model::core, "delivered exactly once"},
    // "`iprobe` is nonblocking: the status of the earliest matching message that has arrived,
    // if any; the message stays queued."
    // iprobe(any_source) moves the message into a per-source probe stash that only receives
    // naming the source look at.
    {defect::iprobe_any_source_stashes, "iprobe_any_source_stashes", model::core, "probed message stays queued"},
    // "the status of the earliest matching message that has arrived"
    // iprobe scans the unexpected queue from its tail.
    {defect::iprobe_returns_latest, "iprobe_returns_latest", model::core, "iprobe earliest"},
    // "A receive names a source (or `any_source`) and a tag (or `any_tag`)" (iprobe takes the same)
    // iprobe compares the tag literally, so any_tag matches nothing.
    {defect::iprobe_any_tag_literal, "iprobe_any_tag_literal", model::core, "any_tag in iprobe"},
    // "`now()` returns seconds (any epoch, monotonic)"
    // Simulator clock kept in milliseconds and returned unconverted.
    {defect::now_in_milliseconds, "now_in_milliseconds", model::core, "now() in seconds"},
    // "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument`"
    // Only the send path validates the tag.
    {defect::irecv_tag_unchecked, "irecv_tag_unchecked", model::core, "invalid_argument"},
    // "Bad arguments (a rank out of range, ...) raise `invalid_argument`"
    // The range check is `dest > size()`, and the ring index wraps size() to rank 0.
    {defect::dest_equal_size_wraps, "dest_equal_size_wraps", model::core, "invalid_argument"},
    // "A rank polling `test` or `iprobe` lets every other rank's operations progress"
    // RDMA-style rendezvous: a large message is pulled by the receiver in `irecv`/`test` only;
    // `iprobe` does not run the progress engine, so a rank polling iprobe never sees it.
    {defect::iprobe_does_not_pull_rendezvous, "iprobe_does_not_pull_rendezvous", model::core, "progress by iprobe"},
    // "the buffer belongs to the transport until a successful `test` (or `wait`) completes it."
    // Zero-copy large isend: the request reports completion at once, the bytes are read when the
    // receiver matches, so a sender reusing its buffer after the completed test changes them.
    {defect::isend_large_zero_copy_completes_early, "isend_large_zero_copy_completes_early", model::core, "buffer returned at completion"},

    // ---- full -----------------------------------------------------------------------------

    // "Every tag in 0..max_tag is distinct: none aliases another." (native send)
    // The native send packs the tag into a 14-bit header field.
    {defect::send_native_tag_14_bits, "send_native_tag_14_bits", model::full, "tags distinct (send)"},
    // recv: "Blocking receive into `buffer`; returns the message's status."
    // The native recv fills the status tag from its own arguments (any_tag stays -1).
    {defect::recv_native_status_requested_tag, "recv_native_status_requested_tag", model::full, "recv returns message status"},
    // wait: "Completes a request; a default-constructed or completed one returns a default status."
    // wait on an empty request returns the endpoint's last completion status.
    {defect::wait_default_returns_last_status, "wait_default_returns_last_status", model::full, "wait on default request"},
    // wait_all: "Completes every request of `rs`."
    // A default-constructed request is taken as the end of the array.
    {defect::wait_all_stops_at_empty_request, "wait_all_stops_at_empty_request", model::full, "wait_all completes every request"},
    // bsend: "a send that never waits for the receiver to post a matching receive"
    // The attached buffer pool holds 64 KiB; a larger bsend falls back to rendezvous.
    {defect::bsend_pool_64k_rendezvous, "bsend_pool_64k_rendezvous", model::full, "bsend never waits"},
    // ssend: "completes only once the receiver has matched the message"
    // The synchronous ack is sent when the message lands in the receiver's queue.
    {defect::issend_completes_on_arrival, "issend_completes_on_arrival", model::full, "ssend completes at match"},
    // rsend: "the caller promises the matching receive is already posted, which lets the
    // transport skip its handshake"
    // The ready path looks the posted receive up by its named source; one posted with any_source
    // is not found and the message is dropped.
    {defect::rsend_ignores_any_source_receive, "rsend_ignores_any_source_receive", model::full, "rsend to posted receive"},
    // sendrecv: "Combined send and receive that cannot deadlock against a matching sendrecv"
    // A large sendrecv does a blocking rendezvous send before posting its receive.
    {defect::sendrecv_large_sends_first, "sendrecv_large_sends_first", model::full, "sendrecv cannot deadlock"},
    // barrier: "Returns once every rank has entered the barrier."
    // The last rank is taken to be the last to arrive and leaves without waiting.
    {defect::barrier_last_rank_skips_wait, "barrier_last_rank_skips_wait", model::full, "barrier waits for all"},
    // Nonblocking collectives: "same contracts as the blocking ones" (barrier: every rank entered)
    // An ibarrier is released once the coordinator (rank 0) has joined.
    {defect::ibarrier_released_by_rank_0, "ibarrier_released_by_rank_0", model::full, "ibarrier waits for all"},
    // broadcast: "Copies `root`'s bytes into every other rank's buffer of the same size."
    // Pipelined in 64 KiB segments, counted size / 64 KiB: the last partial segment is lost.
    {defect::broadcast_segments_floor, "broadcast_segments_floor", model::full, "broadcast copies all bytes"},
    // Nonblocking collectives: "same contracts as the blocking ones" (broadcast from `root`)
    // ibroadcast always starts at rank 0.
    {defect::ibroadcast_root_ignored, "ibroadcast_root_ignored", model::full, "ibroadcast from root"},
    // allreduce_sum: "the element-wise sum over all ranks in every rank's `values`, the same bits
    // on every rank."
    // Each rank adds around the ring starting from itself.
    {defect::allreduce_sum_rotated_order, "allreduce_sum_rotated_order", model::full, "allreduce_sum same bits"},
    // allreduce_max: "Leaves the element-wise maximum over all ranks in every rank's `values`."
    // The accumulator starts at 0.0.
    {defect::allreduce_max_starts_at_zero, "allreduce_max_starts_at_zero", model::full, "allreduce_max"},
    // allreduce_min: "Leaves the element-wise minimum over all ranks in every rank's `values`."
    // The accumulator starts at numeric_limits<double>::min() (the smallest positive double).
    {defect::allreduce_min_starts_at_dbl_min, "allreduce_min_starts_at_dbl_min", model::full, "allreduce_min"},
    // reduce_sum: "the other ranks' values are left as they were."
    // Implemented as an allreduce.
    {defect::reduce_sum_result_everywhere, "reduce_sum_result_everywhere", model::full, "reduce leaves others"},
    // reduce_max: "Leaves the element-wise maximum over all ranks in `root`'s `values`"
    // The result lands at rank 0 whatever the root.
    {defect::reduce_max_result_at_rank_0, "reduce_max_result_at_rank_0", model::full, "reduce_max at root"},
    // reduce_min: "Leaves the element-wise minimum over all ranks in `root`'s `values`"
    // Tree reduction: with one rank there are no children and the scratch (+inf) is returned.
    {defect::reduce_min_group_of_one_identity, "reduce_min_group_of_one_identity", model::full, "reduce_min (group of one)"},
    // gather: "Gathers every rank's `mine` into `all` on `root` (any rank), in rank order"
    // The root puts its own block first, then the others'.
    {defect::gather_root_block_first, "gather_root_block_first", model::full, "gather in rank order"},
    // alltoall: "(this rank's own block is copied)"
    // Only the exchange steps move blocks; the own block is left out.
    {defect::alltoall_own_block_skipped, "alltoall_own_block_skipped", model::full, "alltoall own block"},
    // Nonblocking collectives: "same contracts as the blocking ones, completed through the returned request."
    // The iallreduce result is copied out in `test`; the native `wait` spins on the done flag and
    // never copies it.
    {defect::iallreduce_wait_skips_copy_out, "iallreduce_wait_skips_copy_out", model::full, "nbc completed through request"},
    // progress: "lets outstanding nonblocking operations advance without completing any request"
    // progress() drains the completion queue; a receive it drained then tests as a default status.
    {defect::progress_reaps_completions, "progress_reaps_completions", model::full, "progress completes no request"},
    // compute: "Performs `w`"; work::busy: "keep the CPU busy for `seconds` of wall time"
    // The busy loop is capped at a 100 ms scheduler slice.
    {defect::compute_busy_capped_100ms, "compute_busy_capped_100ms", model::full, "compute performs work"},
    // clock_is_global: "Whether two ranks' `now()` readings can be compared directly."
    // Says true, but each rank's clock starts at its own first call to now().
    {defect::clock_epoch_at_first_now, "clock_epoch_at_first_now", model::full, "clock_is_global"},
    // abort: "Reports the rank and `message` and stops every rank"
    // The message travels in a 32-byte control packet and is cut there.
    {defect::abort_message_truncated_32, "abort_message_truncated_32", model::full, "abort reports message"},
};

constexpr bool is_base(const mutant& m) noexcept { return m.id == defect::none; }

}  // namespace held_out_11
