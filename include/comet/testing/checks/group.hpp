// comet/testing/checks/group.hpp — the conformance checks of what involves the whole group:
// the collectives of comet/ops/, a barrier's meaning, the optional capabilities the type
// claims, and how a run ends when a rank aborts, throws or deadlocks (the runner's part).
//
// The collectives check keeps going after a wrong result and fails at its end
// (detail::first_failure): every rank calls every collective whatever it saw, so no rank is left
// waiting in one for a rank that stopped early (a blocking collective has no deadline).
#pragma once

#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/testing/checks/matching.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace comet::testing::checks {

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
            // Inexact sums must still agree bit for bit on every rank, whichever rank enters last
            // (an implementation that lets the last to arrive combine may favour its own values).
            // Each rank's results side by side, then rank 0's broadcast once.
            std::vector<double> sums;
            for (int late = 0; late < t.size(); ++late) {
                std::vector<double> x{0.1 * (t.rank() + 1), 1e16 + t.rank(), 1.0 / (t.rank() + 3)};
                if (t.rank() == late) s.call("ops::compute", [&] { ops::compute(t, work::busy(0.01)); });
                s.call("ops::allreduce_sum", [&] { ops::allreduce_sum(t, x); });
                sums.insert(sums.end(), x.begin(), x.end());
            }
            std::vector<double> from_root = sums;
            s.call("ops::broadcast", [&] { ops::broadcast(t, 0, std::as_writable_bytes(std::span<double>(from_root))); });
            for (int late = 0; late < t.size(); ++late)
                f.expect(std::memcmp(sums.data() + 3 * late, from_root.data() + 3 * late, 3 * sizeof(double)) == 0,
                         "allreduce_sum gave this rank other bits than rank 0 (rank ", late, " entering last)");
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

