// How the comet program ends early and keeps what it measured: SIGINT and SIGTERM set a flag
// (nothing else: a handler may do little more safely), the suite reads it between two points
// (suite_config::stop) and stops there; a launch keeps each point as it is measured (run_log),
// so that on an interrupt or an error the report holds everything up to there and says where
// and why the run stopped.
#pragma once

#include "program.hpp"

#include <comet/report/report.hpp>
#include <comet/stats/compare.hpp>
#include <comet/suite/suite.hpp>

#include <atomic>
#include <csignal>
#include <exception>
#include <mutex>
#include <optional>
#include <string>

namespace comet_program {

namespace detail {
/// The signal that asked the run to stop, 0 while none has. An atomic that is lock-free may be
/// written by a signal handler, and the ranks' threads read it.
inline std::atomic<int> stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" inline void on_stop_signal(int signal) { stop_signal.store(signal, std::memory_order_relaxed); }
}  // namespace detail

/// SIGINT and SIGTERM stop the suite at the next point instead of killing the program. Once:
/// the handler resets itself (SA_RESETHAND), so a second signal ends the program at once,
/// should a point never end (a rank waiting for a message that will not come).
inline void stop_on_signals() {
    struct sigaction action {};
    action.sa_handler = detail::on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

/// The signal that asked to stop (0: none).
inline int stop_requested() { return detail::stop_signal.load(std::memory_order_relaxed); }

/// "interrupted (SIGINT)": the reason a signal gives.
inline std::string signal_reason(int signal) {
    return std::string("interrupted (") + (signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal " + std::to_string(signal)) +
           ")";
}

/// The points a launch measured in the current group, as they come, and the kernel running.
/// Points come from the measuring rank; kernels from every rank (a mutex: threads ranks are
/// threads).
class run_log {
public:
    /// Sets `cfg`'s callbacks to keep the log (after `on_point`, which it keeps) and to stop
    /// when a signal came.
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
        cfg.stop = []() -> std::optional<std::string> {
            if (const int s = stop_requested()) return signal_reason(s);
            return std::nullopt;
        };
    }
    /// A new group starts: its points are the run's own once it completes.
    void next_group() {
        std::lock_guard lock(mutex_);
        points_ = {};
        kernel_.clear();
    }
    /// The group stopped with `failure` (an exception from the run): `o` takes the points of
    /// the group measured so far, where and why it stopped, and the failure to rethrow once
    /// the report is written (none for a stop the suite made on a signal).
    void stopped(outcome& o, std::exception_ptr failure) {
        std::lock_guard lock(mutex_);
        comet::stop_note note{.kernel = kernel_, .last_point = points_.records.empty() ? "" : comet::point_name(points_.records.back())};
        try {
            std::rethrow_exception(failure);
        } catch (const comet::suite_stopped& e) {
            note.reason = e.what();
            failure = nullptr;
        } catch (const std::exception& e) {
            note.reason = e.what();
        } catch (...) {
            note.reason = "an exception that is not a std::exception";
        }
        o.results.append(points_);
        o.stopped = note;
        o.failure = failure;
    }

private:
    std::mutex mutex_;
    comet::result_set points_;
    std::string kernel_;
};

}  // namespace comet_program
