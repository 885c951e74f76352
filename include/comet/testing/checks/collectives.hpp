// comet/testing/checks/collectives.hpp — the conformance checks of the blocking collectives of
// comet/ops/ (the transport's own or the portable algorithm): barrier, broadcast, the
// allreduces and rooted reductions, alltoall and gather, exact and identical on every rank
// whichever rank enters last; and a barrier's meaning (nobody leaves before everyone entered).
//
// The checks keep going after a wrong result and fail at their end (detail::first_failure):
// every rank calls every collective whatever it saw, so no rank is left waiting in one for a
// rank that stopped early (a blocking collective has no deadline).
#pragma once

#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/testing/checks/matching.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace comet::testing::checks {

namespace detail {

/// Inexact sums must agree bit for bit on every rank, whichever rank enters last (an
/// implementation that lets the last to arrive combine may favour its own values). `sum(x)`
/// sums every rank's three doubles x in place; it runs once with each rank in turn entering
/// 10 ms late, each rank keeps its results side by side, and rank 0's are broadcast once to
/// compare with. `check` (a session, or a first_failure) is told of each result that differs:
/// "<name> gave this rank other bits than rank 0 (rank <late> entering last)".
template <class T, class Check, class Sum>
void same_bits_whoever_enters_last(T& t, session& s, Check& check, std::string_view name, Sum&& sum) {
    std::vector<double> sums;
    for (int late = 0; late < t.size(); ++late) {
        std::vector<double> x{0.1 * (t.rank() + 1), 1e16 + t.rank(), 1.0 / (t.rank() + 3)};
        if (t.rank() == late) s.call("ops::compute", [&] { ops::compute(t, work::busy(0.01)); });
        sum(x);
        sums.insert(sums.end(), x.begin(), x.end());
    }
    std::vector<double> from_root = sums;
    s.call("ops::broadcast", [&] { ops::broadcast(t, 0, std::as_writable_bytes(std::span<double>(from_root))); });
    for (int late = 0; late < t.size(); ++late)
        check.expect(std::memcmp(sums.data() + 3 * late, from_root.data() + 3 * late, 3 * sizeof(double)) == 0, name,
                     " gave this rank other bits than rank 0 (rank ", late, " entering last)");
}

}  // namespace detail

