// Tests of comet/testing/: the conformance suite tested on transports known to be broken
// (mutants.hpp: a correct in-process base and one defect per rule switched on in it). Each
// mutant must be caught by the check written for its rule, with a message that says what went
// wrong, and in bounded time, under a runner that neither stops the other ranks nor detects
// deadlock. A new check comes with the mutant it catches, added to the table below.
//
// Two mutants hang inside a call (a `test` that blocks, a `bsend` that waits for the receiver):
// only the watchdog can end them, by ending the process, so those run as tests of their own
// (`hanging/...`, disabled here, started by ctest in a process of their own: test/CMakeLists.txt).
#include "mutants.hpp"

#include <comet/testing/conformance.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace conformance_test {

using mutants::defect;

/// Short deadlines: a mutant caught by a deadline costs one of them. Long enough for the base
/// transport on a loaded machine (its waits take microseconds).
inline constexpr comet::testing::limits quick{.deadline = 2.0, .watchdog = 30.0};

struct mutant {
    defect broken;
    const char* name;
    const char* check;  ///< the check that must catch it (the first of `all` to fail; alternatives apart by " | ")
    const char* says;   ///< words its failure must contain (alternatives apart by " | ")
    bool bsend = false; ///< the base with its buffered send
    bool full = false;  ///< the full model (native operations)
};

