// delayed.hpp — a decorator that delays every point-to-point message by a fixed time, written on
// comet::transport_adaptor: it changes the sends and forwards everything else (collectives too).
#pragma once
#include <comet/ops/ops.hpp>
#include <comet/transport/adaptor.hpp>

template <comet::transport Inner>
class delayed : public comet::transport_adaptor<Inner> {
public:
    using request = typename Inner::request;
    delayed(Inner& inner, double seconds) : comet::transport_adaptor<Inner>(inner), delay_(seconds) {}

    request isend(int dest, int tag, comet::const_bytes b) { return pause(), this->inner().isend(dest, tag, b); }
    void send(int dest, int tag, comet::const_bytes b) { pause(), comet::ops::send(this->inner(), dest, tag, b); }
    void bsend(int dest, int tag, comet::const_bytes b)
        requires comet::buffered_send_transport<Inner>
    {
        pause(), this->inner().bsend(dest, tag, b);
    }
    // Sends the adaptor would forward undelayed: gone, so comet::ops builds them from isend.
    comet::status sendrecv(int, int, comet::const_bytes, int, int, comet::mutable_bytes) = delete;
    void ssend(int, int, comet::const_bytes) = delete;
    request issend(int, int, comet::const_bytes) = delete;
    void rsend(int, int, comet::const_bytes) = delete;
    request irsend(int, int, comet::const_bytes) = delete;

private:
    // A busy wait through the transport's compute: real time on hardware, virtual on the simulator.
    void pause() { comet::ops::compute(this->inner(), comet::work::busy(delay_)); }
    double delay_;
};
