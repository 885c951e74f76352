// 04_stencil_links — a 2-D stencil code asks what its own halo exchange costs: it measures the
// links from one of its ranks to that rank's four mesh neighbours, one at a time and all four
// at once, fits each link, predicts its halo time from the fits, and checks the prediction
// against its own exchange timed in place.
//
//   example_04_stencil_links                 threads transport, 9 ranks (a 3 x 3 mesh)
//   example_04_stencil_links ipsc860         the simulated iPSC/860, 16 nodes (4 x 4)
//   mpirun -np 9 example_04_stencil_links mpi   MPI (when built with MPI; any mesh size the
//                                               thesis allows: 4, 8, 9, 16, 18, ...)
#include <comet/analysis/predict.hpp>
#include <comet/kernels/exchange.hpp>
#include <comet/stats/fit.hpp>
#include <comet/topology/mesh.hpp>
#include <comet/transport/threads.hpp>
#ifdef COMET_HAVE_MPI
#include <comet/transport/mpi.hpp>
#endif
#ifdef COMET_HAVE_NX2
#include <comet/transport/nx2.hpp>
#endif

#include <algorithm>
#include <cstdio>
#include <span>
#include <string_view>
#include <vector>

namespace {

/// The application's halo: one row of its block, 1000 doubles, to each neighbour.
constexpr std::size_t halo_bytes = 1000 * sizeof(double);

/// The records of `kernel` over the link me -> to in `mode`.
comet::result_set link_records(const comet::result_set& r, int to, std::string_view mode) {
    comet::result_set out;
    for (const auto& rec : r.records)
        if (rec.params.integer("to") == to && rec.params.text("mode") == mode) out.records.push_back(rec);
    return out;
}

template <comet::transport T>
void stencil(T& t, const char* transport_name) {
    // The application's layout: a 2-D mesh over the ranks; it asks about one of its ranks.
    const comet::processor_mesh mesh(t.size());
    const int me = mesh.node_at(mesh.rows() / 2, mesh.cols() / 2);
    const auto [top, bottom, pred, succ] = mesh.neighbours(me);
    const std::vector<comet::kernels::link> links = comet::kernels::links_to(me, {top, bottom, pred, succ});

    // 1. Measure its links with halo-sized messages around its own, one at a time and at once.
    //    An application exchanges its halo every time step, so each sample is a run of 50
    //    exchanges back to back (the steady state its loop sees), not one from a cold start.
    comet::kernels::exchange_config cfg{.sizes = {2048, 4096, 8192, 12288, 16384},
                                        .test_node = me,
                                        .links = links,
                                        .sampling = {.iterations = 50}};
    comet::result_set measured = comet::kernels::pairwise(t, cfg);
    cfg.concurrent = true;
    measured.append(comet::kernels::pairwise(t, cfg));

    // 2. The application's own halo exchange, all neighbours at once, timed in place.
    std::vector<std::vector<std::byte>> out(links.size(), std::vector<std::byte>(halo_bytes)),
        in(links.size(), std::vector<std::byte>(halo_bytes));
    std::vector<int> peers;  // my neighbours
    for (const auto& l : links) peers.push_back(l.to);
    const bool mine = t.rank() == me, neighbour = std::find(peers.begin(), peers.end(), t.rank()) != peers.end();
    // Whom this rank exchanges with, and its requests, set up once: the timed loop holds the
    // exchange and nothing else.
    const std::vector<int> with = mine ? peers : std::vector<int>{me};
    std::vector<typename T::request> rs;
    rs.reserve(2 * with.size());
    comet::ops::barrier(t);
    double own = 0;
    const auto exchange = [&] {
        rs.clear();
        for (std::size_t i = 0; i < with.size(); ++i) {
            rs.push_back(t.irecv(with[i], 5, in[i]));
            rs.push_back(t.isend(with[i], 5, out[i]));
        }
        comet::ops::wait_all(t, std::span<typename T::request>(rs));
    };
    if (mine) own = comet::repeat(t, 200, exchange).per_iteration;
    else if (neighbour)
        for (int i = 0; i < 200; ++i) exchange();
    comet::ops::barrier(t);
    if (!mine) return;

    // 3. Fit each link, predict the halo over it, and the whole halo exchange.
    std::printf("%s, %d ranks (%d x %d mesh); rank %d and its %zu neighbours; halo %zu bytes\n\n", transport_name,
                t.size(), mesh.rows(), mesh.cols(), me, links.size(), halo_bytes);
    std::printf("  link     one at a time: t_startup  t_per_byte  halo      all at once: t_startup  t_per_byte  halo\n");
    double slowest_alone = 0, slowest_busy = 0, sum_alone = 0;
    bool all_valid = true;
    for (const auto& l : links) {
        std::printf("  %2d -> %-2d", l.from, l.to);
        for (std::string_view mode : {"one_at_a_time", "concurrent"}) {
            const auto fits = comet::fit_transfers(link_records(measured, l.to, mode), "pairwise");
            const auto& f = fits.front();
            if (!f.valid()) {
                std::printf("   %-38s", comet::fit_flags_text(f.flags).c_str());
                all_valid = false;
                continue;
            }
            const double halo = comet::predict(fits, halo_bytes);
            std::printf("   %12.2f us %8.3f ns/B %7.2f us", f.t_startup * 1e6, f.t_per_byte * 1e9, halo * 1e6);
            if (mode == "one_at_a_time") slowest_alone = std::max(slowest_alone, halo), sum_alone += halo;
            else slowest_busy = std::max(slowest_busy, halo);
        }
        std::printf("\n");
    }
    if (!all_valid) {
        std::printf("\n  a fit is flagged: no prediction\n");
        return;
    }
    std::printf("\n  halo exchange with all %zu neighbours, predicted from the links measured all at once: %8.2f us\n",
                links.size(), slowest_busy * 1e6);
    std::printf("                           from the links one at a time, as if they overlapped: %8.2f us\n",
                slowest_alone * 1e6);
    std::printf("                           from the links one at a time, one after another:     %8.2f us\n",
                sum_alone * 1e6);
    std::printf("  halo exchange timed in place:                                                 %8.2f us\n", own * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
    const std::string_view which = argc > 1 ? argv[1] : "";
    if (which == "mpi") {
#ifdef COMET_HAVE_MPI
        comet::mpi::run([](comet::mpi::transport& t) { stencil(t, "MPI"); });
        return 0;
#else
        std::fprintf(stderr, "example_04_stencil_links: built without MPI\n");
        return 1;
#endif
    }
    if (which == "ipsc860") {
#ifdef COMET_HAVE_NX2
        comet::nx2::run(comet::nx2::ipsc860(4), [](comet::nx2::transport& t) { stencil(t, "simulated iPSC/860"); });
        return 0;
#else
        std::fprintf(stderr, "example_04_stencil_links: built without the simulated iPSC/860 (Boost.Context)\n");
        return 1;
#endif
    }
    if (!which.empty() && which != "threads") {
        std::fprintf(stderr, "example_04_stencil_links: unknown transport '%s' (threads, ipsc860 or mpi)\n",
                     argv[1]);
        return 1;
    }
    comet::threads::run(9, [](comet::threads::transport& t) { stencil(t, "threads"); });
}
