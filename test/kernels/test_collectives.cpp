// Tests of comet/kernels/collectives.hpp on the threads transport: the records broadcast,
// global_sum and barrier return at several group sizes, that every rank makes the same number
// of collective calls (counted by a decorator), the on_point hook, and every bad input.
#include <comet/kernels/collectives.hpp>

#include "support.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace collectives_test {

using comet::threads::run;
using comet::threads::transport;
using comet_test::mentions;
using counting = kernel_counting::counting_transport<transport>;

inline const comet::broadcast_config quick_broadcast{.sizes = {0, 8, 100, 5000}, .max_times = 20, .samples = 2, .warmup = 2};
inline const comet::global_sum_config quick_sum{.vector_lengths = {0, 1, 13, 1000}, .max_times = 20, .samples = 2, .warmup = 2};
inline const comet::barrier_config quick_barrier{.max_times = 20, .samples = 4, .warmup = 2};

/// Samples a timing may give: finite and not absurd (no timing assertions on a shared machine).
inline bool plausible(const std::vector<double>& samples) {
    for (double s : samples)
        if (!std::isfinite(s) || s < -1e-3 || s > 10.0) return false;
    return true;
}

struct outcome {
    comet::result_set records;
    kernel_counting::counts counts;
};

}  // namespace collectives_test

BOOST_AUTO_TEST_SUITE(collectives)

using namespace collectives_test;

