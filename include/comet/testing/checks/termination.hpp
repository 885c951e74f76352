// comet/testing/checks/termination.hpp — the conformance checks of how a run ends, which are the
// runner's part as much as the transport's: abort(message) ends every rank with comet::aborted,
// an exception on one rank ends the run with that exception, and a deadlock is reported, not
// hung. A runner that does not catch failures (or detect deadlock) skips them.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/ops/ops.hpp>
#include <comet/testing/session.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace comet::testing::checks {

/// abort(message) ends the run with comet::aborted naming the rank and the whole message (300
/// characters on two lines: no fixed buffer or first line cuts it; '%' and braces kept as they
/// are, not read as a format). The other ranks wait for a
/// message never sent: stopped by the runner, or failing at their deadline.
template <class Runner>
void abort_stops_everyone(const Runner& run, const limits& l) {
    if constexpr (testing::detail::catches_failures<Runner>()) {
        std::string message = "conformance abort: 50%% {} %s\nof two lines and more:";
        for (int i = 0; message.size() < 300; ++i) message.append(1, ' ').append(std::to_string(i));
        try {
            run(testing::detail::group_size(run, 3), [&](auto& t) {
                session s("abort_stops_everyone", t.rank(), l);
                if (t.rank() == 1) s.call("ops::abort", [&] { ops::abort(t, message); });
                std::vector<std::byte> b(8);
                s.recv(t, any_source, 77, b);  // never sent: only the abort ends this
                s.fail("a receive of a message nobody sent completed");
            });
        } catch (const aborted& e) {
            const std::string what = e.what();
            if (what.find("rank 1") == std::string::npos || what.find(message) == std::string::npos)
                throw conformance_failure("abort_stops_everyone: the error \"" + what + "\" should name rank 1 and the message");
            // An empty message aborts as well.
            try {
                run(testing::detail::group_size(run, 2), [&](auto& t) {
                    session s("abort_stops_everyone", t.rank(), l);
                    if (t.rank() == 0) s.call("ops::abort", [&] { ops::abort(t, ""); });
                    std::vector<std::byte> b(8);
                    s.recv(t, any_source, 77, b);
                    s.fail("a receive of a message nobody sent completed");
                });
            } catch (const aborted& empty) {
                if (std::string(empty.what()).find("rank 0") == std::string::npos)
                    throw conformance_failure("abort_stops_everyone: the error \"" + std::string(empty.what()) + "\" of abort(\"\") should name rank 0");
                return;
            }
            throw conformance_failure("abort_stops_everyone: abort(\"\") ended the run without raising comet::aborted");
        }
        throw conformance_failure("abort_stops_everyone: the run ended without raising comet::aborted");
    }
}

/// An exception on one rank ends the run with that exception, even while others wait.
template <class Runner>
void exception_stops_everyone(const Runner& run, const limits& l) {
    if constexpr (testing::detail::catches_failures<Runner>()) {
        try {
            run(testing::detail::group_size(run, 3), [&](auto& t) {
                session s("exception_stops_everyone", t.rank(), l);
                if (t.rank() == 0) throw std::out_of_range("conformance exception");
                std::vector<std::byte> b(8);
                s.recv(t, 0, 78, b);  // never sent: only the runner's stop ends this
                s.fail("a receive of a message nobody sent completed");
            });
        } catch (const std::out_of_range& e) {
            if (std::string(e.what()) != "conformance exception")
                throw conformance_failure(std::string("exception_stops_everyone: rethrew \"") + e.what() + "\"");
            return;
        }
        throw conformance_failure("exception_stops_everyone: the run did not rethrow the rank's exception");
    }
}

/// Every rank receiving from the other, with nothing sent, is reported by a runner that
/// detects deadlock, not hung (the one check that relies on the runner to see a hang).
template <class Runner>
void deadlock_is_reported(const Runner& run, const limits& l) {
    if constexpr (testing::detail::detects_deadlock<Runner>()) {
        try {
            run(testing::detail::group_size(run, 2), [&](auto& t) {
                session s("deadlock_is_reported", t.rank(), l);
                std::vector<std::byte> b(8);
                s.call("ops::recv", [&] { ops::recv(t, (t.rank() + 1) % t.size(), 3, b); });
            });
        } catch (const deadlock_error& e) {
            if (std::string(e.what()).find("rank 0") == std::string::npos)
                throw conformance_failure(std::string("deadlock_is_reported: the report does not name rank 0: ") + e.what());
            return;
        }
        throw conformance_failure("deadlock_is_reported: the run ended without raising comet::deadlock_error");
    }
}

}  // namespace comet::testing::checks
