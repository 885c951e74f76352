// How the comet program ends early and keeps what it measured. SIGINT and SIGTERM are taken
// by a thread of their own (sigwait), not by a handler: they are blocked in every other thread
// (the ranks' threads inherit the mask of main, which blocks them first), so what a signal
// starts may do anything a thread may.
// - The first requests a stop: the suite's stop token (suite_config::stop), which every
//   measurement engine reads before each sample, so the kernel running ends within one sample
//   on every rank with what it measured; run_suite then throws suite_stopped, and the launch
//   keeps every point (run_log) and the report says where and why the run stopped.
// - A second (a point that will not end: a rank waiting for a message that never comes, a
//   sample far longer than expected) writes the report of everything measured so far from the
//   watching thread, at once, and ends the program with 128 + the first signal; so does a stop
//   that has not ended the run `grace_seconds` after the first signal (a sample of --reps
//   millions of iterations of a large operation may take minutes): the points still being
//   sampled are then not in the report, which says so. While the launch's own report is being
//   written a second signal waits for it; a third ends the program at once.
#pragma once

#include "program.hpp"
#include "report.hpp"

#include <comet/report/report.hpp>
#include <comet/stats/compare.hpp>
#include <comet/suite/suite.hpp>

#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <ctime>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

namespace comet_program {

/// "interrupted (SIGINT)": the reason a signal gives.
inline std::string signal_reason(int signal) {
    return std::string("interrupted (") + (signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal " + std::to_string(signal)) +
           ")";
}

/// The program's signals (process-wide, as signals are): the stop they request, and what a
/// second one writes.
class interrupts {
public:
    static interrupts& instance() {
        static interrupts one;
        return one;
    }

    /// Blocks SIGINT and SIGTERM in the calling thread (main, before it starts any other) and
    /// starts the thread that takes them. Once.
    void watch() {
        std::call_once(started_, [this] {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, SIGINT);
            sigaddset(&set, SIGTERM);
            pthread_sigmask(SIG_BLOCK, &set, nullptr);
            std::thread([this, set] { take(set); }).detach();
        });
    }

    /// The stop the first signal requests.
    std::stop_token token() const { return source_.get_token(); }
    /// The first signal (0: none yet).
    int signal() const { return signal_.load(); }

    /// Seconds a stop may take before the report is written as for a second signal.
    static constexpr int grace_seconds = 2;

    /// What a second signal writes, given the first signal and why it writes ("" for a second
    /// signal): the launch's report of what it measured so far. An empty function: nothing to
    /// write now (the launch's own report is being written, and a second signal waits for it).
    void on_second(std::function<void(int, const std::string&)> write) {
        std::lock_guard lock(mutex_);
        write_ = std::move(write);
    }

private:
    interrupts() = default;

    void take(sigset_t set) {
        int sig = 0;
        while (sigwait(&set, &sig) != 0) {
        }
        signal_.store(sig);
        source_.request_stop();
        std::cerr << "\ncomet: " << signal_reason(sig) << ": stopping after the sample in progress "
                  << "(again: write the report of what was measured and exit now)" << std::endl;
        // A sample may be long (--reps fixed at millions of iterations of a large operation): if
        // the run has not ended after the grace, the report is written as for a second signal.
        const timespec grace{static_cast<time_t>(grace_seconds), 0};
        for (int again = 0;;) {
            const int got = sigtimedwait(&set, nullptr, &grace);
            if (got > 0) ++again;
            if (got < 0 && errno != EAGAIN) continue;  // EINTR
            std::unique_lock lock(mutex_, std::try_to_lock);
            if (lock.owns_lock() && write_) {
                std::cerr << "comet: " << (got > 0 ? signal_reason(got) + " again" : "the sample in progress outlasted " + std::to_string(grace_seconds) + " s")
                          << ": writing the report of what was measured so far" << std::endl;
                try {
                    write_(signal_.load(), got > 0 ? "" : "the sample in progress outlasted " + std::to_string(grace_seconds) + " s");
                } catch (const std::exception& e) {
                    std::cerr << "comet: the report could not be written: " << e.what() << std::endl;
                }
                std::_Exit(128 + signal_.load());
            }
            if (again >= 2) std::_Exit(128 + signal_.load());  // a third: at once, whatever is being written
            if (got > 0) std::cerr << "comet: " << signal_reason(got) << " again: the report is being written (again: exit at once)" << std::endl;
        }
    }

    std::once_flag started_;
    std::stop_source source_;
    std::atomic<int> signal_{0};
    std::mutex mutex_;
    std::function<void(int, const std::string&)> write_;
};

/// Sets `cfg`'s stop request to the program's signals' (on every process of an MPI job: the
/// suite's stop is collective).
inline void stop_on_signals(comet::suite_config& cfg) {
    cfg.stop = interrupts::instance().token();
    cfg.stop_reason = [] { return signal_reason(interrupts::instance().signal()); };
}

/// The points a launch measured in the current group, as they come, and the kernel running.
/// Points come from the measuring rank; kernels from every rank (a mutex: threads ranks are
/// threads).
class run_log {
public:
    /// Sets `cfg`'s callbacks to keep the log (after `on_point`, which it keeps) and its stop
    /// request to the program's signals'.
    void attach(comet::suite_config& cfg) {
        cfg.on_point = [this, shown = std::move(cfg.on_point)](const comet::record& r) {
            if (shown) shown(r);
            std::lock_guard lock(mutex_);
            points_.records.push_back(r);
        };
        cfg.on_kernel = [this](const std::string& name) {
            std::lock_guard lock(mutex_);
            kernel_ = name;
        };
        stop_on_signals(cfg);
    }
    /// A new group (or round) starts: its points are the run's own once it completes.
    void next_group() {
        std::lock_guard lock(mutex_);
        points_ = {};
        kernel_.clear();
    }
    /// What the launch has of its earlier groups and rounds, merged (a second signal writes
    /// it with the current round's points).
    void keep(const comet::result_set& earlier) {
        std::lock_guard lock(mutex_);
        earlier_ = earlier;
    }
    /// Everything measured so far: what `keep` was given, with the current round's points added
    /// as a round of theirs (add_round), and where the run is.
    std::pair<comet::result_set, comet::stop_note> snapshot(const std::string& reason) {
        std::lock_guard lock(mutex_);
        comet::result_set all = earlier_;
        add_round(all, points_);
        return {std::move(all), note(reason)};
    }
    /// The group stopped with `failure` (an exception from the run): `o` takes the points of
    /// the group measured so far, where and why it stopped, and the failure to rethrow once
    /// the report is written (none for a stop the suite made on a signal).
    void stopped(outcome& o, std::exception_ptr failure) {
        std::lock_guard lock(mutex_);
        comet::stop_note n = note("");
        try {
            std::rethrow_exception(failure);
        } catch (const comet::suite_stopped& e) {
            n.reason = e.what();
            failure = nullptr;
        } catch (const std::exception& e) {
            n.reason = e.what();
        } catch (...) {
            n.reason = "an exception that is not a std::exception";
        }
        o.results.append(points_);
        o.stopped = n;
        o.failure = failure;
    }

private:
    comet::stop_note note(const std::string& reason) const {
        return {.kernel = kernel_, .last_point = points_.records.empty() ? "" : comet::point_name(points_.records.back()), .reason = reason};
    }

