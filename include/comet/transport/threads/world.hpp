// comet/transport/threads/world.hpp — what the ranks of one threads::run share: the channels
// between every pair of ranks, each rank's sleep state, the barrier, the collective scratch,
// and the logic that stops every rank on a failure or a deadlock.
//
// Waiting. A rank that must wait spins for a short while (a message usually arrives within a
// few hundred nanoseconds), then sleeps on its own doorbell word. Whoever changes something a
// sleeper may wait for (publishes a message to it, completes its send, releases a barrier,
// finishes, stops the run) rings the sleeper's doorbell. A sleeper publishes `sleeping` before
// it checks its condition one last time, and a ringer publishes its change before it reads
// `sleeping` (both sequentially consistent), so a wake-up is never lost.
//
// Deadlock. A sleeping rank counts itself blocked only after that last check failed; a ringer
// that wakes it uncounts it. `blocked + finished == size` is only a hint, because the two
// counts are not updated together with the sleep states (a woken rank may count itself again
// before its ringer has uncounted it). The rank that sees the hint confirms it: every rank's
// state must read "counted" or "finished", between two reads of a counter every ringer bumps
// after it wakes someone. A ringer is a running rank (its own state is awake while it rings)
// or a finishing one (it is marked finished only after it has rung everyone), so either the
// check sees it running, or it sees the bump. Then every rank is asleep and nothing can wake
// any of them: every rank raises `deadlock_error` with the same report.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/transport/threads/channel.hpp>
#include <comet/transport/threads/sleep.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace comet::threads {

/// How a threads::run behaves. The defaults suit measurement.
struct options {
    /// How long a waiting rank spins before it sleeps while there are no more awake ranks than
    /// cores. When awake ranks outnumber cores a waiting rank spins only 2 µs: spinning then
    /// keeps the rank it waits for off a core, and a context switch, a few µs, is the floor.
    std::chrono::nanoseconds spin{std::chrono::microseconds(100)};
    /// Messages up to this size travel inline in the ring; larger ones by a single copy from
    /// the sender's buffer (or a buffered copy when no receive is posted for them).
    std::size_t eager_limit = 1000;
    /// Cells (64 bytes each) in the ring of every ordered pair of ranks; a power of two.
    std::size_t ring_cells = 128;
    /// A CPU of its own to start on: when the run has no more ranks than the process may use
    /// CPUs, rank r starts on the r-th of them (Linux; elsewhere nothing happens). A new thread
    /// starts on its creator's CPU, and the scheduler does not always move it: two ranks
    /// spinning for each other on one CPU hand over at a context switch per message (on a
    /// 2-core VM, one run in three kept both ranks of a two-rank run on one CPU for its whole
    /// 0.4 s, and every barrier took 4 µs instead of 0.25). The rank is moved there and then
    /// left free to move again, not bound: two processes bound alike (every run binds rank r to
    /// the r-th CPU) could never be moved apart by the scheduler, and a threads test running
    /// beside another under ctest -j2 read a 4 KiB echo at 60 µs instead of 1.5. With more
    /// ranks than CPUs nobody is moved.
    /// A rank that slept and wakes on the CPU of the rank that woke it is moved off it again
    /// (to its own start CPU, or another), while no more ranks are awake than cores: Linux
    /// wakes a thread on its waker's CPU, and two ranks left on one CPU hand messages over
    /// in that CPU's cache: the run measures one CPU, not two. On a 2-core VM a 1 MiB
    /// ping-pong whose ranks sleep between messages ran on one CPU in 1000 of 1000 round
    /// trips in one batch of runs (40 µs one way, against 97 on two CPUs); with the move, in
    /// none.
    bool pin = true;
    /// Report the operating system's preemptions of a rank as its disturbances (transport::
    /// disturbances), so that the measurement engines keep a sample during which a rank lost
    /// its CPU out of the statistics. Only where the run has no more ranks than the process
    /// may use CPUs: with more, ranks take the CPU from each other all the time, and that is the
    /// transport's own cost (a context switch per hand-off), not a disturbance of it.
    bool count_preemptions = true;
};

