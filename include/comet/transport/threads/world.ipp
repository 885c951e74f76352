// comet/transport/threads/world.ipp — the definitions of comet/transport/threads/world.hpp's ordinary functions: included by the header
// when header-only, compiled once by src/ordinary.cpp in the compiled part (core/compiled.hpp).
#pragma once

#include <comet/transport/threads/world.hpp>

namespace comet::threads {
namespace detail {

COMET_DECL std::vector<int> usable_cpus() {
    std::vector<int> cpus;
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set)) cpus.push_back(c);
#endif
    return cpus;
}

COMET_DECL std::vector<int> placement(int ranks, const options& opt) {
    std::vector<int> cpus = opt.pin ? usable_cpus() : std::vector<int>{};
    if (ranks < 0 || static_cast<std::size_t>(ranks) > cpus.size()) return {};
    cpus.resize(static_cast<std::size_t>(ranks));
    return cpus;
}

COMET_DECL bool start_on_cpu([[maybe_unused]] int cpu, [[maybe_unused]] const std::vector<int>& allowed) {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    // Setting the calling thread's affinity migrates it before the call returns.
    if (::pthread_setaffinity_np(::pthread_self(), sizeof set, &set) != 0) return false;
    CPU_ZERO(&set);
    for (int c : allowed) CPU_SET(c, &set);
    return ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set) == 0;
#else
    return false;
#endif
}

COMET_DECL int current_cpu() noexcept {
#if defined(__linux__)
    return ::sched_getcpu();
#else
    return -1;
#endif
}

COMET_DECL std::string describe(const wait_desc& w) {
    std::ostringstream os;
    const auto from = [&](int peer) { return peer < 0 ? std::string("any rank") : "rank " + std::to_string(peer); };
    const auto tag = [&](int t) { return t < 0 ? std::string("any tag") : "tag " + std::to_string(t); };
    switch (w.op) {
    case wait_op::none: os << "running"; break;
    case wait_op::recv: os << "recv from " << from(w.peer) << " (" << tag(w.tag) << ", up to " << w.size << " bytes)"; break;
    case wait_op::send: os << "send to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes)"; break;
    case wait_op::ssend:
        os << "ssend to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes), not yet received";
        break;
    case wait_op::rsend:
        os << "rsend to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes), not yet received";
        break;
    case wait_op::wait_recv: os << "wait for irecv from " << from(w.peer) << " (" << tag(w.tag) << ")"; break;
    case wait_op::wait_send:
        os << "wait for isend to rank " << w.peer << " (tag " << w.tag << ", " << w.size << " bytes), not yet received";
        break;
    case wait_op::wait_all: os << "wait_all with " << w.count << " requests pending"; break;
    case wait_op::barrier: os << "barrier"; break;
    case wait_op::broadcast: os << "broadcast from root " << w.peer << " (" << w.size << " bytes)"; break;
    case wait_op::allreduce: os << "allreduce_sum of " << w.size << " doubles"; break;
    }
    return os.str();
}

}  // namespace detail
}  // namespace comet::threads
