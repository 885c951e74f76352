// The long run of the randomized differential test (test/support/differential.hpp): N seeds per
// transport configuration, and for each configuration the seeds run, the failures and the first
// failing seed with a one-line reproduction.
//
//   bench_differential                      2,000 seeds on each configuration
//   bench_differential --seeds 500 --config nx2-retry
//   bench_differential --config threads --seed 1234 [--print] [--shrink]
//                                           one seed: its failure, its program, a reduction
//
// Configurations: threads (2-8 ranks), core (the Transport concept's eight members over threads,
// so every blocking operation and collective is comet's portable one; 2-8 ranks), nx2 (2-64 simulated nodes, retransmission off), nx2-retry
// (the same with retransmission on: a header that waits 20 us for a channel gives its circuit up
// and is sent again). A seed fixes the group size and the program, so the reproduction is the
// configuration and the seed. The MPI configurations run under mpiexec as test_mpi_differential
// (test/mpi/test_differential.cpp; COMET_DIFFERENTIAL_SEEDS sets its count).
#include <comet/transport/nx2.hpp>
#include <comet/transport/threads.hpp>

#include "../test/support/differential.hpp"
#include "../test/support/minimal_transport.hpp"

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace diff = comet_test::differential;

struct configuration {
    const char* name;
    int lo, hi;  ///< group sizes
    diff::features features;
    std::optional<std::string> (*run)(const diff::program&);
    std::uint64_t retransmissions = 0;
};

std::uint64_t total_retransmissions = 0;

std::optional<std::string> on_threads(const diff::program& prog) {
    return diff::run_one(prog, [](const diff::program& p, std::vector<std::atomic<int>>& where) {
        comet::threads::run(p.ranks, [&](comet::threads::transport& t) {
            diff::run_program(t, p, {}, &where[static_cast<std::size_t>(t.rank())]);
        });
    });
}

std::optional<std::string> on_core(const diff::program& prog) {
    return diff::run_one(prog, [](const diff::program& p, std::vector<std::atomic<int>>& where) {
        comet::threads::run(p.ranks, [&](comet::threads::transport& inner) {
            comet_test::minimal_transport t(inner);
            diff::run_program(t, p, {}, &where[static_cast<std::size_t>(inner.rank())]);
        });
    });
}

comet::nx2::machine machine_for(int ranks, bool retry) {
    comet::nx2::machine m = comet::nx2::ipsc860(std::bit_width(static_cast<unsigned>(ranks - 1)));
    if (retry) m.retry_timeout = 20 * comet::nx2::microseconds;
    return m;
}

template <bool Retry>
std::optional<std::string> on_nx2(const diff::program& prog) {
    return diff::run_one(prog, [](const diff::program& p, std::vector<std::atomic<int>>& where) {
        comet::nx2::run_statistics stats;
        comet::nx2::run(
            machine_for(p.ranks, Retry),
            [&](comet::nx2::transport& t) { diff::run_program(t, p, {}, &where[static_cast<std::size_t>(t.rank())]); },
            {.ranks = p.ranks, .statistics = &stats});
        total_retransmissions += stats.total().retransmissions;
    });
}

std::vector<configuration> configurations() {
    return {{"threads", 2, 8, diff::features_of<comet::threads::transport>(), on_threads},
            {"core", 2, 8, diff::features_of<comet_test::minimal_transport>(), on_core},
            {"nx2", 2, 64, diff::features_of<comet::nx2::transport>(), on_nx2<false>},
            {"nx2-retry", 2, 64, diff::features_of<comet::nx2::transport>(), on_nx2<true>}};
}

diff::program program_of(const configuration& c, std::uint64_t seed) {
    return diff::generate(seed, diff::ranks_for(seed, c.lo, c.hi), c.features);
}

int usage() {
    std::fprintf(stderr,
                 "usage: bench_differential [--seeds N] [--first S] [--config threads|core|nx2|nx2-retry|all]\n"
                 "       bench_differential --config NAME --seed S [--print] [--shrink]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::uint64_t seeds = 2000, first = 0;
    std::optional<std::uint64_t> one;
    std::string which = "all";
    bool print = false, do_shrink = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        const char* v = nullptr;
        if (a == "--seeds" && (v = value())) seeds = std::strtoull(v, nullptr, 10);
        else if (a == "--first" && (v = value())) first = std::strtoull(v, nullptr, 10);
        else if (a == "--seed" && (v = value())) one = std::strtoull(v, nullptr, 10);
        else if (a == "--config" && (v = value())) which = v;
        else if (a == "--print") print = true;
        else if (a == "--shrink") do_shrink = true;
        else return usage();
    }
    int status = 0;
    bool matched = false;
    for (configuration& c : configurations()) {
        if (which != "all" && which != c.name) continue;
        matched = true;
        if (one) {
            const diff::program prog = program_of(c, *one);
            std::printf("%s, seed %llu: %d ranks, %zu steps\n", c.name, static_cast<unsigned long long>(*one), prog.ranks,
                        prog.steps.size());
            if (print) std::printf("%s", diff::describe(prog).c_str());
            const auto e = c.run(prog);
            std::printf("%s\n", e ? e->c_str() : "passed");
            if (e && do_shrink) {
                const diff::program small = diff::shrink(prog, c.features, [&](const diff::program& p) { return c.run(p).has_value(); });
                std::printf("reduced to %zu steps:\n%s", small.steps.size(), diff::describe(small).c_str());
                const auto again = c.run(small);
                std::printf("%s\n", again ? again->c_str() : "passed (the failure did not repeat)");
            }
            status |= e ? 1 : 0;
            continue;
        }
        total_retransmissions = 0;
        const diff::tally t = diff::run_seeds(first, seeds, [&](std::uint64_t seed) { return c.run(program_of(c, seed)); });
        std::printf("%-10s seeds %llu  failures %llu", c.name, static_cast<unsigned long long>(t.seeds),
                    static_cast<unsigned long long>(t.failures));
        if (std::strncmp(c.name, "nx2", 3) == 0)
            std::printf("  retransmissions %llu", static_cast<unsigned long long>(total_retransmissions));
        std::printf("\n");
        if (t.first_failure) {
            std::printf("  first failing seed %llu; reproduce: bench_differential --config %s --seed %llu --print --shrink\n  %s\n",
                        static_cast<unsigned long long>(*t.first_failure), c.name,
                        static_cast<unsigned long long>(*t.first_failure), t.first_message.c_str());
            status = 1;
        }
        std::fflush(stdout);
    }
    return matched ? status : usage();
}