namespace detail {

/// The CPUs this process may run on, in order (empty where that cannot be asked).
COMET_DECL std::vector<int> usable_cpus();

/// The CPU each of `ranks` ranks starts on under `opt` (rank r: element r), or nothing when
/// they are left where they start (`pin` off, more ranks than usable CPUs, or no way to ask).
COMET_DECL std::vector<int> placement(int ranks, const options& opt);

/// Moves the calling thread to CPU `cpu` and leaves it free to run on any of `allowed` again
/// (it stays where it was put until the scheduler has a reason to move it); false where it
/// could not.
COMET_DECL bool start_on_cpu([[maybe_unused]] int cpu, [[maybe_unused]] const std::vector<int>& allowed);

/// The CPU the calling thread runs on, or -1 where that cannot be asked.
COMET_DECL int current_cpu() noexcept;

}  // namespace detail

namespace detail {

/// What a rank is blocked in, for deadlock reports.
enum class wait_op : std::uint8_t {
    none, recv, send, ssend, rsend, wait_recv, wait_send, wait_all, barrier, broadcast, allreduce
};

struct wait_desc {
    wait_op op = wait_op::none;
    int peer = 0;
    int tag = 0;
    std::size_t size = 0;
    std::size_t count = 0;  ///< wait_all: requests still pending
};

/// What `w` says a rank waits in, for deadlock reports. What runs only when something went
/// wrong (this, failures, the deadlock report, the stop) is marked [[gnu::cold]]: GCC compiles
/// it for size, which is quicker in every program that runs ranks. Nothing on a good path is:
/// GCC takes a function that calls a cold one on every path for cold itself, and its callers
/// after it (a user's function that calls `run`, timed code and all).
[[gnu::cold]] COMET_DECL std::string describe(const wait_desc& w);

enum class sleep_state : std::uint32_t { awake, sleeping, counted };
enum class stop_reason : std::uint32_t { none, failed, deadlock };

/// One rank's shared control block, alone on its cache lines.
struct alignas(cache_line) rank_control {
    std::atomic<std::uint32_t> doorbell{0};
    std::atomic<sleep_state> sleep{sleep_state::awake};
    std::atomic<bool> finished{false};
    std::atomic<bool> settled{false};  ///< finished, and done waking the others
    // What the rank waits for; written by the rank before it counts itself blocked, read by
    // the rank that declares a deadlock (atomics only to keep the race detector informed).
    std::atomic<wait_op> op{wait_op::none};
    std::atomic<int> peer{0}, tag{0};
    std::atomic<std::size_t> size{0}, count{0};
    /// The CPU of the rank that last woke this one from sleep (-1: none since it looked).
    std::atomic<int> woken_from{-1};
};

/// Collective descriptor a rank publishes before the arrival barrier of a collective.
struct alignas(cache_line) collective_slot {
    int kind = 0;
    int root = 0;
    std::size_t size = 0;
    void* data = nullptr;
    std::vector<double> partial;  ///< allreduce: this rank's share of the sum
};

class world {
public:
    world(int ranks, const options& opt)
        : ranks_(ranks), opt_(opt), controls_(static_cast<std::size_t>(ranks)),
          slots_(static_cast<std::size_t>(ranks)), epoch_(std::chrono::steady_clock::now()) {
        if (opt.ring_cells < 16 || (opt.ring_cells & (opt.ring_cells - 1)) != 0)
            raise<invalid_argument>(-1, "threads: ring_cells ", opt.ring_cells, " is not a power of two >= 16");
        if (cells_for(opt.eager_limit) > opt.ring_cells / 4)
            raise<invalid_argument>(-1, "threads: eager_limit ", opt.eager_limit, " bytes needs more than a quarter of the ",
                                    opt.ring_cells, "-cell ring");
        if (opt.spin.count() < 0) raise<invalid_argument>(-1, "threads: negative spin time ", opt.spin.count(), " ns");
        cores_ = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        const auto usable = usable_cpus();
        home_ = placement(ranks, opt);
        if (!home_.empty()) allowed_ = usable;
        counts_preemptions_ = opt.count_preemptions && ranks <= (usable.empty() ? cores_ : static_cast<int>(usable.size()));
        awake_.store(ranks, std::memory_order_relaxed);
        // One shared line per pair of ranks (and per rank, for messages to itself).
        lines_ = std::make_unique<pair_line[]>(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks + 1) / 2);
        channels_.reserve(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks));
        for (int dest = 0; dest < ranks; ++dest)
            for (int source = 0; source < ranks; ++source) {
                const int lo = std::min(source, dest), hi = std::max(source, dest);
                pair_line& line = lines_[static_cast<std::size_t>(hi) * static_cast<std::size_t>(hi + 1) / 2 + static_cast<std::size_t>(lo)];
                channels_.push_back(std::make_unique<channel>(opt.ring_cells, line.half[source <= dest ? 0 : 1]));
            }
    }

    int ranks() const noexcept { return ranks_; }
    const options& opts() const noexcept { return opt_; }
    /// Whether a rank's preemptions are its disturbances (options::count_preemptions).
    bool counts_preemptions() const noexcept { return counts_preemptions_; }
    /// True while more ranks are awake than the machine has cores.
    bool crowded() const noexcept { return awake_.load(std::memory_order_relaxed) > cores_; }
    /// Bookkeeping for `crowded`: a rank going to sleep, and waking up.
    void dozing() noexcept { awake_.fetch_sub(1, std::memory_order_relaxed); }
    void waking() noexcept { awake_.fetch_add(1, std::memory_order_relaxed); }
    std::chrono::steady_clock::time_point epoch() const noexcept { return epoch_; }

    /// The CPU rank `r` starts on (options::pin), or -1 when ranks are left where they start.
    int home(int r) const noexcept { return home_.empty() ? -1 : home_[static_cast<std::size_t>(r)]; }
    /// The CPUs a rank is left free to run on after being placed (empty: not placed).
    const std::vector<int>& allowed() const noexcept { return allowed_; }

    /// Rank `rank`, just awake from sleep: if it woke on the CPU of the rank that woke it (the
    /// scheduler's choice for a wakee), moves it to its start CPU, or to another if its waker
    /// sits there, unless ranks are not placed or more are awake than cores (options::pin).
    void spread_after_sleep(int rank) noexcept {
        const int from = control(rank).woken_from.exchange(-1, std::memory_order_relaxed);
        if (home_.empty() || from < 0 || crowded()) return;
        const int here = current_cpu();
        if (here != from) return;
        int to = home(rank);
        if (to == here) {
            to = -1;
            for (int c : allowed_)
                if (c != here) {
                    to = c;
                    break;
                }
        }
        if (to >= 0) start_on_cpu(to, allowed_);
    }

    /// The channel carrying messages from `source` to `dest`.
    channel& link(int source, int dest) noexcept {
        return *channels_[static_cast<std::size_t>(dest) * static_cast<std::size_t>(ranks_) + static_cast<std::size_t>(source)];
    }
    rank_control& control(int rank) noexcept { return controls_[static_cast<std::size_t>(rank)]; }
    collective_slot& slot(int rank) noexcept { return slots_[static_cast<std::size_t>(rank)]; }

    // ---- waking and stopping ----

    /// Wakes `rank` if it sleeps. Callers publish their change (seq_cst) before calling.
    void ring(int rank) noexcept {
        rank_control& c = control(rank);
        if (c.sleep.load(std::memory_order_seq_cst) == sleep_state::awake) return;
        const sleep_state was = c.sleep.exchange(sleep_state::awake, std::memory_order_seq_cst);
        if (was == sleep_state::awake) return;
        wakes_.fetch_add(1, std::memory_order_seq_cst);  // after the state: see check_deadlock
        if (was == sleep_state::counted) blocked_.fetch_sub(1, std::memory_order_seq_cst);
        c.woken_from.store(current_cpu(), std::memory_order_relaxed);
        c.doorbell.fetch_add(1, std::memory_order_seq_cst);
        wake_all(c.doorbell);
    }

    void ring_all_but(int me) noexcept {
        for (int r = 0; r < ranks_; ++r)
            if (r != me) ring(r);
    }

    /// A sleeper whose last check failed: count it blocked; declares a deadlock when this
    /// completes the count. Returns false if a ringer woke it in between (check again).
    bool count_blocked(int rank) {
        rank_control& c = control(rank);
        auto expected = sleep_state::sleeping;
        if (!c.sleep.compare_exchange_strong(expected, sleep_state::counted, std::memory_order_seq_cst)) return false;
        blocked_.fetch_add(1, std::memory_order_seq_cst);
        check_deadlock();
        return true;
    }

    /// A sleeper found itself still counted when it looked again: take the count back.
    void uncount() noexcept { blocked_.fetch_sub(1, std::memory_order_seq_cst); }

    /// A sleeper leaving on its own (its condition held): uncount it unless a ringer did.
    void leave_sleep(int rank) noexcept {
        if (control(rank).sleep.exchange(sleep_state::awake, std::memory_order_seq_cst) == sleep_state::counted)
            blocked_.fetch_sub(1, std::memory_order_seq_cst);
    }

    /// The rank's function returned or threw: it will never send again.
    void finish(int rank) {
        control(rank).finished.store(true, std::memory_order_seq_cst);
        ring_all_but(rank);  // senders waiting on an offer to this rank see it finished and withdraw
        // Counted as finished only now that every wake-up it caused is visible.
        control(rank).settled.store(true, std::memory_order_seq_cst);
        finished_.fetch_add(1, std::memory_order_seq_cst);
        check_deadlock();
    }
    bool finished(int rank) noexcept { return control(rank).finished.load(std::memory_order_seq_cst); }

    /// Records a rank's failure and stops every rank. Of several failures `run` rethrows the
    /// lowest rank's, ignoring ranks that only raised `stopped`: when every rank rejects the
    /// same bad argument, the report is the same from one run to the next.
    [[gnu::cold]] void fail(int rank, std::exception_ptr e) {
        bool first = false;
        {
            std::lock_guard lock(stop_mutex_);
            const bool is_stop = is_stopped(e);
            if (!failure_ || (failure_is_stop_ && !is_stop) ||
                (!is_stop && !failure_is_stop_ && rank < failure_rank_)) {
                failure_ = e;
                failure_rank_ = rank;
                failure_is_stop_ = is_stop;
            }
            if (reason_.load(std::memory_order_relaxed) == stop_reason::none) {
                message_ = describe_failure(rank, e);
                reason_.store(stop_reason::failed, std::memory_order_seq_cst);
                first = true;
            }
        }
        if (first) ring_all_but(rank);
    }

    /// The exception `run` rethrows, if any.
    std::exception_ptr failure() const noexcept { return failure_; }

    stop_reason stopping() const noexcept { return reason_.load(std::memory_order_acquire); }

    /// Raises the exception matching the stop reason (on a rank that finds the run stopped).
    [[noreturn, gnu::cold]] void throw_stop(int rank) const {
        if (reason_.load(std::memory_order_acquire) == stop_reason::deadlock) throw deadlock_error(message_);
        raise<stopped>(rank, "stopped because ", message_);
    }

    // ---- the barrier every collective uses ----

    std::uint32_t barrier_generation() const noexcept { return generation_.load(std::memory_order_acquire); }

    /// Arrives at the barrier of generation `g`; returns true if this arrival released it.
    bool barrier_arrive(int me, std::uint32_t g) noexcept {
        if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 < ranks_) return false;
        arrived_.store(0, std::memory_order_relaxed);
        generation_.store(g + 1, std::memory_order_seq_cst);
        ring_all_but(me);
        return true;
    }

    /// Keeps a large message a finished rank drained but never received, until teardown.
    void leave_behind(large_message* m) {
        std::lock_guard lock(stop_mutex_);
        left_behind_.push_back(m);
    }

    /// After every rank's thread has ended: every state is final now.
    ~world() {
        for (large_message* m : left_behind_) channel::dispose_large(m);
    }

