// 01_embed_echo — ask comet, from inside your own parallel code, what a message to your
// neighbour costs, and use the fitted model to predict your halo exchange.
//
// The "application" here is four ranks on the threads transport; in a real code it is the
// transport your code already uses. echo returns raw samples on the test node; fit_transfers
// turns them into t(N) = t_startup + N * t_per_byte.
#include <comet/comet.hpp>

#include <cstdio>
#include <vector>

int main() {
    comet::threads::run(4, [](comet::threads::transport& t) {
        // 1. Measure: one hop away, a few sizes around the halo size we care about.
        const comet::result_set echo =
            comet::echo(t, {.sizes = {8, 512, 2048, 8192, 16384, 32768}, .hops = {1}, .max_times = 200});

        // 2. The application's own halo exchange: 1024 doubles with the neighbour, timed with
        //    the same repeat loop the kernels use.
        std::vector<double> halo(1024, 1.0), ghost(1024);
        const int neighbour = t.rank() ^ 1;
        const auto measured = comet::repeat(t, 200, [&] {
            t.send(neighbour, 7, comet::bytes_of(halo));
            t.recv(neighbour, 7, comet::writable_bytes_of(ghost));
        });

        if (t.rank() != 0) return;  // results live on the test node
        // 3. Predict the exchange from the echo fit and compare.
        const comet::transfer_fit fit = comet::fit_transfers(echo, "echo").front();
        const double bytes = static_cast<double>(halo.size() * sizeof(double));
        std::printf("echo fit: t_startup = %.3f us, t_per_byte = %.3f ns (residual %.3f us)\n", fit.t_startup * 1e6,
                    fit.t_per_byte * 1e9, fit.residual * 1e6);
        std::printf("one-way time predicted for the %.0f-byte halo: %.3f us\n", bytes,
                    (fit.t_startup + bytes * fit.t_per_byte) * 1e6);
        std::printf("the application's exchange measured:        %.3f us\n", measured.per_iteration * 1e6);
    });
}
