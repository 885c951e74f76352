// Runs echo on the MPI transport through an installed comet (under mpiexec -n 2).
#include <comet/kernels/echo.hpp>
#include <comet/transport/mpi.hpp>

#include <cstdio>

int main() {
    const bool ok = comet::mpi::run([](comet::mpi::transport& t) {
        const comet::result_set r = comet::kernels::echo(t, {.sizes = {8, 4096}, .sampling = comet::fixed_sampling(1, 100)});
        if (t.rank() != 0) return r.records.empty();
        for (const auto& rec : r.records)
            std::printf("echo %lld bytes: %.3f us one way\n", static_cast<long long>(*rec.params.integer("size")), rec.samples[0] * 1e6);
        return r.records.size() == 2;
    });
    return ok ? 0 : 1;
}
