// slowed_runs DIR — the two runs the cli test cli_compare_slowed hands to `comet compare`: echo
// at 8 and 64 bytes on the threads transport, plain (DIR/plain/results.json) and with every
// message held back 1 µs by the decorator of examples/delayed.hpp (DIR/slowed/results.json).
// Not a Boost.Test case (test_*.cpp): it measures, and the verdict is the comet program's.
//
// Why in alternating blocks: on a shared 2-core machine the threads transport's one-way time
// jumps between states a microsecond or more apart (which core each rank gets, whether a rank
// has to be woken), as large as the delay itself. Measured as two runs one after the other, a
// jump between them could hide the delay or fake one. So plain and slowed take turns, 24
// blocks each, and each record pools its blocks' samples: a state that lasts a while lands on
// both alike (the sampling engine's round-robin order, one level up). Each block is a round
// of the record (record::rounds), as the comet program's passes are, so `comet compare` tests
// the delay against how much the blocks' medians vary, not against the spread of samples taken
// milliseconds apart. Why 24: with both cores busy with other work, a block now and then lands
// in another state of the machine, µs away, and widens the spread the delay is tested against.
// From 7 blocks a side compare ranks them (the U test), which such blocks do not blind: +18%
// with 5 of 24 blocks a side in the other state came out at p = 0.0008, where Welch's t (what
// fewer blocks get) said 0.12; 24 leave room for more such blocks, in about 4 s. Fixed loops
// of 200 round trips keep every pooled sample of a point the same measurement.
#include <comet/kernels/echo.hpp>
#include <comet/report/json.hpp>
#include <comet/transport/threads.hpp>

#include "../../examples/delayed.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: slowed_runs DIR\n");
        return 2;
    }
    using threads_t = comet::threads::transport;
    constexpr double delay = 1e-6;
    constexpr int blocks = 24;
    const comet::kernels::echo_config cfg{.sizes = {8, 64}, .hops = {1}, .sampling = comet::fixed_sampling(15, 200)};
    // Preemptions are not looked at: this measures a delay for `comet compare`, not validity,
    // and a run beside other work would flag the samples of whole blocks.
    comet::threads::options quiet;
    quiet.count_preemptions = false;
    auto per_rank = comet::threads::run(2, [&](threads_t& t) {
        std::pair<comet::result_set, comet::result_set> runs;
        for (int b = 0; b < blocks; ++b) {
            const comet::result_set plain = comet::kernels::echo(t, cfg);
            delayed<threads_t> slow(t, delay);
            const comet::result_set held = comet::kernels::echo(slow, cfg);
            for (auto [into, from] : {std::pair{&runs.first, &plain}, std::pair{&runs.second, &held}}) {
                if (b == 0) {
                    *into = *from;
                    for (auto& r : into->records) r.rounds = {{r.samples.size(), r.iterations}};
                    continue;
                }
                for (std::size_t i = 0; i < from->records.size(); ++i) {  // the same points, in the same order
                    auto& r = into->records.at(i);
                    r.samples.insert(r.samples.end(), from->records[i].samples.begin(), from->records[i].samples.end());
                    r.overheads.insert(r.overheads.end(), from->records[i].overheads.begin(), from->records[i].overheads.end());
                    r.rounds.push_back({from->records[i].samples.size(), from->records[i].iterations});
                }
            }
        }
        return runs;
    }, quiet);
    auto& [plain, held] = per_rank.at(0);
    for (auto [name, rs] : {std::pair{"plain", &plain}, std::pair{"slowed", &held}}) {
        for (auto& r : rs->records)
            r.notes.push_back("pooled from " + std::to_string(blocks) + " blocks (its rounds) measured in turn with the " +
                              (rs == &plain ? "slowed" : "plain") + " run");
        comet::report rep{.ctx = comet::make_context("threads", 2), .results = *rs};
        rep.ctx.extra = {{"delay_per_message", rs == &plain ? "0" : "1 us"}, {"blocks", std::to_string(blocks)}};
        const std::filesystem::path dir = std::filesystem::path(argv[1]) / name;
        std::filesystem::create_directories(dir);
        std::ofstream f(dir / "results.json");
        comet::write_json(f, rep);
        if (!f) {
            std::fprintf(stderr, "slowed_runs: cannot write %s\n", (dir / "results.json").string().c_str());
            return 1;
        }
        std::printf("wrote %s\n", (dir / "results.json").string().c_str());
    }
}
