// comet/transport/nx2/engine.hpp — the simulator's engine: a discrete-event scheduler in integer
// picoseconds that runs every rank's process on a fiber and every node's kernel work one handler
// at a time, with detours (OS noise), the deadlock report and the propagation of a rank's failure.
// It knows no machine's protocol: the model running on it (NX/2's, kernel.hpp) decides what a
// handler costs and does, and handles its own events (the network's).
//
// Scheduling. One event queue ordered by (time, insertion sequence) drives everything. A rank's
// process runs on its fiber until it blocks (a receive with nothing to receive, a send waiting
// for an acknowledgement) or charges CPU time (a system call, a copy, `compute`); then the
// scheduler takes the next event. Nothing depends on the host's speed or load: every decision
// is a function of virtual time and of the order of events, so two runs give the same times
// bit for bit.
//
// A node's CPU. The process charges time for what it does. The model runs its protocol in
// handlers ("interrupts"), one after another on the node's kernel; a handler that runs while
// the process computes steals its time (the process finishes later by the handler's cost), so
// overlap of communication with computation is whatever the handlers leave of it.
//
// Deadlock: the event queue is empty while some process waits — nothing can ever wake it — or
// while one polls for the `idle_poll_limit`-th time in a row. Every waiting rank then raises
// `deadlock_error` listing what each rank waits or polls for (as the model says it). A rank that
// throws stops the run: the others raise `stopped` at their next call (at once if waiting).
//
// Detours (OS noise; comet/transport/decorators/noisy.hpp registers them, `add_detours`): a
// detour takes its node's kernel for its length, as a handler of that cost would: it steals the
// time of a process charging CPU, handlers arriving meanwhile queue behind it, and a process
// woken meanwhile resumes when it ends. One that falls while a handler runs begins when that
// handler ends, before handlers still queued (a handler is not preempted; the system's own work
// goes before the messages'). Each schedule is generated lazily, one detour event at a time, and
// detours never keep a run alive: the run ends when every process has, deadlock is declared as if
// they were not there (a handler they hold back is no deadlock), and a poller's count of idle
// polls ignores what they push. With no detour registered none of this costs anything.
//
// The seam is static (CRTP): no virtual call on the hot path, whose speed is the simulator's
// (bench/bench_nx2.cpp). `Model` derives from `engine<Model, Work>` and provides, for the engine
// (make the engine a friend if they are private):
//   void begin_handler(int node, Work* w);  // node's idle kernel takes `w`: decide what it does
//                                           // and costs, then `run_handler(node, w, cost)`
//   void end_handler(int node, Work* w);    // that handler ends: its effects (the engine then
//                                           // starts the detours or the handler queued next)
//   void handle(const event& e);            // an event of a kind that is not the engine's
//   std::string waiting_for(int r);         // what rank r waits or polls for (deadlock reports)
// `Work` is a unit of kernel work (NX/2's: a transmission), queued through its `Work* irq_next`.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/transport/nx2/events.hpp>
#include <comet/transport/nx2/fibers.hpp>
#include <comet/transport/nx2/time.hpp>

#include <boost/context/detail/exception.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace comet::nx2 {

/// What detours (OS noise) took from a node: how many of one schedule's came, and their total
/// length (each took the node's CPU for its whole length, now or after the handler running).
struct detour_counters {
    std::uint64_t count = 0;
    vtime time = 0;
    double seconds() const noexcept { return to_seconds(time); }
};

namespace detail {

/// One detour: a node's CPU taken at `start` for `length`.
struct detour {
    vtime start = 0;
    vtime length = 0;
};

/// A node's detours in order of start, without end: each call gives the next.
using detour_stream = std::function<detour()>;

enum class app_state : std::uint8_t { running, charging, blocked, woken, finished };
enum class stop_reason : std::uint8_t { none, failed, deadlock };

/// Polls in a row (msgdone, iprobe, progress) that find nothing while no event is pending
/// anywhere, and the rank starts no operation between them, after which the run is declared
/// deadlocked. With no event pending every other rank is blocked or finished, so such a poll
/// can only ever find nothing; a program may still poll a bounded number of times before it
/// acts, so the verdict waits for a million of them (25 virtual seconds of the preset's calls;
/// a few tens of milliseconds of host time).
inline constexpr std::uint64_t idle_poll_limit = 1'000'000;

/// The scheduler of one run, and each node's CPU: its process (the rank's fiber) and its kernel.
template <class Model, class Work>
class engine {
public:
    engine(int nodes, int ranks, std::size_t stack_size)
        : ranks_(ranks), cpus_(static_cast<std::size_t>(nodes)), fibers_(ranks, stack_size) {}
    engine(const engine&) = delete;
    engine& operator=(const engine&) = delete;