    std::mutex mutex_;
    comet::result_set earlier_, points_;
    std::string kernel_;
};

/// The last line of a run that stopped early: where, why, and where its report is.
inline std::string stopped_line(const settings& s, const comet::stop_note& note) {
    return "comet: " + comet::describe(note) + (s.out.empty() ? "" : "; the report in " + s.out + " holds what was measured before");
}

/// While it lives, a second signal writes `log`'s snapshot as the report of `s` (on a
/// `transport` run of `nodes`, the largest group), with the outcome's other parts from `base`.
class second_signal_writes {
public:
    second_signal_writes(const settings& s, run_log& log, outcome base) {
        interrupts::instance().on_second([&s, &log, base = std::move(base)](int signal, const std::string& why) {
            outcome o = base;
            auto [results, note] = log.snapshot(signal_reason(signal) + "; " + (why.empty() ? "twice" : why) +
                                                ": the report was written at once, without the points still being sampled");
            o.results = std::move(results);
            o.stopped = note;
            write_report(s, std::move(o));
            // The same last line as a run that stopped by itself: where it stopped, and why.
            std::cerr << stopped_line(s, note) << std::endl;
        });
    }
    second_signal_writes(const second_signal_writes&) = delete;
    second_signal_writes& operator=(const second_signal_writes&) = delete;
    ~second_signal_writes() { interrupts::instance().on_second({}); }
};

}  // namespace comet_program
