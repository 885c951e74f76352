// comet/ops/describe.hpp — `describe_capabilities<T>()`: what a transport type offers beyond the
// eight-member core, in the words a report uses (its context's `transport_capabilities`): the
// optional capabilities by the names of their members, then "native <op>" for each operation of
// comet/ops/ the transport implements itself.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/ops/collectives.hpp>
#include <comet/ops/implementation.hpp>
#include <comet/ops/point_to_point.hpp>
#include <comet/ops/process.hpp>

#include <string>
#include <utility>
#include <vector>

namespace comet {

/// What transport type `T` offers beyond the eight-member core: its optional capabilities by
/// the names of their members ("ssend", "rsend", "bsend", "sendrecv", "nonblocking_collectives",
/// "progress", "thread_serialized"), then "native <op>" for each operation of comet/ops/ it
/// implements itself. An operation not named runs comet's portable algorithm over the core, so
/// a reader knows whose barrier a barrier time is.
/// @code  ctx.transport_capabilities = comet::describe_capabilities<comet::threads::transport>();  @endcode
template <transport T>
std::vector<std::string> describe_capabilities() {
    std::vector<std::string> out;
    const capabilities c = capabilities_of<T>();
    for (const auto& [has, name] : {std::pair{c.synchronous_send, "ssend"}, std::pair{c.ready_send, "rsend"},
                                    std::pair{c.buffered_send, "bsend"}, std::pair{c.sendrecv, "sendrecv"},
                                    std::pair{c.nonblocking_collectives, "nonblocking_collectives"},
                                    std::pair{c.progress, "progress"}, std::pair{c.thread_serialized, "thread_serialized"}})
        if (has) out.emplace_back(name);
    const std::pair<ops::implementation, const char*> native[] = {
        {ops::send_fn::implementation_for<T>(), "send"},
        {ops::recv_fn::implementation_for<T>(), "recv"},
        {ops::wait_fn::implementation_for<T>(), "wait"},
        {ops::wait_all_fn::implementation_for<T>(), "wait_all"},
        {ops::barrier_fn::implementation_for<T>(), "barrier"},
        {ops::broadcast_fn::implementation_for<T>(), "broadcast"},
        {ops::allreduce_sum_fn::implementation_for<T>(), "allreduce_sum"},
        {ops::allreduce_max_fn::implementation_for<T>(), "allreduce_max"},
        {ops::allreduce_min_fn::implementation_for<T>(), "allreduce_min"},
        {ops::reduce_sum_fn::implementation_for<T>(), "reduce_sum"},
        {ops::reduce_max_fn::implementation_for<T>(), "reduce_max"},
        {ops::reduce_min_fn::implementation_for<T>(), "reduce_min"},
        {ops::gather_fn::implementation_for<T>(), "gather"},
        {ops::alltoall_fn::implementation_for<T>(), "alltoall"},
        {ops::compute_fn::implementation_for<T>(), "compute"},
        {ops::clock_is_global_fn::implementation_for<T>(), "clock_is_global"},
        {ops::abort_fn::implementation_for<T>(), "abort"},
    };
    for (const auto& [how, op] : native)
        if (how == ops::implementation::native) out.push_back(std::string("native ") + op);
    return out;
}

}  // namespace comet
