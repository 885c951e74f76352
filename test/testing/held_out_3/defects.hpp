// held_out_3/defects.hpp — the third, blind held-out set: deliberate defects of a transport, one
// switch each, and for each the ONE rule of comet/core/concepts.hpp (or core/types.hpp, or the
// contract of an operation in comet/ops/ the transport offers natively) that it breaks. The
// sentence of the rule is quoted above each row.
//
// Written from those rules alone, without reading the conformance checks. None repeats a defect
// of the first or second held-out set (test/testing/held_out/defects.hpp,
// test/testing/held_out_2/defects.hpp): where the rule is one they also break, it is broken in
// another member, another native operation, or under another condition. Most are narrow (past
// a size, for one rank, for the n-th call, with a wildcard, only when the receive is posted
// first, only for a message to oneself), as real authors' bugs are. Keep it held out.
//
// `model::core` is the eight core members only (comet::ops supplies the rest portably);
// `model::full` adds native bsend, ssend/issend, rsend/irsend, sendrecv, send, recv, wait,
// wait_all, barrier, broadcast, the allreduces and reductions, gather, alltoall, compute,
// clock_is_global, abort, the nonblocking collectives (ibarrier, ibroadcast, iallreduce_sum)
// and progress.
#pragma once

#include <string_view>

