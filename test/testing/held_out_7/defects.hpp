// held_out_7/defects.hpp — the seventh, blind held-out set: deliberate defects of a transport, one
// switch each, and for each the ONE rule of comet/core/concepts.hpp (or core/types.hpp, or the
// contract of an operation in comet/ops/ the transport offers natively) that it breaks. The
// sentence of the rule is quoted above each row.
//
// Written from those rules alone, without reading the conformance checks. None repeats a defect
// of the earlier held-out sets (test/testing/held_out*/defects.hpp): where the rule is one they
// also break, it is broken by another mechanism, in another member or under another condition.
// Most are bugs a transport author writes: an erase by swap-and-pop that loses the order, a
// queue that reverses when it grows, a compaction off by one, a per-tag bitmap cleared too early,
// a fairness cursor that does not wrap, a header cache read back for the wrong message, packets
// coalesced and their length reported, a truncation check against the wrong buffer, a refused
// clear-to-send, a request handle that cancels or repeats after completion, an interpolated
// clock; and in the native operations a fragment order, a status copied from the acknowledgement,
// a default argument, a retry loop, a spin timeout, a tree or ring one short, a plan cache, a
// collective computed from the wrong rank's buffer. Many fire only after a number of calls, in
// some group sizes, for some roots, past a size, or in one combination of wildcards and posting
// order. Keep it held out.
//
// `model::core` is the eight core members only (comet::ops supplies the rest portably);
// `model::full` adds native bsend, ssend/issend, rsend/irsend, sendrecv, send, recv, wait,
// wait_all, barrier, broadcast, the allreduces and reductions, gather, alltoall, compute,
// clock_is_global, abort, the nonblocking collectives (ibarrier, ibroadcast, iallreduce_sum)
// and progress.
#pragma once

#include <string_view>

namespace held_out_7 {

enum class defect {
    none,
    // matching, wildcards, posted order (core)
    any_tag_longest_queue_first,
    any_source_heads_only,
    posted_any_tag_named_self_missed,
    posted_swap_pop_erase,
    // order, exactly once
    unexpected_swap_pop_erase,
    queue_growth_reverses,
    queue_compaction_drops_tail,
    completed_send_request_drop_cancels,
    // status
    any_tag_status_latest_queued_tag,
    coalesced_status_packet_size,
    send_status_dest_relative,
    send_status_size_staging_rounded,
    // probe
    iprobe_blind_while_posted,
    iprobe_tag_bitmap_cleared_early,
    iprobe_fair_cursor_no_wrap,
    // truncation, payload
    truncation_checked_against_head_posted,
    truncation_rendezvous_posted_never_completes,
    payload_piece_boundary_repeats_byte,
    // requests, progress, time
    default_request_zero_status,
    moved_completed_request_repeats,
    rendezvous_moves_on_own_recv_test,
    now_interpolation_steps_back,
    // optional capabilities (model::full)
    bsend_fragments_reversed,
    issend_status_from_ack,
    ssend_spin_timeout,
    rsend_skips_posted_any_tag,
    sendrecv_any_tag_as_send_tag,
    sendrecv_any_source_as_dest,
    send_native_fragments_as_messages,
    recv_native_retry_after_truncation,
    wait_completed_returns_last_status,
    wait_all_treats_nonreceive_done,
    barrier_tree_fanin4_second_level,
    broadcast_segments_floor,
    allreduce_sum_rank0_writes_early,
    allreduce_max_tail_of_4_unreduced,
    allreduce_min_init_flt_max,
    reduce_sum_root_twice_odd_group,
    reduce_max_float_compare,
    reduce_min_plan_cache_ignores_root,
    gather_partial_node_dropped,
    alltoall_ring_one_step_short,
    compute_busy_whole_seconds,
    abort_message_as_format,
    ibarrier_count_carried_over,
    ibroadcast_from_last_joiner,
    iallreduce_sum_first_joiner_twice,
    progress_completes_own_ibarrier,
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