/// The optional capabilities the type claims, each against its definition.
template <class Runner>
void capabilities(const Runner& run, const limits& l) {
    // Groups of 2, 3 and 5 (from 4 up a rank has a peer that is not its ring neighbour); once
    // per size a runner of one fixed size makes.
    std::vector<int> done;
    for (int wanted : {2, 3, 5}) {
    if (std::ranges::find(done, testing::detail::group_size(run, wanted)) != done.end()) continue;
    done.push_back(testing::detail::group_size(run, wanted));
    testing::detail::run_check(run, wanted, "capabilities", l, [](auto& t, session& s) {
        using T = std::remove_cvref_t<decltype(t)>;
        // Point to point between ranks 0 and 1; the collectives below on every rank.
        if (t.rank() <= 1) {
            const int peer = 1 - t.rank();
            std::vector<std::byte> in((1 << 20) + 8);
            if constexpr (synchronous_send_transport<T>) {
                // issend must stay incomplete until the receiver has posted its receive, which
                // rank 1 does only after rank 0 tells it (with a later message) to go ahead.
                if (t.rank() == 0) {
                    const auto out = detail::pattern(64, 41);  // must outlive the request
                    auto r = s.call("issend", [&] { return t.issend(peer, 41, out); });
                    s.for_a_while(std::chrono::milliseconds(50), [&] {
                        s.expect(!s.call("test", [&] { return t.test(r); }).has_value(),
                                 "issend completed before the receive was posted (its message only probed)");
                    });
                    s.send(t, peer, 42, detail::pattern(1, 42));
                    s.expect_status(s.wait_send(t, r, peer, 41), peer, 41, 64, "the completed issend's status");
                    // ssend returns only once its receive is posted; then rank 0 says so (tag 44).
                    s.call("ssend", [&] { t.ssend(peer, 43, detail::pattern(5000, 43)); });
                    s.send(t, peer, 44, const_bytes{});
                    // wait_all of an issend returns only once its receive is posted (tag 46 says so).
                    typename T::request w[1] = {s.call("issend", [&] { return t.issend(peer, 45, out); })};
                    s.call("ops::wait_all", [&] { ops::wait_all(t, std::span<typename T::request>(w, 1)); });
                    s.send(t, peer, 46, const_bytes{});
                    s.send(t, peer, 49, const_bytes{});
                } else {
                    // A receive of another tag stays posted throughout: it matches none of these.
                    auto other = s.call("irecv", [&] { return t.irecv(peer, 49, mutable_bytes{}); });
                    s.probe(t, peer, 41);  // a probe is not a match: the issend stays incomplete
                    s.recv(t, peer, 42, in);
                    // Received with any_tag: the completed issend's status still names its own tag.
                    s.expect_status(s.recv(t, peer, any_tag, in), peer, 41, 64, "issend message, received with any_tag");
                    s.expect_pattern(in, 64, 41, "issend message");
                    // Rank 0 is in ssend now, or soon: its word that ssend returned must not come
                    // before this rank posts the receive (a returned ssend's word takes
                    // microseconds; 100 ms of silence on a busy machine can only miss one).
                    s.for_a_while(std::chrono::milliseconds(100), [&] {
                        s.expect(!s.iprobe(t, peer, 44).has_value(), "ssend returned before its receive was posted");
                    });
                    s.expect_status(s.recv(t, any_source, 43, in), peer, 43, 5000, "ssend message, received with any_source");
                    s.recv(t, peer, 44, mutable_bytes{});
                    s.for_a_while(std::chrono::milliseconds(100), [&] {
                        s.expect(!s.iprobe(t, peer, 46).has_value(), "wait_all of an issend returned before its receive was posted");
                    });
                    s.expect_status(s.recv(t, peer, 45, in), peer, 45, 64, "the issend completed by wait_all");
                    s.recv(t, peer, 46, mutable_bytes{});
                    s.wait_recv(t, other, peer, 49);
                }
            }
            if constexpr (ready_send_transport<T>) {
                // rsend and irsend into a receive posted naming the sender or any_source, with the
                // tag or any_tag.
                for (int form = 0; form < 8; ++form)
                    for (std::size_t n : {std::size_t{16}, std::size_t{1} << 20}) {
                        const bool wild = form % 2 == 1, nonblocking = form % 4 >= 2, wild_tag = form >= 4;
                        const std::string what = std::string(nonblocking ? "irsend" : "rsend") + " message into " +
                                                 (wild ? "an any_source receive" : "a receive naming its sender") +
                                                 (wild_tag ? " with any_tag" : "");
                        if (t.rank() == 1) {
                            auto r = s.call("irecv", [&] { return t.irecv(wild ? any_source : peer, wild_tag ? any_tag : 51, in); });
                            s.send(t, peer, 52, detail::pattern(1, 52));  // "posted"
                            s.expect_status(s.wait_recv(t, r, peer, 51), peer, 51, n, what);
                            s.expect_pattern(in, n, 51, what);
                        } else {
                            s.recv(t, peer, 52, in);
                            const auto out = detail::pattern(n, 51);
                            if (nonblocking) {
                                auto r = s.call("irsend", [&] { return t.irsend(peer, 51, out); });
                                s.expect_status(s.wait_send(t, r, peer, 51), peer, 51, n, "the completed irsend's status");
                            } else {
                                s.call("rsend", [&] { t.rsend(peer, 51, out); });
                            }
                        }
                    }
                // A ready message longer than the posted receive raises truncation_error there.
                if (t.rank() == 1) {
                    std::vector<std::byte> small(8);
                    auto r = s.call("irecv", [&] { return t.irecv(peer, 54, small); });
                    s.send(t, peer, 52, detail::pattern(1, 52));
                    s.expect_throw<truncation_error>([&] { s.wait_recv(t, r, peer, 54); }, {"16"}, "a 16-byte rsend message into an 8-byte receive");
                } else {
                    s.recv(t, peer, 52, in);
                    s.call("rsend", [&] { t.rsend(peer, 54, detail::pattern(16, 54)); });
                }
                // Receives posted for other tags (naming the sender, then any_source) are passed
                // over: ready messages sent in the reverse order each go to their own tag's receive.
                if (t.rank() == 1) {
                    std::vector<std::vector<std::byte>> three{std::vector<std::byte>(64), std::vector<std::byte>(64), std::vector<std::byte>(64)};
                    auto r55 = s.call("irecv", [&] { return t.irecv(peer, 55, three[0]); });
                    auto r56 = s.call("irecv", [&] { return t.irecv(any_source, 56, three[1]); });
                    auto r57 = s.call("irecv", [&] { return t.irecv(peer, 57, three[2]); });
                    s.send(t, peer, 52, detail::pattern(1, 52));
                    for (int tag = 57; tag >= 55; --tag) {
                        auto& r = tag == 55 ? r55 : tag == 56 ? r56 : r57;
                        const auto& got = three[static_cast<std::size_t>(tag - 55)];
                        const std::string what = "a ready message of tag " + std::to_string(tag) + " sent while receives of tags 55, 56 (any_source) and 57 were posted";
                        s.expect_status(s.wait_recv(t, r, tag == 56 ? any_source : peer, tag), peer, tag, 24 + static_cast<std::size_t>(tag - 55), what);
                        s.expect_pattern(std::span(got).first(24 + static_cast<std::size_t>(tag - 55)), 24 + static_cast<std::size_t>(tag - 55),
                                         static_cast<std::uint32_t>(tag), what);
                    }
                } else {
                    s.recv(t, peer, 52, in);
                    for (int tag = 57; tag >= 55; --tag) {
                        const auto out = detail::pattern(24 + static_cast<std::size_t>(tag - 55), static_cast<std::uint32_t>(tag));
                        s.call("rsend", [&] { t.rsend(peer, tag, out); });
                    }
                }
                // Two receives posted for one tag take two ready messages in the order posted.
                if (t.rank() == 1) {
                    std::vector<std::vector<std::byte>> two{std::vector<std::byte>(64), std::vector<std::byte>(32)};
                    auto r0 = s.call("irecv", [&] { return t.irecv(peer, 53, two[0]); });
                    auto r1 = s.call("irecv", [&] { return t.irecv(any_source, 53, two[1]); });
                    s.send(t, peer, 52, detail::pattern(1, 52));
                    s.wait_recv(t, r0, peer, 53);
                    s.wait_recv(t, r1, any_source, 53);
                    s.expect(detail::number_of(two[0]) == 0 && detail::number_of(two[1]) == 1, "two receives posted for tag 53 took ready messages ",
                             detail::number_of(two[0]), " and ", detail::number_of(two[1]), ", expected 0 and 1 (the order posted)");
                } else {
                    s.recv(t, peer, 52, in);
                    for (std::uint32_t k = 0; k < 2; ++k) {
                        const auto out = detail::numbered(16, k, 53);
                        s.call("rsend", [&] { t.rsend(peer, 53, out); });
                    }
                }
            }
            if constexpr (buffered_send_transport<T>) {
                s.call("bsend", [&] { t.bsend(peer, 61, detail::pattern(1 << 20, 61 + static_cast<std::uint32_t>(t.rank()))); });
                s.expect_status(s.recv(t, peer, 61, in), peer, 61, std::size_t{1} << 20, "bsend exchange");
                s.expect_pattern(in, 1 << 20, 61 + static_cast<std::uint32_t>(peer), "bsend exchange");
            }
            if constexpr (sendrecv_transport<T>) {
                // Each rank sends its own tag and size, so that the status (the receive's) cannot
                // be mistaken for the send's.
                // A message of another tag sent first must be left for its own receive.
                for (std::size_t n : {std::size_t{8}, std::size_t{1} << 20}) {
                    const auto mine = static_cast<std::size_t>(t.rank()), theirs = static_cast<std::size_t>(peer);
                    auto out = detail::pattern(n + mine, 70 + static_cast<std::uint32_t>(t.rank()));
                    const auto decoy = detail::pattern(3, 75);
                    auto d = s.call("isend", [&] { return t.isend(peer, 75, const_bytes(decoy)); });
                    const status st = s.call("sendrecv", [&] {
                        return t.sendrecv(peer, 72 + t.rank(), out, peer, 72 + peer, std::span(in.data(), n + 1));
                    });
                    s.expect_status(st, peer, 72 + peer, n + theirs, "sendrecv (the status of its receive), a message of tag 75 sent before");
                    s.expect_pattern(in, n + theirs, 70 + static_cast<std::uint32_t>(peer), "sendrecv");
                    std::vector<std::byte> other(3);
                    s.expect_status(s.recv(t, peer, 75, other), peer, 75, 3, "the message of tag 75 sent before a sendrecv");
                    s.wait_send(t, d, peer, 75);
                    // any_tag: the status gives the tag the peer sent (not this call's send tag).
                    const status any = s.call("sendrecv", [&] {
                        return t.sendrecv(peer, 72 + t.rank(), out, peer, any_tag, std::span(in.data(), n + 1));
                    });
                    s.expect_status(any, peer, 72 + peer, n + theirs, "sendrecv with any_tag (the status of its receive)");
                    // any_source: the status names the sender. A longer message than the receive's
                    // buffer raises truncation_error.
                    const status wild = s.call("sendrecv", [&] { return t.sendrecv(peer, 77, out, any_source, 77, std::span(in.data(), n + 1)); });
                    s.expect_status(wild, peer, 77, n + theirs, "sendrecv from any_source (the status of its receive)");
                    s.expect_throw<truncation_error>(
                        [&] { s.call("sendrecv", [&] { (void)t.sendrecv(peer, 78, out, peer, 78, std::span(in.data(), n / 2)); }); },
                        {std::to_string(n + theirs)}, "sendrecv receiving a message longer than its buffer");
                    // With oneself as destination and source.
                    const auto self_out = detail::pattern(n, 76);
                    const status self_st = s.call("sendrecv", [&] { return t.sendrecv(t.rank(), 76, self_out, t.rank(), 76, std::span(in.data(), n)); });
                    s.expect_status(self_st, t.rank(), 76, n, "sendrecv with this rank itself");
                    s.expect_pattern(in, n, 76, "sendrecv with this rank itself");
                }
            }
            if constexpr (progress_transport<T>) {
                // progress() advances operations; it takes nothing: a message that arrived for no
                // receive yet is still there for one.
                const auto out = detail::pattern(100, 85);
                auto r = s.call("isend", [&] { return t.isend(peer, 85, const_bytes(out)); });
                s.probe(t, peer, 85);
                for (int n = 0; n < 20; ++n) s.call("progress", [&] { t.progress(); });
                s.expect_status(s.recv(t, peer, 85, in), peer, 85, 100, "a message that arrived before progress() was called");
                s.wait_send(t, r, peer, 85);
            }
        }
        if constexpr (sendrecv_transport<T>) {
            if (t.size() >= 3) {
                // A ring: send to the next rank, receive from any_source (the previous one sends):
                // the status names the sender, not this call's destination.
                const int next = (t.rank() + 1) % t.size(), prev = (t.rank() + t.size() - 1) % t.size();
                const auto out = detail::pattern(16, 79);
                std::vector<std::byte> got(16);
                const status st = s.call("sendrecv", [&] { return t.sendrecv(next, 79, out, any_source, 79, got); });
                s.expect_status(st, prev, 79, 16, "sendrecv to the next rank from any_source (the status of its receive)");
            }
        }
        if constexpr (nonblocking_collective_transport<T>) {
            const double p = t.size();
            std::vector<double> v{1.0 + t.rank(), 2.0};
            auto r1 = s.call("iallreduce_sum", [&] { return t.iallreduce_sum(v); });
            s.call("ops::wait", [&] { ops::wait(t, r1); });
            s.expect(v[0] == p * (p + 1) / 2 && v[1] == 2 * p, "iallreduce_sum gave ", v[0], ", ", v[1]);
            for (int root = 0; root < t.size(); ++root)
                for (std::size_t n : {std::size_t{1}, std::size_t{3001}, std::size_t{100001}}) {
                    const auto seed = static_cast<std::uint32_t>(80 + root);
                    auto data = t.rank() == root ? detail::pattern(n, seed) : std::vector<std::byte>(n);
                    auto r2 = s.call("ibroadcast", [&] { return t.ibroadcast(root, data); });
                    s.call("ops::wait", [&] { ops::wait(t, r2); });
                    s.expect_pattern(data, n, seed, comet::detail::concat("ibroadcast of ", n, " bytes from root ", root));
                }
            std::vector<double> many(1001);
            for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<double>(t.rank() + 1) * static_cast<double>(i);
            auto r6 = s.call("iallreduce_sum", [&] { return t.iallreduce_sum(many); });
            s.call("ops::wait", [&] { ops::wait(t, r6); });
            for (std::size_t i = 0; i < many.size(); ++i)
                s.expect(many[i] == p * (p + 1) / 2 * static_cast<double>(i), "iallreduce_sum of 1001 elements: element ", i, " is ", many[i]);
            // An inexact sum has the same bits on every rank, as allreduce_sum's, whichever rank
            // enters last.
            std::vector<double> sums;
            for (int late = 0; late < t.size(); ++late) {
                std::vector<double> x{0.1 * (t.rank() + 1), 1e16 + t.rank(), 1.0 / (t.rank() + 3)};
                if (t.rank() == late) s.call("ops::compute", [&] { ops::compute(t, work::busy(0.01)); });
                auto r8 = s.call("iallreduce_sum", [&] { return t.iallreduce_sum(x); });
                s.call("ops::wait", [&] { ops::wait(t, r8); });
                sums.insert(sums.end(), x.begin(), x.end());
            }
            std::vector<double> from_root = sums;
            s.call("ops::broadcast", [&] { ops::broadcast(t, 0, std::as_writable_bytes(std::span<double>(from_root))); });
            for (int late = 0; late < t.size(); ++late)
                s.expect(std::memcmp(sums.data() + 3 * late, from_root.data() + 3 * late, 3 * sizeof(double)) == 0,
                         "iallreduce_sum gave this rank other bits than rank 0 (rank ", late, " entering last)");
            // A pending request moved (constructed, then assigned) still completes.
            auto r3 = s.call("ibarrier", [&] { return t.ibarrier(); });
            typename T::request moved(std::move(r3));
            r3 = std::move(moved);
            s.until([&] { return s.call("test", [&] { return t.test(r3); }); }, [] { return std::string("an ibarrier whose request was moved to complete"); });
            if (t.size() >= 3) {
                // The last rank enters only after every other rank has watched its own ibarrier
                // stay pending for a while (calling progress too, where there is one) and said so: a request that completes before every
                // rank entered (once a rank's neighbours did, say) shows, whatever the timing.
                const int late = t.size() - 1;
                if (t.rank() == late) {
                    for (int r = 0; r < late; ++r) s.recv(t, r, 83, mutable_bytes{});
                    auto r7 = s.call("ibarrier", [&] { return t.ibarrier(); });
                    s.call("ops::wait", [&] { ops::wait(t, r7); });
                } else {
                    auto r7 = s.call("ibarrier", [&] { return t.ibarrier(); });
                    bool early = false;
                    s.for_a_while(std::chrono::milliseconds(150), [&] {
                        if constexpr (progress_transport<T>) s.call("progress", [&] { t.progress(); });
                        if (!early) early = s.call("test", [&] { return t.test(r7); }).has_value();
                    });
                    // Said either way, so that the late rank enters and nobody waits for it.
                    s.send(t, late, 83, const_bytes{});
                    if (!early) s.call("ops::wait", [&] { ops::wait(t, r7); });
                    s.expect(!early, "ibarrier completed on rank ", t.rank(), " of ", t.size(), " while rank ", late,
                             " had not entered it (it enters when every other rank says so)");
                }
            }
            if (t.size() >= 2) {
                // The last rank enters 500 ms late: its peers' ibarriers, completed by wait_all,
                // wait for it (at least 10 ms on one of them), and a test of one still pending
                // returns at once.
                const int late = t.size() - 1;
                if (t.rank() == late) s.call("ops::compute", [&] { ops::compute(t, work::busy(0.5)); });
                std::vector<double> waited(static_cast<std::size_t>(t.size()), 0.0);
                const double t0 = t.now();
                auto r4 = s.call("ibarrier", [&] { return t.ibarrier(); });
                if (t.rank() != late) {
                    const auto h0 = std::chrono::steady_clock::now();
                    const bool done_at_once = s.call("test", [&] { return t.test(r4); }).has_value();
                    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - h0).count();
                    s.expect(took < 0.2, "test() of a pending ibarrier took ", testing::detail::exact(took), " s: test never blocks");
                    s.expect(!done_at_once, "ibarrier completed on rank ", t.rank(), " while rank ", late, " had not entered it");
                }
                // Completed by wait_all (a collective's request is no send that may be taken as done).
                s.call("ops::wait_all", [&] { ops::wait_all(t, std::span<typename T::request>(&r4, 1)); });
                if (t.rank() != late) waited[static_cast<std::size_t>(t.rank())] = t.now() - t0;
                s.call("ops::allreduce_sum", [&] { ops::allreduce_sum(t, waited); });
                s.expect(*std::max_element(waited.begin(), waited.end()) >= 0.01, "ibarrier: rank ", late,
                         " entered 500 ms late, yet no other rank's request waited for it");
                // The root enters ibroadcast and computes 50 ms before it waits: the others' requests
                // complete with the data in their buffers, whatever the root does meanwhile.
                // Once with every rank entering together, once with the others entering only after
                // the root said it had (a message after its ibroadcast).
                for (int after_root = 0; after_root < 2; ++after_root) {
                    const std::size_t n = std::size_t{1} << 20;
                    const auto seed = static_cast<std::uint32_t>(81 + after_root);
                    auto big = t.rank() == 0 ? detail::pattern(n, seed) : std::vector<std::byte>(n);
                    if (after_root && t.rank() != 0) s.recv(t, 0, 82, mutable_bytes{});
                    auto r5 = s.call("ibroadcast", [&] { return t.ibroadcast(0, big); });
                    if (t.rank() == 0) {
                        std::vector<typename std::remove_cvref_t<decltype(t)>::request> said;
                        if (after_root)
                            for (int r = 1; r < t.size(); ++r) said.push_back(s.call("isend", [&] { return t.isend(r, 82, const_bytes{}); }));
                        s.call("ops::compute", [&] { ops::compute(t, work::busy(0.05)); });
                        for (std::size_t k = 0; k < said.size(); ++k) s.wait_send(t, said[k], static_cast<int>(k) + 1, 82);
                    }
                    s.call("ops::wait", [&] { ops::wait(t, r5); });
                    s.expect_pattern(big, n, seed,
                                     after_root ? "ibroadcast of 1 MiB entered after the root, which computed before it waited"
                                                : "ibroadcast of 1 MiB from a root that computed before it waited");
                }
            }
        }
    });
    }
}