// Where both the receiver of a lost message and its sender (waiting for that receiver) run into
// their deadlines, the runner rethrows whichever came first: either says "waited".
const mutant table[] = {
    {defect::lose_message, "lose_message", "send_status", "waited 2 s for"},
    {defect::duplicate_message, "duplicate_message", "identity", "a message from rank 0, tag 32630 (0 bytes) is still queued after the check"},
    {defect::any_tag_lowest, "any_tag_lowest", "tag_matching", "recv(1, any_tag) took {tag "},
    {defect::any_source_latest, "any_source_latest", "non_overtaking", "iprobe(any_source) of three messages this rank sent itself: status {source"},
    {defect::named_before_wildcard, "named_before_wildcard", "wildcard_posted_order", "irecv(any_source, 7), took message 2"},
    {defect::eager_overtakes, "eager_overtakes", "non_overtaking", "arrived as number"},
    {defect::tag_alias, "tag_alias", "tag_range", "the message of tag 16385 (posted): status {source 0, tag 1, size 8}"},
    {defect::negative_tag_accepted, "negative_tag_accepted", "tag_range", "isend with tag -1: no error was raised"},
    {defect::send_status_empty, "send_status_empty", "send_status", "the completed send's status (to oneself): status {source -1, tag -1, size 0}"},
    {defect::probe_size_eager, "probe_size_eager", "non_overtaking_across_sizes", "iprobe of the large message at the head of the queue: status {source 0, tag 8, size 256}"},
    {defect::silent_truncation, "silent_truncation", "receive_buffer_sizes", "a message longer than the buffer: no error was raised"},
    {defect::no_progress_on_probe, "no_progress_on_probe", "progress", "waited 2 s for"},
    {defect::test_default_pending, "test_default_pending", "test_never_blocks", "default-constructed request"},
    {defect::bad_source_accepted, "bad_source_accepted", "bad_arguments", "irecv from rank size(): no error was raised"},
    {defect::clock_steps_back, "clock_steps_back", "identity | tag_range | non_overtaking", "now() went back from"},
    // Where two messages of a tag are queued when tag_matching's receive comes (a loaded
    // machine), that check meets the LIFO order first.
    {defect::lifo_matching, "lifo_matching", "non_overtaking | tag_matching",
     "iprobe of three messages this rank sent itself: status {source | took message 5, sent with tag 0"},
    {defect::overwrite_past_message, "overwrite_past_message", "receive_buffer_sizes", "a 10-byte message wrote byte 10"},
    {defect::probe_takes_message, "probe_takes_message", "tag_range", "waited 2 s for a message from rank"},
    {defect::status_repeats, "status_repeats", "test_never_blocks", "must give an empty status"},
    // Either rank's receive of a lost message may reach its deadline first.
    {defect::lose_late_message, "lose_late_message", "exactly_once",
     "waited 2 s for a message from rank 1, tag 5 (recv posted, never completed) | waited 2 s for a message from rank 0, tag 6 (recv posted, never completed)"},
    {defect::tag_zero_is_wildcard, "tag_zero_is_wildcard", "tag_matching", "recv(1, tag 0) with tags 5 and 0 sent: status {source 1, tag 5"},
    {defect::any_tag_skips_reserved, "any_tag_skips_reserved", "tag_matching", "recv(1, any_tag) took {tag 16384, message 4}; the earliest left was {tag 32767"},
    {defect::self_lifo, "self_lifo", "non_overtaking", "iprobe of three messages this rank sent itself: status {source"},
    {defect::iprobe_misses_self, "iprobe_misses_self", "tag_range", "waited 2 s for iprobe to see a message from rank 1, tag 0 | waited 2 s for a message from rank 1, tag 2"},
    {defect::iprobe_sees_matched, "iprobe_sees_matched", "probe", "iprobe(0, 33) reported the message a receive posted before it was sent has taken"},
    {defect::posted_truncation_silent, "posted_truncation_silent", "receive_buffer_sizes", "a message longer than the buffer of a posted receive: no error was raised"},
    // A CPU-time clock shows as one that does not follow the host, or, when a loaded machine
    // leaves the rank under 10 ms of the 50 it computed (a virtual clock may stand still), as a
    // compute that took no time.
    {defect::now_cpu_time, "now_cpu_time", "time_and_compute", "now() advanced | compute(busy 5 ms) took"},
    {defect::isend_to_any_source, "isend_to_any_source", "bad_arguments", "isend to any_source (a receive's wildcard, not a rank): no error was raised"},
    {defect::search_window, "search_window", "random_traffic", "waited 2 s for"},
    {defect::duplicate_at_1000, "duplicate_at_1000", "exactly_once", "of a stream of 2100 on one tag arrived as number"},
    {defect::iprobe_blind_posted, "iprobe_blind_posted", "probe", "waited 2 s for iprobe to see a message from rank 0, tag 34"},
    {defect::iprobe_tag_cleared, "iprobe_tag_cleared", "probe", "waited 2 s for iprobe to see a message from rank 0, tag 35 | waited 2 s for the send to rank 1, tag 32"},
    {defect::moved_request_repeats, "moved_request_repeats", "test_never_blocks", "moved (assigned), must give an empty status | moved (constructed), must give an empty status"},
    {defect::composite_key, "composite_key", "tag_range", "iprobe(0, max_tag) reported a message with only rank 1's own of tag 0 queued"},
    {defect::iprobe_miss_cached, "iprobe_miss_cached", "probe", "waited 2 s for iprobe to see a message from rank 1, tag 36 | waited 2 s for a message from rank 1, tag 30"},
    {defect::isend_over_16_mib, "isend_over_16_mib", "receive_buffer_sizes", "raised invalid_argument for a call with valid arguments: \"rank 0: isend: 16777219 bytes"},
    {defect::test_waits_for_self, "test_waits_for_self", "test_never_blocks", "naming this rank itself took at least"},
    {defect::bsend_borrows, "bsend_borrows", "bsend_promise", "a message both ranks bsent before receiving: byte 0 of 5000 differs", true},
    {defect::recv_ignores_source, "recv_ignores_source", "blocking_round_trip", "with a message of the same tag from this rank queued before: status {source", false, true},
    {defect::send_returns_early, "send_returns_early", "blocking_round_trip", "bytes differ from what was sent", false, true},
    {defect::wait_all_skips_last, "wait_all_skips_last", "nonblocking", "request 3 of 4 was not complete after wait_all", false, true},
    {defect::barrier_third_free, "barrier_third_free", "barrier_waits_for_everyone", "barrier 3 of 9: rank 1 arrived 100 ms late, yet rank", false, true},
    {defect::allreduce_max_from_zero, "allreduce_max_from_zero", "collectives", "allreduce_max element 0 is 0, expected -1", false, true},
    {defect::reduce_sum_writes_all, "reduce_sum_writes_all", "collectives", "which is not the root", false, true},
    {defect::reduce_max_root_zero, "reduce_max_root_zero", "collectives", "to root 1", false, true},
    {defect::alltoall_skips_own, "alltoall_skips_own", "collectives", "(this rank's own) differs from what it sent", false, true},
    {defect::sendrecv_any_tag, "sendrecv_any_tag", "capabilities", "sendrecv (the status of its receive), a message of tag 75 sent before: status {source", false, true},
    {defect::irsend_any_source_lost, "irsend_any_source_lost", "capabilities", "waited 2 s for a message from rank", false, true},
    {defect::clock_global_offset, "clock_global_offset", "barrier_waits_for_everyone", "before the last arrived at", false, true},
    {defect::broadcast_cached, "broadcast_cached", "random_operations", "gave other bytes", false, true},
    {defect::rsend_matches_by_tag, "rsend_matches_by_tag", "random_operations", "naming another source", false, true},
    {defect::recv_retry_truncation, "recv_retry_truncation", "blocking_round_trip", "recv of a 20-byte message into a 10-byte buffer: no error was raised", false, true},
    {defect::rsend_any_tag_lost, "rsend_any_tag_lost", "capabilities", "waited 2 s for a message from rank 0, tag 51 | waited 2 s for a message from rank 1, tag 52", false, true},
    {defect::barrier_first_five, "barrier_first_five", "barrier_waits_for_everyone", "arrived 100 ms late, yet rank 5 waited", false, true},
    {defect::allreduce_min_float_max, "allreduce_min_float_max", "collectives", "allreduce_min of 1e300 to", false, true},
    {defect::rsend_truncation_silent, "rsend_truncation_silent", "capabilities", "a 16-byte rsend message into an 8-byte receive: no error was raised", false, true},
    {defect::reduce_sum_root_zero, "reduce_sum_root_zero", "collectives", "of 0 on the root and 1 elsewhere gave 0", false, true},
    {defect::wait_gives_up, "wait_gives_up", "nonblocking", "wait() on a receive whose message was sent 1.2 s later: status {source -1", false, true},
    {defect::rsend_first_posted, "rsend_first_posted", "capabilities", "a ready message of tag 57 sent while receives of tags 55, 56 (any_source) and 57 were posted", false, true},
    {defect::compute_skips_short, "compute_skips_short", "time_and_compute", "100 computes of busy 500 µs took", false, true},
    {defect::allreduce_sum_last_own_first, "allreduce_sum_last_own_first", "collectives", "allreduce_sum gave this rank other bits than rank 0 (rank ", false, true},
    // Its defect shows wherever a sender reuses or frees its buffer before the receive takes it:
    // which check meets that first depends on how the two ranks are scheduled (tag_matching's or
    // non_overtaking_across_sizes' receiver then finds other bytes than were sent).
    {defect::isend_done_before_copy, "isend_done_before_copy", "send_status | buffers_after_completion | tag_matching | non_overtaking_across_sizes", "overwritten by its sender once a test had completed its send | its buffer overwritten once a test had completed its send | differs from what was sent | arrived with other bytes than were sent"},
    {defect::reduce_max_as_float, "reduce_max_as_float", "collectives", "and of 1 + rank * 2^-40 gave", false, true},
};

