// Must not compile as a transport: its request type cannot be moved, so a kernel could not
// keep requests in a vector.
#include <comet/core/concepts.hpp>

#include <mutex>

struct pinned_request_transport {
    using request = std::mutex;  // neither copyable nor movable
    int rank() const;
    int size() const;
    void send(int, int, comet::const_bytes);
    comet::status recv(int, int, comet::mutable_bytes);
    request isend(int, int, comet::const_bytes);
    request irecv(int, int, comet::mutable_bytes);
    comet::status wait(request&);
    std::optional<comet::status> test(request&);
    void wait_all(std::span<request>);
    std::optional<comet::status> probe(int, int);
    void barrier();
    void broadcast(int, comet::mutable_bytes);
    void allreduce_sum(std::span<double>);
    double now();
    bool clock_is_global() const;
    void compute(const comet::work&);
    [[noreturn]] void abort(std::string_view);
};

static_assert(comet::transport<pinned_request_transport>);
int main() {}
