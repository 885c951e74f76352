// comet --transport threads: the suite on P threads of this process (default 2).
#include "program.hpp"
#include "progress.hpp"

#include <comet/transport/threads.hpp>

namespace comet_program {

outcome launch_threads(const settings& s) {
    const int nodes = s.nodes.value_or(2);
    progress bar(comet::suite_points(s.suite, nodes));
    comet::suite_config cfg = s.suite;
    const int test_node = cfg.transfer.test_node;
    cfg.on_point = [&bar](const comet::record& r) { bar.point(r); };
    auto per_rank = comet::threads::run(nodes, [&](comet::threads::transport& t) { return comet::run_suite(t, cfg); });
    outcome o;
    o.results = std::move(per_rank.at(static_cast<std::size_t>(test_node)));
    o.ctx = comet::make_context("threads", nodes);
    return o;
}

}  // namespace comet_program
