// bench_threads — the threads transport next to the floors a shared-memory transport cannot
// beat, measured in the same run and printed as ratios:
//
//   small messages: two threads bouncing one cache line (the cost of moving a line between
//                   the two cores), against comet's 8-byte echo, one way;
//   large messages: two threads handing a 1 MiB buffer back and forth, the receiver copying
//                   straight out of the sender's buffer (one copy per leg), against comet's
//                   1 MiB echo, one way;
//   swaps:          two threads each copying the other's 2 MB buffer into its own at the same
//                   time (both halves moved once), from buffers prepared as COMMTEST prepares
//                   them before every exchange, against COMMTEST's 2 MB swap by protocol (0,3)
//                   as one message (irecv + isend + waits on both ranks);
//   more ranks than cores: echo inside an 8-rank group, and 4 pairs echoing at once.
//
// The host may place the two cores near or far from each other, and may move them while this
// runs, so floor and transport are measured alternately, trial by trial, and the ratio is the
// median of the per-trial ratios. Run it on an otherwise idle machine, built with optimisation.
//
// Each ratio is the median of 15 per-trial ratios, with its distribution-free 95% interval. A
// ratio whose whole interval lies below 1 means the floor was beaten, so it is not a floor, and
// the line says so; a transport that adds nothing measurable to its copies reads 1 within the
// interval ("at the floor"). Measurements a thread was preempted in are kept out on both sides,
// as comet's validity rules keep such samples out (a trial with none left is taken again).
//
// What made comet beat its floors before (1 MiB echo 0.80-0.89, 2 MB swap 0.82), each found by
// timing every copy inside the transport and the floor:
//   - the transport copied some messages twice: a receiver that drained a large offer a moment
//     before posting its receive told the sender at once, and the sender withdrew the offer
//     into a copy of its own (one 1 MiB echo leg in five; inbox.hpp now tells it only once the
//     receiver shows it will not receive now). The double copy was the faster one on these
//     hosts: two copies out of the copier's own cache, ~22 µs each, against one ~70 µs copy
//     of lines the other CPU had just written;
//   - the floors' buffers were allocated by the thread that starts the run, not by the
//     threads that use them, as a rank's are;
//   - the floors' threads were not placed as ranks are, and spun tightly while the other
//     copied, where a rank yields after 2 µs (wait_as_a_rank);
//   - a 100-round floor and a one-sample echo kept the measurements a thread was preempted in,
//     and comet's echo sample was taken whether or not it was valid: a sample in which the two
//     ranks shared one CPU (Linux moved one onto the other's, and they handed over in its
//     cache at 30 µs per leg) read as the transport's figure. comet flags those samples.

#include <comet/kernels/commtest/commtest.hpp>
#include <comet/kernels/echo.hpp>
#include <comet/core/preemptions.hpp>
#include <comet/stats/summary.hpp>
#include <comet/stats/validity.hpp>
#include <comet/timing/clock.hpp>
// The transport, and with COMET_COMPILED the kernels above as the library holds them
// (bench_threads_compiled, CMakeLists.txt): both modes run the same code.
#include <comet/compiled/threads.hpp>
#include <comet/transport/threads/sleep.hpp>

#include <algorithm>
#include <cmath>
#include <span>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// Runs `a` and `b` on two new threads placed as threads::run places two ranks (each started
/// on a CPU of its own, then left free to move), so that a floor and comet see the same
/// arrangement of threads on the machine. Unplaced, both start on the CPU of the thread that
/// creates them, and the 2 MB swap floor read 44 or 57 µs from one run to the next while
/// comet's swap read 50.
template <class A, class B>
void on_two_threads(A&& a, B&& b) {
    namespace td = comet::threads::detail;
    const std::vector<int> cpus = td::usable_cpus();
    const auto placed = [&](std::size_t i, auto& body) {
        if (cpus.size() >= 2) td::start_on_cpu(cpus[i], cpus);
        body();
    };
    std::thread tb([&] { placed(1, b); });
    std::thread ta([&] { placed(0, a); });
    ta.join();
    tb.join();
}