template <bool Bsend, bool Full = false>
std::string failure_of(defect d) {
    try {
        comet::testing::conformance{mutants::runner<Bsend, Full>{d}, quick}.all();
    } catch (const comet::testing::conformance_failure& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("not a conformance_failure: ") + e.what();
    }
    return "nothing was caught";
}

}  // namespace conformance_test

BOOST_AUTO_TEST_SUITE(conformance_suite)

using namespace conformance_test;

BOOST_AUTO_TEST_CASE(the_base_transport_passes_every_check) {
    // No false alarms: the mutants differ from this only by their defect. Its buffered variant
    // passes bsend_promise too.
    const auto start = std::chrono::steady_clock::now();
    BOOST_TEST(failure_of<false>(defect::none) == "nothing was caught");
    BOOST_TEST(failure_of<true>(defect::none) == "nothing was caught");
    BOOST_TEST((failure_of<false, true>(defect::none)) == "nothing was caught");
    // Bounded, not fast: abort_stops_everyone and exception_stops_everyone wait out a deadline
    // each (this runner does not stop the other ranks), twice: about 8 s; the random rounds
    // (groups up to 9 ranks of threads on however many cores) a few seconds more, and more on
    // a loaded machine.
    BOOST_TEST(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 90.0);
}

namespace {
/// Whether `holds` is true of one of the alternatives of `list` (apart by " | ").
template <class Holds>
bool one_of(std::string_view list, Holds holds) {
    for (std::size_t from = 0;;) {
        const std::size_t bar = list.find(" | ", from);
        if (holds(std::string(list.substr(from, bar == std::string_view::npos ? bar : bar - from)))) return true;
        if (bar == std::string_view::npos) return false;
        from = bar + 3;
    }
}
/// Whether `what` contains one of the alternatives of `says`.
bool says_one_of(const std::string& what, std::string_view says) {
    return one_of(says, [&](const std::string& words) { return what.find(words) != std::string::npos; });
}
/// Whether `what` names one of the checks of `checks` as the one that failed.
bool caught_by_one_of(const std::string& what, std::string_view checks) {
    return one_of(checks, [&](const std::string& name) { return what.find(": " + name + ": ") != std::string::npos; });
}
}  // namespace

