// A transport with exactly the eight members of the Transport concept's core, written outside
// include/ as a third party would: rank, size, isend, irecv, test, iprobe, now and the request
// type. It borrows the threads transport's point-to-point underneath and nothing else, so
// everything a kernel needs beyond the core (blocking send and receive, wait, the collectives,
// compute, abort) comes from comet::ops' portable algorithms.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/transport/threads.hpp>

#include <optional>

namespace comet_test {

class minimal_transport {
public:
    using request = comet::threads::transport::request;

    explicit minimal_transport(comet::threads::transport& inner) : t_(&inner) {}

    int rank() const { return t_->rank(); }
    int size() const { return t_->size(); }
    request isend(int dest, int tag, comet::const_bytes data) { return t_->isend(dest, tag, data); }
    request irecv(int source, int tag, comet::mutable_bytes data) { return t_->irecv(source, tag, data); }
    std::optional<comet::status> test(request& r) { return t_->test(r); }
    std::optional<comet::status> iprobe(int source, int tag) { return t_->iprobe(source, tag); }
    double now() { return t_->now(); }

private:
    comet::threads::transport* t_;
};

static_assert(comet::transport<minimal_transport>);
static_assert(comet::capabilities_of<minimal_transport>() == comet::capabilities{});

/// Runs `body(minimal_transport&)` on `ranks` threads. A failing rank stops the others (they
/// poll `test`, which notices) and the run rethrows its exception. A deadlock is not detected:
/// ranks that poll never block, so the threads transport cannot see them all waiting.
struct minimal_runner {
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = false;
    template <class F>
    void operator()(int ranks, F&& body) const {
        comet::threads::run(ranks, [&](comet::threads::transport& inner) {
            minimal_transport t(inner);
            body(t);
        });
    }
};

}  // namespace comet_test