    int ranks() const noexcept { return ranks_; }
    vtime now() const noexcept { return now_; }
    /// Events pushed so far (each is handled before the run ends: a measure of its work).
    std::uint64_t events_pushed() const noexcept { return events_.pushed(); }

    /// Bytes of the engine's state per node (memory estimates).
    static constexpr std::size_t bytes_per_node() noexcept { return sizeof(cpu); }

    /// Runs `rank_main(r)` for every rank on its fiber until all have finished; returns the
    /// lowest rank's failure (ignoring ranks merely stopped), if any. If the scheduler itself
    /// throws, the ranks still suspended are unwound first, while the model they call into from
    /// their destructors still exists.
    std::exception_ptr run(const std::function<void(int)>& rank_main) {
        try {
            for (int r = 0; r < ranks_; ++r) {
                fibers_.spawn(r, [this, r, &rank_main] {
                    try {
                        rank_main(r);
                    } catch (const boost::context::detail::forced_unwind&) {
                        throw;
                    } catch (...) {
                        fail(r, std::current_exception());
                    }
                    cpu_of(r).state = app_state::finished;
                });
                events_.push(0, event_kind::resume_app, r);
            }
            loop();
        } catch (...) {
            fibers_.unwind();
            throw;
        }
        return failure_;
    }

    // ==== called by a rank's process (on its fiber) ====

    /// The process spends `d` of CPU time (plus whatever handlers take meanwhile).
    void charge(int r, vtime d) {
        cpu& n = cpu_of(r);
        const vtime extra = n.kernel_busy ? std::max<vtime>(0, n.kernel_free - now_) : 0;
        if (n.kernel_busy && !n.detour_running) n.stolen += extra;
        const vtime end = now_ + d + extra;
        if (end == now_) return;
        n.busy_until = end;
        // Nothing can happen before `end`: no handler can steal time, no other process can run.
        // Skip the two switches (this is most of the simulator's speed on echo).
        if (events_.empty() || events_.next_time() > end) {
            now_ = end;
            return;
        }
        n.state = app_state::charging;
        push_resume(end, r);
        fibers_.suspend();
        n.state = app_state::running;
    }

    /// The CPU time interrupt handlers took from node `r`'s process so far (detours not counted).
    vtime stolen(int r) const noexcept { return cpu_of(r).stolen; }

    /// Raises the stop exception if the run is stopping.
    void check_stop(int r) const {
        if (reason_ == stop_reason::none) return;
        if (reason_ == stop_reason::deadlock) throw deadlock_error(message_);
        raise<stopped>(r, "stopped because ", message_);
    }

    /// Puts node `r`'s detours from `next` on its kernel from now on (a detour due earlier
    /// comes now); returns the handle that removes them and reads their counters.
    std::size_t add_detours(int r, detour_stream next) {
        if (noise_waiting_.empty()) noise_waiting_.resize(cpus_.size()), noise_edges_.resize(cpus_.size());
        const detour d = next();
        const std::size_t handle = noise_.size();
        noise_.push_back({r, std::move(next), d.length, {}});
        push_noise(std::max(d.start, now_), event_kind::detour, r, handle);
        return handle;
    }
    /// No further detours from schedule `handle` (one running or waiting still ends as it would).
    void remove_detours(std::size_t handle) noexcept { noise_[handle].next = nullptr; }
    const detour_counters& detours(std::size_t handle) const noexcept { return noise_[handle].counted; }
    /// The detours that began on node `r` so far plus those that ended: a reading moves across
    /// any stretch of time a detour overlaps, one running at its start included.
    std::uint64_t disturbances(int r) const noexcept {
        return noise_edges_.empty() ? 0 : noise_edges_[static_cast<std::size_t>(r)];
    }

protected:
    ~engine() = default;