/// barrier, broadcast from every root, the allreduces and gather: exact, and identical on
/// every rank (through comet::ops: the transport's own or the portable algorithm).
template <class Runner>
void collectives(const Runner& run, const limits& l) {
    for (int wanted : {1, 2, 3, 4, 5, 8}) {
        testing::detail::run_check(run, wanted, "collectives", l, [](auto& t, session& s) {
            detail::first_failure f;
            for (int i = 0; i < 5; ++i) s.call("ops::barrier", [&] { ops::barrier(t); });
            for (int root = 0; root < t.size(); ++root)
                for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{1001}, std::size_t{100001}}) {
                    auto data = t.rank() == root ? detail::pattern(n, static_cast<std::uint32_t>(root)) : std::vector<std::byte>(n);
                    s.call("ops::broadcast", [&] { ops::broadcast(t, root, data); });
                    f.expect(data == detail::pattern(n, static_cast<std::uint32_t>(root)), "broadcast of ", n, " bytes from root ", root,
                             " gave other bytes");
                }
            const double p = t.size();
            for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{5000}}) {
                std::vector<double> v(n), hi(n), lo(n);
                for (std::size_t i = 0; i < n; ++i) {
                    v[i] = static_cast<double>(t.rank() * 1000 + static_cast<int>(i)) + 0.5;
                    // The maximum and minimum sit on different ranks for different elements; every
                    // value to take the maximum of is negative, every one for the minimum positive.
                    lo[i] = 1.0 + static_cast<double>((t.rank() + static_cast<int>(i)) % t.size());
                    hi[i] = -lo[i];
                }
                s.call("ops::allreduce_sum", [&] { ops::allreduce_sum(t, v); });
                s.call("ops::allreduce_max", [&] { ops::allreduce_max(t, hi); });
                s.call("ops::allreduce_min", [&] { ops::allreduce_min(t, lo); });
                for (std::size_t i = 0; i < n; ++i) {
                    const double want = 1000.0 * p * (p - 1) / 2 + p * (static_cast<double>(i) + 0.5);
                    f.expect(v[i] == want, "allreduce_sum element ", i, " is ", v[i], ", expected ", want);
                    f.expect(hi[i] == -1.0, "allreduce_max element ", i, " is ", hi[i], ", expected -1");
                    f.expect(lo[i] == 1.0, "allreduce_min element ", i, " is ", lo[i], ", expected 1");
                }
            }
            // Sums in double precision: 1 + r * 2^-40 from rank r add up exactly in a double (not in
            // a float).
            std::vector<double> fine(3, 1.0 + std::ldexp(static_cast<double>(t.rank()), -40));
            s.call("ops::allreduce_sum", [&] { ops::allreduce_sum(t, fine); });
            const double fine_want = p + std::ldexp(p * (p - 1) / 2, -40);
            for (double x : fine)
                f.expect(x == fine_want, "allreduce_sum of 1 + rank * 2^-40 gave ", testing::detail::exact(x), ", expected ",
                         testing::detail::exact(fine_want), " (a double's sum)");
            // Maxima and minima of doubles beyond a float's range, and of doubles a float cannot
            // tell apart (1 + r * 2^-40): the largest and smallest, whichever rank holds them.
            std::vector<double> big_lo{1e300 * (1 + (t.rank() + 1) % t.size()), 1.0 + std::ldexp(static_cast<double>((t.rank() + 1) % t.size()), -40)};
            std::vector<double> big_hi{-big_lo[0], big_lo[1]};
            const std::vector<double> big_lo0 = big_lo, big_hi0 = big_hi;
            s.call("ops::allreduce_min", [&] { ops::allreduce_min(t, big_lo); });
            s.call("ops::allreduce_max", [&] { ops::allreduce_max(t, big_hi); });
            const double near_max = 1.0 + std::ldexp(p - 1, -40);
            f.expect(big_lo[0] == 1e300 && big_lo[1] == 1.0, "allreduce_min of 1e300 to ", p, "e300 and of 1 + rank * 2^-40 gave ",
                     testing::detail::exact(big_lo[0]), " and ", testing::detail::exact(big_lo[1]), ", expected 1e300 and 1");
            f.expect(big_hi[0] == -1e300, "allreduce_max of -1e300 to -", p, "e300 gave ", big_hi[0]);
            f.expect(big_hi[1] == near_max, "allreduce_max of 1 + rank * 2^-40 gave ", testing::detail::exact(big_hi[1]), ", expected ",
                     testing::detail::exact(near_max), " (compared as doubles)");
            for (int root = 0; root < t.size(); ++root) {
                auto mn = big_lo0, mx = big_hi0;
                s.call("ops::reduce_min", [&] { ops::reduce_min(t, root, mn); });
                s.call("ops::reduce_max", [&] { ops::reduce_max(t, root, mx); });
                if (t.rank() != root) continue;
                f.expect(mn[0] == 1e300 && mn[1] == 1.0, "reduce_min to root ", root, " of 1e300 to ", p, "e300 and of 1 + rank * 2^-40 gave ",
                         testing::detail::exact(mn[0]), " and ", testing::detail::exact(mn[1]), ", expected 1e300 and 1");
                f.expect(mx[0] == -1e300 && mx[1] == near_max, "reduce_max to root ", root, " of -1e300 to -", p,
                         "e300 and of 1 + rank * 2^-40 gave ", testing::detail::exact(mx[0]), " and ", testing::detail::exact(mx[1]),
                         ", expected -1e300 and ", testing::detail::exact(near_max));
            }
            // A sum whose root holds 0.0 is still the sum.
            for (int root = 0; root < t.size(); ++root) {
                std::vector<double> z{t.rank() == root ? 0.0 : 1.0, 0.0};
                s.call("ops::reduce_sum", [&] { ops::reduce_sum(t, root, z); });
                if (t.rank() == root) f.expect(z[0] == p - 1 && z[1] == 0.0, "reduce_sum to root ", root, " of 0 on the root and 1 elsewhere gave ", z[0], ", expected ", p - 1);
            }
            // Inexact sums must still agree bit for bit on every rank, whichever rank enters last.
            detail::same_bits_whoever_enters_last(t, s, f, "allreduce_sum", [&](std::vector<double>& x) {
                s.call("ops::allreduce_sum", [&] { ops::allreduce_sum(t, x); });
            });
            // The rooted reductions, from every root: the result on the root, every other rank's
            // values left as they were.
            for (int root = 0; root < t.size(); ++root)
                for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{5000}}) {
                    std::vector<double> sum(n), mx(n), mn(n);
                    for (std::size_t i = 0; i < n; ++i) {
                        sum[i] = static_cast<double>(t.rank() * 1000 + static_cast<int>(i)) + 0.25;
                        mn[i] = 2.0 + static_cast<double>((t.rank() + static_cast<int>(i)) % t.size());
                        mx[i] = -mn[i];
                    }
                    const auto sum0 = sum, mx0 = mx, mn0 = mn;
                    s.call("ops::reduce_sum", [&] { ops::reduce_sum(t, root, sum); });
                    s.call("ops::reduce_max", [&] { ops::reduce_max(t, root, mx); });
                    s.call("ops::reduce_min", [&] { ops::reduce_min(t, root, mn); });
                    if (t.rank() != root) {
                        f.expect(sum == sum0 && mx == mx0 && mn == mn0, "reduce_sum/max/min to root ", root,
                                 " changed the values of rank ", t.rank(), ", which is not the root");
                        continue;
                    }
                    for (std::size_t i = 0; i < n; ++i) {
                        const double want = 1000.0 * p * (p - 1) / 2 + p * (static_cast<double>(i) + 0.25);
                        f.expect(sum[i] == want, "reduce_sum to root ", root, ": element ", i, " is ", sum[i], ", expected ", want);
                        f.expect(mx[i] == -2.0, "reduce_max to root ", root, ": element ", i, " is ", mx[i], ", expected -2");
                        f.expect(mn[i] == 2.0, "reduce_min to root ", root, ": element ", i, " is ", mn[i], ", expected 2");
                    }
                }
            // alltoall: block r of every rank's out reaches rank r, this rank's own block included.
            for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{8}, std::size_t{3000}}) {
                const auto seed_of = [](int from, int to) { return static_cast<std::uint32_t>(200 + 10 * from + to); };
                std::vector<std::byte> out, in(n * static_cast<std::size_t>(t.size()), std::byte{0xEE});
                for (int r = 0; r < t.size(); ++r) {
                    const auto block = detail::pattern(n, seed_of(t.rank(), r));
                    out.insert(out.end(), block.begin(), block.end());
                }
                s.call("ops::alltoall", [&] { ops::alltoall(t, out, in); });
                for (int r = 0; r < t.size(); ++r) {
                    const auto want = detail::pattern(n, seed_of(r, t.rank()));
                    f.expect(std::equal(want.begin(), want.end(), in.begin() + static_cast<std::ptrdiff_t>(n) * r), "alltoall of ", n,
                             "-byte blocks: the block from rank ", r, r == t.rank() ? " (this rank's own)" : "",
                             " differs from what it sent");
                }
            }
            for (int root = 0; root < t.size(); ++root)
                for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{4000}}) {
                    const auto mine = detail::pattern(n, static_cast<std::uint32_t>(100 + t.rank()));
                    std::vector<std::byte> all(t.rank() == root ? n * static_cast<std::size_t>(t.size()) : 0);
                    s.call("ops::gather", [&] { ops::gather(t, root, mine, all); });
                    if (t.rank() == root)
                        for (int r = 0; r < t.size(); ++r) {
                            const auto want = detail::pattern(n, static_cast<std::uint32_t>(100 + r));
                            f.expect(std::equal(want.begin(), want.end(), all.begin() + static_cast<std::ptrdiff_t>(n) * r),
                                     "gather: the block of rank ", r, " differs from what it sent");
                        }
                }
            f.settle(s);
        });
    }
}

