// 03_delay_decorator — a decorator changes one thing about a transport and forwards the rest.
// delayed.hpp (under 40 lines, on comet::transport_adaptor) holds every message back by a fixed
// time; here the echo kernel measures the threads transport with and without it, and the
// difference in one-way time is the delay, as it should be.
#include <comet/comet.hpp>

#include "delayed.hpp"

#include <cstdio>
#include <cstdlib>

int main() {
    constexpr double delay = 20e-6;
    const comet::kernels::echo_config cfg{.sizes = {8, 4096}, .hops = {1}, .sampling = comet::fixed_sampling(5, 200)};
    comet::threads::run(2, [&](comet::threads::transport& t) {
        const comet::result_set plain = comet::kernels::echo(t, cfg);
        delayed<comet::threads::transport> slow(t, delay);
        const comet::result_set held = comet::kernels::echo(slow, cfg);
        if (t.rank() != 0) return;
        std::printf("least one-way time of an echo on the threads transport, %.0f us delay per message:\n", delay * 1e6);
        for (std::size_t i = 0; i < plain.records.size(); ++i) {
            // The least of each point's samples: noise on a shared machine adds time and never
            // removes it, so a median can be inflated on either side, the least only slightly.
            const double a = comet::summarize(plain.records[i].samples).min;
            const double b = comet::summarize(held.records[i].samples).min;
            std::printf("  %5lld bytes: %8.3f us plain, %8.3f us delayed, difference %7.3f us\n",
                        static_cast<long long>(*plain.records[i].params.integer("size")), a * 1e6, b * 1e6, (b - a) * 1e6);
            // Only a lower bound can be checked on a shared machine.
            if (b - a < 0.8 * delay) {
                std::printf("the difference should be at least the delay\n");
                std::exit(1);
            }
        }
    });
}
