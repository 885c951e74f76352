// comet/transport/threads/run.hpp — running a function on P ranks of the threads transport:
// comet::threads::run starts one thread per rank (placed on CPUs as threads::options says),
// gives each its transport, and returns what each rank returned. If every rank blocks with
// nothing that can wake any of them, every rank raises `comet::deadlock_error` naming what
// each waits for; an exception on one rank stops the others at their next call into the
// transport, and `run` rethrows it.
//
// Part of the threads transport: include comet/transport/threads.hpp.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/core/function_ref.hpp>
#include <comet/transport/threads/transport.hpp>
#include <comet/transport/threads/world.hpp>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace comet::threads {

namespace detail {

/// Runs `body` on `ranks` threads and rethrows the first failure.
COMET_DECL void run_ranks(int ranks, const options& opt, function_ref<void(transport&)> body);

}  // namespace detail

/// Runs `fn(transport&)` on `ranks` threads, one per rank, and returns what each returned,
/// indexed by rank (nothing when `fn` returns void). If ranks failed, rethrows the failure of
/// the lowest-numbered one (not counting ranks merely stopped because another failed):
/// `deadlock_error` if the ranks deadlocked, `aborted` if one called `abort`.
/// @code
///   auto r = comet::threads::run(2, [](auto& t) { return comet::kernels::echo(t, {.sizes = {8}}); });
///   // r[0]: the records measured on the test node
/// @endcode
template <class F>
auto run(int ranks, F&& fn, const options& opt = {}) {
    using result = std::invoke_result_t<F&, transport&>;
    if constexpr (std::is_void_v<result>) {
        detail::run_ranks(ranks, opt, [&](transport& t) { fn(t); });
    } else {
        std::vector<std::optional<result>> slots(static_cast<std::size_t>(std::max(ranks, 0)));
        detail::run_ranks(ranks, opt, [&](transport& t) { slots[static_cast<std::size_t>(t.rank())].emplace(fn(t)); });
        std::vector<result> out;
        out.reserve(slots.size());
        for (auto& x : slots) out.push_back(std::move(*x));
        return out;
    }
}

}  // namespace comet::threads

#if !defined(COMET_COMPILED)
#include <comet/transport/threads/run.ipp>
#endif
