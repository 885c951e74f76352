// 01_embed_echo — ask comet, from inside your own parallel code, what exchanging a message with
// a neighbour costs, and use the fitted model to predict your own halo exchange.
//
// The "application" here is two ranks on the threads transport; in a real code it is the
// transport your code already uses. pairwise returns raw samples on the test node, and
// fit_transfers turns them into t(N) = t_startup + N * t_per_byte.
#include <comet/comet.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    comet::threads::run(2, [](comet::threads::transport& t) {
        // 1. Measure: one hop away, sizes around the halo we care about (all above the
        //    transport's eager limit, so that one straight line describes them).
        const comet::result_set measured =
            comet::kernels::pairwise(t, {.sizes = {2048, 4096, 16384, 32768}, .hops = {1}});

        // 2. The application's own halo exchange: 1024 doubles each way, timed with the same
        //    repeat loop the kernels use.
        std::vector<double> halo(1024, 1.0), ghost(1024);
        const int neighbour = 1 - t.rank();
        const auto own = comet::repeat(t, 200, [&] {
            t.send(neighbour, 7, comet::bytes_of(halo));
            t.recv(neighbour, 7, comet::writable_bytes_of(ghost));
        });

        if (t.rank() != 0) return;  // results live on the test node
        // 3. Predict the exchange from the fit and compare. On a busy machine a point whose
        //    samples were all disturbed is flagged and reports nothing: a line needs two sizes.
        const auto usable = std::ranges::count_if(measured.records, [](const comet::record& r) { return comet::usable(r); });
        if (usable < 2) {
            std::printf("pairwise: %td of %zu sizes measured undisturbed, too few for a fit (a busy machine)\n", usable,
                        measured.size());
            return;
        }
        const comet::transfer_fit fit = comet::fit_transfers(measured, "pairwise").front();
        if (!fit.valid()) {  // a fit that does not hold is no prediction
            std::printf("pairwise fit %s\n", comet::fit_flags_text(fit.flags).c_str());
            return;
        }
        const double bytes = static_cast<double>(halo.size() * sizeof(double));
        std::printf("pairwise fit: t_startup = %.3f us, t_per_byte = %.3f ns (residual %.3f us)\n",
                    fit.t_startup * 1e6, fit.t_per_byte * 1e9, fit.residual * 1e6);
        std::printf("exchange of the %.0f-byte halo, predicted: %.3f us\n", bytes, comet::predict(fit, bytes) * 1e6);
        std::printf("exchange of the %.0f-byte halo, measured:  %.3f us\n", bytes, own.per_iteration * 1e6);
    });
}
