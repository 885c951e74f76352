// held_out_6/defects.hpp — the sixth, blind held-out set: deliberate defects of a transport, one
// switch each, and for each the ONE rule of comet/core/concepts.hpp (or core/types.hpp, or the
// contract of an operation in comet/ops/ the transport offers natively) that it breaks. The
// sentence of the rule is quoted above each row.
//
// Written from those rules alone, without reading the conformance checks. None repeats a defect
// of the earlier held-out sets (test/testing/held_out*/defects.hpp): where the rule is one they
// also break, it is broken by another mechanism, in another member or under another condition.
// Most are bugs a transport author writes: a hash bucket compared instead of the key, a
// translation table off by one, a header or a probe result cached and read back for the wrong
// message, a scan cursor that is not reset, a tail pointer gone stale when senders interleave, a
// fast path for empty messages or empty buffers that skips the matching, a copy loop that drops
// the tail on unaligned buffers or the last page of a page-multiple, a window counter that
// retransmits at its boundary, a request slot recycled without a generation, a cached clock;
// and in the native operations a collective tree or schedule right only for some group sizes or
// roots, a chunk seam, a ring loop one short, a partial sum left in place, a per-rank field
// overwritten by the next nonblocking call, an attach buffer that leaks. Many fire only after
// a number of calls, in some group sizes, for some roots, or in one combination of wildcards
// and posting order. Keep it held out.
//
// `model::core` is the eight core members only (comet::ops supplies the rest portably);
// `model::full` adds native bsend, ssend/issend, rsend/irsend, sendrecv, send, recv, wait,
// wait_all, barrier, broadcast, the allreduces and reductions, gather, alltoall, compute,
// clock_is_global, abort, the nonblocking collectives (ibarrier, ibroadcast, iallreduce_sum)
// and progress.
#pragma once

#include <string_view>

namespace held_out_6 {

enum class defect {
    none,
    // matching, wildcards, posted order (core)
    posted_tag_bucket_64,
    posted_source_last_is_any,
    posted_scan_stops_at_source,
    empty_bypasses_posted_wildcard,
    rendezvous_posted_any_source_stalls,
    // order
    interleaved_sender_tail_stale,
    scan_cursor_not_reset,
    reserved_tags_priority_lane,
    // status
    probe_slot_status_reused,
    send_status_stale_tag,
    posted_status_size_last_chunk,
    relay_opposite_status_source,
    // probe
    iprobe_any_source_first_nonempty,
    iprobe_result_cached,
    iprobe_singleton_short_circuit,
    // truncation
    truncation_checked_in_words,
    truncation_loopback_silent,
    // payload, exactly once
    unaligned_tail_dropped,
    page_multiple_short_last_page,
    window_boundary_duplicate,
    empty_recv_completes_unmatched,
    // requests, time, arguments
    completed_request_slot_reused,
    now_cached_at_last_call,
    error_tag_printed_unsigned,
    // optional capabilities (model::full)
    bsend_large_cut,
    bsend_pool_leak_1mib,
    issend_self_ack_lost,
    issend_truncation_no_ack,
    rsend_ignores_posted_source,
    sendrecv_recv_room_of_send,
    recv_native_probe_then_any_tag,
    wait_send_status_latest,
    wait_all_batch_64,
    barrier_release_on_root_entry,
    broadcast_tree_floor_pow2,
    allreduce_sum_chunk_seam,
    allreduce_max_by_magnitude,
    reduce_sum_tree_partials_left,
    reduce_max_ring_misses_predecessor,
    reduce_min_rank0_keeps_result,
    gather_wrap_skips_rank0,
    alltoall_half_distance_missing,
    compute_busy_from_last_call,
    abort_first_line_only,
    ibarrier_neighbours_only,
    ibroadcast_root_cached,
    iallreduce_two_outstanding_mixed,
    progress_rematch_source_only,
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