    /// The queue and the clock, for the parts of the model that schedule events themselves.
    event_queue& events() noexcept { return events_; }
    const vtime& clock() const noexcept { return now_; }

    app_state state(int r) const noexcept { return cpus_[static_cast<std::size_t>(r)].state; }

    /// Suspends the process until `ready()` holds (evaluated whenever the model pokes this
    /// node), then raises the stop exception if the run is stopping. @pre !ready()
    template <class Ready>
    void suspend_until(int r, Ready& ready) {
        cpu& n = cpu_of(r);
        n.ready_fn = [](void* p) { return (*static_cast<Ready*>(p))(); };
        n.ready_ctx = &ready;
        n.state = app_state::blocked;
        fibers_.suspend();
        n.state = app_state::running;
        n.ready_fn = nullptr;
        check_stop(r);
    }

    /// Something changed for node `r`: wake its process if what it waits for holds now.
    void poke(int r) {
        cpu& n = cpu_of(r);
        if (n.state != app_state::blocked || !n.ready_fn(n.ready_ctx)) return;
        n.state = app_state::woken;
        events_.push(now_, event_kind::resume_app, r);
    }

    /// The rank started an operation: its polls in a row so far were not idle.
    void started_operation(int r) noexcept { cpu_of(r).idle_polls = 0; }

    /// A poll of rank `r` found nothing. Polling while no event is pending anywhere changes
    /// nothing; true once `idle_poll_limit` such polls came in a row (then the model declares the
    /// deadlock). Detours are not counted: those pending, and what they pushed since the last poll
    /// (their own events, a charge they lengthened), change nothing the poll looks at.
    bool idle_poll(int r) {
        cpu& n = cpu_of(r);
        const std::uint64_t pushed = events_.pushed() - noise_pushed_;
        if (!quiet() || pushed != n.poll_mark) {
            n.idle_polls = 0;
            n.poll_mark = pushed;
            return false;
        }
        return ++n.idle_polls >= idle_poll_limit;
    }

    /// Work for node `r`'s kernel: begins now if the kernel is idle, else queues.
    void interrupt(int r, Work* w) {
        cpu& n = cpu_of(r);
        w->irq_next = nullptr;
        if (!n.kernel_busy) return model().begin_handler(r, w);
        (n.irq_tail ? n.irq_tail->irq_next : n.irq_head) = w;
        n.irq_tail = w;
        ++queued_handlers_;
    }

    /// Node `r`'s kernel runs the handler of `w` for `cost` from now (the model's `begin_handler`
    /// decided it); its effects come at its end (`end_handler`).
    void run_handler(int r, Work* w, vtime cost) {
        cpu& n = cpu_of(r);
        n.kernel_busy = true;
        n.detour_running = false;
        n.kernel_free = now_ + cost;
        // Stolen from a charging process, also from one whose charge ends at this very instant:
        // its resumption is due now but has not run, and the handler has the CPU first. Left to
        // resume meanwhile, the process would run beside the handler: a receive posted then was
        // missed by the handler of its message, which had matched before it and left the message
        // unexpected, and both waited for ever (a train of 16 eager messages on the iPSC/860
        // with 33.6 us interrupts).
        if (n.state == app_state::charging && now_ <= n.busy_until) n.busy_until += cost, n.stolen += cost;
        events_.push(n.kernel_free, event_kind::handler_end, r, w);
    }

    /// Records a rank's failure and stops every rank. `run` reports the lowest rank's failure
    /// that is not a mere `stopped`, so the report does not depend on which rank failed first.
    void fail(int r, std::exception_ptr e) {
        const bool is_stop = [&] {
            try {
                std::rethrow_exception(e);
            } catch (const stopped&) {
                return true;
            } catch (...) {
                return false;
            }
        }();
        if (!failure_ || (failure_is_stop_ && !is_stop) || (!is_stop && !failure_is_stop_ && r < failure_rank_)) {
            failure_ = e;
            failure_rank_ = r;
            failure_is_stop_ = is_stop;
        }
        if (reason_ != stop_reason::none) return;
        std::string what;
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& x) {
            what = x.what();
        } catch (...) {
            what = "an exception that is not a std::exception";
        }
        message_ = "rank " + std::to_string(r) + " failed (" + what + ")";
        reason_ = stop_reason::failed;
        wake_all();
    }

