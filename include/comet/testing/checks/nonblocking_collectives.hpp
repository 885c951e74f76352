// comet/testing/checks/nonblocking_collectives.hpp — the part of the `capabilities` check
// (checks/capabilities.hpp) for a type that claims nonblocking collectives
// (core/concepts.hpp, nonblocking_collective_transport): iallreduce_sum and ibroadcast exact
// from every root, iallreduce_sum's bits the same whichever rank enters last, a pending
// request moved still completing, and no ibarrier or ibroadcast completing before its time —
// an ibarrier watched pending while a rank has not entered, a late rank waited for, a test of a
// pending request returning at once, an ibroadcast's data in place though its root computes
// before it waits.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/work.hpp>
#include <comet/ops/ops.hpp>
#include <comet/testing/checks/collectives.hpp>
#include <comet/testing/checks/matching.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace comet::testing::checks::detail {

/// The nonblocking collectives of `t`, on every rank of its group, under `s` (a part of the
/// `capabilities` check: its failures name that check).
template <nonblocking_collective_transport T>
void nonblocking_collectives(T& t, session& s) {
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
    detail::same_bits_whoever_enters_last(t, s, s, "iallreduce_sum", [&](std::vector<double>& x) {
        auto r8 = s.call("iallreduce_sum", [&] { return t.iallreduce_sum(x); });
        s.call("ops::wait", [&] { ops::wait(t, r8); });
    });
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

}  // namespace comet::testing::checks::detail