BOOST_AUTO_TEST_CASE(broadcast_records_every_size_at_several_group_sizes) {
    for (int nodes : {1, 2, 4, 8}) {
        BOOST_TEST_CONTEXT("nodes " << nodes) {
            const auto r = run(nodes, [](transport& t) {
                counting c(t);
                return outcome{comet::broadcast(c, quick_broadcast), c.c};
            });
            const auto& records = r[0].records.records;
            BOOST_REQUIRE_EQUAL(records.size(), 4u);
            std::size_t i = 0;
            for (std::int64_t size : {0, 8, 100, 5000}) {
                const auto& rec = records[i++];
                BOOST_TEST(rec.kernel == "broadcast");
                BOOST_TEST(rec.params.size() == 2u);
                BOOST_TEST(*rec.params.integer("size") == size);
                BOOST_TEST(*rec.params.integer("nodes") == nodes);
                BOOST_TEST(rec.samples.size() == 2u);
                BOOST_TEST(plausible(rec.samples));
            }
            // Every rank: one broadcast and one closing barrier per iteration, plus the
            // kernel's opening and closing barriers.
            const std::size_t per_point = 2 + 2 * 20;
            for (int rank = 0; rank < nodes; ++rank) {
                const auto& c = r[static_cast<std::size_t>(rank)].counts;
                BOOST_TEST(c.broadcasts == 4 * per_point);
                BOOST_TEST(c.barriers == 4 * per_point + 2);
                if (rank > 0) BOOST_TEST(r[static_cast<std::size_t>(rank)].records.empty());
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(broadcast_records_land_on_the_root_only) {
    // The test node is the root of every broadcast and the only rank with records.
    auto cfg = quick_broadcast;
    cfg.test_node = 3;
    const auto r = run(4, [&](transport& t) { return comet::broadcast(t, cfg); });
    for (int rank : {0, 1, 2}) BOOST_TEST(r[static_cast<std::size_t>(rank)].empty());
    BOOST_TEST(r[3].size() == 4u);
}

BOOST_AUTO_TEST_CASE(global_sum_records_every_vector_length) {
    for (int nodes : {2, 4, 8}) {
        BOOST_TEST_CONTEXT("nodes " << nodes) {
            const auto r = run(nodes, [](transport& t) {
                counting c(t);
                return outcome{comet::global_sum(c, quick_sum), c.c};
            });
            const auto& records = r[0].records.records;
            BOOST_REQUIRE_EQUAL(records.size(), 4u);
            std::size_t i = 0;
            for (std::int64_t n : {0, 1, 13, 1000}) {
                const auto& rec = records[i++];
                BOOST_TEST(rec.kernel == "global_sum");
                BOOST_TEST(rec.params.size() == 2u);
                BOOST_TEST(*rec.params.integer("vector_length") == n);
                BOOST_TEST(*rec.params.integer("nodes") == nodes);
                BOOST_TEST(rec.samples.size() == 2u);
                BOOST_TEST(plausible(rec.samples));
            }
            for (int rank = 0; rank < nodes; ++rank) {
                const auto& c = r[static_cast<std::size_t>(rank)].counts;
                BOOST_TEST(c.allreduces == 4u * (2 + 2 * 20));
                BOOST_TEST(c.barriers == 2u);  // only the opening and closing ones: the sum synchronises itself
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(barrier_keeps_every_sample_of_the_least_time) {
    for (int nodes : {1, 2, 4, 8}) {
        BOOST_TEST_CONTEXT("nodes " << nodes) {
            auto cfg = quick_barrier;
            cfg.test_node = nodes - 1;
            const auto r = run(nodes, [&](transport& t) {
                counting c(t);
                return outcome{comet::barrier(c, cfg), c.c};
            });
            const auto& records = r[static_cast<std::size_t>(nodes - 1)].records.records;
            BOOST_REQUIRE_EQUAL(records.size(), 1u);
            BOOST_TEST(records[0].kernel == "barrier");
            BOOST_TEST(records[0].params.size() == 1u);
            BOOST_TEST(*records[0].params.integer("nodes") == nodes);
            BOOST_TEST(records[0].samples.size() == 4u);
            BOOST_TEST(plausible(records[0].samples));
            for (int rank = 0; rank < nodes; ++rank)
                BOOST_TEST(r[static_cast<std::size_t>(rank)].counts.barriers == 2u + 2u + 4u * 20u);
        }
    }
}

BOOST_AUTO_TEST_CASE(on_point_sees_each_record_on_the_test_node) {
    std::vector<std::string> seen;  // written by the test node's thread only
    auto b = quick_broadcast;
    b.sizes = {8, 64};
    b.on_point = [&](const comet::record& rec) { seen.push_back(rec.kernel + std::to_string(*rec.params.integer("size"))); };
    auto g = quick_sum;
    g.vector_lengths = {1};
    g.on_point = [&](const comet::record& rec) { seen.push_back(rec.kernel); };
    auto a = quick_barrier;
    a.on_point = [&](const comet::record& rec) { seen.push_back(rec.kernel); };
    run(4, [&](transport& t) {
        comet::broadcast(t, b);
        comet::global_sum(t, g);
        comet::barrier(t, a);
    });
    BOOST_TEST(seen == (std::vector<std::string>{"broadcast8", "broadcast64", "global_sum", "barrier"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bad_inputs_name_the_value_and_rank) {
    const auto fails_with = [](int nodes, auto kernel, std::initializer_list<const char*> words) {
        BOOST_CHECK_EXCEPTION(run(nodes, [&](transport& t) { kernel(t); }), comet::invalid_argument,
                              [&](const auto& e) { return mentions(e, words); });
    };
    auto b = quick_broadcast;
    b.test_node = 4;
    fails_with(4, [&](transport& t) { comet::broadcast(t, b); }, {"rank 0", "broadcast: test node 4 is outside 0..3"});
    b = quick_broadcast;
    b.sizes = {8, comet::max_message_size + 1};
    fails_with(2, [&](transport& t) { comet::broadcast(t, b); }, {"rank 0", "broadcast: message size 2147483648 exceeds"});
    b = quick_broadcast;
    b.max_times = 0;
    fails_with(2, [&](transport& t) { comet::broadcast(t, b); }, {"broadcast: max_times must be at least 1"});

    auto g = quick_sum;
    g.vector_lengths = {1, 200001};
    fails_with(2, [&](transport& t) { comet::global_sum(t, g); },
               {"rank 0", "global_sum: vector length 200001 exceeds max_vec_len 200000"});
    g.max_vec_len = std::size_t{1} << 40;
    g.vector_lengths = {std::size_t{1} << 30};
    fails_with(2, [&](transport& t) { comet::global_sum(t, g); },
               {"global_sum: vector length 1073741824", "exceeds the 2147483647-byte message limit"});
    g = quick_sum;
    g.samples = 0;
    fails_with(2, [&](transport& t) { comet::global_sum(t, g); }, {"global_sum: samples must be at least 1"});
    g = quick_sum;
    g.test_node = -1;
    fails_with(3, [&](transport& t) { comet::global_sum(t, g); }, {"global_sum: test node -1 is outside 0..2"});

    auto a = quick_barrier;
    a.samples = 0;
    fails_with(2, [&](transport& t) { comet::barrier(t, a); }, {"rank 0", "barrier: samples must be at least 1, got 0"});
    a = quick_barrier;
    a.test_node = 2;
    fails_with(2, [&](transport& t) { comet::barrier(t, a); }, {"barrier: test node 2 is outside 0..1"});
    a = quick_barrier;
    a.max_times = 0;
    fails_with(2, [&](transport& t) { comet::barrier(t, a); }, {"barrier: max_times must be at least 1"});
}

BOOST_AUTO_TEST_SUITE_END()
