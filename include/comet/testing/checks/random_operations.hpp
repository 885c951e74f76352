// comet/testing/checks/random_operations.hpp — the conformance check of the operations
// together, on seeded random steps: the collectives of comet/ops/ (and the nonblocking ones the
// type claims) from random roots over random lengths and values, each kind always into the same
// buffer, and between random pairs of ranks the blocking operations and each capability the
// type claims. Drawn with the seed and dice of checks/traffic_model.hpp, so a failure names the
// group, the round, the step and the seed, and COMET_CONFORMANCE_SEED=<seed> replays it.
#pragma once

#include <comet/ops/ops.hpp>
#include <comet/testing/checks/matching.hpp>
#include <comet/testing/checks/traffic_model.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace comet::testing::checks {

namespace traffic {

/// An integer-valued double in [-10^6, 10^6] for element `i` of rank `r` at step `k`: sums of
/// a few are exact, so every rank can compute every result itself.
inline double value(std::uint64_t seed, int k, int r, std::size_t i) {
    dice d{seed ^ (static_cast<std::uint64_t>(k) << 24) ^ (static_cast<std::uint64_t>(r) << 48) ^ (i * 0x9E37ull)};
    return static_cast<double>(d.below(2'000'001) - 1'000'000);
}

inline constexpr std::size_t length_pool[] = {0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 255, 256, 1000, 1001, 4096, 5000};

}  // namespace traffic

