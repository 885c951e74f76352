// comet/transport/threads/run.hpp — running a function on P ranks of the threads transport:
// comet::threads::run starts one thread per rank (placed on CPUs as threads::options says),
// gives each its transport, and returns what each rank returned. If every rank blocks with
// nothing that can wake any of them, every rank raises `comet::deadlock_error` naming what
// each waits for; an exception on one rank stops the others at their next call into the
// transport, and `run` rethrows it.
//
// Part of the threads transport: include comet/transport/threads.hpp.
#pragma once

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
inline void run_ranks(int ranks, const options& opt, function_ref<void(transport&)> body) {
    if (ranks < 1) raise<invalid_argument>(-1, "threads::run: ", ranks, " ranks; need at least 1");
    world w(ranks, opt);
    const std::vector<int> cpus = placement(ranks, opt);
    const std::vector<int> allowed = cpus.empty() ? std::vector<int>{} : usable_cpus();
    const auto rank_main = [&](int r) {
        if (!cpus.empty()) start_on_cpu(cpus[static_cast<std::size_t>(r)], allowed);
        {
            transport t(w, r);
            try {
                body(t);
            } catch (...) {
                w.fail(r, std::current_exception());
            }
        }
        w.finish(r);
    };
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(ranks));
    try {
        for (int r = 0; r < ranks; ++r) threads.emplace_back(rank_main, r);
    } catch (...) {
        // The ranks already running may wait for those never started: stop them.
        w.fail(static_cast<int>(threads.size()), std::current_exception());
        for (int r = static_cast<int>(threads.size()); r < ranks; ++r) w.finish(r);
    }
    for (auto& th : threads) th.join();
    if (auto e = w.failure()) std::rethrow_exception(e);
}

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
