// Must not compile: echo is constrained on comet::transport, and a type without the
// operations is rejected at the call, naming the concept.
#include <comet/kernels/echo.hpp>

struct not_a_transport {
    int rank() const { return 0; }
    int size() const { return 2; }
};

int main() {
    not_a_transport t;
    comet::kernels::echo(t);
}