/// The operations together, on seeded random steps (groups of 1 to 5 and 7, three rounds of
/// 30 steps): collectives from random roots over random lengths and values (negative ones
/// too), each kind always into the same buffer, so that a transport keeping state from one
/// call to the next (a cache, a scratch sum, a schedule) shows it; and between random pairs
/// of ranks the blocking operations and each capability the type claims — send and recv of
/// random sizes (0 B after larger ones too), wait on a receive too small (truncation_error),
/// wait_all over requests with default-constructed ones among them, sendrecv both ways and
/// around a ring shifted by a random distance, issend pairs matched in reverse order (only
/// the matched one completes), bsend behind an isend of the same tag (taken in the order
/// sent), rsend into a posted receive, progress before test (the status is the message's).
template <class Runner>
void random_operations(const Runner& run, const limits& l) {
    const std::uint64_t base = traffic::seed() ^ 0x6f7073ull;
    for (int wanted : {1, 2, 3, 4, 5, 7})
    testing::detail::run_check(run, wanted, "random_operations", l, [base](auto& t, session& s) {
        using T = std::remove_cvref_t<decltype(t)>;
        using request = typename T::request;
        const int p = t.size(), me = t.rank();
        // Each kind of collective into its own buffer, the same storage every time.
        std::vector<double> reduce_buf(5000), nb_buf(5000), nb_buf2(5000);
        std::vector<std::byte> bcast_buf(5000 * 8), gather_out(5000), gather_all(5000 * static_cast<std::size_t>(p)),
            a2a_out(5000 * static_cast<std::size_t>(p)), a2a_in(5000 * static_cast<std::size_t>(p));
        std::vector<std::byte> in((1 << 16) + 64), in2((1 << 16) + 64);
        for (int round = 0; round < 3; ++round) {
            detail::first_failure f;
            traffic::dice d{base ^ (static_cast<std::uint64_t>(p) << 40) ^ (static_cast<std::uint64_t>(round) << 20)};
            const auto where = [&](int k) {
                return comet::detail::concat(" (group of ", p, ", round ", round, ", step ", k, ", COMET_CONFORMANCE_SEED=", traffic::seed(), ")");
            };
            int last_kind = 0, last_root = 0;
            std::size_t last_n = 0;
            for (int k = 0; k < 30; ++k) {
                const std::uint64_t vs = base ^ (static_cast<std::uint64_t>(round) << 56);
                int kind = d.below(p >= 2 ? 16 : 10), root = d.below(p);
                std::size_t n = d.pick(traffic::length_pool);
                // A third of the collectives repeat the last one (its kind, root and length, into
                // the same buffer) with new values: a result kept from one call shows in the next.
                if (d.percent(33) && k > 0) kind = last_kind, root = last_root, n = last_n;
                if (kind <= 9) last_kind = kind, last_root = root, last_n = n;
                const auto value = [&](int r, std::size_t i) { return traffic::value(vs, k, r, i); };
                if (kind <= 2) {  // allreduce sum, max, min
                    std::span<double> v(reduce_buf.data(), n);
                    for (std::size_t i = 0; i < n; ++i) v[i] = value(me, i);
                    const char* name = kind == 0 ? "ops::allreduce_sum" : kind == 1 ? "ops::allreduce_max" : "ops::allreduce_min";
                    s.call(name, [&] { kind == 0 ? ops::allreduce_sum(t, v) : kind == 1 ? ops::allreduce_max(t, v) : ops::allreduce_min(t, v); });
                    for (std::size_t i = 0; i < n; ++i) {
                        double want = value(0, i);
                        for (int r = 1; r < p; ++r)
                            want = kind == 0 ? want + value(r, i) : kind == 1 ? std::max(want, value(r, i)) : std::min(want, value(r, i));
                        f.expect(v[i] == want, name, " of ", n, " elements: element ", i, " is ", v[i], ", expected ", want, where(k));
                    }
                } else if (kind <= 5) {  // reduce sum, max, min to a random root
                    std::span<double> v(reduce_buf.data(), n);
                    for (std::size_t i = 0; i < n; ++i) v[i] = value(me, i);
                    const char* name = kind == 3 ? "ops::reduce_sum" : kind == 4 ? "ops::reduce_max" : "ops::reduce_min";
                    s.call(name, [&] {
                        kind == 3 ? ops::reduce_sum(t, root, v) : kind == 4 ? ops::reduce_max(t, root, v) : ops::reduce_min(t, root, v);
                    });
                    for (std::size_t i = 0; i < n; ++i) {
                        double want = value(me, i);
                        if (me == root) {
                            want = value(0, i);
                            for (int r = 1; r < p; ++r)
                                want = kind == 3 ? want + value(r, i) : kind == 4 ? std::max(want, value(r, i)) : std::min(want, value(r, i));
                        }
                        f.expect(v[i] == want, name, " of ", n, " elements to root ", root, ": element ", i, " on rank ", me, " is ", v[i],
                                 ", expected ", want, me == root ? "" : " (left as it was)", where(k));
                    }
                } else if (kind == 6) {  // broadcast
                    const std::size_t bytes = n * 3;
                    const auto seed = static_cast<std::uint32_t>(vs + static_cast<std::uint64_t>(k));
                    std::span<std::byte> b(bcast_buf.data(), bytes);
                    if (me == root) {
                        const auto src = detail::pattern(bytes, seed);
                        std::copy(src.begin(), src.end(), b.begin());
                    }
                    s.call("ops::broadcast", [&] { ops::broadcast(t, root, b); });
                    f.expect(std::ranges::equal(b, detail::pattern(bytes, seed)), "broadcast of ", bytes, " bytes from root ", root,
                             " gave other bytes", where(k));
                } else if (kind == 7) {  // gather
                    const auto seed_of = [&](int r) { return static_cast<std::uint32_t>(vs + static_cast<std::uint64_t>(k) * 31 + static_cast<std::uint64_t>(r)); };
                    const auto mine = detail::pattern(n, seed_of(me));
                    std::copy(mine.begin(), mine.end(), gather_out.begin());
                    std::span<std::byte> all(gather_all.data(), me == root ? n * static_cast<std::size_t>(p) : 0);
                    s.call("ops::gather", [&] { ops::gather(t, root, const_bytes(gather_out.data(), n), all); });
                    if (me == root)
                        for (int r = 0; r < p; ++r)
                            f.expect(std::ranges::equal(all.subspan(n * static_cast<std::size_t>(r), n), detail::pattern(n, seed_of(r))),
                                     "gather of ", n, " bytes a rank to root ", root, ": the block of rank ", r, " differs", where(k));
                } else if (kind == 8) {  // alltoall
                    const auto seed_of = [&](int from, int to) {
                        return static_cast<std::uint32_t>(vs + static_cast<std::uint64_t>(k) * 977 + static_cast<std::uint64_t>(from) * 31 + static_cast<std::uint64_t>(to));
                    };
                    const std::size_t all = n * static_cast<std::size_t>(p);
                    for (int r = 0; r < p; ++r) {
                        const auto b = detail::pattern(n, seed_of(me, r));
                        std::copy(b.begin(), b.end(), a2a_out.begin() + static_cast<std::ptrdiff_t>(n) * r);
                    }
                    s.call("ops::alltoall", [&] { ops::alltoall(t, const_bytes(a2a_out.data(), all), mutable_bytes(a2a_in.data(), all)); });
                    for (int r = 0; r < p; ++r)
                        f.expect(std::equal(a2a_in.begin() + static_cast<std::ptrdiff_t>(n) * r, a2a_in.begin() + static_cast<std::ptrdiff_t>(n) * (r + 1),
                                            detail::pattern(n, seed_of(r, me)).begin()),
                                 "alltoall of ", n, "-byte blocks: the block from rank ", r, " differs", where(k));
                } else if (kind == 9) {  // nonblocking collectives, or a barrier
                    if constexpr (nonblocking_collective_transport<T>) {
                        std::span<double> v(nb_buf.data(), n);
                        for (std::size_t i = 0; i < n; ++i) v[i] = value(me, i);
                        // Two outstanding at once, waited for in either order.
                        std::span<double> w(nb_buf2.data(), n / 2 + 1);
                        for (std::size_t i = 0; i < w.size(); ++i) w[i] = -value(me, i);
                        const bool second_first = d.percent(50);
                        auto r = s.call("iallreduce_sum", [&] { return t.iallreduce_sum(v); });
                        auto r2 = s.call("iallreduce_sum", [&] { return t.iallreduce_sum(w); });
                        if constexpr (progress_transport<T>)
                            for (int x = d.below(4); x > 0; --x) s.call("progress", [&] { t.progress(); });
                        s.call("ops::wait", [&] { ops::wait(t, second_first ? r2 : r); });
                        s.call("ops::wait", [&] { ops::wait(t, second_first ? r : r2); });
                        for (std::size_t i = 0; i < n; ++i) {
                            double want = 0;
                            for (int q = 0; q < p; ++q) want += value(q, i);
                            f.expect(v[i] == want, "iallreduce_sum of ", n, " elements: element ", i, " is ", v[i], ", expected ", want,
                                     " (another iallreduce_sum outstanding)", where(k));
                        }
                        for (std::size_t i = 0; i < w.size(); ++i) {
                            double want = 0;
                            for (int q = 0; q < p; ++q) want -= value(q, i);
                            f.expect(w[i] == want, "the second of two outstanding iallreduce_sums, of ", w.size(), " elements: element ", i, " is ",
                                     w[i], ", expected ", want, where(k));
                        }
                        const std::size_t bytes = n * 3;
                        const auto seed = static_cast<std::uint32_t>(vs + static_cast<std::uint64_t>(k) * 7);
                        std::span<std::byte> b(bcast_buf.data(), bytes);
                        if (me == root) {
                            const auto src = detail::pattern(bytes, seed);
                            std::copy(src.begin(), src.end(), b.begin());
                        }
                        auto rb = s.call("ibroadcast", [&] { return t.ibroadcast(root, b); });
                        s.call("ops::wait", [&] { ops::wait(t, rb); });
                        f.expect(std::ranges::equal(b, detail::pattern(bytes, seed)), "ibroadcast of ", bytes, " bytes from root ", root,
                                 " gave other bytes", where(k));
                    } else {
                        s.call("ops::barrier", [&] { ops::barrier(t); });
                    }
                } else {  // between pairs of ranks
                    std::vector<int> order(static_cast<std::size_t>(p));
                    for (int r = 0; r < p; ++r) order[static_cast<std::size_t>(r)] = r;
                    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[static_cast<std::size_t>(d.below(static_cast<int>(i)))]);
                    const std::size_t n1 = d.percent(50) ? d.pick(traffic::length_pool) : static_cast<std::size_t>(d.below(1 << 16));
                    const std::size_t n2 = d.percent(30) ? 0 : d.pick(traffic::length_pool);
                    const int tag = std::min(d.percent(70) ? d.below(1000) : d.pick(traffic::tag_pool), first_reserved_tag + 500);
                    const int form = d.below(14);
                    const int shift = 1 + d.below(std::max(1, p - 1));
                    // Drawn here, by every rank alike, whether or not this rank uses them.
                    const int slot1 = d.below(2), slot2 = 2 + d.below(2), polls = 1 + d.below(50);
                    const bool one_by_one = d.percent(50);
                    if (form == 8) {  // sendrecv around a ring shifted by `shift`
                        if constexpr (sendrecv_transport<T>) {
                            const int to = (me + shift) % p, from = (me + p - shift) % p;
                            const auto out = detail::pattern(n1, static_cast<std::uint32_t>(tag * 131 + me));
                            const status st = s.call("sendrecv", [&] { return t.sendrecv(to, tag, out, from, tag, mutable_bytes(in.data(), n1)); });
                            f.expect_status(st, from, tag, n1, comet::detail::concat("sendrecv to rank ", to, " from rank ", from, where(k)));
                            f.expect_pattern(std::span(in.data(), n1), n1, static_cast<std::uint32_t>(tag * 131 + from),
                                             comet::detail::concat("sendrecv from rank ", from, where(k)));
                        }
                        continue;
                    }
                    // rsend where the type has it, else a standard send.
                    const auto ready_send = [&](int to, int tg, const_bytes m) {
                        if constexpr (ready_send_transport<T>)
                            s.call("rsend", [&] { t.rsend(to, tg, m); });
                        else
                            s.send(t, to, tg, m);
                    };
                    const auto at = std::find(order.begin(), order.end(), me) - order.begin();
                    if (static_cast<std::size_t>(at ^ 1) >= order.size()) continue;  // the odd one out
                    const int peer = order[static_cast<std::size_t>(at ^ 1)];
                    const bool first = (at % 2) == 0;
                    const auto seed1 = static_cast<std::uint32_t>(vs + static_cast<std::uint64_t>(k) * 13 + static_cast<std::uint64_t>(first ? me : peer));
                    const auto seed2 = seed1 ^ 0x5555u;
                    const std::string pair = comet::detail::concat(" between ranks ", first ? me : peer, " and ", first ? peer : me, where(k));
                    if (form <= 2) {  // send/recv of n1 one way, n2 the other (recv with any_tag when form 1)
                        const int want_tag = form == 1 ? any_tag : tag;
                        if (first) {
                            s.call("ops::send", [&] { ops::send(t, peer, tag, detail::pattern(n1, seed1)); });
                            const status st = s.call("ops::recv", [&] { return ops::recv(t, peer, want_tag, mutable_bytes(in.data(), n2 + 8)); });
                            f.expect_status(st, peer, tag, n2, "recv of the " + std::to_string(n2) + "-byte answer" + pair);
                            f.expect_pattern(std::span(in.data(), n2), n2, seed2, "recv of the answer" + pair);
                        } else {
                            const status st = s.call("ops::recv", [&] { return ops::recv(t, peer, want_tag, mutable_bytes(in.data(), n1 + 8)); });
                            f.expect_status(st, peer, tag, n1, "recv of a " + std::to_string(n1) + "-byte message" + pair);
                            f.expect_pattern(std::span(in.data(), n1), n1, seed1, "recv" + pair);
                            s.call("ops::send", [&] { ops::send(t, peer, tag, detail::pattern(n2, seed2)); });
                        }
                    } else if (form == 3) {  // wait on a receive too small: truncation_error
                        const std::size_t big = n1 + 1;
                        if (first) {
                            s.call("ops::send", [&] { ops::send(t, peer, tag, detail::pattern(big, seed1)); });
                        } else {
                            auto r = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in.data(), n1)); });
                            bool raised = false;
                            try {
                                s.call("ops::wait", [&] { return ops::wait(t, r); });
                            } catch (const truncation_error&) {
                                raised = true;
                            }
                            f.expect(raised, "ops::wait on a receive of ", n1, " bytes that matched a ", big,
                                     "-byte message: no truncation_error was raised", pair);
                        }
                    } else if (form == 4) {  // wait_all over requests, default-constructed ones among them
                        const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                        std::vector<request> rs(4);
                        if (first) {
                            rs[1] = s.call("isend", [&] { return t.isend(peer, tag, const_bytes(m1)); });
                            rs[3] = s.call("isend", [&] { return t.isend(peer, tag, const_bytes(m2)); });
                        } else {
                            rs[static_cast<std::size_t>(slot1)] = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in.data(), n1)); });
                            rs[static_cast<std::size_t>(slot2)] = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in2.data(), n2)); });
                        }
                        if (one_by_one) {  // ops::wait on each: its own operation's status
                            for (std::size_t i = 0; i < rs.size(); ++i) {
                                const bool empty = first ? (i == 0 || i == 2) : (i != static_cast<std::size_t>(slot1) && i != static_cast<std::size_t>(slot2));
                                const std::size_t size = first ? (i == 1 ? n1 : n2) : (i == static_cast<std::size_t>(slot1) ? n1 : n2);
                                const status st = s.call("ops::wait", [&] { return ops::wait(t, rs[i]); });
                                if (empty)
                                    f.expect(st == status{}, "ops::wait on a default-constructed request gave a status", pair);
                                else
                                    f.expect_status(st, peer, tag, size, comet::detail::concat("ops::wait on request ", i + 1, " of 4", pair));
                            }
                        } else {
                            s.call("ops::wait_all", [&] { ops::wait_all(t, std::span<request>(rs)); });
                        }
                        for (auto& r : rs) {
                            const auto st = s.call("test", [&] { return t.test(r); });
                            f.expect(st && *st == status{}, "a request wait_all completed tests as pending or not empty", pair);
                        }
                        if (!first) {
                            f.expect_pattern(std::span(in.data(), n1), n1, seed1, "the first message received by wait_all" + pair);
                            f.expect_pattern(std::span(in2.data(), n2), n2, seed2, "the second message received by wait_all" + pair);
                        }
                    } else if (form == 5) {  // two issends matched in reverse order
                        if constexpr (synchronous_send_transport<T>) {
                            const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                            if (first) {
                                auto r1 = s.call("issend", [&] { return t.issend(peer, tag, const_bytes(m1)); });
                                auto r2 = s.call("issend", [&] { return t.issend(peer, tag + 1, const_bytes(m2)); });
                                s.recv(t, peer, tag + 2, mutable_bytes{});  // "took the second"
                                s.expect_status(s.wait_send(t, r2, peer, tag + 1), peer, tag + 1, n2, "the issend matched first" + pair);
                                s.for_a_while(std::chrono::milliseconds(2), [&] {
                                    f.expect(!s.call("test", [&] { return t.test(r1); }).has_value(),
                                             "an issend completed before its message was received (the other one was)", pair);
                                });
                                s.send(t, peer, tag + 3, const_bytes{});  // "take the first"
                                s.expect_status(s.wait_send(t, r1, peer, tag), peer, tag, n1, "the issend matched second" + pair);
                            } else {
                                s.probe(t, peer, tag);
                                f.expect_status(s.recv(t, peer, tag + 1, mutable_bytes(in.data(), n2)), peer, tag + 1, n2, "the second issend's message" + pair);
                                s.send(t, peer, tag + 2, const_bytes{});
                                s.recv(t, peer, tag + 3, mutable_bytes{});
                                f.expect_status(s.recv(t, peer, tag, mutable_bytes(in.data(), n1)), peer, tag, n1, "the first issend's message" + pair);
                            }
                        }
                    } else if (form == 6) {  // bsend behind an isend of the same tag
                        if constexpr (buffered_send_transport<T>) {
                            const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                            if (first) {
                                auto r = s.call("isend", [&] { return t.isend(peer, tag, const_bytes(m1)); });
                                s.call("bsend", [&] { t.bsend(peer, tag, m2); });
                                s.wait_send(t, r, peer, tag);
                            } else {
                                s.probe(t, peer, tag);
                                f.expect_status(s.recv(t, peer, tag, mutable_bytes(in.data(), n1)), peer, tag, n1,
                                                "the isend's message, sent before a bsend of the same tag" + pair);
                                f.expect_status(s.recv(t, peer, tag, mutable_bytes(in.data(), n2)), peer, tag, n2, "the bsend's message" + pair);
                                f.expect_pattern(std::span(in.data(), n2), n2, seed2, "the bsend's message" + pair);
                            }
                        }
                    } else if (form == 9) {  // wait_all over many requests
                        const int many = 60 + static_cast<int>(n2 % 80);
                        std::vector<std::vector<std::byte>> ms;
                        std::vector<request> rs;
                        for (int i = 0; i < many; ++i) ms.push_back(detail::pattern(static_cast<std::size_t>(i % 17), seed1 + static_cast<std::uint32_t>(i)));
                        std::vector<std::vector<std::byte>> got(static_cast<std::size_t>(many), std::vector<std::byte>(17, traffic::untouched));
                        for (int i = 0; i < many; ++i)
                            rs.push_back(first ? s.call("isend", [&] { return t.isend(peer, tag, const_bytes(ms[static_cast<std::size_t>(i)])); })
                                               : s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(got[static_cast<std::size_t>(i)])); }));
                        s.call("ops::wait_all", [&] { ops::wait_all(t, std::span<request>(rs)); });
                        for (int i = 0; i < many; ++i) {
                            const auto st = s.call("test", [&] { return t.test(rs[static_cast<std::size_t>(i)]); });
                            f.expect(st && *st == status{}, "request ", i + 1, " of ", many, " was not complete after wait_all", pair);
                            if (!first)
                                f.expect_pattern(got[static_cast<std::size_t>(i)], static_cast<std::size_t>(i % 17), seed1 + static_cast<std::uint32_t>(i),
                                                 comet::detail::concat("message ", i + 1, " of ", many, " completed by one wait_all", pair));
                        }
                    } else if (form == 10) {  // recv(any_source, tag) past an earlier message of another tag
                        const int named = std::min(tag, first_reserved_tag - 2);  // no collective's own tag
                        if (first) {
                            const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                            auto r1 = s.call("isend", [&] { return t.isend(peer, named + 1, const_bytes(m1)); });
                            auto r2 = s.call("isend", [&] { return t.isend(peer, named, const_bytes(m2)); });
                            s.wait_send(t, r1, peer, named + 1);
                            s.wait_send(t, r2, peer, named);
                        } else {
                            s.probe(t, peer, named + 1);
                            f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, any_source, named, mutable_bytes(in.data(), n2)); }), peer, named,
                                            n2, "recv(any_source, " + std::to_string(named) + ") with a message of tag " + std::to_string(named + 1) +
                                                    " from the same rank queued before" + pair);
                            f.expect_pattern(std::span(in.data(), n2), n2, seed2, "recv(any_source, tag)" + pair);
                            f.expect_status(s.call("ops::recv", [&] { return ops::recv(t, peer, named + 1, mutable_bytes(in.data(), n1)); }), peer,
                                            named + 1, n1, "recv of the earlier message" + pair);
                        }
                    } else if (form == 11) {  // issend to oneself; an issend matched by a receive too small
                        if constexpr (synchronous_send_transport<T>) {
                            const auto m1 = detail::pattern(n1, seed1);
                            auto r = s.call("issend", [&] { return t.issend(me, tag, const_bytes(m1)); });
                            f.expect_status(s.recv(t, me, tag, mutable_bytes(in.data(), n1)), me, tag, n1, "a message this rank issent itself" + pair);
                            f.expect_status(s.wait_send(t, r, me, tag), me, tag, n1, "an issend to oneself, once received" + pair);
                            const auto big = detail::pattern(n1 + 1, seed2);
                            if (first) {
                                auto rb = s.call("issend", [&] { return t.issend(peer, tag, const_bytes(big)); });
                                f.expect_status(s.wait_send(t, rb, peer, tag), peer, tag, n1 + 1, "an issend whose receive was too small" + pair);
                            } else {
                                auto rr = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in.data(), n1)); });
                                s.expect_throw<truncation_error>([&] { s.wait_recv(t, rr, peer, tag); }, {std::to_string(n1 + 1)},
                                                                 "an issend's message into a receive too small");
                            }
                        }
                    } else if (form == 12) {  // a ready message past an earlier posted receive naming another source
                        const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                        if (first) {
                            s.recv(t, peer, tag + 1, mutable_bytes{});  // "posted"
                            ready_send(peer, tag, m1);
                            std::byte again{};
                            s.recv(t, peer, tag + 2, mutable_bytes(&again, 1));
                            if (again == std::byte{1}) s.send(t, peer, tag, m1);  // the receive it was for still waits
                        } else {
                            // Posted first: a receive of the same tag naming this rank itself (room
                            // for any message: one that took the ready one must not raise).
                            auto own = s.call("irecv", [&] { return t.irecv(me, tag, mutable_bytes(in2)); });
                            auto r = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in.data(), n1)); });
                            s.send(t, peer, tag + 1, const_bytes{});
                            // Whichever completes first: a receive that took the wrong message
                            // is a failure of this round, and the ranks go on together.
                            const auto [which, st] = s.until(
                                [&]() -> std::optional<std::pair<int, status>> {
                                    if (auto x = s.call("test", [&] { return t.test(r); })) return std::pair{0, *x};
                                    if (auto x = s.call("test", [&] { return t.test(own); })) return std::pair{1, *x};
                                    return std::nullopt;
                                },
                                [&] { return comet::detail::concat("a ready message from rank ", peer, ", tag ", tag, pair); });
                            f.expect(which == 0, "a receive from rank ", me, " (itself), tag ", tag, " completed before rank ", me,
                                     " sent anything, with status {source ", st.source, ", tag ", st.tag, ", size ", st.size,
                                     "}: a ready message went into a receive naming another source", pair);
                            const std::byte again{static_cast<unsigned char>(which)};
                            s.send(t, peer, tag + 2, const_bytes(&again, 1));
                            if (which == 1) {
                                s.wait_recv(t, r, peer, tag);  // sent again, so that the ranks go on together
                            } else {
                                f.expect_status(st, peer, tag, n1, "a ready message, with a receive of its tag naming another source posted before its own" + pair);
                                f.expect_pattern(std::span(in.data(), n1), n1, seed1, "a ready message past a receive naming another source" + pair);
                                auto mine = s.call("isend", [&] { return t.isend(me, tag, const_bytes(m2)); });
                                f.expect_status(s.wait_recv(t, own, me, tag), me, tag, n2, "a message to oneself into the receive posted first" + pair);
                                s.wait_send(t, mine, me, tag);
                            }
                        }
                    } else if (form == 13) {  // progress() with a message of another tag queued and a receive posted
                        const int named = std::min(tag, first_reserved_tag - 3);  // no collective's own tag
                        const auto m1 = detail::pattern(n1, seed1), m2 = detail::pattern(n2, seed2);
                        if (first) {
                            auto r1 = s.call("isend", [&] { return t.isend(peer, named + 1, const_bytes(m1)); });
                            s.recv(t, peer, named + 2, mutable_bytes{});  // "posted, and progressed"
                            s.send(t, peer, named, m2);
                            s.wait_send(t, r1, peer, named + 1);
                        } else {
                            s.probe(t, peer, named + 1);
                            auto r = s.call("irecv", [&] { return t.irecv(peer, named, mutable_bytes(in.data(), n2)); });
                            if constexpr (progress_transport<T>)
                                for (int x = polls; x > 0; --x) s.call("progress", [&] { t.progress(); });
                            f.expect(!s.call("test", [&] { return t.test(r); }).has_value(), "a receive of tag ", named, " from rank ", peer,
                                     " completed before any message of that tag was sent (one of tag ", named + 1, " was queued)", pair);
                            s.send(t, peer, named + 2, const_bytes{});
                            f.expect_status(s.wait_recv(t, r, peer, named), peer, named, n2, "a receive posted beside a queued message of another tag" + pair);
                            f.expect_pattern(std::span(in.data(), n2), n2, seed2, "a receive posted beside a queued message of another tag" + pair);
                            f.expect_status(s.recv(t, peer, named + 1, mutable_bytes(in.data(), n1)), peer, named + 1, n1, "the queued message" + pair);
                            f.expect_pattern(std::span(in.data(), n1), n1, seed1, "the queued message" + pair);
                        }
                    } else {  // form 7: rsend into a posted receive, or progress before test
                        const auto m1 = detail::pattern(n1, seed1);
                        if (first) {
                            s.recv(t, peer, tag + 1, mutable_bytes{});  // "posted"
                            ready_send(peer, tag, m1);
                        } else {
                            auto r = s.call("irecv", [&] { return t.irecv(peer, tag, mutable_bytes(in.data(), n1)); });
                            s.send(t, peer, tag + 1, const_bytes{});
                            if constexpr (progress_transport<T>)
                                for (int x = polls; x > 0; --x) s.call("progress", [&] { t.progress(); });
                            f.expect_status(s.wait_recv(t, r, peer, tag), peer, tag, n1, "a ready message into a posted receive, after progress()" + pair);
                            f.expect_pattern(std::span(in.data(), n1), n1, seed1, "a ready message" + pair);
                        }
                    }
                }
            }
            f.settle(s);
            s.barrier(t);
        }
    });
}

}  // namespace comet::testing::checks
