// held_out_10/defects.hpp — the tenth held-out set: 48 deliberately broken transports, each the
// correct mailbox transport (mailbox.hpp, world.hpp) with exactly one defect switched on. Written
// from the contracts alone (core/concepts.hpp, core/types.hpp, ops/), without reading the suite.
// Above each row: the sentence of the contract it breaks. Each row's witness (witnesses_10.hpp)
// fails on it and passes on both correct transports.
#pragma once

#include <string_view>

namespace held_out_10 {

enum class defect {
    none,
    // core model
    any_tag_literal_on_posted,
    any_source_skips_self,
    any_tag_lowest_tag_first,
    tag_bucket_mod_4096,
    max_tag_rejected,
    small_overtakes_large,
    posted_receives_lifo,
    truncation_slack_8_bytes,
    short_recv_size_is_buffer,
    short_recv_zero_fills_tail,
    test_waits_500ms,
    send_status_source_self,
    test_default_request_nullopt,
    test_completed_request_stale,
    zero_length_isend_dropped,
    truncated_message_requeued,
    isend_flushed_only_by_its_test,
    iprobe_any_source_requeues_at_back,
    iprobe_positive_cache_stale,
    now_milliseconds,
    dest_range_off_by_one,
    rank_one_based,
    large_message_rejected,
    // full model
    send_zero_copy_large,
    send_rendezvous_past_1mib,
    recv_status_tag_as_requested,
    recv_zero_length_fast_path,
    wait_completed_stale,
    wait_all_skips_sends,
    bsend_pool_64k_falls_back,
    issend_ack_on_arrival,
    rsend_wildcard_receive_not_found,
    sendrecv_large_send_first,
    barrier_dissemination_floor_log2,
    broadcast_root_zero_only,
    broadcast_drops_partial_chunk,
    allreduce_sum_ring_own_first,
    allreduce_max_init_numeric_min,
    allreduce_min_as_float,
    reduce_sum_nonroot_partial,
    reduce_max_root_excluded,
    gather_root_block_first,
    alltoall_own_block_skipped,
    ibarrier_completes_at_start,
    progress_waits_for_completion,
    compute_busy_skipped,
    clock_epoch_first_call,
    abort_message_64_bytes,
};

enum class model { core, full };

struct mutant {
    defect id;
    std::string_view name;
    model on;
    std::string_view rule;  ///< the rule broken, short (the table's column)
    std::string_view what;  ///< the defect
};

inline constexpr mutant mutants[] = {
    {defect::none, "correct_core", model::core, "-", "the correct transport, core members only"},
    {defect::none, "correct_full", model::full, "-", "the correct transport, every native member"},

    // ---- core ------------------------------------------------------------------------------
    // "A receive names a source (or `any_source`) and a tag (or `any_tag`)"
    {defect::any_tag_literal_on_posted, "any_tag_literal_on_posted", model::core, "matching: any_tag",
     "a message arriving for an already posted receive compares the tag literally, so a posted any_tag receive never matches"},
    // "A receive names a source (or `any_source`) ... Matches a message from any sender" (types.hpp any_source)
    {defect::any_source_skips_self, "any_source_skips_self", model::core, "matching: any_source",
     "any_source looks only at the other ranks' messages: a message to oneself is never matched by it"},
    // "it matches the earliest-sent message from that source with that tag"
    {defect::any_tag_lowest_tag_first, "any_tag_lowest_tag_first", model::core, "matching: earliest-sent",
     "queued messages kept by tag: an any_tag receive takes the lowest tag rather than the earliest message"},
    // "Every tag in 0..max_tag is distinct: none aliases another."
    {defect::tag_bucket_mod_4096, "tag_bucket_mod_4096", model::core, "tags distinct",
     "tags hashed into 4096 buckets and compared by bucket: tag t and t+4096 alias"},
    // "The largest tag every transport must accept" (types.hpp max_tag)
    {defect::max_tag_rejected, "max_tag_rejected", model::core, "max_tag accepted",
     "tag check uses >= max_tag: max_tag itself raises invalid_argument"},
    // "Messages between one pair of ranks with the same tag are never reordered (\"non-overtaking\")."
    {defect::small_overtakes_large, "small_overtakes_large", model::core, "non-overtaking",
     "the eager queue (<= 1 KiB) is searched before the rendezvous queue (> 64 KiB): a small message overtakes a large one"},
    // "Receives posted with `irecv` are matched in the order they were posted."
    {defect::posted_receives_lifo, "posted_receives_lifo", model::core, "posted order",
     "posted receives searched newest first"},
    // "A message larger than the matched receive buffer raises `truncation_error`"
    {defect::truncation_slack_8_bytes, "truncation_slack_8_bytes", model::core, "truncation raised",
     "the size check rounds the buffer up to 8 bytes: up to 7 bytes too many are cut silently"},
    // "a smaller one fills a prefix and `status::size` says how much."
    {defect::short_recv_size_is_buffer, "short_recv_size_is_buffer", model::core, "short message size",
     "a short message's status::size is the buffer's size"},
    // "a smaller one fills a prefix"
    {defect::short_recv_zero_fills_tail, "short_recv_zero_fills_tail", model::core, "short message fills prefix",
     "the receive buffer is cleared before the copy: the bytes past a short message are zeroed"},
    // "`test` never blocks: on an incomplete operation it returns nothing at once."
    {defect::test_waits_500ms, "test_waits_500ms", model::core, "test never blocks",
     "test on a pending receive waits up to 500 ms for it before answering"},
    // "A completed send's status names its destination, tag and size."
    {defect::send_status_source_self, "send_status_source_self", model::core, "send status",
     "a completed send's status names the sender (this rank) instead of the destination"},
    // "`test` on a default-constructed or already completed request returns a default `status` at once."
    {defect::test_default_request_nullopt, "test_default_request_nullopt", model::core, "test on empty request",
     "test on a default-constructed request returns nothing (\"not complete\")"},
    // "`test` on a default-constructed or already completed request returns a default `status` at once."
    {defect::test_completed_request_stale, "test_completed_request_stale", model::core, "test on completed request",
     "a completed request keeps its status, and test returns it again"},
    // "Every message is delivered exactly once."
    {defect::zero_length_isend_dropped, "zero_length_isend_dropped", model::core, "delivered exactly once",
     "isend of zero bytes completes without sending anything"},
    // "Every message is delivered exactly once."
    {defect::truncated_message_requeued, "truncated_message_requeued", model::core, "delivered exactly once",
     "a truncated message is put back at the front of the queue for a retry (and the error raised too)"},
    // "A rank polling `test` or `iprobe` lets every other rank's operations progress; an operation of
    //  this rank may need this rank to call into the transport again before it completes."
    {defect::isend_flushed_only_by_its_test, "isend_flushed_only_by_its_test", model::core, "progress",
     "an isend's message goes out only when its own request is tested (or destroyed), not on other calls"},
    // "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any;
    //  the message stays queued."
    {defect::iprobe_any_source_requeues_at_back, "iprobe_any_source_requeues_at_back", model::core, "probe: message stays queued",
     "iprobe(any_source) takes the message out to look at it and puts it back at the end of the queue"},
    // "`iprobe` is nonblocking: the status of the earliest matching message that has arrived, if any"
    {defect::iprobe_positive_cache_stale, "iprobe_positive_cache_stale", model::core, "probe: has arrived",
     "iprobe caches its last hit per (source, tag), invalidated by new arrivals but not by receives"},
    // "`now()` returns seconds (any epoch, monotonic)"
    {defect::now_milliseconds, "now_milliseconds", model::core, "now in seconds",
     "now() returns milliseconds"},
    // "Bad arguments (a rank out of range, a negative tag) raise `invalid_argument`"
    {defect::dest_range_off_by_one, "dest_range_off_by_one", model::core, "invalid_argument",
     "the rank check is r > size(): rank size() is accepted (and the message lost)"},
    // "A transport is ONE rank's endpoint into a group of `size()` ranks."
    {defect::rank_one_based, "rank_one_based", model::core, "rank in 0..size-1",
     "rank() numbers the ranks from 1, as the host file does"},
    // "The largest message every transport must accept: MPI counts are `int`." (types.hpp max_message_size)
    {defect::large_message_rejected, "large_message_rejected", model::core, "max_message_size accepted",
     "a message over the 8 MiB eager pool raises invalid_argument"},

    // ---- full ------------------------------------------------------------------------------
    // "Blocking send: returns once `data` may be reused"
    {defect::send_zero_copy_large, "send_zero_copy_large", model::full, "send: buffer reusable",
     "a native send over 256 KiB to a rank with no receive posted keeps a pointer to the caller's buffer and copies at match time"},
    // "A transport whose `bsend` is how all its sends behave: the system buffers every message"
    {defect::send_rendezvous_past_1mib, "send_rendezvous_past_1mib", model::full, "buffering transport",
     "a native send over 1 MiB waits for its receive, though the transport says every send is buffered"},
    // "Blocking receive into `buffer`; returns the message's status."
    {defect::recv_status_tag_as_requested, "recv_status_tag_as_requested", model::full, "recv status",
     "the native recv's status carries the tag asked for (any_tag) instead of the message's"},
    // "Blocking receive into `buffer`; returns the message's status."
    {defect::recv_zero_length_fast_path, "recv_zero_length_fast_path", model::full, "recv",
     "a native recv into an empty buffer returns at once once a match is queued, without consuming it"},
    // "Completes a request; a default-constructed or completed one returns a default status."
    {defect::wait_completed_stale, "wait_completed_stale", model::full, "wait on completed request",
     "the native wait keeps the status in the request and returns it again on a completed one"},
    // "Completes every request of `rs`."
    {defect::wait_all_skips_sends, "wait_all_skips_sends", model::full, "wait_all completes all",
     "the native wait_all completes only the receives, taking sends as done already"},
    // "two ranks that both `bsend` and then receive always complete"
    {defect::bsend_pool_64k_falls_back, "bsend_pool_64k_falls_back", model::full, "bsend never waits",
     "bsend over the 64 KiB buffer pool falls back to a synchronous send"},
    // "Synchronous send: completes only once the receiver has matched the message"
    {defect::issend_ack_on_arrival, "issend_ack_on_arrival", model::full, "ssend completes at match",
     "the synchronous send's acknowledgement is sent when the message arrives, not when it is matched"},
    // "Ready send: the caller promises the matching receive is already posted"
    {defect::rsend_wildcard_receive_not_found, "rsend_wildcard_receive_not_found", model::full, "rsend with receive posted",
     "the ready path looks the posted receive up by exact (source, tag): a posted any_source receive is not found and rsend raises"},
    // "Combined send and receive that cannot deadlock against a matching sendrecv"
    {defect::sendrecv_large_send_first, "sendrecv_large_send_first", model::full, "sendrecv no deadlock",
     "sendrecv over 64 KiB does a synchronous send before posting its receive"},
    // "Returns once every rank has entered the barrier."
    {defect::barrier_dissemination_floor_log2, "barrier_dissemination_floor_log2", model::full, "barrier",
     "dissemination barrier with floor(log2 size) rounds: right only for powers of two"},
    // "Copies `root`'s bytes into every other rank's buffer of the same size."
    {defect::broadcast_root_zero_only, "broadcast_root_zero_only", model::full, "broadcast",
     "the tree's relative ranks are not shifted back by the root: the data always comes from rank 0"},
    // "Copies `root`'s bytes into every other rank's buffer of the same size."
    {defect::broadcast_drops_partial_chunk, "broadcast_drops_partial_chunk", model::full, "broadcast",
     "broadcast over 64 KiB is pipelined in 64 KiB chunks and the last partial chunk is not sent"},
    // "Leaves the element-wise sum over all ranks in every rank's `values`, the same bits on every rank."
    {defect::allreduce_sum_ring_own_first, "allreduce_sum_ring_own_first", model::full, "allreduce_sum same bits",
     "each rank adds in ring order starting from its own value: inexact sums differ between ranks"},
    // "Leaves the element-wise maximum over all ranks in every rank's `values`."
    {defect::allreduce_max_init_numeric_min, "allreduce_max_init_numeric_min", model::full, "allreduce_max",
     "the maximum starts from numeric_limits<double>::min() (the smallest positive): all-negative inputs give it"},
    // "Leaves the element-wise minimum over all ranks in every rank's `values`."
    {defect::allreduce_min_as_float, "allreduce_min_as_float", model::full, "allreduce_min",
     "the min/max wire format is float: the minimum comes back rounded to single precision"},
    // "Leaves the element-wise sum over all ranks in `root`'s `values`; the other ranks' values are left as they were."
    {defect::reduce_sum_nonroot_partial, "reduce_sum_nonroot_partial", model::full, "reduce: others unchanged",
     "in-place tree reduction: a non-root rank is left with its subtree's partial sum"},
    // "Leaves the element-wise maximum over all ranks in `root`'s `values`"
    {defect::reduce_max_root_excluded, "reduce_max_root_excluded", model::full, "reduce_max",
     "the root combines the others' values and forgets its own"},
    // "Gathers every rank's `mine` into `all` on `root` (any rank), in rank order"
    {defect::gather_root_block_first, "gather_root_block_first", model::full, "gather rank order",
     "the root puts its own block first, then the others in rank order"},
    // "(this rank's own block is copied)"
    {defect::alltoall_own_block_skipped, "alltoall_own_block_skipped", model::full, "alltoall own block",
     "alltoall exchanges with every other rank and never copies its own block"},
    // "Nonblocking collectives ...: same contracts as the blocking ones, completed through the returned request."
    {defect::ibarrier_completes_at_start, "ibarrier_completes_at_start", model::full, "nonblocking collectives",
     "ibarrier's request is complete as soon as this rank has entered"},
    // "Explicit progress: lets outstanding nonblocking operations advance without completing any request"
    {defect::progress_waits_for_completion, "progress_waits_for_completion", model::full, "progress",
     "progress() waits (up to 1 s) until one of this rank's pending receives completes"},
    // "Performs `w` (or, on a simulated machine, charges its time)."
    {defect::compute_busy_skipped, "compute_busy_skipped", model::full, "compute",
     "compute treats busy work as simulated and returns at once"},
    // "Whether two ranks' `now()` readings can be compared directly."
    {defect::clock_epoch_first_call, "clock_epoch_first_call", model::full, "clock_is_global",
     "each rank's clock starts at its first now() call, while clock_is_global() says true"},
    // "Reports the rank and `message` and stops every rank (CoMet's error_exit)."
    {defect::abort_message_64_bytes, "abort_message_64_bytes", model::full, "abort reports message",
     "abort's message goes through a fixed 64-byte packet and is cut"},
};

constexpr bool is_base(const mutant& m) noexcept { return m.id == defect::none; }

}  // namespace held_out_10