/// The median of the measurements no thread was preempted in (`preempted[t][k]`: thread t in
/// measurement k), or NaN if there is none: a floor keeps such measurements out as comet's
/// validity rules keep a preempted sample out of its statistics (stats/validity.hpp).
double median_unpreempted(const std::vector<double>& seconds, const std::vector<char> (&preempted)[2]) {
    std::vector<double> kept;
    for (std::size_t k = 0; k < seconds.size(); ++k)
        if (!preempted[0][k] && !preempted[1][k]) kept.push_back(seconds[k]);
    return kept.empty() ? std::nan("") : median(kept);
}

/// Waits until `ready()` as a rank of the threads transport waits while it does not sleep
/// (threads/waiting.hpp): spinning, then after 2 µs yielding the CPU every 64 looks. Waiting
/// in a tight spin instead, the 1 MiB floor read 0.5% above comet: a thread spinning beside a
/// copy slows it, or the host does while the two CPUs are near.
template <class Ready>
void wait_as_a_rank(Ready&& ready) {
    std::chrono::steady_clock::time_point eager_until;
    for (unsigned i = 1; !ready(); ++i) {
        comet::threads::detail::cpu_relax();
        if ((i & 63) != 0) continue;
        const auto now = std::chrono::steady_clock::now();
        if (i == 64) eager_until = now + std::chrono::microseconds(2);
        else if (now >= eager_until) std::this_thread::yield();
    }
}

/// One-way time of a ping-pong between two threads: thread a hands the turn over and waits
/// for it back, thread b waits for it and hands it back, and each runs its leg (`make_a()`,
/// `make_b()`, each made on its own thread before the first round: it allocates there) once
/// it has the turn. Measured in `batches` batches of `rounds` rounds after one batch of
/// warm-up, each after an untimed round that lets both threads read their preemption count;
/// the median over the batches neither thread was preempted in, NaN if none was.
template <class MakeA, class MakeB>
double ping_pong(std::size_t batches, std::size_t rounds, MakeA&& make_a, MakeB&& make_b) {
    alignas(64) std::atomic<std::uint64_t> turn{0};
    const auto wait_for = [&](std::uint64_t v) { wait_as_a_rank([&] { return turn.load(std::memory_order_acquire) == v; }); };
    const std::size_t total = batches + 1;
    std::vector<double> seconds(total);
    std::vector<char> preempted[2] = {std::vector<char>(total), std::vector<char>(total)};
    on_two_threads(
        [&] {
            auto leg = make_a();
            turn.store(1, std::memory_order_release);
            wait_for(2);  // both legs made
            std::uint64_t v = 2;
            for (std::size_t k = 0; k < total; ++k) {
                const std::uint64_t before = comet::involuntary_switches();
                clock_type::time_point t0;
                for (std::size_t r = 0; r <= rounds; ++r) {
                    if (r == 1) t0 = clock_type::now();
                    turn.store(++v, std::memory_order_release);
                    wait_for(++v);
                    leg();
                }
                seconds[k] = seconds_since(t0) / static_cast<double>(rounds) / 2;
                preempted[0][k] = comet::involuntary_switches() != before;
            }
            turn.store(++v, std::memory_order_release);  // done with the other's leg
        },
        [&] {
            wait_for(1);
            auto leg = make_b();
            turn.store(2, std::memory_order_release);
            std::uint64_t v = 2;
            for (std::size_t k = 0; k < total; ++k) {
                const std::uint64_t before = comet::involuntary_switches();
                for (std::size_t r = 0; r <= rounds; ++r) {
                    wait_for(++v);
                    leg();
                    turn.store(++v, std::memory_order_release);
                }
                preempted[1][k] = comet::involuntary_switches() != before;
            }
            wait_for(++v);
        });
    seconds.erase(seconds.begin());  // the warm-up batch
    for (auto& p : preempted) p.erase(p.begin());
    return median_unpreempted(seconds, preempted);
}

/// One-way time of a cache line bounced between two threads: each side waits for the other's
/// value and answers with the next (the turn of ping_pong is that line).
double cache_line_floor(std::size_t rounds) {
    const auto nothing = [] { return [] {}; };
    return ping_pong(10, rounds / 10, nothing, nothing);
}

