// Shared by the tests that run the whole CoMet suite on a transport: a configuration small
// enough to run every kernel in a second or so, and the check that every kernel a group can
// run recorded something on the test node.
#pragma once

#include <comet/suite/suite.hpp>

#include <boost/test/unit_test.hpp>

namespace comet_test {

/// Every kernel (CoMet's, COMMTEST with all 21 protocols, sync, the windowed collectives, the
/// nonblocking ones, NIST's applications and Netgauge's round trips), with few sizes, short loops
/// and short runs.
inline comet::suite_config whole_suite_small() {
    comet::suite_config cfg;
    cfg.kernels.insert(cfg.kernels.end(), {"commtest", "sync", "collectives", "nbc", "ring", "rc", "mesh", "loggp"});
    cfg.loggp.transfer = {.sizes = {0, 64, 256}, .sampling = comet::fixed_sampling(3, 5)};
    cfg.nist.dilations = {1, 2};
    cfg.nist.ring = [](comet::kernels::nist::setting s) {
        auto c = comet::kernels::nist::ring_setting(s);
        c.messages = 2;
        return c;
    };
    cfg.nist.rc = [](comet::kernels::nist::setting s) {
        auto c = comet::kernels::nist::rc_setting(s);
        c.initial_items /= 100;
        return c;
    };
    cfg.nist.mesh = [](comet::kernels::nist::setting s) {
        auto c = comet::kernels::nist::mesh_setting(s);
        c.steps = 3;
        return c;
    };
    cfg.sync = {.repetitions = 1, .sync = {.patience = 10}};
    cfg.collectives.operations = {comet::kernels::collective_operation::allreduce};
    cfg.collectives.sizes = {8};
    cfg.collectives.window = {.measurements = 3, .pipeline = 2};
    cfg.collectives.sync = {.patience = 10};
    cfg.nbc.operations = {comet::kernels::nbc_operation::iallreduce};
    cfg.nbc.sizes = {8};
    cfg.nbc.intervals = {1024};
    cfg.nbc.window = {.measurements = 3};
    cfg.nbc.sync = {.patience = 10};
    cfg.commtest.volumes = {8192};
    cfg.commtest.messages = {1, 8, 64};
    cfg.commtest.sampling = comet::fixed_sampling(1, 1);
    cfg.transfer = {.sizes = {0, 8, 100, 1024, 4096}, .sampling = comet::fixed_sampling(1, 10)};
    cfg.broadcast = {.sizes = {8, 1024}, .sampling = comet::fixed_sampling(1, 10)};
    cfg.global_sum = {.vector_lengths = {1, 100}, .sampling = comet::fixed_sampling(1, 10)};
    cfg.barrier = {.sampling = comet::fixed_sampling(1, 10)};
    cfg.contention = {.sizes = {8, 1024}, .sampling = comet::fixed_sampling(1, 5)};
    cfg.overlap = {.sizes = {0, 4096}, .vector_lengths = {8, 256}, .sampling = comet::fixed_sampling(1, 5)};
    cfg.matrix = {.dims = {1, 2, 5}, .sampling = comet::fixed_sampling(1, 3)};
    return cfg;
}

/// Checks that `r`, the test node's records of a whole-suite run on `ranks` ranks, holds
/// records of every kernel that runs on that many ranks and none of the others.
inline void check_every_kernel_recorded(const comet::result_set& r, int ranks) {
    for (const auto& k : comet::suite_kernels()) {
        BOOST_TEST_CONTEXT("kernel " << k.name << " on " << ranks << " ranks") {
            if (comet::suite_skip_reason(k.name, ranks))
                BOOST_TEST(r.of(k.name).empty());
            else
                BOOST_TEST(!r.of(k.name).empty());
        }
    }
}

}  // namespace comet_test