/// No rank leaves a barrier before every rank entered it, at any of eight barriers in a row
/// (groups of 2, 3 and 6: in the last, ranks past a tree's first level arrive late too), each with another rank arriving 100 ms late: every other rank's own
/// clock sees it wait (at least 5 ms of the 100, so that a rank descheduled on a busy machine is
/// no failure), and when the clock is global no rank left before the last arrived. A clock the
/// transport calls global also orders a message's receipt after its sending, both ways.
template <class Runner>
void barrier_waits_for_everyone(const Runner& run, const limits& l) {
    std::vector<int> done;
    for (int wanted : {2, 3, 6}) {
    if (std::ranges::find(done, testing::detail::group_size(run, wanted)) != done.end()) continue;
    done.push_back(testing::detail::group_size(run, wanted));
    testing::detail::run_check(run, wanted, "barrier_waits_for_everyone", l, [](auto& t, session& s) {
        const int p = t.size();
        detail::first_failure f;
        s.call("ops::barrier", [&] { ops::barrier(t); });
        std::vector<double> times(3 * static_cast<std::size_t>(p), 0.0);
        for (int k = 0; k < 8; ++k) {
            const int late = k % p;
            if (t.rank() == late) s.call("ops::compute", [&] { ops::compute(t, work::busy(0.1)); });
            std::fill(times.begin(), times.end(), 0.0);
            const std::size_t me = 3 * static_cast<std::size_t>(t.rank());
            times[me] = t.now();
            s.call("ops::barrier", [&] { ops::barrier(t); });
            times[me + 1] = t.now();
            times[me + 2] = times[me + 1] - times[me];
            // Exchanged over the core, not a collective: a barrier that let a rank out early must
            // not leave the check relying on the collectives built beside it.
            {
                std::vector<typename std::remove_cvref_t<decltype(t)>::request> out;
                for (int r = 0; r < p; ++r)
                    if (r != t.rank()) out.push_back(s.call("isend", [&] { return t.isend(r, 91, std::as_bytes(std::span(times).subspan(me, 3))); }));
                for (int r = 0; r < p; ++r)
                    if (r != t.rank()) s.recv(t, r, 91, std::as_writable_bytes(std::span(times).subspan(3 * static_cast<std::size_t>(r), 3)));
                for (int r = 0, i = 0; r < p; ++r)
                    if (r != t.rank()) s.wait_send(t, out[static_cast<std::size_t>(i++)], r, 91);
            }
            double last_in = 0, first_out = 1e300;
            for (int r = 0; r < p; ++r) {
                const std::size_t i = 3 * static_cast<std::size_t>(r);
                if (r != late)
                    f.expect(times[i + 2] >= 0.005, "barrier ", k + 2, " of 9: rank ", late, " arrived 100 ms late, yet rank ", r, " waited ",
                             testing::detail::exact(times[i + 2]), " s for it");
                last_in = std::max(last_in, times[i]);
                first_out = std::min(first_out, times[i + 1]);
            }
            if (ops::clock_is_global(t))
                f.expect(first_out >= last_in, "barrier ", k + 2, " of 9: a rank left at ", testing::detail::exact(first_out),
                         " s before the last arrived at ", testing::detail::exact(last_in), " s");
        }
        if (ops::clock_is_global(t) && p >= 2 && t.rank() <= 1) {
            // Each of ranks 0 and 1 sends the other its clock; the receiver's clock, read after the
            // message is in, is not earlier.
            const int peer = 1 - t.rank();
            for (int way = 0; way < 2; ++way) {
                double stamp = 0;
                if (t.rank() == way) {
                    stamp = t.now();
                    s.call("ops::send", [&] { ops::send(t, peer, 90, std::as_bytes(std::span(&stamp, 1))); });
                } else {
                    s.call("ops::recv", [&] { ops::recv(t, peer, 90, std::as_writable_bytes(std::span(&stamp, 1))); });
                    const double got = t.now();
                    f.expect(got >= stamp, "clock_is_global() says the clocks agree, but a message rank ", peer, " sent at ",
                             testing::detail::exact(stamp), " s arrived at ", testing::detail::exact(got), " s on rank ", t.rank(), "'s clock");
                }
            }
        }
        f.settle(s);
    });
    }
}

}  // namespace comet::testing::checks
