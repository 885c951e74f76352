// A transport written outside comet's tree, as a third party writes one: only the eight
// members of the point-to-point core (core/concepts.hpp), here forwarding to comet's threads
// transport and keeping its own request type. comet::ops supplies everything else (blocking
// send and receive, wait, the collectives, compute, abort) by its portable algorithms, and
// comet's conformance suite checks the result, built against the installed package.
#define BOOST_TEST_MODULE own_transport
#include <comet/testing/conformance.hpp>
#include <comet/transport/threads.hpp>

#include <memory>
#include <optional>

namespace user {

/// Not comet's code: the core and nothing more.
class minimal {
public:
    class request {
    public:
        request() = default;
        explicit request(comet::threads::transport::request r)
            : inner_(std::make_unique<comet::threads::transport::request>(std::move(r))) {}
        comet::threads::transport::request* get() { return inner_.get(); }

    private:
        std::unique_ptr<comet::threads::transport::request> inner_;
    };

    explicit minimal(comet::threads::transport& t) : t_(t) {}
    int rank() const { return t_.rank(); }
    int size() const { return t_.size(); }
    request isend(int dest, int tag, comet::const_bytes b) { return request(t_.isend(dest, tag, b)); }
    request irecv(int source, int tag, comet::mutable_bytes b) { return request(t_.irecv(source, tag, b)); }
    std::optional<comet::status> test(request& r) { return r.get() ? t_.test(*r.get()) : comet::status{}; }
    std::optional<comet::status> iprobe(int source, int tag) { return t_.iprobe(source, tag); }
    double now() { return t_.now(); }

private:
    comet::threads::transport& t_;
};

struct runner {
    // threads::run stops every rank and rethrows when one throws; a global deadlock it sees
    // only among ranks blocked inside the threads transport, and this transport's ranks wait by
    // polling test(), so they never block there.
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = false;
    template <class F>
    void operator()(int ranks, F&& body) const {
        comet::threads::run(ranks, [&](comet::threads::transport& t) {
            minimal m(t);
            body(m);
        });
    }
};

}  // namespace user

static_assert(comet::transport<user::minimal>);
static_assert(!comet::buffered_send_transport<user::minimal>);

COMET_TRANSPORT_CONFORMANCE(minimal_on_threads, user::runner{})
