// held_out_4/defects.hpp — the fourth, blind held-out set: deliberate defects of a transport, one
// switch each, and for each the ONE rule of comet/core/concepts.hpp (or core/types.hpp, or the
// contract of an operation in comet/ops/ the transport offers natively) that it breaks. The
// sentence of the rule is quoted above each row.
//
// Written from those rules alone, without reading the conformance checks. None repeats a defect
// of the earlier held-out sets (test/testing/held_out*/defects.hpp): where the rule is one they
// also break, it is broken in another member, another native operation, or under another
// condition. Most are narrow (past a size, for one rank or group size, with a wildcard, only when
// the receive is posted first, only for a message to oneself, only deep in a queue), as real
// authors' bugs are. Keep it held out.
//
// `model::core` is the eight core members only (comet::ops supplies the rest portably);
// `model::full` adds native bsend, ssend/issend, rsend/irsend, sendrecv, send, recv, wait,
// wait_all, barrier, broadcast, the allreduces and reductions, gather, alltoall, compute,
// clock_is_global, abort, the nonblocking collectives (ibarrier, ibroadcast, iallreduce_sum)
// and progress.
#pragma once

#include <string_view>

namespace held_out_4 {

enum class defect {
    none,
    // matching, tags, wildcards
    tag_reserved_fold,
    any_source_odd_group_skips_rank0,
    singleton_any_source_never,
    // earliest match, non-overtaking, posted order
    unmatched_while_posted_front,
    deep_queue_swaps,
    any_source_multi_sender_latest,
    posted_lifo_past_8,
    // status
    empty_status_size_one,
    posted_any_tag_status_tag_zero,
    send_status_reserved_tag_offset,
    self_send_status_dest_wildcard,
    // probe
    iprobe_self_size_zero,
    // truncation and prefix
    truncation_any_source_silent,
    short_large_buffer_raises,
    // payload, buffers, exactly once
    odd_large_last_byte,
    cross_parity_byteswap_8k,
    completed_buffer_rewritten,
    self_posted_lost,
    max_tag_lost,
    probed_delivered_twice,
    empty_into_posted_pending,
    route_wraps_past_8,
    // requests and test
    completed_test_pending,
    test_blocks_for_large_posted,
    // rank() and size()
    size_capped_8,
    // bad arguments
    irecv_tag_below_any_accepted,
    iprobe_negative_source_any,
    empty_send_tag_unchecked,
    // time
    now_runs_fast_odd_rank,
    now_back_after_isend,
    // optional capabilities (model::full)
    bsend_waits_if_peer_posted,
    bsend_zero_length_lost,
    issend_matched_by_iprobe,
    irsend_status_tag_wildcard,
    sendrecv_any_source_status_dest,
    sendrecv_truncation_silent,
    recv_native_status_tag_requested,
    send_native_dest_unchecked,
    wait_early_receive_default_status,
    wait_all_truncation_swallowed,
    barrier_last_of_odd_free,
    broadcast_root_scratch,
    allreduce_min_from_zero,
    allreduce_sum_odd_tail_doubled,
    reduce_max_writes_all,
    reduce_sum_partial_over_256,
    gather_last_block_missing_5plus,
    alltoall_tail_byte_odd_blocks,
    abort_names_rank_plus_one,
    ibroadcast_from_rank_zero,
    iallreduce_sum_root_only,
    ibarrier_test_blocks,
    progress_drops_unexpected,
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

