// Runs echo on the threads transport through an installed comet.
#include <comet/comet.hpp>

#include <cstdio>

int main() {
    const auto r = comet::threads::run(2, [](comet::threads::transport& t) {
        return comet::kernels::echo(t, {.sizes = {8, 4096}, .sampling = comet::fixed_sampling(1, 100)});
    });
    for (const auto& rec : r[0].records)
        std::printf("echo %lld bytes: %.3f us one way\n", static_cast<long long>(*rec.params.integer("size")), rec.samples[0] * 1e6);
    return r[0].records.size() == 2 ? 0 : 1;
}