/// One-way time of a buffer of `n` bytes handed back and forth, each receiver copying it out
/// of the other's buffer into its own (the single copy a shared-memory transport needs). Each
/// thread allocates and first writes its own buffer, as a rank does: allocated by the thread
/// that starts the run, the same copies ran 1.1-1.2 times slower while the host kept the two
/// CPUs near each other, and the floor read above comet.
double single_copy_floor(std::size_t n, std::size_t rounds) {
    std::atomic<std::byte*> buffer[2] = {nullptr, nullptr};
    const auto side = [&](int me) {
        return [&, me] {
            auto mine = std::make_shared<std::vector<std::byte>>(n, std::byte(me + 1));
            buffer[me].store(mine->data(), std::memory_order_relaxed);
            // The other's buffer is read at the first copy, after the handshake that follows.
            return [&, me, mine] { comet::threads::detail::copy_bulk(mine->data(), buffer[1 - me].load(std::memory_order_relaxed), n); };
        };
    };
    return ping_pong(10, rounds / 10, side(0), side(1));
}

/// Time of a swap of `n` bytes the fastest way two threads can, from the state COMMTEST's warm
/// mode leaves the buffers in before every exchange: each thread copies its send volume from
/// the kernel's pattern and clears its receive volume, the two meet (spinning on a shared
/// counter), then each copies the other's volume into its own receive volume, they meet again,
/// and each checks what it received against the partner's pattern, as COMMTEST does. As
/// COMMTEST's sample, a swap's time is the slower thread's; returns the median over the
/// `rounds` swaps neither thread was preempted in (NaN if none).
/// Without the preparation the copy reads lines nobody wrote since the last swap, which on
/// these machines can run three to four times faster than the kernel's copy of lines written a
/// moment before: that floor measured the buffers' state, not the transport. Each thread
/// allocates its own volumes, as a rank does (single_copy_floor says why).
double double_copy_floor(std::size_t n, std::size_t rounds) {
    std::atomic<const std::byte*> volume[2] = {nullptr, nullptr};
    alignas(64) std::atomic<std::uint64_t> arrived{0};
    const std::size_t warm = 3, total = rounds + warm;
    std::vector<double> seconds[2] = {std::vector<double>(total), std::vector<double>(total)};
    std::vector<char> preempted[2] = {std::vector<char>(total), std::vector<char>(total)};
    const auto side = [&](int me) {
        std::vector<std::byte> out(n), in(n), own(n), partners(n);
        for (std::size_t j = 0; j < n; ++j) {
            own[j] = comet::kernels::commtest::detail::pattern_byte(me, j);
            partners[j] = comet::kernels::commtest::detail::pattern_byte(1 - me, j);
        }
        volume[me].store(out.data(), std::memory_order_relaxed);
        std::uint64_t count = 0;
        const auto meet = [&] {
            count += 2;
            arrived.fetch_add(1, std::memory_order_acq_rel);
            wait_as_a_rank([&] { return arrived.load(std::memory_order_acquire) >= count; });
        };
        meet();  // both volumes exist
        const std::byte* other = volume[1 - me].load(std::memory_order_relaxed);
        for (std::size_t r = 0; r < total; ++r) {
            const std::uint64_t before = comet::involuntary_switches();
            std::memcpy(out.data(), own.data(), n);
            std::fill(in.begin(), in.end(), std::byte{0});
            meet();
            const auto t0 = clock_type::now();
            comet::threads::detail::copy_bulk(in.data(), other, n);
            meet();  // also: the other is done reading `out` before it changes, or is freed
            seconds[me][r] = seconds_since(t0);
            preempted[me][r] = comet::involuntary_switches() != before;
            if (std::memcmp(in.data(), partners.data(), n) != 0) std::abort();  // COMMTEST's check
        }
    };
    on_two_threads([&] { side(0); }, [&] { side(1); });
    std::vector<double> slower;
    for (std::size_t r = 0; r < total; ++r) slower.push_back(std::max(seconds[0][r], seconds[1][r]));
    slower.erase(slower.begin(), slower.begin() + warm);
    for (auto& p : preempted) p.erase(p.begin(), p.begin() + warm);
    return median_unpreempted(slower, preempted);
}

