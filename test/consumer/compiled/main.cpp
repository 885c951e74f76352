// Runs echo on the threads transport through an installed comet's compiled part: this unit
// declares echo on threads::transport (comet/compiled/threads.hpp, with the COMET_COMPILED
// that comet::compiled defines) and the library holds it.
#include <comet/kernels/echo.hpp>
#include <comet/compiled/threads.hpp>

#include <cstdio>

#if !defined(COMET_COMPILED)
#error "comet::compiled should define COMET_COMPILED"
#endif

int main() {
    const auto r = comet::threads::run(2, [](comet::threads::transport& t) {
        return comet::kernels::echo(t, {.sizes = {8, 4096}, .sampling = comet::fixed_sampling(1, 100)});
    });
    for (const auto& rec : r[0].records)
        std::printf("echo %lld bytes: %.3f us one way\n", static_cast<long long>(*rec.params.integer("size")), rec.samples[0] * 1e6);
    return r[0].records.size() == 2 ? 0 : 1;
}
