// comet/transport/nx2/waits.hpp — what a rank of the simulated NX/2 waits or polls for, and how
// a deadlock report says it ("rank 0 waits in send to rank 1 (tag 1, 8 bytes): no free buffer at
// rank 1; ..."). The protocol (world.hpp) records it before a rank blocks or polls; the engine
// (engine.hpp) asks for it when nothing can move any more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

namespace comet::nx2::detail {

/// What a waiting rank waits for (deadlock reports).
enum class wait_op : std::uint8_t {
    none, recv, send, credit, ssend, rsend, wait_recv, wait_send, collective,
    poll_recv, poll_send, poll_probe, poll_progress,  ///< polling (msgdone, iprobe, progress), not blocked
};

struct wait_desc {
    wait_op op = wait_op::none;
    int peer = 0;
    int tag = 0;
    std::size_t size = 0;
    const char* collective = nullptr;  ///< inside barrier / broadcast / allreduce_sum
    int step_peer = -1;                ///< the collective's partner of this step
};

inline std::string describe(const wait_desc& w) {
    std::ostringstream os;
    const auto from = [](int p) { return p < 0 ? std::string("any rank") : "rank " + std::to_string(p); };
    const auto tag = [](int t) { return t < 0 ? std::string("any tag") : "tag " + std::to_string(t); };
    switch (w.op) {
    case wait_op::none: os << "running"; break;
    case wait_op::recv: os << "recv from " << from(w.peer) << " (" << tag(w.tag) << ", up to " << w.size << " bytes)"; break;
    case wait_op::send:
        os << "send to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes), not yet acknowledged";
        break;
    case wait_op::credit:
        os << "send to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes): no free buffer at rank " << w.peer;
        break;
    case wait_op::ssend:
        os << "ssend to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes), not yet received";
        break;
    case wait_op::rsend: os << "rsend to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes)"; break;
    case wait_op::wait_recv: os << "wait for irecv from " << from(w.peer) << " (" << tag(w.tag) << ")"; break;
    case wait_op::wait_send:
        os << "wait for isend to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes), not yet delivered";
        break;
    case wait_op::collective:
        os << w.collective;
        if (w.step_peer >= 0) os << ", exchanging with rank " << w.step_peer;
        break;
    case wait_op::poll_recv: os << "test (msgdone) of irecv from " << from(w.peer) << " (" << tag(w.tag) << ")"; break;
    case wait_op::poll_send:
        os << "test (msgdone) of isend to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes)";
        break;
    case wait_op::poll_probe: os << "iprobe for " << from(w.peer) << " (" << tag(w.tag) << ")"; break;
    case wait_op::poll_progress: os << "progress"; break;
    }
    return os.str();
}

}  // namespace comet::nx2::detail