/// The median of a record's valid samples, or NaN if it has none (each sample that a rank was
/// preempted in, among others, is kept out: stats/validity.hpp).
double valid_median(const comet::record& r) {
    const std::vector<double> v = comet::valid_samples(r);
    return v.empty() ? std::nan("") : median(v);
}

/// COMMTEST's swap of `n` bytes as one message by protocol (0,3) between two ranks: the median
/// of `samples` exchanges (each one sample, the slower rank's time) that are valid.
double comet_swap(std::size_t n, std::size_t samples) {
    namespace ct = comet::kernels::commtest;
    const auto r = comet::threads::run(2, [&](comet::threads::transport& t) {
        return ct::commtest(t, {.protocols = {{0, 3}}, .volumes = {n}, .messages = {1},
                                .sampling = comet::fixed_sampling(samples, 1)});
    });
    return valid_median(r[0].records.at(0));
}

/// comet's echo of `n` bytes between ranks 0 and 1 of a group of `ranks`, one way: the median
/// of the valid ones of 10 samples of `rounds` / 10 round trips each.
double comet_echo(std::size_t n, std::size_t rounds, int ranks = 2) {
    const auto r = comet::threads::run(ranks, [&](comet::threads::transport& t) {
        return comet::kernels::echo(t, {.sizes = {n}, .hops = {1}, .sampling = comet::fixed_sampling(10, rounds / 10)});
    });
    return valid_median(r[0].records.at(0));
}

/// `pairs` pairs of ranks echoing 8 bytes at the same time; the mean one-way time.
double concurrent_echo(int pairs, std::size_t rounds) {
    const auto r = comet::threads::run(2 * pairs, [&](comet::threads::transport& t) {
        std::vector<std::byte> b(8);
        const int peer = t.rank() ^ 1;
        t.barrier();
        const auto t0 = clock_type::now();
        for (std::size_t i = 0; i < rounds; ++i) {
            if (t.rank() % 2 == 0) {
                t.send(peer, 1, b);
                t.recv(peer, 1, b);
            } else {
                t.recv(peer, 1, b);
                t.send(peer, 1, b);
            }
        }
        const double s = seconds_since(t0);
        t.barrier();
        return s / static_cast<double>(rounds) / 2;
    });
    double sum = 0;
    for (double x : r) sum += x;
    return sum / static_cast<double>(r.size());
}

/// The median difference between two ranks' start times after COMMTEST's synchronisation
/// (`twice`) or a single barrier, rank 0 arriving `late` after rank 1 each time (as a sampling
/// engine's decider does, with its bookkeeping), over `samples` starts.
double start_skew(bool twice, std::chrono::microseconds late, int samples) {
    std::vector<double> start[2] = {std::vector<double>(static_cast<std::size_t>(samples)),
                                    std::vector<double>(static_cast<std::size_t>(samples))};
    comet::threads::run(2, [&](comet::threads::transport& t) {
        const int ranks[] = {0, 1};
        for (int s = 0; s < samples; ++s) {
            if (t.rank() == 0) {
                const auto t0 = clock_type::now();
                while (clock_type::now() - t0 < late) comet::threads::detail::cpu_relax();
            }
            if (twice) comet::kernels::commtest::detail::synchronise(t, std::span<const int>(ranks), 7);
            else t.barrier();
            start[t.rank()][static_cast<std::size_t>(s)] = t.now();
        }
        return 0;
    });
    std::vector<double> skew;
    for (int s = 0; s < samples; ++s) skew.push_back(std::abs(start[0][static_cast<std::size_t>(s)] - start[1][static_cast<std::size_t>(s)]));
    return median(skew);
}

struct row {
    const char* name;
    double floor, comet, target;
    comet::summary ratio;  ///< of the per-trial ratios: median and its 95% interval
    int retaken = 0;       ///< trials taken again: every measurement of one side preempted
};

