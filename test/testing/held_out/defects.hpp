// held_out/defects.hpp — the deliberate defects of the held-out mutants: one switch each, and
// for each the one rule of comet/core/concepts.hpp (or core/types.hpp, or the contract of an
// operation in comet/ops/ the transport offers natively) that it breaks.
//
// These mutants are written from the rules, not from the conformance checks: the point of the
// held-out set is to measure how much of what a transport author gets wrong the suite catches,
// and that measure means nothing if the mutants were shaped after the checks. Several are
// deliberately narrow (only above a size, only the third message of a pair, only with a
// wildcard), as real authors' bugs are. Keep it held out: the suite's authors should not read
// this list while they write checks.
//
// The defects act in the mailbox transport of mailbox.hpp. `model::core` runs on the eight
// members of the core only, so comet::ops supplies every blocking and collective operation
// portably over them; `model::full` adds the optional members a transport may offer natively
// (bsend, ssend/issend, sendrecv, barrier, broadcast, the allreduces, gather, compute,
// clock_is_global, abort), whose defects need that model.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace held_out {

enum class defect {
    none,
    // rank() and size()
    duplicate_rank,
    size_one_short,
    // matching
    any_tag_ignores_source,
    any_source_ignores_tag,
    tag_low_byte,
    high_tags_rejected,
    any_source_misses_self,
    // non-overtaking and earliest match
    latest_first,
    large_overtaken,
    third_message_late,
    any_tag_by_tag_order,
    // receives matched in the order posted
    named_before_wildcard,
    posted_lifo,
    // probe
    iprobe_consumes,
    iprobe_consumes_any_tag,
    iprobe_latest,
    iprobe_ignores_source,
    iprobe_blocks,
    iprobe_size_zero_large,
    iprobe_tag_wildcard,
    // receive buffer sizes
    truncation_silent,
    truncation_unreported,
    truncation_one_over,
    exact_fit_rejected,
    truncation_wrong_type,
    truncation_from_irecv,
    short_status_buffer_size,
    short_clears_tail,
    // payload and buffer ownership
    large_payload_cut,
    send_buffer_borrowed,
    // loss and duplication
    zero_length_lost,
    every_100th_lost,
    tag_zero_lost,
    self_send_duplicated,
    wildcard_duplicate,
    // status of receives and sends
    recv_source_wildcard,
    recv_tag_wildcard,
    recv_size_20_bits,
    send_status_own_rank,
    send_status_size_zero,
    // completion and requests
    test_blocks,
    test_blocks_any_source,
    pending_any_source_completes,
    completed_test_repeats,
    default_request_pending,
    move_keeps_source,
    // progress
    iprobe_does_not_progress,
    // bad arguments
    negative_tag_accepted,
    source_size_accepted,
    self_send_rejected,
    error_without_rank,
    wrong_exception_type,
    iprobe_unchecked,
    // time
    now_steps_back,
    now_milliseconds,
    // optional capabilities (model::full)
    bsend_waits_large,
    isend_waits_while_buffering,
    issend_early,
    ssend_early,
    sendrecv_send_status,
    sendrecv_send_first,
    barrier_early,
    broadcast_from_zero,
    broadcast_caps_64k,
    allreduce_sum_order,
    allreduce_min_skips_rank_0,
    gather_reversed,
    compute_skips,
    clock_not_global,
    abort_unnamed,
};

/// Which members the transport offers: the eight of the core, or those and the optional ones.
enum class model { core, full };

struct mutant {
    defect id;
    std::string_view name;
    model on;
    std::string_view rule;  ///< the rule the defect breaks, as the transport author would read it
};