    // concepts.hpp: "A receive names a source (or `any_source`) and a tag (or `any_tag`); it matches the earliest-sent message from that source with that tag"
    {defect::any_tag_longest_queue_first, "any_tag_longest_queue_first", model::core, "earliest match: an irecv naming a source with any_tag takes from the tag with the most messages of that source waiting (a scheduler draining the longest per-tag queue), not the earliest sent"},
    // concepts.hpp: "it matches the earliest-sent message from that source with that tag (with `any_source`, that of whichever source it takes"
    {defect::any_source_heads_only, "any_source_heads_only", model::core, "matching: an irecv with any_source and a named tag looks only at the first waiting message of each source (per-source queue heads); a match behind another tag stays unseen and the receive waits for a new arrival"},
    // concepts.hpp: "A receive names a source (or `any_source`) and a tag (or `any_tag`)"
    {defect::posted_any_tag_named_self_missed, "posted_any_tag_named_self_missed", model::core, "wildcards: the loopback path compares tags with == against a posted receive naming the rank itself, so a posted irecv(own rank, any_tag) is passed over by the rank's later messages to itself"},
    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted."
    {defect::posted_swap_pop_erase, "posted_swap_pop_erase", model::core, "posted order: a posted receive completed from the middle of the list is erased by swap-and-pop (the last posted takes its place), so later messages go to the latest-posted of the rest first"},
    // concepts.hpp: "Messages between one pair of ranks with the same tag are never reordered (\"non-overtaking\")."
    {defect::unexpected_swap_pop_erase, "unexpected_swap_pop_erase", model::core, "non-overtaking: a waiting message taken from the middle of the queue is erased by swap-and-pop, moving the newest waiting message ahead of older ones"},
    // concepts.hpp: "Messages between one pair of ranks with the same tag are never reordered (\"non-overtaking\")."
    {defect::queue_growth_reverses, "queue_growth_reverses", model::core, "non-overtaking: when the 257th message waits at a rank, the queue grows and its 256 entries are copied back in reverse order"},
    // concepts.hpp: "Every message is delivered exactly once."
    {defect::queue_compaction_drops_tail, "queue_compaction_drops_tail", model::core, "exactly once: every 128th message taken from a rank's queue compacts it, and when it was not the last one the compaction loses the newest waiting message"},
    // concepts.hpp: "Every message is delivered exactly once." (the buffer belongs to the transport until a successful `test` completes it — and no longer)
    {defect::completed_send_request_drop_cancels, "completed_send_request_drop_cancels", model::core, "exactly once: destroying an isend's request, even after test completed it, cancels its message if it is still waiting at the destination"},
    // types.hpp: "What a completed receive (or a probe) reports: who sent it, with which tag, and how many bytes it carried."
    {defect::any_tag_status_latest_queued_tag, "any_tag_status_latest_queued_tag", model::core, "receive status: an any_tag receive that finds its message waiting reports the tag of the newest message queued from that source (a per-source header cache)"},
    // types.hpp: "how many bytes it carried." + concepts.hpp: "`status::size` says how much"
    {defect::coalesced_status_packet_size, "coalesced_status_packet_size", model::core, "receive status: two waiting messages of <= 64 bytes from one source with one tag are coalesced into one packet, and the first one's receive reports the packet's length"},
    // concepts.hpp: "A completed send's status names its destination, tag and size."
    {defect::send_status_dest_relative, "send_status_dest_relative", model::core, "send status: names the destination relative to the sender ((dest - rank) mod size, the routing offset), right only on rank 0"},
    // concepts.hpp: "A completed send's status names its destination, tag and size."
    {defect::send_status_size_staging_rounded, "send_status_size_staging_rounded", model::core, "send status: the size is that of the staging allocation, rounded up to 64 bytes"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any"
    {defect::iprobe_blind_while_posted, "iprobe_blind_while_posted", model::core, "probe: while the rank has any receive posted, iprobe reports nothing (arrivals assumed to go to the posted receives), even for a message no posted receive matches"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any; the message stays queued."
    {defect::iprobe_tag_bitmap_cleared_early, "iprobe_tag_bitmap_cleared_early", model::core, "probe: a named-tag iprobe consults a per-tag 'messages waiting' bit that is cleared whenever a message of that tag is received, even while another still waits"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any"
    {defect::iprobe_fair_cursor_no_wrap, "iprobe_fair_cursor_no_wrap", model::core, "probe: an any_source iprobe scans sources from the last one it reported upward (fairness) and never wraps, so messages from lower-numbered sources are not reported"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error` (from the `test` that completes it)"
    {defect::truncation_checked_against_head_posted, "truncation_checked_against_head_posted", model::core, "truncation: a message matching a posted receive is checked against the buffer of the first posted receive, so into a later, smaller one it is cut silently"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error` (from the `test` that completes it)"
    {defect::truncation_rendezvous_posted_never_completes, "truncation_rendezvous_posted_never_completes", model::core, "truncation: a message over 64 KiB larger than the posted receive it matched has its clear-to-send refused; the receive never completes and nothing is raised"},
    // concepts.hpp: "a smaller one fills a prefix and `status::size` says how much." (every byte of the message arrives)
    {defect::payload_piece_boundary_repeats_byte, "payload_piece_boundary_repeats_byte", model::core, "payload: a message over 1 MiB is copied in 1 MiB pieces, each piece after the first starting one byte early (the byte at each 1 MiB boundary repeats its predecessor)"},
    // concepts.hpp: "`test` on a default-constructed or already completed request returns a default `status` at once."
    {defect::default_request_zero_status, "default_request_zero_status", model::core, "completion: test of a default-constructed request returns a zero-initialised status {0, 0, 0}, not a default one"},
    // concepts.hpp: "`test` on a default-constructed or already completed request returns a default `status` at once."
    {defect::moved_completed_request_repeats, "moved_completed_request_repeats", model::core, "completion: a request moved after it completed forgets that its status was reported, so the next test returns that status again"},
    // concepts.hpp: "Progress. A rank polling `test` or `iprobe` lets every other rank's operations progress"
    {defect::rendezvous_moves_on_own_recv_test, "rendezvous_moves_on_own_recv_test", model::core, "progress: a matched message over 64 KiB to another rank moves (and its isend completes) only when the receiver tests that very receive; polling other requests does not move it"},
    // concepts.hpp: "`now()` returns seconds (any epoch, monotonic) from the transport's clock"
    {defect::now_interpolation_steps_back, "now_interpolation_steps_back", model::core, "time: now() is a 10 ms tick plus an interpolation that restarts 2 ms behind in the first millisecond after each tick, so it steps back at tick boundaries"},

    {defect::none, "base_full", model::full, "none: the correct transport with every optional member"},

    // concepts.hpp: "Buffered send: a send that never waits for the receiver" + "Every message is delivered exactly once." (its bytes, in order)
    {defect::bsend_fragments_reversed, "bsend_fragments_reversed", model::full, "bsend: a message over 128 KiB is staged in 64 KiB fragments that are reassembled last fragment first"},
    // concepts.hpp: "A completed send's status names its destination, tag and size." (issend's request)
    {defect::issend_status_from_ack, "issend_status_from_ack", model::full, "issend: the completed request's status takes its tag from the match acknowledgement, i.e. the receive's tag (any_tag when the receive had a wildcard)"},
    // concepts.hpp: "Synchronous send: completes only once the receiver has matched the message (MPI_Ssend, MPI_Issend)."
    {defect::ssend_spin_timeout, "ssend_spin_timeout", model::full, "ssend: waits for the acknowledgement 20 ms at most, then returns (the peer assumed gone)"},
    // concepts.hpp: "Ready send: the caller promises the matching receive is already posted" + "A receive names a source (or `any_source`) and a tag (or `any_tag`)"
    {defect::rsend_skips_posted_any_tag, "rsend_skips_posted_any_tag", model::full, "rsend/irsend: the ready path looks up posted receives by exact tag, so a posted any_tag receive is passed over and never completes"},
    // concepts.hpp: "Combined send and receive that cannot deadlock against a matching sendrecv (MPI_Sendrecv)." + "A receive names a source (or `any_source`) and a tag (or `any_tag`)"
    {defect::sendrecv_any_tag_as_send_tag, "sendrecv_any_tag_as_send_tag", model::full, "sendrecv: a recv_tag of any_tag is replaced by send_tag (a default argument), so it waits for a message of its own tag"},
    // concepts.hpp: "Combined send and receive that cannot deadlock against a matching sendrecv (MPI_Sendrecv)." + "A receive names a source (or `any_source`)"
    {defect::sendrecv_any_source_as_dest, "sendrecv_any_source_as_dest", model::full, "sendrecv: a source of any_source is replaced by dest (the exchange assumed symmetric), so a ring shift with any_source waits forever"},
    // ops/point_to_point.hpp: "Blocking send: returns once `data` may be reused" + concepts.hpp: "Every message is delivered exactly once."
    {defect::send_native_fragments_as_messages, "send_native_fragments_as_messages", model::full, "send: the native send of more than 1 MiB goes out as several messages of at most 1 MiB with the same tag"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error`" + ops/point_to_point.hpp: "Blocking receive into `buffer`; returns the message's status."
    {defect::recv_native_retry_after_truncation, "recv_native_retry_after_truncation", model::full, "recv: the native receive catches truncation_error and receives again (a retry loop), so the longer message is lost and the next one returned"},
    // ops/point_to_point.hpp: "Completes a request; a default-constructed or completed one returns a default status."
    {defect::wait_completed_returns_last_status, "wait_completed_returns_last_status", model::full, "wait: of an already completed request returns the status of the rank's last completed operation"},
    // ops/point_to_point.hpp: "Completes every request of `rs`."
    {defect::wait_all_treats_nonreceive_done, "wait_all_treats_nonreceive_done", model::full, "wait_all: every request that is not a receive is taken as complete (sends here are eager) and emptied, though synchronous sends and nonblocking collectives are not"},
    // ops/collectives.hpp: "Returns once every rank has entered the barrier."
    {defect::barrier_tree_fanin4_second_level, "barrier_tree_fanin4_second_level", model::full, "barrier: a fan-in-4 tree whose second level is missing, so in groups of 6+ nobody waits for ranks 5 and above"},
    // ops/collectives.hpp: "Copies `root`'s bytes into every other rank's buffer of the same size."
    {defect::broadcast_segments_floor, "broadcast_segments_floor", model::full, "broadcast: over 64 KiB it is pipelined in 64 KiB segments counted with floor(n / 64 KiB), so a partial last segment is never sent"},
    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in every rank's `values`, the same bits on every rank."
    {defect::allreduce_sum_rank0_writes_early, "allreduce_sum_rank0_writes_early", model::full, "allreduce_sum: rank 0 writes its result in place before the others have read its values (a missing second fence)"},
    // ops/collectives.hpp: "Leaves the element-wise maximum over all ranks in every rank's `values`."
    {defect::allreduce_max_tail_of_4_unreduced, "allreduce_max_tail_of_4_unreduced", model::full, "allreduce_max: reduces four elements at a time; the count % 4 elements of the tail keep rank 0's values"},
    // ops/collectives.hpp: "Leaves the element-wise minimum over all ranks in every rank's `values`."
    {defect::allreduce_min_init_flt_max, "allreduce_min_init_flt_max", model::full, "allreduce_min: starts from FLT_MAX (a float constant), so values all above 3.4e38 give 3.4e38"},
    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in `root`'s `values`"
    {defect::reduce_sum_root_twice_odd_group, "reduce_sum_root_twice_odd_group", model::full, "reduce_sum: in groups of odd size the ring closes on the root, which adds its own values twice"},
    // ops/collectives.hpp: "Leaves the element-wise maximum over all ranks in `root`'s `values`"
    {defect::reduce_max_float_compare, "reduce_max_float_compare", model::full, "reduce_max: compares the values as floats (a vectorised path), so of values equal in float the first is kept, not the largest"},
    // ops/collectives.hpp: "Leaves the element-wise minimum over all ranks in `root`'s `values`; the other ranks' values are left as they were."
    {defect::reduce_min_plan_cache_ignores_root, "reduce_min_plan_cache_ignores_root", model::full, "reduce_min: a plan cached per buffer without the root, so a later call on the same buffer with another root delivers to the first call's root"},
    // ops/collectives.hpp: "Gathers every rank's `mine` into `all` on `root` (any rank), in rank order"
    {defect::gather_partial_node_dropped, "gather_partial_node_dropped", model::full, "gather: a two-level gather over nodes of 4 ranks; in groups of 5+ not a multiple of 4 the blocks of the partial last node are not forwarded"},
    // ops/collectives.hpp: "Sends block r of `out` to rank r and receives rank r's block for this rank into block r of `in`, for every r"
    {defect::alltoall_ring_one_step_short, "alltoall_ring_one_step_short", model::full, "alltoall: a ring schedule of size() - 2 steps instead of size() - 1, so the block of rank + 1 is missing"},
    // ops/process.hpp: "Performs `w` (or, on a simulated machine, charges its time)."
    {defect::compute_busy_whole_seconds, "compute_busy_whole_seconds", model::full, "compute: busy work's duration is cast to whole seconds, so a fractional part is never worked"},
    // ops/process.hpp: "Reports the rank and `message` and stops every rank (CoMet's error_exit)."
    {defect::abort_message_as_format, "abort_message_as_format", model::full, "abort: the message is handed to a printf-style logger as its format, so '%' sequences in it are expanded or lost"},
    // concepts.hpp: "Nonblocking collectives (MPI-3 MPI_Ibarrier, ...): same contracts as the blocking ones" + ops: "Returns once every rank has entered the barrier."
    {defect::ibarrier_count_carried_over, "ibarrier_count_carried_over", model::full, "ibarrier: from the second one on, the entry count carries one over, so requests complete once all but one rank entered"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" + ops: "Copies `root`'s bytes into every other rank's buffer"
    {defect::ibroadcast_from_last_joiner, "ibroadcast_from_last_joiner", model::full, "ibroadcast: performed by the last rank to join, which copies from its own buffer instead of the root's (right only when the root joins last)"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" + ops: "Leaves the element-wise sum over all ranks in every rank's `values`"
    {defect::iallreduce_sum_first_joiner_twice, "iallreduce_sum_first_joiner_twice", model::full, "iallreduce_sum: accumulates from the first rank to join and then adds ranks 1..size()-1, so unless rank 0 joined first it is left out and the first joiner counted twice"},
    // concepts.hpp: "Explicit progress: lets outstanding nonblocking operations advance without completing any request"
    {defect::progress_completes_own_ibarrier, "progress_completes_own_ibarrier", model::full, "progress: marks the rank's outstanding ibarrier requests complete (its local part done), before the other ranks entered"},
};
// clang-format on

constexpr bool is_base(const mutant& m) noexcept { return m.id == defect::none; }

}  // namespace held_out_7