private:
    [[gnu::cold]] static bool is_stopped(std::exception_ptr e) {
        try {
            std::rethrow_exception(e);
        } catch (const stopped&) {
            return true;
        } catch (...) {
            return false;
        }
    }

    [[gnu::cold]] static std::string describe_failure(int rank, std::exception_ptr e) {
        std::string what;
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& x) {
            what = x.what();
        } catch (...) {
            what = "an exception that is not a std::exception";
        }
        return "rank " + std::to_string(rank) + " failed (" + what + ")";
    }

    void check_deadlock() {
        const int blocked = blocked_.load(std::memory_order_seq_cst);
        const int finished = finished_.load(std::memory_order_seq_cst);
        if (blocked <= 0 || blocked + finished < ranks_) return;
        {
            std::lock_guard lock(stop_mutex_);
            if (reason_.load(std::memory_order_relaxed) != stop_reason::none) return;
            // Confirm the hint: every rank asleep (counted) or settled, with no wake-up since.
            const std::uint64_t before = wakes_.load(std::memory_order_seq_cst);
            for (int r = 0; r < ranks_; ++r) {
                const rank_control& c = control(r);
                if (!c.settled.load(std::memory_order_seq_cst) && c.sleep.load(std::memory_order_seq_cst) != sleep_state::counted)
                    return;
            }
            if (wakes_.load(std::memory_order_seq_cst) != before) return;
            declare_deadlock();
        }
        ring_all_but(-1);
    }

    /// Writes the deadlock report and stops the run (under the stop mutex; the caller then
    /// wakes every rank).
    [[gnu::cold, gnu::noinline]] void declare_deadlock() {
        std::ostringstream os;
        os << "deadlock: every rank is blocked or finished and nothing can wake any of them:";
        for (int r = 0; r < ranks_; ++r) {
            rank_control& c = control(r);
            os << (r ? "; " : " ") << "rank " << r << ' ';
            if (c.finished.load(std::memory_order_seq_cst)) {
                os << "finished";
                continue;
            }
            wait_desc w{c.op.load(), c.peer.load(), c.tag.load(), c.size.load(), c.count.load()};
            os << "waits in " << describe(w);
        }
        message_ = os.str();
        reason_.store(stop_reason::deadlock, std::memory_order_seq_cst);
    }

    int ranks_;
    options opt_;
    int cores_ = 1;
    bool counts_preemptions_ = false;
    std::unique_ptr<pair_line[]> lines_;
    std::vector<std::unique_ptr<channel>> channels_;
    std::vector<rank_control> controls_;
    std::vector<collective_slot> slots_;
    std::chrono::steady_clock::time_point epoch_;
    std::vector<int> home_, allowed_;  ///< placement(ranks, opt), and the usable CPUs where placed

    alignas(cache_line) std::atomic<int> awake_{0};
    alignas(cache_line) std::atomic<int> blocked_{0};
    std::atomic<std::uint64_t> wakes_{0};
    std::atomic<int> finished_{0};
    alignas(cache_line) std::atomic<int> arrived_{0};
    alignas(cache_line) std::atomic<std::uint32_t> generation_{0};
    alignas(cache_line) std::atomic<stop_reason> reason_{stop_reason::none};
    std::mutex stop_mutex_;
    std::string message_;
    std::exception_ptr failure_;
    int failure_rank_ = 0;
    bool failure_is_stop_ = false;
    std::vector<large_message*> left_behind_;
};

}  // namespace detail
}  // namespace comet::threads

#if !defined(COMET_COMPILED)
#include <comet/transport/threads/world.ipp>
#endif
