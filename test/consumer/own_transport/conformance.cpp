// A user's own transport type — here one that wraps the threads transport and keeps its own
// request handles — checked by comet's conformance suite, as a user would check theirs.
#define BOOST_TEST_MODULE own_transport
#include <comet/testing/conformance.hpp>
#include <comet/transport/threads.hpp>

#include <memory>

namespace user {

/// Not comet's code: a transport with its own request type, forwarding to threads.
class wrapped {
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

    explicit wrapped(comet::threads::transport& t) : t_(t) {}
    int rank() const { return t_.rank(); }
    int size() const { return t_.size(); }
    void send(int d, int tag, comet::const_bytes b) { t_.send(d, tag, b); }
    comet::status recv(int s, int tag, comet::mutable_bytes b) { return t_.recv(s, tag, b); }
    request isend(int d, int tag, comet::const_bytes b) { return request(t_.isend(d, tag, b)); }
    request irecv(int s, int tag, comet::mutable_bytes b) { return request(t_.irecv(s, tag, b)); }
    comet::status wait(request& r) { return r.get() ? t_.wait(*r.get()) : comet::status{}; }
    std::optional<comet::status> test(request& r) {
        return r.get() ? t_.test(*r.get()) : std::optional<comet::status>(comet::status{});
    }
    void wait_all(std::span<request> rs) {
        for (auto& r : rs) wait(r);
    }
    std::optional<comet::status> probe(int s, int tag) { return t_.probe(s, tag); }
    void barrier() { t_.barrier(); }
    void broadcast(int root, comet::mutable_bytes b) { t_.broadcast(root, b); }
    void allreduce_sum(std::span<double> v) { t_.allreduce_sum(v); }
    double now() { return t_.now(); }
    bool clock_is_global() const { return true; }
    void compute(const comet::work& w) { t_.compute(w); }
    [[noreturn]] void abort(std::string_view m) { t_.abort(m); }
    // An optional capability, so the suite checks it too.
    comet::status sendrecv(int d, int st, comet::const_bytes o, int s, int rt, comet::mutable_bytes i) {
        return t_.sendrecv(d, st, o, s, rt, i);
    }

private:
    comet::threads::transport& t_;
};

struct runner {
    static constexpr bool catches_failures = true;
    static constexpr bool detects_deadlock = true;
    template <class F>
    void operator()(int ranks, F&& body) const {
        comet::threads::run(ranks, [&](comet::threads::transport& t) {
            wrapped w(t);
            body(w);
        });
    }
};

}  // namespace user

static_assert(comet::transport<user::wrapped> && comet::sendrecv_transport<user::wrapped>);

COMET_TRANSPORT_CONFORMANCE(wrapped_threads, user::runner{})