    /// Stops the run as deadlocked, naming what every rank waits or polls for.
    void declare_deadlock() {
        std::ostringstream os;
        bool polling = false;
        for (int r = 0; r < ranks_; ++r) polling = polling || cpu_of(r).state == app_state::running;
        os << "deadlock at virtual time " << to_seconds(now_) << " s: every rank is blocked"
           << (polling ? ", finished or polling for what cannot come, and" : " or finished and") << " no event is pending:";
        for (int r = 0; r < ranks_; ++r) {
            const cpu& n = cpu_of(r);
            os << (r ? "; " : " ") << "rank " << r << ' ';
            if (n.state == app_state::finished)
                os << "finished";
            else if (n.state == app_state::running)
                os << "polls " << model().waiting_for(r) << ' ' << n.idle_polls << " times in a row with no event pending";
            else
                os << "waits in " << model().waiting_for(r);
        }
        message_ = os.str();
        reason_ = stop_reason::deadlock;
        wake_all();
    }

private:
    /// One node's CPU: its process and its kernel.
    struct cpu {
        app_state state = app_state::woken;
        bool kernel_busy = false;
        vtime busy_until = 0;  ///< end of the process's current charge of CPU time
        vtime stolen = 0;      ///< CPU time interrupt handlers took from the process so far
        bool detour_running = false;  ///< the kernel's occupant is a detour, not a handler
        bool (*ready_fn)(void*) = nullptr;
        void* ready_ctx = nullptr;
        vtime kernel_free = 0;
        Work* irq_head = nullptr;  ///< work queued for the busy kernel, in order
        Work* irq_tail = nullptr;
        // polling
        std::uint64_t idle_polls = 0;  ///< polls in a row that found nothing while nothing could change
        std::uint64_t poll_mark = 0;   ///< events pushed by the last of them
    };

    Model& model() noexcept { return static_cast<Model&>(*this); }
    cpu& cpu_of(int r) noexcept { return cpus_[static_cast<std::size_t>(r)]; }
    const cpu& cpu_of(int r) const noexcept { return cpus_[static_cast<std::size_t>(r)]; }

    /// Node `r`'s kernel is done with what it ran: detours waiting for it go first (as one, their
    /// lengths added), then the work queued.
    void kernel_next(int r) {
        cpu& n = cpu_of(r);
        n.kernel_busy = false;
        if (!noise_waiting_.empty())
            if (const vtime waiting = std::exchange(noise_waiting_[static_cast<std::size_t>(r)], 0))
                return detour_begins(r, waiting);
        if (Work* next = n.irq_head) {
            n.irq_head = next->irq_next;
            if (!n.irq_head) n.irq_tail = nullptr;
            --queued_handlers_;
            model().begin_handler(r, next);
        }
    }

    // ---- detours ----

    /// A detour of schedule `handle` is due: the schedule's next one is scheduled, and this one
    /// takes the kernel now, or after the handler (or detour) running.
    void detour_due(std::uint64_t handle) {
        noise_stream& s = noise_[handle];
        if (!s.next) return;  // removed
        const vtime length = s.length;
        const detour d = s.next();
        s.length = d.length;
        push_noise(std::max(d.start, now_), event_kind::detour, s.node, handle);
        ++s.counted.count;
        s.counted.time += length;
        if (cpu_of(s.node).kernel_busy)
            noise_waiting_[static_cast<std::size_t>(s.node)] += length;
        else
            detour_begins(s.node, length);
    }