    // concepts.hpp: "A receive names a source (or `any_source`) and a tag (or `any_tag`)" + "Every tag in 0..max_tag is distinct: none aliases another."
    {defect::posted_tag_bucket_64, "posted_tag_bucket_64", model::core, "tags: an arriving message is matched to a posted receive by its hash bucket (tag mod 64) without comparing the tags (tag 69 completes a posted receive for 5)"},
    // concepts.hpp: "A receive names a source (or `any_source`) and a tag (or `any_tag`); it matches the earliest-sent message from that source with that tag"
    {defect::posted_source_last_is_any, "posted_source_last_is_any", model::core, "matching: a posted receive naming rank size()-1 is taken by a message from any source (the table that encodes any_source as size() is off by one)"},
    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted."
    {defect::posted_scan_stops_at_source, "posted_scan_stops_at_source", model::core, "posted receives: the scan stops at the first posted receive naming the message's source; if its tag differs the message is queued, and a later posted receive that matches it never completes"},
    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted." + "Every message is delivered exactly once."
    {defect::empty_bypasses_posted_wildcard, "empty_bypasses_posted_wildcard", model::core, "wildcards: a zero-length message (a header-only fast path) looks only at posted receives naming both source and tag; a posted wildcard receive it matches is passed over"},
    // concepts.hpp: "Progress. A rank polling `test` or `iprobe` lets every other rank's operations progress"
    {defect::rendezvous_posted_any_source_stalls, "rendezvous_posted_any_source_stalls", model::core, "progress: a message over 64 KiB (rendezvous) cannot answer a posted any_source receive (the clear-to-send needs a named source), so that receive never completes"},
    // concepts.hpp: "Messages between one pair of ranks with the same tag are never reordered (\"non-overtaking\")."
    {defect::interleaved_sender_tail_stale, "interleaved_sender_tail_stale", model::core, "non-overtaking: when another sender's message was queued at the rank since this sender's previous one, which still waits, the new one is queued ahead of it (stale tail pointer)"},
    // concepts.hpp: "it matches the earliest-sent message from that source with that tag" + "Messages between one pair of ranks with the same tag are never reordered"
    {defect::scan_cursor_not_reset, "scan_cursor_not_reset", model::core, "non-overtaking: a receive scans the waiting messages from where the rank's previous receive found its message, going back to the front only when nothing matches after it"},
    // concepts.hpp: "it matches the earliest-sent message from that source with that tag"
    {defect::reserved_tags_priority_lane, "reserved_tags_priority_lane", model::core, "earliest match: messages with tags >= first_reserved_tag wait in a priority lane ahead of application messages, so an any_tag receive takes them before earlier-sent ones"},
    // types.hpp: "What a completed receive (or a probe) reports: who sent it, with which tag, and how many bytes it carried."
    {defect::probe_slot_status_reused, "probe_slot_status_reused", model::core, "receive status: the size comes from the rank's last iprobe result when that named the same source, even when the receive took another message of that source"},
    // concepts.hpp: "A completed send's status names its destination, tag and size."
    {defect::send_status_stale_tag, "send_status_stale_tag", model::core, "send status: a completed isend reports the tag of the previous isend to that destination (a per-destination header cache updated after the status is made)"},
    // concepts.hpp: "a smaller one fills a prefix and `status::size` says how much." + types.hpp: "how many bytes it carried"
    {defect::posted_status_size_last_chunk, "posted_status_size_last_chunk", model::core, "receive status: a message over 64 KiB into a receive posted before it arrived reports the size of its last 64 KiB chunk"},
    // types.hpp: "What a completed receive (or a probe) reports: who sent it"
    {defect::relay_opposite_status_source, "relay_opposite_status_source", model::core, "receive status: in even groups of 4+, a message between ranks size()/2 apart is relayed and its status names the relay (source + 1) as its sender"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any"
    {defect::iprobe_any_source_first_nonempty, "iprobe_any_source_first_nonempty", model::core, "probe: an any_source iprobe looks only at the lowest-numbered source with any message waiting; a match from another source is not reported"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any; the message stays queued."
    {defect::iprobe_result_cached, "iprobe_result_cached", model::core, "probe: an iprobe with the same arguments as the last one returns the cached result while nothing new arrived, even after that message was received"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any"
    {defect::iprobe_singleton_short_circuit, "iprobe_singleton_short_circuit", model::core, "probe: in a group of one, iprobe returns nothing at once (\"nobody else can send\"), missing the rank's messages to itself"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error` (from the `test` that completes it)"
    {defect::truncation_checked_in_words, "truncation_checked_in_words", model::core, "truncation: sizes compared in 8-byte words, so a message a few bytes longer than a buffer that is not a multiple of 8 is cut silently"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error` (from the `test` that completes it)"
    {defect::truncation_loopback_silent, "truncation_loopback_silent", model::core, "truncation: a message the rank sent itself (loopback path) is cut to the buffer silently, status size the buffer's"},
    // concepts.hpp: "a smaller one fills a prefix and `status::size` says how much." (every byte of the message arrives)
    {defect::unaligned_tail_dropped, "unaligned_tail_dropped", model::core, "payload: into a receive buffer not 8-byte aligned, a word-wise copy leaves out the last size % 8 bytes of a message of 9+ bytes"},
    // concepts.hpp: "a smaller one fills a prefix and `status::size` says how much."
    {defect::page_multiple_short_last_page, "page_multiple_short_last_page", model::core, "payload: a message of a whole number of 4 KiB pages into a larger buffer has its last page not copied (loop bound off by one)"},
    // concepts.hpp: "Every message is delivered exactly once."
    {defect::window_boundary_duplicate, "window_boundary_duplicate", model::core, "exactly once: the 1000th message from a sender to a rank (the end of its acknowledgement window) is delivered twice"},
    // concepts.hpp: "Every message is delivered exactly once." + "it matches the earliest-sent message from that source with that tag"
    {defect::empty_recv_completes_unmatched, "empty_recv_completes_unmatched", model::core, "exactly once: an irecv into a zero-length buffer completes at once (\"nothing to receive\") without matching, and the message it should take stays queued"},
    // concepts.hpp: "`test` on a default-constructed or already completed request returns a default `status` at once."
    {defect::completed_request_slot_reused, "completed_request_slot_reused", model::core, "completion: a completed request's slot is recycled without a generation; testing it again tests the rank's newest operation (pending: nothing; complete: takes its status)"},
    // concepts.hpp: "`now()` returns seconds (any epoch, monotonic) from the transport's clock"
    {defect::now_cached_at_last_call, "now_cached_at_last_call", model::core, "time: now() returns the time stamped at the rank's last isend/irecv/test/iprobe (a cached clock), standing still between them"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument` naming the value and the rank."
    {defect::error_tag_printed_unsigned, "error_tag_printed_unsigned", model::core, "arguments: the error for a negative tag prints the tag as unsigned (-5 as 4294967291), not the value passed"},

    {defect::none, "base_full", model::full, "none: the correct transport with every optional member"},

    // concepts.hpp: "Buffered send: a send that never waits for the receiver" + "Every message is delivered exactly once." (all of it: status::size says how much)
    {defect::bsend_large_cut, "bsend_large_cut", model::full, "bsend: a message over 64 KiB is sent as its first 64 KiB only (one chunk of the attach buffer)"},
    // concepts.hpp: "The promise is `bsend`'s: two ranks that both `bsend` and then receive always complete"
    {defect::bsend_pool_leak_1mib, "bsend_pool_leak_1mib", model::full, "bsend: its buffer space is never given back, so once the rank has bsent 1 MiB in all, bsend waits for the matching receive"},
    // concepts.hpp: "Synchronous send: completes only once the receiver has matched the message (MPI_Ssend, MPI_Issend)."
    {defect::issend_self_ack_lost, "issend_self_ack_lost", model::full, "issend/ssend: to oneself, the match acknowledgement is lost, so it never completes"},
    // concepts.hpp: "Synchronous send: completes only once the receiver has matched the message"
    {defect::issend_truncation_no_ack, "issend_truncation_no_ack", model::full, "issend/ssend: matched by a receive that raises truncation_error, the acknowledgement is not sent and the send never completes"},
    // concepts.hpp: "Ready send: the caller promises the matching receive is already posted" + "Receives posted with `irecv` are matched in the order they were posted." (a receive names a source)
    {defect::rsend_ignores_posted_source, "rsend_ignores_posted_source", model::full, "rsend/irsend: the ready path matches the posted receives by tag only, so it completes an earlier receive naming another source"},
    // concepts.hpp: "Combined send and receive that cannot deadlock against a matching sendrecv (MPI_Sendrecv)." + "a smaller one fills a prefix"
    {defect::sendrecv_recv_room_of_send, "sendrecv_recv_room_of_send", model::full, "sendrecv: receives into in.first(out.size()) (an exchange assumed symmetric), so a longer message that fits `in` raises truncation_error"},
    // ops/point_to_point.hpp: "Blocking receive into `buffer`; returns the message's status." + concepts.hpp: "it matches the earliest-sent message from that source with that tag"
    {defect::recv_native_probe_then_any_tag, "recv_native_probe_then_any_tag", model::full, "recv: with any_source and a named tag, probes for the source, then receives from it with any_tag (taking an earlier message of another tag)"},
    // concepts.hpp: "A completed send's status names its destination, tag and size." + ops: "Completes a request"
    {defect::wait_send_status_latest, "wait_send_status_latest", model::full, "wait: of a send returns the status of the rank's latest send, not of the one waited for"},
    // ops/point_to_point.hpp: "Completes every request of `rs`."
    {defect::wait_all_batch_64, "wait_all_batch_64", model::full, "wait_all: completes the first 64 requests only (one fixed batch); the rest are left as they were"},
    // ops/collectives.hpp: "Returns once every rank has entered the barrier."
    {defect::barrier_release_on_root_entry, "barrier_release_on_root_entry", model::full, "barrier: rank 0 waits for everyone, the others only until rank 0 entered (its arrival flag mistaken for its release)"},
    // ops/collectives.hpp: "Copies `root`'s bytes into every other rank's buffer of the same size."
    {defect::broadcast_tree_floor_pow2, "broadcast_tree_floor_pow2", model::full, "broadcast: a binomial tree bounded by the largest power of two <= size(), so in other group sizes ranks that far from the root get nothing"},
    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in every rank's `values`, the same bits on every rank."
    {defect::allreduce_sum_chunk_seam, "allreduce_sum_chunk_seam", model::full, "allreduce_sum: reduces in chunks of 1024 elements and the first element of every chunk after the first keeps the rank's own value"},
    // ops/collectives.hpp: "Leaves the element-wise maximum over all ranks in every rank's `values`."
    {defect::allreduce_max_by_magnitude, "allreduce_max_by_magnitude", model::full, "allreduce_max: keeps the value of larger magnitude (a norm's comparison), wrong when a negative value is largest in magnitude"},
    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in `root`'s `values`; the other ranks' values are left as they were."
    {defect::reduce_sum_tree_partials_left, "reduce_sum_tree_partials_left", model::full, "reduce_sum: a binomial tree summing in place, so interior ranks of the tree are left holding their subtree's partial sum"},
    // ops/collectives.hpp: "Leaves the element-wise maximum over all ranks in `root`'s `values`"
    {defect::reduce_max_ring_misses_predecessor, "reduce_max_ring_misses_predecessor", model::full, "reduce_max: combines ranks root, root+1, ... around the ring one short, leaving out rank (root - 1) mod size()"},
    // ops/collectives.hpp: "Leaves the element-wise minimum over all ranks in `root`'s `values`; the other ranks' values are left as they were."
    {defect::reduce_min_rank0_keeps_result, "reduce_min_rank0_keeps_result", model::full, "reduce_min: rank 0 computes the result and keeps a copy in its own values when the root is another rank"},
    // ops/collectives.hpp: "Gathers every rank's `mine` into `all` on `root` (any rank), in rank order"
    {defect::gather_wrap_skips_rank0, "gather_wrap_skips_rank0", model::full, "gather: the root collects root+1..size()-1, then wraps to 1..root-1, so rank 0's block is missing for any root but 0"},
    // ops/collectives.hpp: "Sends block r of `out` to rank r and receives rank r's block for this rank into block r of `in`, for every r"
    {defect::alltoall_half_distance_missing, "alltoall_half_distance_missing", model::full, "alltoall: a two-sided shift schedule over distances 1..(size()-1)/2, so in even groups the block of the rank size()/2 away is missing"},
    // ops/process.hpp: "Performs `w` (or, on a simulated machine, charges its time)."
    {defect::compute_busy_from_last_call, "compute_busy_from_last_call", model::full, "compute: busy work's deadline is counted from the rank's last transport call (a cached clock), not from the call of compute"},
    // ops/process.hpp: "Reports the rank and `message` and stops every rank (CoMet's error_exit)."
    {defect::abort_first_line_only, "abort_first_line_only", model::full, "abort: reports the message up to its first newline only (a one-line logger)"},
    // concepts.hpp: "Nonblocking collectives (MPI-3 MPI_Ibarrier, ...): same contracts as the blocking ones" + ops: "Returns once every rank has entered the barrier."
    {defect::ibarrier_neighbours_only, "ibarrier_neighbours_only", model::full, "ibarrier: a rank's request completes once it and its two ring neighbours entered, not every rank"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" + ops: "Copies `root`'s bytes into every other rank's buffer"
    {defect::ibroadcast_root_cached, "ibroadcast_root_cached", model::full, "ibroadcast: the root of the first ibroadcast is cached, and later ones broadcast from it whatever their root"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones, completed through the returned request." + ops: "Leaves the element-wise sum over all ranks in every rank's `values`"
    {defect::iallreduce_two_outstanding_mixed, "iallreduce_two_outstanding_mixed", model::full, "iallreduce_sum: the result goes to the buffer of the rank's latest iallreduce_sum (a per-rank field), so with two outstanding the first's sum lands in the second's buffer"},
    // concepts.hpp: "Explicit progress: lets outstanding nonblocking operations advance without completing any request" + "A receive names a source ... and a tag"
    {defect::progress_rematch_source_only, "progress_rematch_source_only", model::full, "progress: re-matches waiting messages to posted receives by source only, so a posted receive takes a message of another tag"},
};
// clang-format on

constexpr bool is_base(const mutant& m) noexcept { return m.id == defect::none; }

}  // namespace held_out_6
