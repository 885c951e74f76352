// delayed.hpp — a decorator that delays every message by a fixed time, written on
// comet::message_adaptor: it changes the sends and brings in the inner transport's completion;
// every other operation on messages (ssend, sendrecv, the collectives) comet::ops builds from
// its delayed sends.
#pragma once
#include <comet/ops/ops.hpp>
#include <comet/transport/adaptor.hpp>

template <comet::transport Inner>
class delayed : public comet::message_adaptor<Inner> {
    using base = comet::message_adaptor<Inner>;

public:
    using request = typename Inner::request;
    using base::recv, base::wait, base::wait_all;  // a receive is not delayed
    delayed(Inner& inner, double seconds) : base(inner), delay_(seconds) {}

    request isend(int dest, int tag, comet::const_bytes b) { return pause(), this->inner().isend(dest, tag, b); }
    void send(int dest, int tag, comet::const_bytes b) { pause(), comet::ops::send(this->inner(), dest, tag, b); }
    void bsend(int dest, int tag, comet::const_bytes b)
        requires comet::buffered_send_transport<Inner>
    {
        pause(), this->inner().bsend(dest, tag, b);
    }

private:
    // A busy wait through the transport's compute: real time on hardware, virtual on the simulator.
    void pause() { comet::ops::compute(this->inner(), comet::work::busy(delay_)); }
    double delay_;
};
