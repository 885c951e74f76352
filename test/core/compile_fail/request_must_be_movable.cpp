// Must not compile as a transport: its request type cannot be moved, so a kernel could not
// keep requests in a vector.
#include <comet/core/concepts.hpp>

#include <mutex>

struct pinned_request_transport {
    using request = std::mutex;  // neither copyable nor movable
    int rank() const;
    int size() const;
    request isend(int, int, comet::const_bytes);
    request irecv(int, int, comet::mutable_bytes);
    std::optional<comet::status> test(request&);
    std::optional<comet::status> iprobe(int, int);
    double now();
};

static_assert(comet::transport<pinned_request_transport>);
int main() {}
