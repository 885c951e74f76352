// held_out_2/defects.hpp — the second, blind held-out set: deliberate defects of a transport, one
// switch each, and for each the ONE rule of comet/core/concepts.hpp (or core/types.hpp, or the
// contract of an operation in comet/ops/ the transport offers natively) that it breaks.
//
// Written from those rules alone, without reading the conformance checks, and none repeats a
// defect of the first held-out set (test/testing/held_out/defects.hpp). Keep it held out.
//
// `model::core` is the eight core members only (comet::ops supplies the rest portably);
// `model::full` adds native bsend, ssend/issend, rsend/irsend, sendrecv, send, recv, wait,
// wait_all, barrier, broadcast, the allreduces and reductions, gather, alltoall, compute,
// clock_is_global and abort.
#pragma once

#include <string_view>

namespace held_out_2 {

enum class defect {
    none,
    // matching
    tag_14_bits,
    any_tag_skips_reserved,
    any_source_skips_last_rank,
    tag_zero_is_wildcard,
    source_zero_is_wildcard,
    // earliest match, non-overtaking
    double_wildcard_latest,
    any_source_smallest_first,
    self_lifo,
    // loss and duplication
    unexpected_overflow_lost,
    lost_past_posted_mismatch,
    two_posted_both_complete,
    // probe
    iprobe_source_wildcard,
    iprobe_misses_self,
    iprobe_ignores_tag,
    iprobe_skips_empty,
    iprobe_sees_matched,
    probe_size_header,
    // receive buffers and payload
    truncation_only_unexpected,
    size_rounded_up_8,
    short_prefix_one_less,
    unexpected_tail_zeroed,
    // status
    send_status_tag_zero,
    posted_status_own_rank,
    // requests and completion
    test_default_throws,
    move_assign_drops,
    test_raises_when_done,
    // progress
    test_does_not_progress,
    // bad arguments
    irecv_negative_tag_wildcard,
    negative_dest_self,
    error_rank_zero,
    error_value_missing,
    max_tag_rejected,
    // time
    now_cpu_time,
    // optional capabilities (model::full)
    bsend_borrows,
    ssend_posted_never,
    rsend_any_source_lost,
    sendrecv_ignores_recv_tag,
    barrier_third_free,
    broadcast_skips_last_rank,
    allreduce_max_from_zero,
    allreduce_sum_skips_last,
    reduce_sum_writes_all,
    reduce_max_root_zero,
    gather_pads_blocks,
    alltoall_own_block_skipped,
    abort_wrong_type,
    abort_drops_message,
    wait_all_skips_last,
    wait_default_blocks,
    recv_native_ignores_source,
    compute_half,
    send_native_tag_zero,
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
    {defect::tag_14_bits, "tag_14_bits", model::core, "matching: tags compared by their low 14 bits (tag 16389 matches a receive for 5)"},
    {defect::any_tag_skips_reserved, "any_tag_skips_reserved", model::core, "matching: an any_tag receive/probe never takes tags >= first_reserved_tag (32000)"},
    {defect::any_source_skips_last_rank, "any_source_skips_last_rank", model::core, "matching: in groups of 3+, an any_source receive/probe never takes rank size()-1's messages"},
    {defect::tag_zero_is_wildcard, "tag_zero_is_wildcard", model::core, "matching: a receive/probe naming tag 0 matches every tag (0 confused with a wildcard)"},
    {defect::source_zero_is_wildcard, "source_zero_is_wildcard", model::core, "matching: a receive/probe naming source 0 matches every source"},
    {defect::double_wildcard_latest, "double_wildcard_latest", model::core, "earliest match: an any_source+any_tag receive takes the latest-arrived message"},
    {defect::any_source_smallest_first, "any_source_smallest_first", model::core, "non-overtaking: an any_source receive takes the smallest waiting match, even from one sender"},
    {defect::self_lifo, "self_lifo", model::core, "non-overtaking: messages a rank sent itself are received newest first"},
    {defect::unexpected_overflow_lost, "unexpected_overflow_lost", model::core, "exactly once: a message arriving while 64 unreceived ones wait at the rank is dropped"},
    {defect::lost_past_posted_mismatch, "lost_past_posted_mismatch", model::core, "exactly once: a message arriving while only non-matching receives are posted is dropped"},
    {defect::two_posted_both_complete, "two_posted_both_complete", model::core, "exactly once: a message completes every matching posted receive, not only the first"},
    {defect::iprobe_source_wildcard, "iprobe_source_wildcard", model::core, "probe status: an any_source iprobe reports source any_source"},
    {defect::iprobe_misses_self, "iprobe_misses_self", model::core, "probe: iprobe never reports a message the rank sent itself"},
    {defect::iprobe_ignores_tag, "iprobe_ignores_tag", model::core, "probe: iprobe naming a tag reports the source's earliest message of any tag"},
    {defect::iprobe_skips_empty, "iprobe_skips_empty", model::core, "probe: iprobe never reports zero-length messages"},
    {defect::iprobe_sees_matched, "iprobe_sees_matched", model::core, "probe: iprobe reports a message already taken by a posted receive (until that receive is tested)"},
    {defect::probe_size_header, "probe_size_header", model::core, "probe status: size includes an 8-byte header"},
    {defect::truncation_only_unexpected, "truncation_only_unexpected", model::core, "truncation: into an already posted receive a longer message is cut silently (status: buffer size)"},
    {defect::size_rounded_up_8, "size_rounded_up_8", model::core, "receive status: size rounded up to a multiple of 8"},
    {defect::short_prefix_one_less, "short_prefix_one_less", model::core, "prefix: a message shorter than the buffer has its last byte not copied"},
    {defect::unexpected_tail_zeroed, "unexpected_tail_zeroed", model::core, "payload: a message over 32 KiB that arrives before its receive loses (zeroes) bytes past 32 KiB"},
    {defect::send_status_tag_zero, "send_status_tag_zero", model::core, "send status: a completed send reports tag 0"},
    {defect::posted_status_own_rank, "posted_status_own_rank", model::core, "receive status: a receive posted before arrival reports the receiver's rank as source"},
    {defect::test_default_throws, "test_default_throws", model::core, "completion: test of a default-constructed request raises (must return a default status)"},
    {defect::move_assign_drops, "move_assign_drops", model::core, "request move: move assignment leaves the target empty (the operation is lost)"},
    {defect::test_raises_when_done, "test_raises_when_done", model::core, "completion: test of an already completed request raises (must return a default status)"},
    {defect::test_does_not_progress, "test_does_not_progress", model::core, "progress: polling test never advances messages in flight (only irecv/isend/iprobe do)"},
    {defect::irecv_negative_tag_wildcard, "irecv_negative_tag_wildcard", model::core, "arguments: irecv takes any negative tag as any_tag instead of raising"},
    {defect::negative_dest_self, "negative_dest_self", model::core, "arguments: a send to a negative destination goes to the sender itself instead of raising"},
    {defect::error_rank_zero, "error_rank_zero", model::core, "arguments: invalid_argument always names rank 0 as the rank"},
    {defect::error_value_missing, "error_value_missing", model::core, "arguments: invalid_argument names the rank but not the bad value"},
    {defect::max_tag_rejected, "max_tag_rejected", model::core, "max_tag: tag 32767 itself raises invalid_argument (off by one)"},
    {defect::now_cpu_time, "now_cpu_time", model::core, "time: now() is the thread's CPU time, which stands still while the rank sleeps or blocks"},
    {defect::none, "base_full", model::full, "none: the correct transport with every optional member"},
    {defect::bsend_borrows, "bsend_borrows", model::full, "bsend: returns before copying; the message reads the caller's buffer when received"},
    {defect::ssend_posted_never, "ssend_posted_never", model::full, "ssend/issend: never completes when the receive was posted before the message arrived"},
    {defect::rsend_any_source_lost, "rsend_any_source_lost", model::full, "rsend: a ready send into a posted any_source receive is lost"},
    {defect::sendrecv_ignores_recv_tag, "sendrecv_ignores_recv_tag", model::full, "sendrecv: its receive takes any tag"},
    {defect::barrier_third_free, "barrier_third_free", model::full, "barrier: the third barrier returns at once"},
    {defect::broadcast_skips_last_rank, "broadcast_skips_last_rank", model::full, "broadcast: rank size()-1 is left out (unless it is the root)"},
    {defect::allreduce_max_from_zero, "allreduce_max_from_zero", model::full, "allreduce_max: starts from 0.0, so all-negative values give 0"},
    {defect::allreduce_sum_skips_last, "allreduce_sum_skips_last", model::full, "allreduce_sum: the last element is left unreduced (off by one)"},
    {defect::reduce_sum_writes_all, "reduce_sum_writes_all", model::full, "reduce_sum: non-root ranks' values are overwritten with the result"},
    {defect::reduce_max_root_zero, "reduce_max_root_zero", model::full, "reduce_max: the result goes to rank 0 whatever the root"},
    {defect::gather_pads_blocks, "gather_pads_blocks", model::full, "gather: blocks placed 8-byte aligned (gaps) when their size is not a multiple of 8"},
    {defect::alltoall_own_block_skipped, "alltoall_own_block_skipped", model::full, "alltoall: this rank's own block is not copied"},
    {defect::abort_wrong_type, "abort_wrong_type", model::full, "abort: raises std::runtime_error, not comet::aborted"},
    {defect::abort_drops_message, "abort_drops_message", model::full, "abort: the error names the rank but drops the message"},
    {defect::wait_all_skips_last, "wait_all_skips_last", model::full, "wait_all: returns with the last request not completed"},
    {defect::wait_default_blocks, "wait_default_blocks", model::full, "wait: on a default-constructed request blocks forever"},
    {defect::recv_native_ignores_source, "recv_native_ignores_source", model::full, "recv: the native blocking receive ignores the named source"},
    {defect::compute_half, "compute_half", model::full, "compute: performs half of busy work's time"},
    {defect::send_native_tag_zero, "send_native_tag_zero", model::full, "send: the native blocking send sends every message with tag 0"},
};
// clang-format on

constexpr bool is_base(const mutant& m) noexcept { return m.id == defect::none; }

}  // namespace held_out_2
