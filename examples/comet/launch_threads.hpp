// comet --transport threads, as a template over kernels of one's own: the suite on P threads of
// this process (default 2), for each P given, with `extra` kernels beside the suite's. The
// program runs it without extras (launch_threads.cpp); a test runs a kernel of its own through
// it (test/suite/test_descriptor.cpp).
// Settings (--set key=value): eager_limit (bytes), ring_cells, spin_us.
#pragma once

#include "program.hpp"
#include "progress.hpp"

#include <comet/suite/suite.hpp>
#include <comet/transport/threads.hpp>

#include <algorithm>
#include <charconv>
#include <vector>

namespace comet_program {

inline comet::threads::options threads_options(const settings& s) {
    comet::threads::options opt;
    for (const auto& [key, text] : s.transport_options) {
        long long v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0)
            throw usage_error("--set " + key + "=" + text + ": not a non-negative integer");
        if (key == "eager_limit") opt.eager_limit = static_cast<std::size_t>(v);
        else if (key == "ring_cells") opt.ring_cells = static_cast<std::size_t>(v);
        else if (key == "spin_us") opt.spin = std::chrono::microseconds(v);
        else if (key == "pin" && v <= 1) opt.pin = v == 1;
        else if (key == "pin") throw usage_error("--set pin=" + text + ": 0 or 1");
        else throw usage_error("--set " + key + ": the threads transport has no such setting (eager_limit, ring_cells, spin_us, pin)");
    }
    return opt;
}

template <class... Run>
outcome run_threads(const settings& s, const comet::kernel<Run>&... extra) {
    const std::vector<int> groups = s.nodes.empty() ? std::vector<int>{2} : s.nodes;
    const comet::threads::options opt = threads_options(s);
    const std::vector<comet::kernel_descriptor> kernels = comet::suite_descriptors(extra...);
    std::size_t points = 0;
    for (int p : groups) points += comet::suite_points(s.suite, p, kernels);
    progress bar(points);
    comet::suite_config cfg = s.suite;
    const int test_node = cfg.transfer.test_node;
    cfg.on_point = [&bar](const comet::record& r) { bar.point(r); };
    outcome o;
    // Made before the runs: the date and the load average are the start's.
    o.ctx = comet::make_context("threads", groups.back());
    o.ctx.transport_capabilities = comet::describe_capabilities<comet::threads::transport>();
    for (int nodes : groups) {
        auto per_rank = comet::threads::run(
            nodes, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg, extra...); }, opt);
        o.results.append(per_rank.at(static_cast<std::size_t>(test_node)));
    }
    o.groups = groups;
    // Every rank is a thread of this process, runnable while it works or spins for a message:
    // the largest group put up to that many threads into the load average.
    comet::record_load_at_end(o.ctx, *std::max_element(groups.begin(), groups.end()));
    for (const auto& [key, value] : s.transport_options) o.ctx.extra.emplace_back(key, value);
    // Where the ranks started: one per CPU (threads::options::pin) when the largest group fits.
    const bool pinned = !comet::threads::detail::placement(*std::max_element(groups.begin(), groups.end()), opt).empty();
    o.ctx.extra.emplace_back("placement", pinned ? "each rank started on a CPU of its own" : "as the scheduler places them");
    return o;
}

}  // namespace comet_program