/// abort(message) ends the run with comet::aborted naming the rank and the whole message (300
/// characters on two lines: no fixed buffer or first line cuts it; '%' and braces kept as they
/// are, not read as a format). The other ranks wait for a
/// message never sent: stopped by the runner, or failing at their deadline.
template <class Runner>
void abort_stops_everyone(const Runner& run, const limits& l) {
    if constexpr (testing::detail::catches_failures<Runner>()) {
        std::string message = "conformance abort: 50%% {} %s\nof two lines and more:";
        for (int i = 0; message.size() < 300; ++i) message.append(1, ' ').append(std::to_string(i));
        try {
            run(testing::detail::group_size(run, 3), [&](auto& t) {
                session s("abort_stops_everyone", t.rank(), l);
                if (t.rank() == 1) s.call("ops::abort", [&] { ops::abort(t, message); });
                std::vector<std::byte> b(8);
                s.recv(t, any_source, 77, b);  // never sent: only the abort ends this
                s.fail("a receive of a message nobody sent completed");
            });
        } catch (const aborted& e) {
            const std::string what = e.what();
            if (what.find("rank 1") == std::string::npos || what.find(message) == std::string::npos)
                throw conformance_failure("abort_stops_everyone: the error \"" + what + "\" should name rank 1 and the message");
            // An empty message aborts as well.
            try {
                run(testing::detail::group_size(run, 2), [&](auto& t) {
                    session s("abort_stops_everyone", t.rank(), l);
                    if (t.rank() == 0) s.call("ops::abort", [&] { ops::abort(t, ""); });
                    std::vector<std::byte> b(8);
                    s.recv(t, any_source, 77, b);
                    s.fail("a receive of a message nobody sent completed");
                });
            } catch (const aborted& empty) {
                if (std::string(empty.what()).find("rank 0") == std::string::npos)
                    throw conformance_failure("abort_stops_everyone: the error \"" + std::string(empty.what()) + "\" of abort(\"\") should name rank 0");
                return;
            }
            throw conformance_failure("abort_stops_everyone: abort(\"\") ended the run without raising comet::aborted");
        }
        throw conformance_failure("abort_stops_everyone: the run ended without raising comet::aborted");
    }
}

