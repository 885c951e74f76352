// 02_own_transport — kernels run on any type that models comet::transport. Here: a decorator
// that counts the bytes a rank sends, wrapped around the threads transport. Yours might wrap
// your code's own message layer.
//
// comet::transport_adaptor forwards everything the wrapped transport has — its point-to-point
// core, its own collectives and every optional capability (bsend, ssend, sendrecv, ...) — so
// the decorator writes only what it changes: the sends it counts.
#include <comet/comet.hpp>

#include <cstdio>
#include <cstdlib>

template <comet::transport Inner>
class counting_transport : public comet::transport_adaptor<Inner> {
public:
    using request = typename Inner::request;
    using comet::transport_adaptor<Inner>::transport_adaptor;

    request isend(int dest, int tag, comet::const_bytes data) { return sent_ += data.size(), this->inner().isend(dest, tag, data); }
    void send(int dest, int tag, comet::const_bytes data) { sent_ += data.size(), this->inner().send(dest, tag, data); }
    void bsend(int dest, int tag, comet::const_bytes data) { sent_ += data.size(), this->inner().bsend(dest, tag, data); }

    std::size_t bytes_sent() const { return sent_; }

private:
    std::size_t sent_ = 0;
};

static_assert(comet::transport<counting_transport<comet::threads::transport>>);
// Nothing of the threads transport is lost on the way: same capabilities, same native collectives.
static_assert(comet::capabilities_of<counting_transport<comet::threads::transport>>() ==
              comet::capabilities_of<comet::threads::transport>());

int main() {
    comet::threads::run(2, [](comet::threads::transport& inner) {
        counting_transport<comet::threads::transport> t(inner);
        const auto r = comet::kernels::pairwise(t, {.sizes = {8, 4096}, .sampling = comet::fixed_sampling(1, 100)});
        std::printf("rank %d sent %zu bytes during the pairwise exchange\n", t.rank(), t.bytes_sent());
        // Both ranks send in each of the 100 exchanges of the untimed warm-up run and of the one
        // timed sample per size (comet::fixed_sampling(1, 100)), and in the one untimed exchange
        // right before the sample; besides, only the sampling engine's few short decisions (the
        // sample's "go" and whether a rank was disturbed: at most 16 bytes a sample).
        const std::size_t kernel_bytes = (2 * 100 + 1) * (8 + 4096);
        if (t.bytes_sent() < kernel_bytes || t.bytes_sent() > kernel_bytes + 2 * 16) std::exit(1);
        if (t.rank() == 0)
            for (const auto& rec : r.records)
                std::printf("  %5lld bytes: %.3f us per exchange (%s)\n", static_cast<long long>(*rec.params.integer("size")),
                            rec.samples[0] * 1e6, rec.values.text("form")->c_str());
    });
}