/// A ratio whose whole interval lies below 1 means the floor was beaten: not a floor. A
/// transport that adds nothing measurable to its copy reads 1 within the interval.
void print(const row& r) {
    const double lo = r.ratio.median_ci_low.value_or(r.ratio.min), hi = r.ratio.median_ci_high.value_or(r.ratio.max);
    std::printf("  %-26s %12.1f %12.1f %7.3f [%.3f, %.3f]  <= %.1f  %s%s\n", r.name, r.floor * 1e9, r.comet * 1e9,
                r.ratio.median, lo, hi, r.target, r.ratio.median <= r.target ? "ok" : "MISSED",
                hi < 1 ? " (below 1: not a floor here)" : lo < 1 ? " (at the floor)" : "");
    if (r.retaken) std::printf("  %-26s %d trial(s) taken again (preempted)\n", "", r.retaken);
}

/// Alternates floor and transport until `trials` trials had both valid (a floor with some
/// measurement no thread was preempted in, a transport figure with valid samples), at most
/// 4 × `trials` attempts;
/// returns medians and the per-trial ratios'.
template <class Floor, class Comet>
row compare(const char* name, double target, int trials, Floor&& floor, Comet&& comet) {
    std::vector<double> f, c, ratio;
    int attempts = 0;
    for (; static_cast<int>(ratio.size()) < trials && attempts < 4 * trials; ++attempts) {
        const double fi = floor(), ci = comet();
        if (std::isnan(fi) || std::isnan(ci)) continue;
        f.push_back(fi);
        c.push_back(ci);
        ratio.push_back(ci / fi);
    }
    if (ratio.empty()) return {name, std::nan(""), std::nan(""), target, comet::summarize(ratio)};
    return {name, median(f), median(c), target, comet::summarize(ratio), attempts - static_cast<int>(ratio.size())};
}

}  // namespace

int main() {
#ifndef NDEBUG
    std::printf("warning: built without NDEBUG; build with -DCMAKE_BUILD_TYPE=Release for meaningful figures\n");
#endif
    std::printf("threads transport against its floors (same run, %u hardware threads)\n\n",
                std::thread::hardware_concurrency());
    std::printf("  %-26s %12s %12s %7s %-16s  %s\n", "one-way time", "floor[ns]", "comet[ns]", "ratio", " [95% interval]", "target");
    print(compare("8 B echo / cache line", 2.0, 15, [] { return cache_line_floor(20000); }, [] { return comet_echo(8, 20000); }));
    print(compare("1 MiB echo / single copy", 1.3, 15, [] { return single_copy_floor(1 << 20, 100); },
                  [] { return comet_echo(1 << 20, 100); }));

    print(compare("2 MB swap (0,3) / 2 copies", 1.3, 15, [] { return double_copy_floor(2 << 20, 50); },
                  [] { return comet_swap(2 << 20, 50); }));

    std::printf("\nstart skew after COMMTEST's synchronisation, one rank 300 us late (median of 200)\n");
    const double once = start_skew(false, std::chrono::microseconds(300), 200), twice = start_skew(true, std::chrono::microseconds(300), 200);
    std::printf("  one barrier: %.2f us   twice (commtest): %.2f us   target: below 1 us: %s\n", once * 1e6, twice * 1e6,
                twice < 1e-6 ? "ok" : "MISSED");

    std::printf("\nmore ranks than cores (a context switch, a few microseconds, is the floor there)\n");
    std::vector<double> in8, pairs4;
    for (int i = 0; i < 5; ++i) {
        if (const double e = comet_echo(8, 5000, 8); !std::isnan(e)) in8.push_back(e);
        pairs4.push_back(concurrent_echo(4, 2000));
    }
    std::printf("  8 B echo, 2 of 8 ranks busy:   %8.2f us one way (median of 5)\n", median(in8) * 1e6);
    std::printf("  8 B echo, all 8 ranks busy:    %8.2f us one way (4 pairs at once, median of 5)\n", median(pairs4) * 1e6);
    const double worst = std::max(median(in8), median(pairs4));
    std::printf("  target: a few microseconds, not milliseconds: %s\n", worst < 20e-6 ? "ok" : "MISSED");
}
