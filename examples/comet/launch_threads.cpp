// comet --transport threads: the suite on P threads of this process (default 2).
// Settings (--set key=value): eager_limit (bytes), ring_cells, spin_us.
#include "program.hpp"
#include "progress.hpp"

#include <comet/transport/threads.hpp>

#include <charconv>

namespace comet_program {

namespace {

comet::threads::options threads_options(const settings& s) {
    comet::threads::options opt;
    for (const auto& [key, text] : s.transport_options) {
        long long v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0)
            throw usage_error("--set " + key + "=" + text + ": not a non-negative integer");
        if (key == "eager_limit") opt.eager_limit = static_cast<std::size_t>(v);
        else if (key == "ring_cells") opt.ring_cells = static_cast<std::size_t>(v);
        else if (key == "spin_us") opt.spin = std::chrono::microseconds(v);
        else throw usage_error("--set " + key + ": the threads transport has no such setting (eager_limit, ring_cells, spin_us)");
    }
    return opt;
}

}  // namespace

outcome launch_threads(const settings& s) {
    const int nodes = s.nodes.value_or(2);
    const comet::threads::options opt = threads_options(s);
    progress bar(comet::suite_points(s.suite, nodes));
    comet::suite_config cfg = s.suite;
    const int test_node = cfg.transfer.test_node;
    cfg.on_point = [&bar](const comet::record& r) { bar.point(r); };
    auto per_rank =
        comet::threads::run(nodes, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg); }, opt);
    outcome o;
    o.results = std::move(per_rank.at(static_cast<std::size_t>(test_node)));
    o.ctx = comet::make_context("threads", nodes);
    for (const auto& [key, value] : s.transport_options) o.ctx.extra.emplace_back(key, value);
    return o;
}

}  // namespace comet_program
