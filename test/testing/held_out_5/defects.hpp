// held_out_5/defects.hpp — the fifth, blind held-out set: deliberate defects of a transport, one
// switch each, and for each the ONE rule of comet/core/concepts.hpp (or core/types.hpp, or the
// contract of an operation in comet/ops/ the transport offers natively) that it breaks. The
// sentence of the rule is quoted above each row.
//
// Written from those rules alone, without reading the conformance checks. None repeats a defect
// of the earlier held-out sets (test/testing/held_out*/defects.hpp): where the rule is one they
// also break, it is broken in another member, another native operation, or under another
// condition. Most are bugs a transport author writes: an eager/rendezvous threshold (64 KiB)
// handled off by one or on one path only, a scan that starts or stops one place early, a cache
// or a scratch buffer that carries state from one operation to the next, a mask or a loop bound
// that is right only for power-of-two groups, a fixed-size ring that wraps, a fast lane that
// overtakes. Many fire only after a few messages, in some group sizes, or in one combination of
// wildcards. Keep it held out.
//
// `model::core` is the eight core members only (comet::ops supplies the rest portably);
// `model::full` adds native bsend, ssend/issend, rsend/irsend, sendrecv, send, recv, wait,
// wait_all, barrier, broadcast, the allreduces and reductions, gather, alltoall, compute,
// clock_is_global, abort, the nonblocking collectives (ibarrier, ibroadcast, iallreduce_sum)
// and progress.
#pragma once

#include <string_view>

namespace held_out_5 {

enum class defect {
    none,
    // status
    empty_isend_default_status,
    rendezvous_size_page_rounded,
    status_source_masked,
    size_high_water_by_buffer,
    // probe
    iprobe_size_of_queue_head,
    iprobe_scan_starts_second,
    iprobe_moves_to_back,
    iprobe_scan_limit_64,
    iprobe_any_source_bitmask_8,
    // matching, wildcards, order
    posted_skips_too_small,
    any_tag_round_robin,
    any_source_sticky_after_probe,
    irecv_skips_queue_when_posted,
    posted_ring_32_overwrites,
    empty_short_header_tag_8bit,
    // truncation
    truncated_requeued,
    truncation_drops_next,
    truncation_large_silent,
    truncation_flag_sticky,
    // payload, exactly once
    segment_tail_from_previous,
    eager_staging_shared,
    threshold_exact_size_lost,
    // requests, test, progress
    test_completion_by_key,
    test_backoff_sleep,
    rendezvous_progress_own_request,
    // bad arguments
    irecv_any_source_tag_unchecked,
    isend_self_tag_unchecked,
    error_rank_is_peer,
    // optional capabilities (model::full)
    bsend_ring_overwrites,
    bsend_overtakes_isend,
    issend_empty_early,
    issend_ack_completes_oldest,
    rsend_status_size_room,
    sendrecv_send_to_source,
    recv_native_empty_stale_size,
    wait_truncation_rewrapped,
    wait_all_stops_at_empty,
    barrier_dissemination_floor_log2,
    broadcast_repeat_cached,
    allreduce_min_int_bits,
    reduce_min_from_root_up,
    gather_rotated_by_root,
    alltoall_xor_schedule_non_pow2,
    abort_message_cut_64,
    ibroadcast_root_early_borrowed,
    iallreduce_scratch_not_reset,
    progress_completes_requests,
    progress_sorts_by_tag,
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