// clang-format off
inline constexpr mutant mutants[] = {
    {defect::none, "base_core", model::core, "none: the correct transport, the eight core members only"},
    {defect::duplicate_rank, "duplicate_rank", model::core, "rank(): in a group of 4, rank 3 says it is rank 2 (ranks not distinct)"},
    {defect::size_one_short, "size_one_short", model::core, "size(): one short in groups of 3 or more"},
    {defect::any_tag_ignores_source, "any_tag_ignores_source", model::core, "matching: an any_tag receive also takes messages from other sources"},
    {defect::any_source_ignores_tag, "any_source_ignores_tag", model::core, "matching: an any_source receive also takes messages of other tags"},
    {defect::tag_low_byte, "tag_low_byte", model::core, "matching: tags compared by their low 8 bits (tag 300 matches a receive for 44)"},
    {defect::high_tags_rejected, "high_tags_rejected", model::core, "max_tag: tags above 9999 raise invalid_argument (every tag up to 32767 must be accepted)"},
    {defect::any_source_misses_self, "any_source_misses_self", model::core, "matching: an any_source receive never takes a message the rank sent itself"},
    {defect::latest_first, "latest_first", model::core, "non-overtaking: a receive takes the latest-arrived matching message"},
    {defect::large_overtaken, "large_overtaken", model::core, "non-overtaking: messages over 16 KiB take a slower path; a later small one overtakes"},
    {defect::third_message_late, "third_message_late", model::core, "non-overtaking: the 3rd message between a pair is held back behind the 4th"},
    {defect::any_tag_by_tag_order, "any_tag_by_tag_order", model::core, "earliest match: an any_tag receive takes the lowest tag waiting, not the earliest sent"},
    {defect::named_before_wildcard, "named_before_wildcard", model::core, "posted order: a message goes to a named receive before an earlier-posted wildcard one"},
    {defect::posted_lifo, "posted_lifo", model::core, "posted order: matching receives complete latest-posted first"},
    {defect::iprobe_consumes, "iprobe_consumes", model::core, "probe: iprobe removes the message it reports"},
    {defect::iprobe_consumes_any_tag, "iprobe_consumes_any_tag", model::core, "probe: iprobe with any_tag removes the message it reports"},
    {defect::iprobe_latest, "iprobe_latest", model::core, "probe: iprobe reports the latest-arrived matching message, not the earliest"},
    {defect::iprobe_ignores_source, "iprobe_ignores_source", model::core, "probe: iprobe for a named source reports another source's message"},
    {defect::iprobe_blocks, "iprobe_blocks", model::core, "probe: iprobe waits until a matching message arrives (not nonblocking)"},
    {defect::iprobe_size_zero_large, "iprobe_size_zero_large", model::core, "probe status: size 0 for messages over 64 KiB"},
    {defect::iprobe_tag_wildcard, "iprobe_tag_wildcard", model::core, "probe status: an any_tag probe reports tag any_tag, not the message's tag"},
    {defect::truncation_silent, "truncation_silent", model::core, "truncation: a longer message is cut to the buffer, no error, status says the buffer size"},
    {defect::truncation_unreported, "truncation_unreported", model::core, "truncation: a longer message is cut to the buffer, no error, status says the message size"},
    {defect::truncation_one_over, "truncation_one_over", model::core, "truncation: a message one byte longer than the buffer is cut silently"},
    {defect::exact_fit_rejected, "exact_fit_rejected", model::core, "truncation: a message exactly the buffer's size raises truncation_error"},
    {defect::truncation_wrong_type, "truncation_wrong_type", model::core, "truncation: raises invalid_argument instead of truncation_error"},
    {defect::truncation_from_irecv, "truncation_from_irecv", model::core, "truncation: raised by irecv (message already there), not by the test that completes it"},
    {defect::short_status_buffer_size, "short_status_buffer_size", model::core, "receive status: a shorter message reports the buffer's size"},
    {defect::short_clears_tail, "short_clears_tail", model::core, "prefix: a shorter message zeroes the rest of the buffer"},
    {defect::large_payload_cut, "large_payload_cut", model::core, "delivery: into an already posted receive only the first 64 KiB are copied"},
    {defect::send_buffer_borrowed, "send_buffer_borrowed", model::core, "completion: isend completes at once but reads the buffer only when the message is matched"},
    {defect::zero_length_lost, "zero_length_lost", model::core, "loss: zero-length messages are never delivered"},
    {defect::every_100th_lost, "every_100th_lost", model::core, "loss: every 100th message between a pair is dropped"},
    {defect::tag_zero_lost, "tag_zero_lost", model::core, "loss: messages with tag 0 are dropped"},
    {defect::self_send_duplicated, "self_send_duplicated", model::core, "duplication: a message to oneself is delivered twice"},
    {defect::wildcard_duplicate, "wildcard_duplicate", model::core, "duplication: a message matched by a posted any_source receive is also queued"},
    {defect::recv_source_wildcard, "recv_source_wildcard", model::core, "receive status: an any_source receive reports source any_source"},
    {defect::recv_tag_wildcard, "recv_tag_wildcard", model::core, "receive status: an any_tag receive reports tag any_tag"},
    {defect::recv_size_20_bits, "recv_size_20_bits", model::core, "receive status: size kept in 20 bits (a 1 MiB message reports 0)"},
    {defect::send_status_own_rank, "send_status_own_rank", model::core, "send status: reports the sender's own rank, not the destination"},
    {defect::send_status_size_zero, "send_status_size_zero", model::core, "send status: reports size 0"},
    {defect::test_blocks, "test_blocks", model::core, "test: blocks until the request completes"},
    {defect::test_blocks_any_source, "test_blocks_any_source", model::core, "test: blocks on a pending any_source receive"},
    {defect::pending_any_source_completes, "pending_any_source_completes", model::core, "test: a pending any_source receive reports completion with a default status"},
    {defect::completed_test_repeats, "completed_test_repeats", model::core, "completion: test of a completed request returns its status again, not a default one"},
    {defect::default_request_pending, "default_request_pending", model::core, "completion: test of a default-constructed request never completes"},
    {defect::move_keeps_source, "move_keeps_source", model::core, "request move: the source keeps the operation, and its destructor withdraws the receive"},
    {defect::iprobe_does_not_progress, "iprobe_does_not_progress", model::core, "progress: a rank polling iprobe never sees a message sent after its last test or irecv"},
    {defect::negative_tag_accepted, "negative_tag_accepted", model::core, "arguments: isend accepts a negative tag"},
    {defect::source_size_accepted, "source_size_accepted", model::core, "arguments: irecv accepts source == size() and waits forever"},
    {defect::self_send_rejected, "self_send_rejected", model::core, "arguments: a send to one's own rank raises invalid_argument"},
    {defect::error_without_rank, "error_without_rank", model::core, "arguments: invalid_argument names the value but not the rank"},
    {defect::wrong_exception_type, "wrong_exception_type", model::core, "arguments: a destination out of range raises std::out_of_range, not invalid_argument"},
    {defect::iprobe_unchecked, "iprobe_unchecked", model::core, "arguments: iprobe with a negative tag or source out of range returns nothing"},
    {defect::now_steps_back, "now_steps_back", model::core, "time: now() steps back 1 ms on every 500th call"},
    {defect::now_milliseconds, "now_milliseconds", model::core, "time: now() counts milliseconds, not seconds"},
    {defect::none, "base_full", model::full, "none: the correct transport with every optional member"},
    {defect::bsend_waits_large, "bsend_waits_large", model::full, "bsend: waits for the receiver when the message is over 64 KiB"},
    {defect::isend_waits_while_buffering, "isend_waits_while_buffering", model::full, "buffering: claims every send buffers, but an isend over 64 KiB waits to be matched"},
    {defect::issend_early, "issend_early", model::full, "ssend: issend completes before the receive is posted"},
    {defect::ssend_early, "ssend_early", model::full, "ssend: blocking ssend returns before the receive is posted"},
    {defect::sendrecv_send_status, "sendrecv_send_status", model::full, "sendrecv: returns the send's status, not the received message's"},
    {defect::sendrecv_send_first, "sendrecv_send_first", model::full, "sendrecv: ssend then receive, so two matching sendrecvs deadlock"},
    {defect::barrier_early, "barrier_early", model::full, "barrier: a rank leaves once all but one have entered"},
    {defect::broadcast_from_zero, "broadcast_from_zero", model::full, "broadcast: always from rank 0, whatever the root"},
    {defect::broadcast_caps_64k, "broadcast_caps_64k", model::full, "broadcast: copies at most 64 KiB"},
    {defect::allreduce_sum_order, "allreduce_sum_order", model::full, "allreduce_sum: each rank adds in its own order (bits differ between ranks)"},
    {defect::allreduce_min_skips_rank_0, "allreduce_min_skips_rank_0", model::full, "allreduce_min: leaves out rank 0's values"},
    {defect::gather_reversed, "gather_reversed", model::full, "gather: blocks in reverse rank order"},
    {defect::compute_skips, "compute_skips", model::full, "compute: returns at once, without the work or its time"},
    {defect::clock_not_global, "clock_not_global", model::full, "clock_is_global: says true, but each rank's now() has its own epoch"},
    {defect::abort_unnamed, "abort_unnamed", model::full, "abort: the error carries the message but not the rank"},
};
// clang-format on

/// The rows of `mutants` that are the correct transport (which must pass) and not mutants.
constexpr bool is_base(const mutant& m) noexcept { return m.id == defect::none; }

}  // namespace held_out
