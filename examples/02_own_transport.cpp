// 02_own_transport — kernels run on any type that models comet::transport. Here: a decorator
// that counts the bytes a rank sends, wrapped around the threads transport. Yours might wrap
// your code's own message layer.
#include <comet/comet.hpp>

#include <cstdio>

/// Forwards everything to the threads transport, counting what `send` carries.
class counting_transport {
public:
    using request = comet::threads::transport::request;
    explicit counting_transport(comet::threads::transport& inner) : t_(inner) {}

    int rank() const { return t_.rank(); }
    int size() const { return t_.size(); }
    void send(int dest, int tag, comet::const_bytes data) {
        sent_ += data.size();
        t_.send(dest, tag, data);
    }
    comet::status recv(int source, int tag, comet::mutable_bytes data) { return t_.recv(source, tag, data); }
    request isend(int dest, int tag, comet::const_bytes data) {
        sent_ += data.size();
        return t_.isend(dest, tag, data);
    }
    request irecv(int source, int tag, comet::mutable_bytes data) { return t_.irecv(source, tag, data); }
    comet::status wait(request& r) { return t_.wait(r); }
    std::optional<comet::status> test(request& r) { return t_.test(r); }
    void wait_all(std::span<request> r) { t_.wait_all(r); }
    std::optional<comet::status> probe(int source, int tag) { return t_.probe(source, tag); }
    void barrier() { t_.barrier(); }
    void broadcast(int root, comet::mutable_bytes data) { t_.broadcast(root, data); }
    void allreduce_sum(std::span<double> v) { t_.allreduce_sum(v); }
    double now() { return t_.now(); }
    bool clock_is_global() const { return t_.clock_is_global(); }
    void compute(const comet::work& w) { t_.compute(w); }
    [[noreturn]] void abort(std::string_view message) { t_.abort(message); }

    std::size_t bytes_sent() const { return sent_; }

private:
    comet::threads::transport& t_;
    std::size_t sent_ = 0;
};

static_assert(comet::transport<counting_transport>);

int main() {
    comet::threads::run(2, [](comet::threads::transport& inner) {
        counting_transport t(inner);
        const auto r = comet::pairwise(t, {.sizes = {8, 4096}, .max_times = 100, .samples = 1, .warmup = 0});
        std::printf("rank %d sent %zu bytes during the pairwise exchange\n", t.rank(), t.bytes_sent());
        if (t.rank() == 0)
            for (const auto& rec : r.records)
                std::printf("  %5lld bytes: %.3f us per exchange\n", static_cast<long long>(*rec.params.integer("size")),
                            rec.samples[0] * 1e6);
    });
}
