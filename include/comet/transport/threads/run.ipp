// comet/transport/threads/run.ipp — the definitions of comet/transport/threads/run.hpp's ordinary functions: included by the header
// when header-only, compiled once by src/ordinary.cpp in the compiled part (core/compiled.hpp).
#pragma once

#include <comet/transport/threads/run.hpp>

namespace comet::threads {
namespace detail {

COMET_DECL void run_ranks(int ranks, const options& opt, function_ref<void(transport&)> body) {
    if (ranks < 1) raise<invalid_argument>(-1, "threads::run: ", ranks, " ranks; need at least 1");
    world w(ranks, opt);
    const auto rank_main = [&](int r) {
        if (w.home(r) >= 0) start_on_cpu(w.home(r), w.allowed());
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
}  // namespace comet::threads