/// An exception on one rank ends the run with that exception, even while others wait.
template <class Runner>
void exception_stops_everyone(const Runner& run, const limits& l) {
    if constexpr (testing::detail::catches_failures<Runner>()) {
        try {
            run(testing::detail::group_size(run, 3), [&](auto& t) {
                session s("exception_stops_everyone", t.rank(), l);
                if (t.rank() == 0) throw std::out_of_range("conformance exception");
                std::vector<std::byte> b(8);
                s.recv(t, 0, 78, b);  // never sent: only the runner's stop ends this
                s.fail("a receive of a message nobody sent completed");
            });
        } catch (const std::out_of_range& e) {
            if (std::string(e.what()) != "conformance exception")
                throw conformance_failure(std::string("exception_stops_everyone: rethrew \"") + e.what() + "\"");
            return;
        }
        throw conformance_failure("exception_stops_everyone: the run did not rethrow the rank's exception");
    }
}

/// Every rank receiving from the other, with nothing sent, is reported by a runner that
/// detects deadlock, not hung (the one check that relies on the runner to see a hang).
template <class Runner>
void deadlock_is_reported(const Runner& run, const limits& l) {
    if constexpr (testing::detail::detects_deadlock<Runner>()) {
        try {
            run(testing::detail::group_size(run, 2), [&](auto& t) {
                session s("deadlock_is_reported", t.rank(), l);
                std::vector<std::byte> b(8);
                s.call("ops::recv", [&] { ops::recv(t, (t.rank() + 1) % t.size(), 3, b); });
            });
        } catch (const deadlock_error& e) {
            if (std::string(e.what()).find("rank 0") == std::string::npos)
                throw conformance_failure(std::string("deadlock_is_reported: the report does not name rank 0: ") + e.what());
            return;
        }
        throw conformance_failure("deadlock_is_reported: the run ended without raising comet::deadlock_error");
    }
}

}  // namespace comet::testing::checks
