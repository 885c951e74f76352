// 03_delay_decorator — a decorator changes one thing about a transport and forwards the rest.
// delayed.hpp (under 40 lines, on comet::message_adaptor) holds every message back by a fixed
// time; here the echo kernel measures the threads transport with and without it, and the
// difference in one-way time is the delay, as it should be.
#include <comet/comet.hpp>

#include "delayed.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main() {
    constexpr double delay = 20e-6;
    const comet::kernels::echo_config cfg{.sizes = {8, 4096}, .hops = {1}, .sampling = comet::fixed_sampling(5, 200)};
    comet::threads::run(2, [&](comet::threads::transport& t) {
        // Plain and delayed take turns, three times, and each keeps its least sample: a busy
        // spell of the machine then slows a turn of each, not all of one.
        std::vector<double> plain(cfg.sizes.size(), 1e9), held(cfg.sizes.size(), 1e9);
        delayed<comet::threads::transport> slow(t, delay);
        const auto keep_least = [](std::vector<double>& least, const comet::result_set& r) {
            for (std::size_t i = 0; i < r.records.size(); ++i)
                least[i] = std::min(least[i], comet::summarize(r.records[i].samples).min);
        };
        for (int turn = 0; turn < 3; ++turn) {
            keep_least(plain, comet::kernels::echo(t, cfg));
            keep_least(held, comet::kernels::echo(slow, cfg));
        }
        if (t.rank() != 0) return;
        std::printf("least one-way time of an echo on the threads transport, %.0f us delay per message:\n", delay * 1e6);
        for (std::size_t i = 0; i < cfg.sizes.size(); ++i) {
            const double a = plain[i], b = held[i];
            std::printf("  %5zu bytes: %8.3f us plain, %8.3f us delayed, difference %7.3f us\n", cfg.sizes[i], a * 1e6, b * 1e6,
                        (b - a) * 1e6);
            if (b - a < 0.8 * delay) {
                std::printf("the difference should be at least the delay\n");
                std::exit(1);
            }
        }
    });
}
