// held_out_8/defects.hpp — the eighth, blind held-out set: deliberate defects of a transport, one
// switch each, and for each the ONE rule of comet/core/concepts.hpp (or core/types.hpp, or the
// contract of an operation in comet/ops/ the transport offers natively) that it breaks. The
// sentence of the rule is quoted above each row.
//
// Written from those rules alone, without reading the conformance checks. None repeats a defect
// of the earlier held-out sets (test/testing/held_out*/defects.hpp): where the rule is one they
// also break, it is broken by another mechanism, in another member or under another condition.
// Most are bugs a transport author writes: a composite matching key off by one, a per-source slot
// reused for a wildcard, a send batch drained with pop_back, posted receives kept in a map by tag,
// a move-to-front heuristic, a double-buffered arrival list, a negative probe cache the loopback
// path does not invalidate, a 16-bit length field, a copy rounded to cache lines, an in-band
// trailer, a status read through an iterator after the erase, a fall-through that queues twice, a
// ring scan one short, a node mapping with floor for ceil, a 32-bit nanosecond counter, a check
// made after the send; and in the native operations Nagle coalescing, a rendezvous past a size, an
// acknowledgement on arrival, a self-exchange shortcut on the wrong condition, a pipelined copy that
// lands late, time-outs, a completion count that counts twice, a barrier without its release, a
// virtual rank with the wrong sign, a recursive doubling that never unfolds, a scratch that wraps,
// a sparse shortcut, a two-level reduction without its last step, a sentinel root, a two-rank fast
// path, a mirrored placement, a sleep for a busy wait, a simulator's clock charge, a staging copy
// of 64 KiB, a per-rank summation order, an error raised by progress, a request handle whose move
// detaches it. Many fire only after a number of calls, in some group sizes, for some roots, past a
// size, or in one combination of wildcards and posting order. Keep it held out.
//
// `model::core` is the eight core members only (comet::ops supplies the rest portably);
// `model::full` adds native bsend, ssend/issend, rsend/irsend, sendrecv, send, recv, wait,
// wait_all, barrier, broadcast, the allreduces and reductions, gather, alltoall, compute,
// clock_is_global, abort, the nonblocking collectives (ibarrier, ibroadcast, iallreduce_sum)
// and progress.
#pragma once

#include <string_view>

