// comet/kernels/commtest/exchange.hpp — one COMMTEST exchange on one rank: a volume swapped with
// the partner as N messages, each SWAP done the way its protocol's table says
// (kernels/commtest/protocol.hpp), in the seed's two arrangements:
//
//   basic     for each message i: the protocol's SWAP of part i of the volume
//   prepost   the seed's reorganised loop, for the sides that receive by irecv:
//               prepost the receive of message 0                 (before the exchange starts)
//               for i = 0 .. N-1:
//                 prepost the receive of message i+1
//                 begin the send and complete the receive of message i
//                 complete the send of message i-1
//               complete the send of message N-1
//             A side whose receive is blocking (the second processor of an ordered protocol,
//             (0,0), (0,1), (0,7)) and sendrecv have nothing to prepost: they run as in basic.
//
// Every message reads its own part of the send volume and writes its own part of the receive
// volume (the seed: "each send and receive accessing unique memory locations"); with `repeat`
// each message is swapped that many times in a row before the next (the seed's inner loop).
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/types.hpp>
#include <comet/kernels/commtest/protocol.hpp>
#include <comet/ops/ops.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace comet::kernels::commtest {

/// How one rank takes part in an exchange.
struct exchange_plan {
    protocol proto;
    bool first = true;        ///< processor 1 of the pair (the lower rank)
    int partner = 0;
    std::size_t messages = 1;  ///< N
    std::size_t size = 0;      ///< bytes per message
    std::size_t repeat = 1;    ///< swaps of each message in a row
    bool prepost = false;
    int tag = 0;               ///< the messages' tag
    int handshake_tag = 0;     ///< the ready handshakes' tag
};

/// What an exchange keeps between its prepared start and its timed loop (the preposted receive).
template <transport T>
struct exchange_state {
    std::vector<typename T::request> receives;  ///< by message step, the nonblocking receives
    std::vector<typename T::request> sends;     ///< by message step, the nonblocking sends
    std::vector<typename T::request> handshakes;
};

namespace detail {

/// Sends message `i` of `out` the side's way; a nonblocking send's request goes to `sent`.
template <transport T>
void start_send(T& t, send_op op, int partner, int tag, const_bytes message, typename T::request& sent) {
    switch (op) {
    case send_op::send: ops::send(t, partner, tag, message); break;
    case send_op::isend: sent = t.isend(partner, tag, message); break;
    case send_op::bsend:
        if constexpr (buffered_send_transport<T>) t.bsend(partner, tag, message);
        break;
    case send_op::rsend:
        if constexpr (ready_send_transport<T>) t.rsend(partner, tag, message);
        break;
    case send_op::irsend:
        if constexpr (ready_send_transport<T>) sent = t.irsend(partner, tag, message);
        break;
    case send_op::ssend:
        if constexpr (synchronous_send_transport<T>) t.ssend(partner, tag, message);
        break;
    case send_op::issend:
        if constexpr (synchronous_send_transport<T>) sent = t.issend(partner, tag, message);
        break;
    case send_op::sendrecv: break;  // not a send of its own: see run_exchange
    }
}

/// Posts the receive of step `k` (into `in`) and, on a side that tells, the handshake saying so.
template <transport T>
void post_receive(T& t, const exchange_plan& x, const side& s, exchange_state<T>& st, std::size_t k, mutable_bytes in) {
    st.receives[k] = t.irecv(x.partner, x.tag, in);
    if (s.tells) st.handshakes.push_back(t.isend(x.partner, x.handshake_tag, const_bytes{}));
}

}  // namespace detail

/// Prepares an exchange: sizes the request lists, makes room for the buffered sends where the
/// transport's `bsend` draws on a buffer of limited size (MPI_Bsend: the seed attaches one
/// before it times), and, with prepost, posts the first receive (the seed does so before its
/// synchronisation, outside the timed part).
/// @pre supports<T>(x.proto); `in` holds messages × size bytes
template <transport T>
void prepare_exchange(T& t, const exchange_plan& x, exchange_state<T>& st, mutable_bytes in) {
    const side s = side_of(x.proto, x.first);
    const std::size_t steps = x.messages * x.repeat;
    st.receives.clear();
    st.receives.resize(steps);
    st.sends.clear();
    st.sends.resize(steps);
    st.handshakes.clear();
    st.handshakes.reserve(steps);
    if constexpr (requires { t.reserve_bsend(steps, steps * x.size); })
        if (s.send == send_op::bsend) t.reserve_bsend(steps, steps * x.size);  // MPI_Bsend's buffer, attached untimed
    if (x.prepost && (s.recv_nonblocking || s.tells) && steps > 0) detail::post_receive(t, x, s, st, 0, in.first(x.size));
}

/// Runs the exchange prepared in `st`: sends `out` and receives into `in`, message by message.
/// @pre prepare_exchange(t, x, st, in) was called; `out` and `in` hold messages × size bytes
template <transport T>
void run_exchange(T& t, const exchange_plan& x, exchange_state<T>& st, const_bytes out, mutable_bytes in) {
    const side s = side_of(x.proto, x.first);
    const std::size_t steps = x.messages * x.repeat;
    const bool posts = s.recv_nonblocking || s.tells;
    const bool prepost = x.prepost && posts;
    const auto part_out = [&](std::size_t k) { return out.subspan((k / x.repeat) * x.size, x.size); };
    const auto part_in = [&](std::size_t k) { return in.subspan((k / x.repeat) * x.size, x.size); };
    for (std::size_t k = 0; k < steps; ++k) {
        if (s.send == send_op::sendrecv) {
            if constexpr (sendrecv_transport<T>) t.sendrecv(x.partner, x.tag, part_out(k), x.partner, x.tag, part_in(k));
            continue;
        }
        if (prepost) {
            if (k + 1 < steps) detail::post_receive(t, x, s, st, k + 1, part_in(k + 1));
        } else if (posts) {
            detail::post_receive(t, x, s, st, k, part_in(k));
        }
        if (s.recv_first) {
            if (posts) ops::wait(t, st.receives[k]);
            else ops::recv(t, x.partner, x.tag, part_in(k));
        }
        if (s.waits) ops::recv(t, x.partner, x.handshake_tag, mutable_bytes{});
        detail::start_send(t, s.send, x.partner, x.tag, part_out(k), st.sends[k]);
        if (!s.recv_first) {
            if (posts) ops::wait(t, st.receives[k]);
            else ops::recv(t, x.partner, x.tag, part_in(k));
        }
        if (is_nonblocking(s.send)) {
            if (!prepost) ops::wait(t, st.sends[k]);
            else if (k > 0) ops::wait(t, st.sends[k - 1]);
        }
    }
    if (prepost && is_nonblocking(s.send) && steps > 0) ops::wait(t, st.sends[steps - 1]);
    ops::wait_all(t, std::span<typename T::request>(st.handshakes));
    st.handshakes.clear();
}

}  // namespace comet::kernels::commtest