BOOST_AUTO_TEST_CASE(each_mutant_is_caught_by_the_check_of_its_rule) {
    for (const mutant& m : table) {
        // Said before it runs: a mutant the watchdog ends takes the process with it.
        BOOST_TEST_MESSAGE("mutant " << m.name);
        BOOST_TEST_CONTEXT("mutant " << m.name) {
            const auto start = std::chrono::steady_clock::now();
            const std::string what = m.full ? failure_of<false, true>(m.broken) : m.bsend ? failure_of<true>(m.broken) : failure_of<false>(m.broken);
            const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            BOOST_TEST_INFO("failure: " << what);
            BOOST_TEST(caught_by_one_of(what, m.check), "caught by " << m.check);
            BOOST_TEST_INFO("failure: " << what);
            BOOST_TEST(says_one_of(what, m.says), "the failure says \"" << m.says << '"');
            // At most one deadline waited out by each rank, plus the checks before it (bounded,
            // not fast: the checks before the random rounds take seconds on a loaded machine).
            BOOST_TEST(took < 30.0);
        }
    }
}

BOOST_AUTO_TEST_CASE(limits_come_from_the_environment_or_fail_naming_the_value) {
    BOOST_TEST(comet::testing::seconds_from_environment("COMET_CONFORMANCE_NOT_SET_ANYWHERE", 7.5) == 7.5);
    ::setenv("COMET_CONFORMANCE_TEST_SECONDS", "0.25", 1);
    BOOST_TEST(comet::testing::seconds_from_environment("COMET_CONFORMANCE_TEST_SECONDS", 7.5) == 0.25);
    for (const char* bad : {"ten", "-3", "0", "5s"}) {
        ::setenv("COMET_CONFORMANCE_TEST_SECONDS", bad, 1);
        try {
            (void)comet::testing::seconds_from_environment("COMET_CONFORMANCE_TEST_SECONDS", 7.5);
            BOOST_ERROR("the value \"" << bad << "\" was accepted");
        } catch (const comet::invalid_argument& e) {
            BOOST_TEST(std::string(e.what()) == std::string("COMET_CONFORMANCE_TEST_SECONDS = \"") + bad +
                                                    "\" is not a number of seconds in (0, 1e6]");
        }
    }
    ::unsetenv("COMET_CONFORMANCE_TEST_SECONDS");
}

BOOST_AUTO_TEST_CASE(limits_that_are_not_positive_are_refused_naming_them) {
    try {
        comet::testing::conformance{mutants::runner<false>{}, {.deadline = 0}}.identity();
        BOOST_ERROR("a deadline of 0 s was accepted");
    } catch (const comet::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()) == "rank 0: identity: conformance limits: deadline = 0 s, watchdog = 30 s; both must be positive");
    }
}

BOOST_AUTO_TEST_CASE(a_clock_step_is_printed_with_every_digit) {
    // A step back of a nanosecond at 1000 s: six significant digits would print 1000 twice.
    BOOST_TEST(comet::testing::detail::exact(1000.000000001) == "1000.000000001");
    BOOST_TEST(comet::testing::detail::exact(0.5) == "0.5");
}

BOOST_AUTO_TEST_SUITE_END()

// Run by ctest one at a time, each in its own process, expecting the watchdog's line and a
// failure exit (COMET_CONFORMANCE_WATCHDOG set short there).
BOOST_AUTO_TEST_SUITE(hanging, *boost::unit_test::disabled())

BOOST_AUTO_TEST_CASE(blocking_test) { comet::testing::conformance{mutants::runner<false>{mutants::defect::blocking_test}}.all(); }
BOOST_AUTO_TEST_CASE(bsend_bounded) { comet::testing::conformance{mutants::runner<true>{mutants::defect::bsend_bounded}}.bsend_promise(); }
BOOST_AUTO_TEST_CASE(sends_wait_for_receiver) {
    comet::testing::conformance{mutants::runner<true>{mutants::defect::sends_wait_for_receiver}}.both_send_first();
}
BOOST_AUTO_TEST_CASE(sends_wait_past_2_mib) {
    comet::testing::conformance{mutants::runner<true>{mutants::defect::sends_wait_past_2_mib}}.both_send_first();
}
BOOST_AUTO_TEST_CASE(sendrecv_recv_tag_send) {
    comet::testing::conformance{mutants::runner<false, true>{mutants::defect::sendrecv_recv_tag_send}}.capabilities();
}

BOOST_AUTO_TEST_SUITE_END()