    // concepts.hpp: "A completed send's status names its destination, tag and size."
    {defect::empty_isend_default_status, "empty_isend_default_status", model::core, "send status: a completed isend of zero bytes (a header-only fast path) reports a default status"},
    // concepts.hpp: "a smaller one fills a prefix and `status::size` says how much."
    {defect::rendezvous_size_page_rounded, "rendezvous_size_page_rounded", model::core, "prefix: a message over 64 KiB into a larger buffer reports its size rounded up to 4 KiB pages"},
    // types.hpp: "What a completed receive (or a probe) reports: who sent it, with which tag, and how many bytes it carried."
    {defect::status_source_masked, "status_source_masked", model::core, "receive status: the source is decoded with the mask size()-1, wrong in groups whose size is not a power of two"},
    // concepts.hpp: "a smaller one fills a prefix and `status::size` says how much."
    {defect::size_high_water_by_buffer, "size_high_water_by_buffer", model::core, "receive status: the size comes from a cache keyed by the buffer's address (its high-water mark), so a shorter message into a reused buffer reports the longer one's size"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any"
    {defect::iprobe_size_of_queue_head, "iprobe_size_of_queue_head", model::core, "probe status: the size is read from the head of the sender's queue, not from the message found"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any"
    {defect::iprobe_scan_starts_second, "iprobe_scan_starts_second", model::core, "probe: with two or more messages waiting at the rank, the scan starts at the second (the earliest is never reported)"},
    // concepts.hpp: "Messages between one pair of ranks with the same tag are never reordered (\"non-overtaking\")."
    {defect::iprobe_moves_to_back, "iprobe_moves_to_back", model::core, "non-overtaking: an iprobe naming a tag moves the message it reports to the back of the queue"},
    // concepts.hpp: "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any"
    {defect::iprobe_scan_limit_64, "iprobe_scan_limit_64", model::core, "probe: iprobe looks at the first 64 waiting messages only; a match deeper in the queue is not reported"},
    // types.hpp: "Matches a message from any sender in `recv`, `irecv` and `probe`"
    {defect::iprobe_any_source_bitmask_8, "iprobe_any_source_bitmask_8", model::core, "probe: an any_source iprobe consults an 8-bit arrival mask, so in groups of 9+ it never reports ranks 8 and above"},
    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted."
    {defect::posted_skips_too_small, "posted_skips_too_small", model::core, "posted order: an arriving message skips posted receives too small for it and goes to the first that fits"},
    // concepts.hpp: "it matches the earliest-sent message from that source with that tag"
    {defect::any_tag_round_robin, "any_tag_round_robin", model::core, "earliest match: after an any_tag receive took tag T, the next one takes the next higher tag waiting (fair round robin), not the earliest sent"},
    // types.hpp: "Matches a message from any sender in `recv`, `irecv` and `probe`"
    {defect::any_source_sticky_after_probe, "any_source_sticky_after_probe", model::core, "wildcards: an any_source iprobe reserves the source it reported for the next any_source receive, which then takes nothing else"},
    // concepts.hpp: "it matches the earliest-sent message from that source with that tag"
    {defect::irecv_skips_queue_when_posted, "irecv_skips_queue_when_posted", model::core, "matching: while another receive is posted, irecv does not look at the waiting messages (it waits for a new one)"},
    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted."
    {defect::posted_ring_32_overwrites, "posted_ring_32_overwrites", model::core, "posted receives: a ring of 32; the 33rd pending receive overwrites the oldest, which never completes"},
    // concepts.hpp: "Every tag in 0..max_tag is distinct: none aliases another."
    {defect::empty_short_header_tag_8bit, "empty_short_header_tag_8bit", model::core, "tags: a zero-length message travels in a short header with an 8-bit tag (tag 300 arrives as 44)"},
    // concepts.hpp: "Every message is delivered exactly once."
    {defect::truncated_requeued, "truncated_requeued", model::core, "exactly once: a message that raised truncation_error is put back at the front of the queue and delivered again"},
    // concepts.hpp: "Every message is delivered exactly once."
    {defect::truncation_drops_next, "truncation_drops_next", model::core, "exactly once: after a truncation the next message from that sender to the rank is discarded (stream resync)"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error` (from the `test` that completes it)"
    {defect::truncation_large_silent, "truncation_large_silent", model::core, "truncation: a message over 64 KiB (rendezvous path) is cut to the buffer silently"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error` (from the `test` that completes it)"
    {defect::truncation_flag_sticky, "truncation_flag_sticky", model::core, "truncation: after one truncation the rank's next completed receive raises truncation_error too (the flag is cleared late)"},
    // concepts.hpp: "Every message is delivered exactly once." (its bytes as sent)
    {defect::segment_tail_from_previous, "segment_tail_from_previous", model::core, "payload: over 64 KiB, when the size is not a multiple of 64 KiB, the last partial segment is copied from the previous segment's offset"},
    // concepts.hpp: "Every message is delivered exactly once." (its bytes as sent)
    {defect::eager_staging_shared, "eager_staging_shared", model::core, "payload: messages of 1..64 bytes share one staging buffer per sender, so a second one overwrites the bytes of a first still unreceived"},
    // concepts.hpp: "Every message is delivered exactly once."
    {defect::threshold_exact_size_lost, "threshold_exact_size_lost", model::core, "exactly once: a message of exactly 64 KiB (neither eager < 64 KiB nor rendezvous > 64 KiB) is dropped"},
    // concepts.hpp: "Receives posted with `irecv` are matched in the order they were posted."
    {defect::test_completion_by_key, "test_completion_by_key", model::core, "completion: test of a pending receive reports the completion of an earlier receive with the same source and tag (looked up by key)"},
    // concepts.hpp: "`test` never blocks: on an incomplete operation it returns nothing at once."
    {defect::test_backoff_sleep, "test_backoff_sleep", model::core, "test: after 1000 polls of one pending request, each further test sleeps 50 ms (back-off)"},
    // concepts.hpp: "A rank polling `test` or `iprobe` lets every other rank's operations progress"
    {defect::rendezvous_progress_own_request, "rendezvous_progress_own_request", model::core, "progress: an isend over 64 KiB to another rank moves its bytes only when the sender tests that send request"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument` naming the value and the rank."
    {defect::irecv_any_source_tag_unchecked, "irecv_any_source_tag_unchecked", model::core, "arguments: irecv checks the tag only when the source is named (any_source with a negative tag is accepted)"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument` naming the value and the rank."
    {defect::isend_self_tag_unchecked, "isend_self_tag_unchecked", model::core, "arguments: an isend to oneself (loopback fast path) accepts a negative tag"},
    // concepts.hpp: "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument` naming the value and the rank."
    {defect::error_rank_is_peer, "error_rank_is_peer", model::core, "arguments: irecv's and iprobe's error for a bad source names the bad source as the rank, not the calling rank"},

    {defect::none, "base_full", model::full, "none: the correct transport with every optional member"},

    // concepts.hpp: "The promise is `bsend`'s: two ranks that both `bsend` and then receive always complete" / "Every message is delivered exactly once."
    {defect::bsend_ring_overwrites, "bsend_ring_overwrites", model::full, "bsend: copies into a 256 KiB ring per sender; once it wraps, an unreceived earlier message's bytes are overwritten"},
    // concepts.hpp: "Messages between one pair of ranks with the same tag are never reordered (\"non-overtaking\")."
    {defect::bsend_overtakes_isend, "bsend_overtakes_isend", model::full, "bsend: its messages take a fast lane ahead of the sender's waiting isend/send messages"},
    // concepts.hpp: "Synchronous send: completes only once the receiver has matched the message"
    {defect::issend_empty_early, "issend_empty_early", model::full, "issend/ssend: of zero bytes completes at once (no handshake for an empty message)"},
    // concepts.hpp: "Synchronous send: completes only once the receiver has matched the message"
    {defect::issend_ack_completes_oldest, "issend_ack_completes_oldest", model::full, "issend/ssend: a match acknowledgement completes the sender's oldest outstanding issend to that rank, not the one matched"},
    // concepts.hpp: "a smaller one fills a prefix and `status::size` says how much."
    {defect::rsend_status_size_room, "rsend_status_size_room", model::full, "rsend/irsend: the receive a ready message completes reports the buffer's size"},
    // concepts.hpp: "Combined send and receive that cannot deadlock against a matching sendrecv (MPI_Sendrecv)." (sends to `dest`)
    {defect::sendrecv_send_to_source, "sendrecv_send_to_source", model::full, "sendrecv: sends to `source` (right when they are equal, wrong in a ring shift)"},
    // ops/point_to_point.hpp: "Blocking receive into `buffer`; returns the message's status."
    {defect::recv_native_empty_stale_size, "recv_native_empty_stale_size", model::full, "recv: the native receive of a zero-length message reports the size of the previous one"},
    // concepts.hpp: "A message larger than the matched receive buffer raises `truncation_error` (from the `test` that completes it)" (or `wait`)
    {defect::wait_truncation_rewrapped, "wait_truncation_rewrapped", model::full, "wait: a truncation is rethrown as comet::error with context (not truncation_error)"},
    // ops/point_to_point.hpp: "Completes every request of `rs`."
    {defect::wait_all_stops_at_empty, "wait_all_stops_at_empty", model::full, "wait_all: stops at the first empty request, as at the end of a list"},
    // ops/collectives.hpp: "Returns once every rank has entered the barrier."
    {defect::barrier_dissemination_floor_log2, "barrier_dissemination_floor_log2", model::full, "barrier: dissemination with floor(log2 p) rounds, so in groups not a power of two a rank waits for some ranks only"},
    // ops/collectives.hpp: "Copies `root`'s bytes into every other rank's buffer of the same size."
    {defect::broadcast_repeat_cached, "broadcast_repeat_cached", model::full, "broadcast: a repeat from the same root into the same buffer is assumed cached and not copied"},
    // ops/collectives.hpp: "Leaves the element-wise minimum over all ranks in every rank's `values`."
    {defect::allreduce_min_int_bits, "allreduce_min_int_bits", model::full, "allreduce_min: compares the doubles' bits as int64 (wrong between negative values)"},
    // ops/collectives.hpp: "Leaves the element-wise minimum over all ranks in `root`'s `values`"
    {defect::reduce_min_from_root_up, "reduce_min_from_root_up", model::full, "reduce_min: the root combines ranks root..size()-1 only"},
    // ops/collectives.hpp: "Gathers every rank's `mine` into `all` on `root` (any rank), in rank order"
    {defect::gather_rotated_by_root, "gather_rotated_by_root", model::full, "gather: blocks in order relative to the root (rank r at (r - root) mod p)"},
    // ops/collectives.hpp: "Sends block r of `out` to rank r and receives rank r's block for this rank into block r of `in`, for every r"
    {defect::alltoall_xor_schedule_non_pow2, "alltoall_xor_schedule_non_pow2", model::full, "alltoall: pairwise XOR schedule over k < p instead of k < next power of two, so groups not a power of two miss blocks"},
    // ops/process.hpp: "Reports the rank and `message` and stops every rank (CoMet's error_exit)."
    {defect::abort_message_cut_64, "abort_message_cut_64", model::full, "abort: the message is cut to 63 characters (a fixed buffer)"},
    // concepts.hpp: "the buffer belongs to the transport until a successful `test` (or `wait`) completes it" + "Nonblocking collectives ...: same contracts as the blocking ones"
    {defect::ibroadcast_root_early_borrowed, "ibroadcast_root_early_borrowed", model::full, "ibroadcast: the root's request completes at once, but its bytes are read when the last rank joins"},
    // concepts.hpp: "Nonblocking collectives ...: same contracts as the blocking ones" + ops: "Leaves the element-wise sum over all ranks in every rank's `values`"
    {defect::iallreduce_scratch_not_reset, "iallreduce_scratch_not_reset", model::full, "iallreduce_sum: the scratch sum is zeroed only when its length changes, so a second call of the same length adds the first's result"},
    // concepts.hpp: "Explicit progress: lets outstanding nonblocking operations advance without completing any request"
    {defect::progress_completes_requests, "progress_completes_requests", model::full, "progress: completes requests whose operation finished, so their later test returns a default status"},
    // concepts.hpp: "it matches the earliest-sent message from that source with that tag" + "Explicit progress: lets outstanding nonblocking operations advance"
    {defect::progress_sorts_by_tag, "progress_sorts_by_tag", model::full, "progress: re-files the waiting messages by tag, so a later any_tag receive takes the lowest tag, not the earliest sent"},
};
// clang-format on

constexpr bool is_base(const mutant& m) noexcept { return m.id == defect::none; }

}  // namespace held_out_5