    // concepts.hpp: "Every tag in 0..max_tag is distinct: none aliases another."
    {defect::tag_reserved_fold, "tag_reserved_fold", model::core, "tags: a receive/probe naming a tag t < 768 also matches tag t + first_reserved_tag (reserved space folded onto application tags)"},
    // concepts.hpp: "A receive names a source (or `any_source`) ... (with `any_source`, that of whichever source it takes ...)"
    {defect::any_source_odd_group_skips_rank0, "any_source_odd_group_skips_rank0", model::core, "wildcards: in groups of odd size >= 3, an any_source receive never takes a waiting message of rank 0"},
    // types.hpp: "Matches a message from any sender in `recv`, `irecv` and `probe`" (a group of one: oneself)
    {defect::singleton_any_source_never, "singleton_any_source_never", model::core, "wildcards: in a group of one, any_source matches nothing (it looks at 'the other ranks' only)"},
    // concepts.hpp: "Messages between one pair of ranks with the same tag are never reordered (\"non-overtaking\")."
    {defect::unmatched_while_posted_front, "unmatched_while_posted_front", model::core, "non-overtaking: a message arriving while only non-matching receives are posted is queued at the front"},
    // concepts.hpp: "Messages between one pair of ranks with the same tag are never reordered (\"non-overtaking\")."
    {defect::deep_queue_swaps, "deep_queue_swaps", model::core, "non-overtaking: once 100 messages of a sender wait at a rank, each new one is queued before the sender's previous one"},
    // concepts.hpp: "it matches the earliest-sent message from that source with that tag (with `any_source`, that of whichever source it takes"
    {defect::any_source_multi_sender_latest, "any_source_multi_sender_latest", model::core, "earliest match: when two or more senders have matching messages waiting, an any_source receive takes its chosen sender's latest one"},
    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted."
    {defect::posted_lifo_past_8, "posted_lifo_past_8", model::core, "posted order: while more than 8 receives are posted, a message goes to the latest-posted matching one"},
    // types.hpp: "What a completed receive (or a probe) reports: ... how many bytes it carried."
    {defect::empty_status_size_one, "empty_status_size_one", model::core, "receive status: a zero-length message reports size 1"},
    // types.hpp: "What a completed receive (or a probe) reports: who sent it, with which tag"
    {defect::posted_any_tag_status_tag_zero, "posted_any_tag_status_tag_zero", model::core, "receive status: an any_tag receive posted before its message arrived reports tag 0"},
    // concepts.hpp: "A completed send's status names its destination, tag and size."
    {defect::send_status_reserved_tag_offset, "send_status_reserved_tag_offset", model::core, "send status: a tag >= first_reserved_tag is reported as an offset from it"},
    // concepts.hpp: "A completed send's status names its destination, tag and size."
    {defect::self_send_status_dest_wildcard, "self_send_status_dest_wildcard", model::core, "send status: an isend to oneself names destination any_source"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived"
    {defect::iprobe_self_size_zero, "iprobe_self_size_zero", model::core, "probe status: a message the rank sent itself is reported with size 0"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error` (from the `test` that completes it)"
    {defect::truncation_any_source_silent, "truncation_any_source_silent", model::core, "truncation: an any_source receive cuts a longer message silently"},
    // concepts.hpp: "a smaller one fills a prefix and `status::size` says how much."
    {defect::short_large_buffer_raises, "short_large_buffer_raises", model::core, "prefix: a shorter message into a buffer of 1 MiB or more raises truncation_error"},
    // concepts.hpp: "Every message is delivered exactly once." (its bytes as sent)
    {defect::odd_large_last_byte, "odd_large_last_byte", model::core, "payload: a message of odd length over 1 KiB loses its last byte"},
    // concepts.hpp: "Every message is delivered exactly once." (its bytes as sent)
    {defect::cross_parity_byteswap_8k, "cross_parity_byteswap_8k", model::core, "payload: 8 KiB+ messages of whole 8-byte words between ranks of different parity arrive byte-swapped per word"},
    // concepts.hpp: "the buffer belongs to the transport until a successful `test` (or `wait`) completes it" (and the caller's after)
    {defect::completed_buffer_rewritten, "completed_buffer_rewritten", model::core, "buffers: 16 KiB+ receives have their bytes written again at the rank's next call after completion"},
    // concepts.hpp: "Every message is delivered exactly once."
    {defect::self_posted_lost, "self_posted_lost", model::core, "exactly once: a message to oneself that matches an already posted receive is dropped"},
    // concepts.hpp: "Every message is delivered exactly once." / types.hpp: "The largest tag every transport must accept"
    {defect::max_tag_lost, "max_tag_lost", model::core, "exactly once: messages with tag max_tag are dropped"},
    // concepts.hpp: "Every message is delivered exactly once."
    {defect::probed_delivered_twice, "probed_delivered_twice", model::core, "exactly once: a message reported by an any_source iprobe is left queued after its receive"},
    // concepts.hpp: "Every message is delivered exactly once."
    {defect::empty_into_posted_pending, "empty_into_posted_pending", model::core, "exactly once: a zero-length message into a posted non-empty receive is consumed but never completes it"},
    // concepts.hpp: "Every message is delivered exactly once." (to the rank it was sent to)
    {defect::route_wraps_past_8, "route_wraps_past_8", model::core, "exactly once: in groups of 9+, a message to rank 8 or above goes to rank dest % 8"},
    // concepts.hpp: "`test` on a default-constructed or already completed request returns a default `status` at once."
    {defect::completed_test_pending, "completed_test_pending", model::core, "completion: test of an already completed request returns nothing (pending)"},
    // concepts.hpp: "`test` never blocks: on an incomplete operation it returns nothing at once."
    {defect::test_blocks_for_large_posted, "test_blocks_for_large_posted", model::core, "test: on a pending receive with a buffer of 1 MiB or more, waits until it completes"},
    // concepts.hpp: "A transport is ONE rank's endpoint into a group of `size()` ranks."
    {defect::size_capped_8, "size_capped_8", model::core, "size(): capped at 8"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument` naming the value and the rank."
    {defect::irecv_tag_below_any_accepted, "irecv_tag_below_any_accepted", model::core, "arguments: irecv accepts a tag below any_tag (the receive never matches)"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument` naming the value and the rank."
    {defect::iprobe_negative_source_any, "iprobe_negative_source_any", model::core, "arguments: iprobe takes any negative source as any_source"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument` naming the value and the rank."
    {defect::empty_send_tag_unchecked, "empty_send_tag_unchecked", model::core, "arguments: an isend of zero bytes accepts a negative tag"},
    // concepts.hpp: "`now()` returns seconds (any epoch, monotonic) from the transport's clock"
    {defect::now_runs_fast_odd_rank, "now_runs_fast_odd_rank", model::core, "time: on odd ranks now() runs 25% fast (not seconds)"},
    // concepts.hpp: "`now()` returns seconds (any epoch, monotonic)"
    {defect::now_back_after_isend, "now_back_after_isend", model::core, "time: every 10th isend moves the clock's epoch 2 ms later (now() steps back)"},

    {defect::none, "base_full", model::full, "none: the correct transport with every optional member"},

    // concepts.hpp: "Buffered send: a send that never waits for the receiver to post a matching receive"
    {defect::bsend_waits_if_peer_posted, "bsend_waits_if_peer_posted", model::full, "bsend: waits to be matched while the destination has any receive posted"},
    // concepts.hpp: "Every message is delivered exactly once." (through bsend)
    {defect::bsend_zero_length_lost, "bsend_zero_length_lost", model::full, "bsend: a zero-length message is never sent"},
    // concepts.hpp: "Synchronous send: completes only once the receiver has matched the message"
    {defect::issend_matched_by_iprobe, "issend_matched_by_iprobe", model::full, "issend/ssend: completes once an iprobe reported its message (a probe is not a match)"},
    // concepts.hpp: "A completed send's status names its destination, tag and size."
    {defect::irsend_status_tag_wildcard, "irsend_status_tag_wildcard", model::full, "irsend: the completed request's status says tag any_tag"},
    // types.hpp: "What a completed receive ... reports: who sent it" (sendrecv returns its receive's status)
    {defect::sendrecv_any_source_status_dest, "sendrecv_any_source_status_dest", model::full, "sendrecv: with any_source, the status names the send's destination, not the sender"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error`"
    {defect::sendrecv_truncation_silent, "sendrecv_truncation_silent", model::full, "sendrecv: its receive cuts a longer message silently"},
    // ops/point_to_point.hpp: "Blocking receive into `buffer`; returns the message's status."
    {defect::recv_native_status_tag_requested, "recv_native_status_tag_requested", model::full, "recv: the native receive's status gives the tag asked for (any_tag stays any_tag)"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument`"
    {defect::send_native_dest_unchecked, "send_native_dest_unchecked", model::full, "send: the native send to a rank out of range returns silently"},
    // ops/point_to_point.hpp: "Completes a request" + types.hpp: "What a completed receive ... reports"
    {defect::wait_early_receive_default_status, "wait_early_receive_default_status", model::full, "wait: of a receive whose message was waiting when posted returns a default status"},
    // concepts.hpp: "raises `truncation_error` (from the `test` that completes it)" (wait_all completes)
    {defect::wait_all_truncation_swallowed, "wait_all_truncation_swallowed", model::full, "wait_all: a truncated receive completes without truncation_error"},
    // ops/collectives.hpp: "Returns once every rank has entered the barrier."
    {defect::barrier_last_of_odd_free, "barrier_last_of_odd_free", model::full, "barrier: in groups of odd size >= 3, rank size()-1 leaves at once"},
    // ops/collectives.hpp: "Copies `root`'s bytes into every other rank's buffer of the same size."
    {defect::broadcast_root_scratch, "broadcast_root_scratch", model::full, "broadcast: a root other than 0 has its buffer zeroed afterwards (used as scratch)"},
    // ops/collectives.hpp: "Leaves the element-wise minimum over all ranks in every rank's `values`."
    {defect::allreduce_min_from_zero, "allreduce_min_from_zero", model::full, "allreduce_min: starts from 0.0, so all-positive values give 0"},
    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in every rank's `values`"
    {defect::allreduce_sum_odd_tail_doubled, "allreduce_sum_odd_tail_doubled", model::full, "allreduce_sum: for an odd count > 1, the last element's sum is doubled"},
    // ops/collectives.hpp: "the other ranks' values are left as they were."
    {defect::reduce_max_writes_all, "reduce_max_writes_all", model::full, "reduce_max: non-root ranks' values are overwritten with the result"},
    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in `root`'s `values`"
    {defect::reduce_sum_partial_over_256, "reduce_sum_partial_over_256", model::full, "reduce_sum: of more than 256 elements only the first 256 are reduced"},
    // ops/collectives.hpp: "Gathers every rank's `mine` into `all` on `root` (any rank), in rank order"
    {defect::gather_last_block_missing_5plus, "gather_last_block_missing_5plus", model::full, "gather: in groups of 5+, rank size()-1's block is not copied"},
    // ops/collectives.hpp: "Sends block r of `out` to rank r and receives rank r's block for this rank into block r of `in`"
    {defect::alltoall_tail_byte_odd_blocks, "alltoall_tail_byte_odd_blocks", model::full, "alltoall: for blocks of odd size, the last byte of each block is not copied"},
    // ops/process.hpp: "Reports the rank and `message` and stops every rank"
    {defect::abort_names_rank_plus_one, "abort_names_rank_plus_one", model::full, "abort: names rank()+1 (one-based), not the rank"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" + "Copies `root`'s bytes into every other rank's buffer"
    {defect::ibroadcast_from_rank_zero, "ibroadcast_from_rank_zero", model::full, "ibroadcast: always from rank 0, whatever the root"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" + "the element-wise sum over all ranks in every rank's `values`"
    {defect::iallreduce_sum_root_only, "iallreduce_sum_root_only", model::full, "iallreduce_sum: only rank 0 gets the sum; the others keep their values"},
    // concepts.hpp: "`test` never blocks: on an incomplete operation it returns nothing at once."
    {defect::ibarrier_test_blocks, "ibarrier_test_blocks", model::full, "test: of a pending ibarrier request waits until every rank entered"},
    // concepts.hpp: "Explicit progress: lets outstanding nonblocking operations advance without completing any request" / "Every message is delivered exactly once."
    {defect::progress_drops_unexpected, "progress_drops_unexpected", model::full, "progress: discards arrived messages no receive asked for yet"},
};
// clang-format on

constexpr bool is_base(const mutant& m) noexcept { return m.id == defect::none; }

}  // namespace held_out_4