namespace held_out_3 {

enum class defect {
    none,
    // matching
    source_mod_4,
    any_tag_skips_tag_zero,
    reserved_tags_alias,
    max_tag_is_any,
    // receives matched in posting order
    posted_largest_buffer_first,
    // earliest match, non-overtaking
    empty_overtakes,
    seq_wrap_256,
    any_tag_repeats_last_tag,
    // wildcards into receives posted first
    posted_any_tag_low_tags,
    posted_any_source_misses_self,
    // status
    send_status_size_capped,
    self_recv_status_size_zero,
    any_source_status_last_sender,
    // probe
    iprobe_once,
    iprobe_skips_over_1mib,
    // truncation
    truncation_empty_buffer_silent,
    truncation_raised_late,
    // payload, buffer ownership, exactly once
    payload_chunks_swapped,
    self_send_borrowed,
    identical_deduplicated,
    // requests and test
    move_construct_drops,
    test_before_copy,
    test_waits_for_arrival,
    // rank() and size()
    size_power_of_two,
    rank_gray_code,
    // bad arguments
    isend_dest_wraps,
    irecv_negative_source_any,
    iprobe_bad_tag_out_of_range,
    // time
    now_recalibrates,
    // optional capabilities (model::full)
    bsend_self_waits,
    bsend_waits_past_16,
    issend_status_own_rank,
    issend_any_source_never,
    rsend_last_posted,
    sendrecv_self_deadlock,
    sendrecv_sends_recv_tag,
    send_native_large_borrowed,
    recv_native_status_buffer_size,
    wait_send_status_default,
    wait_all_keeps_requests,
    wait_all_empty_blocks,
    barrier_pair_free,
    broadcast_odd_last_byte,
    allreduce_sum_in_float,
    allreduce_max_first_1024,
    reduce_min_nonroot_zeroed,
    reduce_sum_root_ignores_own,
    gather_root_block_skipped,
    alltoall_blocks_by_sender,
    compute_busy_capped,
    ibarrier_rank0_at_once,
    ibroadcast_complete_before_data,
    iallreduce_sum_skips_last_rank,
    progress_blocks,
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
    {defect::source_mod_4, "source_mod_4", model::core, "matching: in groups of 5+, a named source is compared modulo 4 (a receive naming rank 0 takes rank 4's message)"},
    // concepts.hpp: "A receive names a source (or `any_source`) and a tag (or `any_tag`)" — any_tag matches a message of any tag (types.hpp)
    {defect::any_tag_skips_tag_zero, "any_tag_skips_tag_zero", model::core, "matching: an any_tag receive/probe never takes a tag-0 message (a named tag 0 still does)"},
    // concepts.hpp: "Every tag in 0..max_tag is distinct: none aliases another."
    {defect::reserved_tags_alias, "reserved_tags_alias", model::core, "tags: tags >= first_reserved_tag are compared without their low bit (32000 and 32001 alias)"},
    // concepts.hpp: "Every tag in 0..max_tag is distinct: none aliases another." (max_tag is a tag, not a wildcard)
    {defect::max_tag_is_any, "max_tag_is_any", model::core, "tags: a receive/probe naming max_tag matches every tag (max_tag used as an internal wildcard)"},
    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted."
    {defect::posted_largest_buffer_first, "posted_largest_buffer_first", model::core, "posted order: an arriving message goes to the matching posted receive with the largest buffer"},
    // concepts.hpp: "Messages between one pair of ranks with the same tag are never reordered (\"non-overtaking\")."
    {defect::empty_overtakes, "empty_overtakes", model::core, "non-overtaking: a zero-length message that nobody waits for yet goes ahead of waiting messages"},
    // concepts.hpp: "Messages between one pair of ranks with the same tag are never reordered (\"non-overtaking\")."
    {defect::seq_wrap_256, "seq_wrap_256", model::core, "non-overtaking: the 257th message from a sender (an 8-bit sequence number wraps) overtakes those waiting"},
    // concepts.hpp: "it matches the earliest-sent message from that source with that tag"
    {defect::any_tag_repeats_last_tag, "any_tag_repeats_last_tag", model::core, "earliest match: an any_tag receive takes a waiting message of the tag the rank last received, before earlier ones"},
    // concepts.hpp: "A receive names ... a tag (or `any_tag`); it matches the earliest-sent message" / "Every message is delivered exactly once."
    {defect::posted_any_tag_low_tags, "posted_any_tag_low_tags", model::core, "wildcards: a posted any_tag receive is never matched by a later-arriving message with tag >= 1024"},
    // concepts.hpp: "with `any_source`, that of whichever source it takes" — a message to oneself is one of them
    {defect::posted_any_source_misses_self, "posted_any_source_misses_self", model::core, "wildcards: a posted any_source receive is never matched by a later message the rank sends itself"},
    // concepts.hpp: "A completed send's status names its destination, tag and size."
    {defect::send_status_size_capped, "send_status_size_capped", model::core, "send status: size capped at 65536 for longer messages"},
    // types.hpp: "What a completed receive ... reports: who sent it, with which tag, and how many bytes it carried."
    {defect::self_recv_status_size_zero, "self_recv_status_size_zero", model::core, "receive status: a message to oneself reports size 0"},
    // types.hpp: "What a completed receive ... reports: who sent it"
    {defect::any_source_status_last_sender, "any_source_status_last_sender", model::core, "receive status: an any_source receive names the rank whose message arrived last, not its sender"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any; the message stays queued."
    {defect::iprobe_once, "iprobe_once", model::core, "probe: a message is reported by one iprobe only; the next iprobe skips it"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any"
    {defect::iprobe_skips_over_1mib, "iprobe_skips_over_1mib", model::core, "probe: iprobe passes over messages longer than 1 MiB"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error`"
    {defect::truncation_empty_buffer_silent, "truncation_empty_buffer_silent", model::core, "truncation: into an empty (zero-byte) buffer any message is accepted silently"},
    // concepts.hpp: "raises `truncation_error` (from the `test` that completes it)"
    {defect::truncation_raised_late, "truncation_raised_late", model::core, "truncation: the completing test returns a status; truncation_error comes from the rank's next test"},
    // concepts.hpp: "Every message is delivered exactly once." (its bytes as sent)
    {defect::payload_chunks_swapped, "payload_chunks_swapped", model::core, "payload: over 256 KiB, the last two 64 KiB pieces of a message are delivered swapped"},
    // concepts.hpp: "the buffer belongs to the transport until a successful `test` (or `wait`) completes it"
    {defect::self_send_borrowed, "self_send_borrowed", model::core, "buffers: an isend to oneself completes at once but reads the buffer only when received"},
    // concepts.hpp: "Every message is delivered exactly once."
    {defect::identical_deduplicated, "identical_deduplicated", model::core, "exactly once: a message identical to the sender's previous one still waiting is dropped as a duplicate"},
    // concepts.hpp: "using request = ...; movable, default-constructible"
    {defect::move_construct_drops, "move_construct_drops", model::core, "request move: move construction leaves the new request empty (the operation is lost)"},
    // concepts.hpp: "the buffer belongs to the transport until a successful `test` (or `wait`) completes it"
    {defect::test_before_copy, "test_before_copy", model::core, "completion: a receive of 4 KiB+ posted first completes before its bytes are copied (they land at the next call)"},
    // concepts.hpp: "`test` never blocks: on an incomplete operation it returns nothing at once."
    {defect::test_waits_for_arrival, "test_waits_for_arrival", model::core, "test: on a pending receive waits until some message arrives at the rank"},
    // concepts.hpp: "A transport is ONE rank's endpoint into a group of `size()` ranks."
    {defect::size_power_of_two, "size_power_of_two", model::core, "size(): rounded up to a power of two (a group of 3 says 4)"},
    // concepts.hpp: "A transport is ONE rank's endpoint into a group of `size()` ranks." (rank() is the rank others address)
    {defect::rank_gray_code, "rank_gray_code", model::core, "rank(): in groups of 3+, the Gray code of the node (thread 2 says 3, thread 3 says 2)"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument` naming the value and the rank."
    {defect::isend_dest_wraps, "isend_dest_wraps", model::core, "arguments: a destination >= size() wraps modulo size() instead of raising"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument`"
    {defect::irecv_negative_source_any, "irecv_negative_source_any", model::core, "arguments: irecv takes any negative source as any_source instead of raising"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument`"
    {defect::iprobe_bad_tag_out_of_range, "iprobe_bad_tag_out_of_range", model::core, "arguments: iprobe with a negative tag raises std::out_of_range, not invalid_argument"},
    // concepts.hpp: "`now()` returns seconds (any epoch, monotonic)"
    {defect::now_recalibrates, "now_recalibrates", model::core, "time: on its 1000th call now() restarts its epoch (jumps back)"},

    {defect::none, "base_full", model::full, "none: the correct transport with every optional member"},

    // concepts.hpp: "The promise is `bsend`'s: two ranks that both `bsend` and then receive always complete"
    {defect::bsend_self_waits, "bsend_self_waits", model::full, "bsend: to oneself, waits for the matching receive"},
    // concepts.hpp: "Buffered send: a send that never waits for the receiver to post a matching receive"
    {defect::bsend_waits_past_16, "bsend_waits_past_16", model::full, "bsend: waits to be matched while 16 earlier bsends to that rank are unreceived"},
    // concepts.hpp: "A completed send's status names its destination, tag and size."
    {defect::issend_status_own_rank, "issend_status_own_rank", model::full, "issend: the completed request's status names the sender, not the destination"},
    // concepts.hpp: "Synchronous send: completes only once the receiver has matched the message"
    {defect::issend_any_source_never, "issend_any_source_never", model::full, "issend/ssend: never completes when matched by an any_source receive"},
    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted."
    {defect::rsend_last_posted, "rsend_last_posted", model::full, "rsend/irsend: a ready message goes to the latest-posted matching receive"},
    // concepts.hpp: "Combined send and receive that cannot deadlock against a matching sendrecv (MPI_Sendrecv)."
    {defect::sendrecv_self_deadlock, "sendrecv_self_deadlock", model::full, "sendrecv: to oneself, sends synchronously before posting its receive (deadlocks)"},
    // concepts.hpp: "{ t.sendrecv(dest, send_tag, out, source, recv_tag, in) }"
    {defect::sendrecv_sends_recv_tag, "sendrecv_sends_recv_tag", model::full, "sendrecv: sends its message with recv_tag, not send_tag"},
    // ops/point_to_point.hpp: "Blocking send: returns once `data` may be reused"
    {defect::send_native_large_borrowed, "send_native_large_borrowed", model::full, "send: the native send of more than 64 KiB returns before the bytes are taken"},
    // ops/point_to_point.hpp: "Blocking receive into `buffer`; returns the message's status."
    {defect::recv_native_status_buffer_size, "recv_native_status_buffer_size", model::full, "recv: the native receive's status size is the buffer's size"},
    // concepts.hpp: "A completed send's status names its destination, tag and size." (through `wait`)
    {defect::wait_send_status_default, "wait_send_status_default", model::full, "wait: the native wait of a send returns a default status"},
    // ops/point_to_point.hpp: "Completes every request of `rs`." with "`test` on ... an already completed request returns a default `status`"
    {defect::wait_all_keeps_requests, "wait_all_keeps_requests", model::full, "wait_all: its requests stay filled, so a later test returns their status again"},
    // ops/point_to_point.hpp: "Completes every request of `rs`." (an empty span: nothing to wait for)
    {defect::wait_all_empty_blocks, "wait_all_empty_blocks", model::full, "wait_all: of zero requests blocks forever"},
    // ops/collectives.hpp: "Returns once every rank has entered the barrier."
    {defect::barrier_pair_free, "barrier_pair_free", model::full, "barrier: in a group of 2, rank 0 leaves without waiting for rank 1"},
    // ops/collectives.hpp: "Copies `root`'s bytes into every other rank's buffer of the same size."
    {defect::broadcast_odd_last_byte, "broadcast_odd_last_byte", model::full, "broadcast: of an odd number of bytes, the last byte is not copied"},
    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in every rank's `values`"
    {defect::allreduce_sum_in_float, "allreduce_sum_in_float", model::full, "allreduce_sum: accumulates in float (the sum loses what a double keeps)"},
    // ops/collectives.hpp: "Leaves the element-wise maximum over all ranks in every rank's `values`."
    {defect::allreduce_max_first_1024, "allreduce_max_first_1024", model::full, "allreduce_max: only the first 1024 elements are reduced"},
    // ops/collectives.hpp: "the other ranks' values are left as they were"
    {defect::reduce_min_nonroot_zeroed, "reduce_min_nonroot_zeroed", model::full, "reduce_min: non-root ranks' values are zeroed"},
    // ops/collectives.hpp: "Leaves the element-wise sum over all ranks in `root`'s `values`"
    {defect::reduce_sum_root_ignores_own, "reduce_sum_root_ignores_own", model::full, "reduce_sum: a root other than 0 leaves its own values out of the sum"},
    // ops/collectives.hpp: "Gathers every rank's `mine` into `all` on `root` (any rank), in rank order"
    {defect::gather_root_block_skipped, "gather_root_block_skipped", model::full, "gather: a root other than 0 does not copy its own block"},
    // ops/collectives.hpp: "receives rank r's block for this rank into block r of `in`"
    {defect::alltoall_blocks_by_sender, "alltoall_blocks_by_sender", model::full, "alltoall: takes block r of rank r's out (the sender's index), not this rank's block"},
    // ops/process.hpp: "Performs `w` (or, on a simulated machine, charges its time)."
    {defect::compute_busy_capped, "compute_busy_capped", model::full, "compute: busy work is capped at 50 ms"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" + "Returns once every rank has entered the barrier."
    {defect::ibarrier_rank0_at_once, "ibarrier_rank0_at_once", model::full, "ibarrier: rank 0's request completes at once"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones, completed through the returned request."
    {defect::ibroadcast_complete_before_data, "ibroadcast_complete_before_data", model::full, "ibroadcast: a non-root's request completes once the root entered, before the bytes are copied"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" + "the element-wise sum over all ranks"
    {defect::iallreduce_sum_skips_last_rank, "iallreduce_sum_skips_last_rank", model::full, "iallreduce_sum: leaves out rank size()-1's values"},
    // concepts.hpp: "Explicit progress: lets outstanding nonblocking operations advance without completing any request (what a test call ... does)"
    {defect::progress_blocks, "progress_blocks", model::full, "progress: waits until a message arrives at the rank (test never blocks; neither may progress)"},
};
// clang-format on

constexpr bool is_base(const mutant& m) noexcept { return m.id == defect::none; }

}  // namespace held_out_3