namespace held_out_8 {

enum class defect {
    none,
    // matching, tags, wildcards (core)
    composite_key_off_by_one,
    posted_any_tag_inherits_pending_tag,
    any_source_ring_scan_misses_predecessor,
    // order
    isend_batch_flushed_backwards,
    posted_by_tag_map_wildcard_first,
    posted_move_to_front_on_test,
    // probe
    iprobe_double_buffer_one_behind,
    iprobe_negative_cache_loopback,
    // truncation, prefix, payload, exactly once
    truncation_length_field_16_bits,
    short_copy_rounded_to_cacheline,
    eager_trailer_clobbers_tail,
    unmatched_past_posted_queued_twice,
    isend_rejects_over_16mib,
    // status
    send_status_large_control_tag,
    recv_size_read_after_erase,
    // requests, completion, progress, time, arguments, ranks
    completed_request_resets_with_own_rank,
    test_self_receive_waits_100ms,
    completed_recv_request_destructor_scrubs,
    loopback_flushed_by_next_isend,
    now_ns_counter_32bit_wraps,
    isend_negative_tag_queued_before_check,
    rank_node_cyclic_odd_groups,
    // optional capabilities (model::full)
    bsend_nagle_coalesces,
    send_native_rendezvous_past_256k,
    issend_ack_on_arrival_when_posted,
    rsend_truncation_silent,
    sendrecv_self_shortcut_on_same_peer,
    recv_native_returns_before_tail,
    wait_gives_up_after_1s,
    wait_all_counts_completed_twice,
    barrier_chain_no_release,
    broadcast_virtual_rank_plus_root,
    allreduce_sum_rd_extra_not_unfolded,
    allreduce_max_scratch_wraps_4096,
    allreduce_min_excludes_self,
    reduce_sum_sparse_skip_root_zero,
    reduce_max_halves_not_combined,
    reduce_min_last_root_as_all,
    gather_pair_shortcut_own_block_twice,
    alltoall_ring_placement_mirrored,
    compute_busy_sleeps,
    compute_charges_clock_twice,
    abort_empty_message_rejected,
    ibarrier_timeout_100ms,
    ibroadcast_late_joiner_staging_64k,
    iallreduce_sum_own_first_order,
    progress_raises_pending_truncation,
    nbc_request_move_detaches,
};

enum class model { core, full };

struct mutant {
    defect id;
    std::string_view name;
    model on;
    std::string_view rule;
};

// clang-format off
inline constexpr mutant mutants[] = {
    {defect::none, "base_core", model::core, "none: the correct transport, the eight core members only"},

    // concepts.hpp: "it matches the earliest-sent message from that source with that tag" + "Every tag in 0..max_tag is distinct: none aliases another."
    {defect::composite_key_off_by_one, "composite_key_off_by_one", model::core, "matching: a receive or probe naming both source and tag compares the composite key source * max_tag + tag (should be max_tag + 1), so (s, max_tag) and (s + 1, 0) are one key"},
    // concepts.hpp: "A receive names a source (or `any_source`) and a tag (or `any_tag`)"
    {defect::posted_any_tag_inherits_pending_tag, "posted_any_tag_inherits_pending_tag", model::core, "wildcards: an irecv(s, any_tag) that finds nothing waiting while an earlier receive naming s and a tag is posted is filed under that tag (a per-source posted slot reused), so it only matches that tag"},
    // concepts.hpp: "it matches the earliest-sent message from that source with that tag (with `any_source`, that of whichever source it takes"
    {defect::any_source_ring_scan_misses_predecessor, "any_source_ring_scan_misses_predecessor", model::core, "wildcards: an any_source irecv scans the waiting messages source by source in ring order from its own rank, one step short, so a waiting match from rank (rank - 1) mod size() is never taken; the receive waits for a new arrival"},
    // concepts.hpp: "Messages between one pair of ranks with the same tag are never reordered ("non-overtaking")."
    {defect::isend_batch_flushed_backwards, "isend_batch_flushed_backwards", model::core, "non-overtaking: consecutive isends are batched and the batch is flushed at the rank's next other call by a pop_back loop, so back-to-back isends to one destination arrive last first"},
    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted."
    {defect::posted_by_tag_map_wildcard_first, "posted_by_tag_map_wildcard_first", model::core, "posted order: posted receives are kept in a map by tag, where any_tag (-1) sorts first, so an arriving message goes to a later-posted any_tag receive before an earlier-posted one naming its tag"},
    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted."
    {defect::posted_move_to_front_on_test, "posted_move_to_front_on_test", model::core, "posted order: testing a pending receive moves it to the front of the posted list (a most-recently-used heuristic), ahead of receives posted before it"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any"
    {defect::iprobe_double_buffer_one_behind, "iprobe_double_buffer_one_behind", model::core, "probe: arrivals are double-buffered and iprobe looks only at messages that had arrived by its previous call, so the first iprobe after an arrival reports nothing"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any"
    {defect::iprobe_negative_cache_loopback, "iprobe_negative_cache_loopback", model::core, "probe: an iprobe that found nothing is cached and repeated for the same arguments until a message arrives from another rank; the loopback path does not invalidate it, so a message to oneself stays unseen"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error` (from the `test` that completes it)"
    {defect::truncation_length_field_16_bits, "truncation_length_field_16_bits", model::core, "truncation: the check reads the message's length from a 16-bit header field, so a message of 64 KiB or more whose size mod 65536 fits the buffer is cut silently"},
    // concepts.hpp: "a smaller one fills a prefix and `status::size` says how much."
    {defect::short_copy_rounded_to_cacheline, "short_copy_rounded_to_cacheline", model::core, "prefix: a message shorter than the buffer is copied in whole 64-byte lines from the rank's staging buffer, so the bytes after it up to the next multiple of 64 get the staging line's leftovers"},
    // concepts.hpp: "Every message is delivered exactly once." (every byte of it)
    {defect::eager_trailer_clobbers_tail, "eager_trailer_clobbers_tail", model::core, "payload: the 64 KiB eager slot keeps a 16-byte trailer in its last bytes, so a message of 65521..65536 bytes has its bytes from 65520 on overwritten by the trailer"},
    // concepts.hpp: "Every message is delivered exactly once."
    {defect::unmatched_past_posted_queued_twice, "unmatched_past_posted_queued_twice", model::core, "exactly once: a message arriving while receives are posted but none matches falls through the posted scan and is queued twice"},
    // types.hpp: "The largest message every transport must accept: MPI counts are `int`."
    {defect::isend_rejects_over_16mib, "isend_rejects_over_16mib", model::core, "message size: isend of more than 16 MiB raises invalid_argument (a registration limit), though every size up to max_message_size must be accepted"},
    // concepts.hpp: "A completed send's status names its destination, tag and size."
    {defect::send_status_large_control_tag, "send_status_large_control_tag", model::core, "send status: an isend over 64 KiB reports the tag of its rendezvous control packet (max_tag), not its own"},
    // types.hpp: "What a completed receive (or a probe) reports: who sent it, with which tag, and how many bytes it carried."
    {defect::recv_size_read_after_erase, "recv_size_read_after_erase", model::core, "receive status: an irecv that takes a waiting message reads the size through the iterator after erasing it, i.e. from the next waiting message when there is one"},
    // concepts.hpp: "`test` on a default-constructed or already completed request returns a default `status` at once."
    {defect::completed_request_resets_with_own_rank, "completed_request_resets_with_own_rank", model::core, "completion: test of an already completed request returns {rank(), any_tag, 0} (an empty status made with the owner's rank), not a default status"},
    // concepts.hpp: "`test` never blocks: on an incomplete operation it returns nothing at once."
    {defect::test_self_receive_waits_100ms, "test_self_receive_waits_100ms", model::core, "test: on a pending receive naming the rank itself, waits up to 100 ms for the message (a loopback fast path expecting the send to follow)"},
    // concepts.hpp: "the buffer belongs to the transport until a successful `test` (or `wait`) completes it"
    {defect::completed_recv_request_destructor_scrubs, "completed_recv_request_destructor_scrubs", model::core, "buffers: destroying a completed receive's request zeroes its buffer of 4 KiB or more (scrubbing the registered region), though the buffer is the caller's since the test"},
    // concepts.hpp: "A rank polling `test` or `iprobe` lets every other rank's operations progress; an operation of this rank may need this rank to call into the transport again before it completes."
    {defect::loopback_flushed_by_next_isend, "loopback_flushed_by_next_isend", model::core, "progress: a message to oneself is held in a loopback buffer flushed by the rank's next isend only; polling test or iprobe never delivers it"},
    // concepts.hpp: "`now()` returns seconds (any epoch, monotonic) from the transport's clock"
    {defect::now_ns_counter_32bit_wraps, "now_ns_counter_32bit_wraps", model::core, "time: now() keeps the nanoseconds since the run began in a 32-bit counter, so it wraps back to 0 every 4.29 s"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument` naming the value and the rank."
    {defect::isend_negative_tag_queued_before_check, "isend_negative_tag_queued_before_check", model::core, "arguments: isend checks the tag after queuing the message, so it raises invalid_argument but the message with the negative tag is delivered"},
    // concepts.hpp: "A transport is ONE rank's endpoint into a group of `size()` ranks."
    {defect::rank_node_cyclic_odd_groups, "rank_node_cyclic_odd_groups", model::core, "rank(): ranks dealt round-robin over two nodes as (i % 2) * (size / 2) + i / 2 with floor for ceil, so in groups of odd size two endpoints are the same rank and rank size()-1 is nobody"},

    {defect::none, "base_full", model::full, "none: the correct transport with every optional member"},

    // concepts.hpp: "Every message is delivered exactly once." (bsend: "Two ranks that both `bsend` and then receive always complete")
    {defect::bsend_nagle_coalesces, "bsend_nagle_coalesces", model::full, "bsend: a bsend of <= 64 bytes whose previous bsent message to that rank, same tag, still waits is appended to it (Nagle), so two messages arrive as one"},
    // concepts.hpp: "A transport whose `bsend` is how all its sends behave: the system buffers every message (NX/2's csend, the threads transport)"
    {defect::send_native_rendezvous_past_256k, "send_native_rendezvous_past_256k", model::full, "send: the native send of more than 256 KiB to another rank waits for the matching receive (rendezvous), though the transport says all its sends buffer (bsend without bsend_copies)"},
    // concepts.hpp: "Synchronous send: completes only once the receiver has matched the message (MPI_Ssend, MPI_Issend)."
    {defect::issend_ack_on_arrival_when_posted, "issend_ack_on_arrival_when_posted", model::full, "issend/ssend: acknowledged on arrival when the receiver has any receive posted, even one that does not match, so it completes before the message is matched"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error` (from the `test` that completes it)"
    {defect::rsend_truncation_silent, "rsend_truncation_silent", model::full, "rsend/irsend: the ready path writes into the posted receive without the truncation check, so a longer message is cut silently (status: the bytes written)"},
    // concepts.hpp: "Combined send and receive that cannot deadlock against a matching sendrecv (MPI_Sendrecv)."
    {defect::sendrecv_self_shortcut_on_same_peer, "sendrecv_self_shortcut_on_same_peer", model::full, "sendrecv: the self-exchange shortcut (copy out into in) is taken whenever dest == source and the tags are equal, not only for the own rank, so a pairwise exchange receives its own bytes and sends nothing"},
    // ops/point_to_point.hpp: "Blocking receive into `buffer`; returns the message's status."
    {defect::recv_native_returns_before_tail, "recv_native_returns_before_tail", model::full, "recv: the native receive of more than 64 KiB returns once the first 64 KiB are copied; the rest lands at the rank's next call into the transport"},
    // ops/point_to_point.hpp: "Completes a request; a default-constructed or completed one returns a default status."
    {defect::wait_gives_up_after_1s, "wait_gives_up_after_1s", model::full, "wait: gives up after 1 s and returns a default status, leaving the request pending"},
    // ops/point_to_point.hpp: "Completes every request of `rs`."
    {defect::wait_all_counts_completed_twice, "wait_all_counts_completed_twice", model::full, "wait_all: counts completions by polling test over all requests, and a request completed in an earlier pass counts again (its test returns a default status), so it returns with requests pending"},
    // ops/collectives.hpp: "Returns once every rank has entered the barrier."
    {defect::barrier_chain_no_release, "barrier_chain_no_release", model::full, "barrier: a linear chain toward rank 0 without the release phase, so rank r leaves once ranks r..size()-1 entered, whatever the lower ranks"},
    // ops/collectives.hpp: "Copies `root`'s bytes into every other rank's buffer of the same size."
    {defect::broadcast_virtual_rank_plus_root, "broadcast_virtual_rank_plus_root", model::full, "broadcast: virtual ranks computed as (rank + root) mod size() instead of (rank - root), so the bytes come from rank (size() - root) mod size(); right only when 2 * root is a multiple of size()"},
    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in every rank's `values`, the same bits on every rank."
    {defect::allreduce_sum_rd_extra_not_unfolded, "allreduce_sum_rd_extra_not_unfolded", model::full, "allreduce_sum: recursive doubling whose extra ranks (those at or above the largest power of two <= size()) are folded in but never sent the result; they keep their own values"},
    // ops/collectives.hpp: "Leaves the element-wise maximum over all ranks in every rank's `values`."
    {defect::allreduce_max_scratch_wraps_4096, "allreduce_max_scratch_wraps_4096", model::full, "allreduce_max: reduces into a scratch of 4096 elements indexed modulo its size, so element i >= 4096 gets the result of element i mod 4096"},
    // ops/collectives.hpp: "Leaves the element-wise minimum over all ranks in every rank's `values`."
    {defect::allreduce_min_excludes_self, "allreduce_min_excludes_self", model::full, "allreduce_min: each rank combines the other ranks' values only (its own skipped as if already in the accumulator), so a rank holding the unique minimum misses it"},
    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in `root`'s `values`"
    {defect::reduce_sum_sparse_skip_root_zero, "reduce_sum_sparse_skip_root_zero", model::full, "reduce_sum: a sparse shortcut skips the elements where the root's value is 0.0, which stay 0 whatever the others hold"},
    // ops/collectives.hpp: "Leaves the element-wise maximum over all ranks in `root`'s `values`"
    {defect::reduce_max_halves_not_combined, "reduce_max_halves_not_combined", model::full, "reduce_max: a two-level reduction over even and odd ranks whose combining step is missing, so the root gets the maximum over the ranks of its own parity"},
    // ops/collectives.hpp: "Leaves the element-wise minimum over all ranks in `root`'s `values`; the other ranks' values are left as they were."
    {defect::reduce_min_last_root_as_all, "reduce_min_last_root_as_all", model::full, "reduce_min: a root of size()-1 is taken for the 'every rank' sentinel (root >= size()-1), so every rank's values get the result"},
    // ops/collectives.hpp: "Gathers every rank's `mine` into `all` on `root` (any rank), in rank order"
    {defect::gather_pair_shortcut_own_block_twice, "gather_pair_shortcut_own_block_twice", model::full, "gather: a fast path for groups of 2 copies the root's own block into both halves of `all`"},
    // ops/collectives.hpp: "Sends block r of `out` to rank r and receives rank r's block for this rank into block r of `in`, for every r"
    {defect::alltoall_ring_placement_mirrored, "alltoall_ring_placement_mirrored", model::full, "alltoall: the block received from rank s is stored at block (2 * rank - s) mod size() (the ring's direction mirrored), right only in groups of 1 and 2"},
    // ops/process.hpp: "Performs `w` (or, on a simulated machine, charges its time)." (portable: "performs the work on this CPU")
    {defect::compute_busy_sleeps, "compute_busy_sleeps", model::full, "compute: busy work sleeps for its duration instead of keeping the CPU busy"},
    // ops/process.hpp: "Whether two ranks' `now()` readings can be compared directly."
    {defect::compute_charges_clock_twice, "compute_charges_clock_twice", model::full, "clock: compute performs busy work and also charges its duration to the rank's clock offset (a simulator's charge), so after it the rank's now() runs ahead of the others' though clock_is_global() says true"},
    // ops/process.hpp: "Reports the rank and `message` and stops every rank (CoMet's error_exit)."
    {defect::abort_empty_message_rejected, "abort_empty_message_rejected", model::full, "abort: an empty message is rejected with invalid_argument instead of aborting"},
    // concepts.hpp: "Nonblocking collectives (MPI-3 MPI_Ibarrier, ...): same contracts as the blocking ones" + ops: "Returns once every rank has entered the barrier."
    {defect::ibarrier_timeout_100ms, "ibarrier_timeout_100ms", model::full, "ibarrier: a request tested 100 ms after its rank joined is taken as complete (a time-out), whether or not every rank entered"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" + ops: "Copies `root`'s bytes into every other rank's buffer of the same size."
    {defect::ibroadcast_late_joiner_staging_64k, "ibroadcast_late_joiner_staging_64k", model::full, "ibroadcast: ranks that join after the root copy from a staging buffer of 64 KiB, so over 64 KiB they get only the first 64 KiB"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" + ops: "Leaves the element-wise sum over all ranks in every rank's `values`, the same bits on every rank."
    {defect::iallreduce_sum_own_first_order, "iallreduce_sum_own_first_order", model::full, "iallreduce_sum: each rank's sum starts from its own values and adds the others in rank order, so an inexact sum has different bits on different ranks"},
    // concepts.hpp: "Explicit progress: lets outstanding nonblocking operations advance without completing any request" + "raises `truncation_error` (from the `test` that completes it)"
    {defect::progress_raises_pending_truncation, "progress_raises_pending_truncation", model::full, "progress: raises the truncation_error of a matched receive of the rank (the completion path run by progress), and the receive's test then completes silently"},
    // concepts.hpp: "requires std::movable<typename T::request>" + "Nonblocking collectives ...: completed through the returned request."
    {defect::nbc_request_move_detaches, "nbc_request_move_detaches", model::full, "requests: moving a pending nonblocking collective's request copies its operation instead of sharing it, so the moved-to request never completes"},
};
// clang-format on

constexpr bool is_base(const mutant& m) noexcept { return m.id == defect::none; }

}  // namespace held_out_8