    /// A detour takes node `r`'s kernel for `length`, stealing it from a charging process as a
    /// handler does.
    void detour_begins(int r, vtime length) {
        ++noise_edges_[static_cast<std::size_t>(r)];
        cpu& n = cpu_of(r);
        n.kernel_busy = true;
        n.detour_running = true;
        n.kernel_free = now_ + length;
        if (n.state == app_state::charging && now_ <= n.busy_until) n.busy_until += length;  // as run_handler
        push_noise(n.kernel_free, event_kind::detour_end, r);
    }

    /// Pushes an event of the detours' (none of it counts as progress, `idle_poll`).
    void push_noise(vtime t, event_kind kind, int r, std::uint64_t handle = 0) {
        ++noise_pending_;
        ++noise_pushed_;
        events_.push(t, kind, r, nullptr, handle);
    }

    /// Pushes node `r`'s resume at `t`. One pushed while nothing but detours is due is the
    /// detours' doing (a charge that reaches one, or that one lengthened), not progress.
    void push_resume(vtime t, int r) {
        if (quiet()) ++noise_pushed_;
        events_.push(t, event_kind::resume_app, r);
    }

    /// Whether nothing but detours is pending: no event but theirs, and no handler waiting for a
    /// kernel (one held back by a detour is work to come). Nothing but noise can happen then.
    bool quiet() const noexcept { return events_.size() == noise_pending_ && queued_handlers_ == 0; }

    // ---- the scheduler ----

    void loop() {
        for (;;) {
            if (quiet()) {  // detours never keep a run alive
                bool waiting = false;
                for (int r = 0; r < ranks_; ++r) waiting = waiting || cpu_of(r).state == app_state::blocked;
                if (!waiting) return;
                declare_deadlock();
                continue;
            }
            const event e = events_.pop();
            now_ = e.time;
            switch (e.kind) {
            case event_kind::resume_app: {
                cpu& n = cpu_of(e.node);
                if (n.state == app_state::charging) {
                    if (now_ < n.busy_until) {  // handlers (or detours) stole time meanwhile
                        push_resume(n.busy_until, e.node);
                        break;
                    }
                } else if (n.state != app_state::woken) {
                    break;
                }
                n.state = app_state::running;
                fibers_.resume(e.node);
                break;
            }
            case event_kind::handler_end:
                model().end_handler(e.node, static_cast<Work*>(e.item));
                kernel_next(e.node);
                break;
            case event_kind::detour:
                --noise_pending_;
                detour_due(e.tag);
                break;
            case event_kind::detour_end:
                --noise_pending_;
                ++noise_edges_[static_cast<std::size_t>(e.node)];
                kernel_next(e.node);
                break;
            default: model().handle(e); break;
            }
        }
    }

    void wake_all() {
        for (int r = 0; r < ranks_; ++r) {
            cpu& n = cpu_of(r);
            if (n.state != app_state::blocked) continue;
            n.state = app_state::woken;
            events_.push(now_, event_kind::resume_app, r);
        }
    }

    int ranks_;
    vtime now_ = 0;
    event_queue events_;
    std::size_t queued_handlers_ = 0;  ///< work waiting for a busy kernel, every node's
    std::vector<cpu> cpus_;
    stop_reason reason_ = stop_reason::none;
    std::string message_;
    std::exception_ptr failure_;
    int failure_rank_ = 0;
    bool failure_is_stop_ = false;
    // Detours: nothing of them is allocated or touched until one is registered. Before the
    // fibers: a rank's decorator unwound with its fiber removes its schedule.
    struct noise_stream {
        int node;
        detour_stream next;  ///< empty once removed
        vtime length;        ///< of the detour due next
        detour_counters counted;
    };
    std::vector<noise_stream> noise_;  ///< by handle
    /// By node, once a schedule is registered: the detours that began and ended there so far
    /// (`disturbances`).
    std::vector<std::uint64_t> noise_edges_;
    /// By node, once a schedule is registered: detours due while its kernel was busy, their
    /// lengths added, to run when it is free.
    std::vector<vtime> noise_waiting_;
    std::size_t noise_pending_ = 0;   ///< detour and detour_end events in the queue
    std::uint64_t noise_pushed_ = 0;  ///< events pushed by or for detours
    fiber_set fibers_;  // last: destroyed first, while everything its ranks may touch exists
};

}  // namespace detail
}  // namespace comet::nx2
